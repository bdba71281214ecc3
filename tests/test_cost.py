"""Sizes known before work: refusals in one line, from the rules alone, at once."""

import os
import subprocess
import sys

import pytest

from dicelab.dice import n_keeps
from dicelab.engine.runtime import cost as cost_module
from dicelab.engine.runtime.cost import Cost, expected_cost
from dicelab.errors import UserError
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules


def rules_file(tmp_path, name, dice, faces, rolls, boxes, threshold=None):
    cats = "\n".join(
        f'[[categories]]\nid = "c{i}"\nkind = "face"\nface = {i % faces + 1}\n'
        for i in range(boxes)
    )
    bonus = f"[upper_bonus]\nthreshold = {threshold}\npoints = 35\n\n" if threshold else ""
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ndice = {dice}\nfaces = {faces}\nrolls = {rolls}\n\n{bonus}{cats}'
    )
    return path


def cli(*args, timeout=60):
    return subprocess.run(
        [sys.executable, "-m", "dicelab", *args], capture_output=True, text=True,
        timeout=timeout,
    )  # fmt: skip


def test_keeps_count_multisets():
    assert n_keeps(5, 6) == 462 and n_keeps(6, 6) == 924 and n_keeps(5, 8) == 1287


def test_too_many_keeps_refused_before_anything_is_built(tmp_path):
    path = rules_file(tmp_path, "huge", 12, 20, 3, 20)
    out = cli("solve", str(path), timeout=20)  # once grew past 7.5 GB: now an instant no
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "225,792,840 distinct keeps" in out.stderr
    with pytest.raises(UserError, match="distinct keeps"):
        compile_rules(load_rules(str(path)))


def test_a_solve_longer_than_an_hour_is_refused_with_its_figures(tmp_path):
    path = rules_file(tmp_path, "wider", 12, 6, 4, 20, threshold=300)
    out = cli("solve", str(path), timeout=20)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "315,621,376 states" in out.stderr and "--allow-large" in out.stderr


def test_memory_beyond_the_machine_is_refused(monkeypatch):
    from dicelab.engine.runtime import cost as cost_module

    monkeypatch.setattr(cost_module, "machine_memory", lambda: 2**30)
    big = Cost("a table", 10**9, 2 * 2**30, 1.0)
    with pytest.raises(UserError, match="can hold"):
        big.check()
    big.check(allow_large=True)  # the user's call


def test_estimates_of_the_built_ins_allow_them():
    for name in ("yahtzee", "yatzy", "maxi-yatzy", "yacht", "yazy"):
        c = expected_cost(load_rules(name))
        c.check()
        assert c.states >= compile_rules(load_rules(name)).n_states
    assert expected_cost(load_rules("yahtzee")).seconds < 30


def test_long_solves_are_announced(capsys, monkeypatch):
    monkeypatch.setattr(cost_module, "cores_here", lambda shared=True: 2.0)
    Cost("a table", 1, 8, 120.0).announce()
    assert "about 2 min" in capsys.readouterr().err
    Cost("a table", 1, 8, 5.0).announce()
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "args",
    [
        ("tictactoe", "--rows", "6", "--columns", "6", "--k", "5"),
        ("door", "--hand", " ".join(str(c) for c in range(1, 17))),
    ],
)
def test_two_player_games_too_large_are_refused_at_once(args):
    # far beyond the machine (four times its memory, or a day): no --allow-large offered
    out = cli(*args, timeout=20)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "positions at most" in out.stderr and "far beyond this machine" in out.stderr
    assert "--allow-large" not in out.stderr


def test_tic_tac_toe_bound_holds():
    from dicelab.games.tictactoe import TicTacToe
    from dicelab.games.twoplayer import solve

    game = TicTacToe(3, 3, 3)
    assert len(solve(game)) <= game.position_bound == 6046


def test_target_tables_are_sized_before_they_are_solved(monkeypatch):
    from dicelab.engine.objectives.target import solve_target
    from dicelab.engine.runtime import cost as cost_module

    monkeypatch.setattr(cost_module, "machine_memory", lambda: 2**20)
    with pytest.raises(UserError, match=r"\(state, points\) values.*--allow-large"):
        solve_target("yazy")
    monkeypatch.setattr(cost_module, "POINTS_RATE", 1.0)
    monkeypatch.setattr(cost_module, "machine_memory", lambda: 2**40)
    with pytest.raises(UserError, match="longer than an hour"):
        solve_target("yazy")


@pytest.mark.slow
def test_a_distribution_beyond_memory_is_refused_before_work():
    out = cli("distribution", "maxi-yatzy", timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "score distribution" in out.stderr and "--allow-large" in out.stderr


def test_a_table_solved_with_allow_large_is_used_without_it(tmp_path, monkeypatch):
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.engine.runtime import cost as cost_module

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cost_module, "MAX_SECONDS", 0.0)  # every solve counts as too long
    with pytest.raises(UserError, match="--allow-large"):
        expected_table("yazy")
    solved = expected_table("yazy", allow_large=True)
    again = expected_table("yazy")  # from the cache: no size question
    assert again.meta["cached"] and again.expected_score == solved.expected_score


def test_estimates_scale_with_the_cores_this_process_gets(monkeypatch):
    """The rates are a 2-core machine's: 16 quiet cores take an eighth of the time,
    2 cores under a load of 6 from other work four times as long; a passing load
    refuses nothing, the cores one may use do."""
    monkeypatch.setattr(cost_module, "_cpu_quota", lambda: None)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)), raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    table = Cost("a table", 1, 8, 480.0)
    assert table.seconds_here() == pytest.approx(60.0) and "about 1 min" in table.describe()
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "getloadavg", lambda: (6.0, 6.0, 6.0))
    monkeypatch.setattr(os, "times", lambda: os.times_result((0.0, 0.0, 0.0, 0.0, 0.0)))
    assert table.seconds_here() == pytest.approx(480.0 * 4)
    assert table.seconds_here(shared=False) == pytest.approx(480.0)
    Cost("an hour on 2 cores", 1, 8, 3000.0).check()  # 2 cores: under the hour, load or not
    monkeypatch.setattr(cost_module, "_cpu_quota", lambda: 0.5)  # a container's half core
    with pytest.raises(UserError, match="longer than an hour"):
        Cost("an hour on 2 cores", 1, 8, 3000.0).check()
