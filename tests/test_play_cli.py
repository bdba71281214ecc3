"""The advise, play and review commands: output, files, and one-line errors."""

import io
import json
import subprocess
import sys

import pytest

from dicelab.cli import main
from dicelab.engine.objectives.expected import expected_table


@pytest.fixture(scope="module", autouse=True)
def _solved():
    expected_table("yahtzee")  # solved once into the test cache


def cli(capsys, monkeypatch, *args, stdin=""):
    """Run the command line in this process; returns (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["dicelab", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return code, out.out, out.err


def test_advise_table(capsys, monkeypatch):
    code, out, _ = cli(capsys, monkeypatch, "advise", "yahtzee", "--dice", "3", "3", "6", "5", "6")
    assert code == 0
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert "keep 6 6" in rows[0]
    assert "2 rerolls left" in out


def test_advise_json_with_scorecard(capsys, monkeypatch):
    code, out, _ = cli(
        capsys, monkeypatch, "advise", "yahtzee", "--dice", "22266", "--rerolls", "0",
        "--filled", "ones=3,sixes=18", "--filled", "yahtzee=50", "--bonuses", "1", "--json",
    )  # fmt: skip
    assert code == 0
    data = json.loads(out)
    assert data["score_so_far"] == 3 + 18 + 50 + 100
    assert data["upper_total"] == 21
    assert data["options"][0]["box"] == "full_house"
    assert data["options"][0]["cost"] == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["--dice", "3", "3", "6", "5", "6", "6", "1"], "dice: got 7"),
        (["--dice", "3", "3", "6", "5", "9"], "9 is not a face"),
        (["--dice", "33656", "--filled", "ones=3,ones=2"], "given twice"),
        (["--dice", "33656", "--filled", "ones=3", "--filled", "ones=3"], "given twice"),
        (["--dice", "33656", "--filled", "ones=?,twos=?", "--upper", "50"], "cannot make"),
        (["--dice", "33656", "--filled", "ones=2", "--upper", "3"], "upper total"),
        (["--dice", "33656", "--filled", "ones=x"], "not a whole number"),
        (["--dice", "33656", "--rerolls", "5"], "rerolls left"),
        (["--dice", "3 3 a 5 6"], "not a number"),
    ],
)
def test_advise_bad_input_one_line(capsys, monkeypatch, args, message):
    code, out, err = cli(capsys, monkeypatch, "advise", "yahtzee", *args)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


def test_unknown_rules_one_line(capsys, monkeypatch):
    code, _, err = cli(capsys, monkeypatch, "advise", "no-such-rules", "--dice", "33656")
    assert code == 2 and err.startswith("error: unknown rules") and err.count("\n") == 1


def test_play_review_round_trip(capsys, monkeypatch, tmp_path):
    path = tmp_path / "game.json"
    code, out, _ = cli(
        capsys, monkeypatch, "play", "yahtzee", "--seed", "4", "--record", str(path),
        stdin="\n" * 60,
    )  # fmt: skip
    assert code == 0
    assert "game over" in out
    record = json.loads(path.read_text())
    assert record["finished"] and len(record["turns"]) == 13
    code, out, _ = cli(capsys, monkeypatch, "review", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["finished"] and data["mistakes"] == 0
    assert data["score"] == record["final_score"]
    saved = path.read_text()
    code, _, err = cli(capsys, monkeypatch, "play", "yahtzee", "--record", str(path))
    assert code == 2 and "already exists" in err and err.count("\n") == 1
    code, _, err = cli(capsys, monkeypatch, "play", "yahtzee", "--resume", str(path))
    assert code == 2 and "is finished" in err and err.count("\n") == 1
    assert path.read_text() == saved  # nothing lost


def test_play_with_mistakes_then_input_ends(capsys, monkeypatch, tmp_path):
    path = tmp_path / "game.json"
    # turn 1: keep nothing twice, then take the first box; turn 2: input ends
    code, out, _ = cli(
        capsys, monkeypatch, "play", "yahtzee", "--seed", "2", "--record", str(path),
        "--hide-advice", stdin="none\nnone\nchance\n",
    )  # fmt: skip
    assert code == 1
    assert "unfinished game is saved" in out
    record = json.loads(path.read_text())
    assert not record["finished"]
    assert record["turns"][0]["keeps"] == [[], []]
    assert record["turns"][0]["box"] == "chance"
    code, out, _ = cli(capsys, monkeypatch, "review", str(path), "--mistakes")
    assert code == 0
    assert "unfinished game" in out


def test_hidden_advice_never_plays_for_the_player(capsys, monkeypatch, tmp_path):
    path = tmp_path / "game.json"
    code, out, _ = cli(
        capsys, monkeypatch, "play", "yahtzee", "--seed", "2", "--record", str(path),
        "--hide-advice", stdin="\n\n",
    )  # fmt: skip
    assert code == 1  # the input ended before any choice was made
    assert "advice is hidden" in out
    assert json.loads(path.read_text())["turns"][0]["keeps"] == []


def test_play_real_dice(capsys, monkeypatch, tmp_path):
    path = tmp_path / "game.json"
    typed = "3 3 6 5 6\n6 6\n6 6 1\n8\nall\nsixes\nq\n"
    code, out, _ = cli(
        capsys, monkeypatch, "play", "yahtzee", "--dice", "real", "--record", str(path),
        stdin=typed,
    )  # fmt: skip
    assert code == 0
    assert "not a face" in out  # the bad entry is refused, the game goes on
    record = json.loads(path.read_text())
    assert record["dice"] == "real" and record["seed"] is None
    assert record["turns"][0] == {
        "throws": [[3, 3, 5, 6, 6], [1, 6, 6, 6, 6]],
        "keeps": [[6, 6], [1, 6, 6, 6, 6]],
        "box": "sixes",
        "points": 24,
        "extra_bonus": 0,
    }


@pytest.mark.parametrize(
    "content, message",
    [("{broken", "broken JSON"), ('{"format": "other"}', "not a dicelab game record")],
)
def test_review_broken_file_one_line(capsys, monkeypatch, tmp_path, content, message):
    path = tmp_path / "game.json"
    path.write_text(content)
    code, _, err = cli(capsys, monkeypatch, "review", str(path))
    assert code == 2 and message in err and err.count("\n") == 1


def test_play_and_review_in_a_real_process(tmp_path):
    path = tmp_path / "game.json"
    run = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "play", "yahtzee", "--seed", "8", "--record",
         str(path), "--top", "1"],
        input="\n" * 60, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert "game over" in run.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(path.read_text().replace('"points": ', '"points": 1'))
    run = subprocess.run(
        [sys.executable, "-m", "dicelab.cli", "review", str(bad)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 2
    assert run.stderr.startswith("error: game record, turn 1") and run.stderr.count("\n") == 1
    assert "Traceback" not in run.stderr


def test_play_and_review_served_hands_in_the_terminal(capsys, monkeypatch, tmp_path):
    # Generala: a first throw stopped with 'all' or scored at once by naming a box
    # takes the served points; the review prices both as the best choice
    path = tmp_path / "generala.json"
    typed = "2 3 4 5 6\nall\nescalera\n3 3 3 5 5\nfull\nq\n"
    code, out, _ = cli(
        capsys, monkeypatch, "play", "generala", "--dice", "real", "--record", str(path),
        stdin=typed,
    )  # fmt: skip
    assert code == 0, out
    assert "Escalera: 25 points" in out and "Full: 35 points, score 60" in out
    record = json.loads(path.read_text())
    assert [t["points"] for t in record["turns"][:2]] == [25, 35]
    code, out, _ = cli(capsys, monkeypatch, "review", str(path), "--json")
    assert code == 0
    got = json.loads(out)
    assert got["total_cost"] == 0 and len(got["decisions"]) == 2


# -- terminal play that cannot be misread -------------------------------------------------
def _play(capsys, monkeypatch, tmp_path, stdin, *extra):
    path = tmp_path / "game.json"
    code, out, err = cli(capsys, monkeypatch, "play", "yazy", "--seed", "7", "--record",
                         str(path), "--top", "3", *extra, stdin=stdin)  # fmt: skip
    return code, out, err, json.loads(path.read_text())


def test_a_letter_picks_the_option_shown_with_it(capsys, monkeypatch, tmp_path):
    # seed 7, turn 1: 4 4 5 6 6, where a = keep 6 6 and b = keep 5 6 6
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "b\nq\n")
    assert code == 0 and "│ a │ keep 6 6 " in out and "│ b │ keep 5 6 6 " in out
    assert record["turns"][0]["keeps"] == [[5, 6, 6]]


def test_an_options_label_typed_as_shown_keeps_its_dice(capsys, monkeypatch, tmp_path):
    # seed 7, turn 1: 4 4 5 6 6; "keep 5 6 6" is option b's label
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "keep 5 6 6\nq\n")
    assert code == 0 and "unknown box" not in out
    assert record["turns"][0]["keeps"] == [[5, 6, 6]]


def test_a_number_never_names_a_box(capsys, monkeypatch, tmp_path):
    # after the last throw "2" is not Twos: numbers are dice, boxes are named
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "\n\n2\nsixes\nq\n")
    assert "2: a box is named, not numbered" in out
    assert record["turns"][0]["box"] == "sixes"


def test_a_box_named_with_rerolls_left_is_scored_only_when_confirmed(capsys, monkeypatch,
                                                                     tmp_path):  # fmt: skip
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "sixes\nn\nsixes\ny\nq\n")
    assert out.count("score 'sixes' now, with 2 rerolls left? (y/n)") == 2
    assert record["turns"][0]["box"] == "sixes" and record["turns"][0]["points"] == 12


def test_undo_takes_back_the_last_decision_and_the_dice_fall_as_they_did(capsys, monkeypatch,
                                                                         tmp_path):  # fmt: skip
    # keep 5 6 6, take it back, keep 6 6: the next throw is the one keeping 6 6 gives
    _, _, _, straight = _play(capsys, monkeypatch, tmp_path, "a\nq\n")
    (tmp_path / "game.json").unlink()
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "b\nu\na\nq\n")
    assert "took back keep 5 6 6" in out
    assert record["turns"][0]["keeps"] == [[6, 6]]
    assert record["turns"][0]["throws"] == straight["turns"][0]["throws"]
    # a box taken back: the turn's keep decision comes back, rerolls and all
    (tmp_path / "game.json").unlink()
    code, out, _, record = _play(capsys, monkeypatch, tmp_path, "sixes\ny\nu\na\nq\n")
    assert "took back sixes (12)" in out and "box" not in record["turns"][0]
    assert record["turns"][0]["keeps"] == [[6, 6]]


def test_every_turn_opens_with_the_scorecard(capsys, monkeypatch, tmp_path):
    code, out, _, _ = _play(capsys, monkeypatch, tmp_path, "\n\n\n\n\n\nq\n")
    flat = " ".join(out.split())
    assert "Ones - · Twos - · Threes - ·" in flat and "Five of a kind - (score 0)" in flat
    assert "Ones - · Twos - · Threes - · Fours - · Fives - · Sixes 18 ·" in flat
    assert "Ones 1 · Twos - ·" in flat and "(score 19)" in flat


def test_two_games_started_in_the_same_second_get_two_records(tmp_path, monkeypatch):
    from dicelab.cli.play import default_record_path

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("time.strftime", lambda fmt: fmt.replace("%Y%m%d-%H%M%S", "20261127-1"))
    first, second = default_record_path(), default_record_path()
    assert first != second and first.exists() and second.exists()
    assert second.name == "dicelab-game-20261127-1-2.json"
