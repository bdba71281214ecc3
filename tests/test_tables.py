"""The table cache: round trip, damaged and foreign files, atomic writes, commands."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from dicelab.engine.objectives.expected import expected_table
from dicelab.engine.runtime import cache as tables
from dicelab.rules import load_rules


@pytest.fixture()
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(folder))
    return folder


def cli(*args, env_dir):
    env = dict(os.environ, DICELAB_CACHE_DIR=str(env_dir))
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], capture_output=True, text=True, env=env
    )


def test_round_trip(cache):
    first = expected_table("yazy")
    assert first.meta["cached"] is False
    second = expected_table("yazy")
    assert second.meta["cached"] is True
    assert np.array_equal(first.values, second.values, equal_nan=True)
    assert [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")] == []


def test_damaged_file_is_rebuilt(cache):
    first = expected_table("yazy")
    path = tables.table_path(load_rules("yazy"), "expected")
    raw = bytearray(path.read_bytes())
    raw[-10] ^= 0xFF  # flip bits inside the values
    path.write_bytes(bytes(raw))
    assert tables.load_table(path, {"objective": "expected"}) is None
    again = expected_table("yazy")
    assert again.meta["cached"] is False
    assert again.expected_score == first.expected_score
    assert expected_table("yazy").meta["cached"] is True


def test_truncated_and_garbage_files(cache):
    expected_table("yazy")
    path = tables.table_path(load_rules("yazy"), "expected")
    path.write_bytes(path.read_bytes()[:100])
    assert expected_table("yazy").meta["cached"] is False
    path.write_bytes(b"not a table at all")
    assert expected_table("yazy").meta["cached"] is False


def test_foreign_table_is_not_served(cache):
    expected_table("yahtzee-simple")
    src = tables.table_path(load_rules("yahtzee-simple"), "expected")
    dst = tables.table_path(load_rules("yahtzee-no-joker"), "expected")
    shutil.copy(src, dst)  # same shape, other rules
    t = expected_table("yahtzee-no-joker")
    assert t.meta["cached"] is False
    assert abs(t.expected_score - 253.9702412) < 1e-6


def test_no_cache_writes_nothing(cache):
    expected_table("yazy", use_cache=False)
    assert not cache.exists() or list(cache.iterdir()) == []


def test_failed_write_leaves_nothing(cache, monkeypatch):
    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(tables.os, "fsync", boom)
    with pytest.raises(OSError):
        tables.save_table(cache / "x.dlt", np.zeros(10), {"objective": "t"})
    assert list(cache.iterdir()) == []


@pytest.mark.slow
def test_solve_and_cache_commands(tmp_path):
    folder = tmp_path / "c"
    out = cli("solve", "yazy", "--json", env_dir=folder)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["rules"] == "yazy" and data["states"] == 2048 and data["cached"] is False
    assert round(data["expected_score"], 4) == 165.7573 and data["seconds"] > 0
    again = json.loads(cli("solve", "yazy", "--json", env_dir=folder).stdout)
    assert again["cached"] is True and again["expected_score"] == data["expected_score"]
    listing = cli("cache", "list", env_dir=folder)
    assert listing.returncode == 0 and "yazy" in listing.stdout
    refused = cli("cache", "clear", env_dir=folder)  # no terminal to ask: refused, kept
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert "yazy" in cli("cache", "list", env_dir=folder).stdout
    assert "no cached tables of 'yacht'" in cli("cache", "clear", "yacht", env_dir=folder).stdout
    cleared = cli("cache", "clear", "yazy", "--yes", env_dir=folder)
    assert cleared.returncode == 0 and "removed 1" in cleared.stdout
    assert "no cached tables" in cli("cache", "list", env_dir=folder).stdout
    plain = cli("solve", "yazy", "--no-cache", env_dir=folder)
    assert plain.returncode == 0 and "165.7573" in plain.stdout
    assert not list(folder.glob("*.dlt"))


def test_solve_bad_rules_exit_2(tmp_path):
    out = cli("solve", "no-such-rules", env_dir=tmp_path)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_unwritable_cache_keeps_the_result(tmp_path):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    out = cli("solve", "yazy", "--json", env_dir=blocker / "tables")
    assert out.returncode == 0, out.stderr
    assert round(json.loads(out.stdout)["expected_score"], 4) == 165.7573
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("warning: ")


def test_mapped_table_reads_and_checks_only_touched_blocks(cache):
    from dicelab.engine.objectives.target import target_table

    whole = target_table("yazy")
    mapped = target_table("yazy", mapped=True)
    handle = mapped.meta["mapped"]
    assert isinstance(mapped.values, np.memmap) and handle._checked == set()
    for s in (0, 100, 150, 200):
        assert mapped.probability(s) == whole.probability(s)
    n_blocks = len(handle.header["block_sha256"])
    assert 0 < len(handle._checked) < n_blocks  # a few blocks read, not the whole file


def test_a_cached_win_table_is_mapped_where_asked(cache):
    # the server maps the win table it reads from the cache, as it does target tables
    from dicelab.engine.objectives.win import solve_win

    whole = solve_win("yazy").table
    mapped = solve_win("yazy", mapped=True).table
    assert isinstance(mapped.values, np.memmap) and "mapped" in mapped.meta
    assert mapped.start_value == whole.start_value
    assert not isinstance(whole.values, np.memmap)


def test_mapped_table_refuses_a_damaged_block_and_advice_rebuilds(cache):
    from dicelab.engine.objectives.target import target_table

    target_table("yazy")
    path = tables.table_path(
        load_rules("yazy"), "target", {"rows": target_table("yazy").layout.key()}
    )
    header = tables.read_header(path)
    raw = bytearray(path.read_bytes())
    raw[header["_offset"] : header["_offset"] + 8] = b"\xff" * 8  # block 0 holds state 0
    path.write_bytes(bytes(raw))
    with pytest.raises(tables.DamagedTable, match="damaged"):
        target_table("yazy", mapped=True).probability(150)
    res = cli("advise", "yazy", "--dice", "1", "2", "3", "4", "5", "--target", "150", "--json",
              env_dir=cache)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["options"]
    assert tables.load_table(path, {"objective": "target"}) is not None  # solved anew


KILLED_SAVE = """
import os, sys, time
import numpy as np
from pathlib import Path
from dicelab.engine.runtime import cache

