"""Best scoring of known rolls, checked against numbers computed independently.

The contest's scoring is written out again here from SPEC Part B; optima come from
the sample's published totals, from an integer programme (SciPy's MILP solver) on
full games, and from trying every assignment on games of 5 or 6 rolls.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from itertools import permutations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import Bounds, LinearConstraint, milp

from dicelab.cli.assign import run_assign
from dicelab.errors import UserError
from dicelab.games.assign.contest_format import format_json, format_lines, parse_games
from dicelab.games.assign.hindsight import assign, best_assignment
from dicelab.rules import parse_rules

SAMPLE_GAMES = [
    [[1, 2, 3, 4, 5]] * 13,
    [
        [1, 1, 1, 1, 1], [6, 6, 6, 6, 6], [6, 6, 6, 1, 1], [1, 1, 1, 2, 2], [1, 1, 1, 2, 3],
        [1, 2, 3, 4, 5], [1, 2, 3, 4, 6], [6, 1, 2, 6, 6], [1, 4, 5, 5, 5], [5, 5, 5, 5, 6],
        [4, 4, 4, 5, 6], [3, 1, 3, 6, 3], [2, 2, 2, 4, 6],
    ],
]  # fmt: skip
SAMPLE_TEXT = "".join(" ".join(map(str, roll)) + "\n" for game in SAMPLE_GAMES for roll in game)
SAMPLE_TOTALS = [90, 327]


# -- the contest's scoring, from the problem statement ------------------------------


def contest_points(box: int, dice) -> int:
    """Points of one roll in box ``box`` (0..12, the contest's order)."""
    count = Counter(dice)
    total = sum(dice)
    kinds = set(dice)
    if box < 6:
        return (box + 1) * count[box + 1]
    if box == 6:
        return total
    if box == 7:
        return total if max(count.values()) >= 3 else 0
    if box == 8:
        return total if max(count.values()) >= 4 else 0
    if box == 9:
        return 50 if len(kinds) == 1 else 0
    if box == 10:
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 25 if any(r <= kinds for r in runs) else 0
    if box == 11:
        return 35 if kinds in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    shape = sorted(count.values())
    return 40 if shape in ([2, 3], [5]) else 0


def has_matching(ok: list[list[bool]]) -> bool:
    """Whether every box can take a different roll (augmenting paths)."""
    n = len(ok)
    roll_box = [-1] * n

    def place(box: int, seen: set[int]) -> bool:
        for r in range(n):
            if ok[box][r] and r not in seen:
                seen.add(r)
                if roll_box[r] < 0 or place(roll_box[r], seen):
                    roll_box[r] = box
                    return True
        return False

    return all(place(b, set()) for b in range(n))


def check_line(line: str, game) -> int:
    """Check one printed line is a valid contest answer for ``game``; return its total."""
    assert line == line.strip() and "  " not in line
    nums = [int(x) for x in line.split(" ")]
    assert len(nums) == 15
    scores, bonus, total = nums[:13], nums[13], nums[14]
    ok = [[contest_points(b, roll) == scores[b] for roll in game] for b in range(13)]
    assert has_matching(ok), f"no roll-to-box split gives {scores}"
    assert bonus == (35 if sum(scores[:6]) >= 63 else 0)
    assert total == sum(scores) + bonus
    return total


def milp_optimum(game) -> int:
    """Best contest total by an integer programme (boxes x rolls, plus the bonus)."""
    n = 13
    pts = np.array([[contest_points(b, roll) for roll in game] for b in range(n)], float)
    c = -np.concatenate([pts.ravel(), [35.0]])
    rows = []
    for b in range(n):
        a = np.zeros(n * n + 1)
        a[b * n : (b + 1) * n] = 1
        rows.append(a)
    for r in range(n):
        a = np.zeros(n * n + 1)
        a[r : n * n : n] = 1
        rows.append(a)
    upper = np.zeros(n * n + 1)
    upper[: 6 * n] = pts[:6].ravel()
    upper[-1] = -63
    cons = [LinearConstraint(np.array(rows), 1, 1), LinearConstraint(upper[None, :], 0, np.inf)]
    res = milp(c, constraints=cons, integrality=np.ones(n * n + 1), bounds=Bounds(0, 1))
    assert res.success
    return round(-res.fun)


# -- the contest --------------------------------------------------------------------


@pytest.mark.slow
def test_sample_totals_and_valid_lines():
    parsed = parse_games(SAMPLE_TEXT)
    assert parsed.error is None
    lines = format_lines(assign(parsed.faces)).splitlines()
    assert [check_line(line, g) for line, g in zip(lines, SAMPLE_GAMES, strict=True)] == [
        90,
        327,
    ]


def test_single_game_api():
    a = best_assignment(SAMPLE_GAMES[1])
    assert a.total == 327
    assert sorted(a.roll_of_box) == list(range(13))
    assert a.box_of_roll[a.roll_of_box[9]] == 9


def test_random_games_match_integer_programme():
    rng = np.random.default_rng(10149)
    games = rng.integers(1, 7, size=(40, 13, 5))
    # plenty of bonus-deciding games: bias half of them towards high faces
    games[::2] = np.maximum(games[::2], rng.integers(3, 7, size=(20, 13, 5)))
    result = assign(games)
    lines = format_lines(result).splitlines()
    for g, line in enumerate(lines):
        assert check_line(line, games[g].tolist()) == milp_optimum(games[g].tolist())


def test_many_games_in_one_batch_agree_with_one_at_a_time():
    rng = np.random.default_rng(7)
    games = rng.integers(1, 7, size=(150, 13, 5))
    batch = assign(games).total
    assert [best_assignment(games[g]).total for g in (0, 63, 64, 65, 127, 128, 149)] == [
        batch[g] for g in (0, 63, 64, 65, 127, 128, 149)
    ]


# -- any rules: brute force on short games -----------------------------------------

POOL = [
    {"id": "ones", "kind": "face", "face": 1},
    {"id": "twos", "kind": "face", "face": 2},
    {"id": "threes", "kind": "face", "face": 3},
    {"id": "fours", "kind": "face", "face": 4},
    {"id": "fives", "kind": "face", "face": 5},
    {"id": "sixes", "kind": "face", "face": 6},
    {"id": "chance", "kind": "chance"},
    {"id": "three", "kind": "of_a_kind", "count": 3, "score": "all"},
    {"id": "four", "kind": "of_a_kind", "count": 4, "score": "matching"},
    {"id": "pair", "kind": "pairs", "pairs": 1, "same_face_ok": False, "score": "matching"},
    {"id": "two_pairs", "kind": "pairs", "pairs": 2, "same_face_ok": False, "score": 12},
    {"id": "small", "kind": "straight", "length": 4, "score": 30},
    {"id": "large", "kind": "straight", "length": 5, "score": 40},
    {"id": "low", "kind": "straight", "sets": [[1, 2, 3, 4, 5]], "score": "all"},
    {"id": "house", "kind": "full_house", "five_of_a_kind_counts": False, "score": 25},
    {"id": "house_sum", "kind": "full_house", "five_of_a_kind_counts": True, "score": "all"},
]
YAHTZEE_BOX = {"id": "yahtzee", "kind": "of_a_kind", "count": 5, "score": 50}


@st.composite
def short_games(draw, extra: bool):
    """Rules with 5 or 6 boxes, and a few games of as many rolls."""
    n = draw(st.sampled_from([5, 6]))
    picks = draw(st.lists(st.sampled_from(range(len(POOL))), min_size=n, max_size=n, unique=True))
    cats = [POOL[i] for i in picks]
    data = {"name": "short", "dice": 5, "faces": 6, "rolls": 3, "categories": cats}
    if draw(st.booleans()):
        data["upper_bonus"] = {
            "threshold": draw(st.integers(1, 30)),
            "points": draw(st.integers(0, 50)),
        }
    if extra:
        cats[draw(st.integers(0, n - 1))] = YAHTZEE_BOX
        data["extra_yahtzee"] = {
            "category": "yahtzee",
            "bonus": draw(st.sampled_from([0, 100])),
            "joker": draw(st.sampled_from(["none", "free", "forced", "free-if-fifty"])),
        }
    die = st.integers(1, 6)
    five = st.lists(die, min_size=5, max_size=5)
    same = die.map(lambda f: [f] * 5)
    # the joker rules matter for all-same rolls whose face box is in the rules
    faces_here = sorted({c["face"] for c in cats if c["kind"] == "face"}) or [1, 6]
    matching = st.sampled_from(faces_here).map(lambda f: [f] * 5)
    roll = st.one_of(five, same, matching, matching) if extra else five
    games = draw(st.lists(st.lists(roll, min_size=n, max_size=n), min_size=1, max_size=6))
    return parse_rules(data), games


def counts_of(dice) -> tuple[int, ...]:
    return tuple(dice.count(f) for f in range(1, 7))


def brute_force(rules, game) -> int:
    """Best total over every assignment, the rolls played in the order given.

    The extra all-same bonus and the joker follow the rules' documentation: a
    bonus for each all-same roll once the all-same box holds points; with the box
    filled, ``free`` lets the roll go anywhere (fixed-score boxes paying in full)
    once the matching face box is filled, ``free-if-fifty`` likewise while the box
    holds points, ``forced`` makes it take the face box, else a lower box in full,
    else an upper box.
    """
    cats = rules.categories
    n = len(cats)
    upper = rules.upper_mask
    t = rules.bonus_threshold
    ex = rules.extra_yahtzee
    y_box = [c.id for c in cats].index(ex.category) if ex else -1
    best = -1
    for order in permutations(range(n)):  # order[i]: the box of roll i
        filled = [False] * n
        box_pts = [0] * n
        extra = 0
        valid = True
        for i, box in enumerate(order):
            dice = game[i]
            counts = counts_of(dice)
            pts = cats[box].points(counts)
            if ex and len(set(dice)) == 1 and filled[y_box]:
                held = box_pts[y_box] > 0
                if held:
                    extra += ex.bonus
                face_box = next(
                    (j for j, c in enumerate(cats) if c.kind == "face" and c.face == dice[0]),
                    None,
                )
                face_open = face_box is not None and not filled[face_box]
                joker = False
                if ex.joker == "free":
                    joker = not face_open
                elif ex.joker == "free-if-fifty":
                    joker = not face_open and held
                elif ex.joker == "forced":
                    lower_open = [j for j in range(n) if not filled[j] and not upper[j]]
                    if face_open:
                        valid = box == face_box
                    elif lower_open:
                        joker = True
                        valid = not upper[box]
                    else:
                        valid = upper[box]
                plain = cats[box].kind in ("face", "chance") or upper[box]
                if joker and pts == 0 and not plain:
                    fixed = cats[box].score
                    pts = fixed if isinstance(fixed, int) else sum(dice)
            if not valid:
                break
            filled[box] = True
            box_pts[box] = pts
        if not valid:
            continue
        up = sum(p for p, u in zip(box_pts, upper, strict=True) if u)
        bonus = rules.bonus_points if t > 0 and up >= t else 0
        best = max(best, sum(box_pts) + bonus + extra)
    return best


def check_result(rules, games) -> None:
    result = assign(games, rules)
    for g, game in enumerate(games):
        a = result[g]
        assert a.total == brute_force(rules, game)
        assert sorted(a.roll_of_box) == list(range(len(game)))
        if rules.extra_yahtzee is None:
            for box, roll in enumerate(a.roll_of_box):
                assert a.scores[box] == rules.categories[box].points(counts_of(game[roll]))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(short_games(extra=False))
def test_brute_force_any_rules(case):
    check_result(*case)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(short_games(extra=True))
def test_brute_force_extra_bonus_and_joker(case):
    check_result(*case)


@pytest.mark.slow
def test_brute_force_across_lane_blocks():
    rules = parse_rules(
        {
            "name": "short6",
            "dice": 5,
            "faces": 6,
            "rolls": 3,
            "upper_bonus": {"threshold": 20, "points": 35},
            "categories": [POOL[i] for i in (2, 3, 5, 7, 11, 14)],
        }
    )
    rng = np.random.default_rng(3)
    games = rng.integers(1, 7, size=(140, 6, 5)).tolist()
    result = assign(games, rules)
    assert result.total.tolist() == [brute_force(rules, g) for g in games]


def test_batch_mixing_games_with_and_without_all_same_rolls():
    rules = parse_rules(
        {
            "name": "mixed6",
            "dice": 5,
            "faces": 6,
            "rolls": 3,
            "upper_bonus": {"threshold": 12, "points": 35},
            "extra_yahtzee": {"category": "yahtzee", "bonus": 100, "joker": "free"},
            "categories": [POOL[0], POOL[3], POOL[6], POOL[11], POOL[14], YAHTZEE_BOX],
        }
    )
    rng = np.random.default_rng(11)
    games = rng.integers(1, 7, size=(60, 6, 5))
    for g in range(0, 60, 2):
        picks = rng.choice(6, size=rng.integers(1, 4), replace=False)
        games[g, picks] = rng.choice([1, 4, 6], size=(len(picks), 1))
    games = games.tolist()
    assert assign(games, rules).total.tolist() == [brute_force(rules, g) for g in games]


def test_forced_joker_takes_the_face_box():
    rules = {
        "name": "joker5",
        "dice": 5,
        "faces": 6,
        "rolls": 3,
        "extra_yahtzee": {"category": "yahtzee", "bonus": 100, "joker": "forced"},
        "categories": [
            YAHTZEE_BOX,
            POOL[0],
            POOL[6],
            POOL[12],
            {"id": "house", "kind": "full_house", "five_of_a_kind_counts": True, "score": 25},
        ],
    }
    game = [[1] * 5, [1] * 5, [1, 2, 3, 4, 5], [2, 3, 4, 5, 6], [6, 6, 6, 5, 5]]
    # by hand: 11111 to Yahtzee (50). Forced: the second 11111 must go to ones
    # (5 + 100), then large straight 40, chance 20, full house 25: 240. Free: it may
    # go to the full house (25 + 100), then large straight 40, chance 28, ones 1: 244.
    expect = {"forced": 240, "free": 244, "free-if-fifty": 244, "none": 244}
    for joker, total in expect.items():
        rules["extra_yahtzee"]["joker"] = joker
        assert best_assignment(game, parse_rules(rules)).total == total, joker


# -- the text format and the command ------------------------------------------------


@pytest.mark.parametrize(
    "bad, line, words",
    [
        ("1 2 3 4", 15, "got 4 values"),
        ("1 2 7 4 5", 15, "7 is not a face"),
        ("1 2 three 4 5", 15, "'three' is not a whole number"),
        ("1 2 3 4 5 6", 15, "got 6 values"),
        ("0 1 2 3 4", 15, "0 is not a face"),
    ],
)
def test_malformed_line_keeps_games_before_it(bad, line, words):
    text = SAMPLE_TEXT.splitlines()
    text.insert(14, bad)
    parsed = parse_games("\n".join(text) + "\n")
    assert parsed.faces.shape == (1, 13, 5)
    assert str(parsed.error).startswith(f"line {line} (game 2, roll 2): ")
    assert words in str(parsed.error)


def test_game_cut_short_names_its_last_line():
    text = "\n".join(SAMPLE_TEXT.splitlines()[:20]) + "\n"
    parsed = parse_games(text)
    assert parsed.faces.shape == (1, 13, 5)
    assert str(parsed.error).startswith("line 20: ")
    assert "game 2" in str(parsed.error) and "7 of its 13" in str(parsed.error)


def test_blank_lines_and_spacing_are_accepted():
    text = "\n" + SAMPLE_TEXT.replace(" ", "  ").replace("\n", " \r\n", 3) + "\n\n"
    parsed = parse_games(text)
    assert parsed.error is None
    assert assign(parsed.faces).total.tolist() == SAMPLE_TOTALS
    assert parsed.lines[0, 0] == 2


def test_fast_and_line_by_line_readers_agree():
    rng = np.random.default_rng(5)
    rolls = rng.integers(1, 7, size=(30 * 13, 5)).tolist()
    lines = [" ".join(map(str, r)) for r in rolls]
    lines[3] = "\t" + lines[3] + "\r"
    lines.insert(40, "")
    plain = parse_games("\n".join(lines))
    # a vertical tab is whitespace to the line reader only, which then does the work
    slow = parse_games("\n".join(lines).replace("\n", "\x0b\n", 1))
    assert plain.error is None and slow.error is None
    assert np.array_equal(plain.faces, slow.faces)
    assert np.array_equal(plain.lines, slow.lines)
    assert plain.faces.tolist() == np.array(rolls).reshape(30, 13, 5).tolist()
    assert (plain.lines[3, 0], plain.lines[3, 1]) == (40, 42)


def test_run_assign_prints_complete_games_before_the_error(tmp_path, capsys):
    path = tmp_path / "rolls.txt"
    lines = SAMPLE_TEXT.splitlines()
    path.write_text("\n".join(lines[:13] + ["6 6 6 6"] + lines[13:]) + "\n")
    with pytest.raises(UserError, match=r"^line 14 \(game 2, roll 1\)"):
        run_assign(path)
    assert capsys.readouterr().out == "1 2 3 4 5 0 15 0 0 0 25 35 0 0 90\n"


def run_cli(*args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "assign", *args],
        input=stdin,
        capture_output=True,
        text=True,
    )


