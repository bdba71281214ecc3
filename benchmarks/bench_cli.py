"""Benchmark of whole commands, from process start to exit, as a user feels them.

Run ``python benchmarks/bench_cli.py`` (``--runs N``, ``--target-rules NAME``).

Each command runs ``--runs`` times (default 7) in a fresh process after one
untimed run (which fills the cache: tables solved, kernels compiled); the
median and fastest wall times are printed beside ``python -c pass`` measured in
the same run, and the load average before and after says how quiet the machine
was. ``advise --target`` reads a cached all-targets table (``yacht`` by default;
``--target-rules yahtzee`` solves its 2.3 GB table first, several minutes).
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


def commands(target_rules: str) -> dict[str, list[str]]:
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "dicelab --help": [DICELAB, "--help"],
        "dicelab rules show yahtzee": [DICELAB, "rules", "show", "yahtzee"],
        "dicelab advise yahtzee": [
            DICELAB, "advise", "yahtzee", "--dice", "3", "3", "6", "5", "6", "--rerolls", "2",
        ],
        f"dicelab advise {target_rules} --target": [
            DICELAB, "advise", target_rules, "--dice", "3", "3", "6", "5", "6", "--rerolls",
            "2", "--target", "200",
        ],
    }  # fmt: skip


def wall(cmd: list[str], env: dict | None = None) -> float:
    """Seconds of ``cmd`` from process start to exit (``env``: its environment)."""
    t = time.perf_counter()
    res = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {res.stderr.strip()[-300:]}")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--target-rules", default="yacht")
    args = ap.parse_args()
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    cmds = commands(args.target_rules)
    for cmd in cmds.values():  # warm: tables cached, kernels compiled
        wall(cmd)
    times = {name: [] for name in cmds}
    for _ in range(args.runs):  # interleaved, so a noisy moment hits every command
        for name, cmd in cmds.items():
            times[name].append(wall(cmd))
    base = statistics.median(times["python -c pass"])
    print(f"{'command':34} {'median s':>9} {'min s':>8} {'- python s':>11}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:34} {med:9.3f} {min(ts):8.3f} {med - base:11.3f}")
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) after the run")


if __name__ == "__main__":
    main()
