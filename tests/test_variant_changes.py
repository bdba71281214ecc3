"""Variants that say only what they change: boxes merged by id, added, moved and
removed, optional sections dropped with ``false``, dice and faces changed with the
inherited boxes checked, and messages that name what was inherited.

Each variant is held against the same rules written out in full, solved on their
own where the figures matter.
"""

import pytest

import dicelab
from dicelab.errors import UserError
from dicelab.rules import BUILTIN, load_rules

#: the optimal expected scores ``test_expected`` holds the built-ins to
YAHTZEE_VALUE, YAHTZEE_SIMPLE = 254.5896095, 245.8707745


def value(rules) -> float:
    return dicelab.solve(rules, precision="double", cache=False).value()


def ids(rules) -> list[str]:
    return [c.id for c in load_rules(rules).categories]


def played(rules) -> dict:
    """Everything that changes results, the name aside."""
    data = load_rules(rules).normalised()
    del data["name"]
    return data


def refused(text: str) -> str:
    with pytest.raises(UserError) as exc:
        load_rules(text)
    message = str(exc.value)
    assert "\n" not in message
    return message


YAHTZEE = (BUILTIN / "yahtzee.toml").read_text("utf-8")


def test_a_box_changed_by_id_solves_as_the_rules_written_out(tmp_path):
    variant = 'extends = "yahtzee"\nname = "fh30"\n[[categories]]\nid = "full_house"\nscore = 30\n'
    assert YAHTZEE.count("score = 25") == 1  # the full house's
    full = tmp_path / "fh30.toml"
    full.write_text(YAHTZEE.replace("score = 25", "score = 30"))
    assert ids(variant) == ids("yahtzee")  # the box keeps its place
    assert played(variant) == played(full)
    mine, written = value(variant), value(full)
    assert mine == pytest.approx(written, abs=1e-9)
    assert mine > YAHTZEE_VALUE + 4  # 259.178 against 254.590


def test_extra_yahtzee_false_is_yahtzee_simple(tmp_path):
    variant = 'extends = "yahtzee"\nname = "plain"\nextra_yahtzee = false\n'
    rules = load_rules(variant)
    simple = load_rules("yahtzee-simple")
    # yahtzee-simple keeps the section with no bonus and no joker: the same game
    assert rules.extra_yahtzee is None and simple.extra_bonus == 0 and simple.joker == "none"
    assert rules.categories == simple.categories and rules.upper_bonus == simple.upper_bonus
    start = YAHTZEE.index("[extra_yahtzee]")
    full = tmp_path / "plain.toml"
    full.write_text(YAHTZEE[:start] + YAHTZEE[YAHTZEE.index("[[categories]]") :])
    assert played(variant) == played(full)
    assert value(rules) == pytest.approx(YAHTZEE_SIMPLE, abs=1e-6)


