"""Benchmark of each main command's first run on a fresh machine: empty caches.

Run ``python benchmarks/bench_cold.py`` (``--runs N``, ``--only NAME,...``,
``--heavy``).

Every run is a fresh process with an empty table cache. Two columns:

* **empty compile cache**: a new Numba cache folder, so the command compiles every
  kernel it needs, as it would after an install that compiled nothing
  (``DICELAB_NO_COMPILE=1``, or a wheel built for another folder);
* **after install**: a copy of the cache that ``pip install -e .`` leaves
  (:func:`dicelab.api.compile_kernels`, run once here into a folder of its own
  and timed: the install's compile step, on the first line).

Each command's median and fastest wall time are printed beside ``python -c
pass`` measured in the same run, with the load average before and after.
``--heavy`` adds the commands whose first run takes minutes (the yahtzee target
table, the yazy duel).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
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


INSTALL_COMPILE = [sys.executable, "-c", "import dicelab.api; dicelab.api.compile_kernels()"]


def cold_wall(cmd: list[str], installed: str | None = None) -> float:
    """Wall time of ``cmd`` from process start to exit, with an empty table cache and
    an empty compile cache, or a copy of ``installed`` (the install's compile cache)."""
    from bench_cli import wall

    with tempfile.TemporaryDirectory() as numba, tempfile.TemporaryDirectory() as tables:
        if installed is not None:
            shutil.copytree(installed, numba, dirs_exist_ok=True)
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
    print(f"{'':56} {'empty compile cache':>19} {'after install':>19}")
    print(f"{'first run':56} {'median':>9} {'fastest':>9} {'median':>9} {'fastest':>9}")
    with tempfile.TemporaryDirectory() as installed:
        times = [cold_wall(INSTALL_COMPILE) for _ in range(args.runs)]
        env = dict(os.environ, NUMBA_CACHE_DIR=installed)
        subprocess.run(INSTALL_COMPILE, env=env, check=True)
        line = f"{statistics.median(times):8.2f}s {min(times):8.2f}s"
        what = "the install's compile (pip install -e .)"
        print(f"{what:56} {line}", flush=True)
        for name, cmd in cmds.items():
            cold = [cold_wall(cmd) for _ in range(args.runs)]
            warm = [cold_wall(cmd, installed) for _ in range(args.runs)]
            line = f"{statistics.median(cold):8.2f}s {min(cold):8.2f}s"
            line += f" {statistics.median(warm):8.2f}s {min(warm):8.2f}s"
            print(f"{name:56} {line}", flush=True)
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) after")


if __name__ == "__main__":
    main()
