"""Benchmark of each main command's first run on a fresh machine: empty caches.

Run ``python benchmarks/bench_cold.py`` (``--runs N``, ``--only NAME,...``,
``--heavy``).

Every run is a fresh process with an empty Numba compile cache and an empty table
cache (two new temporary folders), so it compiles every kernel it needs and
solves every table it reads, as the first command after ``pip install`` does.
Each command's median and fastest wall time are printed beside ``python -c
pass`` measured in the same run, with the load average before and after.
``--heavy`` adds the commands whose first run takes minutes (the yahtzee target
table, the yazy duel).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))
DICE = ["--dice", "3", "3", "6", "5", "6", "--rerolls", "2"]


def commands(heavy: bool) -> dict[str, list[str]]:
    cmds = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "dicelab --help": [DICELAB, "--help"],
        "dicelab rules show yahtzee": [DICELAB, "rules", "show", "yahtzee"],
        "dicelab solve yahtzee": [DICELAB, "solve", "yahtzee"],
        "dicelab solve yatzy": [DICELAB, "solve", "yatzy"],
        "dicelab advise yahtzee": [DICELAB, "advise", "yahtzee", *DICE],
        "dicelab distribution yahtzee": [DICELAB, "distribution", "yahtzee"],
        "dicelab simulate yahtzee --games 10000": [
            DICELAB, "simulate", "yahtzee", "--games", "10000",
        ],
        "dicelab solve yacht --objective target --target 150": [
            DICELAB, "solve", "yacht", "--objective", "target", "--target", "150",
        ],
    }  # fmt: skip
    if heavy:
        cmds["dicelab solve yahtzee --objective target --target 250"] = [
            DICELAB, "solve", "yahtzee", "--objective", "target", "--target", "250",
        ]  # fmt: skip
        cmds["dicelab duel yazy"] = [DICELAB, "duel", "yazy"]
    return cmds


def cold_wall(cmd: list[str]) -> float:
    """Wall time of ``cmd`` from process start to exit, with empty caches."""
    from bench_cli import wall

    with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as tables:
        return wall(cmd, dict(os.environ, NUMBA_CACHE_DIR=numba, DICELAB_CACHE_DIR=tables))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated names (a part of each is enough)")
    ap.add_argument("--heavy", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    cmds = commands(args.heavy)
    if args.only:
        parts = args.only.split(",")
        keep = lambda n: n == "python -c pass" or any(p in n for p in parts)  # noqa: E731
        cmds = {n: c for n, c in cmds.items() if keep(n)}
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    print(f"{'first run, empty caches':56} {'median':>9} {'fastest':>9}")
    for name, cmd in cmds.items():
        times = [cold_wall(cmd) for _ in range(args.runs)]
        print(f"{name:56} {statistics.median(times):8.2f}s {min(times):8.2f}s", flush=True)
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) after")


if __name__ == "__main__":
    main()
