"""The best list of M numbers for the dice race, and the write-up's substitution search.

Every list is a strategy in a symmetric zero-sum game whose payoff is
``P(win) - P(lose)``. A list that beats or ties every other list is the answer; when
none exists the answer is the optimal mixed choice (linear programming).

The search plays a candidate against every list (fast floats). Each list it beats can
no longer be the answer, and if something beats the candidate, the strongest such list
is the next candidate. Lists that differ only by swapping equally likely sums (7 + k
and 7 - k with two six-sided dice) are the same strategy, so every verdict covers the
whole symmetry class at once. The search stops when every class is settled: beaten by
a list that was played against everything, or itself played against everything. A list
that survives is confirmed with exact fractions against every other list. If none
survives, the game between lists is solved by adding best responses to a small pool of
lists until no list gains against the pool's optimal mix (a double oracle), so every
list is still checked against the final answer.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb
from typing import Protocol, TypedDict

import numpy as np

from dicelab.errors import UserError
from dicelab.games.race.exact import Dice, RaceResult, race, solve_counts
from dicelab.games.race.fast import pair_payoffs, race_payoff, row_payoffs

#: Largest number of lists the best-list search will consider.
MAX_LISTS = 60_000
#: Largest number of positions one float race may need during the search.
MAX_SEARCH_POSITIONS = 200_000
#: Float payoffs within this distance of zero count as a tie until checked exactly.
TOL = 1e-9

Progress = Callable[[str, int, int], None]


def _quiet(phase: str, done: int, total: int) -> None:
    """The default progress callback: say nothing."""


class ListSpace:
    """All lists of ``picks`` numbers, as a matrix of counts with one column per sum.

    It also knows which lists are the same up to swapping equally likely sums.
    """

    def __init__(self, dice: Dice, picks: int) -> None:
        if isinstance(picks, bool) or not isinstance(picks, int) or picks < 1:
            raise UserError(f"the number of picks must be a whole number >= 1, got {picks!r}")
        self.dice = dice
        self.picks = picks
        sums = len(dice.sums)
        n = comb(sums + picks - 1, picks)
        if n > MAX_LISTS:
            raise UserError(
                f"{n} lists of {picks} numbers from {sums} sums is too many to search; "
                f"expected at most {MAX_LISTS}"
            )
        if _worst_positions(sums, picks) > MAX_SEARCH_POSITIONS:
            raise UserError(
                f"lists of {picks} numbers are too long for the search; use fewer picks"
            )
        self.weight = np.array(dice.ways, dtype=np.float64)
        self.counts = np.zeros((n, sums), dtype=np.int64)
        for i, combo in enumerate(_combinations(sums, picks)):
            for s in combo:
                self.counts[i, s] += 1
        self.index = {tuple(row): i for i, row in enumerate(self.counts.tolist())}
        keys: dict[tuple, int] = {}
        self.orbit = np.empty(n, dtype=np.int64)
        for i, row in enumerate(self.counts.tolist()):
            key = tuple(sorted(zip(dice.ways, row, strict=True)))
            self.orbit[i] = keys.setdefault(key, len(keys))
        self.orbits = len(keys)

    def __len__(self) -> int:
        return self.counts.shape[0]

    def numbers(self, i: int) -> tuple[int, ...]:
        """List ``i`` as sorted sums."""
        low = self.dice.low
        return tuple(s + low for s, c in enumerate(self.counts[i]) for _ in range(c))

    def find(self, numbers: Iterable[int]) -> int:
        """The index of a list given as sums."""
        numbers = self.dice.check(numbers)
        if len(numbers) != self.picks:
            raise UserError(
                f"the list {list(numbers)} has {len(numbers)} numbers; expected {self.picks}"
            )
        row = [0] * len(self.dice.sums)
        for s in numbers:
            row[s - self.dice.low] += 1
        return self.index[tuple(row)]

    def row(self, i: int) -> np.ndarray:
        """Float payoff of list ``i`` against every list."""
        return row_payoffs(self.counts[i], self.counts, self.weight)

    def payoff(self, i: int, j: int) -> float:
        """Float payoff of list ``i`` against list ``j``."""
        return race_payoff(self.counts[i], self.counts[j], self.weight)

    def exact(self, i: int, j: int) -> RaceResult:
        """The exact race of list ``i`` against list ``j``."""
        d = self.dice
        return race(self.numbers(i), self.numbers(j), d.count, d.faces)

    def exact_row(self, i: int, progress: Progress = _quiet) -> list[Fraction]:
        """Exact payoff of list ``i`` against every list.

        Lists that differ by swapping equally likely sums on which list ``i`` has the
        same count get the same payoff, so only one of each such class is solved.
        """
        mine = self.counts[i].tolist()
        ways = self.dice.ways
        weight = {s: w for s, w in enumerate(ways)}
        ca = {s: c for s, c in enumerate(mine) if c}
        classes: dict[tuple, list[int]] = defaultdict(list)
        for j, row in enumerate(self.counts.tolist()):
            classes[tuple(sorted(zip(ways, mine, row, strict=True)))].append(j)
        out: list[Fraction] = [Fraction(0)] * len(self)
        for done, members in enumerate(classes.values()):
            other = self.counts[members[0]].tolist()
            win, tie, _ = solve_counts(ca, {s: c for s, c in enumerate(other) if c}, weight)
            value = 2 * win + tie - 1
            for j in members:
                out[j] = value
            progress("exact check", done + 1, len(classes))
        return out


def _combinations(sums: int, picks: int):
    """Multisets of ``picks`` indices below ``sums``, as non-decreasing tuples."""
    from itertools import combinations_with_replacement

    return combinations_with_replacement(range(sums), picks)


def _worst_positions(sums: int, picks: int) -> int:
    """An upper bound on the positions of one race between two lists of ``picks`` numbers."""
    slots = min(sums, 2 * picks)
    base, extra = divmod(2 * picks, slots)
    return (base + 2) ** extra * (base + 1) ** (slots - extra)


def solve_zero_sum(matrix: np.ndarray) -> tuple[np.ndarray, float]:
    """The row player's optimal mixed strategy and the value of a zero-sum matrix game.

    Linear programme: maximise ``v`` subject to ``x @ matrix >= v`` column by column,
    ``x >= 0`` and ``sum(x) = 1``.
    """
    from scipy.optimize import linprog

    matrix = np.asarray(matrix, dtype=np.float64)
    rows, cols = matrix.shape
    cost = np.zeros(rows + 1)
    cost[-1] = -1.0
    upper = np.hstack([-matrix.T, np.ones((cols, 1))])
    equal = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    bounds = [(0, None)] * rows + [(None, None)]
    res = linprog(
        cost,
        A_ub=upper,
        b_ub=np.zeros(cols),
        A_eq=equal,
        b_eq=[1.0],
        bounds=bounds,
        method="highs",
    )
    if not res.success:  # pragma: no cover - HiGHS solves every bounded game
        raise RuntimeError(f"linear programme failed: {res.message}")
    x = np.clip(res.x[:rows], 0.0, None)
    return x / x.sum(), float(res.x[-1])


@dataclass(frozen=True)
class Substitution:
    """The write-up's search: swap one number while the new list beats the old one."""

    path: tuple[tuple[int, ...], ...]
    cycled: bool
    stops: tuple[tuple[int, ...], ...]


