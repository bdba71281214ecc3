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

import contextlib
import os
import re
import shutil
import tempfile
import threading
import time
from collections import OrderedDict
from concurrent.futures import Future, InvalidStateError, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path, PurePath

import tomllib

from dicelab.dice import n_keeps
from dicelab.engine import registry
from dicelab.engine.objectives.expected import OBJECTIVE
from dicelab.engine.runtime import cache
from dicelab.engine.runtime.cost import Cost, Facts, human_bytes, human_seconds, memory_budget
from dicelab.errors import TooLarge, UserError
from dicelab.rules import (
    Rules,
    builtin_name,
    builtin_names,
    did_you_mean,
    load_rules,
    parse_rules,
    rules_from_text,
)
from dicelab.text import plural
from dicelab.web.estimates import Estimates, is_large, table_facts
from dicelab.web.tables import solve_objective
from dicelab.web.worker import Cancelled, Child, Limits, QueueFull, solve_in_child

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
#: Distributions that may wait their turn (those no one awaits are dropped at once).
MAX_QUEUED_DISTRIBUTIONS = 256
#: Solves that may wait behind the one running; more are refused until one ends.
MAX_QUEUED = 8
#: Solves expected to take at most this many seconds run beside the queue of the
#: long ones, one at a time and in this process (a worker takes a second or two to
#: start), so that a new rule set's first answer never waits for another's solve of
#: minutes.
QUICK_SECONDS = 2.0
#: What one table of an uploaded rule set may take, whatever its objective: about what
#: Yahtzee's largest take (its points to come: 2.6 GiB; its table of every target:
#: about 100 s). Anyone may upload rules, and 1 KB of them can ask for gigabytes and
#: hours (14 straights worth 10,000 each: a win table of 4.3 GiB and 4 min).
UPLOAD_MEMORY = 3 * 2**30
UPLOAD_SECONDS = 180.0


class NotFound(UserError):
    """A rule set name the server does not know."""


@dataclass(frozen=True)
class Entry:
    """A rule set the server knows, with where it came from."""

    id: str
    rules: Rules
    source: str  # "builtin" or "upload"
    file: str | None = None  # an upload's file name, where the page gave it


def solve_size(rules: Rules) -> tuple[int, int, int]:
    """Upper bounds of the states, the keeps and the work of a solve, without compiling."""
    keeps = n_keeps(rules.dice, rules.faces)
    n_upper = rules.bonus_threshold + 1 if rules.bonus_threshold > 0 else 1
    n_flag = 2 if rules.extra_bonus > 0 else 1
    states = (1 << rules.n_categories) * n_upper * n_flag
    return states, keeps, states * keeps


def parse_upload(text: str, filename: str | None = None) -> Rules:
    """Rules from the text of an uploaded TOML file.

    ``extends`` may only name a built-in rule set: an upload must never make the
    server read a file of its own. A file that extends another without naming
    itself is named after ``filename`` (``house.toml``: ``house``), as the command
    line names such a file, else ``<base>-variant``: never its base's name.
    """
    if len(text) > MAX_UPLOAD_CHARS:
        raise UserError(f"rules file: {len(text)} characters, at most {MAX_UPLOAD_CHARS}")
    rules = rules_from_text(text, "uploaded rules", allow_files=False)
    data = tomllib.loads(text)  # read above: valid
    base = data.get("extends")
    if not isinstance(base, str) or "name" in data:
        return rules
    name = variant_name(filename, rules.name)
    title = rules.title if "title" in data else f"{name} (based on {rules.name})"
    return parse_rules(rules.as_data() | {"name": name, "title": title}, "uploaded rules")


