"""A solved dice game: values, every move ranked, strategies priced.

:func:`solve` lays the game out once (:func:`~dicelab.games.chance.explore.explore`),
solves it for an objective (:func:`dicelab.engine.graph.solve_graph`) and returns
a :class:`ChanceSolution`, which answers for any position: its value, each move's
value and cost against the best (:meth:`ChanceSolution.advise`), and the exact
value of a fixed strategy, alone or against another (:meth:`ChanceSolution.price`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

import numpy as np

from dicelab.engine import graph as solver
from dicelab.engine import registry
from dicelab.errors import UserError
from dicelab.games.chance import saved
from dicelab.games.chance.explore import DEFAULT_LIMIT, Layout, explore
from dicelab.games.chance.model import CHANCE, FIRST, ChanceGame, Move

__all__ = ["OBJECTIVES", "ChanceSolution", "Move", "solve"]

#: What a game can be solved for (declared in
#: :data:`dicelab.engine.registry.GAME_OBJECTIVES`): ``win`` (two players: the first
#: player's chance, a draw counting half), ``points`` (one player: best expected
#: points), ``target`` (one player: best chance of a result at least ``target``, at
#: most for a cost), ``turns`` (one player: fewest expected turns).
OBJECTIVES = tuple(registry.GAME_OBJECTIVES)

#: A strategy: the label of the move it plays at a position, given the moves there.
Strategy = Callable[[Any, list[str]], str]


@dataclass(eq=False, repr=False)
class ChanceSolution:
    """A game solved for one objective (see :func:`solve`): its positions (``layout``),
    the graph solved for the objective, and what the solver found (``solved``)."""

    layout: Layout
    objective: str
    target: float | None
    graph: solver.Graph
    solved: solver.GraphSolution
    #: the cache file the solution was read from (``None``: solved in this call)
    cached: str | None = None

    @property
    def game(self) -> ChanceGame:
        return self.layout.game

    def __len__(self) -> int:
        return len(self.layout)

    @property
    def values(self) -> np.ndarray:
        """Every position's value, in the layout's order (the first player's view)."""
        return self.solved.values

    def value(self, position: Hashable | None = None) -> float:
        """The value of ``position`` (the start by default), for the first player."""
        v = 0 if position is None else self.layout.node(position)
        return float(solver.seen(self.solved.values, [v])[0])

    def draw(self, position: Hashable | None = None) -> float:
        """The chance of a draw from ``position`` when both play as solved."""
        v = 0 if position is None else self.layout.node(position)
        if self.layout.mirrored:  # seats alike, one winner: no draw
            return 0.0
        drawn = solver.evaluate(self.layout.graph("draw"), self.solved.choice)
        return float(drawn[v])

    def seat_view(self, value: float, seat: int) -> float:
        """A first-player value as ``seat`` sees it (two players: 1 - value)."""
        return value if seat == FIRST or self.game.players == 1 else 1.0 - value

    def advise(self, position: Hashable | None = None) -> list[Move]:
        """Every move at ``position``, best first, each with its cost against the best.

        Values are for the player to move (their chance to win, or the points, or
        the turns still to come); an error at a throw of the dice or at the end.
        """
        here = self.game.start() if position is None else position
        v = self.layout.node(here)
        u = v if v >= 0 else -v - 1  # a mirrored node: the other seat moves
        seat = int(self.layout.mover[u])
        if seat < 0:
            what = "the dice decide" if seat == CHANCE else "the game is over"
            raise UserError(f"{self.game.show(here)}: no move to choose, {what}")
        seat = seat if v >= 0 else 1 - seat
        g = self.graph
        edges = self.move_edges(v, here)
        after = g.reward[u] + solver.seen(self.solved.values, g.to[[e for _, _, e in edges]])
        low = g.kind[u] == solver.MIN
        mine = [float(x) if v < 0 else self.seat_view(float(x), seat) for x in after]
        best = max(mine) if not low or seat != FIRST else min(mine)
        moves = [
            Move(label, after_position, x, abs(best - x))
            for (label, after_position, _), x in zip(edges, mine, strict=True)
        ]
        return sorted(moves, key=lambda m: m.cost)

    def move_edges(self, v: int, here: Hashable) -> list[tuple[str, Hashable, int]]:
        """The game's moves at node ``v`` (position ``here``), each with its edge in
        the graph: found by the node it leads to, whatever order the layout chose
        (at a mirrored node ``-u - 1``, the edges of ``u`` lead to mirrors)."""
        g, lay = self.graph, self.layout
        u = v if v >= 0 else -v - 1
        first = int(g.start[u])
        targets = [int(w) for w in g.to[first : g.start[u + 1]]]

        def edge_node(after: Hashable) -> int:
            w = lay.node(after)
            return w if v >= 0 else -w - 1

        return [(label, after, first + targets.index(edge_node(after)))
                for label, after in self.game.moves(here)]  # fmt: skip

    def choice_of(self, strategy: Strategy, seats: tuple[int, ...] = (0, 1)) -> np.ndarray:
        """The edge a ``strategy`` picks at every decision of the given seats; the
        solved choice elsewhere."""
        lay, game = self.layout, self.game
        choice = self.solved.choice.copy()
        for v in np.flatnonzero(np.isin(lay.mover, seats)):
            position = lay.positions[int(v)]
            edges = {label: e for label, _, e in self.move_edges(int(v), position)}
            picked = strategy(position, list(edges))
            if picked not in edges:
                raise UserError(f"{game.show(position)}: the strategy plays {picked!r}, "
                                f"not one of {', '.join(edges)}")  # fmt: skip
            choice[v] = edges[picked]
        return choice

    def price(self, strategy: Strategy, against: Strategy | None = None) -> float:
        """The exact value of ``strategy`` for the first player (the only one, or
        against ``against``, or against best play when that is ``None``).

        Against best play means the reply that is best against this very strategy,
        so the value is what the strategy guarantees. A game laid out from the
        mover's side is walked seat by seat for this (a strategy is one seat's).
        """
        if self.layout.mirrored:
            return solve(self.game, self.objective, walk=True).price(strategy, against)
        if self.game.players == 1:
            return float(solver.evaluate(self.graph, self.choice_of(strategy))[0])
        if against is not None:
            both = self.choice_of(strategy, (0,))
            other = self.choice_of(against, (1,))
            mine = self.layout.mover == FIRST
            return float(solver.evaluate(self.graph, np.where(mine, both, other))[0])
        fixed = self.choice_of(strategy, (0,))
        g = self.graph
        kind = g.kind.copy()  # the first player's decisions become single moves
        return float(_best_reply(g, kind, fixed, self.layout.mover == FIRST)[0])

    def exact(self, position: Hashable | None = None) -> Fraction:
        """The value as an exact fraction (small games: every chance kept as a fraction)."""
        v = 0 if position is None else self.layout.node(position)
        values = exact_values(self)
        return values[v] if v >= 0 else 1 - values[-v - 1]


def _best_reply(g: solver.Graph, kind: np.ndarray, fixed: np.ndarray, mine: np.ndarray):
    """Values when one seat's decisions are fixed and the other plays its best."""
    starts = g.start.copy()
    ends = g.start[1:].copy()
    first = np.where(mine, fixed, starts[:-1])
    last = np.where(mine, fixed + 1, ends)
    count = last - first
    start = np.concatenate([[0], np.cumsum(count)])
    parts = [np.arange(a, b) for a, b in zip(first, last, strict=True)]
    idx = np.concatenate([np.zeros(0, np.int64), *parts])
    sub = solver.Graph(kind, start, g.to[idx], g.prob[idx], g.payoff, g.reward)
    return solver.solve_graph(sub).values


def exact_values(solution: ChanceSolution) -> list[Fraction]:
    """Every position's value under the solved choice, in exact fractions."""
    lay = solution.layout
    if lay.exact is None:
        lay.exact = explore(lay.game, exact=True, limit=len(lay) + 1).exact
    from dicelab.games.chance.exact import fraction_values

    assert lay.exact is not None
    return fraction_values(solution.graph, lay.exact, solution.solved.choice, lay.result,
                           lay.game.players)  # fmt: skip


def solve(game: ChanceGame, objective: str | None = None, *, target: float | None = None,
          limit: int = DEFAULT_LIMIT, exact: bool = False, walk: bool = False,
          progress: solver.Progress | None = None, cache: bool = False,
          turns: bool | None = None, runner=None, store=None) -> ChanceSolution:  # fmt: skip
    """Solve ``game`` for ``objective`` (the win for two players, the points for one).

    ``exact`` keeps every chance as a fraction too, for :meth:`ChanceSolution.exact`
    (which otherwise walks the game again). ``limit``: the most positions laid out;
    ``walk``: walk from the start even where the game lays itself out in arrays.
    ``progress(done, planned)`` hears of each pass over the game's links (the
    layout, then the solver's passes: :func:`dicelab.engine.graph.solve_graph`).
    ``cache``: read and keep the solution of a built-in family in the cache folder
    (:mod:`dicelab.games.chance.saved`; games of 100,000 positions or more).
    ``turns``: solve a two-player banking game (Farkle) where its turns start
    (:mod:`~dicelab.games.chance.turn_solution`) rather than laid out; by default
    where its layout would hold more than
    :data:`~dicelab.games.chance.turn_solution.TURNS_ABOVE` positions.
    ``runner`` and ``store``: where the layers of a game solved where its turns
    start run, and where its table lives while it is solved (see
    :mod:`dicelab.engine.runtime.schedule`); a game laid out is solved in this
    process, in memory.

    Examples
    --------
    >>> from dicelab.games.chance.pig import Pig
    >>> round(solve(Pig(goal=10)).value(), 6)
    0.709424
    """
    spec = registry.game_objective(objective or game.objective, game.players, target=target)
    objective, target = spec.name, spec.params.get("target")
    tick = progress or (lambda done, planned: None)
    if game.players > 2:  # a table of players: one chance per seat, where turns start
        from dicelab.games.chance.seated_solution import solve_seated

        if exact or walk or objective != "win":
            raise UserError(f"{game.name}: solved for every seat's chance to win, in floating "
                            "point, where its turns start")  # fmt: skip
        if store is not None or not getattr(runner or solver, "in_process", True):
            raise UserError("--workers/--cluster/--store: a table of three or more players "
                            "is solved in memory on this machine's threads; leave them "
                            "out")  # fmt: skip
        return solve_seated(game, progress, cache, limit > DEFAULT_LIMIT)  # type: ignore[return-value]
    if not (exact or walk):
        from dicelab.games.chance.turn_solution import solve_turns, solves_by_turns

        if solves_by_turns(game, objective, turns):
            laid_out = partial(solve, game, objective, target=target, limit=limit, turns=False)
            allow_large = limit > DEFAULT_LIMIT  # the command line's --allow-large
            return solve_turns(game, progress, cache, laid_out, allow_large, runner, store)  # type: ignore[return-value]
    tick(0, 4)
    layout = explore(game, limit=limit, exact=exact, walk=walk)
    tick(1, 4)
    graph = layout.graph(objective, target)
    found = saved.load(game, objective, target, len(layout), graph.edges) if cache else None
    solved, cached = found if found is not None else (None, None)
    if solved is None:
        began = time.perf_counter()
        solved = solver.solve_graph(
            graph, progress=lambda done, planned: tick(done + 1, planned + 1)
        )
        if cache:
            saved.save(game, objective, target, solved, graph.edges, time.perf_counter() - began)
    tick(4, 4)
    return ChanceSolution(layout, objective, target, graph, solved, cached)
