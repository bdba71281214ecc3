"""Solves on a Dask cluster (a LocalCluster of 2 worker processes) against the same
solves in this process: the tables must be bit for bit the same, a lost worker must
not change the answer, and a task that fails twice stops the solve with one line
and nothing cached.
"""

import os
import signal
import subprocess
import sys

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from oracles.duel import FOUR_BOXES, duel_brute_force  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from dicelab.cli import app  # noqa: E402
from dicelab.engine.objectives import expected as expected_module  # noqa: E402
from dicelab.engine.objectives.duel import solve_duel  # noqa: E402
from dicelab.engine.objectives.duel_compare import EXPECTED, WIN, evaluate_pairs  # noqa: E402
from dicelab.engine.objectives.expected import ExpectedLayers, expected_table, solve_expected  # noqa: E402
from dicelab.engine.objectives.target import solve_target  # noqa: E402
from dicelab.engine.objectives.utility import solve_utility, step_utility  # noqa: E402
from dicelab.engine.runtime import cache as tables  # noqa: E402
from dicelab.engine.runtime.schedule import ClusterRunner, DaskRunner, LocalRunner, run_layers  # noqa: E402
from dicelab.errors import UserError  # noqa: E402
from dicelab.rules import load_rules, parse_rules  # noqa: E402
from dicelab.rules.compiled import compile_rules  # noqa: E402

SMALL = {
    "name": "small",
    "dice": 3,
    "faces": 6,
    "rolls": 3,
    "upper_bonus": {"threshold": 20, "points": 15},
    "extra_yahtzee": {"category": "yahtzee", "bonus": 50, "joker": "free"},
    "categories": [
        {"id": "fours", "kind": "face", "face": 4, "upper": True},
        {"id": "fives", "kind": "face", "face": 5},
        {"id": "sixes", "kind": "face", "face": 6},
        {"id": "pair", "kind": "of_a_kind", "count": 2, "score": "matching"},
        {"id": "yahtzee", "kind": "of_a_kind", "count": 3, "score": 30},
        {"id": "chance", "kind": "chance"},
    ],
}


@pytest.fixture(scope="module")
def cluster():
    with ClusterRunner(workers=2) as runner:
        runner.start()
        yield runner


def same(a: np.ndarray, b: np.ndarray) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yazy", "yacht", "small"])
def test_expected_is_bit_identical(cluster, name):
    game = compile_rules(parse_rules(SMALL) if name == "small" else load_rules(name))
    here = solve_expected(game)
    there = solve_expected(game, runner=cluster)
    assert same(here.values, there.values)
    if name == "yazy":  # and the reference value of the rules page
        assert abs(there.expected_score - 165.7573) < 5e-5


def test_target_and_utility_are_bit_identical(cluster):
    game = compile_rules(parse_rules(SMALL))
    assert same(solve_target(game).values, solve_target(game, runner=cluster).values)
    u = step_utility(game, 60)
    assert same(solve_utility(game, u).values, solve_utility(game, u, runner=cluster).values)


@pytest.mark.slow
def test_duel_is_bit_identical_and_right(cluster):
    rules = parse_rules(FOUR_BOXES)
    there = solve_duel(rules, runner=cluster)
    assert same(solve_duel(rules).values, there.values)
    assert abs(there.start_value - duel_brute_force(rules)) < 1e-9


@pytest.mark.slow
def test_duel_comparisons_are_bit_identical(cluster):
    table = solve_duel(parse_rules(FOUR_BOXES))
    pairs = [(WIN, WIN), (WIN, EXPECTED), (EXPECTED, WIN), (EXPECTED, EXPECTED)]
    here = evaluate_pairs(table, pairs, width=8)
    there = evaluate_pairs(table, pairs, width=8, runner=cluster)
    assert here == there  # every chance of every pair, to the last bit
    assert abs(there[WIN, WIN].value - duel_brute_force(parse_rules(FOUR_BOXES))) < 1e-9
    assert len(cluster.traffic) > 0 and max(t.tasks for t in cluster.traffic) > 1


@pytest.mark.slow
def test_rows_to_each_task_give_the_same_tables(cluster):
    rows = DaskRunner(cluster.start().client, send="rows")
    game = compile_rules(parse_rules(SMALL))
    assert same(solve_expected(game).values, solve_expected(game, runner=rows).values)
    assert same(solve_target(game).values, solve_target(game, runner=rows).values)
    duel = parse_rules(FOUR_BOXES)
    assert same(solve_duel(duel).values, solve_duel(duel, runner=rows).values)
    whole = DaskRunner(cluster.start().client, send="layer")
    assert same(solve_target(game).values, solve_target(game, runner=whole).values)
    yacht = compile_rules(load_rules("yacht"))
    assert same(solve_expected(yacht).values, solve_expected(yacht, runner=rows).values)


@pytest.mark.slow
def test_saved_throws_on_the_cluster_are_bit_identical(cluster):
    # the official Maxi Yatzy with saved throws is a cluster's job: its layers go
    # out as the plain solve's, with every number of throws in hand in a mask's row
    from dicelab.engine.objectives.saved import solve_saved

    data = dict(SMALL, name="small-saved", save_unused_throws=True, max_saved_throws=3)
    game = compile_rules(parse_rules(data))
    here = solve_saved(game)
    for runner in (cluster, DaskRunner(cluster.start().client, send="rows")):
        assert same(here.values, solve_saved(game, runner=runner).values)


def test_a_stored_table_is_the_same(cluster, tmp_path):
    game = compile_rules(parse_rules(SMALL))
    stored = solve_expected(game, runner=cluster, store=tmp_path)
    assert same(stored.values, solve_expected(game).values)
    assert (tmp_path / "small.expected.npy").exists()