def stall(fd):  # the data is written, the file not yet renamed: killed here
    print("writing", flush=True)
    time.sleep(60)

os.fsync = stall
cache.save_table(Path(sys.argv[1]) / "x.expected.0.dlt", np.arange(1 << 20, dtype=np.float64), {})
"""


def _killed_during_save(folder):
    folder.mkdir(parents=True, exist_ok=True)
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED_SAVE, str(folder)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout.readline().strip() == "writing"
    left = [p for p in folder.iterdir() if p.name.startswith(".tmp-")]
    assert len(left) == 1 and left[0].stat().st_size > 8 << 20
    assert tables.stray_files(folder) == []  # its writer is alive: not stray yet
    child.kill()
    child.wait()
    return left[0]


def test_a_save_killed_midway_is_listed_and_cleared(cache):
    expected_table("yazy")
    left = _killed_during_save(cache)
    assert tables.stray_files(cache) == [left]
    out = cli("cache", "list", env_dir=cache)
    assert "1 unfinished file of interrupted saves (8.0 MiB)" in out.stdout
    out = cli("cache", "clear", "--yes", env_dir=cache)
    assert out.returncode == 0 and "1 unfinished file" in out.stdout
    assert not left.exists() and list(cache.iterdir()) == []


def test_a_save_killed_midway_is_cleared_by_the_next_save(cache):
    left = _killed_during_save(cache)
    out = cli("cache", "clear", "yazy", "--yes", env_dir=cache)  # no tables, one stray
    assert out.returncode == 0 and not left.exists()
    left = _killed_during_save(cache)
    expected_table("yazy")
    assert not left.exists()
    assert [p.name.split(".")[1] for p in cache.iterdir()] == ["expected"]


def test_a_large_table_is_solved_into_its_cache_file(cache, monkeypatch):
    # tables of SOLVED_IN_FILE bytes and more are solved straight into the file:
    # the same values as a solve in memory, a file that loads and checks, no leftovers
    import importlib

    from dicelab.engine.objectives.win import solve_win

    utility = importlib.import_module("dicelab.engine.objectives.utility")
    in_memory = solve_win("yazy", use_cache=False).table
    monkeypatch.setattr(utility, "SOLVED_IN_FILE", 0)
    solved = solve_win("yazy").table
    assert isinstance(solved.values, np.memmap)
    assert np.array_equal(solved.values, in_memory.values)
    path = solved.meta["path"]
    assert path is not None
    assert [p.name for p in cache.iterdir() if p.name.startswith(".tmp-")] == []
    header = tables.read_header(tables.Path(path))
    assert header["_offset"] % 4096 == 0  # the array starts on a page
    again = solve_win("yazy").table
    assert again.meta["cached"] is True
    assert np.array_equal(again.values, in_memory.values)


def test_a_solve_into_a_cache_file_that_fails_leaves_nothing(cache, monkeypatch):
    import importlib

    from dicelab.engine.objectives.win import solve_win

    utility = importlib.import_module("dicelab.engine.objectives.utility")
    solve_win("yazy")  # the expected-score table and distribution it needs
    before = sorted(p.name for p in cache.iterdir())
    monkeypatch.setattr(utility, "SOLVED_IN_FILE", 0)

    def broken(*args, **kwargs):
        raise RuntimeError("the solve broke")

    monkeypatch.setattr(utility, "solve_utility", broken)
    with pytest.raises(RuntimeError):
        utility.utility_table("yazy", utility.win_utility(np.array([0.5, 0.5])))
    assert sorted(p.name for p in cache.iterdir()) == before


def test_a_table_file_whose_header_outgrows_its_room_is_written_the_plain_way(cache):
    path = cache / "t.dlt"
    pending = tables.TableFile(path, (1000,), np.float32)
    pending.values[:] = np.arange(1000, dtype=np.float32)
    pending.commit({"objective": "t", "note": "x" * (pending.room + 10)})
    values, header = tables.load_table(path, {"objective": "t"})
    assert np.array_equal(values, np.arange(1000, dtype=np.float32))
    assert [p.name for p in cache.iterdir()] == ["t.dlt"]


def test_a_disk_that_refuses_a_table_file_solves_in_memory(cache, monkeypatch, capsys):
    import importlib

    from dicelab.engine.objectives.win import solve_win

    utility = importlib.import_module("dicelab.engine.objectives.utility")
    monkeypatch.setattr(utility, "SOLVED_IN_FILE", 0)

    def refuse(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(tables.os, "posix_fallocate", refuse, raising=False)
    table = solve_win("yazy").table
    assert not isinstance(table.values, np.memmap)
    assert "solving it in memory" in capsys.readouterr().err


def test_a_table_file_taken_for_a_leftover_is_still_cached(cache):
    # another process's save may clear a temporary file unchanged for an hour
    path = cache / "t.dlt"
    pending = tables.TableFile(path, (1000,), np.float32)
    pending.values[:] = 7.0
    pending.tmp.unlink()
    pending.commit({"objective": "t"})
    values, _ = tables.load_table(path, {"objective": "t"})
    assert np.all(values == 7.0)


# -- the disk budget ------------------------------------------------------------------------
def test_the_cache_keeps_to_its_limit_least_recently_used_first(tmp_path, monkeypatch, capsys):
    import os
    import time

    import dicelab
    from dicelab.engine.runtime import budget

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DICELAB_CACHE_LIMIT", "0")  # no limit while the tables are made
    for theta in (0.01, 0.02, 0.03):
        dicelab.solve("yazy", objective="risk", theta=theta)
    files = budget.table_files(tmp_path, ".dlt")
    sizes = {p: p.stat().st_size for p in files}
    assert len(files) == 3 and budget.folder_bytes(tmp_path) == sum(sizes.values())
    # the 0.01 table is read again: the 0.02 one is now the least recently used
    from dicelab.engine.runtime.cache import list_tables

    old = time.time() - 100
    for i, t in enumerate(sorted(list_tables(), key=lambda t: t.params)):  # made in this order
        os.utime(t.path, (old + i, old + i))
    again = dicelab.solve("yazy", objective="risk", theta=0.01)
    assert again.cached
    capsys.readouterr()
    one = max(sizes.values())
    monkeypatch.setenv("DICELAB_CACHE_LIMIT", str(3 * one))  # room for three
    dicelab.solve("yazy", objective="risk", theta=0.04)  # the fourth
    err = capsys.readouterr().err
    assert "1 least recently used table removed" in err and "DICELAB_CACHE_LIMIT" in err
    kept = {p.name for p in budget.table_files(tmp_path, ".dlt")}
    assert len(kept) == 3 and budget.folder_bytes(tmp_path) <= 3 * one
    left = sorted(t.params for t in list_tables())
    assert left == ["theta 0.01", "theta 0.03", "theta 0.04"]  # 0.02 was used least lately


def test_a_limit_that_is_no_size_takes_the_default_in_one_line(tmp_path, monkeypatch, capsys):
    from dicelab.engine.runtime import budget

    monkeypatch.setenv("DICELAB_CACHE_LIMIT", "lots")
    assert budget.cache_limit(tmp_path) >= budget.LEAST_LIMIT
    err = capsys.readouterr().err
    assert err.startswith("warning: DICELAB_CACHE_LIMIT: got 'lots'") and err.count("\n") == 1
    assert budget.parse_size("1.5G") == 3 << 29


def test_cache_list_names_each_table_on_one_line_with_a_total(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import dicelab
    from dicelab.cli import app

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    dicelab.solve("yazy", objective="risk", theta=0.02)
    dicelab.solve("yazy", objective="target", target=150)
    out = CliRunner().invoke(app, ["cache", "list"], env={"COLUMNS": "80"}).output
    rows = [line for line in out.splitlines() if line.startswith("│")]
    assert any("risk (theta 0.02)" in r for r in rows)
    assert any("target (target 150)" in r for r in rows)
    assert len(rows) == 2  # one line each, at 80 columns
    assert "2 tables, " in out and "of its limit" in out
