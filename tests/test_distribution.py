"""The score distribution against published figures, a brute force and simulated games.

The brute force plays the strategy out over ordered dice: it values every option
with a plain expectimax (or a given table), breaks ties as documented (boxes in
scorecard order; keeps with fewer dice, then faces ascending) and adds up the
probability of every final score.
"""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles.policy import BRUTE, PolicyBrute, assert_same_distribution
from oracles.rules import small_rules
from typer.testing import CliRunner

from dicelab.cli import app
from dicelab.engine.objectives.distribution import ScoreDistribution, score_distribution
from dicelab.engine.objectives.expected import expected_table, solve_expected
from dicelab.errors import UserError
from dicelab.play.simulate import simulate
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules

runner = CliRunner()

# SPEC, Part A: optimal expected scores and their published standard deviations
PUBLISHED_SD = {"yahtzee": (59.6117, 4), "yatzy": (38.4964, 4), "yacht": (37.86, 2)}


@BRUTE
@given(small_rules())
def test_optimum_distribution_equals_brute_force(rules):
    table = solve_expected(rules, precision="double")
    dist = score_distribution(rules, table)
    assert_same_distribution(dist, PolicyBrute(rules))
    assert dist.mean == pytest.approx(table.expected_score, abs=1e-9)


@BRUTE
@given(small_rules(variants=True))
def test_optimum_distribution_equals_brute_force_on_variants(rules):
    # served bonuses (a first throw scored at once), boxes that need another
    table = solve_expected(rules, precision="double")
    dist = score_distribution(rules, table)
    assert_same_distribution(dist, PolicyBrute(rules))
    assert dist.mean == pytest.approx(table.expected_score, abs=1e-9)


@BRUTE
@given(small_rules(), st.integers(0, 2**31))
def test_any_table_driven_strategy(rules, seed):
    # a strategy ranked by an arbitrary table (here random values) is played as told
    g = compile_rules(rules)
    rng = np.random.default_rng(seed)
    shape = (1 << g.n_categories, g.n_flag, g.n_upper)
    table = rng.integers(0, 40, size=shape).astype(np.float64)
    dist = score_distribution(rules, table, strategy="random table")
    assert_same_distribution(dist, PolicyBrute(rules, table))
    # and the greedy strategy (a table of zeros: points now are all that count)
    zeros = np.zeros(shape)
    assert_same_distribution(score_distribution(rules, zeros), PolicyBrute(rules, zeros))


#: three boxes that all count towards a bonus at 12: up to 13 upper totals a state,
#: so a state's lanes fill one lane vector of 8 and part of the next
WIDE_UPPER = {
    "name": "wide-upper",
    "dice": 3,
    "faces": 3,
    "rolls": 2,
    "categories": [
        {"id": "ones", "kind": "face", "face": 1, "upper": True},
        {"id": "threes", "kind": "face", "face": 3, "upper": True},
        {"id": "sum", "kind": "chance", "upper": True},
    ],
    "upper_bonus": {"threshold": 12, "points": 25},
}


@pytest.mark.parametrize("table", ["optimum", "random", "zeros"])
def test_lanes_across_two_lane_vectors(table):
    # the turn outcomes of states with more upper totals than a lane vector holds
    # (and a part-filled last one), ties included (the random table has many)
    from dicelab.engine.objectives.distribution import OutcomeLayout
    from dicelab.rules import parse_rules

    rules = parse_rules(WIDE_UPPER)
    g = compile_rules(rules)
    n_lanes = OutcomeLayout.of(g).n_lanes
    assert n_lanes.max() > 8 and np.any((n_lanes > 8) & (n_lanes % 8 != 0))
    shape = (1 << g.n_categories, g.n_flag, g.n_upper)
    values = {
        "optimum": None,
        "random": np.random.default_rng(7).integers(0, 12, size=shape).astype(np.float64),
        "zeros": np.zeros(shape),
    }[table]
    dist = score_distribution(rules, values, use_cache=False)
    assert_same_distribution(dist, PolicyBrute(rules, values))


@pytest.fixture(scope="module", params=sorted(PUBLISHED_SD))
def published(request):
    name = request.param
    table = solve_expected(name, precision="double")
    return name, table, score_distribution(name, table)


@pytest.mark.slow
def test_published_figures(published):
    name, table, dist = published
    sd, digits = PUBLISHED_SD[name]
    assert round(dist.sd, digits) == sd
    assert abs(dist.mean - table.expected_score) < 1e-9
    assert abs(dist.total - 1.0) < 1e-12
    assert np.all(dist.pmf >= 0)
    at_least = dist.p_at_least
    assert at_least[0] == pytest.approx(1.0, abs=1e-12) and np.all(np.diff(at_least) <= 1e-15)


