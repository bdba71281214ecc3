"""Graphs laid out from the mover's side: an edge to ``-w - 1`` reads node ``w`` as the
other player sees it (``1 - value``). Checked on a game worked out by hand and on
the two-sided bear-off against the walk that keeps both seats apart."""

from fractions import Fraction

import numpy as np
import pytest

from dicelab.engine.graph import CHANCE, END, MAX, Graph, evaluate, seen, solve_graph
from dicelab.games.chance.bearoff import BearOff
from dicelab.games.chance.exact import fraction_values
from dicelab.games.chance.simulate import simulate
from dicelab.games.chance.solution import solve


def first_six_wins(ring: int) -> tuple[Graph, list[Fraction]]:
    """Players throw a die in turn; the first six wins. ``ring`` positions in a
    circle, each ``k``: a decision (throw, or pass the die: the other throws from
    the next position), a throw (six: the thrower wins; else the other throws
    next), and one end, the thrower's win. By hand: the thrower wins 6/11."""
    decide, throw, win = np.arange(ring), ring + np.arange(ring), 2 * ring
    kind = np.array([MAX] * ring + [CHANCE] * ring + [END], np.int8)
    to, prob, chances, start = [], [], [], [0]
    for k in range(ring):  # the decision: throw, or pass (the mirror of the next one)
        to += [int(throw[k]), -int(decide[(k + 1) % ring]) - 1]
        prob += [0.0, 0.0]
        chances += [Fraction(0)] * 2
        start.append(len(to))
    for k in range(ring):  # a six ends it; else the other, at the next decision
        to += [win, -int(decide[(k + 1) % ring]) - 1]
        prob += [1 / 6, 5 / 6]
        chances += [Fraction(1, 6), Fraction(5, 6)]
        start.append(len(to))
    start.append(len(to))
    payoff = np.zeros(2 * ring + 1)
    payoff[win] = 1.0
    graph = Graph(kind, np.array(start), np.array(to), np.array(prob), payoff,
                  np.zeros(2 * ring + 1))  # fmt: skip
    return graph, chances


def passing_once(ring: int) -> float:
    """The first player's chance when whoever stands at position 0 passes, found
    with both seats kept apart (``won[k][seat]``: the first player's chance when
    ``seat`` acts at ``k``), by sweeping to the fixed point."""
    won = [[0.0, 0.0] for _ in range(ring)]
    for _ in range(3000):
        for k in reversed(range(ring)):
            for seat in (0, 1):
                after = won[(k + 1) % ring][1 - seat]
                won[k][seat] = after if k == 0 else (seat == 0) / 6 + 5 / 6 * after
    return won[0][0]


@pytest.mark.parametrize("ring", [1, 5, 700])  # one throw, a dense solve, sweeps
def test_first_six_wins_is_six_elevenths_seen_from_either_chair(ring):
    graph, chances = first_six_wins(ring)
    s = solve_graph(graph)
    assert s.values[:ring] == pytest.approx(6 / 11, abs=1e-13)
    assert (s.choice[:ring] == 2 * np.arange(ring)).all()  # throw, never pass
    assert seen(s.values, [-1])[0] == pytest.approx(5 / 11)
    passing = s.choice.copy()
    passing[0] = 1  # pass once, then throw: the other's 6/11, seen from here
    if ring > 1:
        assert evaluate(graph, passing)[0] == pytest.approx(passing_once(ring), abs=1e-13)
    else:  # passing to oneself: round in a circle, never a throw
        with pytest.raises(ValueError, match="circle"):
            evaluate(graph, passing)
    if ring <= 5:
        result = np.zeros(graph.nodes)
        exact = fraction_values(graph, chances, s.choice, result, 2)
        assert exact[0] == Fraction(6, 11)


def test_first_six_wins_played_out_meets_six_elevenths():
    from dicelab.engine.kernels.graph import play_games

    graph, _ = first_six_wins(3)
    s = solve_graph(graph)
    g = graph
    won = play_games(g.kind, g.start, g.to, g.prob, g.payoff, g.reward, s.choice, 40_000, 7,
                     10_000)  # fmt: skip
    se = won.std() / np.sqrt(won.size)
    assert abs(won.mean() - 6 / 11) < 4 * se


@pytest.mark.parametrize("mine, theirs", [((5, 2), (3, 2)), ((6, 4, 1), (5, 5, 2)),
                                          ((3, 3), (6, 1))])  # fmt: skip
def test_the_race_from_the_movers_side_is_the_walk_of_both_seats(mine, theirs):
    game = BearOff(mine=mine, theirs=theirs)
    table, walked = solve(game, exact=True), solve(game, walk=True, exact=True)
    assert table.layout.mirrored and not walked.layout.mirrored
    assert table.exact() == walked.exact()
    for position in list(walked.layout.positions)[:400]:
        assert table.value(position) == pytest.approx(walked.value(position), abs=1e-13)
        if position[0] == "move":
            ours = {m.label: m.value for m in table.advise(position)}
            theirs_ = {m.label: m.value for m in walked.advise(position)}
            assert ours == pytest.approx(theirs_, abs=1e-13), position
    assert abs(simulate(table, 20_000, seed=3).errors_off) < 4


def test_a_strategy_in_the_race_is_priced_seat_by_seat():
    game = BearOff(mine=(5, 2), theirs=(4, 3))
    first = lambda position, moves: moves[0]  # noqa: E731
    assert solve(game).price(first) == pytest.approx(solve(game, walk=True).price(first))
