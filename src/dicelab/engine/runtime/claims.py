"""A table being solved, claimed across processes: a second solve of it waits.

Two processes that ask for the same uncached table (a terminal and a notebook, both
after the 3.5 GiB, twenty-minute duel of yazy) would each solve it. So the process
that finds a table missing claims it: an exclusive lock (``flock``) on a file beside
the table's (``NAME.dlt.lock``, deleted as it is let go), held until the table is
stored, or until the process ends, whichever comes first (the system drops the
lock of a process that dies; its file stays, free, and is taken by the next).
Another process that finds the table missing meanwhile says once that it waits,
waits for the lock, and then reads the table the first one stored
(:func:`dicelab.engine.runtime.cache.lookup`). A folder where no lock file can be
made (read-only) or a system without ``flock`` simply goes without.
"""

from __future__ import annotations

import os
import sys
import threading
from contextlib import contextmanager, suppress
from pathlib import Path

__all__ = ["claim", "given_up_on_failure", "held", "release"]

#: Set in a process whose solves are claimed by another already (the server's
#: workers: the server solves each table once, and stops a worker at its limits).
OFF_VARIABLE = "DICELAB_NO_CLAIMS"

#: The lock files this process holds, by table path.
_held: dict[Path, int] = {}
_lock = threading.Lock()


def _lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def claim(path: Path) -> bool:
    """Hold the claim on the table at ``path``, waiting while another process holds
    it; whether this call waited (the table may be on disk now: look again).

    The holder deletes the lock file as it gives the claim up, so a process that
    waited on the old file checks, once it holds a lock, that it holds the file now
    at that path, and tries again where it does not."""
    try:
        import fcntl
    except ImportError:  # no flock here: every process solves for itself
        return False
    if os.environ.get(OFF_VARIABLE):
        return False
    with _lock:
        if path in _held:
            return False
    waited = False
    for _ in range(100):
        try:
            fd = os.open(_lock_path(path), os.O_CREAT | os.O_RDWR, 0o644)
        except OSError:
            return waited
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not waited and sys.stderr.isatty():
                print(f"waiting for another dicelab process solving {path.name} ...",
                      file=sys.stderr, flush=True)  # fmt: skip
            waited = True
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except OSError:
                os.close(fd)
                return waited
        except OSError:
            os.close(fd)
            return waited
        if _same_file(fd, _lock_path(path)):
            with _lock:
                _held[path] = fd
            return waited
        os.close(fd)  # the holder deleted it as it let go: the claim is to be taken anew
    return waited


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def held() -> set[Path]:
    """The tables this process holds a claim on."""
    with _lock:
        return set(_held)


def release(path: Path) -> None:
    """Give up the claim on ``path`` (its table stored, or no longer being solved)."""
    with _lock:
        fd = _held.pop(path, None)
    if fd is None:
        return
    with suppress(OSError):
        os.unlink(_lock_path(path))  # before the lock is let go: see :func:`claim`
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_UN)
    except (ImportError, OSError):
        pass
    os.close(fd)


@contextmanager
def given_up_on_failure():
    """Give up the claims taken inside the block where it fails or is stopped (a
    solve that ends in an error stores nothing; a process that goes on, a server or
    a notebook, must not keep others waiting for a table it will not store)."""
    before = held()
    try:
        yield
    except BaseException:
        for path in held() - before:
            release(path)
        raise
