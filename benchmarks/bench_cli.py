"""Benchmark of whole commands, from process start to exit, as a user feels them.

Run ``python benchmarks/bench_cli.py`` (``--runs N``, ``--target-rules NAME``,
``--duel``: also ``duel advise yazy``, whose table takes about a minute to solve
the first time).

Each command runs ``--runs`` times (default 7) in a fresh process after one
untimed run (which fills the cache: tables solved, kernels compiled); the
median and fastest wall times are printed beside ``python -c pass`` measured in
the same run, and the load average before and after says how quiet the machine
was. ``advise --target`` reads the cached table of its target (``yacht`` by
default; ``--target-rules yahtzee`` solves it first, about 20 s). ``review`` reads
a Yahtzee game played by always taking the best option, recorded once.
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


def commands(target_rules: str, record: str, duel: bool) -> dict[str, list[str]]:
    dice = ["--dice", "3", "3", "6", "5", "6", "--rerolls", "2"]
    out = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "dicelab --help": [DICELAB, "--help"],
        "dicelab advise --help": [DICELAB, "advise", "--help"],
        "dicelab cache list": [DICELAB, "cache", "list"],
        "dicelab review GAME": [DICELAB, "review", record],
        "dicelab rules show yahtzee": [DICELAB, "rules", "show", "yahtzee"],
        "dicelab distribution yahtzee": [DICELAB, "distribution", "yahtzee"],
        "dicelab advise yahtzee": [
            DICELAB, "advise", "yahtzee", "--dice", "3", "3", "6", "5", "6", "--rerolls", "2",
        ],
        f"dicelab advise {target_rules} --target": [
            DICELAB, "advise", target_rules, "--dice", "3", "3", "6", "5", "6", "--rerolls",
            "2", "--target", "200",
        ],
    }  # fmt: skip
    if duel:
        out["dicelab duel advise yazy"] = [
            DICELAB, "duel", "advise", "yazy", *dice, "--mine", "ones=2", "--theirs", "twos=4",
        ]  # fmt: skip
    return out


def recorded_game(folder: Path) -> str:
    """A finished Yahtzee game, every option the best one, as ``review`` reads it."""
    path = folder / "game.json"
    subprocess.run(
        [DICELAB, "play", "yahtzee", "--seed", "4", "--record", str(path)],
        input="\n" * 60, stdout=subprocess.DEVNULL, text=True, check=True,
    )  # fmt: skip
    return str(path)


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
    ap.add_argument("--duel", action="store_true")
    args = ap.parse_args()
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    folder = Path(tempfile.mkdtemp(prefix="bench-cli-"))
    cmds = commands(args.target_rules, recorded_game(folder), args.duel)
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
