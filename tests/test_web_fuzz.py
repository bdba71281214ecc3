"""Every endpoint of the JSON API fuzzed from its own OpenAPI schema: no 5xx, ever.

Bodies are drawn from the schema of each request (every field, nested models,
lists, enums) and then bent: fields left out or added, values of the wrong type,
huge or negative numbers, deep nesting, odd strings. The server answers each
with a 2xx or a 4xx carrying ``{"detail": ...}``; a 5xx or anything else fails.
Solves are kept to the smallest tables by a one-second budget, so a run of a few
thousand requests takes well under a minute.
"""

from __future__ import annotations

import json
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicelab.web.app import create_app
from dicelab.web.store import Store

BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "chance", "yahtzee", "full_house"]
HINTS = {
    "dice": st.lists(st.integers(1, 6), min_size=5, max_size=5),
    "rerolls_left": st.integers(0, 2),
    "filled": st.dictionaries(st.sampled_from(BOXES), st.integers(0, 30), max_size=5),
    "mine": st.dictionaries(st.sampled_from(BOXES), st.integers(0, 30), max_size=4),
    "theirs": st.dictionaries(st.sampled_from(BOXES), st.integers(0, 30), max_size=4),
    "upper_total": st.integers(0, 63),
    "extra_bonuses": st.integers(0, 2),
    "target": st.integers(0, 400),
}
RULES = ["yazy", "yacht", "yahtzee", "generala", "no-such-rules", "", "../../etc/passwd", "y" * 300]
WORDS = ["ones", "twos", "sixes", "chance", "yahtzee", "full_house", "x", "", "é", "<script>"]
JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.lists(st.integers(-3, 9), max_size=8),
    st.dictionaries(st.text(max_size=8), st.integers(-5, 60), max_size=4),
)


def _resolve(spec: dict, schema: dict) -> dict:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def value_of(spec: dict, schema: dict, name: str = "", depth: int = 0) -> st.SearchStrategy:
    """Values for ``schema``, mostly of its type, sometimes not."""
    schema = _resolve(spec, schema)
    if depth > 4:
        return JUNK
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            return st.one_of([value_of(spec, s, name, depth + 1) for s in schema[key]])
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    if name in ("rules", "rules_id"):
        return st.sampled_from(RULES)
    if name in HINTS:  # values near the valid ones, to reach past the first checks
        hint = HINTS[name]
        return st.one_of(hint, hint, hint, _typed(spec, schema, name, depth))
    return _typed(spec, schema, name, depth)


def _typed(spec: dict, schema: dict, name: str, depth: int) -> st.SearchStrategy:
    kind = schema.get("type")
    if kind == "object" and "properties" in schema:
        return object_of(spec, schema, depth)
    if kind == "object":
        extra = schema.get("additionalProperties")
        values = value_of(spec, extra, "", depth + 1) if isinstance(extra, dict) else JUNK
        return st.dictionaries(st.sampled_from(WORDS) | st.text(max_size=6), values, max_size=6)
    if kind == "array":
        items = value_of(spec, schema.get("items", {}), name, depth + 1)
        return st.lists(items, max_size=8 if depth < 2 else 3)
    if kind == "integer":
        return st.integers(-3, 70) | st.sampled_from([0, 1, 6, 2**31, -(2**63), 10**30])
    if kind == "number":
        return st.floats(-1e3, 1e3) | st.sampled_from([0.0, 1e308, -1e-308])
    if kind == "boolean":
        return st.booleans()
    if kind == "string":
        return st.sampled_from(WORDS) | st.text(max_size=40)
    return JUNK


def object_of(spec: dict, schema: dict, depth: int) -> st.SearchStrategy:
    """A dict of the model's fields, some left out, some of another type, some added."""
    fields = {
        key: st.one_of(value_of(spec, sub, key, depth + 1), JUNK)
        if depth
        else value_of(spec, sub, key, depth + 1)
        for key, sub in schema["properties"].items()
    }
    required = set(schema.get("required", ()))

    @st.composite
    def build(draw):
        out = {}
        for key, values in fields.items():
            keep = draw(st.integers(0, 19))
            if key in required and keep > 0 or key not in required and keep > 9:
                out[key] = draw(values) if keep > 1 else draw(JUNK)
        if draw(st.integers(0, 19)) == 0:
            out[draw(st.text(min_size=1, max_size=8))] = draw(JUNK)
        return out

    return build()


def _deep(draw_depth: int) -> str:
    return "[" * draw_depth + "]" * draw_depth


