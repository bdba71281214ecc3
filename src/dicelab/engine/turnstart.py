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

__all__ = ["BankingTurn", "PairLayers", "TurnStartTable", "solve_turn_starts"]

#: Each count of dice's throws: ``(chance, offer)`` pairs.
Outcomes = dict[int, list[tuple[float, tuple[int, ...]]]]
#: ``progress(done, planned)``: layers of the solve.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class BankingTurn:
    """The rules of a banking turn as arrays (see :mod:`dicelab.engine.kernels.turnstart`):
    points in whole units, ``goal`` the score that wins, ``dice`` thrown at a turn's
    start and on hot dice, ``min_bank`` the least total that may be banked; ``wipe[n]``
    the chance that ``n`` dice lose the mover's whole score.

    The farkle penalty: ``penalty`` units lost on the ``counts``-th farkle in a row
    (the count then starts again; a bank starts it again too), a banked score never
    below ``floor`` (0 or less); ``goal_by_bank``: a turn total reaches the goal only
    where it may be banked (``min_bank`` or more).
    """

    goal: int
    dice: int
    min_bank: int
    out_start: np.ndarray
    prob: np.ndarray
    offer: np.ndarray
    best: np.ndarray
    farkle: np.ndarray
    wipe: np.ndarray | None = None
    counts: int = 1
    penalty: int = 0
    floor: int = 0
    goal_by_bank: bool = False

    def arrays(self):
        """The bundle every kernel reads (:class:`~dicelab.engine.kernels.turnstart.TurnArrays`),
        made once."""
        found = self.__dict__.get("_arrays")
        if found is None:
            from dicelab.engine.kernels.turnstart import TurnArrays

            wipe = self.wipe if self.wipe is not None else np.zeros_like(self.farkle)
            count = (self.offer > 0).sum(axis=1)
            keeps = np.zeros_like(self.offer)
            for j in range(self.offer.shape[0]):
                keeps[j, : count[j]] = np.flatnonzero(self.offer[j])
            min_win = self.min_bank if self.goal_by_bank else 0
            found = TurnArrays(self.goal - self.floor, self.dice, self.min_bank, self.counts,
                               self.penalty, min_win, -self.floor, self.out_start, self.prob,
                               self.offer, self.best, self.farkle, wipe, keeps, count)  # fmt: skip
            object.__setattr__(self, "_arrays", found)
        return found

    @property
    def scores(self) -> int:
        """The scores a banked score can be, from ``floor`` to below the goal."""
        return self.goal - self.floor

    @property
    def by_pairs(self) -> bool:
        """Whether a farkle only joins ``(a, b)`` to ``(b, a)`` (no penalty, nothing
        counted): each such pair is then solved exactly on its own."""
        return self.counts == 1 and self.penalty == 0

    @property
    def sweeps(self) -> bool:
        """Whether a throw can lead to a lower layer (a wipe, a penalty): the layers
        are then swept again until no value moves."""
        return (self.wipe is not None and bool(self.wipe.any())) or not self.by_pairs

    def state(self, score: int, farkles: int = 0) -> int:
        """A player's row (or column) of the table: its score and farkles in a row."""
        return (score - self.floor) * self.counts + farkles

    @classmethod
    def from_outcomes(cls, goal: int, dice: int, min_bank: int, outcomes: Outcomes,
                      wipes: dict[int, float] | None = None, **penalty) -> BankingTurn:  # fmt: skip
        """From each count of dice's throws: ``(chance, offer)`` pairs, ``offer[k - 1]``
        the most units ``k`` dice set aside score (all 0: a farkle); ``wipes[n]``: the
        chance that ``n`` dice lose the whole score; ``penalty``: the farkle penalty's
        fields (``counts``, ``penalty``, ``floor``, ``goal_by_bank``). Throws that
        offer the same are merged."""
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
                   farkle, wipe if wipe.any() else None, **penalty)  # fmt: skip


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
        return self.value(0, 0)

    def value(self, mine: int, other: int, mine_farkles: int = 0, other_farkles: int = 0) -> float:
        """The mover's chance where a turn starts (scores and farkles in a row)."""
        t = self.turn
        return float(self.W[t.state(mine, mine_farkles), t.state(other, other_farkles)])

    def turn_values(self, mine: int, other: int, mine_farkles: int = 0,
                    other_farkles: int = 0) -> np.ndarray:  # fmt: skip
        """``V[t, n]``: the mover's chance with turn total ``t`` and ``n`` dice to
        throw, scores ``mine`` and ``other`` and the farkles in a row (totals from 0
        to where the goal is reached)."""
        from dicelab.engine.kernels.turnstart import farkle_value, rows, turn_table

        t, R = self.turn, self.turn.arrays()
        a, b = mine - t.floor, t.state(other, other_farkles)
        V, S = np.empty((2, rows(0, R), t.dice + 1))
        turn_table(a, b, farkle_value(a, mine_farkles, b, self.W, R), self.W, R, V, S)
        return V

    def play(self, games: int, seed: int = 0, max_turns: int = 100_000) -> np.ndarray:
        """``games`` games played out with the dice drawn and best play by both: 1 where
        the first player wins, 0 where the second does (NaN: still going after
        ``max_turns`` turns). A game's dice depend on ``seed`` and its number only."""
        from dicelab.engine.kernels.turnstart import play_games

        return play_games(self.W, self.turn.arrays(), games, seed, max_turns)


