"""Benchmark of the objectives beyond the average: distribution, targets, exact, win.

Run ``python benchmarks/bench_objectives.py`` (``--jobs a,b``, ``--runs N``,
``--long-runs N``, ``--skip-heavy``, ``--threads 1,2``, ``--json FILE``).

Each job runs in a fresh process: one untimed warm-up run (which loads, or on the
very first run compiles, the kernels), then the timed runs; the median and the
fastest are printed with the process's peak memory (``ru_maxrss``, warm-up and
any table the job needs included). Short jobs run ``--runs`` times (default 5),
long ones ``--long-runs`` times (default 3); the heaviest job, the all-targets
table of ``yahtzee``, runs ``--heavy-runs`` times (default 1) without a warm-up
(loading the compiled kernels is then included), with a progress line and time
estimate on standard error. With several ``--threads`` (default: 1 and every core)
each job runs once per thread count and the table shows the speed-up; the load
average before and after tells how quiet the machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

#: The all-targets table of yahtzee, with a progress line and time estimate on stderr.
HEAVY_TARGET = """
import sys, time
import numpy as np
from dicelab.engine.objectives.target import solve_target
def setup(): return None
def run(_):
    t0 = time.perf_counter()
    def tick(done, total):
        el = time.perf_counter() - t0
        eta = el * (total - done) / max(done, 1)
        print(f"\\r  {{done / total:6.1%}}  {{el:6.0f}} s, eta {{eta:5.0f}} s",
              end="", file=sys.stderr, flush=True)
    t = solve_target("yahtzee", progress=tick, dtype={dtype})
    print(file=sys.stderr)
    return t.probability(300), t.n_values
