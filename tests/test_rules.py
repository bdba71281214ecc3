"""Rules files: built-ins, scoring primitives on hand-checked rolls, clear errors."""

import dataclasses
import json
import subprocess
import sys

import pytest
from hypothesis import given, settings
from oracles.rules import tiny_rules

from dicelab.errors import UserError
from dicelab.rules import builtin_names, load_rules, parse_rules

SPEC_BUILTINS = {
    "yahtzee",
    "yahtzee-forced-joker",
    "yahtzee-no-joker",
    "yahtzee-simple",
    "yatzy",
    "yacht",
    "yazy",
    "uva10149",
}


def counts(*dice, faces=6):
    c = [0] * faces
    for d in dice:
        c[d - 1] += 1
    return tuple(c)


def points(rules, box, *dice):
    r = load_rules(rules)
    cat = next(c for c in r.categories if c.id == box)
    return cat.points(counts(*dice, faces=r.faces))


def test_every_spec_rule_set_ships():
    assert set(builtin_names()) >= SPEC_BUILTINS
    for name in builtin_names():
        assert load_rules(name).name == name


@pytest.mark.parametrize(
    ("rules", "box", "dice", "expect"),
    [
        ("yahtzee", "full_house", (2, 2, 2, 6, 6), 25),
        ("yahtzee", "full_house", (4, 4, 4, 4, 4), 0),
        ("yahtzee", "full_house", (4, 4, 4, 4, 2), 0),
        ("yahtzee", "three_of_a_kind", (4, 4, 4, 1, 2), 15),
        ("yahtzee", "four_of_a_kind", (4, 4, 4, 1, 2), 0),
        ("yahtzee", "four_of_a_kind", (5, 5, 5, 5, 2), 22),
        ("yahtzee", "small_straight", (1, 3, 4, 2, 6), 30),
        ("yahtzee", "small_straight", (1, 2, 3, 5, 6), 0),
        ("yahtzee", "large_straight", (2, 3, 4, 5, 6), 40),
        ("yahtzee", "large_straight", (1, 2, 3, 4, 6), 0),
        ("yahtzee", "yahtzee", (3, 3, 3, 3, 3), 50),
        ("yahtzee", "sixes", (6, 6, 1, 6, 2), 18),
        ("yahtzee", "chance", (6, 6, 1, 6, 2), 21),
        ("yatzy", "one_pair", (1, 1, 5, 5, 6), 10),
        ("yatzy", "two_pairs", (1, 1, 5, 5, 6), 12),
        ("yatzy", "two_pairs", (4, 4, 4, 4, 2), 0),
        ("yatzy", "three_of_a_kind", (4, 4, 4, 4, 2), 12),
        ("yatzy", "four_of_a_kind", (4, 4, 4, 4, 2), 16),
        ("yatzy", "small_straight", (1, 2, 3, 4, 5), 15),
        ("yatzy", "small_straight", (2, 3, 4, 5, 6), 0),
        ("yatzy", "large_straight", (2, 3, 4, 5, 6), 20),
        ("yatzy", "full_house", (2, 2, 6, 6, 6), 22),
        ("yatzy", "full_house", (6, 6, 6, 6, 6), 0),
        ("yacht", "full_house", (6, 6, 6, 6, 6), 30),
        ("yacht", "four_of_a_kind", (6, 6, 6, 6, 1), 25),
        ("yacht", "small_straight", (3, 4, 5, 6, 6), 15),
        ("yazy", "straight", (1, 2, 3, 4, 5), 40),
        ("yazy", "straight", (1, 3, 4, 5, 6), 0),
        ("yazy", "full_house", (1, 1, 1, 1, 1), 0),
        ("uva10149", "full_house", (1, 1, 1, 1, 1), 40),
        ("uva10149", "short_straight", (1, 2, 3, 4, 6), 25),
    ],
)
def test_scoring(rules, box, dice, expect):
    assert points(rules, box, *dice) == expect


def test_four_of_a_kind_as_two_pairs_is_a_switch():
    base = {
        "name": "t",
        "dice": 5,
        "faces": 6,
        "rolls": 3,
        "categories": [
            {"id": "tp", "kind": "pairs", "pairs": 2, "same_face_ok": True, "score": "matching"}
        ],
    }
    r = parse_rules(base)
    assert r.categories[0].points(counts(4, 4, 4, 4, 2)) == 16
    base["categories"][0]["same_face_ok"] = False
    assert parse_rules(base).categories[0].points(counts(4, 4, 4, 4, 2)) == 0