#: Moves weighed a second on 2 cores (each keep or bank of each throw, at each turn
#: total, in each turn worked out), somewhat low, so that an estimate is within a
#: factor of 2 of the time taken: by pairs of turn starts, Farkle to 10,000 (24 s
#: estimated) took 15 to 16 s, to 5,000 (3 s) 2 s, two-dice Pig (0.8 s) 1.1 s; a game
#: that counts farkles, at :data:`COUNTED_MOVES_PER_SECOND`, Busche's rules (12 min)
#: took 14 min.
MOVES_PER_SECOND = 1.4e9
COUNTED_MOVES_PER_SECOND = 8e8
#: Turns worked out a turn start: Newton's steps of a pair (two turns a step), or
#: the sweeps that work every turn out in a game that counts farkles (with where
#: each turn ends); times the sweeps of a game with a wipe (two-dice Pig: 14).
TURNS_PER_START = 8
WIPE_SWEEPS = 15


def turn_cost(turn: BankingTurn):
    """The size of the table of a banking game's turn starts
    (:class:`~dicelab.engine.runtime.cost.Cost`): its values, their bytes with a
    turn's scratch per thread, and the time to solve them, known before it starts."""
    from dicelab.engine.runtime.cost import Cost

    G, C = turn.scores, turn.counts
    totals = int(layer_work(G, np.arange(2 * G - 1)).sum()) * C * C
    moves = int((turn.offer > 0).sum() + turn.prob.size)  # a turn total's, every throw
    sweeps = WIPE_SWEEPS if turn.wipe is not None else 1
    rate = MOVES_PER_SECOND if turn.by_pairs else COUNTED_MOVES_PER_SECOND
    seconds = totals * moves * TURNS_PER_START * sweeps / rate
    values = (G * C) ** 2
    scratch = 4 * (G + turn.min_bank) * (turn.dice + 1) * 8 * 16
    rows = totals * 8 if not turn.by_pairs else 0  # the kept moves' ends (the penalty)
    return Cost("the table of turn starts", values, values * 24 + scratch + rows, seconds,
                unit="turn starts")  # fmt: skip


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
SWEEP_TOLERANCE = 1e-14
MAX_SWEEPS = 2_000


