"""The dice games a server has solved: each built once per settings, each large solve in
a worker process under the server's limits, dropped when no one waits for it.

Every request of the Dice games view names a family and its settings
(:mod:`dicelab.web.routes.games`). :class:`GameStore` keeps the games built from
them (building Farkle's scoring takes a good part of a second) and their solutions,
a few at a time. A small game (under :data:`APART_FROM`
positions) is solved on the request's own thread in a fraction of a second; a
larger one is solved by ``python -m dicelab.web.worker`` into the disk cache, with
the server's ``--max-memory`` and ``--max-solve-seconds``
(:class:`~dicelab.web.worker.Limits`), one at a time, and the server reads the
solution from there, checked as any cached solution is. A solve that every client
who asked for it has left is stopped; a small game never waits behind a large one.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from concurrent.futures import Future
from typing import Any

from dicelab.errors import UserError
from dicelab.web.worker import Cancelled, Limits, QueueFull

__all__ = ["APART_FROM", "GameStore"]

#: Solutions kept in memory, the least recently used dropped first.
KEPT = 4
#: Built games kept (one per family and settings asked for).
KEPT_GAMES = 32
#: A game laid out with at least this many positions, or solved where its turns
#: start, is solved in a worker process (smaller ones take a fraction of a second).
APART_FROM = 100_000
#: Large solves waiting their turn, at most (then 503).
MAX_WAITING = 6


class _Job:
    """One solve under way: who waits for it, and its worker once started."""

    def __init__(self) -> None:
        self.future: Future = Future()
        self.waiting = 0
        self.child: Any = None  # a worker.Child once started
        self.dropped = False
        #: "queued" behind another large solve, or "solving" since ``started``
        self.state = "queued"
        self.started = time.monotonic()
        self.done, self.total = 0, 0

    def heard(self, done: int, total: int) -> None:
        """The solve's progress (from this process's solver or the worker's lines)."""
        if self.state != "solving":
            self.state, self.started = "solving", time.monotonic()
        self.done, self.total = int(done), int(total)

    def report(self) -> dict:
        """Where the solve stands (see :meth:`GameStore.progress`)."""
        out: dict = {"state": self.state}
        if self.state == "solving":
            seconds = time.monotonic() - self.started
            out.update(done=self.done, total=self.total, seconds=round(seconds, 2))
            if 0 < self.done < self.total and seconds >= 1.0:
                out["left_seconds"] = round(seconds * (self.total - self.done) / self.done, 1)
        return out


