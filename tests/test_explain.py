"""The split of the expected score by box and bonus, and the why of each option.

Checked three ways: the parts add up to the expected-score table everywhere; a
plain expectimax on tiny rule sets, which plays the same strategy (ties to the
first box, to fewer dice, to the lower keep) and tallies each box, agrees with
every figure; and 20,000 games simulated from a Yahtzee position land within four
standard errors of each box's expected points.
"""

from functools import cache
from itertools import combinations, product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles.expectimax import box_choices
from oracles.rules import small_rules

from dicelab.engine.advice.single import Position
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.explain import explain_advice, explain_table, solve_explain
from dicelab.errors import UserError
from dicelab.rules.compiled import all_same_box, compile_rules

TIE = 1e-9


# -- the parts add up -----------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("name", ["yazy", "generala", "yacht", "yahtzee"])
def test_the_parts_of_every_state_add_up_to_its_expected_points(name):
    table = solve_explain(name, solve_expected(name, precision="double"))
    game, V = table.game, table.expected.values
    worst = 0.0
    for mask in range(1 << game.n_categories):
        us = np.flatnonzero(game.upper_reach[mask])
        for y in range(game.flags_of(mask)):
            parts = table.parts(mask, y, us)
            worst = max(worst, float(np.abs(parts[:, :-1].sum(axis=1) - V[mask, y, us]).max()))
    assert worst < 1e-9


def positions(table, rng, count):
    """Random positions of a game: some boxes filled, dice, rerolls left."""
    from dicelab.engine.advice.single import scorecard_state

    game = table.game
    rules = game.rules
    n = game.n_categories
    ids = [c.id for c in rules.categories]
    out = []
    while len(out) < count:
        k = int(rng.integers(0, n))
        filled = {}
        for c in rng.permutation(n)[:k]:
            pts = sorted(game.possible_points[int(c)])
            filled[ids[c]] = int(rng.choice(pts))
        dice = tuple(sorted(int(d) for d in rng.integers(1, rules.faces + 1, rules.dice)))
        position = Position(dice=dice, rerolls=int(rng.integers(0, rules.rolls)), filled=filled)
        try:
            scorecard_state(table, position)
        except UserError:
            continue
        out.append(position)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("name", ["yahtzee", "generala"])
def test_every_option_splits_into_its_expected_final_score(name):
    table = explain_table(name)
    rng = np.random.default_rng(3)
    for position in positions(table.expected, rng, 40):
        advice = explain_advice(table, position)
        whys = advice.explanations
        for option, why in zip(advice.options, whys, strict=True):
            known = sum(v for v in why.box_points.values() if v is not None)
            total = known + why.upper_bonus + why.extra_bonus
            assert total == pytest.approx(option.value, abs=1e-9)
            assert why.expected_final_score == pytest.approx(option.value, abs=1e-9)
            assert why.text


def test_the_upper_bonus_reached_is_certain_and_out_of_reach_is_impossible():
    table = explain_table("yahtzee")
    reached = {"sixes": 30, "fives": 25, "fours": 12}
    advice = explain_advice(table, Position((1, 2, 3, 4, 6), 1, reached))
    whys = advice.explanations
    assert all(w.p_upper_bonus == 1.0 for w in whys)
    lost = {"sixes": 0, "fives": 0, "fours": 0, "threes": 0}
    advice = explain_advice(table, Position((1, 2, 3, 4, 6), 1, lost))
    whys = advice.explanations
    assert all(w.p_upper_bonus == 0.0 for w in whys)
    # the boxes written keep their points; a box filled with nothing is no chance
    assert all(w.box_points["sixes"] == 0.0 for w in whys)


def test_the_sentence_names_the_cost_and_the_largest_differences():
    table = explain_table("yahtzee")
    filled = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "chance": 22}
    advice = explain_advice(table, Position((5, 5, 6, 6, 2), 2, filled))
    whys = advice.explanations
    best, other = advice.options[0], advice.options[1]
    assert whys[0].text.startswith("Keeping " + " ".join(map(str, best.keep)) + " is best, ")
    assert f"costs {other.cost:.1f} points" in whys[1].text or other.cost < 1
    assert whys[1].text.startswith("Keeping ")


