"""Benchmark of the layered solves on a Dask LocalCluster against the same solves in
one process, in the same run.

Run ``python benchmarks/bench_cluster.py`` (``--workers N``, ``--runs N``,
``--jobs yahtzee:target,maxi-yatzy:expected``; ``--quick`` for yacht instead, a
minute in all). Needs the cluster extra (``pip install -e ".[cluster]"``).

Each job is solved in a fresh process, never from the cache: first in this
process's own layers (``single``), then on a LocalCluster of ``--workers``
worker processes started in that process. For the cluster the command prints the
time to start the cluster, the first solve (which includes the workers loading
the compiled kernels) and the median of the later solves, each as a ratio to the
single-process median, and the client's peak memory (the workers hold only the
layers they work on). From the bytes each layer moved and its task count it then
models a scale-out: the bytes a solve would move on 10 and 100 workers when every
worker gets the whole next layer (what the runner does), and when every task gets
only the rows its states read.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap

CHILD = textwrap.dedent(
    """
    import json, resource, sys, time
    import numpy as np
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules
    from dicelab.engine.objectives.expected import solve_expected
    from dicelab.engine.objectives.target import solve_target

    def main():
        rules, objective, mode, workers, runs = sys.argv[1:6]
        game = compile_rules(load_rules(rules))
        solve = solve_target if objective == "target" else solve_expected
        out = {"runs": []}
        if mode == "single":
            for _ in range(int(runs)):
                table = None
                t = time.perf_counter()
                table = solve(game)
                out["runs"].append(time.perf_counter() - t)
        else:
            from dicelab.engine.runtime.schedule import ClusterRunner
            t = time.perf_counter()
            with ClusterRunner(workers=int(workers)) as runner:
                solve(compile_rules(load_rules("yazy")), runner=runner)  # the cluster starts
                out["start"] = time.perf_counter() - t
                for _ in range(int(runs) + 1):
                    runner.traffic.clear()
                    table = None  # one table at a time: the peak is one solve's
                    t = time.perf_counter()
                    table = solve(game, runner=runner)
                    out["runs"].append(time.perf_counter() - t)
                out["traffic"] = [
                    [x.layer, x.tasks, x.sent, x.received] for x in runner.traffic
                ]
                out["reads"] = reads_model(game, objective)
        out["value"] = float(np.asarray(table.values).ravel()[0])
        out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(json.dumps(out))

    def reads_model(game, objective):
        # per layer: bytes of the whole next layer, and for 40 and 400 tasks the bytes
        # of the rows the tasks' states read (their successors), summed over tasks
        from dicelab.engine.objectives.expected import ExpectedLayers
        from dicelab.engine.objectives.points import needed_layout
        from dicelab.engine.objectives.target import PointsLayers
        if objective == "target":
            layers = PointsLayers(game, needed_layout(game), -1, 1.0, 0.0, np.zeros(1))
            row_bytes = lambda m: (layers.writes(m)[1].sum()) * 8
        else:
            layers = ExpectedLayers(game)
            row_bytes = lambda m: m.size * layers.row * 8
        out = []
        n = game.n_categories
        for k in layers.layers():
            nxt = layers.by_layer[k + 1]
            entry = [k, int(row_bytes(nxt))]
            for pieces in (40, 400):
                total = 0
                for task in layers.tasks(k, pieces):
                    succ = np.unique(np.concatenate(
                        [task[(task >> c) & 1 == 0] | (1 << c) for c in range(n)]))
                    total += int(row_bytes(succ))
                entry.append(total)
            out.append(entry)
        return out

    main()
    """
)


def child(rules: str, objective: str, mode: str, workers: int, runs: int) -> dict:
    res = subprocess.run(
        [sys.executable, "-c", CHILD, rules, objective, mode, str(workers), str(runs)],
        capture_output=True, text=True,
    )  # fmt: skip
    if res.returncode != 0:
        raise SystemExit(f"{rules} {objective} {mode}: {res.stderr.strip()[-800:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def gib(b: float) -> str:
    return f"{b / 2**30:.2f} GiB"


def report(rules: str, objective: str, workers: int, runs: int) -> None:
    single = child(rules, objective, "single", workers, runs)
    cluster = child(rules, objective, "cluster", workers, runs)
    base = statistics.median(single["runs"])
    first, later = cluster["runs"][0], cluster["runs"][1:]
    warm = statistics.median(later)
    same = "same" if single["value"] == cluster["value"] else "DIFFERENT"
    print(f"\n{rules} {objective} ({runs} run(s) each; start values {same})")
    print(f"  single process       median {base:8.2f} s   peak {single['peak_mib']:7.0f} MiB")
    print(f"  cluster start        {cluster['start']:8.2f} s  ({workers} workers)")
    print(f"  cluster, first solve {first:8.2f} s   {first / base:5.2f}x")
    print(f"  cluster, later       median {warm:8.2f} s   {warm / base:5.2f}x   "
          f"client peak {cluster['peak_mib']:7.0f} MiB")  # fmt: skip
    whole = cluster["start"] + first
    print(f"  cluster, start + first solve   {whole:8.2f} s   {whole / base:5.2f}x")
    traffic = cluster["traffic"]
    sent = sum(t[2] for t in traffic)
    received = sum(t[3] for t in traffic)
    print(f"  moved: {gib(sent)} to the workers, {gib(received)} back; tasks per layer "
          f"{min(t[1] for t in traffic)} to {max(t[1] for t in traffic)}")  # fmt: skip
    print("  layer  tasks   to workers    back")
    for layer, tasks, s, r in traffic:
        print(f"  {layer:5d}  {tasks:5d}  {s / 2**20:10.1f} MiB {r / 2**20:8.1f} MiB")
    reads = cluster["reads"]
    whole_next = sum(r[1] for r in reads)
    print("  scale-out model (bytes a solve moves to the workers):")
    for w, col in ((10, 2), (100, 3)):
        per_task = sum(r[col] for r in reads)
        print(f"    {w:3d} workers: whole next layer to each {gib(whole_next * w):>11}; "
              f"only the rows each of {4 * w} tasks a layer reads {gib(per_task):>10}; "
              f"values back {gib(received)}")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--jobs", default="yahtzee:target,maxi-yatzy:expected")
    ap.add_argument("--quick", action="store_true", help="yacht's target table and yatzy")
    args = ap.parse_args()
    jobs = "yacht:target,yatzy:expected" if args.quick else args.jobs
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    for job in jobs.split(","):
        rules, objective = job.split(":")
        report(rules, objective, args.workers, args.runs)
    one, five, _ = os.getloadavg()
    print(f"\nload average {one:.2f} (1 min), {five:.2f} (5 min) after the run")


if __name__ == "__main__":
    main()
