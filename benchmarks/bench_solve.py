"""Benchmark of the expected-score solver, with the closest peer in the same run.

Run ``python benchmarks/bench_solve.py`` (``--runs N``, ``--no-peer``, ``--rules a,b``,
``--threads 1,2``, ``--precision single,double``).

For each rule set, a fresh process compiles (or loads the compiled kernels), then
solves ``--runs`` times; the median and the fastest time are printed with the
process's peak memory. A first-run-ever figure (empty compile cache) is measured
in a separate process. The peer, the PyPI package ``yatzy-solver`` (Rust core),
is installed into ``benchmarks/.peer-venv`` (never into the project's own
environment) and timed the same way on the rule sets it shares with dicelab.
The solve is also timed with each number of threads of ``--threads`` (default: 1
and every core) for a scaling table, and in double precision (the first precision
of ``--precision`` is the main one), with each start value's distance from the
published figure; the load average of the machine is printed before and after, so
a noisy run shows as such.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEER_VENV = HERE / ".peer-venv"
PEER_PACKAGE = "yatzy-solver"
#: dicelab rule set -> (peer variant, expected score both must give)
PEER_VARIANTS = {
    "yahtzee": ("american", 254.5896095),
    "yatzy": ("yatzy-scandinavian", 248.4399894),
    "forced-yatzy": ("yatzy-scandinavian+forced", 122.5585274),  # boxes in scorecard order
}
TARGETS = {"yahtzee": 0.15, "yatzy": 0.4}
#: the published optimal expected scores (SPEC, Part A)
REFERENCE = {"yahtzee": 254.5896095, "yatzy": 248.4399894, "yacht": 191.7743692,
             "yazy": 165.7573, "forced-yatzy": 122.5585274}  # fmt: skip

OWN = textwrap.dedent(
    """
    import json, resource, sys, time
    from dicelab.engine.objectives.expected import solve_expected
    name, runs, precision = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    t0 = time.perf_counter()
    first = solve_expected(name, precision=precision)
    first_s = time.perf_counter() - t0
    times = []
    t = first
    for _ in range(runs):
        t = solve_expected(name, precision=precision)
        times.append(t.seconds)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"times": times, "first": first_s, "peak_mib": peak,
                      "value": t.expected_score, "states": t.n_states}))
    """
)

PEER = textwrap.dedent(
    """
    import json, resource, sys, time
    import yatzy_solver as ys
    variant, runs = sys.argv[1], int(sys.argv[2])
    ys.Solver.build(ys.Variant(variant))
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        s = ys.Solver.build(ys.Variant(variant))
        times.append(time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    value = s.state_value("upper 0 | filled -")
    print(json.dumps({"times": times, "peak_mib": peak, "value": value}))
    """
)


def with_threads(n: int) -> dict:
    """The environment of a run limited to ``n`` threads."""
    return dict(os.environ, NUMBA_NUM_THREADS=str(n))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def vector_line() -> str:
    """The CPU the kernels are compiled for: its vector features and the lane rows."""
    import platform

    from numba.core import config

    from dicelab.engine.kernels import lanes

    cpu = config.CPU_NAME or "host"
    if config.CPU_NAME and not config.CPU_FEATURES:
        shown = f"the features of {cpu}"
    elif platform.machine().lower() in ("x86_64", "amd64"):
        import llvmlite.binding as ll

        have = config.CPU_FEATURES or ll.get_host_cpu_features().flatten()
        feats = [f[1:] for f in have.split(",") if f in ("+avx", "+avx2", "+fma", "+avx512f")]
        shown = " ".join(feats) or "SSE only"
    else:
        shown = "NEON"
    register = lanes.target_vector_bytes()
    return (f"CPU {platform.machine()} ({cpu}): {shown}; {register}-byte registers, "
            f"{lanes.VECTOR_BYTES}-byte lane rows ({lanes.lanes_of(4)} single, "
            f"{lanes.lanes_of(8)} double)")  # fmt: skip


def run_json(python: str, code: str, *args: str, env: dict | None = None) -> dict:
    out = subprocess.run(
        [python, "-c", code, *args], capture_output=True, text=True, env=env, check=False
    )
    if out.returncode != 0:
        raise RuntimeError(out.stderr.strip().splitlines()[-1] if out.stderr else "failed")
    return json.loads(out.stdout.strip().splitlines()[-1])


def peer_python() -> str | None:
    """The peer's interpreter, installing it on first use; None if unavailable."""
    py = PEER_VENV / "bin" / "python"
    if not py.exists():
        print(f"installing {PEER_PACKAGE} into {PEER_VENV} ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)], check=True)
        res = subprocess.run(
            [str(py), "-m", "pip", "install", "-q", PEER_PACKAGE],
            capture_output=True,
            text=True,
        )
        if res.returncode != 0:
            print(f"could not install {PEER_PACKAGE}: {res.stderr.strip()[-200:]}")
            return None
    return str(py)


def first_run_ever(name: str) -> float:
    """Seconds of a first solve with an empty compile cache (compile included)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, NUMBA_CACHE_DIR=tmp)
        res = run_json(sys.executable, OWN, name, "0", "single", env=env)
    return res["first"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--rules", default="yahtzee,yatzy,yacht,yazy")
    ap.add_argument("--no-peer", action="store_true")
    ap.add_argument("--threads", default=f"1,{os.cpu_count()}", help="thread counts to scale")
    ap.add_argument("--precision", default="single,double", help="turn precisions, main first")
    args = ap.parse_args()
    names = args.rules.split(",")
    threads = sorted({int(t) for t in args.threads.split(",")})
    precisions = args.precision.split(",")
    main_precision = precisions[0]
    print(load())
    print(vector_line())

    print(
        f"dicelab expected-score solver ({main_precision} precision turns), "
        f"{args.runs} runs each after the one-time compile"
    )
    print(f"{'rules':10} {'median s':>9} {'min s':>8} {'target':>7} {'peak MiB':>9} {'states':>10}")
    own = {}
    for name in names:
        res = run_json(sys.executable, OWN, name, str(args.runs), main_precision,
                       env=with_threads(threads[-1]))  # fmt: skip
        own[name] = res
        med = statistics.median(res["times"])
        target = TARGETS.get(name)
        mark = "" if target is None else (f"{target:6.2f}" + ("" if med <= target else "!"))
        print(
            f"{name:10} {med:9.3f} {min(res['times']):8.3f} {mark:>7} "
            f"{res['peak_mib']:9.0f} {res['states']:10,}"
        )
    print(f"first run ever (empty compile cache), yahtzee: {first_run_ever('yahtzee'):.1f} s")

    if len(threads) > 1:
        print(f"\nscaling (median s; speed-up over {threads[0]} thread(s))")
        print(f"{'rules':10} " + " ".join(f"{f'{t} thr':>15}" for t in threads))
        for name in names:
            meds = []
            for t in threads:
                if t == threads[-1]:
                    meds.append(statistics.median(own[name]["times"]))
                    continue
                res = run_json(sys.executable, OWN, name, str(args.runs), main_precision,
                               env=with_threads(t))  # fmt: skip
                meds.append(statistics.median(res["times"]))
            cells = [f"{m:7.3f} ({meds[0] / m:4.2f}x)" for m in meds]
            print(f"{name:10} " + " ".join(f"{c:>15}" for c in cells))

    for other in precisions[1:]:
        print(f"\n{other} precision turns against {main_precision} (same run, {threads[-1]} thr)")
        print(f"{'rules':10} {f'{other} s':>9} {f'{main_precision} s':>9} {'ratio':>6} "
              f"{'start diff':>11} {f'{main_precision} - published':>20}")  # fmt: skip
        for name in names:
            res = run_json(sys.executable, OWN, name, str(args.runs), other,
                           env=with_threads(threads[-1]))  # fmt: skip
            om = statistics.median(res["times"])
            mm = statistics.median(own[name]["times"])
            diff = own[name]["value"] - res["value"]
            ref = REFERENCE.get(name)
            off = "" if ref is None else f"{own[name]['value'] - ref:+.1e}"
            print(f"{name:10} {om:9.3f} {mm:9.3f} {om / mm:5.2f}x {diff:+11.1e} {off:>20}")

    if args.no_peer:
        return
    py = peer_python()
    if py is None:
        return
    print(f"\npeer: {PEER_PACKAGE} (same machine, same run)")
    print(f"{'rules':10} {'peer median s':>14} {'dicelab s':>10} {'ratio':>7} {'values agree':>13}")
    for name, (variant, ref) in PEER_VARIANTS.items():
        if name not in own:
            continue
        res = run_json(py, PEER, variant, str(args.runs))
        pm = statistics.median(res["times"])
        om = statistics.median(own[name]["times"])
        agree = abs(res["value"] - own[name]["value"]) < 1e-6 and abs(res["value"] - ref) < 1e-6
        print(f"{name:10} {pm:14.3f} {om:10.3f} {pm / om:6.1f}x {str(agree):>13}")
    print(load())


if __name__ == "__main__":
    main()
