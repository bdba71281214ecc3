"""Load test of ``dicelab serve``: concurrent clients asking for advice on localhost.

Run ``python benchmarks/bench_serve.py`` (``--clients 50 --seconds 30 --rules yahtzee``;
``--during maxi-yatzy`` runs the load while the server solves that rule set's table).

The script starts ``dicelab serve`` itself on a free 127.0.0.1 port, waits for it
(at most ``--startup`` seconds), loads the rules' table, then lets ``--clients``
threads, each with its own keep-alive connection, send advice queries for
``--seconds``: random positions (random boxes filled with points a roll can give
them, random dice, random rerolls left), so that the server cannot answer from a
cache. It then stops the server and prints the number of requests, the errors (any
answer other than 200 with advice, or a failed connection) and the median, p90,
p99 and largest latency. Nothing but 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def positions(rules_name: str, count: int, seed: int) -> list[bytes]:
    """Request bodies of random, valid positions of a rule set."""
    rules = load_rules(rules_name)
    game = compile_rules(rules)
    space = game.space
    rng = random.Random(seed)
    ids = [c.id for c in rules.categories]
    out = []
    for _ in range(count):
        n_filled = rng.randrange(len(ids))
        filled = {}
        for c in rng.sample(range(len(ids)), n_filled):
            roll = [rng.randint(1, rules.faces) for _ in range(rules.dice)]
            filled[ids[c]] = int(game.score[c, space.roll_index(roll)])
        body = {
            "rules": rules_name,
            "dice": [rng.randint(1, rules.faces) for _ in range(rules.dice)],
            "rerolls_left": rng.randrange(rules.rolls),
            "filled": filled,
        }
        out.append(json.dumps(body).encode())
    return out


def start_server(port: int, startup: float, env: dict | None = None) -> subprocess.Popen:
    """``dicelab serve`` in a child process, once it answers on /api/health."""
    cmd = [
        sys.executable, "-m", "dicelab.cli", "serve", "--host", HOST, "--port", str(port),
        "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + startup
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server stopped: {proc.stderr.read().decode()[-2000:]}")
        try:
            conn = http.client.HTTPConnection(HOST, port, timeout=2)
            conn.request("GET", "/api/health")
            if conn.getresponse().status == 200:
                return proc
        except OSError:
            time.sleep(0.1)
    stop_server(proc)
    raise SystemExit(f"the server did not answer within {startup} s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)


def client(port: int, bodies: list[bytes], stop_at: float, seed: int, out: dict) -> None:
    """Send advice queries one after another until ``stop_at``; record each latency."""
    rng = random.Random(seed)
    latencies: list[float] = []
    errors: list[str] = []
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    headers = {"Content-Type": "application/json"}
    while time.monotonic() < stop_at:
        body = rng.choice(bodies)
        t0 = time.perf_counter()
        try:
            conn.request("POST", "/api/advice", body=body, headers=headers)
            resp = conn.getresponse()
            data = resp.read()
            elapsed = time.perf_counter() - t0
            if resp.status != 200:
                errors.append(f"{resp.status}: {data[:200]!r}")
            elif not json.loads(data).get("options"):
                errors.append("an answer without options")
            else:
                latencies.append(elapsed)
        except (OSError, http.client.HTTPException, ValueError) as exc:
            errors.append(f"{type(exc).__name__}: {exc}")
            conn.close()
            conn = http.client.HTTPConnection(HOST, port, timeout=10)
    conn.close()
    out["latencies"] = latencies
    out["errors"] = errors


def get(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    conn.request("GET", path)
    resp = conn.getresponse()
    return resp.status, resp.read()


def long_solve(port: int, name: str) -> None:
    """Start the first solve of ``name``'s table and return once it is under way."""
    threading.Thread(
        target=get, args=(port, f"/api/rules/{name}/expected", 3600), daemon=True
    ).start()
    deadline = time.monotonic() + 120
    while json.loads(get(port, f"/api/rules/{name}/progress")[1]).get("done", 0) == 0:
        if time.monotonic() > deadline:
            raise SystemExit(f"the solve of {name} did not start")
        time.sleep(0.1)


