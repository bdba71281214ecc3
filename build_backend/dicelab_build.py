"""dicelab's build backend: setuptools, and the kernels compiled at an editable install.

Numba compiles a kernel the first time it runs and keeps it in ``__pycache__``
beside the kernel's source. ``pip install -e .`` builds its wheel here, in the
checkout the installed package runs from, so after the wheel is built the kernels of
every command are compiled into that very cache (:func:`dicelab.cli.warmup.compile_all`:
the main commands' here, the others' in a second process beside it), and no first
command waits for them.

Numba checks a cached kernel against its own source file only, not against the
files of the functions it calls, so after an upgrade a kernel whose file did not
change could run the old code of a function that did. The compile therefore
starts from an empty cache: the files Numba keeps beside the sources are deleted
first.

The compile runs with this build's own NumPy and Numba (``[build-system] requires``).
Numba reads a cache only with the version that wrote it, so if the installed Numba
differs, the kernels simply compile on first use, as they would without this step.
Nothing here can fail the install: a compile that fails or takes over
``DICELAB_COMPILE_TIMEOUT`` seconds (600) is reported and skipped, and
``DICELAB_NO_COMPILE=1`` skips it. A wheel for another folder (``pip install .``)
is built as setuptools builds it; ``dicelab cache compile`` compiles afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  every other hook as setuptools has it

SOURCES = Path(__file__).resolve().parent.parent / "src"
COMPILE = "import dicelab.cli.warmup; dicelab.cli.warmup.compile_all()"
#: Seconds the compile takes on 2 quiet cores (measured: about 140 s with every
#: command's kernels), scaled by the load when the install says how long it will be.
COMPILE_SECONDS = 140.0
#: Where a line reaches the person installing past pip (see :func:`tell`).
TTY = "/dev/tty"


def tell(line: str) -> None:
    """A line for the person installing: pip keeps a build's output to itself (it
    shows it only with ``-v`` or on failure), so it goes to the terminal directly
    where there is one, and to standard error for the log."""
    print(line, file=sys.stderr, flush=True)
    try:
        with open(TTY, "a") as tty:
            tty.write(line + "\n")
    except OSError:
        pass  # no terminal (a CI job, a container): the log has it


def compile_estimate() -> float:
    """The compile's seconds here: :data:`COMPILE_SECONDS`, longer on a busy machine."""
    cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        load = 0.0
    return COMPILE_SECONDS * max(1.0, (load + 1.0) / cores)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """setuptools' editable wheel, then the kernels compiled beside the sources."""
    name = _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)
    compile_kernels()
    return name


def compile_kernels() -> bool:
    """Compile the kernels in a child process, from an empty cache; say how it went
    on standard error."""
    if os.environ.get("DICELAB_NO_COMPILE"):
        return False
    clear_compiled(SOURCES / "dicelab")
    try:
        timeout = float(os.environ.get("DICELAB_COMPILE_TIMEOUT", "600"))
    except ValueError:
        print("dicelab: DICELAB_COMPILE_TIMEOUT should be seconds; 600 taken", file=sys.stderr)
        timeout = 600.0
    tell(f"dicelab: compiling the solver's kernels once, about {compile_estimate() / 60:.0f} "
         "min here (DICELAB_NO_COMPILE=1 leaves it to the first use)")  # fmt: skip
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dicelab-build-") as tables:
        paths = [str(SOURCES), *filter(None, [os.environ.get("PYTHONPATH")])]
        # the tables of the compile's small solves go to a folder of their own
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths), DICELAB_CACHE_DIR=tables)
        try:
            done = subprocess.run(
                [sys.executable, "-c", COMPILE],
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            tell(f"dicelab: kernels not compiled at install ({exc})")
            return False
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        tell(f"dicelab: kernels not compiled at install ({last})")
        return False
    tell(f"dicelab: kernels compiled in {seconds:.0f} s")
    return True


def clear_compiled(package: Path) -> int:
    """Delete the compiled kernels Numba keeps in ``__pycache__`` folders under
    ``package`` (its index and data files); returns how many files went."""
    gone = 0
    for pattern in ("*.nbi", "*.nbc"):
        for path in package.rglob(f"__pycache__/{pattern}"):
            try:
                path.unlink()
                gone += 1
            except OSError:
                pass  # not ours to delete, or gone meanwhile: Numba checks what it reads
    return gone