def test_boxes_added_moved_removed_and_the_bonus_dropped(tmp_path):
    base = tmp_path / "bonus.toml"
    base.write_text(
        'extends = "yazy"\nname = "yazy-bonus"\n[upper_bonus]\nthreshold = 40\npoints = 35\n'
    )
    child = tmp_path / "small.toml"
    child.write_text(
        'extends = "bonus.toml"\nname = "small"\nupper_bonus = false\n'
        '[[categories]]\nid = "ones"\nremove = true\n'
        '[[categories]]\nid = "twos"\nremove = true\n'
        '[[categories]]\nid = "three_of_a_kind"\nremove = true\n'
        '[[categories]]\nid = "chance"\nkind = "chance"\nafter = "sixes"\n'
        '[[categories]]\nid = "five_of_a_kind"\nbefore = "full_house"\n'
        '[[categories]]\nid = "full_house"\nscore = 30\n'
    )
    assert load_rules(base).upper_bonus.threshold == 40
    rules = load_rules(child)
    assert rules.upper_bonus is None and rules.n_categories == 9
    assert ids(rules) == [
        "threes", "fours", "fives", "sixes", "chance", "four_of_a_kind",
        "five_of_a_kind", "full_house", "straight",
    ]  # fmt: skip
    yazy = load_rules("yazy").categories
    by_id = {c.id: c for c in rules.categories}
    assert by_id["straight"] == yazy[9] and by_id["full_house"].score == 30
    assert by_id["full_house"].five_of_a_kind_counts is False
    written = "\n".join(
        ['name = "small"', "dice = 5", "faces = 6", "rolls = 3"]
        + [f'[[categories]]\nid = "{n}"\nkind = "face"\nface = {f}' for n, f in
           (("threes", 3), ("fours", 4), ("fives", 5), ("sixes", 6))]
        + ['[[categories]]\nid = "chance"\nkind = "chance"',
           '[[categories]]\nid = "four_of_a_kind"\nname = "4 of a kind"\nkind = "of_a_kind"\n'
           'count = 4\nscore = "all"',
           '[[categories]]\nid = "five_of_a_kind"\nname = "Five of a kind"\nkind = "of_a_kind"\n'
           "count = 5\nscore = 50",
           '[[categories]]\nid = "full_house"\nname = "Full house"\nkind = "full_house"\n'
           "five_of_a_kind_counts = false\nscore = 30",
           '[[categories]]\nid = "straight"\nname = "Straight"\nkind = "straight"\n'
           "sets = [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]\nscore = 40"]
    )  # fmt: skip
    assert played(rules) == played(written)
    assert value(rules) == pytest.approx(value(written), abs=1e-9)


def test_an_entry_of_another_kind_or_form_starts_the_box_anew():
    rules = load_rules(
        'extends = "yahtzee"\nname = "x"\n'
        '[[categories]]\nid = "large_straight"\nsets = [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]\n'
        '[[categories]]\nid = "chance"\nkind = "pairs"\npairs = 1\nsame_face_ok = false\n'
        'score = "matching"\n'
    )
    big = rules.categories[10]
    assert big.length is None and big.sets == [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]
    assert big.score == 40 and big.name == "Large straight"
    pair = rules.categories[12]
    assert pair.kind == "pairs" and pair.name is None


def test_replace_categories_gives_the_whole_list():
    rules = load_rules(
        'extends = "yacht"\nname = "x"\nreplace_categories = true\n'
        '[[categories]]\nid = "sixes"\nkind = "face"\nface = 6\n'
    )
    assert ids(rules) == ["sixes"] and rules.dice == 5
    assert "only in a file that extends" in refused(
        'name = "x"\ndice = 5\nfaces = 6\nrolls = 3\nreplace_categories = true\n'
        '[[categories]]\nid = "sixes"\nkind = "face"\nface = 6\n'
    )


def test_more_dice_on_yahtzee_names_the_box_that_no_longer_fits():
    message = refused('extends = "yahtzee"\nname = "six"\ndice = 6\n')
    assert message.startswith("rules: dice = 6 (yahtzee has 5): the inherited boxes")
    assert "yahtzee (extra_yahtzee needs all 6 dice alike, the box has count = 5" in message
    assert "give it count = 6, or write extra_yahtzee = false" in message
    # either way out works; without the extra rules it is the built-in yahtzee-6-dice
    dropped = 'extends = "yahtzee"\nname = "six"\ndice = 6\nextra_yahtzee = false\n'
    assert played(dropped) == played("yahtzee-6-dice")
    counted = load_rules(
        'extends = "yahtzee"\nname = "six"\ndice = 6\n[[categories]]\nid = "yahtzee"\ncount = 6\n'
    )
    assert counted.categories[11].count == 6 and counted.extra_bonus == 100
    # boxes that fit need nothing: eight faces keep all thirteen
    assert load_rules('extends = "yahtzee"\nname = "d8"\nfaces = 8\n').faces == 8


