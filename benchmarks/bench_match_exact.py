"""Benchmark of the exact evaluation of the advice at a table, from an empty cache.

Run ``python benchmarks/bench_match_exact.py`` (``--rules NAME``, default ``yazy``;
``--runs N``, default 1: a run of yazy takes minutes; ``--against SRC`` to alternate
with another source tree, for example a worktree of an older commit,
``/tmp/old/src``; ``--games N``, the games per seat of the command, default its own).

Each run is ``dicelab match evaluate RULES --players 2 --json`` as a whole command,
as a new user meets it: a fresh process and an empty table cache, so that it solves
the two-player game, prepares the expected-score table and the points to come,
evaluates the win-optimal player against a points player in both seats, evaluates
the advice exactly in both seats and plays the games that count its win-optimal
choices. Compiled kernels stay cached, as after the install (a first run of a small
game per tree, untimed, compiles any that is not). Every figure is a median; the
load average before and after says how quiet the machine was, and the chances the
command printed are shown so that two trees can be seen to agree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_match_play import SRC, alternate, load, report  # this folder: the same runs

#: A game small enough to compile every kernel of the command in seconds.
WARM_UP = """
name = "warm-up"
dice = 2
faces = 4
rolls = 2
[[categories]]
id = "twos"
kind = "face"
face = 2
[[categories]]
id = "pair"
kind = "of_a_kind"
count = 2
score = "all"
"""


def evaluate(src: Path, rules: str, games: int | None) -> tuple[float, dict]:
    """Wall seconds and the JSON of one ``match evaluate`` from an empty cache."""
    folder = Path(tempfile.mkdtemp(prefix="dicelab-bench-exact-"))
    env = dict(os.environ, PYTHONPATH=str(src), DICELAB_CACHE_DIR=str(folder / "cache"))
    command = [sys.executable, "-m", "dicelab", "match", "evaluate", rules, "--players", "2"]
    command += ["--json", "--allow-large"] + ([] if games is None else ["--games", str(games)])
    began = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - began
    shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        raise SystemExit(f"match evaluate failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds, json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yazy")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument("--against", type=Path, help="another source tree, run alternately")
    args = parser.parse_args()
    trees = [("this tree", SRC)] + ([("against", args.against)] if args.against else [])
    print(load())
    with tempfile.TemporaryDirectory() as tmp:
        warm = Path(tmp) / "warm-up.toml"
        warm.write_text(WARM_UP)
        for _, src in trees:
            evaluate(src, str(warm), 2)

    def run(name: str, src: Path) -> float:
        seconds, out = evaluate(src, args.rules, args.games)
        chances = ", ".join(f"{out[s]['lookahead']:.9f}" for s in ("first", "second"))
        wins = ", ".join(f"{out[s]['win_optimal']:.9f}" for s in ("first", "second"))
        print(f"  {name}: {seconds:.1f} s; the advice {chances}; win-optimal {wins}")
        return seconds

    times = alternate(trees, args.runs, run)
    title = f"`dicelab match evaluate {args.rules} --players 2`, empty cache (median s)"
    report(title, trees, times)
    print(load())


if __name__ == "__main__":
    main()
