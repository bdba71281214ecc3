"""Solves in a process of their own, so the server can cap, cancel and stop them.

The server (:class:`dicelab.web.store.Store`) hands every table it has to solve to
``python -m dicelab.web.worker`` (and :class:`dicelab.web.game_store.GameStore` every
large dice game, :data:`GAME`): the rules and the objective go in pickled on
standard input, progress and the end come back as lines of JSON on standard
output. The child solves into a cache folder (the disk cache for built-in rule
sets, a folder of the server's own for uploads) and the server then loads the
table from there, checked as any cached table is. So a solve can be killed at
any moment (a stop, a cancel, a time limit) without harm, its memory is capped
(``RLIMIT_AS``), and a crash in it costs one answer, not the server.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from dicelab.errors import TooLarge, UserError

#: The objective that names a dice game of the chance model, not a table: the rules
#: are then the family's name and its settings (:mod:`dicelab.web.game_store`).
GAME = "dice-game"
#: Seconds between two progress lines of a child.
TICK_SECONDS = 0.2
#: How much lower a worker's priority is than the server's: requests are answered
#: first, and the solve takes the rest of the cores.
NICE = 10
#: Address space a child may take beyond its table's estimate: the interpreter,
#: NumPy, Numba, LLVM and the compiled kernels.
OVERHEAD_BYTES = 3 * 2**30


@dataclass
class Limits:
    """What one solve may take: bytes of memory (``None``: no cap) and seconds."""

    memory: int | None = None
    seconds: float | None = None


class Cancelled(UserError):
    """A solve stopped before its end: the server stops, or it ran past its time."""


class QueueFull(UserError):
    """Too many solves or estimates wait already (answered 503: ask again later)."""


class Child:
    """One running solve: its process and the thread that reads its lines."""

    def __init__(self, rules, objective: str, folder: str, limits: Limits, progress) -> None:
        # the server solves each table once: its workers claim nothing (see claims)
        env = dict(os.environ, DICELAB_CACHE_DIR=folder, DICELAB_NO_CLAIMS="1")
        if limits.memory is not None:
            env["DICELAB_WORKER_MEMORY"] = str(limits.memory + OVERHEAD_BYTES)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        self.limits = limits
        self.progress = progress
        self.end: dict | None = None
        self.stopped = False
        assert self.proc.stdin is not None and self.proc.stdout is not None  # PIPE
        self.proc.stdin.write(pickle.dumps((rules, objective)))
        self.proc.stdin.close()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None  # PIPE
        for line in self.proc.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "done" in message:
                self.progress(message["done"], message["total"])
            else:
                self.end = message

    def stop(self) -> None:
        """Kill the child (it writes nothing half-way: see the module docstring)."""
        self.stopped = True
        if self.proc.poll() is None:
            self.proc.kill()

    def wait(self) -> None:
        """Until the child ends; raise what it ended with, unless it ended well."""
        deadline = None if self.limits.seconds is None else time.monotonic() + self.limits.seconds
        while self.proc.poll() is None:
            if deadline is not None and time.monotonic() > deadline:
                self.stop()
                self.proc.wait()
                raise Cancelled(
                    f"the solve ran past the server's limit of {self.limits.seconds:.0f} s "
                    "(dicelab serve --max-solve-seconds)"
                )
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=0.2)
        self._reader.join(timeout=5)
        if self.stopped:
            raise Cancelled("the solve was stopped: the server is stopping")
        end = self.end or {}
        if end.get("ok"):
            return
        raise _error_of(end, self.proc.returncode)


def _error_of(end: dict, returncode: int) -> Exception:
    """The exception a child's last line stands for."""
    if "too_large" in end:
        return TooLarge(end["too_large"], **end["fields"])
    if "error" in end:
        return UserError(end["error"])
    if end.get("memory"):
        return UserError("the solve ran out of the memory this server allows it (--max-memory)")
    if returncode == -9:
        return UserError("the solve was killed (by the system for lack of memory, or by hand)")
    return UserError(f"the solve stopped unexpectedly (exit status {returncode})")


def solve_in_child(
    rules, objective: str, folder: str, limits: Limits, progress: Callable, started: Callable
) -> None:
    """Solve a table in a child process into ``folder``; ``started(child)`` is told
    the child (to stop it early), ``progress(done, total)`` its progress."""
    child = Child(rules, objective, folder, limits, progress)
    started(child)
    child.wait()


# -- in the child -------------------------------------------------------------------------
def _main() -> None:
    import resource
    import signal

    die_with_parent()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # the server gone: end at once, quietly
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)  # the server's answers first: a solve takes what they leave
    from dicelab.web.tables import solve_objective

    memory = os.environ.get("DICELAB_WORKER_MEMORY")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    rules, objective = pickle.loads(sys.stdin.buffer.read())
    last = [0.0]

    def progress(done, total) -> None:
        now = time.monotonic()
        if now - last[0] >= TICK_SECONDS or done >= total:
            last[0] = now
            _say({"done": int(done), "total": int(total)})

    try:
        if objective == GAME:
            from dicelab.games.chance.families import game_from
            from dicelab.games.chance.solution import solve

            solve(game_from(*rules), cache=True, progress=progress)
        else:
            solve_objective(rules, objective, use_cache=True, progress=progress)
        from dicelab.engine.runtime.cache import wait_stored

        wait_stored()  # the server reads the file once this process says it is done
    except TooLarge as exc:
        fields = dict(what=exc.what, states=exc.states, bytes=exc.bytes, seconds=exc.seconds)
        _say({"too_large": exc.summary, "fields": {**fields, "reason": exc.reason}})
    except UserError as exc:
        _say({"error": str(exc)})
    except MemoryError:
        _say({"memory": True})
    else:
        _say({"ok": True})


def die_with_parent() -> None:
    """Be killed when the server ends, however it ends (Linux: ``PR_SET_PDEATHSIG``)."""
    import ctypes
    import signal

    # elsewhere: a write to the closed pipe ends it at the next progress line
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1: PR_SET_PDEATHSIG
    if os.getppid() == 1:  # the server ended before the line above
        os._exit(1)


def _say(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    _main()