def test_rules_that_save_throws_are_refused_in_one_line():
    with pytest.raises(UserError, match="saved for later"):
        explain_table("maxi-yatzy-saved", use_cache=False)


# -- a plain expectimax that plays the same strategy ------------------------------------------
def brute_parts(rules):
    """``state(filled, up, holds)`` and ``throw(filled, up, holds, dice, rerolls)``:
    ``(value, parts)`` with parts one entry per box, then upper bonus, extra bonuses
    and the all-alike box scored; the strategy breaks ties as the solver does."""
    cats = rules.categories
    n, faces, n_dice = len(cats), rules.faces, rules.dice
    upper = [c.counts_for_bonus for c in cats]
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    ybox, same = rules.yahtzee_index, all_same_box(rules)
    choices = box_choices(rules)
    zero = (0.0,) * (n + 3)

    def add(a, b, w=1.0):
        return tuple(x + w * y for x, y in zip(a, b, strict=True))

    @cache
    def state(filled, up, holds):
        if filled == (1 << n) - 1:
            won = bonus if threshold and up >= threshold else 0.0
            return won, zero[:n] + (won, 0.0, 0.0)
        value, parts = 0.0, zero
        rolls = list(product(range(1, faces + 1), repeat=n_dice))
        for dice in rolls:
            v, p = throw(filled, up, holds, tuple(sorted(dice)), rules.rolls - 1)
            value, parts = value + v / len(rolls), add(parts, p, 1 / len(rolls))
        return value, parts

    @cache
    def throw(filled, up, holds, dice, rerolls):
        if rerolls == 0:
            best = None
            yflag = 1 if ybox >= 0 and holds >> ybox & 1 else 0
            for c, pts, extra in choices(filled, yflag, dice, holds):
                up2 = up + (pts if upper[c] else 0)
                v, p = state(filled | 1 << c, up2, holds | (1 << c if pts > 0 else 0))
                mine = [0.0] * (n + 3)
                mine[c], mine[n + 1] = pts, extra
                mine[n + 2] = 1.0 if c == same and pts > 0 else 0.0
                if best is None or pts + extra + v > best[0] + TIE:
                    best = (pts + extra + v, add(p, mine))
            return best
        keeps = sorted({k for r in range(n_dice + 1) for k in combinations(dice, r)},
                       key=lambda k: (len(k), k))  # fmt: skip
        options = [keep(filled, up, holds, k, rerolls) for k in keeps]
        top = max(v for v, _ in options)
        return next(o for o in options if o[0] >= top - TIE)

    @cache
    def keep(filled, up, holds, kept, rerolls):
        """A keep's value and parts: the mean over the dice rolled to it."""
        free = n_dice - len(kept)
        outs = list(product(range(1, faces + 1), repeat=free))
        value, parts = 0.0, zero
        for new in outs:
            v, p = throw(filled, up, holds, tuple(sorted(kept + new)), rerolls - 1)
            value, parts = value + v / len(outs), add(parts, p, 1 / len(outs))
        return value, parts

    return state, keep, throw


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_rules(), st.integers(0, 2**31))
def test_every_figure_agrees_with_a_plain_expectimax(rules, seed):
    game = compile_rules(rules)
    table = solve_explain(game, solve_expected(game, precision="double"))
    state, keep, throw = brute_parts(rules)
    n = game.n_categories
    value, parts = state(0, 0, 0)
    assert table.value() == pytest.approx(value, abs=1e-9)
    np.testing.assert_allclose(table.parts(0, 0, 0), parts, atol=1e-9)
    # the options of a first throw, each explained
    rng = np.random.default_rng(seed)
    dice = tuple(sorted(int(d) for d in rng.integers(1, rules.faces + 1, rules.dice)))
    advice = explain_advice(table, Position(dice=dice, rerolls=rules.rolls - 1))
    whys = advice.explanations
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    for option, why in zip(advice.options, whys, strict=True):
        if option.kind == "keep" and not option.stops:
            v, p = keep(0, 0, 0, option.keep, rules.rolls - 1)
        elif option.kind == "keep":
            v, p = throw(0, 0, 0, dice, 0)
        else:
            continue  # a box now: a state's parts, checked above for the start
        assert why.expected_final_score == pytest.approx(v, abs=1e-9)
        boxes = [why.box_points[c.id] for c in rules.categories]
        np.testing.assert_allclose(boxes, p[:n], atol=1e-9)
        if bonus:
            assert why.p_upper_bonus == pytest.approx(p[n] / bonus, abs=1e-9)
        assert why.extra_bonus == pytest.approx(p[n + 1], abs=1e-9)
        if why.p_all_same is not None:
            assert why.p_all_same == pytest.approx(p[n + 2], abs=1e-9)


