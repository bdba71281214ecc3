"""Pairs of strategies in the two-player game, evaluated exactly.

Each seat plays to win (the win-optimal table of :mod:`dicelab.engine.objectives.duel`) or for
points (the expected-score optimum), and a backward pass over both sheets gives
the exact chances of A winning, tying and losing for every pair at once
(:func:`evaluate_pairs`). :func:`verdicts` compares the pairs the reports show:
who is favoured, and what playing to win gains over playing for points.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dicelab.engine.kernels import Outcomes, dice_arrays, rule_arrays
from dicelab.engine.objectives.duel import DuelSpace, DuelTable, fill_terminal, layer_batch_runs
from dicelab.engine.runtime.cost import lane_seconds
from dicelab.errors import UserError
from dicelab.rules.compiled import CompiledRules

Progress = Callable[[int, int], None]

WIN = "win"
EXPECTED = "expected"


@dataclass(frozen=True)
class PairResult:
    """Exact chances of one pair of strategies: A's chance, a win plus half a tie
    (``value``), and the chance of a tie (``p_tie``, None where not asked)."""

    a: str
    b: str
    value: float
    p_tie: float | None

    @property
    def p_a(self) -> float:
        """A's chance to win outright."""
        return self.value - self._tie / 2

    @property
    def p_b(self) -> float:
        """B's chance to win outright."""
        return 1.0 - self.value - self._tie / 2

    @property
    def _tie(self) -> float:
        if self.p_tie is None:
            raise ValueError("the chance of a tie was not asked for (ties=True)")
        return self.p_tie

    def to_dict(self) -> dict:
        return {
            "a": self.a,
            "b": self.b,
            "p_a_wins": self.p_a,
            "p_tie": self.p_tie,
            "p_b_wins": self.p_b,
            "value_for_a": self.value,
        }


