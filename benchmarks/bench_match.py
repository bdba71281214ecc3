"""Benchmark of playing to win at a table: the preparation, then one decision's advice.

Run ``python benchmarks/bench_match.py`` (``--rules NAME ...``, default ``yacht
yahtzee yatzy``; ``--players N ...``, default ``2 4``; ``--runs N``, default 5;
``--method table`` times the table over the whole rest of the game instead).

For each rule set:

- **the preparation**: the first ``dicelab match advise`` from an empty table cache
  (a fresh cache folder; compiled kernels stay cached, as after any first run),
  which solves the expected-score table and the distribution of the points to
  come from every state, and stores them; with its peak memory and the size of
  the stored table;
- **one decision**: for each number of players, three positions of a game in
  progress: your first turn (the opponents at their first turn too), after four
  boxes and after eight (every opponent as far, with typical points). Each is
  timed as a whole ``dicelab match advise`` command from process start, beside
  ``python -c pass``, with the peak memory of the process.

Every figure is a median of ``--runs``; the load average before and after says how
quiet the machine was.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))

#: Boxes filled, in order, with points a typical game gives them.
UPPER = [("ones", 2), ("twos", 6), ("threes", 9), ("fours", 12), ("fives", 15), ("sixes", 18)]
SHEETS = {
    "yacht": UPPER + [("choice", 22), ("full_house", 25)],
    "yahtzee": UPPER + [("chance", 22), ("full_house", 25)],
    "yatzy": UPPER + [("chance", 22), ("full_house", 18)],
}


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def timed(cmd: list[str], env: dict | None = None) -> tuple[float, float]:
    """Wall seconds and peak resident MiB of a command (through /usr/bin/time)."""
    t = time.perf_counter()
    res = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], capture_output=True, text=True, env=env
    )
    wall = time.perf_counter() - t
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    return wall, int(res.stderr.strip().splitlines()[-1]) / 1024


def command(rules: str, players: int, filled: int, method: str) -> list[str]:
    boxes = SHEETS[rules][:filled]
    sheet = ",".join(f"{b}={p}" for b, p in boxes)
    theirs = ["--theirs", sheet] * (players - 1)
    return [DICELAB, "match", "advise", rules, "--dice", "2", "2", "5", "5", "6",
            "--mine", sheet, *theirs, "--method", method, "--json"]  # fmt: skip


def preparation(rules: str, method: str) -> None:
    """The first command from an empty table cache, and what it stores."""
    with tempfile.TemporaryDirectory(prefix="dicelab-bench-") as folder:
        env = {**os.environ, "DICELAB_CACHE_DIR": folder}
        wall, peak = timed(command(rules, 2, 0, method), env)
        stored = sum(f.stat().st_size for f in Path(folder).iterdir()) / 2**20
    print(f"{rules:8s} preparation (empty table cache): {wall:7.2f} s whole command, "
          f"peak {peak:6.0f} MiB, {stored:6.0f} MiB stored")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", nargs="+", default=sorted(SHEETS), choices=sorted(SHEETS))
    ap.add_argument("--players", nargs="+", type=int, default=[2, 4])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--method", default="lookahead", choices=["lookahead", "table"])
    args = ap.parse_args()
    print(load())
    base = statistics.median(timed([sys.executable, "-c", "pass"])[0] for _ in range(5))
    print(f"python -c pass: {base:.3f} s")
    for rules in args.rules:
        subprocess.run(command(rules, 2, 8, args.method), capture_output=True)  # kernels compiled
        preparation(rules, args.method)
        subprocess.run(command(rules, 2, 8, args.method), capture_output=True)  # tables cached
        for players in args.players:
            for filled in (0, 4, 8):
                cmd = command(rules, players, filled, args.method)
                runs = [timed(cmd) for _ in range(args.runs)]
                wall = statistics.median(r[0] for r in runs)
                peak = max(r[1] for r in runs)
                print(f"{rules:8s} {players} players, {filled} boxes filled: {wall:7.2f} s "
                      f"whole command, peak {peak:6.0f} MiB")  # fmt: skip
    print(load())


if __name__ == "__main__":
    main()