def substitution_path(space: ListSpace, start: int) -> tuple[list[int], bool]:
    """Follow first improvements from ``start``: positions left to right, sums upwards.

    Returns the visited lists and whether the search came back to a list it had seen
    (possible because "beats" is not transitive).
    """
    path = [start]
    seen = {start}
    current = start
    while True:
        nxt = None
        for j in _neighbours(space, current):
            if space.payoff(j, current) > TOL:
                nxt = j
                break
        if nxt is None:
            return path, False
        path.append(nxt)
        if nxt in seen:
            return path, True
        seen.add(nxt)
        current = nxt


def _neighbours(space: ListSpace, i: int) -> list[int]:
    """Lists one substitution away from list ``i``, in the write-up's scan order."""
    row = space.counts[i]
    out: list[int] = []
    for s in range(row.shape[0]):
        if row[s] == 0:
            continue
        for t in range(row.shape[0]):
            if t == s:
                continue
            new = row.copy()
            new[s] -= 1
            new[t] += 1
            j = space.index[tuple(new.tolist())]
            if j not in out:
                out.append(j)
    return out


def substitution_stops(space: ListSpace) -> list[int]:
    """Every list where the substitution search can stop: no single swap beats it."""
    reps: dict[int, int] = {}
    for i, o in enumerate(space.orbit.tolist()):
        reps.setdefault(o, i)
    first: list[int] = []
    second: list[int] = []
    owner: list[int] = []
    for o, i in reps.items():
        for j in _neighbours(space, i):
            first.append(j)
            second.append(i)
            owner.append(o)
    values = pair_payoffs(
        space.counts, np.array(first, np.int64), np.array(second, np.int64), space.weight
    )
    beaten = set(np.array(owner)[values > TOL].tolist())
    stable = [o for o in reps if o not in beaten]
    return [i for i in range(len(space)) if space.orbit[i] in set(stable)]


