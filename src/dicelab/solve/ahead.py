"""Compiling kernels in other processes while this one compiles its own.

A first expected-score solve compiles two turns: single precision for most layers
and double precision for the first three (8 s each on 2 cores). :func:`start`
begins the second in a child process, :func:`finish` waits for it, and this
process then loads it from Numba's cache instead of compiling it: the first solve
takes the longer of the two compiles, not their sum.

The child writes to a cache folder of its own, and :func:`finish` moves the
kernel's files beside this process's: two processes that write one cache folder
at once can pair one's index entry with the other's machine code. A kernel
compiled ahead is a top-level function of its own (its own cache file), such as
:func:`dicelab.solve.kernels.blocks.solve_blocks_double`; the functions it calls
stay in the child's folder.

If anything goes wrong (one core, no cache, a child that fails), nothing is said:
this process compiles the kernel itself, as it would have anyway.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

#: name -> (module, its top-level kernels, the function that compiles them)
KERNELS = {
    "expected-double": (
        "dicelab.solve.kernels.blocks",
        ("solve_blocks_double",),
        "dicelab.solve.expected:compile_double",
    ),
    "distribution": (
        "dicelab.solve.distribution",
        ("layer_outcomes", "carry_layer"),
        "dicelab.solve.distribution:compile_kernels",
    ),
}

_pending: dict[str, tuple[subprocess.Popen, str]] = {}


def _dispatchers(name: str) -> list:
    module, kernels, _ = KERNELS[name]
    found = importlib.import_module(module)
    return [getattr(found, k) for k in kernels]


def is_cached(dispatcher) -> bool:
    """Whether Numba's cache holds ``dispatcher`` compiled for this source (any
    signature), or caching is off (then there is nothing to gain ahead)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except AttributeError:  # no cache, or another Numba
        return True


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def start(name: str) -> None:
    """Compile the kernels ``name`` of :data:`KERNELS` in a child process, unless
    they are cached, already started, or this machine has one core."""
    if name in _pending or _cores() < 2 or all(map(is_cached, _dispatchers(name))):
        return
    folder = tempfile.mkdtemp(prefix="dicelab-compile-")
    env = dict(os.environ, NUMBA_CACHE_DIR=folder)
    proc = subprocess.Popen(
        [sys.executable, "-m", __name__, name],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    _pending[name] = (proc, folder)


def finish(name: str) -> None:
    """Wait for the kernels ``name`` if :func:`start` began them, and put their
    cache files where this process's Numba looks."""
    if name not in _pending:
        return
    proc, folder = _pending.pop(name)
    try:
        out, _ = proc.communicate()
        if proc.returncode == 0:
            for made, dispatcher in zip(json.loads(out), _dispatchers(name), strict=True):
                _move_files(made, dispatcher)
    except (OSError, ValueError, KeyError, AttributeError):
        pass  # this process compiles it instead
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _move_files(made: dict, dispatcher) -> None:
    """The child's data files, then its index (so that no reader finds an index
    without its data), each written under a temporary name and renamed."""
    target = Path(dispatcher._cache._cache_path)
    if made["index"] != Path(dispatcher._cache._cache_file._index_path).name:
        return
    target.mkdir(parents=True, exist_ok=True)
    for file in [*made["data"], made["index"]]:
        tmp = target / f".{file}.{os.getpid()}.tmp"
        shutil.copyfile(Path(made["folder"]) / file, tmp)
        os.replace(tmp, target / file)


@atexit.register
def _stop_children() -> None:
    for proc, folder in _pending.values():
        proc.kill()
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    _pending.clear()


def _compile_here(name: str) -> list[dict]:
    """In the child: compile the kernels of ``name`` and list their cache files."""
    module, func = KERNELS[name][2].split(":")
    getattr(importlib.import_module(module), func)()
    made = []
    for dispatcher in _dispatchers(name):
        cache = dispatcher._cache
        folder = Path(cache._cache_path)
        index = Path(cache._cache_file._index_path).name
        stem = index.removesuffix(".nbi")
        data = sorted(p.name for p in folder.glob(f"{stem}.*.nbc"))
        made.append({"folder": str(folder), "index": index, "data": data})
    return made


if __name__ == "__main__":
    print(json.dumps(_compile_here(sys.argv[1])))
