"""Benchmark of the simulator: games a minute with the optimal strategy.

Run ``python benchmarks/bench_simulate.py`` (``--games N``, ``--runs N``,
``--rules a,b``, ``--check`` to also report each rule set's mean against the exact
expected score).

The table comes from the cache (solved first if needed) and the compiled kernel
is loaded or compiled by a warm-up run of a few games, so the runs time the
simulation only. Each run uses another seed; the median and the fastest run are
printed, with the target of 100,000 games a minute.
"""

from __future__ import annotations

import argparse
import statistics
import time

TARGET = 100_000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="yahtzee")
    ap.add_argument("--check", action="store_true", help="Also compare the means.")
    args = ap.parse_args()

    from numba import get_num_threads

    from dicelab.engine.objectives.expected import expected_table
    from dicelab.play.simulate import simulate

    print(
        f"dicelab simulate: {args.games:,} games a run, {args.runs} runs, "
        f"{get_num_threads()} threads"
    )
    print(
        f"{'rules':22} {'median games/min':>17} {'best games/min':>15} {'target':>8}"
        + ("   mean      exact      z" if args.check else "")
    )
    for name in args.rules.split(","):
        table = expected_table(name)
        simulate(table, 100, seed=0)  # load or compile the kernel
        rates = []
        sim = None
        for run in range(args.runs):
            t = time.perf_counter()
            sim = simulate(table, args.games, seed=run + 1)
            rates.append(60 * args.games / (time.perf_counter() - t))
        med = statistics.median(rates)
        line = f"{name:22} {med:17,.0f} {max(rates):15,.0f} {'ok' if med >= TARGET else 'SLOW':>8}"
        if args.check and sim is not None:
            line += f" {sim.mean:9.3f} {sim.expected_score:10.3f} {sim.z:+6.2f}"
        print(line)


if __name__ == "__main__":
    main()
