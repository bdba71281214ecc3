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
