"""Load test of ``dicelab serve``: concurrent clients asking for advice on localhost.

Run ``python benchmarks/bench_serve.py`` (``--clients 50 --seconds 30 --rules yahtzee``;
``--during maxi-yatzy`` runs the load while the server solves that rule set's table).

Two checks of what must never hold the load up run during it, on a server of their
own cache folder (``--repeat N`` runs the whole test N times and gives medians):

* ``--estimates maxi-yatzy --on-disk kniffel``: the sizes of four large tables of the
  first rule set are asked for (duel, target, match, win: seconds and gigabytes each
  for Maxi Yatzy), then advice from the second's table, on disk and not yet read; the
  seconds of that advice, and the server's memory after it, are reported.
* ``--abandon``: a costly upload (14 straights worth 10,000 each), one win request on
  it whose client leaves after 3 s (or that is refused at once), and whether a worker
  still runs 12 s later; then ``--charts`` distribution requests whose clients leave
  at once, and the seconds the next user's distribution takes.

The seconds from SIGTERM to the server's end are reported in every case.

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


def start_server(port: int, startup: float, env: dict | None = None,
                 extra: list[str] | None = None) -> subprocess.Popen:  # fmt: skip
    """``dicelab serve`` in a child process (``extra``: more options), once it answers
    on /api/health."""
    cmd = [
        sys.executable, "-m", "dicelab.cli", "serve", "--host", HOST, "--port", str(port),
        "--log-level", "warning", *(extra or []),
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


def stop_server(proc: subprocess.Popen) -> float:
    """SIGTERM, and the seconds until the server has ended (killed after 30)."""
    t0 = time.monotonic()
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=10)
    return time.monotonic() - t0


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


#: The tables whose size takes seconds to work out for the largest rule sets.
LARGE_TABLES = ("duel", "target", "match", "win")
#: 14 straights worth 10,000 each: 1 KB of rules whose win table is 4.3 GiB and 7 min.
COSTLY = 'name = "costly"\ndice = 5\nfaces = 6\nrolls = 3\n' + "".join(
    f'[[categories]]\nid = "s{i}"\nname = "S{i}"\nkind = "straight"\nlength = 5\nscore = 10000\n'
    for i in range(14)
)


def post(port: int, path: str, body: dict, timeout: float = 30) -> tuple[int, dict]:
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout)
    try:
        conn.request(
            "POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"}
        )
        resp = conn.getresponse()
        return resp.status, json.loads(resp.read() or b"{}")
    finally:
        conn.close()


def workers(pid: int) -> list[str]:
    """The worker processes solving for the server ``pid``."""
    found = subprocess.run(
        ["pgrep", "-P", str(pid), "-f", "dicelab.web.worker"], capture_output=True, text=True
    )
    return found.stdout.split()


def resident_mb(pid: int) -> float | None:
    """The server's resident memory, in MB (Linux)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            line = next(x for x in fh if x.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None
    return round(int(line.split()[1]) / 1024, 1)


def on_disk(name: str, folder: str) -> None:
    """Solve ``name``'s expected-score and spread tables into the cache ``folder``."""
    from dicelab.web.store import Store

    before = os.environ.get("DICELAB_CACHE_DIR")
    os.environ["DICELAB_CACHE_DIR"] = folder
    try:
        Store(processes=False).table(load_rules(name), "spread")
    finally:
        if before is None:
            del os.environ["DICELAB_CACHE_DIR"]
        else:
            os.environ["DICELAB_CACHE_DIR"] = before


def estimates_then_advice(port: int, pid: int, big: str, small: str, out: dict) -> None:
    """Ask the sizes of ``big``'s large tables, then advice from ``small``'s table on disk."""
    slowest = 0.0
    for objective in LARGE_TABLES:
        t0 = time.perf_counter()
        get(port, f"/api/rules/{big}/progress?objective={objective}")
        slowest = max(slowest, time.perf_counter() - t0)
    t0 = time.perf_counter()
    status, answer = post(port, "/api/advice", json.loads(positions(small, 1, 1)[0]), 120)
    out["advice_after_estimates_s"] = round(time.perf_counter() - t0, 3)
    out["estimate_requests_slowest_s"] = round(slowest, 3)
    if status != 200:
        out.setdefault("errors", []).append(f"advice on {small}: {status} {answer}")
    out["server_mb_after_estimates"] = resident_mb(pid)