@dataclass(frozen=True)
class Challenger:
    """An exact head-to-head of the best list against one other list."""

    numbers: tuple[int, ...]
    result: RaceResult


@dataclass(frozen=True)
class BestList:
    """The answer of :func:`best_list`.

    ``winners`` holds every list that beats or ties all lists (empty if none does);
    ``mixed`` then holds the optimal mix as ``(list, weight)``. ``row`` is the payoff of
    the answer (the first winner, or the mix) against every other list, as floats;
    ``stop_payoffs`` is what each substitution stop earns against the answer.
    """

    dice: Dice
    picks: int
    lists: int
    classes: int
    candidates: int
    winners: tuple[tuple[int, ...], ...]
    beaten: int = 0
    tied: int = 0
    closest: tuple[Challenger, ...] = ()
    mixed: tuple[tuple[tuple[int, ...], float], ...] = ()
    value: float = 0.0
    exploitability: float = 0.0
    substitution: Substitution | None = None
    stop_payoffs: tuple[float, ...] = ()
    seconds: float = 0.0
    row: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def pure(self) -> bool:
        """Whether one list beats or ties every other list."""
        return bool(self.winners)

    def to_dict(self) -> dict:
        """Plain data for JSON."""
        out = {
            "dice": self.dice.count,
            "faces": self.dice.faces,
            "picks": self.picks,
            "lists": self.lists,
            "symmetry_classes": self.classes,
            "candidates_played_against_all": self.candidates,
            "pure": self.pure,
            "winners": [list(w) for w in self.winners],
            "value": self.value,
            "seconds": round(self.seconds, 3),
        }
        if self.pure:
            out["winner_beats"] = self.beaten
            out["winner_ties"] = self.tied
            out["closest"] = [c.result.to_dict() for c in self.closest]
        else:
            out["mixed"] = [{"list": list(x), "weight": p} for x, p in self.mixed]
            out["exploitability"] = self.exploitability
        if self.substitution is not None:
            out["substitution"] = {
                "path": [list(x) for x in self.substitution.path],
                "cycled": self.substitution.cycled,
                "stops": [
                    {"list": list(x), "payoff_against_best": p}
                    for x, p in zip(self.substitution.stops, self.stop_payoffs, strict=True)
                ],
            }
        return out


class _Shared(TypedDict):
    """The fields of a :class:`BestList` that a pure and a mixed answer share."""

    dice: Dice
    picks: int
    lists: int
    classes: int
    candidates: int
    substitution: Substitution
    seconds: float


def best_list(
    dice: int = 2,
    faces: int = 6,
    picks: int = 5,
    *,
    start: Sequence[int] | None = None,
    closest: int = 5,
    progress: Progress = _quiet,
) -> BestList:
    """Find the best list of ``picks`` numbers.

    Parameters
    ----------
    dice, faces
        The dice thrown every turn.
    picks
        How many numbers each player chooses (repeats allowed).
    start
        Where the substitution search starts; default: ``picks`` copies of the most
        likely sum.
    closest
        How many of the strongest challengers of the best list (other than lists that
        are best too) to report exactly.
    progress
        Called as ``progress(phase, done, total)`` while the search runs.
    """
    import time

    clock = time.perf_counter()
    d = Dice(dice, faces)
    space = ListSpace(d, picks)
    if start is None:
        mode = d.low + max(range(len(d.ways)), key=lambda s: (d.ways[s], -s))
        start = [mode] * picks
    s0 = space.find(start)
    path, cycled = substitution_path(space, s0)
    progress("substitution", 0, 1)
    stops = substitution_stops(space)
    progress("substitution", 1, 1)
    sub = Substitution(
        tuple(space.numbers(i) for i in path), cycled, tuple(space.numbers(i) for i in stops)
    )

    game = solve_game(space, path[-1], progress)
    common = _Shared(
        dice=d,
        picks=picks,
        lists=len(space),
        classes=space.orbits,
        candidates=game.candidates,
        substitution=sub,
        seconds=0.0,
    )
    if game.winners:
        best = min(game.exact_rows, key=space.numbers)
        exact = game.exact_rows[best]
        others = [j for j in range(len(space)) if j != best]
        rivals = [j for j in others if j not in set(game.winners)]
        order = sorted(rivals, key=lambda j: exact[j])[:closest]
        answer = BestList(
            winners=tuple(space.numbers(w) for w in game.winners),
            beaten=sum(1 for j in others if exact[j] > 0),
            tied=sum(1 for j in others if exact[j] == 0),
            closest=tuple(Challenger(space.numbers(j), space.exact(best, j)) for j in order),
            stop_payoffs=tuple(-float(exact[j]) for j in stops),
            row=np.array([float(exact[j]) for j in others]),
            **common,
        )
    else:
        assert game.against is not None  # a mixed answer says what every list earns
        answer = BestList(
            winners=(),
            mixed=tuple((space.numbers(i), p) for i, p in game.mix),
            value=game.value,
            exploitability=game.gain,
            stop_payoffs=tuple(float(game.against[j]) for j in stops),
            row=-game.against,
            **common,
        )
    return replace(answer, seconds=time.perf_counter() - clock)


