"""A history that cannot be written, cannot be opened for writing, or holds a damaged
row never costs a game: one warning line, the game kept in its record file, exit 0;
the server answers 503 in a sentence without its paths. A file to import or a size
that cannot be had is one line and exit code 2."""

import errno
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace as NS

import pytest
import typer
from played import finished_game

from dicelab.cli.history import keep_game
from dicelab.cli.output import Console
from dicelab.play import history

OPTION = NS(label="keep 6 6")
RESULT = NS(score=100, decisions=[NS(cost=0.5, mistake=True, turn=1, throw=1, dice=(1, 2, 3, 4, 5),
                                     chosen=OPTION, best=OPTION)], total_cost=0.5)  # fmt: skip


def record(i: int) -> dict:
    return {"format": "dicelab-game", "rules": "yazy", "i": i}


def run(*args, data: Path | str, stdin: str = "", timeout: float = 120):
    env = dict(os.environ, DICELAB_DATA_DIR=str(data), COLUMNS="500")  # lines unbroken
    return subprocess.run([sys.executable, "-m", "dicelab.cli", *args], input=stdin,
                          capture_output=True, text=True, env=env, timeout=timeout)  # fmt: skip


def unwritable(tmp_path: Path, how: str) -> Path:
    """A data folder where the history cannot be written (as root too)."""
    if how == "data folder a file":
        data = tmp_path / "data"
        data.write_text("not a folder")
        return data
    data = tmp_path / "data"
    (data / history.FILE_NAME).mkdir(parents=True)
    return data


def one_warning(stderr: str, reason: str, what: str = "game") -> None:
    assert stderr.count("\n") == 1, stderr
    assert stderr == (
        f"warning: the history could not be written ({reason}): this {what} is not kept\n"
    )


# -- an unwritable history: one warning line, the game kept, exit 0 -----------------------
@pytest.mark.parametrize(
    "how, reason",
    [
        ("data folder a file", "{data} is not a folder"),
        ("history file a folder", "{data}/history.sqlite3 is a folder, not a file"),
    ],
)
def test_play_with_an_unwritable_history_warns_once_and_ends_0(tmp_path, how, reason):
    data = unwritable(tmp_path, how)
    saved = tmp_path / "g.json"
    out = run("play", "yazy", "--seed", "5", "--record", str(saved), data=data, stdin="\n" * 60)
    assert out.returncode == 0, out.stderr
    one_warning(out.stderr, reason.format(data=data))
    assert f"the game record is in {saved}" in out.stdout
    assert json.loads(saved.read_text())["finished"]


def test_duel_match_and_training_with_an_unwritable_history_end_0(tmp_path):
    from oracles.duel import FOUR_TOML

    four = tmp_path / "four.toml"
    four.write_text(FOUR_TOML)
    data = unwritable(tmp_path, "data folder a file")
    reason = f"{data} is not a folder"
    for args, saved in [
        (("duel", "play", str(four), "--seed", "5"), tmp_path / "d.json"),
        (("match", "play", str(four), "--opponents", "2", "--seed", "7"), tmp_path / "m.json"),
    ]:
        out = run(*args, "--record", str(saved), data=data, stdin="\n" * 200)
        assert out.returncode == 0, out.stderr
        one_warning(out.stderr, reason)
        assert f"the game record is in {saved}" in out.stdout and saved.exists()
    data = unwritable(tmp_path / "t", "history file a folder")
    reason = f"{data}/history.sqlite3 is a folder, not a file"
    for json_lines in (False, True):
        args = ("train", "yazy", "-n", "2", "--seed", "3") + (("--json",) if json_lines else ())
        out = run(*args, data=data, stdin="none\n" * 10)
        assert out.returncode == 0, out.stderr
        read, written = out.stderr.splitlines()
        assert read == (f"warning: the history could not be read ({reason}): the questions "
                        "are drawn without its weights")  # fmt: skip
        one_warning(written + "\n", reason, "session")
        if json_lines:  # standard output: JSON lines alone
            assert all(json.loads(line) for line in out.stdout.splitlines())
        else:
            assert "2 answered" in out.stdout


