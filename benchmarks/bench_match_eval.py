"""Benchmark of how well the advice at a table plays to win, in simulated games.

Run ``python benchmarks/bench_match_eval.py`` (``--rules NAME ...``, default
``yahtzee yatzy``; ``--players N ...``, default ``2 4``; ``--games N``, default
100,000; ``--seed N``; ``--json FILE`` keeps every figure).

For each rule set and table size it runs ``dicelab match evaluate RULES --players N
--games G --json`` as a whole command (the table of points to come read from the
cache, or prepared first) and prints the advice's chance to finish first against
players who play for points, with its standard error, the gain over playing for
points (whose chance is ``1 / players``) and its size in standard errors, seat by
seat and over all seats, the mean final scores both ways, and the games played a
second. ``--exact-too`` adds, for two players where the exact evaluation fits
(yazy), the exact figures beside the simulated ones.

The load average before and after says how quiet the machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def evaluate(rules: str, players: int, games: int, seed: int, simulate: bool) -> dict:
    """One ``dicelab match evaluate`` as a whole command: its JSON and wall seconds."""
    cmd = [DICELAB, "match", "evaluate", rules, "--players", str(players), "--json",
           "--seed", str(seed), "--games", str(games)]  # fmt: skip
    if simulate:
        cmd.append("--simulate")
    start = time.perf_counter()
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    out = json.loads(res.stdout)
    out["wall_seconds"] = time.perf_counter() - start
    return out


def show(out: dict) -> None:
    """The figures of one simulated evaluation, seat by seat."""
    print(f"{out['rules']}, {out['players']} players: {out['games']:,} games in "
          f"{out['wall_seconds']:.0f} s ({out['games'] / out['seconds']:,.0f} games/s in the "
          f"games), seed {out['seed']}")  # fmt: skip
    print("  seat   chance   s.e.     gain     z")
    rows = [(str(n + 1), s) for n, s in enumerate(out["seats"])] + [("all", out)]
    for label, s in rows:
        print(f"  {label:4} {s['win_chance']:8.4f} {s['standard_error']:7.4f} "
              f"{s['gain']:+8.4f} {s['z']:5.1f}")  # fmt: skip
    lo, hi = out["interval_95"]
    score = out["mean_score"]
    verdict = "significant" if out["significant"] else "NOT significant"
    print(f"  95% interval {lo:.4f} to {hi:.4f}; playing for points {out['points_chance']:.4f}; "
          f"{verdict} at 4 s.e.; mean score {score['advice']:.1f} by the advice, "
          f"{score['points']:.1f} for points")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=["yahtzee", "yatzy"])
    ap.add_argument("--players", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--games", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--exact-too", action="store_true")
    ap.add_argument("--json", help="write every figure to this file")
    args = ap.parse_args()
    print(load())
    found = []
    for rules in args.rules:
        for players in args.players:
            out = evaluate(rules, players, args.games, args.seed, simulate=True)
            show(out)
            found.append(out)
            if args.exact_too and players == 2:
                exact = evaluate(rules, 2, 0, args.seed, simulate=False)
                got = [exact[s]["lookahead"] for s in ("first", "second", "average")]
                print(f"  exact: first seat {got[0]:.6f}, second {got[1]:.6f}, average "
                      f"{got[2]:.6f} ({exact['wall_seconds']:.0f} s)")  # fmt: skip
                found.append(exact)
    print(load())
    if args.json:
        Path(args.json).write_text(json.dumps(found, indent=1))


if __name__ == "__main__":
    main()
