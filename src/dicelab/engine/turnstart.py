"""Two-player banking games solved where turns start: one value per pair of scores.

Laying out every position of Farkle to 10,000 (every turn total, every count of
dice, every throw, for every pair of scores) takes 1.9 billion positions; the
values that matter are far fewer. A turn depends on the rest of the game only
through the scores it can leave behind, so only ``W[a, b]`` is kept: the mover's
chance to win where a turn starts with scores ``a`` (the mover's) and ``b``
(40,000 values for Farkle to 10,000). The inside of a turn is solved from them
when it is needed (:func:`~dicelab.engine.kernels.turnstart.turn_table`): once
per pair of scores while solving, once per question when advising.

Scores only grow, so the pairs are solved in layers of their sum, largest first;
within a layer only a farkle links ``(a, b)`` to ``(b, a)``, and each such pair
is solved exactly and on its own (:func:`~dicelab.engine.kernels.turnstart.solve_pair`),
the pairs of a layer on every thread.

>>> import numpy as np
>>> # Pig to 2 on a coin: heads adds 1 (bank or toss again), tails loses the turn
>>> coin = BankingTurn(goal=2, dice=1, min_bank=0, out_start=np.array([0, 0, 1]),
...                    prob=np.array([0.5]), offer=np.array([[0, 1]]),
...                    best=np.array([1]), farkle=np.array([0.0, 0.5]))
>>> round(solve_turn_starts(coin).start_value(), 6)  # the first player's chance: 4/7
0.571429
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["BankingTurn", "TurnStartTable", "solve_turn_starts"]

#: Each count of dice's throws: ``(chance, offer)`` pairs.
Outcomes = dict[int, list[tuple[float, tuple[int, ...]]]]
#: ``progress(done, planned)``: layers of the solve.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BankingTurn:
    """The rules of a banking turn as arrays (see :mod:`dicelab.engine.kernels.turnstart`):
    points in whole units, ``goal`` the score that wins, ``dice`` thrown at a turn's
    start and on hot dice, ``min_bank`` the least total that may be banked; ``wipe[n]``
    the chance that ``n`` dice lose the mover's whole score."""

    goal: int
    dice: int
    min_bank: int
    out_start: np.ndarray
    prob: np.ndarray
    offer: np.ndarray
    best: np.ndarray
    farkle: np.ndarray
    wipe: np.ndarray | None = None

    def arrays(self):
        """The bundle every kernel reads (:class:`~dicelab.engine.kernels.turnstart.TurnArrays`)."""
        from dicelab.engine.kernels.turnstart import TurnArrays

        wipe = self.wipe if self.wipe is not None else np.zeros_like(self.farkle)
        count = (self.offer > 0).sum(axis=1)
        keeps = np.zeros_like(self.offer)
        for j in range(self.offer.shape[0]):
            keeps[j, : count[j]] = np.flatnonzero(self.offer[j])
        return TurnArrays(self.goal, self.dice, self.min_bank, self.out_start, self.prob,
                          self.offer, self.best, self.farkle, wipe, keeps, count)  # fmt: skip

    @property
    def sweeps(self) -> bool:
        """Whether a throw can lose the whole score: the layers are then swept again
        until no value moves."""
        return self.wipe is not None and bool(self.wipe.any())

    @classmethod
    def from_outcomes(cls, goal: int, dice: int, min_bank: int, outcomes: Outcomes,
                      wipes: dict[int, float] | None = None) -> BankingTurn:  # fmt: skip
        """From each count of dice's throws: ``(chance, offer)`` pairs, ``offer[k - 1]``
        the most units ``k`` dice set aside score (all 0: a farkle); ``wipes[n]``: the
        chance that ``n`` dice lose the whole score. Throws that offer the same are
        merged."""
        out_start, prob, offer, best = [0, 0], [], [], []
        farkle = np.zeros(dice + 1)
        for n in range(1, dice + 1):
            merged: dict[tuple[int, ...], float] = {}
            for p, o in outcomes[n]:
                if any(o):
                    merged[o] = merged.get(o, 0.0) + p
                else:
                    farkle[n] += p
            for o, p in sorted(merged.items()):
                prob.append(p)
                offer.append([0, *o] + [0] * (dice - len(o)))
                best.append(max(o))
            out_start.append(len(prob))
        wipe = np.zeros(dice + 1)
        for n, p in (wipes or {}).items():
            wipe[n] = p
        return cls(goal, dice, min_bank, np.array(out_start, np.int64), np.array(prob),
                   np.array(offer, np.int64).reshape(-1, dice + 1), np.array(best, np.int64),
                   farkle, wipe if wipe.any() else None)  # fmt: skip


