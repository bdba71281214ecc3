"""Benchmark of playing to win at a table: one decision's advice, by the table method.

Run ``python benchmarks/bench_match.py`` (``--rules NAME ...``, default ``yacht
yahtzee``; ``--players N ...``, default ``2 4``; ``--runs N``, default 1).

For each rule set and number of players, three positions of a game in progress:
your first turn (nothing filled yet, the opponents at their first turn too), after
four boxes and after eight (every opponent as far, with typical points). Each is
timed as a whole ``dicelab match advise ... --method table`` command from process
start, beside ``python -c pass``, with the peak memory of the process. The table
method solves the rest of the game from the position for this turn's utility, so
the time falls with each box filled.

Every figure is a median of ``--runs``; the load average before and after says how
quiet the machine was.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))

#: Boxes filled, in order, with points a typical game gives them.
SHEETS = {
    "yacht": [("ones", 2), ("twos", 6), ("threes", 9), ("fours", 12), ("fives", 15),
              ("sixes", 18), ("choice", 22), ("full_house", 25)],
    "yahtzee": [("ones", 2), ("twos", 6), ("threes", 9), ("fours", 12), ("fives", 15),
                ("sixes", 18), ("chance", 22), ("full_house", 25)],
}  # fmt: skip


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of a command (through /usr/bin/time)."""
    t = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    return wall, int(res.stderr.strip().splitlines()[-1]) / 1024


def command(rules: str, players: int, filled: int) -> list[str]:
    boxes = SHEETS[rules][:filled]
    sheet = ",".join(f"{b}={p}" for b, p in boxes)
    theirs = ["--theirs", sheet] * (players - 1)
    return [DICELAB, "match", "advise", rules, "--dice", "2", "2", "5", "5", "6",
            "--mine", sheet, *theirs, "--method", "table", "--json"]  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=["yacht", "yahtzee"], choices=sorted(SHEETS))
    ap.add_argument("--players", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--runs", type=int, default=1)
    args = ap.parse_args()
    print(load())
    base = statistics.median(timed([sys.executable, "-c", "pass"])[0] for _ in range(5))
    print(f"python -c pass: {base:.3f} s")
    for rules in args.rules:
        subprocess.run(command(rules, 2, 8), capture_output=True)  # tables and kernels cached
        for players in args.players:
            for filled in (0, 4, 8):
                runs = [timed(command(rules, players, filled)) for _ in range(args.runs)]
                wall = statistics.median(r[0] for r in runs)
                peak = max(r[1] for r in runs)
                print(f"{rules:8s} {players} players, {filled} boxes filled: {wall:7.2f} s "
                      f"whole command, peak {peak:6.0f} MiB")  # fmt: skip
    print(load())


if __name__ == "__main__":
    main()