def test_progress_comes_from_finished_tasks(cluster):
    game = compile_rules(load_rules("yacht"))
    seen = []
    solve_expected(game, runner=cluster, progress=lambda done, total: seen.append((done, total)))
    layers = ExpectedLayers(game)
    assert seen[0] == (layers.done, layers.total) and seen[-1] == (layers.total, layers.total)
    assert len(seen) > game.n_categories  # several tasks a layer
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:], strict=False))


@pytest.mark.slow
def test_a_killed_worker_does_not_change_the_answer(cluster):
    game = compile_rules(load_rules("yatzy"))
    here = solve_expected(game).values
    pids = cluster.start().client.run(os.getpid)
    victim = sorted(pids.values())[0]
    killed = []

    def kill_once(done, total):
        if not killed and done > total // 3:
            os.kill(victim, signal.SIGKILL)
            killed.append(done)

    try:
        there = solve_expected(game, runner=cluster, progress=kill_once).values
    except UserError as err:  # allowed: one clear line; the table is not cached
        assert "nothing was cached" in str(err), err
        return
    assert killed
    assert same(here, there)


class Broken(ExpectedLayers):
    """A solve whose every task fails on the worker."""

    def run(self, table, task):
        raise RuntimeError("this task always fails")


def test_a_task_failing_twice_stops_the_solve_and_caches_nothing(cluster, monkeypatch):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import tests
    monkeypatch.setattr(expected_module, "ExpectedLayers", Broken)
    rules = parse_rules(SMALL | {"name": "broken"})
    with pytest.raises(UserError, match="failed twice.*nothing was cached"):
        expected_table(rules, runner=cluster)
    assert not tables.table_path(rules, "expected").exists()


def test_the_local_runner_is_the_default():
    game = compile_rules(parse_rules(SMALL))
    layers = ExpectedLayers(game)
    flat = np.empty(layers.size)
    run_layers(layers, flat, runner=LocalRunner())
    assert same(flat.reshape(layers.shape)[0, 0, 0], solve_expected(game).expected_score)


def dicelab(*args, without_dask=False):
    """The whole command, as a user runs it (a mistake: one line on stderr, exit 2)."""
    hide = "sys.modules['distributed'] = None; " if without_dask else ""
    code = f"import sys; {hide}from dicelab.cli import main; sys.argv[0] = 'dicelab'; main()"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=300)  # fmt: skip


@pytest.mark.slow
def test_cli_workers():
    res = CliRunner().invoke(app, ["solve", "yazy", "--workers", "2", "--no-cache"])
    assert res.exit_code == 0, res.output
    assert "165.7573" in res.output


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["solve", "yazy", "--workers", "0"], "--workers: got 0, expected 1 to 256"),
        (["duel", "yazy", "--workers", "2", "--cluster", "tcp://127.0.0.1:9"], "not both"),
        (["solve", "yazy", "--no-cache", "--cluster", "tcp://127.0.0.1:9"],
         "cannot reach a Dask scheduler at tcp://127.0.0.1:9"),
        (["solve", "yazy", "--exact", "--workers", "2"], "--exact runs in this process"),
    ],
)  # fmt: skip
def test_cli_cluster_mistakes(args, message):
    res = dicelab(*args)
    assert res.returncode == 2, res.stderr
    assert message in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_without_dask_the_flags_say_how_to_install_it():
    res = dicelab("solve", "yazy", "--workers", "2", without_dask=True)
    assert res.returncode == 2
    assert 'pip install -e ".[cluster]"' in res.stderr


def test_store_in_one_process_and_its_mistakes(tmp_path):
    res = dicelab("solve", "yazy", "--no-cache", "--store", str(tmp_path / "work"))
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "work" / "yazy.expected.npy").exists()
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    res = dicelab("solve", "yazy", "--no-cache", "--store", str(blocker))
    assert res.returncode == 2
    assert f"--store {blocker}: cannot write a table there" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("send", [pytest.param("layer", marks=pytest.mark.slow), "rows"])
def test_the_dice_games_tables_are_the_same_on_the_cluster(cluster, send, tmp_path):
    """The turn starts of Farkle and of two-dice Pig (its wipe swept again) and the
    bear-off's pairs of sides: bit for bit as in this process, in memory or stored."""
    from dicelab.engine.race import solve_race
    from dicelab.engine.turnstart import solve_turn_starts
    from dicelab.games.chance.bearoff_table import race_plays
    from dicelab.games.chance.farkle import Farkle
    from dicelab.games.chance.pig import Pig

    runner = DaskRunner(cluster.start().client, send=send)
    for turn in (Farkle(players=2, goal=500, dice=4).banking_turn(),
                 Pig(goal=12, dice=2).banking_turn()):  # fmt: skip
        here = solve_turn_starts(turn)
        there = solve_turn_starts(turn, runner=runner, store=tmp_path / send)
        assert same(here.W, there.W) and here.sweeps == there.sweeps
    _, plays = race_plays(3)
    assert same(solve_race(plays).W, solve_race(plays, runner=runner, store=tmp_path / send).W)
    assert (tmp_path / send / "race.npy").exists()


def test_a_game_that_counts_farkles_says_where_it_runs(cluster):
    from dicelab.engine.turnstart import solve_turn_starts
    from dicelab.games.chance.farkle import Farkle

    turn = Farkle(players=2, goal=500, penalty=100, floor=-100).banking_turn()
    with pytest.raises(UserError, match="this machine's threads"):
        solve_turn_starts(turn, runner=cluster)