@pytest.mark.slow
def test_yahtzee_against_simulated_games():
    # 100,000 games played by the simulator (its own turn code, its own dice):
    # every figure within 4 standard errors of the exact one
    table = solve_expected("yahtzee")
    dist = score_distribution("yahtzee", table)
    sim = simulate(table, games=100_000, seed=7)
    n = sim.games
    assert abs(sim.mean - dist.mean) < 4 * dist.sd / np.sqrt(n)

    def close(observed, p):
        assert abs(observed - p) < 4 * np.sqrt(p * (1 - p) / n) + 1e-12

    close(sim.upper_bonus.mean(), dist.p_bonus)
    close(sim.all_same.mean(), dist.p_all_same)
    for s in (150, 200, 250, 300, 350, 400):
        close((sim.scores >= s).mean(), dist.p_at_least[s])
    for q in (10, 50, 90):
        lo, hi = dist.percentile(q - 1), dist.percentile(q + 1)
        assert lo <= np.percentile(sim.scores, q) <= hi


def test_percentiles_by_hand():
    from dicelab.rules import load_rules

    pmf = np.zeros(11)
    pmf[[2, 5, 10]] = [0.25, 0.5, 0.25]
    d = ScoreDistribution(load_rules("yazy"), pmf, None, None)
    assert d.mean == 5.5
    assert d.sd == pytest.approx(np.sqrt(0.25 * 3.5**2 + 0.5 * 0.5**2 + 0.25 * 4.5**2))
    assert (d.percentile(10), d.percentile(25), d.percentile(50), d.percentile(99)) == (2, 2, 5, 10)
    assert d.p_at_least[5] == 0.75 and d.p_at_least[6] == 0.25
    with pytest.raises(UserError):
        d.percentile(101)


def test_wrong_table_shape():
    with pytest.raises(UserError, match="shape"):
        score_distribution("yazy", np.zeros((3, 1, 1)))


def test_cli_json_and_plot(tmp_path):
    png = tmp_path / "yacht.png"
    res = runner.invoke(app, ["distribution", "yacht", "--json", "--plot", str(png)])
    assert res.exit_code == 0, res.output
    d = json.loads(res.output)
    assert round(d["sd"], 2) == 37.86
    assert abs(sum(d["pmf"]) - 1) < 1e-12
    assert len(d["pmf"]) == len(d["p_at_least"]) == d["max_score"] - d["min_score"] + 1
    assert d["max_score"] == 325 and 0.6 < d["p_bonus"] < 0.8
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_text():
    res = runner.invoke(app, ["distribution", "yazy"])
    assert res.exit_code == 0, res.output
    assert "sd 32.37" in res.output and "percentiles" in res.output
    assert "P(Five of a kind scored)" in res.output


@pytest.mark.slow
def test_the_optimums_distribution_is_kept_and_read_back(tmp_path, monkeypatch):
    """The expected-score optimum's distribution is kept beside its table: read back
    equal, not when another strategy or a turn start is asked for, and worked out
    again when its file is damaged."""
    from dicelab.engine.runtime import cache as tables

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    first = score_distribution("yacht")
    again = score_distribution("yacht")
    assert not first.meta.get("cached") and again.meta["cached"]
    assert np.array_equal(first.pmf, again.pmf) and first.pmf.dtype == again.pmf.dtype
    for name in ("p_bonus", "p_all_same", "all_same_box", "strategy", "seconds"):
        assert getattr(first, name) == getattr(again, name), name
    assert not score_distribution("yacht", use_cache=False).meta.get("cached")
    table = expected_table("yacht")
    assert not score_distribution("yacht", table).meta.get("cached")
    (path,) = [p for p in tmp_path.iterdir() if p.name.startswith("yacht.distribution.")]
    data = bytearray(path.read_bytes())
    data[-3] ^= 0xFF  # one probability damaged
    path.write_bytes(bytes(data))
    fixed = score_distribution("yacht")
    assert not fixed.meta.get("cached") and np.array_equal(fixed.pmf, first.pmf)
    assert tables.lookup(load_rules("yacht"), "distribution", None, {"strategy": "expected",
                        "layout": "pmf-1"})[1]["cached"]  # fmt: skip
    res = runner.invoke(app, ["distribution", "yacht"])
    assert res.exit_code == 0 and "read from the cache" in res.output, res.output


def test_score_marks_follow_the_distribution():
    from dicelab.cli.objectives import score_marks

    class Fake:
        def __init__(self, lo, hi):
            self.lo, self.hi = lo, hi

        def percentile(self, q):
            return self.lo if q < 50 else self.hi

    assert score_marks(Fake(113, 265)) == [120, 140, 160, 180, 200, 220, 240, 260]
    assert score_marks(Fake(3, 9)) == [3, 4, 5, 6, 7, 8, 9]
    big = score_marks(Fake(10**6, 3 * 10**6))
    assert 2 <= len(big) <= 8 and all(10**6 <= s <= 3 * 10**6 for s in big)
