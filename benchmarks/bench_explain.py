"""Benchmark of the why of each option (:mod:`dicelab.engine.objectives.explain`).

Run ``python benchmarks/bench_explain.py`` (``--runs N``, ``--rules a,b``, ``--check``:
also check the split of every built-in rule set that fits this machine).

Prints, with the load average before and after:

- the solve of the split by box, beside the double-precision expected-score solve
  it follows, for each rule set (medians of ``--runs`` solves, no cache);
- one position's advice with every option explained, in process, beside the same
  advice without the why (medians over 300 random positions, from cached tables);
- the whole ``dicelab advise yahtzee ... --explain`` command from process start,
  beside the same command without ``--explain`` and ``python -c pass``;
- with ``--check``: for every built-in rule set, the largest gap between the
  parts of a state and its expected points to come, over every reachable state.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from dicelab.engine.advice.single import Position, advise, scorecard_state
from dicelab.engine.objectives.expected import expected_table, solve_expected
from dicelab.engine.objectives.explain import (
    explain_advice,
    explain_cost,
    explain_table,
    solve_explain,
)
from dicelab.errors import TooLarge
from dicelab.rules import builtin_names, load_rules
from dicelab.rules.compiled import compile_rules

DICELAB = str(Path(sys.executable).with_name("dicelab"))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def solves(names: list[str], runs: int) -> None:
    print(f"\n{'solve (s, median)':24} {'expected double':>16} {'split by box':>13} {'ratio':>6}")
    for name in names:
        base, split = [], []
        for _ in range(runs):
            t = time.perf_counter()
            values = solve_expected(name, precision="double")
            base.append(time.perf_counter() - t)
            t = time.perf_counter()
            solve_explain(values.game, values)
            split.append(time.perf_counter() - t)
        b, s = statistics.median(base), statistics.median(split)
        print(f"{name:24} {b:16.3f} {s:13.3f} {s / b:6.1f}")


def positions(table, count: int, seed: int = 1) -> list[Position]:
    """Random positions a game reaches: boxes filled with points they can hold."""
    game = table.game
    rules = game.rules
    ids = [c.id for c in rules.categories]
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < count:
        k = int(rng.integers(0, len(ids)))
        filled = {
            ids[c]: int(rng.choice(sorted(game.possible_points[int(c)])))
            for c in rng.permutation(len(ids))[:k]
        }
        dice = tuple(int(d) for d in rng.integers(1, rules.faces + 1, rules.dice))
        p = Position(dice=dice, rerolls=int(rng.integers(0, rules.rolls)), filled=filled)
        try:
            scorecard_state(table, p)
        except Exception:
            continue
        out.append(p)
    return out


def queries(names: list[str]) -> None:
    print(f"\n{'one position (ms, median)':24} {'advise':>10} {'with why':>10} {'ratio':>6}")
    for name in names:
        split = explain_table(name, mapped=True)
        plain = expected_table(name)
        ps = positions(plain, 300)
        for p in ps[:20]:  # warm: the table's blocks checked once, as a command does
            explain_advice(split, p)
        a, b = [], []
        for p in ps:
            t = time.perf_counter()
            advise(plain, p)
            a.append(time.perf_counter() - t)
            t = time.perf_counter()
            explain_advice(split, p)
            b.append(time.perf_counter() - t)
        ma, mb = 1e3 * statistics.median(a), 1e3 * statistics.median(b)
        print(f"{name:24} {ma:10.2f} {mb:10.2f} {mb / ma:6.1f}   (slowest {1e3 * max(b):.1f})")


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t


def commands(runs: int) -> None:
    position = ["--dice", "5", "5", "6", "6", "2", "--filled", "ones=3,twos=6,chance=22"]
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "dicelab advise yahtzee": [DICELAB, "advise", "yahtzee", *position],
        "dicelab advise yahtzee --explain": [DICELAB, "advise", "yahtzee", *position, "--explain"],
    }
    for cmd in cmds.values():
        wall(cmd)  # tables cached
    times = {name: [] for name in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            times[name].append(wall(cmd))
    print(f"\n{'whole command':34} {'median s':>9} {'min s':>8}")
    for name, ts in times.items():
        print(f"{name:34} {statistics.median(ts):9.3f} {min(ts):8.3f}")


def check_builtins(longest: float) -> None:
    print(f"\n{'rule set':24} {'parts':>12} {'largest gap':>12}")
    for name in builtin_names():
        rules = load_rules(name)
        if not rules.save_unused_throws:
            cost = explain_cost(compile_rules(rules))
            if cost.seconds > longest:
                print(f"{name:24} {cost.states:12,} skipped: {cost.describe()}")
                continue
        try:
            table = explain_table(name, use_cache=False)
        except TooLarge as exc:
            print(f"{name:24} {'':>12} skipped: {exc}")
            continue
        except Exception as exc:  # saved throws: refused in one line
            print(f"{name:24} {'':>12} refused: {str(exc).split(';')[0]}")
            continue
        game, V = table.game, table.expected.values
        worst = 0.0
        for mask in range(1 << game.n_categories):
            us = np.flatnonzero(game.upper_reach[mask])
            for y in range(game.flags_of(mask)):
                gap = np.abs(table.parts(mask, y, us)[:, :-1].sum(axis=1) - V[mask, y, us])
                worst = max(worst, float(gap.max()))
        size = explain_cost(game).states
        print(f"{name:24} {size:12,} {worst:12.1e}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rules", default="yahtzee,yatzy")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--longest", type=float, default=300.0, help="skip longer checks (s)")
    args = ap.parse_args()
    names = args.rules.split(",")
    print(load())
    solves(names, args.runs)
    queries(names)
    commands(max(args.runs, 7))
    if args.check:
        check_builtins(args.longest)
    print(load().replace(" on ", " after the run, on "))


if __name__ == "__main__":
    main()
