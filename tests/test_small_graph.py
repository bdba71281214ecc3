"""Small graphs are solved with NumPy (no Numba): the same values and choices as the
compiled kernels, and a small game's command never loads Numba."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dicelab.engine import graph as engine_graph
from dicelab.engine import small_graph
from dicelab.engine.graph import MAX, MIN, evaluate, seen, solve_graph
from dicelab.games.chance.explore import explore
from dicelab.games.chance.families import game_from

GAMES = [
    ("pig", ["goal=12"], "win"),
    ("pig", ["goal=8", "dice=2"], "win"),
    ("pig", ["goal=10", "faces=4"], "win"),
    ("pig", ["goal=6", "piglet=true"], "win"),
    ("shut-the-box", ["tiles=6"], "points"),
    ("shut-the-box", ["tiles=6", "score=sum"], "points"),
    ("shut-the-box", ["tiles=7", "score=sum"], "target"),
    ("farkle", ["goal=300", "dice=3", "players=2"], "win"),
    ("farkle", ["goal=500", "dice=3", "play=goal"], "turns"),
    ("bearoff", ["mine=3,2", "theirs=2,2"], "win"),
    ("bearoff", ["mine=4,3,1"], "turns"),
]


def _graph(name, settings, objective):
    game = game_from(name, settings)
    layout = explore(game)
    target = 5.0 if objective == "target" else None
    return layout.graph(objective, target)


@pytest.fixture(autouse=True)
def _numpy(monkeypatch):
    """Solve small graphs with NumPy here, though the suite has loaded the kernels."""
    monkeypatch.setattr(small_graph, "fits", lambda g: g.nodes <= small_graph.SMALL_NODES)


def _kernels(monkeypatch):
    """Solve with the compiled kernels, as graphs past the small size are."""
    monkeypatch.setattr(small_graph, "SMALL_NODES", -1)


@pytest.mark.parametrize(("name", "settings", "objective"), GAMES)
def test_numpy_and_the_kernels_find_the_same_values_and_equally_good_moves(
    name, settings, objective, monkeypatch
):
    g = _graph(name, settings, objective)
    assert g.nodes <= small_graph.SMALL_NODES
    small = solve_graph(g)
    with monkeypatch.context() as m:
        _kernels(m)
        compiled = solve_graph(g)
        # the NumPy choice valued by the kernels: its values are the optimum too
        small_by_kernels = evaluate(g, small.choice)
    assert np.abs(small.values - compiled.values).max() < 1e-12
    assert np.abs(small_by_kernels - compiled.values).max() < 1e-12
    decide = np.flatnonzero((g.kind == MAX) | (g.kind == MIN))
    mine = seen(compiled.values, g.to[small.choice[decide]])
    theirs = seen(compiled.values, g.to[compiled.choice[decide]])
    assert np.abs(mine - theirs).max() < 1e-12
    assert small.residual < 1e-12
    assert small.cyclic == compiled.cyclic


def test_a_choice_valued_by_numpy_matches_the_kernels(monkeypatch):
    """Hold at 4 in Pig to 12: a strategy, not the best play, valued both ways."""
    g = _graph("pig", ["goal=12"], "win")
    best = solve_graph(g)
    rng = np.random.default_rng(7)
    choice = best.choice.copy()
    decide = np.flatnonzero(g.kind == MAX)
    flip = decide[rng.random(decide.size) < 0.3]
    for v in flip:  # another of its moves, where it has one
        a, b = g.start[v], g.start[v + 1]
        choice[v] = a + (choice[v] - a + 1) % (b - a)
    small = evaluate(g, choice)
    with monkeypatch.context() as m:
        _kernels(m)
        compiled = evaluate(g, choice)
    assert np.abs(small - compiled).max() < 1e-12


def test_a_game_too_large_goes_to_the_kernels(monkeypatch):
    calls = []
    monkeypatch.setattr(small_graph, "solve", lambda *a: calls.append(a))
    monkeypatch.setattr(small_graph, "SMALL_NODES", 10)
    g = _graph("pig", ["goal=6"], "win")
    assert g.nodes > 10
    assert engine_graph.solve_graph(g).residual < 1e-12
    assert calls == []


def test_a_process_that_has_loaded_the_kernels_keeps_them(monkeypatch):
    monkeypatch.undo()
    import dicelab.engine.kernels.graph  # noqa: F401  (loaded, as by a larger game)

    assert not small_graph.fits(_graph("pig", ["goal=6"], "win"))


def test_a_small_game_is_solved_without_loading_numba():
    code = (
        "import sys\n"
        "from dicelab.cli import main\n"
        "sys.argv = ['dicelab', 'solve', 'pig', '--set', 'goal=10']\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
        "print('numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert "0.709424" in out  # Pig to 10, as laid out and solved by the kernels before
    assert out.strip().endswith("False")
