"""Play-along games, their records and their review."""

import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.play.game import Game, load_record, record_text, review, save_record


@pytest.fixture(scope="module")
def yahtzee():
    return expected_table("yahtzee")


@pytest.fixture(scope="module")
def simple():
    return expected_table("yahtzee-simple")


def play_best(game: Game, stop_after: int | None = None) -> Game:
    """Follow the advice (at most ``stop_after`` moves)."""
    moves = 0
    while game.phase != "over" and (stop_after is None or moves < stop_after):
        if game.phase == "roll":
            game.roll()
        else:
            best = game.advice().best
            if best.kind == "keep":
                game.keep(best.keep)
            else:
                game.fill(best.box)
        moves += 1
    return game


@pytest.fixture(scope="module")
def finished(yahtzee):
    return play_best(Game(yahtzee, seed=11)).record


def score_by_hand(rules, record) -> int:
    """Final score from the last throw of each turn and the category scoring alone."""
    cats = {c.id: c for c in rules.categories}
    total = upper = 0
    for turn in record["turns"]:
        dice = turn["throws"][-1]
        counts = tuple(dice.count(f) for f in range(1, rules.faces + 1))
        pts = cats[turn["box"]].points(counts)
        total += pts
        if cats[turn["box"]].counts_for_bonus:
            upper += pts
    return total + (rules.bonus_points if upper >= rules.bonus_threshold else 0)


def test_best_play_costs_nothing_and_scores_by_the_rules(simple):
    game = play_best(Game(simple, seed=5))
    rec = game.record
    assert game.phase == "over" and rec["finished"]
    assert len(rec["turns"]) == 13
    assert rec["final_score"] == game.score == score_by_hand(simple.rules, rec)
    result = review(simple, rec)
    assert result.finished and result.score == rec["final_score"]
    assert result.total_cost == pytest.approx(0.0, abs=1e-9)
    assert not result.mistakes
    assert len(result.decisions) == sum(len(t["keeps"]) + 1 for t in rec["turns"])
    assert result.outcome == rec["final_score"]


def test_virtual_dice_respect_keeps_and_rolls(finished, yahtzee):
    rules = yahtzee.rules
    boxes = [t["box"] for t in finished["turns"]]
    assert sorted(boxes) == sorted(c.id for c in rules.categories)
    for t in finished["turns"]:
        assert 1 <= len(t["throws"]) <= rules.rolls
        for throw in t["throws"]:
            assert len(throw) == 5 and all(1 <= d <= 6 for d in throw)
        for keep, nxt in zip(t["keeps"], t["throws"][1:], strict=False):
            rest = list(nxt)
            for d in keep:
                rest.remove(d)  # the kept dice are still there


def test_same_seed_same_game(yahtzee, finished):
    again = play_best(Game(yahtzee, seed=11)).record
    assert again["turns"] == finished["turns"]
    other = play_best(Game(yahtzee, seed=12)).record
    assert other["turns"] != finished["turns"]


def test_resume_continues_with_the_same_dice(yahtzee, finished):
    for moves in (1, 17, 40):
        half = play_best(Game(yahtzee, seed=11), stop_after=moves)
        data = json.loads(record_text(half.record))
        resumed = play_best(Game.resume(yahtzee, data))
        assert resumed.record["turns"] == finished["turns"]
        assert resumed.record["seed"] == 11


def test_a_record_of_dice_drawn_by_the_page_is_reviewed_and_resumed(yahtzee, finished):
    # the page's generator is not NumPy's: its records say "drawn", with no seed
    half = play_best(Game(yahtzee, seed=11), stop_after=17)
    data = json.loads(record_text(half.record))
    data.update(dice="drawn", seed=None)
    assert review(yahtzee, data).decisions
    resumed = play_best(Game.resume(yahtzee, data))  # rolls on with fresh dice
    assert resumed.phase == "over" and resumed.record["dice"] == "drawn"
    assert resumed.record["turns"][:3] == finished["turns"][:3]
    with pytest.raises(UserError, match="expected virtual, drawn or real"):
        review(yahtzee, {**data, "dice": "loaded"})


