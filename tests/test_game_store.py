"""The server's dice games: built once per settings, large ones solved in a worker
process under the server's limits, dropped when no one waits, small ones never
waiting behind them."""

import time

import pytest

from dicelab.web.game_store import GameStore
from dicelab.web.worker import Cancelled, Limits


def test_a_game_is_built_once_per_settings():
    store = GameStore()
    key, game = store.game("farkle", {"players": "2", "goal": "1000"})
    again_key, again = store.game("farkle", {"goal": "1000", "players": "2"})
    assert again_key == key and again is game
    assert store.game("farkle", {"players": "2"})[1] is not game


def test_a_large_solve_past_the_time_limit_is_stopped(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = GameStore(Limits(seconds=1))
    key, game = store.game("farkle", {"players": "2"})  # to 10,000: about 20 s
    began = time.monotonic()
    with pytest.raises(Cancelled, match="--max-solve-seconds"):
        store.solution(key, game).result(timeout=60)
    assert time.monotonic() - began < 30 and not store.busy()
    assert not list(tmp_path.iterdir())  # nothing written half-way


def test_a_solve_everyone_left_is_stopped_and_a_small_game_does_not_wait(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = GameStore()
    key, game = store.game("farkle", {"players": "2"})
    large = store.solution(key, game)
    small_key, small = store.game("pig", {"goal": "10"})
    began = time.monotonic()
    assert round(store.solution(small_key, small).result(timeout=30).value(), 6) == 0.709424
    assert time.monotonic() - began < 15 and not large.done()
    store.release(small_key)
    store.release(key, gone=True)
    with pytest.raises(Cancelled, match="no one waits"):
        large.result(timeout=10)
    assert not store.busy()
    assert store.solved(small_key) is not None and store.solved(key) is None


def test_a_large_solve_in_its_worker_reports_how_far_it_has_come(tmp_path, monkeypatch):
    """The worker's progress lines reach the store: a bar that moves, the time left
    once a second has passed, and the estimate known before it starts."""
    from fastapi.testclient import TestClient

    from dicelab.web.app import create_app

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = GameStore()
    key, game = store.game("farkle", {"players": "2", "goal": "5000"})
    before = store.progress(key, game)
    assert before["state"] == "idle" and before["estimate_seconds"] > 0
    future = store.solution(key, game)
    seen = []
    while not future.done() and len(seen) < 400:
        seen.append(store.progress(key, game))
        time.sleep(0.05)
    assert any(p["state"] == "solving" and 0 < p["done"] < p["total"] for p in seen)
    assert any("left_seconds" in p for p in seen)
    dones = [p["done"] for p in seen if p["state"] == "solving"]
    assert dones == sorted(dones)
    assert future.result(timeout=120) is not None and store.progress(key, game)["state"] == "ready"
    store.release(key)
    with TestClient(create_app(), base_url="http://127.0.0.1") as client:  # answers at once
        answer = client.post("/api/games/progress", json={"game": "pig", "settings": {}})
        assert answer.status_code == 200 and answer.json()["state"] == "idle"
        bad = client.post("/api/games/progress", json={"game": "pig", "settings": {"goal": "x"}})
        assert bad.status_code == 400 and "goal" in bad.json()["detail"]
