"""What a solve will cost, known before it starts.

A rules file inside the documented limits (12 dice, 20 faces, 20 boxes) can still
ask for more than any machine has. Every solve is sized here first, from the rules
alone, and refused in one line naming its states, memory and time when this
machine cannot finish it; ``--allow-large`` (``allow_large=True``) tries anyway.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from dicelab.dice import check_keeps, n_keeps
from dicelab.errors import TooLarge
from dicelab.rules.model import Rules
from dicelab.text import plural

#: Element operations of the turn kernels per second on 2 cores, in single precision
#: (``keeps x faces x passes`` per lane; double precision runs at half this rate).
#: Measured: 1.1e11 for Yahtzee's expected-score table, 8.5e10 for Maxi Yatzy's,
#: 6.1e10 for Yahtzee's table over points; a deliberately low figure, so estimates
#: err towards longer.
RATE = 4.0e10
#: The same for tables over points (targets, the win, risk), whose rows are cut
#: where the objective is decided: measured 1.03e11 for Yahtzee's win table in
#: single precision (95 million values in 12.75 s); deliberately low too.
POINTS_RATE = 6.0e10
#: Longest solve started without ``--allow-large``.
MAX_SECONDS = 3600.0
#: Share of this machine's memory a solve may plan to use without ``--allow-large``.
MEMORY_SHARE = 0.75
#: Lanes of a kernel batch and threads that may each hold one (scratch per thread).
LANES = 64


#: Environment variables that lower both limits for a process and its children
#: (``dicelab serve --max-memory`` and ``--max-solve-seconds`` set them): bytes, seconds.
MEMORY_VARIABLE = "DICELAB_MAX_MEMORY"
SECONDS_VARIABLE = "DICELAB_MAX_SECONDS"


#: A solve longer than this is not offered ``--allow-large``: a day.
HOPELESS_SECONDS = 24 * 3600


def memory_budget() -> int:
    """Bytes a solve may plan to use: :data:`MEMORY_SHARE` of this machine's memory,
    or what :data:`MEMORY_VARIABLE` says."""
    given = os.environ.get(MEMORY_VARIABLE, "")
    if given.isascii() and given.isdigit():  # not "²", which int() refuses
        return int(given)
    return int(MEMORY_SHARE * machine_memory())


def seconds_budget() -> float:
    """Seconds a solve may plan to take: :data:`MAX_SECONDS`, or what
    :data:`SECONDS_VARIABLE` says."""
    given = os.environ.get(SECONDS_VARIABLE, "")
    return float(given) if given.isascii() and given.isdigit() else MAX_SECONDS


#: The cores every rate here was measured on: a cost's ``seconds`` are those of a
#: 2-core machine, and :meth:`Cost.seconds_here` scales them to this one.
RATE_CORES = 2
_BORN = time.monotonic()


def cores_here(shared: bool = True) -> float:
    """The cores this process can expect to run on: those it may use (its CPU
    affinity, and a container's CPU quota), and with ``shared`` the part of them the
    other work on the machine leaves (the load average, less this process's own
    share of it): ``C * C / (C + L)`` for ``L`` others' runnable threads on ``C``."""
    try:
        cores = float(len(os.sched_getaffinity(0)))
    except AttributeError:
        cores = float(os.cpu_count() or 1)
    quota = _cpu_quota()
    if quota is not None:
        cores = max(min(cores, quota), 0.1)
    if not shared:
        return cores
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return cores
    spent = os.times()
    alive = max(time.monotonic() - _BORN, 1e-3)
    own = (spent.user + spent.system) / alive * min(1.0, alive / 60.0)  # in the 1-min average
    others = max(0.0, load - own)
    return cores * cores / (cores + others)


def _cpu_quota() -> float | None:
    """A container's CPU quota in cores (cgroup v2's ``cpu.max``), or ``None``."""
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        return None


def machine_memory() -> int:
    """Bytes of memory of this machine (8 GiB if the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


@dataclass(frozen=True)
class Cost:
    """The size of one solve: its states, the memory it needs and the time it takes."""

    what: str
    states: int
    bytes: int
    seconds: float
    unit: str = "states"

    def seconds_here(self, shared: bool = True) -> float:
        """The seconds on this machine: :attr:`seconds` (those of :data:`RATE_CORES`
        cores) scaled to the cores this process gets (:func:`cores_here`)."""
        return self.seconds * RATE_CORES / cores_here(shared)

    def describe(self) -> str:
        seconds = self.seconds_here()
        time = f" and {human_seconds(seconds)}" if seconds > 0 else ""
        return (
            f"{self.what} has {big(self.states)} {self.unit}: {human_bytes(self.bytes)} of "
            f"memory{time}"
        )

    def check(self, allow_large: bool = False) -> None:
        """Refuse, in one line, what this machine cannot finish (unless allowed)."""
        if allow_large:
            return
        budget, seconds = memory_budget(), seconds_budget()
        if self.bytes > budget:
            if os.environ.get(MEMORY_VARIABLE, "").isdigit():
                why = f"more than the {human_bytes(budget)} allowed here"
            else:
                why = f"more than this machine's {human_bytes(machine_memory())} can hold"
        elif self.seconds_here(shared=False) > seconds:  # a passing load refuses nothing
            why = (
                "longer than an hour"
                if seconds == MAX_SECONDS
                else (f"longer than the {human_seconds(seconds)} allowed here")
            )
        else:
            return
        raise TooLarge(
            f"{self.describe()}, {why}",
            what=self.what,
            states=self.states,
            bytes=self.bytes,
            seconds=self.seconds_here(),
            reason=why,
            # four times the memory, or a day: --allow-large would only fail later
            hopeless=self.bytes > 4 * machine_memory()
            or self.seconds_here(shared=False) > HOPELESS_SECONDS,
        )

    def tell(self, progress) -> None:
        """Give a progress callback that takes it (one with an ``expect`` method, as
        the command line's bar has) the seconds this solve is estimated to take
        here, so it shows a time left before the solve's own rate is known."""
        expect = getattr(progress, "expect", None)
        if expect is not None:
            expect(self.seconds_here())

    def announce(self, longer_than: float = 30.0) -> None:
        """Say on standard error, before it starts, that a solve will take a while."""
        if self.seconds_here() > longer_than:
            print(f"note: {self.describe()}", file=sys.stderr)


def turn_cost(rules: Rules, lanes: int, itemsize: int = 8, rate: float = RATE) -> tuple[int, float]:
    """Scratch bytes and seconds of solving ``lanes`` lanes of turns of these rules
    (refusing dice with too many keeps first); ``itemsize`` is the bytes of a value
    inside a turn (4 in single precision), ``rate`` the two-core rate of the kernel."""
    check_keeps(rules.dice, rules.faces, rules.name)
    threads = os.cpu_count() or 1
    scratch = threads * n_keeps(rules.dice, rules.faces) * LANES * itemsize * 2
    return scratch, lanes * lane_seconds(rules, itemsize, rate) / 2


def lane_seconds(rules: Rules, itemsize: int = 8, rate: float = RATE) -> float:
    """Seconds of one lane's turn on one thread (half the two-core ``rate``): what a
    runner weighs a parallel region with
    (see :func:`dicelab.engine.runtime.schedule.threads_for`)."""
    keeps = n_keeps(rules.dice, rules.faces)
    passes = 2 * (rules.rolls - 1) + 1
    return keeps * rules.faces * passes / (rate / 2 * 4 / max(itemsize, 4))


def expected_cost(rules: Rules) -> Cost:
    """The expected-score table: one value per (filled boxes, upper total, flag)."""
    n_upper = rules.bonus_threshold + 1 if rules.bonus_threshold > 0 else 1
    n_flag = (
        2
        if rules.extra_bonus > 0 or rules.joker == "free-if-fifty" or rules.required_index >= 0
        else 1
    )
    states = (1 << rules.n_categories) * n_upper * n_flag
    solved = states
    if rules.forced_order:  # only the n + 1 sheets filled from the top are solved
        solved = (rules.n_categories + 1) * n_upper * n_flag
    scratch, seconds = turn_cost(rules, solved, itemsize=4)  # single-precision turns
    what = f"{rules.name}'s expected-score table ({plural(rules.n_categories, 'box')})"
    return Cost(what, solved, 8 * states + scratch, seconds)


def points_cost(rules: Rules, values: int, itemsize: int = 8) -> Cost:
    """A table over (state, points): the target and utility tables."""
    scratch, seconds = turn_cost(rules, values, itemsize, POINTS_RATE)
    what = f"{rules.name}'s table over states and points"
    return Cost(what, values, values * itemsize + scratch, seconds, unit="(state, points) values")


#: Positions the two-player solver explores and settles per second (the door game and
#: tic-tac-toe run at 200,000 to 300,000), and the bytes each one holds at most.
POSITIONS_PER_SECOND = 150_000
BYTES_PER_POSITION = 250


def positions_cost(what: str, positions: int) -> Cost:
    """A game for :mod:`dicelab.games.twoplayer` with at most ``positions`` positions."""
    return Cost(
        what,
        positions,
        positions * BYTES_PER_POSITION,
        positions / POSITIONS_PER_SECOND,
        unit="positions at most",
    )


def big(n: float) -> str:
    """A count with thousands separators, or in powers of ten past a trillion."""
    return f"{n:,.0f}" if n < 1e12 else f"{n:.1e}"


def human_bytes(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{big(n / size) if n / size >= 1e12 else f'{n / size:,.1f}'} {unit}"
    return f"{int(n)} bytes"


def human_seconds(s: float) -> str:
    if s < 60:
        return f"about {max(s, 0.1):.1f} s"
    if s < 7200:
        return f"about {s / 60:.0f} min"
    if s < 86400 * 2:
        return f"about {s / 3600:.0f} h"
    return f"about {big(s / 86400)} days"


@dataclass(frozen=True)
class Facts:
    """What the table of an objective is, before it is loaded or solved: the cache
    files that hold it (it is cached when every file of one group exists) and the
    cost of its first solve on this machine."""

    groups: tuple[tuple[Path, ...], ...]
    cost: Cost

    def cached(self) -> bool:
        """Whether every file of one group is on disk."""
        return any(all(path.exists() for path in group) for group in self.groups)
