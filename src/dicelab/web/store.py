"""Rule sets and solved tables kept in memory by the web server.

Built-in rule sets are always available; uploaded ones are kept (a bounded number,
the oldest dropped first) under an id made from their fingerprint, so uploading
the same rules twice gives the same id. Tables are solved or loaded from the disk
cache once per fingerprint, on the store's own solver thread, and kept in memory;
concurrent requests for a table that is being solved wait for that one solve
instead of starting their own, and they wait without holding a request thread, so
the other endpoints keep answering during a solve of minutes. :meth:`Store.progress`
tells how far a solve has come.
Each rule set has one table per objective (:mod:`dicelab.engine.registry`): the expected-score
table, a target's table (named ``target:S``: the table of every target where the
cache holds it, else of that target alone, a quarter of the size for Yahtzee) and
the table that plays to beat a player who plays for points. The last two are large
(hundreds of megabytes for Yahtzee), so at most :data:`MAX_POINTS_TABLES` of them are
kept in memory; a cached target table is memory-mapped, and advice reads only the
rows it needs.
Only built-in rule sets write their tables to the disk cache: an upload's table is
read from it if someone solved those rules there, and otherwise kept in memory
only, so uploads cannot fill the disk.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from dicelab.dice import n_keeps
from dicelab.engine import registry
from dicelab.engine.objectives.expected import OBJECTIVE
from dicelab.engine.runtime import cache
from dicelab.engine.runtime.cost import Facts, memory_budget
from dicelab.errors import TooLarge, UserError
from dicelab.rules import (
    Rules,
    builtin_name,
    builtin_names,
    did_you_mean,
    load_rules,
    rules_from_text,
)
from dicelab.text import plural
from dicelab.web.tables import solve_objective
from dicelab.web.worker import Cancelled, Child, Limits, solve_in_child

#: Largest uploaded rules file, in characters.
MAX_UPLOAD_CHARS = 64_000
#: Uploaded rule sets kept; the oldest is dropped first.
MAX_UPLOADS = 32
#: Solved tables kept in memory; the least recently used is dropped first.
MAX_TABLES = 16
#: Largest table (turn-start states, before pruning) the server solves itself.
MAX_STATES = 2**15 * 64 * 2
#: Largest solve (states times keeps) the server does itself: about official Yatzy.
MAX_WORK = 2_000_000_000
#: Most distinct keeps (sub-multisets of the dice) of a rule set the server solves.
MAX_KEEPS = 5005
#: Target, win and duel tables kept in memory at once (the largest are gigabytes).
MAX_POINTS_TABLES = 2
#: Score distributions from a position kept in memory (a page asks for each turn's).
MAX_DISTRIBUTIONS = 64
#: Solves that may wait behind the one running; more are refused until one ends.
MAX_QUEUED = 8
#: Solves expected to take at most this many seconds run beside the queue of the
#: long ones, one at a time and in this process (a worker takes a second or two to
#: start), so that a new rule set's first answer never waits for another's solve of
#: minutes.
QUICK_SECONDS = 2.0


class NotFound(UserError):
    """A rule set name the server does not know."""


class QueueFull(UserError):
    """Too many solves wait already (answered 503: ask again later)."""


@dataclass(frozen=True)
class Entry:
    """A rule set the server knows, with where it came from."""

    id: str
    rules: Rules
    source: str  # "builtin" or "upload"


def solve_size(rules: Rules) -> tuple[int, int, int]:
    """Upper bounds of the states, the keeps and the work of a solve, without compiling."""
    keeps = n_keeps(rules.dice, rules.faces)
    n_upper = rules.bonus_threshold + 1 if rules.bonus_threshold > 0 else 1
    n_flag = 2 if rules.extra_bonus > 0 else 1
    states = (1 << rules.n_categories) * n_upper * n_flag
    return states, keeps, states * keeps


def parse_upload(text: str) -> Rules:
    """Rules from the text of an uploaded TOML file.

    ``extends`` may only name a built-in rule set: an upload must never make the
    server read a file of its own.
    """
    if len(text) > MAX_UPLOAD_CHARS:
        raise UserError(f"rules file: {len(text)} characters, at most {MAX_UPLOAD_CHARS}")
    return rules_from_text(text, "uploaded rules", allow_files=False)


class Store:
    """The rule sets and tables of one server."""

    def __init__(self, processes: bool = True, limits: Limits | None = None) -> None:
        """``processes``: solve each table in a worker process (:mod:`.worker`), else
        on this process's solver thread; ``limits``: what one solve may take."""
        self.processes = processes
        self.limits = limits or Limits()
        self._lock = threading.Lock()
        self._builtin: dict[str, Entry] = {}
        self._uploads: OrderedDict[str, Entry] = OrderedDict()
        # (fingerprint, objective) -> table; "spread" is the expected-score table's
        # second moments, which give the standard deviation of every option
        self._tables: OrderedDict[tuple[str, str], object] = OrderedDict()
        self._solving: dict[tuple[str, str], Solve] = {}
        self._facts: dict[tuple[str, str], Facts] = {}
        self._finding: set[tuple[str, str]] = set()  # facts being worked out
        # solves run here, one at a time (each uses every core), apart from requests;
        # tables already on disk load apart from the solves, in milliseconds
        self._solver = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dicelab-solve")
        self._loader = ThreadPoolExecutor(max_workers=2, thread_name_prefix="dicelab-load")
        # solves of a second or two (most rule sets' expected-score and spread tables)
        self._quick = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dicelab-quick")
        self._transfer: str | None = None  # the folder where workers leave uploads' tables
        # score distributions from a position (a second or two each) run apart from solves
        self._forward = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dicelab-dist")
        self._waiting: dict[tuple, int] = {}  # callers awaiting each distribution
        self._dropped: set[tuple] = set()  # distributions under way that no one awaits
        self._distributions: OrderedDict[tuple, Future] = OrderedDict()
        cache.remove_stray()  # what saves killed midway left (the server's last stop)

    def close(self) -> None:
        """Stop taking work: queued solves and distributions are dropped, a worker
        solving is killed, a solve on this process's thread is left to the process's
        exit (see :func:`dicelab.web.app.run`)."""
        self._solver.shutdown(wait=False, cancel_futures=True)
        self._loader.shutdown(wait=False, cancel_futures=True)
        self._quick.shutdown(wait=False, cancel_futures=True)
        self._forward.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            jobs = list(self._solving.values())
        for job in jobs:
            if job.child is not None:
                job.child.stop()
            _settle(job.future, error=Cancelled("the server is stopping"))
        if self._transfer is not None:
            shutil.rmtree(self._transfer, ignore_errors=True)

    def busy(self) -> bool:
        """Whether a solve or a distribution is running now."""
        with self._lock:
            return bool(self._solving) or any(not f.done() for f in self._distributions.values())

    # -- rule sets -------------------------------------------------------------------
    def builtin(self) -> list[Entry]:
        """Every built-in rule set, by name."""
        return [self.get(name) for name in builtin_names()]

    def uploads(self) -> list[Entry]:
        """The uploaded rule sets still kept, oldest first."""
        with self._lock:
            return list(self._uploads.values())

    def get(self, name: str) -> Entry:
        """A rule set by built-in name or upload id."""
        with self._lock:
            if name in self._builtin:
                return self._builtin[name]
            if name in self._uploads:
                return self._uploads[name]
        canonical = builtin_name(name)
        if canonical is not None:
            if canonical != name:
                return self.get(canonical)
            entry = Entry(id=name, rules=load_rules(name), source="builtin")
            with self._lock:
                self._builtin[name] = entry
            return entry
        raise NotFound(
            f"unknown rules {name[:80]!r}{did_you_mean(name[:80], builtin_names())}: expected "
            f"a built-in name ({', '.join(builtin_names())}) or the id of an uploaded rules file"
        )

    def upload(self, text: str) -> Entry:
        """Check and keep an uploaded rules file; refuse rules too large to solve here."""
        rules = parse_upload(text)
        states, keeps, work = solve_size(rules)
        too_large = states > MAX_STATES or keeps > MAX_KEEPS or work > MAX_WORK
        if too_large and not cache.table_path(rules, OBJECTIVE).exists():
            raise UserError(
                f"uploaded rules: {plural(rules.n_categories, 'box')} with {rules.dice} dice of "
                f"{rules.faces} faces are too large to solve inside the web server; "
                f"solve them once with `dicelab solve FILE` and upload the file again"
            )
        entry = Entry(id="upload-" + rules.fingerprint()[:12], rules=rules, source="upload")
        with self._lock:
            self._uploads.pop(entry.id, None)
            self._uploads[entry.id] = entry
            while len(self._uploads) > MAX_UPLOADS:
                self._uploads.popitem(last=False)
        return entry

    def facts(self, rules: Rules, objective: str = "expected") -> Facts:
        """What the table is (:func:`table_facts`), worked out once per rule set."""
        key = (rules.fingerprint(), objective)
        with self._lock:
            found = self._facts.get(key)
        if found is None:
            found = table_facts(rules, objective)
            with self._lock:
                self._facts[key] = found
        return found

    def known_facts(self, rules: Rules, objective: str) -> Facts | None:
        """:meth:`facts` if they are known, else ``None``, and they are worked out
        meanwhile apart from the requests (seconds for the largest rule sets)."""
        if not registry.parse_key(objective).objective.large:  # instant
            return self.facts(rules, objective)
        key = (rules.fingerprint(), objective)
        with self._lock:
            found = self._facts.get(key)
            if found is None and key not in self._finding:
                self._finding.add(key)
                self._loader.submit(self._find_facts, rules, objective)
        return found

    def _find_facts(self, rules: Rules, objective: str) -> None:
        try:
            self.facts(rules, objective)
        finally:
            with self._lock:
                self._finding.discard((rules.fingerprint(), objective))

    # -- tables ----------------------------------------------------------------------
    def loaded(self, rules: Rules, objective: str = "expected"):
        """The table of a rule set if it is in memory, without waiting for a solve."""
        key = (rules.fingerprint(), objective)
        with self._lock:
            found = self._tables.get(key)
            if found is not None:
                self._tables.move_to_end(key)
            return found

    def release_table(self, rules: Rules, objective: str, gone: bool = False) -> None:
        """A caller counted by ``table_future(..., wait=True)`` stops waiting; a solve
        that no one waits for any more (``gone``: they left) is dropped: a queued one
        at once, one running in a worker process stopped (a worker writes no file
        half-way), so that minutes of work no one wants never hold up the others."""
        key = (rules.fingerprint(), objective)
        with self._lock:
            job = self._solving.get(key)
            if job is None:
                return
            job.waiting = max(0, job.waiting - 1)
            if not (gone and job.waiting == 0):
                return
            running = job.state == "solving" and job.child is not None and not job.quick
            if job.state != "queued" and not running:
                return
            job.state = "dropped"  # the solver thread skips it when its turn comes
            del self._solving[key]
        if running:
            assert job.child is not None  # running in a worker: its process was started
            job.child.stop()
        _settle(job.future, error=Cancelled("no one waits for this table any more"))

    def table_future(self, rules: Rules, objective: str = "expected", wait: bool = False) -> Future:
        """A future of the rule set's table for an objective: done at once if it is in
        memory, else the one load (a table on disk, apart from the solves) or solve
        of it (queued behind the solve now running, at most :data:`MAX_QUEUED`).

        Requests wait on the future (``await asyncio.wrap_future(...)``) without holding
        a thread, so a long solve never starves the other endpoints.
        """
        check_objective(objective)
        key = (rules.fingerprint(), objective)
        with self._lock:
            found = self._tables.get(key)
            if found is not None:
                self._tables.move_to_end(key)
                done: Future = Future()
                done.set_result(found)
                return done
            job = self._solving.get(key)
            if job is None:
                job = self._solving[key] = Solve(time.monotonic(), state="checking")
                job.label = f"{rules.name}, {objective}"
                self._loader.submit(self._begin, rules, objective, job)
            job.waiting += wait
            return job.future

    def _begin(self, rules: Rules, objective: str, job: Solve) -> None:
        """On a loader thread: load the table if it is on disk, else refuse it if it
        is too large for this server, else queue its solve."""
        key = (rules.fingerprint(), objective)
        try:
            facts = self.facts(rules, objective)
            if facts.cached():
                job.state = "loading"
                self._run(rules, objective, job)
                return
            facts.cost.check()  # TooLarge: past this server's memory or time
            if facts.cost.seconds <= QUICK_SECONDS:  # beside a long solve, not behind it
                job.state, job.quick = "solving", True
                self._quick.submit(self._run, rules, objective, job)
                return
            with self._lock:
                queued = sum(j.state == "queued" for j in self._solving.values())
                if queued >= MAX_QUEUED:
                    raise QueueFull(
                        f"{plural(queued, 'solve')} already wait their turn on this server; "
                        "ask again in a while"
                    )
                job.state = "queued"
            self._solver.submit(self._run, rules, objective, job)
        except BaseException as exc:
            with self._lock:
                self._solving.pop(key, None)
            _settle(job.future, error=exc)

    def _run(self, rules: Rules, objective: str, job: Solve) -> None:
        if job.state == "dropped":
            return
        try:
            table = self._load_or_solve(rules, objective, job)
        except BaseException as exc:
            _settle(job.future, error=exc)
        else:
            _settle(job.future, table)

    def table(self, rules: Rules, objective: str = "expected"):
        """The table of a rule set for an objective: from memory, disk or a fresh solve
        (blocks the calling thread until it is there)."""
        return self.table_future(rules, objective).result()

    def estimate(self, rules: Rules, objective: str = "expected") -> float | None:
        """An upper estimate of the seconds a first solve takes on this machine
        (``None`` while it is being worked out)."""
        return _seconds(self.known_facts(rules, objective))

    def progress(self, rules: Rules, objective: str = "expected") -> dict:
        """Where the table of a rule set stands: ``ready``, ``queued`` (with its
        ``position`` in the queue, 1 next), ``solving`` (with the states done, their
        total, the seconds so far and the time left), ``cached`` (on disk) or
        ``idle``, and the estimated seconds of a first solve on this machine."""
        check_objective(objective)
        key = (rules.fingerprint(), objective)
        found = self.known_facts(rules, objective)
        estimate = _seconds(found)
        refused = _refusal(found)
        with self._lock:
            if key in self._tables:
                return {"state": "ready", "estimate_seconds": estimate}
            job = self._solving.get(key)
            if job is not None and job.state == "queued":
                ahead = [j for j in self._solving.values() if j.state == "queued"]
                position = sum(j.started <= job.started for j in ahead)
                out = {"state": "queued", "position": position, "estimate_seconds": estimate}
                running = [j for j in self._solving.values() if j.state == "solving"
                           and not j.quick]  # fmt: skip
                if running:  # what it waits behind, and how long that has left
                    out["behind"] = running[0].label
                    if running[0].left_seconds() is not None:
                        out["behind_left_seconds"] = running[0].left_seconds()
                return out
            if job is not None:
                return {
                    "state": "solving",
                    "done": job.done,
                    "total": job.total,
                    "seconds": round(time.monotonic() - job.started, 2),
                    "left_seconds": job.left_seconds(),
                    "estimate_seconds": estimate,
                }
        cached = found is not None and found.cached()
        out = {"state": "cached" if cached else "idle", "estimate_seconds": estimate}
        if refused is not None and not cached:
            out["refused"] = refused
        return out

    def _load_or_solve(self, rules: Rules, objective: str, job: Solve):
        key = (rules.fingerprint(), objective)
        try:
            writes = any(rules.fingerprint() == e.rules.fingerprint() for e in self.builtin())
            use_cache = writes or job.state == "loading"
            if job.state == "queued":
                job.state = "solving"
                job.started = time.monotonic()
            if job.state == "solving" and self.processes and not job.quick:
                table = self._solve_apart(rules, objective, job, writes)
            else:
                table = solve_objective(rules, objective, use_cache, job.tick, mapped=use_cache)
        except BaseException:
            with self._lock:
                if self._solving.get(key) is job:  # not a new solve of the same table
                    del self._solving[key]
            raise
        with self._lock:
            self._tables[key] = table
            self._evict()
            if self._solving.get(key) is job:
                del self._solving[key]
        return table

    def _solve_apart(self, rules: Rules, objective: str, job: Solve, writes: bool):
        """Solve in a worker process, then read the table it wrote: from the disk
        cache (built-in rules), or whole from a folder of this server's (uploads),
        whose file is then deleted."""

        def started(child) -> None:
            job.child = child

        if writes:
            folder = str(cache.cache_dir())
            solve_in_child(rules, objective, folder, self.limits, job.tick, started)
            return solve_objective(rules, objective, True, job.tick, mapped=True)
        folder = self._transfer_folder()
        try:
            solve_in_child(rules, objective, folder, self.limits, job.tick, started)
            with cache.folder_in_this_thread(folder):
                return solve_objective(rules, objective, True, job.tick)
        finally:
            for path in Path(folder).iterdir():
                path.unlink(missing_ok=True)

    def _transfer_folder(self) -> str:
        if self._transfer is None:
            self._transfer = tempfile.mkdtemp(prefix="dicelab-serve-")
        return self._transfer

    def drop_damaged(self, rules: Rules, objective: str, path) -> None:
        """Forget a table found damaged while being read and delete its file (when it
        lies in the cache folder), so the next request solves it anew."""
        with self._lock:
            self._tables.pop((rules.fingerprint(), objective), None)
        if path is not None and Path(path).parent == cache.cache_dir():
            Path(path).unlink(missing_ok=True)

    def distribution_future(self, rules: Rules, start: tuple[int, int, int, int]) -> Future:
        """A future of the final-score distribution from a turn start ``(filled, flag,
        upper, points)`` under the expected-score optimum; the last few are kept.
        Each caller is counted as waiting on it until :meth:`release`."""
        key = (rules.fingerprint(), *start)
        with self._lock:
            self._waiting[key] = self._waiting.get(key, 0) + 1
            found = self._distributions.get(key)
            if found is not None:
                self._dropped.discard(key)  # awaited again: let it finish
                self._distributions.move_to_end(key)
                return found
            job = self._forward.submit(self._distribution, rules, start)
            self._distributions[key] = job
            while len(self._distributions) > MAX_DISTRIBUTIONS:
                self._distributions.popitem(last=False)

        def forget_failed(f: Future) -> None:
            if not f.cancelled() and f.exception():
                self._forget(key)

        job.add_done_callback(forget_failed)
        return job

    def release(self, rules: Rules, start: tuple[int, int, int, int], gone: bool = False) -> None:
        """One caller of :meth:`distribution_future` stops waiting; with ``gone`` (the
        client left), a distribution no one else waits for is dropped, so that the
        ones still wanted do not queue behind it: at once if it has not started, at its
        next layer if it has."""
        key = (rules.fingerprint(), *start)
        with self._lock:
            left = self._waiting.get(key, 1) - 1
            if left > 0:
                self._waiting[key] = left
                return
            self._waiting.pop(key, None)
            job = self._distributions.get(key)
            if gone and job is not None:
                if job.cancel():
                    del self._distributions[key]
                elif not job.done():
                    self._dropped.add(key)

    def _forget(self, key: tuple) -> None:
        with self._lock:
            self._distributions.pop(key, None)

    def _distribution(self, rules: Rules, start: tuple[int, int, int, int]):
        from dicelab.engine.objectives.distribution import score_distribution

        key = (rules.fingerprint(), *start)

        def tick(done: int, total: int) -> None:
            if key in self._dropped:
                raise Cancelled("no one awaits this distribution any more")

        table = self.table(rules)
        try:
            return score_distribution(table.game, table, start=start, progress=tick)
        finally:
            with self._lock:
                self._dropped.discard(key)

    def _evict(self) -> None:
        """Drop the least recently used tables beyond the limits (lock held): their
        number, and the memory of those read whole (mapped ones are the system's
        file cache, which it gives back itself)."""
        points = [k for k in self._tables if registry.parse_key(k[1]).objective.large]
        for k in points[: max(0, len(points) - MAX_POINTS_TABLES)]:
            del self._tables[k]
        while len(self._tables) > MAX_TABLES:
            self._tables.popitem(last=False)
        budget = memory_budget()
        while len(self._tables) > 1 and sum(map(held_bytes, self._tables.values())) > budget:
            self._tables.popitem(last=False)


