"""Forced order and the joker that needs no filled all-alike box, against brute forces.

The brute forces (``tests/oracles``) share nothing with the solvers but the box
scoring: under forced order they list every box a roll may go in by the joker rules,
then keep the first open box only, scored by the joker where the joker rule put the
roll there and plainly otherwise; ``joker_always`` drops the test that the all-alike
box is filled. Every objective is checked against them on tiny random rule sets:
the expected score (double and single precision), every target, the exact
fractions, the score distribution under the optimum, and the two-player game.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.duel import duel_brute_force
from oracles.expectimax import BruteForce, brute_force
from oracles.policy import PolicyBrute, assert_same_distribution
from oracles.rules import small_rules, tiny_rules

from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.exact import exact_expected, exact_target
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import max_score
from dicelab.engine.objectives.target import solve_target
from dicelab.errors import UserError
from dicelab.rules import load_rules, parse_rules, rules_from_text
from dicelab.rules.compiled import compile_rules

SOME = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def ordered(draw, base=None):
    """Tiny rules with forced order, ``joker_always``, or both."""
    rules = draw(base if base is not None else small_rules(variants=True))
    data = rules.as_data()
    extra = data.get("extra_yahtzee")
    if extra is None and draw(st.booleans()):
        data["categories"] = data["categories"][:2] + [
            {"id": "alike", "kind": "of_a_kind", "count": data["dice"], "score": 25}
        ]
        for cat in data["categories"]:
            cat.pop("served", None)
            cat.pop("requires", None)
        extra = data["extra_yahtzee"] = {"category": "alike", "bonus": 0, "joker": "free"}
        extra["bonus"] = draw(st.sampled_from([0, 30]))
        extra["joker"] = draw(st.sampled_from(["free", "forced"]))
    always = extra is not None and extra["joker"] in ("free", "forced") and draw(st.booleans())
    if always:
        extra["joker_always"] = True
    data["forced_order"] = not always or draw(st.booleans())
    return parse_rules(data)


@SOME
@given(ordered())
def test_expected_score_agrees_with_brute_force(rules):
    slow = brute_force(rules)
    assert solve_expected(rules, precision="double").expected_score == pytest.approx(
        slow, abs=1e-9 * max(1.0, abs(slow))
    )
    assert solve_expected(rules).expected_score == pytest.approx(
        slow, abs=1e-6 * max(1.0, abs(slow))
    )


@SOME
@given(ordered())
def test_every_target_agrees_with_brute_force(rules):
    table = solve_target(rules)
    top = max_score(compile_rules(rules))
    brute = BruteForce(rules, "needed", lanes=top + 200).start()
    for s in range(top + 1):
        assert table.probability(s) == pytest.approx(brute[s], abs=1e-9)


@pytest.mark.slow  # fractions against a brute force: 12 s, with the slow suite
@SOME
@given(ordered(), st.data())
def test_exact_fractions_equal_brute_force_fractions(rules, data):
    assert exact_expected(rules).value == BruteForce(rules, "expected", exact=True).start()[0]
    top = max_score(compile_rules(rules))
    s = data.draw(st.integers(0, top))
    brute = BruteForce(rules, "needed", lanes=top + 1, exact=True).start()
    assert exact_target(rules, s).value == brute[s]


@SOME
@given(ordered())
def test_distribution_of_the_optimum_equals_brute_force(rules):
    table = solve_expected(rules, precision="double")
    dist = score_distribution(rules, table)
    assert_same_distribution(dist, PolicyBrute(rules))
    assert dist.mean == pytest.approx(table.expected_score, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ordered(tiny_rules()))
def test_duel_agrees_with_brute_force(rules):
    from dicelab.engine.objectives.duel import solve_duel

    assert solve_duel(rules).start_value == pytest.approx(duel_brute_force(rules), abs=1e-9)


def test_the_order_changes_the_value_and_the_joker_changes_it_again():
    # three boxes: Ones, two in a row for 15, both dice alike for 20; two dice of
    # three faces. In order, a pair of twos on the second turn scores 15 in the
    # straight only as a joker that needs no filled all-alike box.
    data = {
        "name": "small",
        "dice": 2,
        "faces": 3,
        "rolls": 2,
        "categories": [
            {"id": "ones", "kind": "face", "face": 1},
            {"id": "run", "kind": "straight", "length": 2, "score": 15},
            {"id": "alike", "kind": "of_a_kind", "count": 2, "score": 20},
        ],
        "extra_yahtzee": {"category": "alike", "bonus": 0, "joker": "free"},
    }
    seen = {}
    for order in (False, True):
        for always in (False, True):
            data["forced_order"] = order
            data["extra_yahtzee"]["joker_always"] = always
            rules = parse_rules(data)
            seen[order, always] = solve_expected(rules, precision="double").expected_score
            assert seen[order, always] == pytest.approx(brute_force(rules), abs=1e-12)
    assert seen[True, False] < seen[True, True] < seen[False, False]


# -- forced Yatzy against an independent solver ---------------------------------------------
#: Optimal expected scores of forced-order (Tvangsyatzy) Scandinavian Yatzy published by
#: the PyPI package yatzy-solver 1.0.0 (https://pypi.org/project/yatzy-solver/, source
#: https://github.com/precisit/yatzy-solver, MIT), an independent solver written in Rust:
#: ``Solver.build(Variant(v)).state_value("upper 0 | filled -")`` for the variants
#: "yatzy-scandinavian+forced" and "yatzy-scandinavian+tp4+forced" (four alike accepted
#: as Two pairs), run in a separate virtual environment (never a dependency).
PEER_FORCED_YATZY = 122.55852739642387
PEER_FORCED_YATZY_HOUSE = 123.19457810800856


@pytest.mark.parametrize(
    ("text", "peer"),
    [
        ('extends = "yatzy"\nname = "mine"\nforced_order = true\n', PEER_FORCED_YATZY),
        ('extends = "yatzy-house"\nname = "mine"\nforced_order = true\n', PEER_FORCED_YATZY_HOUSE),
    ],
)
def test_forced_yatzy_agrees_with_the_independent_solver(text, peer):
    rules = rules_from_text(text)
    assert solve_expected(rules, precision="double").expected_score == pytest.approx(peer, abs=1e-9)
    assert solve_expected(rules).expected_score == pytest.approx(peer, abs=1e-6)


def test_the_built_in_forced_yatzy_is_yatzy_in_order():
    forced, plain = load_rules("forced-yatzy"), load_rules("yatzy")
    assert forced.forced_order and not plain.forced_order
    assert forced.categories == plain.categories and forced.upper_bonus == plain.upper_bonus
    game = compile_rules(forced)
    assert game.n_states == 809  # 16 sheets filled from the top, each with its upper totals
    table = solve_expected(forced, precision="double")
    assert table.expected_score == pytest.approx(PEER_FORCED_YATZY, abs=1e-9)
    assert exact_expected(forced).value == pytest.approx(PEER_FORCED_YATZY, abs=1e-9)


def test_rule_sets_without_the_new_switches_keep_their_fingerprints():
    # the switches appear in the normalised rules only when on: every table cached and
    # every game recorded before them still matches its rules
    for name in ("yahtzee", "yatzy", "generala"):
        data = load_rules(name).normalised()
        assert "forced_order" not in data
        assert "joker_always" not in (data.get("extra_yahtzee") or {})
    assert "forced_order" in load_rules("forced-yatzy").normalised()


# -- the rules and the positions, in one line ------------------------------------------
@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            'extends = "yahtzee"\nname = "x"\n[extra_yahtzee]\njoker = "none"\n'
            "joker_always = true\n",
            "joker_always: a joker whether or not the yahtzee box is filled needs joker",
        ),
        (
            'extends = "kniffel"\nname = "x"\n[extra_yahtzee]\njoker = "free-if-fifty"\n'
            "joker_always = true\n",
            "needs the box to hold points",
        ),
        (
            'extends = "maxi-yatzy-saved"\nname = "x"\nforced_order = true\n',
            "forced_order: boxes in scorecard order and saved throws do not combine",
        ),
        ('extends = "yatzy"\nname = "x"\nforced_order = "maybe"\n', "forced_order"),
    ],
)
def test_bad_switches_are_one_line(text, words):
    with pytest.raises(UserError) as err:
        rules_from_text(text)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_a_sheet_out_of_order_is_named():
    table = solve_expected("forced-yatzy")
    position = Position(dice=(3, 3, 6, 5, 6), rerolls=0, filled={"ones": 3, "threes": 6})
    with pytest.raises(UserError, match="'threes' is filled but 'twos' above it is open"):
        advise(table, position)
    best = advise(table, Position(dice=(3, 3, 6, 5, 6), rerolls=0, filled={"ones": 3}))
    assert [o.box for o in best.options] == ["twos"]


def test_the_joker_always_in_advice():
    # Yahtzee with the house joker: five 2s before the Yahtzee box is filled, Twos
    # filled, go in the large straight for its 40 points under the free joker
    rules = rules_from_text(
        'extends = "yahtzee"\nname = "y"\n[extra_yahtzee]\njoker_always = true\n'
    )
    table = solve_expected(rules)
    options = advise(table, Position(dice=(2,) * 5, rerolls=0, filled={"twos": 6})).options
    points = {o.box: o.points for o in options}
    assert points["large_straight"] == 40 and points["full_house"] == 25
    plain = advise(solve_expected("yahtzee"), Position(dice=(2,) * 5, rerolls=0,
                                                       filled={"twos": 6})).options  # fmt: skip
    assert {o.box: o.points for o in plain}["large_straight"] == 0


# -- the page ------------------------------------------------------------------------------
def test_the_page_offers_the_forced_box_only():
    import warnings

    from dicelab.web.app import create_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    with TestClient(create_app(), base_url="http://127.0.0.1") as client:
        info = client.get("/api/rules/forced-yatzy").json()
        assert info["forced_order"] is True
        assert [c["id"] for c in info["categories"]][:2] == ["ones", "twos"]
        body = {"rules": "forced-yatzy", "dice": [6, 6, 6, 6, 6], "rerolls_left": 0,
                "filled": {"ones": 2},
                "wait_spread": True}  # fmt: skip  # solved here: nothing left running
        data = client.post("/api/advice", json=body).json()
        assert [(o["box"], o["points"]) for o in data["options"]] == [("twos", 0)]
        body["filled"] = {"twos": 4}
        r = client.post("/api/advice", json=body)
        assert r.status_code == 400 and "scorecard order" in r.json()["detail"]
        assert client.get("/api/rules/yatzy").json()["forced_order"] is False


def test_known_rolls_in_scorecard_order_go_in_the_boxes_in_turn():
    from dicelab.games.assign.hindsight import assign

    rolls = [[(k % 6) + 1, 2, 3, 4, 5] for k in range(15)]
    rolls[14] = [6, 6, 6, 6, 6]  # a Yatzy, in the Yatzy box at the last turn
    got = assign([rolls], "forced-yatzy")[0]
    rules = load_rules("forced-yatzy")
    assert got.roll_of_box == tuple(range(15))
    counts = [tuple(r.count(f) for f in range(1, 7)) for r in rolls]
    assert got.scores == tuple(c.points(n) for c, n in zip(rules.categories, counts, strict=True))
    assert got.scores[-1] == 50
    assert assign([rolls], "yatzy")[0].total > got.total  # free order does better


@pytest.mark.parametrize(
    "text",
    [
        'extends = "forced-yatzy"\nname = "a"\n',
        'extends = "yahtzee"\nname = "b"\nforced_order = true\n'
        "[extra_yahtzee]\njoker_always = true\n",
        'extends = "yahtzee-forced-joker"\nname = "c"\nforced_order = true\n',
    ],
)
def test_the_advice_turn_is_the_solver_value(text):
    """Advice values one turn in NumPy (its own list of open boxes): it gives the
    solver's value at every sheet forced order reaches."""
    import numpy as np

    from dicelab.engine import turn

    table = solve_expected(rules_from_text(text), precision="double")
    g = table.game
    for k in range(g.n_categories):
        mask = (1 << k) - 1
        us = np.flatnonzero(g.upper_reach[mask])
        for u in (us[0], us[len(us) // 2], us[-1]):
            for y in range(g.flags_of(mask)):
                _, start, _ = turn.turn_detail(g, table.values, mask, int(u), y)
                assert start == pytest.approx(table.values[mask, y, u], rel=1e-13, abs=1e-13)


def test_a_closed_form_in_scorecard_order():
    # Ones then Twos then Threes, no bonus, in order: each turn chases its face, and a
    # die shows it within three throws with chance 1 - (5/6)^3 = 91/216; so the game
    # is worth (1 + 2 + 3) * 5 * 91/216 = 455/36 points, as a fraction
    from fractions import Fraction

    data = {
        "name": "faces",
        "dice": 5,
        "faces": 6,
        "rolls": 3,
        "forced_order": True,
        "categories": [{"id": f"f{k}", "kind": "face", "face": k} for k in (1, 2, 3)],
    }
    rules = parse_rules(data)
    assert exact_expected(rules).value == Fraction(455, 36)
    assert solve_expected(rules, precision="double").expected_score == pytest.approx(455 / 36)