def probe(port: int, name: str, stop_at: float, out: dict) -> None:
    """The health, the rules list and the progress of ``name``, every half second."""
    slowest = 0.0
    while time.monotonic() < stop_at:
        for path in ("/api/health", "/api/rules", f"/api/rules/{name}/progress"):
            t0 = time.perf_counter()
            status, _ = get(port, path)
            slowest = max(slowest, time.perf_counter() - t0)
            if status != 200:
                out.setdefault("errors", []).append(f"{path}: {status}")
        time.sleep(0.5)
    out["slowest_ms"] = round(1000 * slowest, 1)
    out["still_solving"] = (
        json.loads(get(port, f"/api/rules/{name}/progress")[1])["state"] == "solving"
    )


def load_average() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of sorted values."""
    if not sorted_values:
        return float("nan")
    k = max(0, min(len(sorted_values) - 1, round(q / 100 * len(sorted_values) + 0.5) - 1))
    return sorted_values[k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the test")
    parser.add_argument("--rules", default="yahtzee", help="built-in rule set to query")
    parser.add_argument("--startup", type=float, default=120.0, help="server start limit (s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--during", help="run the load while the server solves this rule set")
    args = parser.parse_args()
    if not 1 <= args.clients <= 500 or not 0 < args.seconds <= 600:
        raise SystemExit("--clients must be 1 to 500 and --seconds 0 to 600")

    bodies = positions(args.rules, 2000, args.seed)
    port = free_port()
    own_cache = tempfile.TemporaryDirectory() if args.during else None
    env = dict(os.environ, DICELAB_CACHE_DIR=own_cache.name) if own_cache else None
    before = load_average()
    proc = start_server(port, args.startup, env)
    probed: dict = {}
    try:
        status, data = get(port, f"/api/rules/{args.rules}/expected", args.startup)
        if status != 200:
            raise SystemExit(f"cannot load the table: {status} {data[:300]!r}")
        conn = http.client.HTTPConnection(HOST, port, timeout=args.startup)
        conn.request(
            "POST", "/api/advice", body=bodies[0], headers={"Content-Type": "application/json"}
        )
        conn.getresponse().read()  # the spread table too, before the clock starts
        if args.during:
            long_solve(port, args.during)
        stop_at = time.monotonic() + args.seconds
        results = [{} for _ in range(args.clients)]
        threads = [
            threading.Thread(target=client, args=(port, bodies, stop_at, args.seed + i, out))
            for i, out in enumerate(results)
        ]
        if args.during:
            threads.append(
                threading.Thread(target=probe, args=(port, args.during, stop_at, probed))
            )
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.seconds + 30)
        wall = time.monotonic() - t0
    finally:
        stop_server(proc)
        if own_cache:
            own_cache.cleanup()

    latencies = sorted(x for r in results for x in r.get("latencies", []))
    errors = [e for r in results for e in r.get("errors", [])]
    missing = sum(1 for r in results if "latencies" not in r)
    figures = {
        "rules": args.rules,
        "clients": args.clients,
        "seconds": round(wall, 1),
        "requests": len(latencies) + len(errors),
        "errors": len(errors) + missing,
        "requests_per_second": round((len(latencies) + len(errors)) / wall, 1),
        "median_ms": round(1000 * statistics.median(latencies), 2) if latencies else None,
        "p90_ms": round(1000 * percentile(latencies, 90), 2),
        "p99_ms": round(1000 * percentile(latencies, 99), 2),
        "max_ms": round(1000 * latencies[-1], 2) if latencies else None,
        "load_before": before,
        "load_after": load_average(),
    }
    if args.during:
        figures.update(during=args.during, **probed)
        figures["errors"] += len(probed.get("errors", []))
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"dicelab serve, {args.rules}: {figures['clients']} clients for "
            f"{figures['seconds']} s\n"
            f"requests {figures['requests']} ({figures['requests_per_second']}/s), "
            f"errors {figures['errors']}\n"
            f"latency: median {figures['median_ms']} ms, p90 {figures['p90_ms']} ms, "
            f"p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms"
        )
        if args.during:
            print(
                f"during the first solve of {args.during} (still solving at the end: "
                f"{probed.get('still_solving')}): health, rules and progress answered in at "
                f"most {probed.get('slowest_ms')} ms"
            )
        print(f"{figures['load_before']} before, {figures['load_after']} after")
        for e in errors[:5]:
            print("  error:", e)
    if figures["errors"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
