"""Banking games of three to six players solved where turns start: a chance per seat.

Pig and Farkle are party games. With ``N`` players a turn start is the scores in
playing order from the mover's, and the table keeps every seat's chance to finish
first there (:mod:`dicelab.engine.kernels.seats`): ``G ** N`` turn starts of ``N``
chances each, ``G`` the goal in units. Every seat plays for its own chance; a tie
between moves goes as the two-player game's does (the bank, then the fewest dice).
With two seats the table is the two-player one: seat 0's chance is ``W[a, b]``.

Scores only grow but by a wipe, so the layers of equal sums are solved from the
largest; within a layer a farkle turns the scores once around, and the turn starts
it joins are solved together. A game whose throws can lose the whole score (a
wipe: two-dice Pig's double 1s) has its layers swept again until no chance moves.

>>> import numpy as np
>>> from dicelab.engine.turnstart import BankingTurn
>>> # a coin to 2: heads adds 1 (bank or toss again), tails loses the turn total
>>> coin = BankingTurn(goal=2, dice=1, min_bank=0, out_start=np.array([0, 0, 1]),
...                    prob=np.array([0.5]), offer=np.array([[0, 1]]),
...                    best=np.array([1]), farkle=np.array([0.0, 0.5]))
>>> table = solve_seats(coin, 3)
>>> (table.start_chances() * 37).round(9).tolist()  # 16/37, 12/37, 9/37 in playing order
[16.0, 12.0, 9.0]
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from dicelab.engine.turnstart import MOVES_PER_SECOND, BankingTurn

__all__ = ["SeatTable", "seat_cost", "solve_seats"]

#: ``progress(done, planned)``: turn starts solved.
Progress = Callable[[int, int], None]

#: Rounds of an orbit's policy iteration expected (for the estimate): the first
#: finds the moves, the second shows they hold, a third now and then.
ROUNDS_EXPECTED = 2.5
#: Sweeps of the layers, at most, where a wipe leads to a lower layer.
MAX_SWEEPS = 500
#: Sweeps stop, the chances still moving, after this many that came no closer
#: (best replies going round through the lower scores, as two-dice Pig's wipes allow
#: at a table of three or more: said with the table, :attr:`SeatTable.unsettled`).
STUCK_SWEEPS = 8
#: Sweeps stop when no chance moves by more than this (or than the regret, where
#: some movers' best replies go round: :attr:`SeatTable.regret`).
SWEEP_TOLERANCE = 1e-13


def _check(turn: BankingTurn, players: int) -> None:
    if not 2 <= players <= 6:
        raise ValueError(f"players: got {players}, expected 2 to 6")
    if not turn.by_pairs or turn.floor or turn.goal_by_bank:
        raise ValueError("a table of seats counts no farkles in a row, no floor, no goal by bank")


def layer_sizes(goal: int, players: int) -> np.ndarray:
    """How many turn starts each layer holds: ``out[s]`` the ways ``players`` scores
    below ``goal`` sum to ``s``."""
    counts = np.ones(1, dtype=np.float64)
    for _ in range(players):
        counts = np.convolve(counts, np.ones(goal))
    return np.rint(counts).astype(np.int64)


def seat_cost(turn: BankingTurn, players: int):
    """The size of a game's table of seats (:class:`~dicelab.engine.runtime.cost.Cost`):
    its turn starts, their chances' bytes with the scratch, and the time, from the
    rules alone (the turns' totals valued, each throw's moves, about
    :data:`ROUNDS_EXPECTED` times two passes a turn start)."""
    from dicelab.engine.runtime.cost import Cost

    G, N = turn.scores, players
    starts = G**N
    moves = int((turn.offer > 0).sum() + turn.prob.size)
    totals = starts * (G + 1) / 2  # a turn start's totals: goal - a, on average
    sweeps = 15 if turn.wipe is not None else 1
    seconds = totals * moves * 2 * ROUNDS_EXPECTED * sweeps / MOVES_PER_SECOND
    scratch = 16 * (G * (turn.dice + 1) * 8 * 4 + G * turn.prob.size)
    memory = starts * N * 8 * (2 if sweeps > 1 else 1) + G ** (N - 1) * 8 + scratch
    return Cost(f"the table of {N} players' turn starts", starts, memory, seconds,
                unit="turn starts")  # fmt: skip


@dataclass(eq=False)
class SeatTable:
    """``T[s, j]``: seat ``j``'s chance to finish first (0: the mover) at turn start
    ``s`` (the scores in playing order from the mover's, in base ``goal``)."""

    turn: BankingTurn
    players: int
    T: np.ndarray
    #: the most rounds an orbit's policy iteration took, and the sweeps of the layers
    rounds: int = 0
    sweeps: int = 1
    seconds: float = 0.0
    #: the most a mover could gain by other moves in one turn, the others' as they
    #: are: 0 where every seat plays its best everywhere; else the few turn starts
    #: whose movers' best replies go round (:func:`~dicelab.engine.kernels.seats.solve_orbit`)
    regret: float = 0.0
    #: where a wipe leads back through the lower scores: how far the chances still
    #: moved when sweeps stopped finding any closer (0: they settled)
    unsettled: float = 0.0
    _work: tuple | None = field(default=None, repr=False)

    def index(self, scores: Sequence[int]) -> int:
        """The flat turn start of ``scores`` (the mover's first, then in playing order)."""
        G = self.turn.scores
        s = 0
        for x in scores:
            if not 0 <= x < G:
                raise ValueError(f"score {x}: expected 0 to {G - 1} units")
            s = s * G + int(x)
        return s

    def chances(self, scores: Sequence[int]) -> np.ndarray:
        """Each seat's chance where a turn starts with ``scores`` (the mover's first),
        in playing order from the mover."""
        return self.T[self.index(scores)].copy()

    def start_chances(self) -> np.ndarray:
        """Each seat's chance at the game's start, the first to move first."""
        return self.T[0].copy()

    def _scratch(self) -> tuple:
        if self._work is None:
            self._work = _thread_scratch(self.turn, 1)[0]
        return tuple(w[0] for w in self._work)

    def turn_chances(self, scores: Sequence[int]) -> np.ndarray:
        """``C[t, n, j]``: seat ``j``'s chance in the turn from ``scores`` with turn
        total ``t`` and ``n`` dice to throw, the mover playing its best."""
        from dicelab.engine.kernels.seats import turn_chances
        from dicelab.engine.kernels.turnstart import rows

        R = self.turn.arrays()
        out = np.zeros((rows(0, R), self.turn.dice + 1, self.players))
        turn_chances(self.index(scores), self.T, R, self.players, self._scratch(), out)
        return out

    def play(self, games: int, seed: int = 0, max_turns: int = 100_000) -> np.ndarray:
        """``games`` games played out with the dice drawn, every seat playing its best:
        the seat that won each (NaN: still going after ``max_turns`` turns). A game's
        dice depend on ``seed`` and its number only."""
        from dicelab.engine.kernels.seats import play_seat_games

        return play_seat_games(self.T, self.turn.arrays(), self.players, games, seed, max_turns)


def _thread_scratch(turn: BankingTurn, threads: int) -> tuple:
    """Each thread's tables for a turn: the mover's row of ends, the turn's values
    and slopes, the moves kept, the chance of reaching each total, the banks."""
    from dicelab.engine.kernels.turnstart import rows

    R = turn.arrays()
    tall, d = rows(0, R), turn.dice + 1
    return ((np.empty((threads, 1, turn.scores)), np.empty((threads, tall, d)),
             np.empty((threads, tall, d)), np.zeros((threads, tall, turn.prob.size), np.int8),
             np.empty((threads, tall, d)), np.empty((threads, tall))),)  # fmt: skip


def solve_seats(turn: BankingTurn, players: int, progress: Progress | None = None) -> SeatTable:
    """Every seat's chance at every turn start, layer by layer of the scores' sum
    from the largest, on this process's threads; swept again where a wipe leads to
    a lower layer, until no chance moves by more than :data:`SWEEP_TOLERANCE`."""
    import numba

    from dicelab.engine.kernels.seats import solve_seat_layer

    _check(turn, players)
    began = time.perf_counter()
    G, N, R = turn.scores, players, turn.arrays()
    threads = numba.get_num_threads()
    T = np.full((G**N, N), 1.0 / N)
    (scratch,) = _thread_scratch(turn, threads)
    orbits = (np.empty((threads, N, N)), np.empty((threads, N)), np.empty((threads, N, N)),
              np.empty((threads, N), np.int64), np.empty((threads, N)),
              np.empty((threads, N, N)))  # fmt: skip
    reps = np.empty(G ** (N - 1), np.int64)
    sizes = layer_sizes(G, N)
    tick = progress or (lambda done, planned: None)
    whole, most, sweeps, regret = int(sizes.sum()), 0, 0, 0.0
    least, stuck, unsettled = np.inf, 0, 0.0
    planned = 1 if turn.wipe is None else 2
    while True:
        before = T.copy() if turn.wipe is not None else T
        done = sweeps * whole
        for total in range(N * (G - 1), -1, -1):
            rounds, gain = solve_seat_layer(total, T, R, N, reps, scratch, orbits)
            most, regret = max(most, int(rounds)), max(regret, float(gain))
            done += int(sizes[total])
            tick(done, whole * max(planned, sweeps + 1))
        sweeps += 1
        if turn.wipe is None:
            break
        moved = float(np.abs(T - before).max())
        # where best replies go round, the moves kept can change with the lower
        # layers' last digits, moving a chance by up to about the regret: no sweep
        # settles those finer than that
        if moved <= max(SWEEP_TOLERANCE, regret):
            break
        least, stuck = (moved, 0) if moved < least else (least, stuck + 1)
        if stuck >= STUCK_SWEEPS:  # going round through the lower scores: said
            unsettled = moved
            break
        if sweeps >= MAX_SWEEPS:
            raise ArithmeticError(f"the turn starts still moved after {MAX_SWEEPS} sweeps")
        planned = sweeps + 2
    return SeatTable(turn, N, T, most, sweeps, time.perf_counter() - began, regret, unsettled)