@pytest.mark.slow
def test_cli_sample_and_error_exit_code():
    out = run_cli(stdin=SAMPLE_TEXT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert [check_line(x, g) for x, g in zip(lines, SAMPLE_GAMES, strict=True)] == SAMPLE_TOTALS
    bad = SAMPLE_TEXT + "1 2 3\n"
    out = run_cli(stdin=bad)
    assert out.returncode == 2
    assert out.stdout.splitlines()[:2] == lines
    assert out.stderr.startswith("error: line 27 (game 3, roll 1):")
    assert "Traceback" not in out.stderr


def test_cli_json_names_the_roll_in_each_box():
    out = run_cli("--json", stdin=SAMPLE_TEXT)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["rules"] == "uva10149"
    assert [g["total"] for g in doc["games"]] == SAMPLE_TOTALS
    for g, game in zip(doc["games"], SAMPLE_GAMES, strict=True):
        assert sorted(b["roll"] for b in g["boxes"]) == list(range(1, 14))
        for box, item in enumerate(g["boxes"]):
            assert item["dice"] == game[item["roll"] - 1]
            assert item["score"] == contest_points(box, item["dice"])
            assert item["line"] == (g["game"] - 1) * 13 + item["roll"]
        up = sum(b["score"] for b in g["boxes"][:6])
        assert g["bonus"] == (35 if up >= 63 else 0)
        assert g["total"] == sum(b["score"] for b in g["boxes"]) + g["bonus"]


def test_rules_file_sets_boxes_dice_and_columns(tmp_path):
    rules = tmp_path / "four.toml"
    rules.write_text(
        'name = "four"\ndice = 3\nfaces = 4\nrolls = 2\n'
        "[upper_bonus]\nthreshold = 6\npoints = 10\n"
        '[[categories]]\nid = "ones"\nkind = "face"\nface = 1\n'
        '[[categories]]\nid = "fours"\nkind = "face"\nface = 4\n'
        '[[categories]]\nid = "trips"\nkind = "of_a_kind"\ncount = 3\nscore = 20\n'
        '[[categories]]\nid = "chance"\nkind = "chance"\n'
    )
    # by hand: 4 4 4 to fours (12, bonus), 1 1 2 to ones (2), 3 3 3 to trips (20),
    # 2 3 4 to chance (9): 12 + 2 + 20 + 9 + 10 = 53
    text = "4 4 4\n1 1 2\n3 3 3\n2 3 4\n"
    out = run_cli("--rules", str(rules), stdin=text)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "2 12 20 9 10 53\n"
    out = run_cli("--rules", str(rules), stdin="1 2 3 4 5\n")
    assert out.returncode == 2
    assert "line 1" in out.stderr and "expected 3 faces from 1 to 4" in out.stderr


def test_extra_bonus_column_and_json():
    games = [[[6] * 5] * 3 + [[1, 2, 3, 4, 5]] * 10]
    # by hand: roll 1 to Yahtzee (50); roll 2 to sixes (30) and a 100 bonus; roll 3
    # a joker worth 30 in three of a kind and another 100; the ten straights fill
    # ones to fives (15), chance (15), both straights (30 + 40) and two zeros;
    # upper total 45, no bonus: 50 + 30 + 30 + 200 + 15 + 15 + 70 = 410
    for name in ("yahtzee-forced-joker", "yahtzee-no-joker"):
        assert best_assignment(games[0], name).total == 410
    result = assign(games, "yahtzee")
    a = result[0]
    assert (a.total, a.extra_bonus, a.bonus) == (410, 200, 0)
    nums = [int(x) for x in format_lines(result).split()]
    assert len(nums) == 13 + 3 and nums[-2] == 200 and nums[-1] == a.total
    doc = json.loads(format_json(result))
    assert doc["games"][0]["extra_bonus"] == 200


def test_library_rejects_games_that_do_not_fit():
    with pytest.raises(UserError, match="shape"):
        assign(np.ones((2, 12, 5), dtype=int))
    with pytest.raises(UserError, match="faces must be 1 to 6"):
        assign([[[1, 2, 3, 4, 9]] * 13])
    assert len(assign(np.zeros((0, 13, 5), dtype=int))) == 0