def test_record_file_round_trip(tmp_path, finished, yahtzee):
    path = save_record(finished, tmp_path / "game.json")
    assert load_record(path) == finished
    assert review(yahtzee, load_record(path)).score == finished["final_score"]


def real_game(table, moves):
    """A game with typed dice: moves are ('roll', dice), ('keep', dice), ('fill', box)."""
    game = Game(table, dice="real")
    for what, arg in moves:
        getattr(game, what)(arg)
    return game


def test_review_prices_each_mistake(yahtzee):
    game = real_game(
        yahtzee,
        [
            ("roll", [3, 3, 6, 5, 6]),
            ("keep", [3, 3]),  # the two sixes are better
            ("roll", [3, 3, 1, 1, 2]),  # the three new dice, kept 3 3
            ("fill", "chance"),  # scoring now: keeps all, then the box
        ],
    )
    assert game.turns[0]["throws"] == [[3, 3, 5, 6, 6], [1, 1, 2, 3, 3]]
    assert game.turns[0]["keeps"] == [[3, 3], [1, 1, 2, 3, 3]]
    result = review(yahtzee, game.record)
    d = result.decisions
    assert [x.rerolls_left for x in d] == [2, 1, 0]
    first = advise(yahtzee, Position((3, 3, 5, 6, 6), 2))
    chosen = next(o for o in first.options if o.keep == (3, 3))
    assert d[0].best.keep == (6, 6)
    assert d[0].cost == pytest.approx(first.value - chosen.value, abs=1e-12)
    second = advise(yahtzee, Position((1, 1, 2, 3, 3), 1))
    stop = next(o for o in second.options if o.stops)
    assert d[1].cost == pytest.approx(second.value - stop.value, abs=1e-12)
    third = advise(yahtzee, Position((1, 1, 2, 3, 3), 0))
    chance = next(o for o in third.options if o.box == "chance")
    assert d[2].cost == pytest.approx(third.value - chance.value, abs=1e-12)
    assert result.total_cost == pytest.approx(sum(x.cost for x in d))
    assert len(result.mistakes) == 3
    assert not result.finished
    assert result.score == 10


def test_real_dice_accept_all_or_only_the_new(yahtzee):
    game = real_game(yahtzee, [("roll", [1, 2, 3, 4, 6]), ("keep", [1, 2, 3, 4])])
    game.roll([1, 2, 3, 4, 5])
    assert game.dice == [1, 2, 3, 4, 5]
    with pytest.raises(UserError, match="virtual dice"):
        Game(yahtzee, seed=1).roll([1, 2, 3, 4, 5])
    g2 = real_game(yahtzee, [("roll", [1, 2, 3, 4, 6]), ("keep", [1, 2, 3, 4])])
    with pytest.raises(UserError, match="expected the 1 thrown"):
        g2.roll([5, 5])
    with pytest.raises(UserError, match="not a face"):
        g2.roll([7])


def test_moves_out_of_turn_are_refused(yahtzee):
    game = Game(yahtzee, seed=3)
    with pytest.raises(UserError, match="cannot keep"):
        game.keep([1])
    with pytest.raises(UserError, match="cannot fill"):
        game.fill("ones")
    game.roll()
    with pytest.raises(UserError, match="cannot roll"):
        game.roll()
    with pytest.raises(UserError, match="not among the dice"):
        game.keep([d for d in range(1, 7) if d not in game.dice][:1])
    game.fill("ones")
    game.roll()
    with pytest.raises(UserError, match="already filled"):
        game.fill("ones")
    with pytest.raises(UserError, match="unknown box"):
        game.fill("sevens")


def test_boxes_by_number_name_and_prefix(yahtzee):
    for name, box in [("9", "full_house"), ("Full house", "full_house"), ("lar", "large_straight")]:
        game = real_game(yahtzee, [("roll", [2, 2, 2, 6, 6])])
        game.fill(name)
        assert game.turns[0]["box"] == box
    with pytest.raises(UserError, match="unknown box"):
        real_game(yahtzee, [("roll", [2, 2, 2, 6, 6])]).fill("s")  # sixes, small straight


