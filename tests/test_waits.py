"""Advice that needs no second table does not wait for one."""

import time


def test_first_advice_comes_without_the_spread_then_with_it(tmp_path, monkeypatch):
    """A fresh server's first advice once waited for the options' spread (a second
    table: 9 s under load) although the expected table was on disk; now it comes at
    once with each "sd" null, and the spread is there for a later question."""
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app
    from dicelab.web.store import Store

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store(processes=False)
    client = TestClient(create_app(store), base_url="http://127.0.0.1")
    body = {"rules": "yacht", "dice": [3, 3, 6, 5, 6], "rerolls_left": 2}
    first = client.post("/api/advice", json=body).json()
    assert first["options"] and all(o["sd"] is None for o in first["options"])
    deadline = time.monotonic() + 60
    while store.loaded(store.get("yacht").rules, "spread") is None:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    later = client.post("/api/advice", json=body).json()
    assert all(o["sd"] > 0 for o in later["options"])
    assert [o["value"] for o in later["options"]] == [o["value"] for o in first["options"]]
    waited = client.post("/api/advice", json={**body, "rules": "yazy", "wait_spread": True}).json()
    assert all(o["sd"] > 0 for o in waited["options"])


def _shown(**task) -> str:
    """One bar as the terminal shows it, its task's fields as given."""
    import io

    from rich.console import Console
    from rich.progress import Progress

    from dicelab.cli.output import bar_columns

    con = Console(file=io.StringIO(), width=150, force_terminal=True, color_system=None)
    with Progress(*bar_columns("work"), console=con, auto_refresh=False) as bar:
        bar.add_task("solving", **task)
        bar.refresh()
    return con.file.getvalue()


def test_a_bar_shows_time_left_from_its_first_second():
    """Before the work's own rate is known the time left counts down from the
    estimate ("~"); after, it is the rate since the first report, which moves
    between two sparse reports too."""
    ago = time.monotonic() - 10
    assert "eta ~0:01:30" in _shown(total=1000, completed=0, estimate=100.0, began=ago)
    assert "eta ~0:00:00" in _shown(total=1000, completed=5, estimate=5.0, began=ago)
    assert "eta 0:00:10" in _shown(total=1000, completed=500, estimate=100.0, began=ago)
    assert "eta 0:00:30" in _shown(total=1000, completed=250, began=time.monotonic() - 10)
    assert "eta -:--:--" in _shown(total=None)


def test_the_first_duel_and_the_turn_starts_tell_the_bar_their_estimate(monkeypatch, tmp_path):
    from oracles.duel import FOUR_BOXES

    from dicelab.engine.objectives.duel import duel_table
    from dicelab.games.chance.farkle import Farkle
    from dicelab.games.chance.solution import solve
    from dicelab.rules import parse_rules

    class Heard:
        def __init__(self):
            self.estimates, self.ticks = [], 0

        def __call__(self, done, total):
            self.ticks += 1

        def expect(self, seconds):
            assert not self.ticks  # before the first report
            self.estimates.append(seconds)

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    for run in (lambda p: duel_table(parse_rules(FOUR_BOXES), progress=p, use_cache=False),
                lambda p: solve(Farkle(players=2, goal=500), turns=True, progress=p)):  # fmt: skip
        heard = Heard()
        run(heard)
        assert len(heard.estimates) == 1 and heard.estimates[0] > 0 and heard.ticks