class GameStore:
    """The dice games of one server and their solutions (see the module's text)."""

    def __init__(self, limits: Limits | None = None, processes: bool = True) -> None:
        self.limits = limits or Limits()
        self.processes = processes
        self._lock = threading.Lock()
        self._games: OrderedDict[tuple, Any] = OrderedDict()
        self._solved: OrderedDict[tuple, Any] = OrderedDict()
        self._jobs: dict[tuple, _Job] = {}
        self._apart = threading.Semaphore(1)  # large solves, one at a time
        self._queued = 0
        self._closed = False

    def game(self, name: str, settings: dict[str, str]) -> tuple[tuple, Any]:
        """The game of a family with these settings, built once; its key."""
        from dicelab.games.chance.families import FAMILIES, game_from

        if name not in FAMILIES:
            raise UserError(f"game: got {name!r}, expected one of {', '.join(FAMILIES)}")
        key = (name, tuple(sorted(settings.items())))
        with self._lock:
            found = self._games.get(key)
            if found is not None:
                self._games.move_to_end(key)
                return key, found
        game = game_from(name, [f"{k}={v}" for k, v in settings.items()])
        with self._lock:
            self._games[key] = game
            while len(self._games) > KEPT_GAMES:
                self._games.popitem(last=False)
        return key, game

    def solved(self, key: tuple):
        """The solution of a game if it is in memory, without waiting."""
        with self._lock:
            found = self._solved.get(key)
            if found is not None:
                self._solved.move_to_end(key)
            return found

    def solution(self, key: tuple, game) -> Future:
        """A future of the game's solution, shared by every caller asking meanwhile;
        each caller is counted until :meth:`release`."""
        with self._lock:
            if self._closed:
                raise Cancelled("the server is stopping")
            found = self._solved.get(key)
            if found is not None:
                done: Future = Future()
                done.set_result(found)
                return done
            found_job = self._jobs.get(key)
            fresh = found_job is None
            job = self._jobs[key] = found_job or _Job()
            job.waiting += 1
        if fresh:
            threading.Thread(target=self._run, args=(key, game, job), daemon=True,
                             name="dicelab-game").start()  # fmt: skip
        return job.future

    def release(self, key: tuple, gone: bool = False) -> None:
        """A caller stops waiting; a solve that every caller has left (``gone``) is
        stopped, its worker killed (it writes nothing half-way)."""
        with self._lock:
            job = self._jobs.get(key)
            if job is None:
                return
            job.waiting = max(0, job.waiting - 1)
            if not gone or job.waiting > 0:
                return
            job.dropped = True
            del self._jobs[key]
            child = job.child
        if child is not None:
            child.stop()
        _settle(job.future, error=Cancelled("no one waits for this game any more"))

    def progress(self, key: tuple, game) -> dict:
        """Where a game's solve stands, at once: ``ready`` (in memory), ``queued``
        behind another large solve, ``solving`` (with its progress: units done, their
        total, the seconds so far and, after a second, the time left) or ``idle``;
        with the seconds a first solve is estimated to take where the game is sized
        before it starts (``estimate_seconds``)."""
        with self._lock:
            if key in self._solved:
                return {"state": "ready"}
            job = self._jobs.get(key)
            out = job.report() if job is not None else {"state": "idle"}
        estimate = _estimate(game)
        if estimate is not None:
            out["estimate_seconds"] = round(estimate, 1)
        return out

    def busy(self) -> bool:
        """Whether a game is being solved or waits its turn."""
        with self._lock:
            return bool(self._jobs)

    def close(self) -> None:
        """Stop every solve under way (the server stops)."""
        with self._lock:
            self._closed = True
            jobs = list(self._jobs.values())
            self._jobs.clear()
        for job in jobs:
            job.dropped = True
            if job.child is not None:
                job.child.stop()
            _settle(job.future, error=Cancelled("the server is stopping"))

    def _run(self, key: tuple, game, job: _Job) -> None:
        try:
            solution = self._solve(key, game, job)
        except BaseException as exc:  # the callers hear of it; the thread ends
            with self._lock:
                if self._jobs.get(key) is job:
                    del self._jobs[key]
            _settle(job.future, error=exc)
            return
        with self._lock:
            if self._jobs.get(key) is job:
                del self._jobs[key]
            self._solved[key] = solution
            while len(self._solved) > KEPT:
                self._solved.popitem(last=False)
        _settle(job.future, result=solution)

    def _solve(self, key: tuple, game, job: _Job):
        from dicelab.games.chance.solution import solve

        if not self.processes or not _large(game):
            job.heard(0, 1)
            return solve(game, cache=True, progress=job.heard)
        with self._lock:
            if self._queued >= MAX_WAITING:
                raise QueueFull(f"{self._queued} games wait to be solved on this server; "
                                "ask again in a while")  # fmt: skip
            self._queued += 1
        try:
            with self._apart:
                if job.dropped:
                    raise Cancelled("no one waits for this game any more")
                self._solve_apart(key, job)
        finally:
            with self._lock:
                self._queued -= 1
        return solve(game, cache=True)  # the worker's solution, read back and checked

    def _solve_apart(self, key: tuple, job: _Job) -> None:
        from dicelab.engine.runtime.cache import cache_dir
        from dicelab.web.worker import GAME, Child

        name, settings = key
        job.heard(0, 1)
        child = Child((name, [f"{k}={v}" for k, v in settings]), GAME, str(cache_dir()),
                      self.limits, job.heard)  # fmt: skip
        with self._lock:
            job.child = child
            stop = job.dropped
        if stop:
            child.stop()
        child.wait()


def _large(game) -> bool:
    """Whether a game is solved in a worker: laid out with :data:`APART_FROM`
    positions or more, walked (of a size unknown before), or solved where its turns
    start."""
    from dicelab.games.chance.turn_solution import solves_by_turns

    if solves_by_turns(game, None):
        return True
    size = getattr(game, "size", lambda: None)()
    return size is None or size >= APART_FROM  # a game walked: its size unknown


def _estimate(game) -> float | None:
    """The seconds a table's first solve is estimated to take here (the size checked
    before it starts), or ``None`` for a game laid out."""
    from dicelab.games.chance.turn_solution import solves_by_turns, table_cost

    return table_cost(game).seconds_here() if solves_by_turns(game, None) else None


def _settle(future: Future, result=None, error: BaseException | None = None) -> None:
    """Give ``future`` its end, unless it has one already."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
