"""The history of finished games: kept safely, listed, drawn, exported and imported."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.play import history
from dicelab.play.game import Game, review


def played(seed: int, keep_nothing: bool = False) -> tuple[dict, object]:
    """A finished game of yazy and its review (``keep_nothing``: mistakes on purpose)."""
    table = expected_table("yazy")
    game = Game(table, seed=seed)
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        elif game.phase == "keep":
            best = game.advice().best
            if keep_nothing:
                game.keep([])
            elif best.kind == "keep":
                game.keep(list(best.keep))
            else:
                game.fill(best.box)
        else:
            game.fill(game.advice().best.box)
    return game.record, review(table, game.record)


def test_a_game_is_kept_once_with_its_figures(tmp_path):
    path = tmp_path / "h.sqlite3"
    record, result = played(1, keep_nothing=True)
    first = history.keep(record, result, path=path)
    assert first is not None
    assert history.keep(record, result, path=path) is None  # the same record: kept once
    (entry,) = history.entries(path=path)
    assert (entry.kind, entry.rules, entry.score) == ("game", "yazy", result.score)
    assert entry.decisions == len(result.decisions)
    assert entry.mistakes == len(result.mistakes) > 0
    assert entry.average_cost == pytest.approx(result.total_cost / len(result.decisions))
    costs = [w["cost"] for w in entry.worst]
    assert costs == sorted(costs, reverse=True) and costs[0] == max(
        d.cost for d in result.decisions
    )
    assert history.records(path=path) == [record]
    with sqlite3.connect(path) as con:  # a versioned schema, in WAL mode
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(history.MIGRATIONS)
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_reading_a_history_that_does_not_exist_creates_nothing(tmp_path):
    path = tmp_path / "none" / "h.sqlite3"
    assert history.entries(path=path) == []
    assert not path.exists() and not path.parent.exists()


@pytest.mark.parametrize(
    "content",
    [b"this is not a database at all, just text" * 100, b"SQLite format 3\x00" + b"\x07" * 500],
)
def test_a_damaged_file_is_refused_and_left_as_it_is(tmp_path, content):
    path = tmp_path / "h.sqlite3"
    path.write_bytes(content)
    record, result = played(2)
    with pytest.raises(UserError, match="left as it is"):
        history.keep(record, result, path=path)
    with pytest.raises(UserError, match="left as it is"):
        history.entries(path=path)
    assert path.read_bytes() == content


def test_a_foreign_database_is_refused_and_left_as_it_is(tmp_path):
    path = tmp_path / "h.sqlite3"
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE accounts (id INTEGER, balance REAL)")
    before = path.read_bytes()
    record, result = played(2)
    with pytest.raises(UserError, match="another program"):
        history.keep(record, result, path=path)
    assert path.read_bytes() == before


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "h.sqlite3"
    record, result = played(3)
    history.keep(record, result, path=path)
    with sqlite3.connect(path) as con:
        con.execute(f"PRAGMA user_version = {len(history.MIGRATIONS) + 1}")
    with pytest.raises(UserError, match="newer dicelab"):
        history.entries(path=path)


WRITER = """
import sys, time
from types import SimpleNamespace as NS
from dicelab.play import history
path, who, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
option = NS(label="keep 6 6")
decision = NS(cost=0.5, mistake=True, turn=1, throw=1, dice=(1, 2, 3, 4, 5), chosen=option,
              best=option)
result = NS(score=100, decisions=[decision], total_cost=0.5)
for i in range(n):
    history.keep({"format": "dicelab-game", "rules": "yazy", "who": who, "i": i}, result,
                 path=path)
    print(i, flush=True)