def _refusal(facts: Facts | None) -> str | None:
    """Why a table of these facts would be refused here (its size), or ``None``."""
    if facts is None:
        return None
    try:
        facts.cost.check()
    except TooLarge as exc:
        return exc.summary
    return None


def _seconds(facts: Facts | None) -> float | None:
    """The estimated seconds of a first solve, once the facts are known."""
    return None if facts is None else round(facts.cost.seconds, 1)


def _settle(future: Future, result=None, error: BaseException | None = None) -> None:
    """Give ``future`` its result or error, unless it has one (a stop came first)."""
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


def held_bytes(table) -> int:
    """Memory a table's values hold (none for a memory-mapped file)."""
    import numpy as np

    values = getattr(table, "values", None)
    if not isinstance(values, np.ndarray) or isinstance(values, np.memmap):
        return 0
    return values.nbytes


def table_facts(rules: Rules, objective: str) -> Facts:
    """The :class:`~dicelab.engine.runtime.cost.Facts` of a table (a registry key):
    instant for the expected-score table, seconds for the points and duel tables of
    the largest rule sets (their layouts)."""
    return registry.facts(rules, registry.parse_key(objective))


def check_objective(objective: str) -> None:
    """One line for a table name the registry does not know."""
    registry.parse_key(objective)