# -- broken records --------------------------------------------------------------------------
def mutate(record, how):
    rec = copy.deepcopy(record)
    how(rec)
    return rec


BROKEN = {
    "no format": (lambda r: r.pop("format"), "not a dicelab game record"),
    "version": (lambda r: r.update(version=2), "version"),
    "no fingerprint": (lambda r: r.pop("fingerprint"), "fingerprint"),
    "other rules": (lambda r: r.update(fingerprint="0" * 64), "other rules"),
    "dice source": (lambda r: r.update(dice="loaded"), "dice"),
    "turns not a list": (lambda r: r.update(turns={}), "turns"),
    "box twice": (lambda r: r["turns"][1].update(box=r["turns"][0]["box"]), "turn 2"),
    "unknown box": (lambda r: r["turns"][0].update(box="sevens"), "unknown box"),
    "seven dice": (lambda r: r["turns"][0]["throws"][0].extend([1, 1]), "7 dice"),
    "face 9": (lambda r: r["turns"][0]["throws"][0].__setitem__(0, 9), "9"),
    "face text": (lambda r: r["turns"][0]["throws"][0].__setitem__(0, "6"), "'6'"),
    "keep not in dice": (lambda r: r["turns"][0]["keeps"].__setitem__(0, [7]), "turn 1"),
    "too many throws": (lambda r: r["turns"][0]["throws"].extend([[1] * 5] * 3), "turn 1"),
    "too many keeps": (lambda r: r["turns"][0]["keeps"].extend([[1]] * 4), "keeps"),
    "no throws": (lambda r: r["turns"][0].update(throws=[]), "no throws"),
    "wrong points": (lambda r: r["turns"][0].update(points=999), "points"),
    "missing box": (lambda r: r["turns"][0].pop("box"), "no box"),
    "final score": (lambda r: r.update(final_score=1), "final score"),
    "turn not an object": (lambda r: r["turns"].__setitem__(0, [1, 2]), "turn 1"),
    "extra turn": (lambda r: r["turns"].append(copy.deepcopy(r["turns"][0])), "turn 14"),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_records_are_user_errors(yahtzee, finished, name):
    how, message = BROKEN[name]
    with pytest.raises(UserError, match=message):
        review(yahtzee, mutate(finished, how))


def test_record_of_other_rules(finished):
    with pytest.raises(UserError, match="other rules"):
        review(expected_table("yacht"), finished)


@pytest.mark.parametrize(
    "text, message",
    [("{not json", "broken JSON"), ("[1, 2]", "not a dicelab"), ('{"format": "x"}', "not a")],
)
def test_broken_files(tmp_path, text, message):
    path = tmp_path / "game.json"
    path.write_text(text)
    with pytest.raises(UserError, match=message):
        load_record(path)
    with pytest.raises(UserError, match="does not exist"):
        load_record(tmp_path / "missing.json")


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 60) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turn=st.integers(0, 12),
    key=st.sampled_from(["throws", "keeps", "box", "points", "extra_bonus", "other"]),
    value=json_values,
    where=st.sampled_from(["turn", "throw", "top"]),
)
def test_any_corruption_is_a_user_error_or_fine(yahtzee, finished, turn, key, value, where):
    rec = copy.deepcopy(finished)
    if where == "turn":
        rec["turns"][turn][key] = value
    elif where == "throw":
        rec["turns"][turn]["throws"][0] = value
    else:
        rec[key if key != "other" else "seed"] = value
    try:
        review(yahtzee, rec)
        Game.resume(yahtzee, rec)
    except UserError:
        pass


def test_review_names_a_keep_after_the_last_throw(yahtzee):
    game = real_game(
        yahtzee,
        [("roll", [4, 4, 5, 6, 6]), ("keep", [4, 4]), ("roll", [4, 4, 1, 2, 3]),
         ("keep", [4, 4]), ("roll", [4, 4, 5, 6, 6]), ("fill", "fours")],
    )  # fmt: skip
    rec = game.record
    rec["turns"][0]["keeps"].append([4, 4])  # a third keep: there is no fourth throw
    with pytest.raises(UserError, match="after the last throw: no rerolls are left"):
        review(yahtzee, rec)
