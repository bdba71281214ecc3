"""The dice race: two lists of sums, crossed off as the dice fall, solved exactly.

Each player picks numbers from the possible sums of N dice with k faces (repeats
allowed). The dice are rolled again and again; after each roll each player crosses off
one copy of the rolled sum if it is still on their list. The first to cross off
everything wins; finishing on the same roll is a tie.

Only rolls that hit a number someone still needs change the position, so the solver
walks from one such roll to the next: given that a roll matters, its sum is drawn from
the sums still needed, in proportion to their chances. Wasted rolls cost nothing.

>>> from dicelab.games.race.exact import race
>>> r = race([5, 6, 7, 8, 9], [5, 6, 7, 7, 8], dice=2, faces=6)
>>> r.beats
True
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import comb, gcd, lcm

from dicelab.errors import UserError, whole_numbers

#: The most possible sums a throw may have.
MAX_SUMS = 2_000
#: Positions the exact solver may visit before it refuses (memory and time guard).
MAX_EXACT_STATES = 2_000_000


@dataclass(frozen=True)
class Dice:
    """``count`` dice with ``faces`` faces each, thrown together; only their sum counts."""

    count: int
    faces: int

    def __post_init__(self) -> None:
        for name, value, low in (("number of dice", self.count, 1), ("faces", self.faces, 2)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise UserError(f"{name} must be a whole number, got {value!r}")
            if value < low:
                raise UserError(f"{name} must be at least {low}, got {value}")
        if self.count * (self.faces - 1) + 1 > MAX_SUMS:
            raise UserError(
                f"{self.count} dice with {self.faces} faces have too many sums; "
                f"expected at most {MAX_SUMS} possible sums"
            )

    @property
    def low(self) -> int:
        """The smallest sum."""
        return self.count

    @property
    def high(self) -> int:
        """The largest sum."""
        return self.count * self.faces

    @property
    def sums(self) -> range:
        """Every sum the dice can show."""
        return range(self.low, self.high + 1)

    @cached_property
    def ways(self) -> tuple[int, ...]:
        """How many of the ``faces ** count`` ordered throws give each sum, lowest first."""
        ways = [1]
        for _ in range(self.count):
            nxt = []
            window = 0
            for i in range(len(ways) + self.faces - 1):
                window += ways[i] if i < len(ways) else 0
                window -= ways[i - self.faces] if i >= self.faces else 0
                nxt.append(window)
            ways = nxt
        return tuple(ways)

    @property
    def throws(self) -> int:
        """The number of equally likely ordered throws."""
        return self.faces**self.count

    def ways_of(self, total: int) -> int:
        """How many ordered throws give ``total``."""
        return self.ways[total - self.low]

    def probability(self, total: int) -> Fraction:
        """The chance that one throw shows ``total``."""
        if total not in self.sums:
            return Fraction(0)
        return Fraction(self.ways_of(total), self.throws)

    def check(self, numbers: Iterable[int], who: str = "list") -> tuple[int, ...]:
        """Validate a list of picks and return it sorted."""
        numbers = list(numbers)
        if not numbers:
            raise UserError(f"the {who} is empty; expected at least one number")
        for x in numbers:
            if isinstance(x, bool) or not isinstance(x, int):
                raise UserError(f"{x!r} in the {who} is not a whole number")
            if x not in self.sums:
                raise UserError(
                    f"{x} in the {who} is not a possible sum of {self.describe()} "
                    f"(expected {self.low}..{self.high})"
                )
        return tuple(sorted(numbers))

    def describe(self) -> str:
        """A short name such as ``2 dice with 6 faces``."""
        plural = "die" if self.count == 1 else "dice"
        return f"{self.count} {plural} with {self.faces} faces"


def sum_distribution(dice: int = 2, faces: int = 6) -> dict[int, Fraction]:
    """The exact chance of every sum of ``dice`` dice with ``faces`` faces."""
    d = Dice(dice, faces)
    return {s: Fraction(w, d.throws) for s, w in zip(d.sums, d.ways, strict=True)}


def parse_list(text: str, who: str = "list") -> tuple[int, ...]:
    """Read a list such as ``5,6,7,8,9`` or ``[5, 6, 7, 8, 9]`` (order does not matter)."""
    body = text.strip().strip("[]()").replace(";", ",")
    parts = [p for p in body.replace(" ", ",").split(",") if p]
    if not parts:
        raise UserError(f"the {who} is empty; expected numbers such as 5,6,7,8,9")
    return whole_numbers(
        parts, f"cannot read the {who} {text!r}; expected whole numbers separated by commas"
    )


@dataclass(frozen=True)
class Matchup:
    """List ``a`` raced against list ``b`` with ``dice``: what an exact result and a
    simulation of a race both start from."""

    a: tuple[int, ...]
    b: tuple[int, ...]
    dice: Dice


@dataclass(frozen=True)
class RaceResult(Matchup):
    """The exact outcome chances of list ``a`` against list ``b``."""

    win: Fraction
    lose: Fraction
    tie: Fraction
    positions: int

    @property
    def payoff(self) -> Fraction:
        """``win - lose``: positive when ``a`` beats ``b``; the zero-sum game's payoff."""
        return self.win - self.lose

    @property
    def beats(self) -> bool:
        """Whether ``a`` wins more often than it loses."""
        return self.win > self.lose

    def swapped(self) -> RaceResult:
        """The same race seen from ``b``."""
        return RaceResult(self.b, self.a, self.dice, self.lose, self.win, self.tie, self.positions)

    def to_dict(self) -> dict:
        """Plain data for JSON: fractions as ``"p/q"`` strings and as floats."""
        return {
            "a": list(self.a),
            "b": list(self.b),
            "dice": self.dice.count,
            "faces": self.dice.faces,
            **{
                name: {"fraction": str(value), "float": float(value)}
                for name, value in (
                    ("win", self.win),
                    ("lose", self.lose),
                    ("tie", self.tie),
                    ("payoff", self.payoff),
                )
            },
            "positions": self.positions,
        }