def variant_name(filename: str | None, base: str) -> str:
    """An unnamed variant's name: its file's, made a rule set's name
    (``house rules.toml``: ``house-rules``), or ``<base>-variant``."""
    stem = PurePath(filename or "").stem
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", stem).strip("-_.")[:52]
    if not name or name == base:
        name = f"{name or base}-variant"
    return name[:60]


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
        # the sizes of large tables, worked out in a process of their own: never on
        # the loaders' threads, so a load from disk waits for nothing but loads
        self._estimates = Estimates(processes, self.limits)
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
        # those not done yet, however many (each can be cancelled), and the last few done
        self._charting: dict[tuple, Future] = {}
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
        self._estimates.close()
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
            return bool(self._solving) or any(not f.done() for f in self._charting.values())

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

    def upload(self, text: str, filename: str | None = None) -> Entry:
        """Check and keep an uploaded rules file (``filename``: the name of the file
        it came from); refuse rules too large to solve here."""
        rules = parse_upload(text, filename)
        states, keeps, work = solve_size(rules)
        too_large = states > MAX_STATES or keeps > MAX_KEEPS or work > MAX_WORK
        if too_large and not cache.table_path(rules, OBJECTIVE).exists():
            raise UserError(
                f"uploaded rules: {plural(rules.n_categories, 'box')} with {rules.dice} dice of "
                f"{rules.faces} faces are too large to solve inside the web server; "
                f"solve them once with `dicelab solve FILE` and upload the file again"
            )
        entry = Entry(
            id="upload-" + rules.fingerprint()[:12], rules=rules, source="upload", file=filename
        )
        with self._lock:
            self._uploads.pop(entry.id, None)
            self._uploads[entry.id] = entry
            while len(self._uploads) > MAX_UPLOADS:
                self._uploads.popitem(last=False)
        return entry

    def facts(self, rules: Rules, objective: str = "expected") -> Facts:
        """What the table is (:func:`~dicelab.web.estimates.table_facts`): at once for
        most tables, awaited from the estimates' process for a large one."""
        if not is_large(objective):
            return table_facts(rules, objective)
        found = self._estimates.future(rules, objective).result()
        assert isinstance(found, Facts)  # a refusal is raised
        return found

    def known_facts(self, rules: Rules, objective: str) -> Facts | UserError | None:
        """:meth:`facts` if they are known (or why the table cannot be sized here),
        else ``None``, and they are worked out meanwhile apart from the requests
        (seconds for the largest rule sets)."""
        if not is_large(objective):  # instant
            return table_facts(rules, objective)
        found = self._estimates.known(rules, objective)
        if found is None:
            with contextlib.suppress(UserError):  # too many wait: asked again later
                self._estimates.future(rules, objective)
        return found

    def is_builtin(self, rules: Rules) -> bool:
        """Whether these are the rules of a built-in rule set (whose tables go to the
        disk cache and take the server's budget, not an upload's)."""
        return any(rules.fingerprint() == e.rules.fingerprint() for e in self.builtin())

    def check_cost(self, rules: Rules, facts: Facts) -> None:
        """Refuse (:class:`TooLarge`) a table past this server's limits, or an
        uploaded rule set's table past :data:`UPLOAD_MEMORY` or :data:`UPLOAD_SECONDS`."""
        facts.cost.check()
        cost = facts.cost
        if (cost.bytes <= UPLOAD_MEMORY and cost.seconds <= UPLOAD_SECONDS) or self.is_builtin(
            rules
        ):
            return
        why = (
            f"more than a table of uploaded rules may take on this server "
            f"({human_bytes(UPLOAD_MEMORY)}, {human_seconds(UPLOAD_SECONDS)})"
        )
        raise TooLarge(
            f"{cost.describe()}, {why}",
            what=cost.what,
            states=cost.states,
            bytes=cost.bytes,
            seconds=cost.seconds,
            reason=why,
            hopeless=True,
        )

    def limits_for(self, rules: Rules) -> Limits:
        """What the worker of a solve of these rules may take: the server's limits, and
        an uploaded rule set's budget within them."""
        if self.is_builtin(rules):
            return self.limits
        memory, seconds = self.limits.memory, self.limits.seconds
        return Limits(
            memory=UPLOAD_MEMORY if memory is None else min(memory, UPLOAD_MEMORY),
            seconds=UPLOAD_SECONDS if seconds is None else min(seconds, UPLOAD_SECONDS),
        )

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
        that no one waits for any more (``gone``: they left) is dropped: one being
        sized or queued at once, one running in a worker process stopped (a worker
        writes no file half-way), so that minutes of work no one wants never hold up
        the others. A table also asked for in the background (``wait=False``, as
        ``GET /api/rules/{id}/expected`` does) is kept: its worker's limits (for an
        upload, its budget) stop it all the same."""
        key = (rules.fingerprint(), objective)
        with self._lock:
            job = self._solving.get(key)
            if job is None:
                return
            job.waiting = max(0, job.waiting - 1)
            if not (gone and job.waiting == 0) or job.background:
                return
            running = job.state == "solving" and job.child is not None and not job.quick
            if job.state not in ("checking", "queued") and not running:
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
        a thread, so a long solve never starves the other endpoints. ``wait``: the
        caller is counted (see :meth:`release_table`); without, the table is asked for
        in the background and kept when every counted caller has left.
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
            new = job is None
            if job is None:
                job = self._solving[key] = Solve(time.monotonic(), state="checking")
                job.label = f"{rules.name}, {objective}"
            job.waiting += wait
            job.background |= not wait
        if new:
            self._size(rules, objective, job)
        return job.future

    def _size(self, rules: Rules, objective: str, job: Solve) -> None:
        """What the table is: a large one's size from the estimates' process, then the
        rest on a loader thread (:meth:`_begin`); the loaders never size a table."""
        try:
            if not is_large(objective):
                _submit(self._loader, self._begin, rules, objective, job, None)
                return
            sized = self._estimates.future(rules, objective)
        except BaseException as exc:
            self._fail(rules, objective, job, exc)
            return

        def sized_then(done: Future) -> None:
            try:
                _submit(self._loader, self._begin, rules, objective, job, done.result())
            except BaseException as exc:
                self._fail(rules, objective, job, exc)

        sized.add_done_callback(sized_then)

    def _begin(self, rules: Rules, objective: str, job: Solve, facts: Facts | None) -> None:
        """On a loader thread: load the table if it is on disk, else refuse it if it
        is too large for this server (or, uploaded, for its budget), else queue its
        solve. ``facts``: the table's size, worked out apart (``None``: instant)."""
        try:
            if job.state == "dropped":  # no one waits any more
                return
            facts = facts or table_facts(rules, objective)
            job.cost = facts.cost
            if facts.cached():
                job.state = "loading"
                self._run(rules, objective, job)
                return
            self.check_cost(rules, facts)  # TooLarge: past this server's memory or time
            if facts.cost.seconds <= QUICK_SECONDS:  # beside a long solve, not behind it
                job.state, job.quick = "solving", True
                _submit(self._quick, self._run, rules, objective, job)
                return
            with self._lock:
                if job.state == "dropped":
                    return
                queued = sum(j.state == "queued" for j in self._solving.values())
                if queued >= MAX_QUEUED:
                    raise QueueFull(
                        f"{plural(queued, 'solve')} already wait their turn on this server; "
                        "ask again in a while"
                    )
                job.state = "queued"
            _submit(self._solver, self._run, rules, objective, job)
        except BaseException as exc:
            self._fail(rules, objective, job, exc)

    def _fail(self, rules: Rules, objective: str, job: Solve, exc: BaseException) -> None:
        """End a load or solve with an error (not a newer one of the same table)."""
        with self._lock:
            if self._solving.get((rules.fingerprint(), objective)) is job:
                del self._solving[(rules.fingerprint(), objective)]
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
        refused = self._refusal(rules, found)
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
        cached = isinstance(found, Facts) and found.cached()
        out = {"state": "cached" if cached else "idle", "estimate_seconds": estimate}
        if refused is not None and not cached:
            out["refused"] = refused
        return out

    def _refusal(self, rules: Rules, found: Facts | UserError | None) -> str | None:
        """Why a table would be refused here (its size, or why it cannot be sized), or
        ``None``."""
        if isinstance(found, UserError):
            return getattr(found, "summary", str(found))
        if found is None:
            return None
        try:
            self.check_cost(rules, found)
        except TooLarge as exc:
            return exc.summary
        return None

    def _load_or_solve(self, rules: Rules, objective: str, job: Solve):
        key = (rules.fingerprint(), objective)
        try:
            writes = self.is_builtin(rules)
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
        cache (built-in rules, where the cache folder has room for it), else whole
        from a folder of this server's, whose files are then deleted. The table is
        only read here, never solved a second time in this process (outside the
        worker's caps and stop): a file that did not come is an error."""

        def started(child) -> None:
            job.child = child

        limits = self.limits_for(rules)
        folder = cache.cache_dir()
        if writes and has_room(folder, job.cost.bytes if job.cost else 0):
            solve_in_child(rules, objective, str(folder), limits, job.tick, started)
            return read_solved(rules, objective, mapped=True)
        folder = Path(self._transfer_folder())
        try:
            solve_in_child(rules, objective, str(folder), limits, job.tick, started)
            with cache.folder_in_this_thread(folder):
                return read_solved(rules, objective, mapped=False)
        finally:
            for path in folder.iterdir():
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
        upper, points)`` under the expected-score optimum; the last few done are kept.
        Each caller is counted as waiting on it until :meth:`release`; every one not
        done is tracked, however many, so that each can be dropped when no one waits
        (at most :data:`MAX_QUEUED_DISTRIBUTIONS` wait their turn)."""
        key = (rules.fingerprint(), *start)
        with self._lock:
            found = self._charting.get(key) or self._distributions.get(key)
            if found is not None:
                self._waiting[key] = self._waiting.get(key, 0) + 1
                self._dropped.discard(key)  # awaited again: let it finish
                if key in self._distributions:
                    self._distributions.move_to_end(key)
                return found
            if len(self._charting) >= MAX_QUEUED_DISTRIBUTIONS:
                raise QueueFull(
                    f"{plural(len(self._charting), 'distribution')} already wait their turn "
                    "on this server; ask again in a while"
                )
            job = _submit(self._forward, self._distribution, rules, start)
            self._waiting[key] = self._waiting.get(key, 0) + 1
            self._charting[key] = job
        job.add_done_callback(lambda done: self._charted(key, done))
        return job

    def _charted(self, key: tuple, job: Future) -> None:
        """A distribution is done: kept among the last few if it ended well."""
        with self._lock:
            if self._charting.get(key) is job:
                del self._charting[key]
                self._dropped.discard(key)
            if job.cancelled() or job.exception() is not None:
                return
            self._distributions[key] = job
            while len(self._distributions) > MAX_DISTRIBUTIONS:
                self._distributions.popitem(last=False)

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
            job = self._charting.get(key)
            if not gone or job is None or job.done():
                return
            self._dropped.add(key)  # under way: it stops at its next layer
        job.cancel()  # not started: never will (its end is told to _charted, with the lock)

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


def _seconds(facts: Facts | UserError | None) -> float | None:
    """The estimated seconds of a first solve, once the facts are known."""
    return round(facts.cost.seconds_here(), 1) if isinstance(facts, Facts) else None


def _submit(pool: ThreadPoolExecutor, *work) -> Future:
    """``pool.submit(*work)``; once the server stops (its pools shut), a
    :class:`Cancelled` to answer with, not a ``RuntimeError``."""
    try:
        return pool.submit(*work)
    except RuntimeError:
        raise Cancelled("the server is stopping") from None


def has_room(folder: Path, nbytes: int) -> bool:
    """Whether a table of ``nbytes`` can be written to ``folder``: it is (or can be
    made) a folder this process may write in, with that much free space and a tenth
    more. A worker solving into a folder that cannot keep its table would leave the
    server nothing to read."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=folder)
        os.close(fd)
        os.unlink(probe)
        return shutil.disk_usage(folder).free >= nbytes * 1.1 + 2**20
    except OSError:
        return False