@dataclass
class Solve:
    """A load or solve in progress: its future and how far it has come.

    ``state`` is ``checking`` (what the table is: on disk, or its size),
    ``loading`` (a table on disk), ``queued`` (a solve waiting for the one running),
    ``solving``, or ``dropped`` (queued, then no one waited any more); ``child`` the
    worker process of a solve."""

    started: float
    state: str = "solving"
    future: Future = field(default_factory=Future)
    child: Child | None = None
    waiting: int = 0  # requests awaiting it (see Store.release_table)
    label: str = ""  # the rule set and the table, in words (what a queued one waits behind)
    quick: bool = False  # expected to take a second or two: solved in this process
    done: int = 0
    total: int = 0
    #: When the solve now ticking began, and how much it had done then: its rate
    #: leaves out what came before (compiling, loading, an earlier table).
    since: float = 0.0
    done_since: int = 0

    def tick(self, done: int, total: int) -> None:
        done, total = int(done), int(total)
        if total != self.total or done < self.done:  # another table's solve begins
            self.since, self.done_since = time.monotonic(), done
        self.done, self.total = done, total

    def left_seconds(self) -> float | None:
        """Seconds left at the rate of the solve now ticking, once it has a rate."""
        gained = self.done - self.done_since
        if gained <= 0 or self.total <= 0:
            return None
        rate = gained / max(time.monotonic() - self.since, 1e-9)
        return round((self.total - self.done) / rate, 1)