# -- simulation ---------------------------------------------------------------------------
@pytest.mark.slow
def test_a_simulation_from_a_position_lands_within_four_standard_errors():
    from dicelab.engine import turn

    table = explain_table("yahtzee")
    game, V = table.game, table.expected.values
    space, rules = game.space, game.rules
    ids = [c.id for c in rules.categories]
    filled = {"ones": 2, "twos": 6, "threes": 9, "four_of_a_kind": 0, "small_straight": 30,
              "large_straight": 40, "chance": 21}  # fmt: skip
    position = Position(dice=(4, 4, 5, 6, 6), rerolls=1, filled=filled)
    advice = explain_advice(table, position)
    whys = advice.explanations
    roll0 = int(space.size_start[space.dice])

    @cache
    def plan(mask, u, y):
        """The strategy's keep for each roll and rerolls left, and its box per roll."""
        boxes = turn.strategy_boxes(game, V, mask, u, y)
        A = np.empty(space.n_keeps)
        A[roll0:] = (boxes[1] + boxes[2]) + V[mask | (1 << boxes[0]), boxes[3], boxes[4]]
        arg = {}
        for n in range(1, rules.rolls):
            turn.keep_means(space, A)
            chosen = np.arange(space.n_keeps)
            turn.chosen_keeps(space, A, chosen)
            arg[n] = chosen
        return arg, boxes

    rng = np.random.default_rng(11)
    upper_ids = [i for i in range(len(ids)) if game.upper[i]]

    def reroll(keep_faces):
        new = rng.integers(1, 7, rules.dice - len(keep_faces))
        return tuple(sorted(list(keep_faces) + [int(d) for d in new]))

    def play(first_keep):
        mask = sum(1 << ids.index(b) for b in filled)
        u = min(sum(p for b, p in filled.items() if game.upper[ids.index(b)]), game.threshold)
        y, tally, extra = 0, np.zeros(len(ids)), 0
        dice, n = reroll(first_keep), position.rerolls - 1
        while True:
            arg, boxes = plan(mask, u, y)
            while n > 0:
                k = int(arg[n][space.index(dice)])
                if k == space.index(dice):
                    break
                dice, n = reroll(space.faces_of(k)), n - 1
            r = space.index(dice) - roll0
            c, pts = int(boxes[0][r]), int(boxes[1][r])
            tally[c] += pts
            extra += int(boxes[2][r])
            mask, y, u = mask | (1 << c), int(boxes[3][r]), int(boxes[4][r])
            if mask == game.full_mask:
                return tally, u >= game.threshold, extra
            dice, n = reroll(()), rules.rolls - 1

    games = 20_000
    for option, why in list(zip(advice.options, whys, strict=True))[:2]:
        results = [play(option.keep) for _ in range(games)]
        tallies = np.array([t for t, _, _ in results])
        for c in range(len(ids)):
            if ids[c] in filled:
                continue
            se = tallies[:, c].std(ddof=1) / np.sqrt(games)
            assert abs(tallies[:, c].mean() - why.box_points[ids[c]]) <= 4 * se + 1e-12
        won = np.array([b for _, b, _ in results], dtype=float)
        se = won.std(ddof=1) / np.sqrt(games)
        assert abs(won.mean() - why.p_upper_bonus) <= 4 * se
        extras = np.array([e for _, _, e in results], dtype=float)
        se = extras.std(ddof=1) / np.sqrt(games)
        assert abs(extras.mean() - why.extra_bonus) <= 4 * se + 1e-12
    assert upper_ids


