"""A table being solved by one process is waited for by another, not solved twice."""

import subprocess
import sys
import textwrap
import time

import dicelab
from dicelab.engine.runtime import cache, claims
from dicelab.rules import load_rules

FIRST = textwrap.dedent(
    """
    import sys, time
    import dicelab
    from dicelab.engine.runtime import cache, claims
    from dicelab.rules import load_rules
    path = cache.table_path(load_rules("yazy"), "expected")
    claims.claim(path)
    print("claimed", flush=True)
    time.sleep(2.0)  # a long solve
    dicelab.solve("yazy")
    """
)


def test_a_second_process_waits_for_the_table_the_first_is_solving(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    first = subprocess.Popen([sys.executable, "-c", FIRST], stdout=subprocess.PIPE, text=True)
    try:
        assert first.stdout.readline().strip() == "claimed"
        began = time.monotonic()
        table = dicelab.solve("yazy")
        assert time.monotonic() - began >= 1.5  # it waited for the first
        assert table.meta["cached"]  # and read what the first stored
    finally:
        first.wait(60)
    assert first.returncode == 0
    path = cache.table_path(load_rules("yazy"), "expected")
    assert path not in claims.held()


def test_a_failed_solve_gives_its_claim_up(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    path = tmp_path / "table.dlt"
    try:
        with claims.given_up_on_failure():
            assert not claims.claim(path)
            assert path in claims.held()
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert path not in claims.held()
    holder = subprocess.run([sys.executable, "-c", textwrap.dedent(f"""
        from pathlib import Path
        from dicelab.engine.runtime import claims
        print(claims.claim(Path({str(path)!r})))
        """)], capture_output=True, text=True, timeout=30)  # fmt: skip
    assert holder.stdout.strip() == "False"  # free at once: nothing to wait for