def test_extends_changes_only_what_it_says(tmp_path):
    f = tmp_path / "mine.toml"
    f.write_text('extends = "yahtzee"\nname = "mine"\n[upper_bonus]\npoints = 50\n')
    r = load_rules(f)
    y = load_rules("yahtzee")
    assert r.upper_bonus.points == 50 and r.upper_bonus.threshold == 63
    assert r.categories == y.categories and r.extra_yahtzee == y.extra_yahtzee


def test_fingerprint_ignores_titles_only():
    y = load_rules("yahtzee")
    assert y.fingerprint() == dataclasses.replace(y, title="other").fingerprint()
    assert y.fingerprint() != load_rules("yahtzee-forced-joker").fingerprint()


GOOD = """
name = "mini"
dice = 5
faces = 6
rolls = 3
[[categories]]
id = "chance"
kind = "chance"
"""

BAD_FILES = {
    "unknown primitive": (
        GOOD + '[[categories]]\nid = "x"\nkind = "triple_pair"\n',
        "categories[1].kind",
    ),
    "missing field": (GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 3\n', "score"),
    "negative points": (
        GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 3\nscore = -5\n',
        "-5",
    ),
    "straight longer than the dice": (
        GOOD + '[[categories]]\nid = "x"\nkind = "straight"\nlength = 6\nscore = 40\n',
        "categories[1] (x).length",
    ),
    "missing dice": (GOOD.replace("dice = 5\n", ""), "dice"),
    "bad toml": ("name = \n", "not valid TOML"),
    "duplicate id": (GOOD + '[[categories]]\nid = "chance"\nkind = "chance"\n', "used twice"),
    "unknown yahtzee box": (
        GOOD + '[extra_yahtzee]\ncategory = "nope"\nbonus = 100\njoker = "free"\n',
        "extra_yahtzee.category",
    ),
    "bad joker": (
        GOOD
        + '[[categories]]\nid = "y"\nkind = "of_a_kind"\ncount = 5\nscore = 50\n'
        + '[extra_yahtzee]\ncategory = "y"\nbonus = 100\njoker = "sometimes"\n',
        "extra_yahtzee.joker",
    ),
    "served on an upper box": (
        GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 3\nscore = 10\n'
        "served = 5\nupper = true\n",
        "categories[1] (x).served",
    ),
    "served with a joker": (
        GOOD + '[[categories]]\nid = "x"\nkind = "straight"\nlength = 5\nscore = 40\n'
        'served = 5\n[[categories]]\nid = "y"\nkind = "of_a_kind"\ncount = 5\nscore = 50\n'
        '[extra_yahtzee]\ncategory = "y"\nbonus = 0\njoker = "free"\n',
        "categories[1] (x).served",
    ),
    "served too large": (
        GOOD + '[[categories]]\nid = "x"\nkind = "straight"\nlength = 5\nscore = 40\n'
        f"served = {2**70}\n",
        "categories[1].served: Input should be less than or equal to 10000",
    ),
    "requires an unknown box": (
        GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 5\nscore = 100\n'
        'requires = "nope"\n',
        "categories[1] (x).requires",
    ),
    "requires a box not all alike": (
        GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 5\nscore = 100\n'
        'requires = "chance"\n',
        "all dice alike",
    ),
    "requires from a box not all alike": (
        GOOD + '[[categories]]\nid = "g"\nkind = "of_a_kind"\ncount = 5\nscore = 50\n'
        '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 4\nscore = 100\n'
        'requires = "g"\n',
        "categories[2] (x).requires",
    ),
    "requires itself": (
        GOOD + '[[categories]]\nid = "x"\nkind = "of_a_kind"\ncount = 5\nscore = 100\n'
        'requires = "x"\n',
        "is not another category id",
    ),
    "a cap on saved throws without saving": (
        GOOD.replace("rolls = 3\n", "rolls = 3\nmax_saved_throws = 3\n"),
        "max_saved_throws: only with save_unused_throws",
    ),
    "saved throws and served bonuses": (
        GOOD.replace("rolls = 3\n", "rolls = 3\nsave_unused_throws = true\n")
        + '[[categories]]\nid = "x"\nkind = "straight"\nlength = 5\nscore = 40\nserved = 5\n',
        "save_unused_throws: served bonuses and saved throws do not combine",
    ),
    "three columns of yahtzee": (
        'extends = "yahtzee"\nname = "triple"\ncolumns = [1, 2, 3]\n',
        "columns: 3 columns of 13 boxes make 39 boxes, 2^39",
    ),
    "columns with an upper bonus": (
        GOOD.replace("rolls = 3\n", "rolls = 3\ncolumns = [1, 2]\n")
        + "[upper_bonus]\nthreshold = 10\npoints = 5\n",
        "columns: an upper bonus in each column",
    ),
    "columns that are not multipliers": (
        GOOD.replace("rolls = 3\n", 'rolls = 3\ncolumns = [1, "two"]\n'),
        "columns: got [1, 'two'], expected a list of 1 to 6 multipliers",
    ),
    "more pairs needed than the box takes": (
        GOOD + '[[categories]]\nid = "x"\nkind = "pairs"\npairs = 1\nat_least = 2\n'
        'same_face_ok = false\nscore = "matching"\n',
        "at_least",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_rules_file_gives_one_line_and_exit_2(tmp_path, case):
    text, fragment = BAD_FILES[case]
    f = tmp_path / "bad.toml"
    f.write_text(text)
    with pytest.raises(UserError) as err:
        load_rules(f)
    assert fragment in str(err.value)
    out = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "rules", "show", str(f)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ")
    assert fragment in lines[0]
    assert "Traceback" not in out.stderr


def test_missing_file_and_unknown_name():
    with pytest.raises(UserError, match="does not exist"):
        load_rules("no/such/file.toml")
    with pytest.raises(UserError, match="built-in name"):
        load_rules("nosuchgame")


def test_rules_commands():
    out = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "rules", "list"], capture_output=True, text=True
    )
    assert out.returncode == 0 and "yatzy" in out.stdout
    out = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "rules", "show", "yatzy"],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and "Two pairs" in out.stdout and "50 points" in out.stdout


