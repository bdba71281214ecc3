"""Games per second of the best scoring of known rolls (``dicelab assign``).

Run ``python benchmarks/bench_assign.py``. Solves 10,000 random games of the
contest rules (``uva10149``, or ``--rules NAME``) as one batch, and times the whole text path too
(read the contest format, solve, write the answer lines). Each figure is the
median of several runs after one warm-up run (which also compiles the kernels).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np

from dicelab.games.assign.contest_format import format_lines, parse_games
from dicelab.games.assign.hindsight import assign
from dicelab.rules import load_rules


def median_time(fn, runs: int) -> float:
    """Median wall time of ``fn()`` over ``runs`` runs, after one warm-up call."""
    fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10_000, help="games per run")
    parser.add_argument("--runs", type=int, default=7, help="timed runs (at least 5)")
    parser.add_argument("--rules", default="uva10149", help="rule set")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    runs = max(5, args.runs)

    rules = load_rules(args.rules)
    rng = np.random.default_rng(args.seed)
    shape = (args.games, rules.n_categories, rules.dice)
    games = rng.integers(1, rules.faces + 1, size=shape)
    rolls = games.reshape(-1, rules.dice).tolist()
    text = "".join(" ".join(map(str, roll)) + "\n" for roll in rolls)
    print(f"{args.games} random games, rules {args.rules}, {numba.get_num_threads()} threads")

    t = median_time(lambda: assign(games, args.rules), runs)
    print(
        f"library batch (dicelab.games.assign.hindsight.assign): median {t:.4f} s, "
        f"{args.games / t:,.0f} games/s"
    )

    def text_path() -> str:
        parsed = parse_games(text, args.rules)
        return format_lines(assign(parsed.faces, args.rules))

    t = median_time(text_path, runs)
    print(
        f"text in, text out (parse, solve, format): median {t:.4f} s, {args.games / t:,.0f} games/s"
    )
    mean = float(assign(games, args.rules).total.mean())
    print(f"mean best total: {mean:.2f}")


if __name__ == "__main__":
    main()