"""

#: job -> (code, short?, target seconds or None, what the value is)
JOBS: dict[str, tuple[str, bool, float | None, str]] = {
    "yacht-325-exact": (
        """
        from dicelab.engine.objectives.exact import exact_target
        def setup(): return None
        def run(_):
            r = exact_target("yacht", 325)
            return float(r.value), r.values_solved
        """,
        True,
        2.0,
        "P(325), states",
    ),
    "yahtzee-distribution": (
        """
        from dicelab.engine.objectives.distribution import score_distribution
        from dicelab.engine.objectives.expected import solve_expected
        def setup(): return solve_expected("yahtzee")
        def run(t):
            d = score_distribution("yahtzee", t)
            return round(d.sd, 6), round(d.mean, 7)
        """,
        True,
        10.0,
        "sd, mean",
    ),
    "yatzy-distribution": (
        """
        from dicelab.engine.objectives.distribution import score_distribution
        from dicelab.engine.objectives.expected import solve_expected
        def setup(): return solve_expected("yatzy")
        def run(t):
            d = score_distribution("yatzy", t)
            return round(d.sd, 6), round(d.mean, 7)
        """,
        True,
        None,
        "sd, mean",
    ),
    "yacht-distribution": (
        """
        from dicelab.engine.objectives.distribution import score_distribution
        from dicelab.engine.objectives.expected import solve_expected
        def setup(): return solve_expected("yacht")
        def run(t):
            d = score_distribution("yacht", t)
            return round(d.sd, 6), round(d.mean, 7)
        """,
        True,
        None,
        "sd, mean",
    ),
    "yazy-expected-exact": (
        """
        from dicelab.engine.objectives.exact import exact_expected
        def setup(): return None
        def run(_):
            r = exact_expected("yazy")
            return float(r.value), len(str(r.value.denominator))
        """,
        True,
        None,
        "value, denominator digits",
    ),
    "yacht-expected-exact": (
        """
        from dicelab.engine.objectives.exact import exact_expected
        def setup(): return None
        def run(_):
            r = exact_expected("yacht")
            return float(r.value), len(str(r.value.denominator))
        """,
        False,
        None,
        "value, denominator digits",
    ),
    "yacht-target-table": (
        """
        from dicelab.engine.objectives.target import solve_target
        def setup(): return None
        def run(_):
            t = solve_target("yacht")
            return t.probability(250), t.n_values
        """,
        False,
        60.0,
        "P(>=250), values",
    ),
    "yacht-target-table-f32": (
        """
        import numpy as np
        from dicelab.engine.objectives.target import solve_target
        def setup(): return None
        def run(_):
            t = solve_target("yacht", dtype=np.float32)
            return t.probability(250), t.n_values
        """,
        False,
        None,
        "P(>=250), values",
    ),
    "yacht-win": (
        """
        from dicelab.engine.objectives.distribution import score_distribution
        from dicelab.engine.objectives.expected import solve_expected
        from dicelab.engine.objectives.utility import solve_utility, win_utility
        def setup():
            return win_utility(score_distribution("yacht", solve_expected("yacht")).pmf)
        def run(u):
            t = solve_utility("yacht", u)
            return t.start_value, t.n_values
        """,
        False,
        None,
        "P(win), values",
    ),
    "yahtzee-target-table": (
        HEAVY_TARGET.format(dtype="np.float64"),
        False,
        None,
        "P(>=300), values",
    ),
    "yahtzee-target-table-f32": (
        HEAVY_TARGET.format(dtype="np.float32"),
        False,
        None,
        "P(>=300), values",
    ),
}
HEAVY = {"yahtzee-target-table", "yahtzee-target-table-f32"}

RUNNER = textwrap.dedent(
    """
    import json, resource, sys, time
    runs, warm = int(sys.argv[1]), sys.argv[2] == "1"
    ns = {}
    exec(sys.stdin.read(), ns)
    state = ns["setup"]()
    if warm:
        ns["run"](state)
    times, value = [], None
    for _ in range(runs):
        t = time.perf_counter()
        value = ns["run"](state)
        times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"times": times, "peak_mib": peak, "value": value}))
    """
)


def run_job(name: str, runs: int, warm: bool, threads: int) -> dict:
    code = textwrap.dedent(JOBS[name][0])
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, str(runs), "1" if warm else "0"],
        input=code,
        capture_output=False,
        stdout=subprocess.PIPE,
        text=True,
        check=False,
        env=dict(os.environ, NUMBA_NUM_THREADS=str(threads)),
    )
    if out.returncode != 0:
        raise RuntimeError(f"{name} failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", default=",".join(JOBS))
    ap.add_argument("--runs", type=int, default=5, help="timed runs of a short job")
    ap.add_argument("--long-runs", type=int, default=3, help="timed runs of a long job")
    ap.add_argument("--heavy-runs", type=int, default=1, help="runs of the yahtzee table")
    ap.add_argument("--skip-heavy", action="store_true", help="skip the yahtzee target table")
    ap.add_argument("--json", help="also write the results to this file")
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}", help="thread counts to run")
    args = ap.parse_args()
    threads = sorted({int(t) for t in args.threads.split(",")})
    names = [n for n in args.jobs.split(",") if n]
    unknown = [n for n in names if n not in JOBS]
    if unknown:
        ap.error(f"unknown jobs: {', '.join(unknown)} (known: {', '.join(JOBS)})")
    if args.skip_heavy:
        names = [n for n in names if n not in HEAVY]

    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    head = f"{'job':26} {'thr':>3} {'runs':>4} {'median s':>9} {'min s':>8} {'speed-up':>8} "
    print(head + f"{'target':>7} {'peak MiB':>9}  value")
    results = {}
    for name in names:
        _, short, target, what = JOBS[name]
        heavy = name in HEAVY
        runs = args.heavy_runs if heavy else (args.runs if short else args.long_runs)
        base = None
        for t in threads:
            res = run_job(name, runs, warm=not heavy, threads=t)
            results[f"{name}@{t}"] = res
            med = statistics.median(res["times"])
            base = base or med
            speed = f"{base / med:7.2f}x" if t != threads[0] else ""
            mark = "" if target is None else f"{target:6.1f}" + ("" if med <= target else "!")
            print(
                f"{name:26} {t:3d} {runs:4d} {med:9.2f} {min(res['times']):8.2f} {speed:>8} "
                f"{mark:>7} {res['peak_mib']:9.0f}  {what}: {res['value']}",
                flush=True,
            )
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) after the run")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
