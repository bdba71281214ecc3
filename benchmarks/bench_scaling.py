"""Benchmark of how the solves scale with threads, beside the peers in the same run.

Run ``python benchmarks/bench_scaling.py`` (``--threads 1,2,4,8,16``, default those
up to the machine's cores; ``--parts expected,duel,target,win,distribution``;
``--runs N`` for the light solves, default 5; ``--target S``; ``--heavy-runs N`` for the duel and
the win table, default 1; ``--duel-rules NAME``, default ``yazy``; ``--no-peer``,
``--no-delta``).

Each part is timed in a fresh process for each number of threads
(``NUMBA_NUM_THREADS``), its kernels compiled first on a small game (or a first
solve) outside the timings:

* ``expected``: the expected-score solve of ``yahtzee`` and ``yatzy``;
* ``duel``: the two-player game of ``--duel-rules`` (``yazy``: about a minute on
  2 cores, so one run by default);
* ``target``: Yahtzee's table of one target (``--target``, default 200; single
  precision, as ``solve yahtzee --objective target --target 200``);
* ``win``: Yahtzee's table to beat the expected-score optimum's distribution;
* ``distribution``: the forward pass of Yahtzee's score distribution (the expected
  table given, so only the pass is timed).

Every figure is a median, with the speed-up over the fewest threads and the share
of linear scaling. The peers run beside the expected-score solve, with
``RAYON_NUM_THREADS`` set to the same thread count:

* the PyPI package ``yatzy-solver`` (Rust; Yahtzee), installed into
  ``benchmarks/.peer-venv`` as ``bench_solve.py`` does (never into the project's
  environment); skipped if it cannot be installed;
* Delta Yatzy (Rust; Scandinavian Yatzy), built locally from its repository and
  never committed: ``git clone https://github.com/dlangk/yatzy
  benchmarks/.delta-yatzy && (cd benchmarks/.delta-yatzy/solver && cargo build
  --release)``, or ``DELTA_YATZY=/path/to/yatzy-precompute``. Each run precomputes
  its table in an empty folder (``YATZY_BASE_PATH``), since it loads a table it
  finds; its time is the sum of the levels it reports (the save excluded), or the
  process's wall time where it reports none. Skipped when the binary is absent.

The load average before and after says how quiet the machine was; on fewer cores
than threads the extra threads only share the cores, and the table says so.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DELTA_DEFAULT = HERE / ".delta-yatzy" / "solver" / "target" / "release" / "yatzy-precompute"
PARTS = ("expected", "duel", "target", "win", "distribution")
HEAVY = {"duel", "win"}
#: the expected-score values every solver must give (SPEC, Part A)
REFERENCE = {"yahtzee": 254.5896095, "yatzy": 248.4399894}

CHILD = textwrap.dedent(
    """
    import json, sys, time
    import numpy as np
    from dicelab.rules import load_rules, parse_rules
    from dicelab.rules.compiled import compile_rules
    part, rules, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
    game = compile_rules(load_rules(rules))
    small = compile_rules(load_rules("yazy"))
    coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
                        "categories": [{"id": "s", "kind": "chance"}]})
    from dicelab.engine.objectives.expected import solve_expected
    if part == "expected":
        solve_expected(game)
        def once():
            t = solve_expected(game)
            return t.seconds, t.expected_score
    elif part == "duel":
        from dicelab.engine.objectives.duel import solve_duel
        # a one-box game with the same dice compiles the turn written out for them
        r = game.rules
        solve_duel(parse_rules({"name": "warm", "dice": r.dice, "faces": r.faces, "rolls": r.rolls,
                                "categories": [{"id": "s", "kind": "chance"}]}))
        def once():
            t = solve_duel(game)
            return t.seconds, t.start_value
    elif part == "target":
        from dicelab.engine.objectives.utility import reach_table
        target = int(sys.argv[4])
        reach_table(small, 150, use_cache=False, dtype=np.float32)
        def once():
            t = reach_table(game, target, use_cache=False, dtype=np.float32)
            return t.seconds, t.start_value
    elif part == "win":
        from dicelab.engine.objectives.distribution import score_distribution
        from dicelab.engine.objectives.utility import utility_table, win_utility
        def table(g):
            pmf = score_distribution(g, values=solve_expected(g)).pmf
            return utility_table(g, win_utility(pmf), use_cache=False)
        table(small)
        def once():
            t = table(game)
            return t.seconds, t.start_value
    elif part == "distribution":
        from dicelab.engine.objectives.distribution import score_distribution
        score_distribution(small, values=solve_expected(small))
        values = solve_expected(game)
        def once():
            d = score_distribution(game, values=values)
            return d.seconds, float(d.pmf @ np.arange(d.pmf.size))
    times, value = [], None
    for _ in range(runs):
        seconds, value = once()
        times.append(seconds)
    print(json.dumps({"times": times, "value": value}))
    """
)

PEER = textwrap.dedent(
    """
    import json, sys, time
    import yatzy_solver as ys
    variant, runs = sys.argv[1], int(sys.argv[2])
    ys.Solver.build(ys.Variant(variant))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        s = ys.Solver.build(ys.Variant(variant))
        times.append(time.perf_counter() - t)
    print(json.dumps({"times": times, "value": s.state_value("upper 0 | filled -")}))
    """
)


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def threads_env(n: int) -> dict:
    """The environment of a run limited to ``n`` threads, dicelab's and the peers'."""
    return dict(os.environ, NUMBA_NUM_THREADS=str(n), RAYON_NUM_THREADS=str(n))


def run_json(python: str, code: str, *args: str, env: dict) -> dict:
    """Run ``code`` in a fresh process; its last line of output, as JSON."""
    out = subprocess.run(
        [python, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_python() -> str | None:
    """``yatzy-solver``'s interpreter (``bench_solve.py`` installs it); None if absent."""
    sys.path.insert(0, str(HERE))
    try:
        from bench_solve import peer_python as install
    finally:
        sys.path.pop(0)
    try:
        return install()
    except (OSError, subprocess.SubprocessError) as err:
        print(f"yatzy-solver unavailable: {err}")
        return None


