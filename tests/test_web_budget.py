"""The server's budget: sizes worked out apart from the loads, uploads' tables of every
objective kept within a budget, abandoned work dropped however much of it there is, and a
worker's table handed over when the cache cannot keep it. Tiny rule sets only."""

import threading
import time
import warnings

import pytest

from dicelab.engine.runtime.cost import Facts
from dicelab.errors import UserError
from dicelab.rules import load_rules
from dicelab.web import estimates as estimates_module
from dicelab.web import store as store_module
from dicelab.web.app import create_app
from dicelab.web.estimates import Estimates
from dicelab.web.store import Store, has_room
from dicelab.web.worker import Cancelled, QueueFull

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

LOCAL = "http://127.0.0.1"
LARGE = ("target", "win", "match", "duel")

#: 14 straights worth 10,000 each: 1 KB of rules whose win table is 4.3 GiB and 7 min.
COSTLY = 'name = "costly"\ndice = 5\nfaces = 6\nrolls = 3\n' + "".join(
    f'[[categories]]\nid = "s{i}"\nname = "S{i}"\nkind = "straight"\nlength = 5\nscore = 10000\n'
    for i in range(14)
)


def _until(check, seconds=30.0):
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.02)


@pytest.fixture
def held(monkeypatch):
    """Every large table's size held back until ``held.set()`` (estimates in-thread)."""
    gate = threading.Event()
    sizing = estimates_module.table_facts

    def slow(rules, objective):
        if estimates_module.is_large(objective):
            assert gate.wait(30)
        return sizing(rules, objective)

    monkeypatch.setattr(estimates_module, "table_facts", slow)
    yield gate
    gate.set()


@pytest.fixture
def in_child(monkeypatch):
    """Every rule set sized in a child, as the largest are."""
    monkeypatch.setattr(estimates_module, "HEAVY_STATES", 0)


# -- estimates ------------------------------------------------------------------------------
def test_rule_sets_larger_than_yahtzee_are_sized_in_a_child():
    assert not estimates_module.is_heavy(load_rules("yahtzee"))
    assert estimates_module.is_heavy(load_rules("yatzy"))
    assert estimates_module.is_heavy(load_rules("maxi-yatzy"))


def test_estimates_are_worked_out_in_a_child_and_kept(in_child):
    rules = load_rules("yazy")
    estimates = Estimates()
    try:
        futures = {o: estimates.future(rules, o) for o in LARGE}
        for objective, future in futures.items():
            found = future.result(60)
            assert isinstance(found, Facts) and found.cost.bytes > 0, objective
            assert estimates.known(rules, objective) is found
            assert estimates.future(rules, objective).done()  # kept: asked of no child
        _until(lambda: estimates._child is None)  # the child ended once it had answered
    finally:
        estimates.close()


def test_an_estimate_past_its_time_is_stopped_and_named(monkeypatch, in_child):
    monkeypatch.setattr(estimates_module, "ESTIMATE_SECONDS", 0.01)
    estimates = Estimates()
    try:
        with pytest.raises(UserError, match="could not be sized here within"):
            estimates.future(load_rules("yazy"), "target").result(30)
    finally:
        estimates.close()


def test_a_stop_kills_the_estimate_and_awaits_nothing(in_child):
    estimates = Estimates()
    future = estimates.future(load_rules("yacht"), "target")
    _until(lambda: estimates._child is not None or future.done())
    child = estimates._child
    t0 = time.monotonic()
    estimates.close()
    assert time.monotonic() - t0 < 1
    with pytest.raises(UserError, match="stopping"):
        future.result(10)
    if child is not None:
        assert child.wait(10) is not None
    with pytest.raises(UserError, match="stopping"):
        estimates.future(load_rules("yacht"), "win")


def test_a_light_estimate_never_waits_behind_a_heavy_one(monkeypatch):
    gate = threading.Event()
    monkeypatch.setattr(Estimates, "_in_child", lambda self, rules: gate.wait(30))
    estimates = Estimates()
    try:
        heavy = estimates.future(load_rules("maxi-yatzy"), "target")  # held
        light = estimates.future(load_rules("yazy"), "target")
        assert isinstance(light.result(10), Facts) and not heavy.done()
    finally:
        estimates.close()
        gate.set()


def test_too_many_estimates_waiting_are_refused(monkeypatch, held):
    monkeypatch.setattr(estimates_module, "MAX_PENDING", 2)
    estimates = Estimates(processes=False)
    try:
        rules = load_rules("yazy")
        estimates.future(rules, "target")
        estimates.future(rules, "win")
        with pytest.raises(QueueFull):
            estimates.future(rules, "match")
        held.set()
        assert isinstance(estimates.future(rules, "target").result(30), Facts)
    finally:
        estimates.close()


