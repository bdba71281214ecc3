"""Timings of the dice race: one exact head-to-head, and the best list for 2d6 with 5 picks.

Run ``python benchmarks/bench_race.py`` (add ``--exhaustive`` to also fill the whole
3003 x 3003 float table, the unpruned search, once). Prints the median of several runs
after one warm-up run, then checks the best list exactly against every other list.
"""

from __future__ import annotations

import argparse
import statistics
import time
from itertools import combinations_with_replacement

import numpy as np

from dicelab.games.race.exact import race
from dicelab.games.race.search import ListSpace, best_list
from dicelab.games.race.simulate import simulate

A = [5, 6, 7, 8, 9]
B = [5, 6, 7, 7, 8]


def median_time(fn, runs: int) -> tuple[float, object]:
    """Median wall time of ``fn()`` over ``runs`` runs, after one warm-up call."""
    result = fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per measurement")
    parser.add_argument("--exhaustive", action="store_true", help="also time the full table")
    args = parser.parse_args()
    runs = max(args.runs, 5)

    t, r = median_time(lambda: race(A, B, 2, 6), runs * 20)
    print(f"exact head-to-head {A} vs {B}: median {t * 1e3:.3f} ms ({runs * 20} runs)")
    print(f"  win {r.win} = {float(r.win):.10f}")
    print(f"  lose {r.lose} = {float(r.lose):.10f}")
    print(f"  tie {r.tie} = {float(r.tie):.10f}")

    space = ListSpace(race(A, B).dice, 5)
    i, j = space.find(A), space.find(B)
    t, _ = median_time(lambda: space.payoff(i, j), runs * 200)
    print(f"float head-to-head (compiled): median {t * 1e6:.1f} us")
    t, _ = median_time(lambda: space.row(i), runs)
    print(f"one list against all {len(space)} lists (float): median {t * 1e3:.1f} ms")

    t, s = median_time(
        lambda: simulate(A, B, 2, 6, seed=1, min_games=100_000, max_games=100_000), runs
    )
    print(f"simulation, 100000 games: median {t:.3f} s")

    t, best = median_time(lambda: best_list(2, 6, 5), runs)
    print(
        f"best list, 2d6, 5 picks: median {t:.3f} s ({runs} runs): "
        f"winners {[list(w) for w in best.winners]}, beats {best.beaten}, ties {best.tied}, "
        f"{best.candidates} candidate(s) played against all {best.lists} lists"
    )

    t = time.perf_counter()
    winner = list(best.winners[0])
    losses = []
    for other in combinations_with_replacement(range(2, 13), 5):
        if list(other) != winner:
            res = race(winner, other, 2, 6)
            if res.win <= res.lose:
                losses.append(other)
    print(
        f"check: {winner} played exactly against the other 3002 lists with race(): "
        f"{'beats every one' if not losses else f'does not beat {losses}'} "
        f"({time.perf_counter() - t:.2f} s)"
    )

    if args.exhaustive:
        t = time.perf_counter()
        table = np.array([space.row(k) for k in range(len(space))])
        unbeaten = [space.numbers(k) for k in range(len(space)) if table[k].min() >= -1e-12]
        print(
            f"exhaustive float table {table.shape}: {time.perf_counter() - t:.1f} s, "
            f"unbeaten lists {[list(u) for u in unbeaten]}"
        )


if __name__ == "__main__":
    main()
