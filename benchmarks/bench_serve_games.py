"""Load test of ``dicelab serve``'s dice games: clients asking Farkle positions at once.

Run ``python benchmarks/bench_serve_games.py`` (``--clients 30 --seconds 20``,
``--goal 10000``).

The script starts ``dicelab serve --max-memory 1G --max-solve-seconds 30`` on a free
127.0.0.1 port with a cache folder of its own, asks for two-player Farkle to
``--goal`` (solved in a worker process: the seconds it takes are printed), then
lets ``--clients`` threads, each with its own keep-alive connection, post positions
of that game for ``--seconds``: positions met in games played out with the dice
drawn (a throw to choose from, at every score of both players), so that the
server works out turns it has not seen. It prints the requests a second, the
errors, the median and p99 latency and the server's resident memory, then the
games the reliability trial found costly, each with the seconds and the answer:
Pig with 2 dice of 20 faces to 107 and to 245, a one-die variant, and a small game
asked while a large one is being solved. Nothing but 127.0.0.1 is contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_serve import HOST, free_port, load_average, resident_mb, start_server, stop_server  # noqa: E402


def post(port: int, body: dict, timeout: float = 120) -> tuple[int, dict, float]:
    import http.client

    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    began = time.perf_counter()
    conn.request("POST", "/api/games/position", body=json.dumps(body),
                 headers={"Content-Type": "application/json"})  # fmt: skip
    resp = conn.getresponse()
    data = json.loads(resp.read() or b"{}")
    return resp.status, data, time.perf_counter() - began


def positions(goal: int, count: int, seed: int) -> list[list]:
    """Positions after a throw that scores, met in games played out at random (every
    move drawn among the legal ones, the dice as they fall)."""
    from dicelab.games.chance.farkle import Farkle

    game = Farkle(players=2, goal=goal)
    rng = random.Random(seed)
    out: list[list] = []
    while len(out) < count:
        here = game.start()
        while game.result(here) is None and len(out) < count:
            if game.to_move(here) < 0:
                chances, after = zip(*[(float(p), a) for p, _, a in game.outcomes(here)],
                                     strict=True)  # fmt: skip
                here = rng.choices(after, chances)[0]
            else:
                out.append(json.loads(json.dumps(here)))
                moves = game.moves(here)
                banks = [a for label, a in moves if label.startswith("bank")]
                here = banks[0] if banks and rng.random() < 0.4 else rng.choice(moves)[1]
    return out


def client(port: int, game: dict, bodies: list[list], stop_at: float, seed: int,
           out: dict) -> None:  # fmt: skip
    import http.client

    rng = random.Random(seed)
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    latencies: list[float] = []
    errors: list[str] = []
    while time.monotonic() < stop_at:
        body = json.dumps({**game, "position": rng.choice(bodies)})
        began = time.perf_counter()
        try:
            conn.request("POST", "/api/games/position", body=body,
                         headers={"Content-Type": "application/json"})  # fmt: skip
            resp = conn.getresponse()
            data = resp.read()
            if resp.status != 200 or not json.loads(data).get("moves"):
                errors.append(f"{resp.status}: {data[:120]!r}")
            else:
                latencies.append(time.perf_counter() - began)
        except Exception as exc:  # noqa: BLE001  a failed connection is counted, not fatal
            errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=30)
    out.update(latencies=latencies, errors=errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--goal", type=int, default=10_000)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, DICELAB_CACHE_DIR=cache)
        proc = start_server(port, 120, env, extra=["--max-memory", "1G",
                                                   "--max-solve-seconds", "30"])  # fmt: skip
        try:
            print(load_average())
            game = {"game": "farkle", "settings": {"players": "2", "goal": str(args.goal)}}
            status, data, took = post(port, game)
            print(f"farkle to {args.goal}: first request (solved in a worker) {took:.1f} s, "
                  f"status {status}, first player's chance {data.get('start_value')}")  # fmt: skip
            bodies = positions(args.goal, 3000, 1)
            stop_at = time.monotonic() + args.seconds
            outs = [{} for _ in range(args.clients)]
            threads = [threading.Thread(target=client, args=(port, game, bodies, stop_at, i, o))
                       for i, o in enumerate(outs)]  # fmt: skip
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            lat = sorted(x for o in outs for x in o["latencies"])
            errors = [e for o in outs for e in o["errors"]]
            print(f"{args.clients} clients, {args.seconds:.0f} s: {len(lat) / args.seconds:.1f} "
                  f"requests/s, {len(errors)} errors, median {statistics.median(lat) * 1e3:.1f} "
                  f"ms, p99 {lat[int(0.99 * (len(lat) - 1))] * 1e3:.1f} ms, server "
                  f"{resident_mb(proc.pid)} MB")  # fmt: skip
            for e in errors[:3]:
                print("  error:", e)
            costly(port, proc.pid)
            print(load_average())
        finally:
            print(f"server stopped in {stop_server(proc):.1f} s")


def costly(port: int, pid: int) -> None:
    """The games the reliability trial found costly, one after another, and a small
    game asked while a large one is solved."""
    for settings in ({"dice": "2", "faces": "20", "goal": "107"},
                     {"dice": "2", "faces": "20", "goal": "245"},
                     {"faces": "20", "goal": "1000"}):  # fmt: skip
        status, data, took = post(port, {"game": "pig", "settings": settings})
        said = data.get("start_value", data.get("detail"))
        print(f"pig {settings}: {status} in {took:.1f} s ({said}); server {resident_mb(pid)} MB")
    big = {"game": "farkle", "settings": {"players": "2", "goal": "9000"}}
    threading.Thread(target=post, args=(port, big), daemon=True).start()
    time.sleep(1.0)
    status, data, took = post(port, {"game": "pig", "settings": {"goal": "20"}})
    print(f"pig to 20 while farkle to 9000 is solved: {status} in {took:.2f} s")


if __name__ == "__main__":
    main()