def _pairs(total: int, goal: int) -> tuple[int, int]:
    """The lowest mover's score of the pairs ``a <= b`` summing to ``total``, and
    their count."""
    lo = max(0, total - goal + 1)
    return lo, max(total // 2 - lo + 1, 0)


@dataclass(eq=False)
class PairLayers:
    """The pairs of turn starts as a runner's layers
    (:class:`~dicelab.engine.runtime.schedule.LayeredSolve`): the layers of ``a + b``
    from the largest, each cut into runs of pairs ``(a, b)``, ``(b, a)``, over the
    flat table ``W`` of ``scores * scores`` values. A pair reads only the rows of its
    two scores (where the other moves after a bank, a farkle or a wipe), so a
    cluster's task is sent two runs of rows and returns two values a pair.
    ``again``: a sweep after the first (the table holds the sweep before's values)."""

    turn: BankingTurn
    again: bool = False
    #: progress units done before the first layer (none)
    done: int = 0

    def __post_init__(self) -> None:
        G = self.turn.scores
        self.size, self.dtype = G * G, np.dtype(np.float64)
        self.total = int(layer_work(G, np.arange(2 * G - 1)).sum())
        moves = int((self.turn.offer > 0).sum() + self.turn.prob.size)
        self.unit_seconds = moves * TURNS_PER_START / (MOVES_PER_SECOND / 2)
        #: the most Newton steps a pair took in this process (a cluster's are not seen)
        self.most = 0

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_scratch"}

    def layers(self) -> list[int]:
        return list(range(2 * self.turn.scores - 2, -1, -1))

    def start(self, table: np.ndarray) -> None:
        if not self.again:
            table[:] = 0.0

    def _scores(self, task) -> tuple[np.ndarray, np.ndarray]:
        total, first, last = task
        a = _pairs(total, self.turn.scores)[0] + np.arange(first, last, dtype=np.int64)
        return a, total - a

    def tasks(self, layer: int, pieces: int | None) -> list:
        count = _pairs(layer, self.turn.scores)[1]
        if count == 0:
            return []
        if pieces is None:
            return [(layer, 0, count)]
        from dicelab.engine.runtime.schedule import pieces_of

        G = self.turn.scores
        a, b = self._scores((layer, 0, count))
        weights = (G - a) + np.where(a != b, G - b, 0)
        return [(layer, lo, hi) for lo, hi in pieces_of(weights, pieces)]

    def weight(self, task) -> int:
        G = self.turn.scores
        a, b = self._scores(task)
        return int(((G - a) + np.where(a != b, G - b, 0)).sum())

    def run(self, table: np.ndarray, task) -> None:
        import numba

        from dicelab.engine.kernels.turnstart import MAX_STEPS, rows, solve_layer

        R, G = self.turn.arrays(), self.turn.scores
        scratch = self.__dict__.get("_scratch")
        threads = numba.get_num_threads()
        if scratch is None or scratch.shape[1] < threads:
            scratch = np.empty((2, threads, rows(0, R), self.turn.dice + 1))
            self.__dict__["_scratch"] = scratch
        total, first, last = task
        most = int(solve_layer(total, first, last, table.reshape(G, G), R, self.again, scratch))
        if most > MAX_STEPS:
            raise ArithmeticError(f"the turn starts did not settle in {MAX_STEPS} steps")
        self.most = max(self.most, most)

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        G = self.turn.scores
        lo, _ = _pairs(layer, G)
        top = min(layer, G - 1)
        return np.array([lo * G], np.int64), np.array([(top - lo + 1) * G], np.int64)

    def writes(self, task) -> tuple[np.ndarray, np.ndarray]:
        G = self.turn.scores
        a, b = self._scores(task)
        starts = np.concatenate([a * G + b, (b * G + a)[a != b]])
        return starts, np.ones_like(starts)

    def task_reads(self, task) -> tuple[np.ndarray, np.ndarray]:
        G = self.turn.scores
        a, b = self._scores(task)
        if a.size == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        runs = sorted([(int(a[0]), int(a[-1])), (int(b[-1]), int(b[0]))])
        if runs[1][0] <= runs[0][1] + 1:  # the two runs of rows meet: one
            runs = [(runs[0][0], max(runs[0][1], runs[1][1]))]
        return (np.array([lo * G for lo, _ in runs], np.int64),
                np.array([(hi - lo + 1) * G for lo, hi in runs], np.int64))  # fmt: skip


def solve_turn_starts(turn: BankingTurn, progress: Progress | None = None, runner=None,
                      store=None) -> TurnStartTable:  # fmt: skip
    """Every ``W[a, b]``, layer by layer of ``a + b`` from the largest, on ``runner``
    (:mod:`dicelab.engine.runtime.schedule`: this process's threads by default, or a
    Dask cluster's workers) with the table in memory or, with ``store``, in a file in
    that folder; where a throw can lose the whole score (a wipe: a lower layer's
    value), the layers are swept again with the values of the sweep before until
    none moves (Gauss-Seidel). A game that counts farkles in a row is solved by
    :func:`_solve_counted`, on this process's threads.

    The progress counts the turn totals valued, the sweeps still to come estimated
    from the last two.
    """
    import time

    from dicelab.engine.runtime.schedule import LocalRunner, new_table

    G = turn.scores
    tick = progress or (lambda done, planned: None)
    began = time.perf_counter()
    side = G * turn.counts
    W = new_table(side * side, np.float64, store, "turn-starts").reshape(side, side)
    if not turn.by_pairs:
        if runner is not None and not getattr(runner, "in_process", False):
            from dicelab.errors import UserError

            raise UserError("--workers/--cluster: a game that counts farkles in a row (the "
                            "penalty) is solved on this machine's threads; leave both "
                            "out")  # fmt: skip
        W[:] = 0.0
        sums = np.arange(2 * G - 2, -1, -1)
        work = np.cumsum(layer_work(G, sums) * turn.counts**2)
        sweeps = _solve_counted(turn, W, sums, work, tick)
        return TurnStartTable(turn, W, 0, time.perf_counter() - began, sweeps)
    layers, run = PairLayers(turn), runner or LocalRunner()
    sweeps, planned = 0, 1
    steps: list[np.ndarray] = []
    while True:
        before = W.copy() if turn.sweeps else W
        layers.again, base = sweeps > 0, sweeps * layers.total
        whole = layers.total * max(planned, sweeps + 1)

        def said(done: int, _: int, b: int = base, w: int = whole) -> None:
            tick(b + done, w)

        run.run(layers, W.reshape(-1), said)
        sweeps += 1
        if not turn.sweeps:
            break
        steps = [*steps[-1:], W - before]
        moved = float(np.abs(steps[-1]).max())
        if moved <= SWEEP_TOLERANCE:
            break
        if sweeps >= MAX_SWEEPS:
            raise ArithmeticError(f"the turn starts still moved after {MAX_SWEEPS} sweeps")
        planned = sweeps + _sweeps_left(steps, moved)
    return TurnStartTable(turn, W, layers.most, time.perf_counter() - began, sweeps)


#: Sweeps that work every turn out afresh, at most, in a game that counts farkles.
MAX_ROUNDS = 50
#: Sweeps of a game that counts farkles expected to find its best moves: for the bar.
ROUNDS_EXPECTED = 4
#: Sweeps of the kept moves between two that work the turns out, at most: early
#: moves may never bank from some scores, and values under them settle slowly.
KEPT_SWEEPS = 40


def _solve_counted(turn: BankingTurn, W: np.ndarray, sums, work, tick) -> int:
    """A game that counts farkles in a row (the penalty), by modified policy
    iteration; returns the sweeps that worked every turn out.

    A penalty leads ten layers down, so sweeps of the turns settle slowly (by about
    a factor of 5 a sweep). Each sweep that works every turn out
    (:func:`~dicelab.engine.kernels.turnstart.solve_counts_layer`) also keeps, for
    each turn start, where its turn ends under the moves it found: the chance of
    each bank, of the goal, of a farkle. Sweeps that value those moves as kept
    (:func:`~dicelab.engine.kernels.turnstart.evaluate_counts_layer`, a fraction of
    a second each) then settle the values until none moves; a sweep that works the
    turns out again finds better moves, or, moving no value by more than
    :data:`SWEEP_TOLERANCE`, shows the values are the best play's.
    """
    import numba

    from dicelab.engine.kernels.turnstart import evaluate_counts_layer, rows, solve_counts_layer

    R, threads = turn.arrays(), numba.get_num_threads()
    if turn.wipe is not None:
        raise ValueError("a turn that counts farkles has no wipe")
    tall = rows(0, R)
    scratch = (np.empty((threads, tall, turn.dice + 1)), np.empty((threads, tall, turn.dice + 1)),
               np.zeros((threads, tall, turn.prob.size), np.int8),
               np.empty((threads, tall, turn.dice + 1)))  # fmt: skip
    side = W.shape[1]
    block = np.array([turn.counts * side * rows(a, R) for a in range(turn.scores)], np.int64)
    base = np.concatenate([[0], np.cumsum(block)[:-1]]).astype(np.int64)
    policy = (np.zeros(int(block.sum())), base, np.zeros_like(W), np.zeros_like(W))
    planned = ROUNDS_EXPECTED
    for rounds in range(1, MAX_ROUNDS + 1):
        moved = 0.0
        for i, total in enumerate(sums):
            moved = max(moved, float(solve_counts_layer(total, W, R, scratch, policy)))
            planned = max(planned, rounds)
            tick(int(work[i]) + (rounds - 1) * int(work[-1]), int(work[-1]) * planned)
        if moved <= SWEEP_TOLERANCE:
            return rounds
        for _ in range(KEPT_SWEEPS):
            if max(float(evaluate_counts_layer(t, W, R, policy)) for t in sums) <= SWEEP_TOLERANCE:
                break
    raise ArithmeticError(f"the turn starts' best moves still changed after {MAX_ROUNDS} sweeps")


def _ratio(steps: list[np.ndarray]) -> float | None:
    """How much the last sweep moved the values against the one before (their
    largest moves), or ``None`` before two sweeps."""
    if len(steps) < 2:
        return None
    first = float(np.abs(steps[0]).max())
    return float(np.abs(steps[1]).max()) / first if first > 0 else None


def _sweeps_left(steps: list[np.ndarray], moved: float) -> int:
    """The sweeps still to come, at the rate the last two fell (a guess for the bar)."""
    r = _ratio(steps)
    if r is None or not 0 < r < 1:
        return 2
    return 1 + int(np.ceil(np.log(SWEEP_TOLERANCE / moved) / np.log(r)))
