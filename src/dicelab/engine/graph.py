"""The solver of game graphs with chance: best values, a best choice, exact policy values.

Any finite game of dice and decisions, once its positions are laid out as a
:class:`Graph` (:mod:`dicelab.games.chance` does that from a game's rules), is
solved here: :func:`solve_graph` finds the best value of every position and a best
move at every decision, and values that choice exactly (see
:mod:`dicelab.engine.kernels.graph`); :func:`evaluate` values any other fixed
choice, a plain strategy such as Pig's "hold at 20" or one player's strategy
against another's. The arrays are all it reads: it knows nothing of dice or
boards. A game with alike seats may hold each position once, from the mover's
side: an edge to ``-w - 1`` reads node ``w`` as the other player sees it
(``1 - values[w]``; :func:`seen`).

>>> import numpy as np
>>> # a coin flipped until heads: each flip costs one, heads ends the game
>>> g = Graph(kind=np.array([CHANCE, END], np.int8), start=np.array([0, 2, 2]),
...           to=np.array([0, 1]), prob=np.array([0.5, 0.5]),
...           payoff=np.zeros(2), reward=np.array([1.0, 0.0]))
>>> float(solve_graph(g).values[0])  # the expected number of flips
2.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dicelab.engine import small_graph
from dicelab.engine.kernels.kinds import CHANCE, END, MAX, MIN

__all__ = ["CHANCE", "END", "MAX", "MIN", "Graph", "GraphSolution", "Progress", "evaluate", "seen",
           "solve_graph"]  # fmt: skip

#: Sweeps stop once none changes a value by more than this.
TOLERANCE = 1e-15
#: Policy iteration sweeps a large component only to this while the choice still
#: changes (a choice is compared within ten times it), then once to rounding.
ROUGH = 1e-9
#: The first sweeps stop here: policy iteration finishes the work, far faster.
LOOSE = 1e-3
#: A component still moving after this many sweeps is reported, not hidden.
MAX_SWEEPS = 100_000
#: Rounds of policy iteration before value iteration takes over.
MAX_ROUNDS = 100


@dataclass(frozen=True)
class Graph:
    """Every reachable position of a game, as arrays (node 0 is the start).

    ``kind[v]`` is :data:`MAX`, :data:`MIN`, :data:`CHANCE` or :data:`END`; the
    edges of node ``v`` are ``start[v]:start[v + 1]`` of ``to`` and ``prob``
    (chances, at chance nodes); ``payoff`` is an end node's value and ``reward``
    what a node adds on the way through.
    """

    kind: np.ndarray
    start: np.ndarray
    to: np.ndarray
    prob: np.ndarray
    payoff: np.ndarray
    reward: np.ndarray

    @property
    def nodes(self) -> int:
        """How many positions."""
        return int(self.kind.size)

    @property
    def edges(self) -> int:
        """How many moves and outcomes, all together."""
        return int(self.to.size)

    def with_payoff(self, payoff: np.ndarray, reward: np.ndarray | None = None) -> Graph:
        """The same positions valued otherwise (a target reached, a draw)."""
        return Graph(self.kind, self.start, self.to, self.prob, payoff,
                     self.reward if reward is None else reward)  # fmt: skip

    def flipped(self) -> Graph:
        """The same game with every decision minimising instead of maximising."""
        kind = self.kind.copy()
        decide = (kind == MAX) | (kind == MIN)
        kind[decide] = MAX + MIN - kind[decide]
        return Graph(kind, self.start, self.to, self.prob, self.payoff, self.reward)


@dataclass(frozen=True)
class GraphSolution:
    """What :func:`solve_graph` found.

    ``values`` are exact values of the ``choice`` (each decision's best edge, -1 at
    other nodes); ``residual`` is the largest gain any single move would still
    bring at any position (0 up to rounding: no move improves on the choice, so it
    is optimal); ``cyclic`` counts the components whose positions come back,
    ``sweeps`` the most sweeps one of them took, ``rounds`` the exact valuations.
    """

    values: np.ndarray
    choice: np.ndarray
    residual: float
    cyclic: int
    sweeps: int
    rounds: int
    iterated: np.ndarray = field(repr=False)


#: A :func:`solve_graph` progress callback: ``progress(done, planned)`` in passes
#: over the graph's links (a component pass, a sweep, an exact valuation: about
#: the same time each), so a bar over them keeps a fair time estimate.
Progress = Callable[[int, int], None]

#: Passes planned for a graph whose positions come back, before the rounds are known.
_PLANNED_ROUNDS = 5
_PASSES_PER_ROUND = 4


def solve_graph(graph: Graph, *, tol: float = TOLERANCE,
                progress: Progress | None = None) -> GraphSolution:  # fmt: skip
    """Best values and a best choice at every position of ``graph``.

    Value iteration over strong components, to a loose tolerance, gives a first
    choice; then policy iteration: the choice is valued exactly (a linear solve per
    component) and every decision switched to a better move, until none is better
    by more than ``tol``. Should the switching not settle (two players can, in
    principle, chase each other), value iteration goes on to ``tol`` instead.
    Where no position comes back, the first pass backwards through the components
    is backward induction, exact as it stands. ``progress(done, planned)`` hears of
    each pass over the graph.
    """
    tick = progress or (lambda done, planned: None)
    g = graph
    if small_graph.fits(g):
        tick(0, 1)
        small = small_graph.solve(g, tol)
        if small is not None:
            tick(1, 1)
            return GraphSolution(*small)
    from dicelab.engine.kernels.graph import improve, strong_components, value_iteration

    alive = np.ones(g.nodes, np.bool_)
    planned = 3
    tick(0, planned)
    order, comp_start = strong_components(g.start, g.to, alive)  # edges to -w - 1 read w
    tick(1, planned)
    iterated = np.zeros(g.nodes)
    parts = (g.kind, g.start, g.to, g.prob, g.payoff, g.reward, order, comp_start)
    _, choice, stats = value_iteration(*parts, LOOSE, MAX_SWEEPS, iterated)
    if stats[0] == 0:  # no position comes back: one pass backwards was exact already
        tick(2, planned)
        gain = improve(g.kind, g.start, g.to, iterated, choice.copy(), tol)[1]
        tick(3, planned)
        return GraphSolution(iterated, choice, float(gain), 0, 0, 0, iterated)
    planned = 2 + _PASSES_PER_ROUND * _PLANNED_ROUNDS
    tick(2, planned)
    rounds = 0
    sweep_tol = ROUGH  # large components are swept only roughly while the choice moves
    guess = iterated
    while True:
        values, swept = _evaluate(g, choice, guess, sweep_tol)
        guess = values
        rough = swept > 0 and sweep_tol > tol
        switched, gain = improve(g.kind, g.start, g.to, values, choice,
                                 max(tol, 10 * sweep_tol) if rough else tol)  # fmt: skip
        rounds += 1
        if switched == 0 and rough:  # settled on rough values: once more, to rounding
            sweep_tol = tol
            switched = 1
        planned = max(planned, 2 + _PASSES_PER_ROUND * (rounds + (switched > 0)))
        done = 2 + _PASSES_PER_ROUND * rounds
        tick(done, planned if switched else done)
        if switched == 0:
            break
        if rounds == MAX_ROUNDS:
            iterated = values.copy()
            _, choice, stats = value_iteration(*parts, tol, MAX_SWEEPS, iterated)
            values = evaluate(g, choice, iterated)
            gain = improve(g.kind, g.start, g.to, values, choice.copy(), tol)[1]
            break
    return GraphSolution(values, choice, float(gain), int(stats[0]), int(stats[1]), rounds,
                         iterated)  # fmt: skip


def evaluate(graph: Graph, choice: np.ndarray, guess: np.ndarray | None = None) -> np.ndarray:
    """Exact values of a fixed ``choice`` (one edge index per decision node).

    Components too large for a dense solve are swept to rounding instead, starting
    from ``guess`` (values near the answer: the last ones, if any). Raises
    ``ValueError`` where the choice can go round forever without a throw.
    """
    return _evaluate(graph, choice, guess, TOLERANCE)[0]


def _evaluate(graph: Graph, choice, guess, tol: float) -> tuple[np.ndarray, int]:
    """:func:`evaluate`, large components swept to ``tol``; and how many were swept."""
    g = graph
    choice = np.asarray(choice, np.int64)
    decide = (g.kind == MAX) | (g.kind == MIN)
    first, last = g.start[:-1], g.start[1:]
    bad = decide & ((choice < first) | (choice >= last))
    if bad.any():
        raise ValueError(f"position {int(np.argmax(bad))}: the choice is not one of its moves")
    if small_graph.fits(g):
        values = small_graph.evaluate(g, choice)
        if values is not None:
            return values, 0
    from dicelab.engine.kernels.graph import policy_values

    start = np.zeros(g.nodes) if guess is None else guess
    values, swept = policy_values(g.kind, g.start, g.to, g.prob, g.payoff, g.reward, choice,
                                  start, tol)  # fmt: skip
    return values, int(swept)


def move_values(graph: Graph, values: np.ndarray, node: int) -> np.ndarray:
    """The value after each move of decision ``node`` (its reward included)."""
    a, b = graph.start[node], graph.start[node + 1]
    return graph.reward[node] + seen(values, graph.to[a:b])


def seen(values: np.ndarray, targets) -> np.ndarray:
    """The values edges to ``targets`` carry: ``values[w]``, or ``1 - values[w]`` for
    a target ``-w - 1`` (node ``w`` seen by the other player)."""
    targets = np.asarray(targets, np.int64)
    nodes = np.where(targets >= 0, targets, -targets - 1)
    return np.where(targets >= 0, values[nodes], 1.0 - values[nodes])
