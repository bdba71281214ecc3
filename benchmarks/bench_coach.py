"""Benchmark of training (:mod:`dicelab.play.training`) and the history of games.

Run ``python benchmarks/bench_coach.py`` (``--runs N``, ``--rules NAME``). Prints, with the
load average before and after, medians of ``--runs``:

- a session's questions drawn (10 questions; the games of the optimum they come from);
- one answer graded, with and without the why (every question of a session);
- ``dicelab train RULES -n 10`` from process start to its first question on the screen,
  beside ``python -c pass``;
- a game kept in the history, and the history of 200 games listed.
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
from types import SimpleNamespace as NS

from dicelab.engine.objectives.expected import expected_table
from dicelab.engine.objectives.explain import explain_table
from dicelab.play import history
from dicelab.play.training import Training

DICELAB = str(Path(sys.executable).with_name("dicelab"))


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def timed(fn, runs: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def first_question(rules: str) -> float:
    """Seconds from process start to the first question's dice on standard output."""
    t = time.perf_counter()
    proc = subprocess.Popen([DICELAB, "train", rules, "-n", "10", "--json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    proc.stdout.readline()
    elapsed = time.perf_counter() - t
    proc.communicate("q\n")
    return elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="yahtzee")
    args = ap.parse_args()
    print(load())
    table = expected_table(args.rules)
    split = explain_table(args.rules, mapped=True)
    seconds, session = timed(lambda: Training(table, 10, seed=7, explain=split), args.runs)
    print(f"\n{args.rules}: 10 questions drawn             {1e3 * seconds:8.1f} ms")
    plain, why = [], []
    for seed in range(args.runs):
        for with_why, out in ((False, plain), (True, why)):
            s = Training(table, 10, seed=seed, explain=split if with_why else None)
            for q in s.questions:
                t = time.perf_counter()
                s.answer(q, "none" if q.advice.options[0].kind == "keep" else q.advice.best.box)
                out.append(time.perf_counter() - t)
    print(f"one answer graded                     {1e3 * statistics.median(plain):8.2f} ms")
    print(f"one answer graded, with why           {1e3 * statistics.median(why):8.2f} ms")
    folder = tempfile.mkdtemp(prefix="bench-coach-")
    os.environ["DICELAB_DATA_DIR"] = folder
    base = statistics.median(_wall_pass() for _ in range(args.runs))
    first_question(args.rules)  # warm: the split by box cached
    firsts = [first_question(args.rules) for _ in range(args.runs)]
    print(f"dicelab train {args.rules}: first question      {statistics.median(firsts):8.3f} s "
          f"(python -c pass {base:.3f} s)")  # fmt: skip
    option = NS(label="keep 6 6")
    d = NS(cost=0.5, mistake=True, turn=1, throw=1, dice=(1, 2, 3, 4, 5), chosen=option,
           best=option)  # fmt: skip
    result = NS(score=250, decisions=[d] * 39, total_cost=19.5)
    keeps = []
    for i in range(200):
        t = time.perf_counter()
        history.keep({"format": "dicelab-game", "rules": args.rules, "i": i}, result)
        keeps.append(time.perf_counter() - t)
    listed, _ = timed(lambda: history.entries(), args.runs)
    print(f"a game kept in the history            {1e3 * statistics.median(keeps):8.2f} ms")
    print(f"200 games listed                      {1e3 * listed:8.2f} ms")
    print(load().replace(" on ", " after the run, on "))


def _wall_pass() -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t


if __name__ == "__main__":
    main()