def refuse_writing(monkeypatch, message: str) -> None:
    """Opening the history for writing fails as SQLite says on a read-only folder or a
    full disk (running as root, a folder's mode does not stop writing); opening it
    read-only (a ``file:`` URI) still works."""
    connect = sqlite3.connect

    def refusing(target, *args, **kwargs):
        if kwargs.get("uri") or str(target) == ":memory:":
            return connect(target, *args, **kwargs)
        raise sqlite3.OperationalError(message)

    monkeypatch.setattr(sqlite3, "connect", refusing)


@pytest.mark.parametrize(
    "message, reason",
    [
        ("attempt to write a readonly database", "read-only folder {folder}"),
        ("database or disk is full", "the disk of {folder} is full"),
    ],
)
def test_a_read_only_or_full_history_is_named_so_and_still_read(
    tmp_path, monkeypatch, capsys, message, reason
):
    path = tmp_path / "data" / history.FILE_NAME
    monkeypatch.setenv("DICELAB_DATA_DIR", str(path.parent))
    assert history.keep(record(1), RESULT) is not None
    refuse_writing(monkeypatch, message)
    why = reason.format(folder=path.parent)
    with pytest.raises(history.HistoryError) as caught:
        history.keep(record(2), RESULT)
    assert str(caught.value) == f"the history could not be written ({why})"
    assert "damaged" not in str(caught.value) and str(tmp_path) not in caught.value.reason
    (kept,) = history.entries()  # read, opened read-only
    assert kept.score == 100 and history.records() == [record(1)]
    keep_game(record(3), RESULT, Console(), kind="game")
    out = capsys.readouterr()
    one_warning(out.err, why)
    assert "kept in the history" not in out.out


def test_a_disk_io_error_on_a_full_disk_is_a_full_disk(tmp_path, monkeypatch):
    path = tmp_path / history.FILE_NAME
    history.keep(record(1), RESULT, path=path)
    refuse_writing(monkeypatch, "disk I/O error")  # what SQLite may say when -shm finds no room
    with pytest.raises(history.HistoryError, match=r"\(a disk I/O error at "):
        history.keep(record(2), RESULT, path=path)
    room = NS(f_bavail=0, f_bfree=0, f_flag=0)
    monkeypatch.setattr(os, "statvfs", lambda folder: room)
    with pytest.raises(history.HistoryError, match=rf"\(the disk of {tmp_path} is full\)$"):
        history.keep(record(2), RESULT, path=path)
    assert [e.id for e in history.entries(path=path)] == [1]


def test_no_space_for_the_folder_is_a_full_disk(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("DICELAB_DATA_DIR", str(tmp_path / "new"))

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self))

    monkeypatch.setattr(Path, "mkdir", full)
    keep_game(record(1), RESULT, Console(), kind="training")
    one_warning(capsys.readouterr().err, f"the disk of {tmp_path / 'new'} is full", "session")


def test_a_write_that_fails_inside_the_file_is_not_called_damage(tmp_path, monkeypatch):
    path = tmp_path / history.FILE_NAME
    history.keep(record(1), RESULT, path=path)

    class Full(sqlite3.Connection):
        def execute(self, sql, *args):
            if sql.startswith("INSERT"):
                raise sqlite3.OperationalError("database or disk is full")
            return super().execute(sql, *args)

    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: connect(*a, factory=Full, **k))
    with pytest.raises(history.HistoryError, match=r"written \(the disk of .* is full\)$"):
        history.keep(record(2), RESULT, path=path)
    monkeypatch.undo()
    assert history.records(path=path) == [record(1)]


def test_import_into_an_unwritable_history_is_one_error_line(tmp_path):
    data = unwritable(tmp_path, "data folder a file")
    saved = tmp_path / "g.json"
    saved.write_text(json.dumps(finished_game()))
    out = run("history", "--import", str(saved), data=data)
    assert out.returncode == 2
    assert out.stderr == f"error: the history could not be written ({data} is not a folder)\n"