def abandon(port: int, pid: int, charts: int, out: dict) -> None:
    """A costly upload and a win request on it whose client leaves after 3 s (or that
    is refused), the workers 12 s later; ``charts`` abandoned distributions, then the
    seconds of the next user's."""
    status, up = post(port, "/api/rules", {"toml": COSTLY})
    out["costly_upload"] = status
    body = {"rules": up.get("id"), "dice": [1, 2, 3, 4, 5], "rerolls_left": 2}
    t0 = time.monotonic()
    try:
        status, answer = post(port, "/api/advice", {**body, "objective": "win"}, timeout=3)
        took = time.monotonic() - t0
        out["win_request"] = f"{status} in {took:.2f} s: {str(answer.get('detail'))[:120]}"
    except TimeoutError:
        out["win_request"] = "left after 3 s"
    time.sleep(max(0.0, t0 + 15 - time.monotonic()))
    out["workers_12s_after"] = len(workers(pid))
    for chart in chart_bodies(charts + 1, seed=7)[:-1]:
        conn = http.client.HTTPConnection(HOST, port, timeout=5)
        conn.request("POST", "/api/distribution", body=json.dumps(chart),
                     headers={"Content-Type": "application/json"})  # fmt: skip
        conn.close()  # left at once
    time.sleep(0.5)
    t0 = time.perf_counter()
    status, answer = post(port, "/api/distribution", chart_bodies(charts + 1, seed=7)[-1], 300)
    out["next_chart_s"] = round(time.perf_counter() - t0, 3)
    if status != 200:
        out.setdefault("errors", []).append(f"the next chart: {status} {answer}")


def chart_bodies(count: int, seed: int) -> list[dict]:
    """Distinct scorecards of Yahtzee early in a game (a second or so of work each)."""
    rng = random.Random(seed)
    ids = [c.id for c in load_rules("yahtzee").categories[:6]]  # the upper boxes
    seen: dict[str, dict] = {}
    while len(seen) < count:
        boxes = rng.sample(ids, rng.randint(1, 3))
        filled = {b: (ids.index(b) + 1) * rng.randint(0, 5) for b in boxes}
        body = {"rules": "yahtzee", "filled": filled}
        seen.setdefault(json.dumps(body, sort_keys=True), body)
    return list(seen.values())


def checks(port: int, pid: int, args: argparse.Namespace, out: dict) -> None:
    """The checks asked for, one after the other, a second into the load."""
    time.sleep(1)
    if args.estimates:
        estimates_then_advice(port, pid, args.estimates, args.on_disk, out)
    if args.abandon:
        abandon(port, pid, args.charts, out)


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help="concurrent clients")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the test")
    parser.add_argument("--rules", default="yahtzee", help="built-in rule set to query")
    parser.add_argument("--startup", type=float, default=120.0, help="server start limit (s)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the positions")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--during", help="run the load while the server solves this rule set")
    parser.add_argument("--estimates", help="size this rule set's large tables during the load")
    parser.add_argument("--on-disk", default="kniffel", help="advice from this table on disk")
    parser.add_argument("--abandon", action="store_true", help="abandoned requests during it")
    parser.add_argument("--charts", type=int, default=120, help="abandoned distributions")
    parser.add_argument("--repeat", type=int, default=1, help="runs (medians given)")
    args = parser.parse_args()
    if not 1 <= args.clients <= 500 or not 0 < args.seconds <= 600:
        raise SystemExit("--clients must be 1 to 500 and --seconds 0 to 600")
    if not 1 <= args.repeat <= 20 or not 0 <= args.charts <= 1000:
        raise SystemExit("--repeat must be 1 to 20 and --charts 0 to 1000")
    return args