def read_solved(rules: Rules, objective: str, mapped: bool):
    """The table a worker has just written to the cache folder of this thread, read
    from its file: where it is not there (the disk refused it), one error line, and
    nothing solved in this process."""

    def solving(done: int, total: int) -> None:  # a load reports no progress; a solve does
        raise UserError(
            f"{rules.name}'s {objective} table was solved, but the disk did not keep it "
            "(full, or read-only?); ask again once there is room"
        )

    return solve_objective(rules, objective, True, solving, mapped=mapped)


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


def check_objective(objective: str) -> None:
    """One line for a table name the registry does not know."""
    registry.parse_key(objective)


@dataclass
class Solve:
    """A load or solve in progress: its future and how far it has come.

    ``state`` is ``checking`` (what the table is: on disk, or its size, worked out
    apart for a large one),
    ``loading`` (a table on disk), ``queued`` (a solve waiting for the one running),
    ``solving``, or ``dropped`` (queued, then no one waited any more); ``child`` the
    worker process of a solve."""

    started: float
    state: str = "solving"
    future: Future = field(default_factory=Future)
    child: Child | None = None
    waiting: int = 0  # requests awaiting it (see Store.release_table)
    background: bool = False  # also asked for without waiting (kept when they leave)
    cost: Cost | None = None  # its size, once known
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