@pytest.fixture(scope="module")
def fuzz_client(tmp_path_factory):
    from fastapi.testclient import TestClient

    patch = pytest.MonkeyPatch()
    patch.setenv("DICELAB_CACHE_DIR", str(tmp_path_factory.mktemp("fuzz-cache")))
    patch.setenv("DICELAB_MAX_SECONDS", "1")  # only the smallest tables are solved
    app = create_app(Store(processes=False))
    with TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        yield client, app.openapi()
    patch.undo()


def _operations():
    spec = create_app().openapi()
    return [
        (method.upper(), path)
        for path, ops in spec["paths"].items()
        for method in ops
        if path.startswith("/api/")
    ]


def _check(response) -> None:
    assert response.status_code < 500, (response.status_code, response.text[:300])
    if response.status_code >= 400:
        detail = response.json()["detail"]
        assert isinstance(detail, str) and detail and "Traceback" not in detail


@pytest.mark.slow
@pytest.mark.parametrize("method, path", _operations())
def test_every_endpoint_survives_its_schema_bent(fuzz_client, method, path):
    client, spec = fuzz_client
    op = spec["paths"][path][method.lower()]
    body_schema = op.get("requestBody", {}).get("content", {}).get("application/json", {})
    body = value_of(spec, body_schema["schema"]) if body_schema else st.none()
    params = {
        p["name"]: value_of(spec, p.get("schema", {}), p["name"]) for p in op.get("parameters", [])
    }
    query = st.fixed_dictionaries(params)

    @settings(
        max_examples=400,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
    )
    @given(body=body, query=query, raw=st.integers(0, 29), depth=st.integers(50, 3000))
    def run(body, query, raw, depth):
        url = path
        for name in re.findall(r"\{(\w+)\}", path):
            url = url.replace("{" + name + "}", str(query.pop(name, "yazy"))[:200] or "yazy")
        query = {
            k: v for k, v in query.items() if v is not None and not isinstance(v, (dict, list))
        }
        if raw == 0:  # not JSON at all, or nested past any parser
            content = _deep(depth) if depth % 2 else '{"rules": "yazy", '
            r = client.request(method, url, params=query, content=content,
                               headers={"content-type": "application/json"})  # fmt: skip
        elif body is None:
            r = client.request(method, url, params=query)
        else:
            r = client.request(method, url, params=query, content=json.dumps(body),
                               headers={"content-type": "application/json"})  # fmt: skip
        _check(r)

    run()


# -- found by fuzzing a live server: each once a 500 -----------------------------------
PIG = ("pig", {"goal": "20"})
FARKLE = ("farkle", {"goal": "1000", "players": "1", "play": "goal"})
RACE = ("bearoff", {"mine": "3,2", "theirs": "2,1"})
BENT_POSITIONS = [
    (PIG, "", None),  # indexed as a tuple
    (PIG, ["won"], None),
    (PIG, [0, 1e-320, 0, 0, True], None),  # a float as an array index
    (PIG, [0, 0, 0, 1.5, False], "roll"),
    (PIG, [0.0, 0, 0, 0, True], None),  # equal to the start, but not the start's kinds
    (PIG, [0, 0, 0, 0, 1], None),
    (PIG, [0, 0, 0, 0, "\ud800"], None),  # a truthy text for the flag: cannot be answered
    (PIG, [0, "\ud800", 0, 0, True], None),  # quoted in the error, UTF-8 cannot hold it
    (PIG, [[[[[[0]]]]]], None),
    (("shut-the-box", {"tiles": "6"}), ["roll", 1.0], None),
    (FARKLE, ["roll", 0, 0, 0, 0, 1.5], None),
    (RACE, ["roll", 1, [0, 1, 1, 0, 0, 0.0], [1, 1, 0, 0, 0, 0]], None),  # the other seat
    (RACE, ["roll", True, [0, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0]], None),
]


