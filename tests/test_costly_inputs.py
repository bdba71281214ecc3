"""Inputs that once cost time or a traceback: each now one line and exit 2 (web: a 4xx
at once), before any costly work."""

import json
import os

import pytest
from command_line import run_in_process as dicelab

from dicelab.errors import readable


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "rules.toml"
    os.mkfifo(path)
    return path


def test_a_pipe_or_a_device_is_never_read_as_a_file(capsys, monkeypatch, tmp_path, fifo):
    assert dicelab(monkeypatch, "solve", str(fifo)) == 2
    assert "not a regular file" in capsys.readouterr().err
    assert dicelab(monkeypatch, "assign", str(fifo)) == 2
    assert "not a regular file" in capsys.readouterr().err
    record = tmp_path / "game.json"
    for name in ("/dev/zero", str(fifo), str(tmp_path)):
        record.write_text(json.dumps({"format": "dicelab-dice-game", "version": 1,
                                      "game": name, "settings": []}))  # fmt: skip
        assert dicelab(monkeypatch, "review", str(record)) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("not a regular file" in err or "does not exist" in err)


def test_a_record_step_of_the_wrong_kind_is_one_line(capsys, monkeypatch, tmp_path):
    record = tmp_path / "pig.json"
    for step in ({"throw": []}, {"throw": {"a": 1}}, {"move": [1]}):
        steps = [step] if "throw" in step else [{"throw": "3"}, step]
        record.write_text(json.dumps({"format": "dicelab-dice-game", "version": 1,
                                      "game": "pig", "settings": ["goal=10"],
                                      "steps": steps}))  # fmt: skip
        assert dicelab(monkeypatch, "review", str(record)) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: step") and err.count("\n") == 1, err


def test_numbers_that_are_not_whole_are_refused_in_a_game_file(capsys, monkeypatch, tmp_path):
    path = tmp_path / "bear.toml"
    path.write_text('game = "bearoff"\nmine = [6.5, 2]\n')
    assert dicelab(monkeypatch, "solve", str(path)) == 2
    assert "got [6.5, 2]" in capsys.readouterr().err
    path.write_text('game = "bearoff"\nmine = [true, 2]\n')
    assert dicelab(monkeypatch, "solve", str(path)) == 2


def test_assign_on_empty_input_says_so(capsys, monkeypatch, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("\n \n")
    assert dicelab(monkeypatch, "assign", str(empty)) == 2
    assert "holds no game" in capsys.readouterr().err


def test_an_error_line_is_cut_to_a_readable_length():
    line = readable("pig goal: got " + "9" * 5000 + ", expected 1 to 1000")
    assert len(line) < 200 and "(5,000 characters)" in line and line.endswith("1 to 1000")
    assert readable("a  b\n c") == "a b c"
    assert len(readable("word " * 1000)) == 500


def test_match_advice_checks_the_dice_before_any_table(monkeypatch):
    """Empty dice once answered 400 only after the match table was built (325 s)."""
    import time

    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app
    from dicelab.web.store import Store

    client = TestClient(create_app(Store(processes=False)), base_url="http://127.0.0.1")
    body = {"rules": "yacht", "dice": [], "rerolls_left": 2, "mine": {"filled": {}},
            "theirs": [{"filled": {}}]}  # fmt: skip
    began = time.monotonic()
    answer = client.post("/api/match/advice", json=body)
    assert answer.status_code in (400, 422) and time.monotonic() - began < 20
    assert "dice" in answer.text


def test_a_host_name_of_other_letters_is_shown_as_typed():
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://127.0.0.1")
    answer = client.get("/api/health", headers={"host": "bücher.example".encode()})
    assert answer.status_code == 400 and "bücher.example" in answer.json()["detail"]


def test_a_digit_that_is_not_ascii_is_one_clear_refusal():
    """'²' passes str.isdigit() but not int(): a box's number or a die typed so is
    refused in words, never a 500 or a traceback."""
    from fastapi.testclient import TestClient

    from dicelab.dice import parse_dice
    from dicelab.errors import UserError
    from dicelab.web.app import create_app

    client = TestClient(create_app(), base_url="http://localhost")
    body = {"dice": [1, 1, 1, 1, 1], "rerolls_left": 0, "answer": "²"}
    answer = client.post("/api/training/answer", json=body)
    assert answer.status_code == 400 and "unknown box" in answer.json()["detail"]
    with pytest.raises(UserError, match="is not a number"):
        parse_dice(["3", "²"], 6)
