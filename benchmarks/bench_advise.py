"""Benchmark of advice queries: milliseconds per query from a cached table.

Run ``python benchmarks/bench_advise.py`` (``--queries N``, ``--runs N``,
``--rules NAME``).

The table is loaded from the cache once (its load time is printed apart); then
each run answers the same fixed set of random positions (first throws, rerolls
and final throws, with random scorecards), and the median time per query over
the runs is printed, with the slowest single query seen.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time


def positions(table, n: int, seed: int = 0):
    """Random reachable positions: a random scorecard, dice and rerolls left."""
    from dicelab.solve.advice import Position

    rng = random.Random(seed)
    g = table.game
    cats = table.rules.categories
    out = []
    for _ in range(n):
        k = rng.randrange(len(cats))
        boxes = rng.sample(range(len(cats)), k)
        filled = {cats[c].id: int(rng.choice(sorted(set(g.score[c].tolist())))) for c in boxes}
        dice = tuple(rng.randint(1, table.rules.faces) for _ in range(table.rules.dice))
        out.append(Position(dice, rng.randint(0, table.rules.rolls - 1), filled))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="yahtzee")
    args = ap.parse_args()

    from dicelab.solve.advice import advise
    from dicelab.solve.expected import expected_table

    expected_table(args.rules)  # make sure it is cached
    t = time.perf_counter()
    table = expected_table(args.rules)
    load_ms = 1000 * (time.perf_counter() - t)
    queries = positions(table, args.queries)
    advise(table, queries[0])  # load the compiled kernels
    per_run = []
    slowest = 0.0
    for _ in range(args.runs):
        times = []
        for pos in queries:
            t = time.perf_counter()
            advise(table, pos)
            times.append(time.perf_counter() - t)
        per_run.append(1000 * statistics.median(times))
        slowest = max(slowest, 1000 * max(times))
    print(f"dicelab advise, {args.rules}: table loaded from the cache in {load_ms:.0f} ms")
    print(
        f"{args.queries} positions x {args.runs} runs: median {statistics.median(per_run):.3f} "
        f"ms per query (runs: {', '.join(f'{m:.3f}' for m in per_run)}), "
        f"slowest query {slowest:.2f} ms"
    )


if __name__ == "__main__":
    main()