# -- the server: 503 in a sentence, never 500, never a path -------------------------------
@pytest.fixture
def client():
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app
    from dicelab.web.store import Store

    app = create_app(Store(processes=False))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as c:
        yield c


def detail(response, status: int, tmp_path: Path) -> str:
    assert response.status_code == status, response.text
    text = response.json()["detail"]
    assert isinstance(text, str) and str(tmp_path) not in text and "/" not in text
    return text


def training_answers(client) -> list[dict]:
    session = client.post("/api/training", json={"rules": "yazy", "questions": 2, "seed": 9})
    assert session.status_code == 200, session.text
    keys = ("dice", "rerolls_left", "filled", "extra_bonuses")
    return [{**{k: q[k] for k in keys}, "answer": q["options"][0]}
            for q in session.json()["questions"]]  # fmt: skip


@pytest.mark.parametrize("how", ["data folder a file", "history file a folder"])
def test_the_server_answers_503_for_an_unwritable_history(client, tmp_path, monkeypatch, how):
    monkeypatch.setenv("DICELAB_DATA_DIR", str(unwritable(tmp_path, how)))
    answers = training_answers(client)
    done = client.post("/api/training/finish", json={"rules": "yazy", "seed": 9,
                                                     "answers": answers})  # fmt: skip
    text = detail(done, 503, tmp_path)
    assert text.startswith("this server's history could not be written (")
    assert text.endswith("): nothing was kept")
    kept = client.post("/api/history", json={"record": finished_game()})
    assert detail(kept, 503, tmp_path) == text


def test_the_server_trains_without_weights_where_the_history_cannot_be_read(
    client, tmp_path, monkeypatch
):
    monkeypatch.setenv("DICELAB_DATA_DIR", str(unwritable(tmp_path, "history file a folder")))
    out = client.post("/api/training", json={"rules": "yazy", "questions": 2, "seed": 9})
    assert out.status_code == 200, out.text
    assert out.json()["note"] == (
        "this server's history could not be read (its file is a folder): the questions are "
        "drawn without its weights"
    )
    listed = client.get("/api/history")
    assert detail(listed, 503, tmp_path) == (
        "this server's history could not be read (its file is a folder)"
    )
    (tmp_path / "data" / history.FILE_NAME).rmdir()
    (tmp_path / "data" / history.FILE_NAME).write_bytes(b"garbage" * 100)
    text = detail(client.get("/api/history"), 503, tmp_path)
    assert "not a dicelab history" in text
    out = client.post("/api/training", json={"rules": "yazy", "questions": 2, "seed": 9})
    assert out.status_code == 200 and "not a dicelab history" in out.json()["note"]


# -- a damaged row: named in one warning, left out ---------------------------------------
def damaged_history(tmp_path: Path) -> Path:
    """A history of five games; the 2nd's mistakes, the 3rd's score and the 4th's rules
    damaged (JSON that does not parse, text in a number's column, bytes that are no
    UTF-8), the 5th's record broken."""
    data = tmp_path / "data"
    path = data / history.FILE_NAME
    for i in range(1, 6):
        history.keep(record(i), RESULT, path=path)
    with sqlite3.connect(path) as con:
        con.execute("""UPDATE games SET worst = '[{"turn": 1, "cho' WHERE id = 2""")
        con.execute("UPDATE games SET score = 'l00' WHERE id = 3")
        con.execute("UPDATE games SET rules = CAST(x'79617a' || x'ff' AS TEXT) WHERE id = 4")
        con.execute("""UPDATE games SET record = '{"format": "dicelab-g' WHERE id = 5""")
    return data


def test_damaged_rows_are_left_out_and_named(tmp_path):
    path = damaged_history(tmp_path) / history.FILE_NAME
    damaged: list[int] = []
    assert [e.id for e in history.entries(path=path, damaged=damaged)] == [1, 5]
    assert damaged == [2, 3, 4]
    damaged = []
    assert history.records(path=path, damaged=damaged) == [record(i) for i in range(1, 5)]
    assert damaged == [5]
    with sqlite3.connect(path) as con:
        con.execute("UPDATE games SET by_kind = '[{\"kind\": 7}]' WHERE id = 1")
    damaged = []
    assert history.kinds_of("yazy", path=path, damaged=damaged) == [] and damaged == [1]
    assert history.damaged_note([2]) == (
        "game #2 of the history is damaged (a field that no longer reads) and is left out"
    )
    assert history.damaged_note(list(range(1, 13))).startswith(
        "games #1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 2 more of the history are"
    )