def race(a: Iterable[int], b: Iterable[int], dice: int = 2, faces: int = 6) -> RaceResult:
    """Solve the race of list ``a`` against list ``b`` exactly.

    Parameters
    ----------
    a, b
        The two lists of sums; repeats allowed, order irrelevant, lengths may differ.
    dice, faces
        The dice thrown every turn.

    Returns
    -------
    RaceResult
        Win, lose and tie chances of ``a`` as fractions.
    """
    d = Dice(dice, faces)
    a = d.check(a, "first list")
    b = d.check(b, "second list")
    win, tie, positions = solve_counts(Counter(a), Counter(b), {s: d.ways_of(s) for s in d.sums})
    return RaceResult(a, b, d, win, 1 - win - tie, tie, positions)


def _groups(ca: dict[int, int], cb: dict[int, int], weight: dict[int, int]):
    """Sums that play the same role (same chance, same need on both sides) are one group.

    Within a group only how many sums have reached each progress matters, not which ones,
    so the positions are counted per group instead of per sum.
    """
    members: dict[tuple[int, int, int], int] = defaultdict(int)
    for s in set(ca) | set(cb):
        key = (weight[s], ca.get(s, 0), cb.get(s, 0))
        if key[1] or key[2]:
            members[key] += 1
    return [(w, na, nb, size) for (w, na, nb), size in sorted(members.items())]


def solve_counts(
    ca: dict[int, int], cb: dict[int, int], weight: dict[int, int]
) -> tuple[Fraction, Fraction, int]:
    """Exact ``(win, tie, positions)`` for needs ``ca`` against ``cb``.

    ``weight[s]`` is proportional to the chance of sum ``s`` (only ratios matter). A
    position records, per group, how many of its sums have been thrown 0, 1, ... times;
    each relevant throw moves one sum one step, so the positions are walked level by
    level, carrying exact probability mass forward until one side is done. The masses
    of a level are integers over one shared denominator, which keeps the arithmetic to
    a few big-integer products instead of a fraction reduction per move.
    """
    if {s: c for s, c in ca.items() if c} == {s: c for s, c in cb.items() if c}:
        return Fraction(0), Fraction(1), 1  # the same list: both finish on the same throw
    groups = _groups(ca, cb, weight)
    _check_positions(groups)
    # Flat layout: group g owns slots j = 0..cap, holding how many of its sums were
    # thrown j times. A throw moves one sum from slot j to slot j + 1.
    start: list[int] = []
    moves: list[tuple[int, int, int, int]] = []  # (slot, weight, A need met, B need met)
    a_missing = b_missing = 0
    for w, na, nb, g in groups:
        base = len(start)
        cap = max(na, nb)
        start.extend([g] + [0] * cap)
        moves.extend((base + j, w, int(j + 1 == na), int(j + 1 == nb)) for j in range(cap))
        a_missing += g if na else 0
        b_missing += g if nb else 0
    if not a_missing or not b_missing:  # a side with nothing to cross off is done at once
        if not a_missing and not b_missing:
            return Fraction(0), Fraction(1), 1
        return Fraction(int(not a_missing)), Fraction(0), 1
    frontier: dict[tuple[int, ...], list[int]] = {tuple(start): [1, a_missing, b_missing]}
    denominator = 1
    win = tie = Fraction(0)
    seen = 1
    while frontier:
        totals = {state: sum(state[p] * w for p, w, _, _ in moves) for state in frontier}
        common = lcm(*set(totals.values()))
        denominator *= common
        nxt: dict[tuple[int, ...], list[int]] = {}
        win_num = tie_num = 0
        for state, (num, am, bm) in frontier.items():
            scaled = num * (common // totals[state])
            for p, w, da, db in moves:
                c = state[p]
                if not c:
                    continue
                share = scaled * c * w
                am2 = am - da
                bm2 = bm - db
                if am2 == 0 or bm2 == 0:
                    if am2 == 0 and bm2 == 0:
                        tie_num += share
                    elif am2 == 0:
                        win_num += share
                    continue
                new = state[:p] + (c - 1, state[p + 1] + 1) + state[p + 2 :]
                entry = nxt.get(new)
                if entry is None:
                    nxt[new] = [share, am2, bm2]
                else:
                    entry[0] += share
        win += Fraction(win_num, denominator)
        tie += Fraction(tie_num, denominator)
        if nxt:
            g = gcd(denominator, *(e[0] for e in nxt.values()))
            if g > 1:
                denominator //= g
                for e in nxt.values():
                    e[0] //= g
        seen += len(nxt)
        frontier = nxt
    return win, tie, seen


def _check_positions(groups) -> None:
    """Refuse lists whose positions are too many for the exact solver."""
    size = 1
    for _, na, nb, g in groups:
        size *= _multisets(g, max(na, nb) + 1)
        if size > MAX_EXACT_STATES:
            raise UserError(
                "the lists are too long for the exact solver "
                f"(more than {MAX_EXACT_STATES} positions); use shorter lists"
            )


def _multisets(n: int, kinds: int) -> int:
    """The number of ways to spread ``n`` alike items over ``kinds`` boxes."""
    return comb(n + kinds - 1, kinds - 1)