def delta_binary() -> Path | None:
    """Delta Yatzy's precompute binary, built locally (see the docstring), or None."""
    path = Path(os.environ.get("DELTA_YATZY", DELTA_DEFAULT))
    return path if path.is_file() and os.access(path, os.X_OK) else None


def delta_once(binary: Path, threads: int) -> float:
    """One Delta Yatzy precompute in an empty folder: the seconds of its levels."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "data").mkdir()
        env = dict(threads_env(threads), YATZY_BASE_PATH=folder)
        start = time.perf_counter()
        out = subprocess.run(
            [str(binary)], cwd=folder, env=env, capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip()[-300:] or "Delta Yatzy failed")
    levels = re.findall(r"Level \d+ completed in ([0-9.]+) seconds", out.stdout)
    return sum(float(s) for s in levels) if levels else wall


def scaling_rows(label: str, meds: dict[int, float], cores: int) -> list[str]:
    """One line per thread count: median, speed-up over the fewest, share of linear."""
    first = min(meds)
    lines = []
    for t, m in sorted(meds.items()):
        speed = meds[first] / m
        share = speed / (t / first)
        note = "" if t <= cores else "  (more threads than cores)"
        lines.append(f"  {label:22} {t:>4} thr {m:10.4f} s {speed:6.2f}x {share:6.0%}{note}")
    return lines


def own_part(part: str, rules: str, threads: list[int], runs: int, target: int) -> dict:
    """Medians of one part for each thread count; the value is printed once."""
    meds, value = {}, None
    for t in threads:
        args = (part, rules, str(runs), str(target))
        res = run_json(sys.executable, CHILD, *args, env=threads_env(t))
        meds[t] = statistics.median(res["times"])
        value = res["value"]
    print(f"{part} ({rules}), value {value:.7f}")
    return meds


def peers(threads: list[int], runs: int, args) -> None:
    """The peers' expected-score solves at each thread count, if present."""
    if not args.no_peer:
        py = peer_python()
        if py is not None:
            meds = {}
            for t in threads:
                res = run_json(py, PEER, "american", str(runs), env=threads_env(t))
                meds[t] = statistics.median(res["times"])
                agree = abs(res["value"] - REFERENCE["yahtzee"]) < 1e-6
            print(f"yatzy-solver (yahtzee), value agrees with the published: {agree}")
            print("\n".join(scaling_rows("yatzy-solver yahtzee", meds, os.cpu_count() or 1)))
    if args.no_delta:
        return
    binary = delta_binary()
    if binary is None:
        print("Delta Yatzy: not built here (see the docstring), skipped")
        return
    meds = {t: statistics.median(delta_once(binary, t) for _ in range(runs)) for t in threads}
    print("\n".join(scaling_rows("Delta Yatzy yatzy", meds, os.cpu_count() or 1)))


def main() -> None:
    cores = os.cpu_count() or 1
    default = ",".join(str(t) for t in (1, 2, 4, 8, 16) if t <= cores)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", default=default, help="thread counts")
    ap.add_argument("--parts", default=",".join(PARTS), help="which solves to time")
    ap.add_argument("--runs", type=int, default=5, help="runs of the light solves")
    ap.add_argument("--heavy-runs", type=int, default=1, help="runs of the duel and win")
    ap.add_argument("--duel-rules", default="yazy")
    ap.add_argument("--target", type=int, default=200, help="the target part's score")
    ap.add_argument("--no-peer", action="store_true", help="skip yatzy-solver")
    ap.add_argument("--no-delta", action="store_true", help="skip Delta Yatzy")
    args = ap.parse_args()
    threads = sorted({int(t) for t in args.threads.split(",")})
    parts = [p for p in args.parts.split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise SystemExit(f"unknown parts: {', '.join(sorted(unknown))}; known: {PARTS}")
    print(load())
    print("median seconds; speed-up over the fewest threads; share of linear scaling")
    for part in parts:
        runs = args.heavy_runs if part in HEAVY else args.runs
        names = {"expected": ["yahtzee", "yatzy"], "duel": [args.duel_rules]}.get(part, ["yahtzee"])
        for rules in names:
            meds = own_part(part, rules, threads, runs, args.target)
            print("\n".join(scaling_rows(f"dicelab {rules}", meds, cores)))
        if part == "expected":
            peers(threads, runs, args)
        print(load())


if __name__ == "__main__":
    main()