def test_the_history_command_warns_once_of_damaged_rows(tmp_path):
    data = damaged_history(tmp_path)
    warning = ("warning: games #2, #3, #4 of the history are damaged (a field that no "
               "longer reads) and are left out\n")  # fmt: skip
    listed = run("history", data=data)
    assert listed.returncode == 0 and listed.stderr == warning
    assert "#" in listed.stdout and "2 kept" in listed.stdout
    as_json = run("history", "--json", data=data)
    assert as_json.returncode == 0 and as_json.stderr == warning
    assert [g["id"] for g in json.loads(as_json.stdout)["games"]] == [1, 5]
    exported = tmp_path / "out.json"
    out = run("history", "--export", str(exported), data=data)
    assert out.returncode == 0 and out.stderr == warning.replace(
        "games #2, #3, #4", "game #5").replace("are damaged", "is damaged").replace(
        "are left", "is left")  # fmt: skip
    assert json.loads(exported.read_text()) == [record(i) for i in range(1, 5)]


def test_the_server_lists_the_history_without_its_damaged_rows(client, tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_DATA_DIR", str(damaged_history(tmp_path)))
    out = client.get("/api/history")
    assert out.status_code == 200, out.text
    assert [g["id"] for g in out.json()["games"]] == [1, 5]
    assert out.json()["note"].startswith("games #2, #3, #4 of the history are damaged")


# -- history --import: one line and exit 2 for what is not a records file ----------------
def test_import_refuses_deep_huge_and_irregular_files_in_one_line(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    huge = tmp_path / "huge.json"
    huge.write_text('{"format": "dicelab-game", "seed": ' + "9" * 5000 + "}")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for file, message in [
        (deep, f"{deep}: nested too deeply"),
        (huge, f"{huge}: a number of thousands of digits (expected a few)"),
        (fifo, f"game records file '{fifo}' is not a regular file (a folder, a pipe or a device)"),
        (tmp_path, f"game records file '{tmp_path}' is not a regular file"),
    ]:
        out = run("history", "--import", str(file), data=tmp_path / "data", timeout=60)
        assert out.returncode == 2, (file, out.stderr)
        assert out.stderr.startswith(f"error: {message}") and out.stderr.count("\n") == 1
    assert not (tmp_path / "data").exists()


def test_a_number_of_thousands_of_digits_is_one_line_for_other_files_too(tmp_path):
    huge = tmp_path / "huge.json"
    huge.write_text('{"format": "dicelab-game", "seed": ' + "9" * 5000 + "}")
    toml = tmp_path / "huge.toml"
    toml.write_text(f"name = 'x'\ndice = {'9' * 5000}\n")
    for args, name in [
        (("review", str(huge)), "huge.json"),
        (("rules", "show", str(toml)), "huge.toml"),
    ]:
        out = run(*args, data=tmp_path / "data")
        assert out.returncode == 2, (args, out.stderr)
        assert out.stderr == f"error: {name}: a number of thousands of digits (expected a few)\n"


# -- serve --max-memory: a finite size this machine has ----------------------------------
@pytest.mark.parametrize("size", ["inf", "1e30", "-inf", "nan", "100000T"])
def test_max_memory_beyond_this_machine_is_one_line(size, capsys):
    from dicelab.cli.commands.serve import parse_bytes

    with pytest.raises(typer.Exit) as stop:
        parse_bytes(size)
    assert stop.value.exit_code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: max memory: got {size!r}, expected") and err.count("\n") == 1


def test_serve_max_memory_inf_is_one_line():
    out = subprocess.run([sys.executable, "-m", "dicelab.cli", "serve", "--max-memory", "inf"],
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "expected at most this machine's memory" in out.stderr
