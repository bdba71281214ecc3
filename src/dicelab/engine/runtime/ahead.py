"""Compiling kernels in other processes while this one compiles its own.

A first expected-score solve compiles two turns: single precision for most layers
and double precision for the first three (8 s each on 2 cores). :func:`start`
begins the second in a child process, :func:`finish` waits for it, and this
process then loads it from Numba's cache instead of compiling it: the first solve
takes the longer of the two compiles, not their sum. A command that solves a table
and then runs other kernels on it (the distribution, the simulation) compiles those
meanwhile the same way.

The child writes to a cache folder of its own, and :func:`finish` moves the
kernel's files beside this process's: two processes that write one cache folder
at once can pair one's index entry with the other's machine code. A kernel
compiled ahead is a top-level function of its own (its own cache file), such as
:func:`dicelab.engine.kernels.blocks.solve_blocks_double`; the functions it calls
stay in the child's folder.

If anything goes wrong (one core, no cache, a child that fails), nothing is said:
this process compiles the kernel itself, as it would have anyway.
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

_pending: dict[str, tuple[subprocess.Popen, str, tuple[str, ...]]] = {}


def _found(path: str):
    """The object at ``"module:name"``."""
    module, name = path.split(":")
    return getattr(importlib.import_module(module), name)


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


def start(compile_with: str, kernels: Sequence[str]) -> None:
    """Run ``compile_with`` (a function, as ``"module:name"``) in a child process to
    compile ``kernels`` (top-level Numba functions, the same way), unless they are
    cached, it is already running, or this machine has one core."""
    if compile_with in _pending or _cores() < 2:
        return
    if all(is_cached(_found(k)) for k in kernels):
        return
    _spawn(compile_with, tuple(kernels))


def start_all(compile_with: str, unless: Sequence[str]) -> None:
    """:func:`start` for every kernel ``compile_with`` compiles: :func:`finish` then
    brings over each one that this process's cache lacks altogether (its own
    kernels, and those compiled here meanwhile, stay as they are). Nothing starts
    where the kernels ``unless`` names are all cached already (compiled before)."""
    if compile_with in _pending or _cores() < 2:
        return
    if all(is_cached(_found(k)) for k in unless):
        return
    _spawn(compile_with, ())


def _spawn(compile_with: str, kernels: tuple[str, ...]) -> None:
    """The child that compiles, into a cache folder of its own."""
    folder = tempfile.mkdtemp(prefix="dicelab-compile-")
    env = dict(os.environ, NUMBA_CACHE_DIR=folder)
    proc = subprocess.Popen(
        [sys.executable, "-m", __name__, compile_with, *kernels],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=_yield_to_parent if hasattr(os, "nice") else None,
    )
    _pending[compile_with] = (proc, folder, kernels)


def _yield_to_parent() -> None:
    """In the child, before it starts: a lower priority, so that the parent's own
    compile (what the command waits for first) keeps a whole core however many
    children compile beside it."""
    os.nice(10)


def finish(compile_with: str) -> None:
    """Wait for ``compile_with`` if :func:`start` ran it, and put its kernels' cache
    files where this process's Numba looks."""
    if compile_with not in _pending:
        return
    proc, folder, kernels = _pending.pop(compile_with)
    try:
        out, _ = proc.communicate()
        if proc.returncode == 0:
            for made in json.loads(out):
                dispatcher = _found(made["kernel"])
                if kernels or not is_cached(dispatcher):
                    _move_files(made, dispatcher)
                else:  # compiled here too: the child's other signatures join them
                    _merge_files(made, dispatcher)
    except (OSError, ValueError, KeyError, AttributeError):
        pass  # this process compiles them instead
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


def _merge_files(made: dict, dispatcher) -> None:
    """The child's compiled signatures of a kernel this process has cached too (a
    table read back read-only, say): each data file this cache lacks is brought
    over under a free number, then the index is written again with them."""
    cache_file = dispatcher._cache._cache_file
    target = Path(dispatcher._cache._cache_path)
    with open(Path(made["folder"]) / made["index"], "rb") as f:
        version = pickle.load(f)
        stamp, theirs = pickle.loads(f.read())
    if version != cache_file._version or stamp != cache_file._source_stamp:
        return
    ours = cache_file._load_index()
    stem = made["index"].removesuffix(".nbi")
    taken = {int(name.split(".")[-2]) for name in ours.values()}
    for key, name in theirs.items():
        if key in ours:
            continue
        number = max(taken, default=0) + 1
        taken.add(number)
        tmp = target / f".{stem}.{number}.{os.getpid()}.tmp"
        shutil.copyfile(Path(made["folder"]) / name, tmp)
        os.replace(tmp, target / f"{stem}.{number}.nbc")
        ours[key] = f"{stem}.{number}.nbc"
    cache_file._save_index(ours)


@atexit.register
def stop_children() -> None:
    """Kill the compiling children still running (at exit, or before one that skips
    the exit handlers)."""
    for proc, folder, _ in _pending.values():
        proc.kill()
        proc.wait()
        shutil.rmtree(folder, ignore_errors=True)
    _pending.clear()


def _compile_here(compile_with: str, kernels: Sequence[str]) -> list[dict]:
    """In the child: run ``compile_with`` and list the cache files of ``kernels``
    (none named: of every kernel it compiled, see :func:`start_all`)."""
    _found(compile_with)()
    made = []
    for kernel in kernels or _every_compiled():
        cache = _found(kernel)._cache
        folder = Path(cache._cache_path)
        index = Path(cache._cache_file._index_path).name
        stem = index.removesuffix(".nbi")
        data = sorted(p.name for p in folder.glob(f"{stem}.*.nbc"))
        made.append({"folder": str(folder), "index": index, "data": data, "kernel": kernel})
    return made


def _every_compiled() -> list[str]:
    """Every cached Numba function of dicelab's loaded modules that has an index in
    this process's cache folder, as ``"module:name"``."""
    found = []
    for name, module in list(sys.modules.items()):
        if not name.startswith("dicelab."):
            continue
        for attr, value in list(vars(module).items()):
            cache = getattr(value, "_cache", None)
            index = getattr(getattr(cache, "_cache_file", None), "_index_path", None)
            if index and getattr(value, "__module__", None) == name and Path(index).is_file():
                found.append(f"{name}:{attr}")
    return found


if __name__ == "__main__":
    print(json.dumps(_compile_here(sys.argv[1], sys.argv[2:])))