def expected_outcomes(game: CompiledRules, space: DuelSpace):
    """Every player state's turn outcomes under the expected-score optimum.

    Returns ``(start, prob, box, points, gain)``: the outcomes of state ``i`` are
    ``start[i]:start[i + 1]``, with their probability, box, points written and
    points gained (the extra bonus included). Ties between choices are broken as
    in :mod:`dicelab.engine.objectives.distribution`.
    """
    from dicelab.engine.objectives.distribution import OutcomeLayout
    from dicelab.engine.objectives.expected import expected_table

    n = game.n_categories
    V = expected_table(game.rules).values
    out = OutcomeLayout.of(game)
    lanes, n_lanes = out.lanes, out.n_lanes
    slot_pts, n_e, box_slots, block_slots = out.slot_pts, out.n_e, out.box_slots, out.block_slots
    lane_of = np.full((1 << n, game.n_upper), -1, dtype=np.int64)
    for m in range(1 << n):
        lane_of[m, lanes[m, : n_lanes[m]]] = np.arange(n_lanes[m])
    masks = np.arange(game.full_mask, dtype=np.int64)  # every mask but the full one
    Q, qoff = out.outcomes(game, V, masks)
    extra = int(game.rules.extra_bonus)
    starts = [0]
    prob, box, pts, gain = [], [], [], []
    for i in range(space.p_mask.size):
        m, y, u = int(space.p_mask[i]), int(space.p_y[i]), int(space.p_u[i])
        if m == game.full_mask:
            starts.append(starts[-1])
            continue
        width = int(block_slots[m])
        row = Q[qoff[m, y] + lane_of[m, u] * width : qoff[m, y] + (lane_of[m, u] + 1) * width]
        slot = 0
        for c in range(n):
            if (m >> c) & 1:
                continue
            for v in range(int(box_slots[c]) // n_e):
                for e in range(n_e):
                    p = row[slot]
                    slot += 1
                    if p > 0:
                        prob.append(p)
                        box.append(c)
                        pts.append(int(slot_pts[c, v]))
                        gain.append(int(slot_pts[c, v]) + e * extra)
        starts.append(len(prob))
    as_int = lambda x: np.array(x, dtype=np.int64)  # noqa: E731
    return as_int(starts), np.array(prob), as_int(box), as_int(pts), as_int(gain)


class PairLayers:
    """The strategy pairs' pass as windows (see :mod:`dicelab.engine.runtime.schedule`).

    A window holds, for every pair ``k``, the chance (a win plus half a tie) of the
    player who waits over one layer's values, in row ``k`` (or ``2k`` with ``ties``),
    and with ``ties`` their chance of a tie in row ``2k + 1``. The fixed table is the
    win-optimal chances, whose decisions every win-playing mover follows. A task is
    ``(layer, batches...)``.
    """

    def __init__(
        self, game: CompiledRules, space: DuelSpace, pairs: list, outcomes, width: int, dtype,
        ties: bool = True,
    ) -> None:  # fmt: skip
        self.game = game
        self.space = space
        self.pairs = pairs
        self.outcomes = outcomes
        self.width_lanes = width
        self.dtype = np.dtype(dtype)
        self.per_pair = 2 if ties else 1
        self.rows = self.per_pair * len(pairs)
        self.unit_seconds = lane_seconds(game.rules) * len(pairs)
        self.last = space.n_layers - 1
        self.total = space.n_values
        self.done = space.n_values - int(space.vstart[self.last])

    def layers(self) -> list[int]:
        return list(range(self.last - 1, -1, -1))

    def width(self, layer: int) -> int:
        return int(self.space.vstart[layer + 1] - self.space.vstart[layer])

    def start(self) -> np.ndarray:
        sp = self.space
        nbase = int(sp.vstart[self.last])
        N = np.empty((self.rows, self.width(self.last)), dtype=self.dtype)
        chance = np.empty(N.shape[1])
        fill_terminal(sp, chance, nbase)
        N[0 :: self.per_pair] = chance
        if self.per_pair == 2:
            tie = np.empty(N.shape[1])
            fill_terminal(sp, tie, nbase, tie=True)
            N[1::2] = tie
        return N

    def fixed_reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = int(self.space.vstart[layer + 1]), int(self.space.vstart[layer + 2])
        return np.array([lo], dtype=np.int64), np.array([hi - lo], dtype=np.int64)

    def tasks(self, layer: int, pieces: int | None) -> list[tuple]:
        return [
            (layer, *run) for run in layer_batch_runs(self.space, layer, self.width_lanes, pieces)
        ]

    def weight(self, task: tuple) -> int:
        return int(task[5].sum())

    def columns(self, task: tuple) -> tuple[np.ndarray, np.ndarray]:
        sp = self.space
        layer, node, x0, nl = task[0], task[3], task[4], task[5]
        return sp.off[node] - sp.vstart[layer] + x0 - sp.xlo[node], nl

    def run(
        self, fixed: np.ndarray, nxt: np.ndarray, cur: np.ndarray, layer: int, task: tuple
    ) -> None:
        from numba import get_num_threads, parallel_chunksize

        from dicelab.engine.kernels.pairs import duel_pairs_layer, pairs_buffers

        sp, g = self.space, self.game
        seat = layer % 2  # 0: A moves, 1: B moves
        follow = self._rows(lambda p: p[seat] == WIN)
        conv = self._rows(lambda p: p[seat] != WIN)
        R, D = rule_arrays(g), dice_arrays(g)
        # a few hundred KiB a thread, zeroed outside the parallel loop
        n_rows, n_conv = follow[0].size + 1, conv[0].size
        bufs = pairs_buffers(get_num_threads(), self.width_lanes, n_rows, n_conv, R, D)
        with parallel_chunksize(1):
            duel_pairs_layer(
                task[1:],
                follow,
                conv,
                fixed,
                sp.leads(),
                (nxt, int(sp.vstart[layer + 1]), cur, int(sp.vstart[layer])),
                Outcomes(*self.outcomes),
                sp.players,
                R,
                D,
                bufs,
            )

    def _rows(self, which) -> tuple[np.ndarray, np.ndarray]:
        """The rows of the pairs ``which`` picks, and whether each is a chance (1.0:
        a certain win above the undecided leads) or a tie (0.0)."""
        rows, chance = [], []
        for k, pair in enumerate(self.pairs):
            if which(pair):
                rows += [self.per_pair * k + t for t in range(self.per_pair)]
                chance += [1.0, 0.0][: self.per_pair]
        return np.array(rows, np.int64), np.array(chance)


def layer_dtype(space: DuelSpace, n_pairs: int) -> type:
    """How :func:`evaluate_pairs` stores ``n_pairs`` pairs' two layers of win and tie
    chances: float64 where they take at most 1 GiB, float32 past it."""
    widest = int(np.diff(space.vstart).max())
    return np.float64 if 2 * 2 * n_pairs * widest * 8 <= 2**30 else np.float32


def evaluate_pairs(
    table: DuelTable,
    pairs: list[tuple[str, str]],
    width: int = 64,
    outcomes=None,
    dtype: type | None = None,
    progress: Progress | None = None,
    runner=None,
    ties: bool = True,
) -> dict[tuple[str, str], PairResult]:
    """Exact chances when seat A plays one strategy and seat B another.

    A strategy is :data:`WIN` (the win-optimal play of ``table``) or
    :data:`EXPECTED` (the expected-score optimum). All ``pairs`` are evaluated in
    one pass backwards over the layers, as the solve goes, holding two layers of
    win and tie chances per pair. Where the mover plays to win, every pair's
    chances follow the table's decisions through one shared keep recursion;
    where they play for the expected score, their turn's outcomes are fixed.
    ``dtype`` stores those layers (float64 by default, float32 where float64
    layers would take more than 1 GiB: then chances are good to about 1e-6).
    ``runner`` says where the layers run (see :mod:`dicelab.engine.runtime.schedule`).
    Without ``ties``, only each pair's chance (a win plus half a tie) is carried,
    in fewer rows: a third less work where one pair follows the table, and the
    same chance to the last bit.
    """
    from dicelab.engine.runtime.schedule import run_windows

    pairs = [(a, b) for a, b in pairs]
    for pair in pairs:
        for s in pair:
            if s not in (WIN, EXPECTED):
                raise UserError(f"strategy: got {s!r}, expected {WIN!r} or {EXPECTED!r}")
    game, space = table.game, table.space
    if dtype is None:
        dtype = layer_dtype(space, len(pairs))
    if outcomes is None and any(EXPECTED in p for p in pairs):
        outcomes = expected_outcomes(game, space)
    if outcomes is None:
        none = np.zeros(1, dtype=np.int64)
        outcomes = (np.zeros(space.p_mask.size + 1, np.int64), np.zeros(1), none, none, none)
    T = np.asarray(table.values, dtype=np.float64)
    solve = PairLayers(game, space, pairs, outcomes, width, dtype, ties)
    N = run_windows(solve, T, progress, runner)
    out = {}
    for k, (a, b) in enumerate(pairs):
        lead, row = 0, solve.per_pair * k  # B's lead at the start, and B's row
        if space.xlo[0] <= lead <= space.xhi[0]:
            value_b = float(N[row, lead - space.xlo[0]])
            p_tie = float(N[row + 1, lead - space.xlo[0]]) if ties else None
        else:  # decided before a die is thrown
            value_b, p_tie = (1.0 if lead > space.uhi[0] else 0.0), 0.0 if ties else None
        out[a, b] = PairResult(a, b, 1.0 - value_b, p_tie)
    return out


def evaluate_pair(table: DuelTable, a: str, b: str, **kwargs) -> PairResult:
    """:func:`evaluate_pairs` for one pair."""
    return evaluate_pairs(table, [(a, b)], **kwargs)[a, b]


#: Name of the row layout in cached tables: a change of layout must not read old files.
#: The pairs the verdicts compare (seat A's strategy, seat B's).
VERDICT_PAIRS = [(WIN, WIN), (WIN, EXPECTED), (EXPECTED, WIN)]


def _pair_key(a: str, b: str) -> str:
    return f"{a}-{b}"


def verdicts(table: DuelTable, progress: Progress | None = None, runner=None) -> dict:
    """The comparisons of strategies that ``dicelab duel`` reports, as plain data.

    Win against win, win against expected in both seats and expected against
    expected, each with A's chances to win and tie and B's to win. The last is
    also taken from the two players' score distributions, and checked to be a
    fair game: a check of the pairing code.
    """
    from dicelab.engine.objectives.distribution import score_distribution

    start = time.perf_counter()
    outcomes = expected_outcomes(table.game, table.space)
    n = table.space.n_values

    def part(offset: int):
        if progress is None:
            return None
        return lambda done, total: progress(offset + done, 2 * n)

    res = evaluate_pairs(table, VERDICT_PAIRS, outcomes=outcomes, progress=part(0), runner=runner)
    res |= evaluate_pairs(
        table, [(EXPECTED, EXPECTED)], outcomes=outcomes, progress=part(n), runner=runner
    )
    pmf = score_distribution(table.rules).pmf
    below = np.concatenate([[0.0], np.cumsum(pmf)[:-1]])
    fair = res[EXPECTED, EXPECTED]
    value = table.start_value
    return {
        "start_value": value,
        "pairs": {_pair_key(a, b): r.to_dict() for (a, b), r in res.items()},
        "from_distributions": {
            "p_a_wins": float(np.dot(pmf, below)),
            "p_tie": float(np.dot(pmf, pmf)),
        },
        "checks": {
            "fair_pair_value_minus_half": fair.value - 0.5,
            "win_pair_value_minus_table": res[WIN, WIN].value - value,
        },
        "compare_seconds": round(time.perf_counter() - start, 3),
    }
