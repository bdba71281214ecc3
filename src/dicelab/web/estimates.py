"""The sizes of large tables, worked out apart from everything the server does.

Before a points, duel or match table is solved (or found on disk) its size is worked
out from the rules: instant for most rule sets, but for the largest it lays out every
row to count them, seconds of work and gigabytes of memory (Maxi Yatzy's table of
every target: about 17 s and 5 GB). Done on the threads that load tables from disk,
in the server's process, that held every load up behind it and left the server
gigabytes larger. So here:

* the estimates run one at a time on a thread of their own; those of a rule set
  larger than Yahtzee (:data:`HEAVY_STATES`) in a child process
  (``python -m dicelab.web.estimates``) at a lower priority, whose memory goes back
  to the system when it ends; the estimates of one rule set share a child, and so
  its layouts (a child takes half a second to start: Yahtzee's are sized in a
  fraction of that, and in megabytes, on the thread itself);
* every answer, a size or a refusal, is kept per rule set and table (a few hundred
  bytes each), so a rule set is sized once;
* at most :data:`MAX_PENDING` wait their turn, an estimate longer than
  :data:`ESTIMATE_SECONDS` is stopped (its table is then too large to size here),
  and a stop kills the child without waiting for it.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import pickle
import subprocess
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future

from dicelab.engine import registry
from dicelab.engine.runtime.cost import Facts, human_seconds
from dicelab.errors import TooLarge, UserError
from dicelab.text import plural
from dicelab.web.worker import (
    NICE,
    OVERHEAD_BYTES,
    Cancelled,
    Limits,
    QueueFull,
    die_with_parent,
)

#: Longest an estimate may take; past it, the table is called too large to size here.
ESTIMATE_SECONDS = 120.0
#: Estimates that may wait their turn; more are refused until one ends.
MAX_PENDING = 32
#: Answers kept (the oldest dropped first).
MAX_KEPT = 1024
#: Rule sets with more turn-start states than this (Yahtzee's) are sized in a child.
HEAVY_STATES = 2**20

Key = tuple[str, str]


def table_facts(rules, objective: str) -> Facts:
    """The :class:`~dicelab.engine.runtime.cost.Facts` of a table (a registry key):
    instant for the expected-score table, seconds for the points and duel tables of
    the largest rule sets (their layouts)."""
    return registry.facts(rules, registry.parse_key(objective))


def is_large(objective: str) -> bool:
    """Whether the size of this table may take seconds to work out."""
    return registry.parse_key(objective).objective.large


def is_heavy(rules) -> bool:
    """Whether sizing these rules' large tables may take seconds and gigabytes: more
    turn-start states (boxes and upper totals) than :data:`HEAVY_STATES`."""
    upper = rules.bonus_threshold + 1 if rules.bonus_threshold > 0 else 1
    return (1 << rules.n_categories) * upper > HEAVY_STATES


class Estimates:
    """The sizes of one server's large tables: worked out apart, kept once known."""

    def __init__(self, processes: bool = True, limits: Limits | None = None) -> None:
        """``processes``: work out the heavy ones in a child process (else all on
        this object's own thread, as tests do); ``limits.memory`` caps a child's
        memory."""
        self.processes = processes
        self.limits = limits or Limits()
        self._lock = threading.Condition()
        self._kept: OrderedDict[Key, Facts | UserError] = OrderedDict()
        self._pending: OrderedDict[Key, tuple[object, Future]] = OrderedDict()
        # one thread for the heavy ones (each in a child), one for the rest: a
        # refusal of Yahtzee's duel never waits behind Maxi Yatzy's layouts
        self._threads: dict[bool, threading.Thread] = {}
        self._child: subprocess.Popen | None = None
        self._closed = False

    def known(self, rules, objective: str) -> Facts | UserError | None:
        """The size (or why it cannot be had) if it is known, else ``None``."""
        with self._lock:
            return self._kept.get((rules.fingerprint(), objective))

    def future(self, rules, objective: str) -> Future:
        """A future of the table's :class:`Facts` (a :class:`UserError` where it
        cannot be sized here): done at once when known, else worked out apart.

        Raises :class:`QueueFull` when :data:`MAX_PENDING` estimates wait already."""
        key = (rules.fingerprint(), objective)
        with self._lock:
            if self._closed:
                raise Cancelled("the server is stopping")
            found = self._kept.get(key)
            if found is not None:
                return _settled(found)
            if key in self._pending:
                return self._pending[key][1]
            if len(self._pending) >= MAX_PENDING:
                raise QueueFull(
                    f"{plural(len(self._pending), 'table')} already wait to be sized on this "
                    "server; ask again in a while"
                )
            future: Future = Future()
            self._pending[key] = (rules, future)
            heavy = self.processes and is_heavy(rules)
            if heavy not in self._threads:
                name = "dicelab-estimates" + ("-apart" if heavy else "")
                thread = threading.Thread(target=self._serve, args=(heavy,), name=name, daemon=True)
                self._threads[heavy] = thread
                thread.start()
            self._lock.notify_all()
            return future

    def close(self) -> None:
        """Stop: the child is killed, the estimates waiting fail; nothing is awaited."""
        with self._lock:
            self._closed = True
            pending = [future for _, future in self._pending.values()]
            self._pending.clear()
            child = self._child
            self._lock.notify_all()
        if child is not None:
            _kill(child)
        for future in pending:
            _settle(future, Cancelled("the server is stopping"))

    # -- the estimates' thread ------------------------------------------------------------
    def _serve(self, heavy: bool) -> None:
        """Size the rule sets that wait, heavy ones (in a child) or the rest (here)."""
        while True:
            with self._lock:
                while not self._closed and self._waiting_rules(heavy) is None:
                    self._lock.wait()
                if self._closed:
                    return
                rules = self._waiting_rules(heavy)
            if heavy:
                self._in_child(rules)
            else:
                self._here(rules)

    def _waiting_rules(self, heavy: bool):
        """The rules of the first estimate of this kind that waits (lock held)."""
        for rules, _ in self._pending.values():
            if (self.processes and is_heavy(rules)) == heavy:
                return rules
        return None

    def _next(self, fingerprint: str, sent: set[str]) -> list[str]:
        """The objectives of this rule set that wait and are not yet asked of the child."""
        with self._lock:
            return [o for f, o in self._pending if f == fingerprint and o not in sent]

    def _answer(self, key: Key, found: Facts | Exception) -> None:
        """Keep an answer and hand it to whoever waits for it (an error that is no
        refusal, a bug, is handed on but not kept)."""
        with self._lock:
            if isinstance(found, (Facts, UserError)):
                self._kept[key] = found
                self._kept.move_to_end(key)
            while len(self._kept) > MAX_KEPT:
                self._kept.popitem(last=False)
            waiting = self._pending.pop(key, None)
        if waiting is not None:
            _settle(waiting[1], found)

    def _here(self, rules) -> None:
        fingerprint = rules.fingerprint()
        for objective in self._next(fingerprint, set()):
            try:
                found: Facts | Exception = table_facts(rules, objective)
            except Exception as exc:  # a refusal, or a bug: its request says so, no wait
                found = exc
            self._answer((fingerprint, objective), found)

    def _in_child(self, rules) -> None:
        """Ask one child every estimate of this rule set that waits, also those that
        come while it works; it ends once none is left."""
        fingerprint = rules.fingerprint()
        child = self._start(rules)
        if child is None:
            return
        asked: set[str] = set()
        answered: set[str] = set()
        watchdog: threading.Timer | None = None
        try:
            while True:
                more = self._next(fingerprint, asked)
                if not more and asked == answered:
                    break
                for objective in more:
                    _send(child, objective)
                    asked.add(objective)
                if watchdog is not None:
                    watchdog.cancel()
                watchdog = threading.Timer(ESTIMATE_SECONDS, _kill, (child,))
                watchdog.daemon = True
                watchdog.start()
                line = child.stdout.readline() if child.stdout is not None else b""
                if not line:  # the child ended: killed (a stop, the watchdog) or failed
                    break
                try:
                    objective, found = _read_answer(line, rules)
                except (ValueError, KeyError, pickle.UnpicklingError, TypeError):
                    break  # not a line of the child's: what it was asked is lost
                answered.add(objective)
                self._answer((fingerprint, objective), found)
        finally:
            if watchdog is not None:
                watchdog.cancel()
            _end(child)
            with self._lock:
                self._child = None
        for objective in asked - answered:
            self._answer((fingerprint, objective), self._lost(child, rules, objective))

    def _start(self, rules) -> subprocess.Popen | None:
        env = dict(os.environ)
        if self.limits.memory is not None:
            env["DICELAB_WORKER_MEMORY"] = str(self.limits.memory + OVERHEAD_BYTES)
        child = subprocess.Popen(
            [sys.executable, "-m", __name__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )
        with self._lock:
            if self._closed:
                _kill(child)
                _end(child)
                return None
            self._child = child
        _send(child, base64.b64encode(pickle.dumps(rules)).decode())
        return child

    def _lost(self, child: subprocess.Popen, rules, objective: str) -> UserError:
        """Why an estimate got no answer: the server stops, the child ran past its time
        or its memory."""
        if self._closed:
            return Cancelled("the server is stopping")
        if child.returncode == -9:
            return UserError(
                f"{rules.name}'s {objective} table could not be sized here within "
                f"{human_seconds(ESTIMATE_SECONDS)}: it is far too large for this server"
            )
        return UserError(
            f"{rules.name}'s {objective} table could not be sized here (the estimate "
            f"stopped with status {child.returncode}, for lack of memory?)"
        )


def _settled(found: Facts | UserError) -> Future:
    future: Future = Future()
    _settle(future, found)
    return future


def _settle(future: Future, found: Facts | Exception) -> None:
    with contextlib.suppress(Exception):  # settled already (a stop came first)
        if isinstance(found, BaseException):
            future.set_exception(found)
        else:
            future.set_result(found)


def _send(child: subprocess.Popen, line: str) -> None:
    with contextlib.suppress(OSError):  # the child gone: its end says why
        assert child.stdin is not None  # PIPE
        child.stdin.write(line.encode() + b"\n")
        child.stdin.flush()


def _kill(child: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        if child.poll() is None:
            child.kill()


def _end(child: subprocess.Popen) -> None:
    """Close the child's input (it ends when it has answered) and reap it."""
    with contextlib.suppress(OSError):
        if child.stdin is not None:
            child.stdin.close()
    try:
        child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        _kill(child)
        child.wait()


def _read_answer(line: bytes, rules) -> tuple[str, Facts | UserError]:
    """One of the child's lines: the objective and its facts or refusal."""
    message = json.loads(line)
    objective = message["objective"]
    if "facts" in message:
        return objective, pickle.loads(base64.b64decode(message["facts"]))
    if "too_large" in message:
        return objective, TooLarge(message["too_large"], **message["fields"])
    if "error" in message:
        return objective, UserError(message["error"])
    return objective, UserError(
        f"{rules.name}'s {objective} table needs more memory to size than this server allows"
    )


# -- in the child -------------------------------------------------------------------------
def _main() -> None:
    """Read the rules (a pickled line), then one objective a line; answer each with a
    line of JSON."""
    import resource

    die_with_parent()
    with contextlib.suppress(OSError, AttributeError):
        os.nice(NICE)
    memory = os.environ.get("DICELAB_WORKER_MEMORY")
    if memory:
        resource.setrlimit(resource.RLIMIT_AS, (int(memory), int(memory)))
    rules = pickle.loads(base64.b64decode(sys.stdin.readline()))
    for line in sys.stdin:
        objective = line.strip()
        answer: dict[str, object]
        try:
            found = table_facts(rules, objective)
        except TooLarge as exc:
            fields = dict(what=exc.what, states=exc.states, bytes=exc.bytes, seconds=exc.seconds)
            answer = {"too_large": exc.summary, "fields": {**fields, "reason": exc.reason}}
        except UserError as exc:
            answer = {"error": str(exc)}
        except MemoryError:
            answer = {"memory": True}
        else:
            answer = {"facts": base64.b64encode(pickle.dumps(found)).decode()}
        sys.stdout.write(json.dumps({"objective": objective, **answer}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    _main()