class Strategies(Protocol):
    """What :func:`solve_game` needs to know about the lists."""

    orbit: np.ndarray
    orbits: int

    def __len__(self) -> int: ...

    def row(self, i: int) -> np.ndarray: ...

    def exact_row(self, i: int, progress: Progress = _quiet) -> list[Fraction]: ...


@dataclass(frozen=True)
class GameAnswer:
    """The solution of the symmetric game between lists.

    ``winners`` are the lists that beat or tie every list, with ``exact_rows`` their
    exact payoffs; if there are none, ``mix`` is an optimal mixed strategy as
    ``(list index, weight)`` pairs, ``against`` what every list earns against it and
    ``gain`` the largest such earning (zero up to rounding at the optimum).
    """

    winners: tuple[int, ...]
    exact_rows: dict[int, list[Fraction]]
    candidates: int
    mix: tuple[tuple[int, float], ...] = ()
    value: float = 0.0
    gain: float = 0.0
    against: np.ndarray | None = field(default=None, repr=False, compare=False)


def solve_game(space: Strategies, first: int, progress: Progress = _quiet) -> GameAnswer:
    """Solve the symmetric zero-sum game between all lists, starting from list ``first``.

    A list that loses to any list cannot beat or tie everything, so each candidate
    played against all lists settles every class it beats; the strongest unsettled
    opponent of the candidate is the next candidate. Unbeaten candidates are confirmed
    with exact fractions. Without an unbeaten list, the candidates seed a double oracle.
    """
    rows: dict[int, np.ndarray] = {}
    winners, exact_rows = _pure_search(space, first, rows, progress)
    if winners:
        return GameAnswer(tuple(winners), exact_rows, len(rows))
    weights, pool, value, gain, against = _double_oracle(space, rows, progress)
    mix = sorted(
        ((pool[k], float(p)) for k, p in enumerate(weights) if p > 1e-9),
        key=lambda t: -t[1],
    )
    return GameAnswer((), {}, len(rows), tuple(mix), value, gain, against)


def _pure_search(
    space: Strategies, first: int, rows: dict[int, np.ndarray], progress: Progress
) -> tuple[list[int], dict[int, list[Fraction]]]:
    """Settle every symmetry class: beaten by a played list, or unbeaten (exactly)."""
    orbit = space.orbit
    settled = np.zeros(space.orbits, dtype=bool)
    winners: list[int] = []
    exact_rows: dict[int, list[Fraction]] = {}
    candidate = first
    while True:
        row = rows[candidate] = space.row(candidate)
        settled[np.unique(orbit[row > TOL])] = True
        settled[orbit[candidate]] = True
        steer = row
        if not (row < -TOL).any():
            exact = space.exact_row(candidate, progress)
            worst = min(range(len(space)), key=lambda j: exact[j])
            if exact[worst] >= 0:
                exact_rows[candidate] = exact
                winners.extend(int(j) for j in np.flatnonzero(orbit == orbit[candidate]))
            else:  # a float tie that is an exact loss: follow the exact beater
                steer = row.copy()
                steer[worst] = -1.0
        progress("best list", int(settled.sum()), space.orbits)
        open_ = np.flatnonzero(~settled[orbit])
        if open_.size == 0:
            break
        candidate = int(open_[np.argmin(steer[open_])])
    winners.sort()
    return winners, exact_rows


def _double_oracle(
    space: Strategies, rows: dict[int, np.ndarray], progress: Progress
) -> tuple[np.ndarray, list[int], float, float, np.ndarray]:
    """Optimal mix of the game between lists, grown from the lists already played."""
    pool = list(rows)
    while True:
        table = np.array([rows[i] for i in pool])
        x, value = solve_zero_sum(table[:, pool])
        against = -(x @ table)  # what each list earns against the mix
        best = int(np.argmax(against))
        gain = float(against[best])
        progress("mixed strategy", len(pool), len(pool) + (gain > TOL))
        if gain <= TOL or best in rows:
            return x, pool, value, max(gain, 0.0), against
        rows[best] = space.row(best)
        pool.append(best)