def run_once(args: argparse.Namespace, bodies: list[bytes]) -> dict:
    """One server, its load and checks, its stop: the figures."""
    port = free_port()
    own = args.during or args.estimates or args.abandon
    own_cache = tempfile.TemporaryDirectory() if own else None
    env = dict(os.environ, DICELAB_CACHE_DIR=own_cache.name) if own_cache else None
    if own_cache and args.estimates:
        on_disk(args.on_disk, own_cache.name)
    before = load_average()
    proc = start_server(port, args.startup, env)
    probed: dict = {}
    checked: dict = {}
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
        if args.estimates or args.abandon:
            threads.append(threading.Thread(target=checks, args=(port, proc.pid, args, checked)))
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=args.seconds + 300)
        wall = time.monotonic() - t0
    finally:
        stopped = stop_server(proc)
        if own_cache:
            own_cache.cleanup()
    figures = tally(args, results, wall, before)
    figures["sigterm_s"] = round(stopped, 2)
    if args.during:
        figures.update(during=args.during, **probed)
        figures["errors"] += len(probed.get("errors", []))
    figures.update({k: v for k, v in checked.items() if k != "errors"})
    figures["errors"] += len(checked.get("errors", []))
    figures["error_lines"] = [*figures["error_lines"], *checked.get("errors", [])][:5]
    return figures


def tally(args: argparse.Namespace, results: list[dict], wall: float, before: str) -> dict:
    """The load's figures from the clients' results."""
    latencies = sorted(x for r in results for x in r.get("latencies", []))
    errors = [e for r in results for e in r.get("errors", [])]
    missing = sum(1 for r in results if "latencies" not in r)
    return {
        "rules": args.rules,
        "clients": args.clients,
        "seconds": round(wall, 1),
        "requests": len(latencies) + len(errors),
        "errors": len(errors) + missing,
        "error_lines": errors[:5],
        "requests_per_second": round((len(latencies) + len(errors)) / wall, 1),
        "median_ms": round(1000 * statistics.median(latencies), 2) if latencies else None,
        "p90_ms": round(1000 * percentile(latencies, 90), 2),
        "p99_ms": round(1000 * percentile(latencies, 99), 2),
        "max_ms": round(1000 * latencies[-1], 2) if latencies else None,
        "load_before": before,
        "load_after": load_average(),
    }


def report(figures: dict) -> None:
    """The figures of one run, in words."""
    print(
        f"dicelab serve, {figures['rules']}: {figures['clients']} clients for "
        f"{figures['seconds']} s\n"
        f"requests {figures['requests']} ({figures['requests_per_second']}/s), "
        f"errors {figures['errors']}\n"
        f"latency: median {figures['median_ms']} ms, p90 {figures['p90_ms']} ms, "
        f"p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms"
    )
    if "during" in figures:
        print(
            f"during the first solve of {figures['during']} (still solving at the end: "
            f"{figures.get('still_solving')}): health, rules and progress answered in at "
            f"most {figures.get('slowest_ms')} ms"
        )
    if "advice_after_estimates_s" in figures:
        print(
            f"after four estimates: advice from a table on disk in "
            f"{figures['advice_after_estimates_s']} s (the estimates' requests at most "
            f"{figures['estimate_requests_slowest_s']} s); server "
            f"{figures['server_mb_after_estimates']} MB"
        )
    if "win_request" in figures:
        print(
            f"costly upload {figures['costly_upload']}, win request: {figures['win_request']}; "
            f"workers 12 s later: {figures['workers_12s_after']}; the next chart after the "
            f"abandoned ones: {figures['next_chart_s']} s"
        )
    print(f"SIGTERM to the end: {figures['sigterm_s']} s")
    print(f"{figures['load_before']} before, {figures['load_after']} after")
    for e in figures["error_lines"]:
        print("  error:", e)


MEDIANS = ("median_ms", "p99_ms", "advice_after_estimates_s", "server_mb_after_estimates",
           "workers_12s_after", "next_chart_s", "sigterm_s")  # fmt: skip


def main() -> None:
    args = arguments()
    bodies = positions(args.rules, 2000, args.seed)
    runs = []
    for _ in range(args.repeat):
        figures = run_once(args, bodies)
        runs.append(figures)
        print(json.dumps(figures)) if args.json else report(figures)
    if args.repeat > 1:
        medians = {
            k: statistics.median(r[k] for r in runs)
            for k in MEDIANS
            if all(isinstance(r.get(k), (int, float)) for r in runs)
        }
        print(json.dumps({"medians_of": args.repeat, **medians}))
    if any(r["errors"] for r in runs):
        sys.exit(1)


if __name__ == "__main__":
    main()