"""


def test_writers_at_once_lose_nothing(tmp_path):
    # four processes start on a file that does not exist yet: they race to create the
    # schema, to turn on WAL and to write
    path = str(tmp_path / "h.sqlite3")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, path, who, "25"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for who in "abcd"
    ]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    kept = history.records(path=Path(path))
    assert len(kept) == 100
    assert {(r["who"], r["i"]) for r in kept} == {(w, i) for w in "abcd" for i in range(25)}


def test_a_killed_writer_loses_at_most_the_game_in_progress(tmp_path):
    path = str(tmp_path / "h.sqlite3")
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, path, "k", "100000"], stdout=subprocess.PIPE, text=True
    )
    done = -1
    while done < 20:  # 21 games told kept
        done = int(proc.stdout.readline())
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = history.records(path=Path(path))
    assert len(kept) >= done + 1
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# -- the command line ---------------------------------------------------------------------
def run(*args, data: Path, stdin: str = ""):
    env = dict(os.environ, DICELAB_DATA_DIR=str(data))
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], input=stdin, capture_output=True,
        text=True, env=env,
    )  # fmt: skip


@pytest.mark.slow
def test_play_keeps_the_game_and_history_lists_draws_exports_and_imports(tmp_path):
    data = tmp_path / "data"
    out = run("play", "yazy", "--seed", "5", "--record", str(tmp_path / "g.json"),
              data=data, stdin="\n" * 60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "kept in the history" in out.stdout
    listed = run("history", data=data)
    assert listed.returncode == 0 and "yazy" in listed.stdout and "1 kept" in listed.stdout
    as_json = json.loads(run("history", "--json", data=data).stdout)
    (game,) = as_json["games"]
    assert game["mistakes"] == 0 and game["average_cost"] == 0  # every option the best
    png = tmp_path / "trend.png"
    assert run("history", "--plot", str(png), data=data).returncode == 0
    assert png.stat().st_size > 1000
    exported = tmp_path / "games.json"
    assert run("history", "--export", str(exported), data=data).returncode == 0
    other = tmp_path / "other"
    out = run("history", "--import", str(exported), data=other)
    assert out.returncode == 0 and "imported 1 game;" in out.stdout
    again = run("history", "--import", str(exported), data=other)
    assert "imported 0 games; 1 already kept" in again.stdout
    assert (
        json.loads(run("history", "--json", data=other).stdout)["games"][0]["score"]
        == (game["score"])
    )


def test_history_mistakes_are_one_line(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / history.FILE_NAME).write_bytes(b"garbage" * 50)
    out = run("history", data=data)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "left as it is" in out.stderr
    assert (data / history.FILE_NAME).read_bytes() == b"garbage" * 50
    record = tmp_path / "r.json"
    unfinished, _ = played(7)
    unfinished["turns"] = unfinished["turns"][:3]
    record.write_text(json.dumps(unfinished))
    out = run("history", "--import", str(record), data=tmp_path / "d2")
    assert out.returncode == 2 and "unfinished" in out.stderr
    out = run("history", "--plot", str(tmp_path / "x.txt"), data=tmp_path / "d2")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_the_tests_never_touch_the_user_folder():
    assert os.environ["DICELAB_DATA_DIR"] != ""
    from platformdirs import user_data_dir

    assert not str(history.history_path()).startswith(user_data_dir("dicelab"))
    time.sleep(0)


def test_an_older_schema_is_brought_up_to_date_and_keeps_its_games(tmp_path):
    path = tmp_path / "h.sqlite3"
    with sqlite3.connect(path) as con:  # a history as the first schema wrote it
        con.executescript(history.MIGRATIONS[0])
        con.execute(f"PRAGMA application_id = {history.APPLICATION_ID}")
        con.execute("PRAGMA user_version = 1")
        con.execute(
            "INSERT INTO games (kind, rules, finished_at, score, decisions, mistakes, "
            "total_cost, worst, record, digest) VALUES ('game', 'yazy', 1.0, 150, 30, 2, 1.5, "
            "'[]', '{}', 'x')"
        )
    (old,) = history.entries(path=path)
    assert (old.score, old.mistakes) == (150, 2)
    record, result = played(4, keep_nothing=True)
    history.keep(record, result, path=path)
    with sqlite3.connect(path) as con:
        assert con.execute("PRAGMA user_version").fetchone()[0] == len(history.MIGRATIONS)
    kinds = history.kinds_of("yazy", path=path)
    assert {row["kind"] for row in kinds} >= {"keep"}
    assert sum(row["mistakes"] for row in kinds) == len(result.mistakes)


def test_an_import_checks_a_records_rules_before_solving_anything(tmp_path, monkeypatch):
    import dicelab.cli.advice as advice
    from dicelab.cli.history import import_records

    record, _ = played(3)
    solved = []
    real = advice.load_table
    monkeypatch.setattr(advice, "load_table", lambda r, quiet=False: solved.append(r) or real(r))
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)
    for source, words in [
        ("maxi-yatzy", "other rules than 'maxi-yatzy'"),  # a large solve it must not start
        ('extends = "/etc/hostname"\nname = "x"', "extends"),  # text may not read files
        (str(fifo), "neither built in nor a regular file"),  # a pipe would hang the import
    ]:
        path = tmp_path / "r.json"
        path.write_text(json.dumps({**record, "rules_source": source}))
        with pytest.raises(UserError, match=words):
            import_records(str(path), quiet=True)
    assert solved == []