@pytest.mark.parametrize("game, position, move", BENT_POSITIONS)
def test_a_bent_game_position_is_one_clear_400(fuzz_client, game, position, move):
    client, _ = fuzz_client
    name, setting = game
    body = {"game": name, "settings": setting, "position": position, "move": move}
    r = client.post("/api/games/position", content=json.dumps(body),
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 400, r.text
    assert "position" in r.json()["detail"]


def test_a_game_position_nested_past_the_stack_is_400(fuzz_client):
    client, _ = fuzz_client
    deep = '{"game": "pig", "settings": {"goal": "20"}, "position": ' + _deep(900) + "}"
    r = client.post("/api/games/position", content=deep,
                    headers={"content-type": "application/json"})  # fmt: skip
    assert r.status_code == 400 and "nested" in r.json()["detail"]


def test_positions_as_answers_gave_them_still_serve(fuzz_client):
    """The check of kinds refuses none of the game's own positions, the bear-off
    race's other seat (a mirrored node) among them."""
    client, _ = fuzz_client
    for (name, setting), step in [(PIG, {}), (FARKLE, {}), (RACE, {"throw": "1-2"})]:
        at = client.post("/api/games/position", json={"game": name, "settings": setting})
        here = client.post("/api/games/position",
                           json={"game": name, "settings": setting, **step,
                                 "position": at.json()["position"]}).json()  # fmt: skip
        if here["moves"]:
            move = here["moves"][0]["move"]
            here = client.post("/api/games/position", json={
                "game": name, "settings": setting, "position": here["position"], "move": move
            }).json()  # fmt: skip
        again = client.post("/api/games/position",
                            json={"game": name, "settings": setting,
                                  "position": here["position"]})  # fmt: skip
        assert again.status_code == 200, again.text
        assert again.json()["position"] == here["position"]


def test_games_solved_one_at_a_time_and_a_crowd_beyond_the_queue_is_503(tmp_path, monkeypatch):
    """Many games asked at once once held all their solves in memory together (ten
    Pig games: 4.7 GB); now large ones take turns in a worker process, and beyond
    MAX_WAITING the answer is a 503 with Retry-After, at once."""
    import threading

    from fastapi.testclient import TestClient

    from dicelab.web import game_store

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(game_store, "APART_FROM", 0)  # every game large: in a worker, in turn
    monkeypatch.setattr(game_store, "MAX_WAITING", 2)
    games = game_store.GameStore()
    app = create_app(Store(processes=False), dice_games=games)
    client = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    answers: dict[int, int] = {}

    def ask(goal: int) -> None:
        body = {"game": "pig", "settings": {"goal": str(goal)}}
        answers[goal] = client.post("/api/games/position", json=body).status_code

    games._apart.acquire()  # a solve that runs long: the others wait their turn
    try:
        assert not games.busy()
        waiting = [threading.Thread(target=ask, args=(goal,)) for goal in (11, 12)]
        for t in waiting:
            t.start()
        deadline = time.monotonic() + 10
        while games._queued < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        crowd = client.post("/api/games/position", json={"game": "pig", "settings": {"goal": "13"}})
        assert crowd.status_code == 503 and crowd.headers["Retry-After"]
        assert "wait to be solved" in crowd.json()["detail"]
        assert games.busy()  # a stop would not wait for them
    finally:
        games._apart.release()
    for t in waiting:
        t.join(60)
    assert answers == {11: 200, 12: 200}


def test_a_request_cancelled_by_a_stop_is_answered_503():
    """uvicorn cancels the requests still running once its grace time is over: one
    cancelled while it awaited a thread's work once ended in a traceback and a 500."""
    import asyncio

    from dicelab.web.app import STOPPING, StopAnswers

    async def waits_on_a_thread(scope, receive, send):
        raise asyncio.CancelledError("Task cancelled, timeout graceful shutdown exceeded")

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    async def receive():
        return {"type": "http.request", "body": b""}

    scope = {"type": "http", "method": "POST", "path": "/api/games/position", "headers": []}
    asyncio.run(StopAnswers(waits_on_a_thread)(scope, receive, send))
    assert sent[0]["status"] == 503
    assert json.loads(sent[1]["body"]) == {"detail": STOPPING}


@pytest.mark.slow
def test_a_stop_while_games_are_solved_takes_seconds(tmp_path):
    """A game solves in a thread of the server, which nothing stops: a SIGTERM once
    waited for it (13.6 s while fuzzed), and the request waiting ended in a traceback
    and a 500. Now the server ends within 5 s and the request is told it stops."""
    import signal
    import socket
    import subprocess
    import sys
    import threading

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(__import__("os").environ, DICELAB_CACHE_DIR=str(tmp_path / "cache"),
               DICELAB_DATA_DIR=str(tmp_path / "data"))  # fmt: skip
    cmd = [sys.executable, "-m", "dicelab.cli", "serve", "--port", str(port),
           "--log-level", "warning"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    answers = []

    def ask(goal: int) -> None:
        body = {"game": "pig", "settings": {"goal": str(goal)}}
        answers.append(httpx.post(base + "/api/games/position", json=body, timeout=60))

    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/api/health", timeout=1)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        asking = [threading.Thread(target=ask, args=(g,)) for g in (98, 99, 100)]
        for t in asking:
            t.start()
        time.sleep(2)  # inside the first solve (about 4 s each, one at a time)
        start = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
        assert time.monotonic() - start <= 5
        for t in asking:
            t.join(timeout=10)
    finally:
        proc.kill()
        out = proc.communicate()[0].decode()
    assert "Traceback" not in out, out
    assert all(r.status_code == 503 for r in answers if r.status_code != 200)
