"""Benchmark of the wait for the first advice of ``dicelab match play``.

Run ``python benchmarks/bench_match_play.py`` (``--rules NAME``, default ``yahtzee``;
``--runs N``, default 3; ``--against SRC`` to alternate with another source tree,
for example a worktree of an older commit, ``/tmp/old/src``).

Each run starts ``dicelab match play RULES`` as a new user would: a fresh process,
an empty table cache (compiled kernels stay cached, as after the install; a first run per
tree, untimed, compiles any that is not), one
opponent, a fixed seed. It is timed from the start of the process to the first
table of options ("chance to finish first"), then stopped: the preparation of the
expected-score table and of the points to come from every state, then the advice.
With ``--against``, the two source trees run one after the other in every round,
so that both meet the same load. Every figure is a median; the load average
before and after says how quiet the machine was.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "src"


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def first_advice(src: Path, rules: str) -> float:
    """Seconds from the start of ``match play`` to its first table of options."""
    folder = Path(tempfile.mkdtemp(prefix="dicelab-bench-play-"))
    env = dict(os.environ, PYTHONPATH=str(src), DICELAB_CACHE_DIR=str(folder / "cache"))
    command = [sys.executable, "-m", "dicelab", "match", "play", rules, "--seed", "1"]
    command += ["--record", str(folder / "game.json")]
    began = time.perf_counter()
    proc = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    seconds = None
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if "chance to finish first" in line:
            seconds = time.perf_counter() - began
            break
    proc.kill()
    proc.wait()
    shutil.rmtree(folder, ignore_errors=True)
    if seconds is None:
        raise SystemExit("no advice came:\n" + "".join(lines[-20:]))
    return seconds


def alternate(trees: list[tuple[str, Path]], runs: int, run) -> dict[str, list[float]]:
    """Seconds of ``run(name, src)`` for each source tree, the trees taking turns in
    every round so that both meet the same load."""
    times: dict[str, list[float]] = {name: [] for name, _ in trees}
    for _ in range(runs):
        for name, src in trees:
            times[name].append(run(name, src))
    return times


def report(title: str, trees: list[tuple[str, Path]], times: dict[str, list[float]]) -> None:
    """Each tree's median and runs under ``title``, and the ratio of two trees."""
    print(title)
    for name, src in trees:
        got = times[name]
        runs = ", ".join(f"{t:.2f}" for t in got)
        print(f"  {name:10} {statistics.median(got):8.2f} s   ({runs})   {src}")
    if len(trees) == 2:
        ratio = statistics.median(times[trees[1][0]]) / statistics.median(times[trees[0][0]])
        print(f"  this tree is {ratio:.2f}x as fast")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--against", type=Path, help="another source tree, run alternately")
    args = parser.parse_args()
    trees = [("this tree", SRC)] + ([("against", args.against)] if args.against else [])
    print(load())
    for _, src in trees:  # a first run, untimed: any kernel not yet compiled is
        first_advice(src, args.rules)
    times = alternate(trees, args.runs, lambda _, src: first_advice(src, args.rules))
    title = f"first advice of `dicelab match play {args.rules}`, empty table cache (median s)"
    report(title, trees, times)
    print(load())


if __name__ == "__main__":
    main()