# -- the command line ---------------------------------------------------------------------
def run(*args):
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], capture_output=True, text=True
    )


def test_advise_explain_prints_the_why_and_the_split():
    out = run("advise", "yazy", "--dice", "6", "6", "5", "3", "1", "--explain", "--top", "3")
    assert out.returncode == 0, out.stderr
    assert "1. Keeping 6 6 is best" in out.stdout
    assert "where the expected final score comes from" in out.stdout
    assert "all alike scored" in out.stdout  # yazy has no extra bonus


def test_advise_explain_json_carries_the_figures_of_every_option():
    import json

    out = run("advise", "yacht", "--dice", "6", "6", "5", "3", "1", "--explain", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    for option in data["options"]:
        why = option["explain"]
        assert {"p_upper_bonus", "expected_extra_bonuses", "box_points", "text"} <= set(why)
        assert sum(why["box_points"].values()) + why["upper_bonus"] + why["extra_bonus"] == (
            pytest.approx(option["expected_final_score"], abs=1e-9)
        )


def test_advise_explain_for_a_target_speaks_of_the_chance():
    out = run("advise", "yazy", "--dice", "66531", "--target", "150", "--explain", "--json")
    assert out.returncode == 0, out.stderr
    import json

    options = json.loads(out.stdout)["options"]
    assert "the chance of 150 or more" in options[1]["explain"]["text"]


def test_advise_explain_refuses_saved_throws_in_one_line():
    out = run("advise", "maxi-yatzy-saved", "--dice", "665311", "--explain")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "saved" in out.stderr


def test_a_review_says_why_each_mistake_costs_what_it_does(tmp_path):
    import json

    from dicelab.play.game import Game, review

    table = solve_expected("yazy")
    game = Game(table, seed=4)
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        elif game.phase == "keep":
            game.keep([])  # never keep anything: mistakes
        else:
            game.fill(game.advice().best.box)
    split = explain_table("yazy")
    result = review(table, game.record, split)
    mistakes = result.mistakes
    assert mistakes and all(d.why for d in mistakes)
    assert all(not d.why for d in result.decisions if not d.mistake)
    first = mistakes[0]
    assert first.why.startswith("Rerolling every die instead of ")
    assert f"costs {first.cost:.2f} points" in first.why or f"costs {first.cost:.1f}" in first.why
    path = tmp_path / "game.json"
    path.write_text(json.dumps(game.record))
    out = run("review", str(path), "--explain", "--mistakes")
    assert out.returncode == 0, out.stderr
    assert "Rerolling every die instead of" in out.stdout


def test_a_game_played_for_a_target_is_reviewed_in_that_chance():
    from dicelab.engine.advice.single import advise_target
    from dicelab.engine.objectives.utility import reach_table
    from dicelab.play.game import Game, review_chance

    table = solve_expected("yazy")
    chances = reach_table("yazy", 180)
    game = Game(table, seed=6)
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        elif game.phase == "keep":
            game.keep([])
        else:
            game.fill(game.advice().best.box)
    result = review_chance(table, chances, game.record, {"target": 180})
    assert result.measure == "chance" and result.finished
    assert result.outcome == float(result.score >= 180)
    assert 0 < result.expected_score < 1
    first = result.decisions[0]
    lib = advise_target(chances, Position(first.dice, first.rerolls_left), 180)
    assert first.best.key == lib.best.key
    assert first.cost == pytest.approx(
        next(o.cost for o in lib.options if o.key == first.chosen.key)
    )
    assert result.luck == pytest.approx(result.outcome - result.expected_score + result.total_cost)


def test_the_duel_sentence_says_where_playing_to_win_parts_from_points():
    from dicelab.engine.advice.duel import DuelAdvice
    from dicelab.engine.advice.single import Option
    from dicelab.engine.objectives.explain import duel_texts

    zero = Option("box", 0.3157, 0.0, box="five_of_a_kind", box_name="Five of a kind", points=0)
    sixes = Option("box", 0.0419, 0.2738, box="sixes", box_name="Sixes", points=12)
    advice = DuelAdvice("A", 152, 166, [zero, sixes], {zero.key: (2, 150.1), sixes.key: (1, 151.8)})
    best, other = duel_texts(advice)
    assert best == (
        "Scoring 0 in Five of a kind is best: the chance to win is 32%, against 4% for "
        "scoring 12 in Sixes, though it expects 1.7 points fewer."
    )
    assert other == (
        "Scoring 12 in Sixes instead of 0 in Five of a kind lowers the chance to win from 32% "
        "to 4%, though it expects 1.7 points more."
    )
    same = DuelAdvice("A", 0, 0, [zero, sixes], {zero.key: (1, 152.0), sixes.key: (2, 150.0)})
    assert duel_texts(same)[1].endswith("and it expects 2.0 points fewer.")
    leads = {zero.key: -9.44, sixes.key: -7.2}
    led = duel_texts(DuelAdvice("A", 152, 166, [zero, sixes], advice.expected_rank, leads=leads))
    assert led[0].endswith("though its expected final lead is -9.4 points, against -7.2.")
    assert led[1].endswith("though the expected final lead rises from -9.4 to -7.2 points.")


def test_the_library_solves_the_split_and_advises_with_why():
    import dicelab

    table = dicelab.solve("yazy", objective="explain")
    assert isinstance(table, dicelab.ExplainTable)
    assert table.value() == pytest.approx(dicelab.solve("yazy").value(), abs=1e-5)
    advice = table.advise(dicelab.Position(dice=(6, 6, 5, 3, 1), rerolls=2))
    assert len(advice.explanations) == len(advice.options)
    assert isinstance(advice.explanations[0], dicelab.Explanation)
    assert advice.to_dict()["options"][0]["explain"]["text"].startswith("Keeping 6 6 is best")


#: The words of a difference that makes an option worse, and of one that makes it better.
LOSS_WORDS, GAIN_WORDS = (
    (" lower on average", " falls from ", " fall from "),
    (
        " higher on average",
        " rises from ",
        " rise from ",
    ),
)


def _first_reason(text: str) -> str:
    """The first difference a sentence names (after its colon), or ''."""
    _, _, why = text.partition(": ")
    return why.split(" and ")[0].split(", though ")[0]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_cost_is_explained_by_what_the_option_loses(data):
    # every option that costs more than 0.02 names first a way it is worse; the best
    # option names first a way it is better (a gain may follow, after "though")
    rules = data.draw(st.sampled_from(["yahtzee", "yacht"]))
    table = explain_table(rules)
    ids = [c.id for c in table.game.rules.categories]
    filled_ids = data.draw(st.lists(st.sampled_from(ids), unique=True, max_size=len(ids) - 1))
    # each box with points it can hold: the least (a scratch where there is one)
    filled = {b: min(table.game.possible_points[ids.index(b)]) for b in filled_ids}
    dice = tuple(data.draw(st.lists(st.integers(1, 6), min_size=5, max_size=5)))
    rerolls = data.draw(st.integers(0, 2))
    advice = explain_advice(table, Position(dice, rerolls, filled))
    for i, (o, why) in enumerate(zip(advice.options, advice.explanations, strict=True)):
        first = _first_reason(why.text)
        if i > 0 and o.cost > 0.02:
            assert first.endswith(LOSS_WORDS) or any(w in first for w in LOSS_WORDS), why.text
        if i == 0 and first and len(advice.options) > 1:
            assert any(w in first for w in GAIN_WORDS), why.text


def test_the_sentence_of_the_issue_names_what_is_lost():
    table = explain_table("yahtzee")
    advice = explain_advice(table, Position((1, 1, 4, 5, 6), 2))
    texts = {o.label: w.text for o, w in zip(advice.options, advice.explanations, strict=True)}
    assert texts["keep 4 5"].startswith("Keeping 4 5 instead of 5 costs 0.05 points: Fives ends")
    assert "lower on average" in _first_reason(texts["keep 4 5"])
    assert ", though Large straight ends 0.2 higher on average." in texts["keep 4 5"]