def test_loads_from_disk_never_wait_for_an_estimate(tmp_path, monkeypatch, held):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    Store(processes=False).table(load_rules("yazy"), "spread")  # both yazy tables on disk
    store = Store(processes=False)
    try:
        with TestClient(create_app(store), base_url=LOCAL) as client:
            for name in ("yacht", "yatzy"):  # the sizes of eight tables, all held back
                for objective in LARGE:
                    progress = client.get(f"/api/rules/{name}/progress?objective={objective}")
                    assert progress.status_code == 200 and "estimate_seconds" not in progress.json()
            body = {"rules": "yazy", "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
            t0 = time.monotonic()
            answer = client.post("/api/advice", json=body)
            assert answer.status_code == 200 and time.monotonic() - t0 < 1.0
            held.set()
            url = "/api/rules/yacht/progress?objective=target"
            _until(lambda: "estimate_seconds" in client.get(url).json())
    finally:
        store.close()


# -- uploads' budget ---------------------------------------------------------------------------
def test_an_uploads_costly_table_is_refused_at_once_for_every_objective(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("DICELAB_MAX_MEMORY", str(64 * 2**30))  # the upload's budget decides
    store = Store()
    try:
        with TestClient(create_app(store), base_url=LOCAL) as client:
            up = client.post("/api/rules", json={"toml": COSTLY})
            assert up.status_code == 201, up.text
            rules_id = up.json()["id"]
            body = {"rules": rules_id, "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
            for extra in ({"objective": "win"}, {"objective": "target", "target": 70000}):
                t0 = time.monotonic()
                answer = client.post("/api/advice", json={**body, **extra})
                assert answer.status_code == 400 and time.monotonic() - t0 < 10
                assert "more than a table of uploaded rules may take" in answer.json()["detail"]
            url = f"/api/rules/{rules_id}/progress?objective=match"
            _until(lambda: "refused" in client.get(url).json())
            assert "uploaded rules" in client.get(url).json()["refused"]
            assert client.post("/api/advice", json=body).status_code == 200  # its points: fine
            _until(lambda: not store._solving)  # the spread, worked out in the background
    finally:
        store.close()


def test_an_uploads_modest_table_is_within_its_budget():
    store = Store(processes=False)
    try:
        yazy = load_rules("yazy")
        entry = store.upload('extends = "yazy"\nname = "yazy-2"\ntitle = "yazy again"\n')
        assert not store.is_builtin(entry.rules) and store.is_builtin(yazy)
        for objective in LARGE[:3]:
            store.check_cost(entry.rules, store.facts(entry.rules, objective))
        limits = store.limits_for(entry.rules)
        assert limits.memory == store_module.UPLOAD_MEMORY
        assert limits.seconds == store_module.UPLOAD_SECONDS
        assert store.limits_for(yazy) is store.limits
    finally:
        store.close()


# -- abandoned work ---------------------------------------------------------------------------
def test_a_table_asked_for_in_the_background_is_kept_when_the_waiting_leave(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    store = Store(processes=False)
    busy = threading.Event()
    store._solver.submit(busy.wait, 60)
    try:
        rules = load_rules("yahtzee")
        waited = store.table_future(rules, "target:250", wait=True)
        assert store.table_future(rules, "target:250") is waited  # and in the background
        _until(lambda: store.progress(rules, "target:250")["state"] == "queued")
        store.release_table(rules, "target:250", gone=True)
        assert store.progress(rules, "target:250")["state"] == "queued"
        assert not waited.done()
    finally:
        store.close()
        busy.set()


def test_a_table_still_being_sized_is_dropped_when_its_clients_leave(held):
    store = Store(processes=False)
    try:
        rules = load_rules("yacht")
        future = store.table_future(rules, "target", wait=True)
        assert store._solving[(rules.fingerprint(), "target")].state == "checking"
        store.release_table(rules, "target", gone=True)
        with pytest.raises(Cancelled, match="no one waits"):
            future.result(5)
        held.set()
        _until(lambda: store._estimates.known(rules, "target") is not None)
        time.sleep(0.2)  # the loader's turn: nothing is queued for it
        assert store.progress(rules, "target")["state"] == "idle"
    finally:
        store.close()


def test_abandoned_distributions_are_cancelled_however_many(monkeypatch):
    store = Store(processes=False)
    busy = threading.Event()
    store._forward.submit(busy.wait, 60)  # the distributions' thread held
    try:
        rules = load_rules("yazy")
        starts = [(mask, 0, 0, 0) for mask in range(150)]  # more than are kept
        futures = [store.distribution_future(rules, start) for start in starts]
        assert len(store._charting) == 150
        for start in starts:
            store.release(rules, start, gone=True)
        assert all(f.cancelled() for f in futures) and not store._charting
        busy.set()
        store.table(rules)
        dist = store.distribution_future(rules, (0, 0, 0, 0)).result(30)
        assert dist.mean == pytest.approx(165.7573, abs=1e-3)
        monkeypatch.setattr(store_module, "MAX_QUEUED_DISTRIBUTIONS", 0)
        assert store.distribution_future(rules, (0, 0, 0, 0)) is not None  # kept: no queue
        with pytest.raises(QueueFull):
            store.distribution_future(rules, (1, 0, 0, 0))
    finally:
        store.close()
        busy.set()


# -- a cache that cannot be written -------------------------------------------------------
def test_has_room(tmp_path):
    assert has_room(tmp_path / "new", 1000)
    assert not has_room(tmp_path / "new", 2**62)
    (tmp_path / "file").write_text("")
    assert not has_room(tmp_path / "file", 1000)


def test_a_workers_table_is_handed_over_when_the_cache_cannot_keep_it(tmp_path, monkeypatch):
    (tmp_path / "not-a-folder").write_text("")
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path / "not-a-folder"))
    monkeypatch.setattr(store_module, "QUICK_SECONDS", 0.0)  # every solve in a worker
    store = Store()
    try:
        rules = load_rules("yazy")
        table = store.table(rules)
        assert table.meta["cached"]  # read from the worker's file, not solved here
        assert table.expected_score == pytest.approx(165.7573, abs=1e-3)
        assert list(__import__("pathlib").Path(store._transfer).iterdir()) == []
    finally:
        store.close()


def test_a_table_the_disk_did_not_keep_is_an_error_not_a_second_solve(tmp_path, monkeypatch):
    from dicelab.engine.runtime import cache

    refused = pytest.raises(UserError, match="the disk did not keep it")
    with cache.folder_in_this_thread(tmp_path), refused:
        store_module.read_solved(load_rules("yazy"), "expected", mapped=False)
    assert list(tmp_path.iterdir()) == []