def test_every_mistake_in_a_file_is_named_in_one_line(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text('name = "x"\ndice = 0\nfaces = 1\nrolls = 3\n')
    with pytest.raises(UserError) as info:
        load_rules(str(path))
    text = str(info.value)
    assert "\n" not in text and "dice:" in text and "faces:" in text and "categories:" in text


def test_extends_of_an_unknown_set_names_the_file(tmp_path):
    path = tmp_path / "child.toml"
    path.write_text('extends = "nosuch"\nname = "child"\n')
    with pytest.raises(UserError, match=r"^child\.toml: extends: unknown rules 'nosuch'"):
        load_rules(str(path))


def test_points_have_a_range_every_solver_honours(tmp_path):
    path = tmp_path / "big62.toml"
    path.write_text(
        'name = "big62"\ndice = 5\nfaces = 6\nrolls = 3\n'
        '[[categories]]\nid = "a"\nkind = "of_a_kind"\ncount = 5\n'
        f"score = {2**62}\n"
    )
    with pytest.raises(UserError, match="from 0 to 10000"):
        load_rules(str(path))
    out = subprocess.run(
        [sys.executable, "-m", "dicelab", "solve", str(path), "--exact"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "exactly" not in out.stdout


def test_built_in_rules_are_their_validated_form():
    """Built-in files skip the validators (``Rules.from_checked``): each must be what
    validating its data gives, field for field, down to the cache's fingerprint."""
    from dicelab.rules import _resolve

    for name in builtin_names():
        source, data, _ = _resolve(name, None)
        checked = parse_rules(data, source)
        built = load_rules(name)
        assert built == checked and type(built) is type(checked), name
        assert [type(c) for c in built.categories] == [type(c) for c in checked.categories]
        assert built.fingerprint() == checked.fingerprint(), name


@settings(max_examples=60, deadline=None)
@given(tiny_rules(variants=True))
def test_rules_as_plain_data_read_back_equal(data):
    rules = parse_rules(data)
    whole = rules.as_data()
    assert parse_rules(json.loads(json.dumps(whole))) == rules
    plain = rules.normalised()
    assert json.loads(json.dumps(plain)) == plain
    assert {"title", "description"} & set(plain) == set()
    assert {k: v for k, v in whole.items() if k not in ("title", "description")} == plain


def test_rule_names_in_any_case_and_a_near_miss_named():
    from dicelab.errors import NotFound
    from dicelab.rules import load_rules

    assert load_rules("Yahtzee").name == "yahtzee" == load_rules("YAHTZEE").name
    with pytest.raises(NotFound, match=r"unknown rules 'yahtze' \(did you mean 'yahtzee'\?\)"):
        load_rules("yahtze")
    with pytest.raises(NotFound) as far:
        load_rules("backgammon")
    assert "did you mean" not in str(far.value)


def test_cache_clear_of_an_unknown_rule_set_is_one_line_exit_2(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "DICELAB_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "dicelab.cli", "cache", "clear", "yahtzy",
                          "--yes"], capture_output=True, text=True, env=env)  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert out.stderr.startswith("error: cache clear: no rule set named 'yahtzy' (did you mean")
    ok = subprocess.run([sys.executable, "-m", "dicelab.cli", "cache", "clear", "Yacht", "--yes"],
                        capture_output=True, text=True, env=env)  # fmt: skip
    assert ok.returncode == 0, ok.stderr