@dataclass(eq=False)
class TurnStartTable:
    """``W[a, b]``: the mover's chance to win where a turn starts with scores ``a``
    (theirs) and ``b``, both playing their best; the inside of a turn from it."""

    turn: BankingTurn
    W: np.ndarray
    #: the most Newton steps a pair of scores took (see the kernel's ``MAX_STEPS``)
    steps: int = 0
    seconds: float = 0.0
    #: sweeps of the layers (more than one where a throw can lose the whole score)
    sweeps: int = 1

    def start_value(self) -> float:
        """The first player's chance at the start of the game."""
        return float(self.W[0, 0])

    def turn_values(self, mine: int, other: int) -> np.ndarray:
        """``V[t, n]``: the mover's chance with turn total ``t`` and ``n`` dice to
        throw, scores ``mine`` and ``other`` (totals from 0 to below the goal)."""
        from dicelab.engine.kernels.turnstart import turn_table

        V, S = np.empty((2, self.turn.goal, self.turn.dice + 1))
        L = 1.0 - float(self.W[other, mine])
        turn_table(mine, other, L, self.W, self.turn.arrays(), V, S)
        return V

    def play(self, games: int, seed: int = 0, max_turns: int = 100_000) -> np.ndarray:
        """``games`` games played out with the dice drawn and best play by both: 1 where
        the first player wins, 0 where the second does (NaN: still going after
        ``max_turns`` turns). A game's dice depend on ``seed`` and its number only."""
        from dicelab.engine.kernels.turnstart import play_games

        return play_games(self.W, self.turn.arrays(), games, seed, max_turns)


def layer_work(goal: int, sums: np.ndarray) -> np.ndarray:
    """The work of each layer of scores summing to ``sums``, in turn totals valued:
    ``goal - a`` for the turn at ``(a, b)``, for every ``a`` of the layer (a progress
    bar that moves with the time the layers take, the middle ones the largest)."""
    lo = np.maximum(0, sums - goal + 1)
    hi = np.minimum(sums, goal - 1)
    count = hi - lo + 1
    return count * goal - (lo + hi) * count // 2


#: Sweeps of a game whose throws can lose the whole score stop when no value moves
#: by more than this, or are reported after :data:`MAX_SWEEPS`.
SWEEP_TOLERANCE = 1e-15
MAX_SWEEPS = 2_000


def solve_turn_starts(turn: BankingTurn, progress: Progress | None = None) -> TurnStartTable:
    """Every ``W[a, b]``, layer by layer of ``a + b`` from the largest; where a throw
    can lose the whole score (a lower layer's value), the layers are swept again
    with the values of the sweep before until none moves (Gauss-Seidel)."""
    import time

    import numba

    from dicelab.engine.kernels.turnstart import MAX_STEPS, solve_layer

    G = turn.goal
    W = np.zeros((G, G))
    R = turn.arrays()
    scratch = np.empty((2, numba.get_num_threads(), G, turn.dice + 1))
    tick = progress or (lambda done, planned: None)
    began = time.perf_counter()
    sums = np.arange(2 * G - 2, -1, -1)
    work = np.cumsum(layer_work(G, sums))
    most, sweeps = 0, 0
    while True:
        before = W.copy() if turn.sweeps else W
        for i, total in enumerate(sums):
            most = max(most, int(solve_layer(total, W, R, sweeps > 0, scratch)))
            if sweeps == 0:
                tick(int(work[i]), int(work[-1]))
        sweeps += 1
        if not turn.sweeps or np.abs(W - before).max() <= SWEEP_TOLERANCE:
            break
        if sweeps >= MAX_SWEEPS:
            raise ArithmeticError(f"the turn starts still moved after {MAX_SWEEPS} sweeps")
    if most > MAX_STEPS:
        raise ArithmeticError(f"the turn starts did not settle in {MAX_STEPS} steps")
    return TurnStartTable(turn, W, most, time.perf_counter() - began, sweeps)