def test_fewer_faces_or_dice_name_every_box_at_once():
    message = refused('extends = "yahtzee"\nname = "x"\nfaces = 4\n')
    assert "faces = 4 (yahtzee has 6)" in message
    for box in ("fives (face: got 5", "sixes (face: got 6", "large_straight (length:"):
        assert box in message
    assert "remove = true" in message
    message = refused('extends = "yahtzee"\nname = "x"\ndice = 4\n')
    for box in ("full_house (a full house needs 5 dice", "large_straight", "yahtzee (count:"):
        assert box in message
    assert "doble_generala (it requires generala, and both must be all 6 dice alike" in refused(
        'extends = "generala"\nname = "x"\ndice = 6\n'
    )


def test_errors_name_what_was_inherited(tmp_path):
    assert refused(
        'extends = "yahtzee"\nname = "x"\n[[categories]]\nid = "full_house"\nscore = -1\n'
    ).startswith("rules: categories[8] (full_house, inherited from yahtzee, changed here).score")
    # a box this file does not touch, wrong only with the rest of the file
    assert refused(
        'extends = "generala"\nname = "x"\n[extra_yahtzee]\ncategory = "generala"\n'
        'bonus = 0\njoker = "free"\n'
    ).startswith("rules: categories[6] (escalera, inherited from generala).served:")
    assert refused(
        'extends = "yahtzee"\nname = "x"\n[[categories]]\nid = "yahtzee"\nremove = true\n'
    ).startswith(
        "rules: extra_yahtzee.category (inherited from yahtzee; extra_yahtzee = false drops it)"
    )
    # through a file in between, the nearest file is named
    (tmp_path / "mid.toml").write_text('extends = "yazy"\nname = "mid"\n')
    child = tmp_path / "child.toml"
    child.write_text('extends = "mid.toml"\nname = "child"\nfaces = 5\n')
    with pytest.raises(UserError, match=r"^child\.toml: faces = 5 \(mid\.toml has 6\): .*sixes"):
        load_rules(child)


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ('id = "chanse"\nremove = true', "categories[0] (chanse).remove: yahtzee has no box "
         "'chanse' (did you mean 'chance'?)"),
        ('id = "pair"\nscore = 3', "categories[0] (pair): yahtzee has no box 'pair', so this "
         "entry adds one and needs a kind"),
        ('id = "pair"\nkind = "chance"\nafter = "sixs"', "categories[0] (pair).after: 'sixs' "
         "is not another box (did you mean 'sixes'?)"),
        ('id = "chance"\nremove = true\nscore = 3', "a box that is removed takes no other "
         "field, got score"),
        ('id = "chance"\nafter = "ones"\nbefore = "twos"', "give after or before, not both"),
        ('name = "Chance"', "categories[0].id: this field is required"),
        ('id = "chance"\nname = "C"\n[[categories]]\nid = "chance"\nname = "D"',
         "categories[1] (chance): the box is given twice"),
    ],
)  # fmt: skip
def test_entries_that_cannot_apply_say_why(entry, says):
    assert says in refused(f'extends = "yahtzee"\nname = "x"\n[[categories]]\n{entry}\n')


def test_a_section_given_true_says_what_is_expected():
    assert refused('extends = "yahtzee"\nname = "x"\nupper_bonus = true\n').endswith(
        "upper_bonus: expected a table [upper_bonus], or false for none"
    )


def test_a_variant_file_without_a_name_is_named_after_its_file(tmp_path):
    from dicelab.rules import load_rules

    path = tmp_path / "house rules.toml"
    path.write_text('extends = "yahtzee"\n[[categories]]\nid = "full_house"\nscore = 30\n')
    assert load_rules(str(path)).name == "house-rules"
    named = tmp_path / "named.toml"
    named.write_text('extends = "yahtzee"\nname = "fh30"\n')
    assert load_rules(str(named)).name == "fh30"
    assert load_rules('extends = "yahtzee"\nrolls = 2').name == "yahtzee"  # text: no file
