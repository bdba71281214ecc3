"""Benchmark of advice queries: milliseconds per query from a cached table.

Run ``python benchmarks/bench_advise.py`` (``--queries N``, ``--runs N``,
``--rules NAME``, ``--no-peer``).

The table is loaded from the cache once (its load time is printed apart); then
each run answers the same fixed set of random positions (first throws, rerolls
and final throws, with random scorecards that can occur), and the median time per
query over the runs is printed, with the slowest single query seen, for:

* ``advise``: a position given box by box, checked, every option named and ranked;
* ``OptionValues``: the same position in the engine's terms, every option's value
  from the compiled turn (what training, review and simulation ask);
* the peer ``yatzy-solver`` (Rust core, installed into ``benchmarks/.peer-venv``
  as ``bench_solve.py`` does), its ``option_values`` on the same positions in its
  notation, for ``yahtzee`` (its ``american``) and ``yatzy`` (``yatzy-scandinavian``),
  with the largest difference between its best value and ours.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time


def positions(table, n: int, seed: int = 0):
    """Random reachable positions: a random scorecard, dice and rerolls left."""
    from dicelab.engine.advice.single import Position

    rng = random.Random(seed)
    g = table.game
    cats = table.rules.categories
    out = []
    for _ in range(n):
        k = rng.randrange(len(cats))
        boxes = rng.sample(range(len(cats)), k)
        filled = {cats[c].id: int(rng.choice(sorted(set(g.score[c].tolist())))) for c in boxes}
        dice = tuple(rng.randint(1, table.rules.faces) for _ in range(table.rules.dice))
        out.append(Position(dice, rng.randint(0, table.rules.rolls - 1), filled))
    return out


#: dicelab rule set -> the peer's variant
PEER_VARIANTS = {"yahtzee": "american", "yatzy": "yatzy-scandinavian"}

PEER_SCRIPT = r"""
import json, statistics, sys, time
import yatzy_solver as ys
job = json.load(sys.stdin)
solver = ys.Solver.build(ys.Variant(job["variant"]))
queries = job["queries"]
solver.option_values(queries[0])
per_run, best = [], []
for _ in range(job["runs"]):
    times = []
    for q in queries:
        t = time.perf_counter()
        solver.option_values(q)
        times.append(time.perf_counter() - t)
    per_run.append(1000 * statistics.median(times))
best = [max(v for _, v in solver.option_values(q)) for q in queries]
print(json.dumps({"per_run": per_run, "best": best}))
"""


def peer_notation(table, mask: int, upper: int, flag: int, dice, rerolls: int, names) -> str:
    """A position in the peer's notation (its category names by scorecard order)."""
    g = table.game
    filled = [names[c] for c in range(g.n_categories) if (mask >> c) & 1]
    text = (
        f"dice {' '.join(map(str, sorted(dice)))} | rolls {rerolls} | upper {upper} | "
        f"filled {','.join(filled) or '-'}"
    )
    if g.rules.extra_bonus and g.yahtzee >= 0 and (mask >> g.yahtzee) & 1:
        text += f" | {names[g.yahtzee]} {int(g.score[g.yahtzee].max()) if flag else 0}"
    return text


def run_peer(variant: str, runs: int) -> dict | None:
    """The peer's timings and best values, in its own environment."""
    import json
    import subprocess

    from bench_solve import peer_python

    py = peer_python()
    if py is None:
        return None
    names = subprocess.run(
        [py, "-c", f"import yatzy_solver as y; print(','.join(y.Variant({variant!r}).categories))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip().split(",")  # fmt: skip

    def run(queries: list[str]) -> dict:
        job = json.dumps({"variant": variant, "queries": queries, "runs": runs})
        out = subprocess.run([py, "-c", PEER_SCRIPT], input=job, capture_output=True,
                             text=True, check=True)  # fmt: skip
        return json.loads(out.stdout)

    return {"names": names, "run": run}


def timed(call, items, runs: int) -> tuple[list[float], float]:
    """Median milliseconds per item of each run, and the slowest single item."""
    per_run, slowest = [], 0.0
    for _ in range(runs):
        times = []
        for item in items:
            t = time.perf_counter()
            call(item)
            times.append(time.perf_counter() - t)
        per_run.append(1000 * statistics.median(times))
        slowest = max(slowest, 1000 * max(times))
    return per_run, slowest


def show(what: str, per_run: list[float], slowest: float) -> None:
    runs = ", ".join(f"{m:.4f}" for m in per_run)
    print(f"  {what:14} median {statistics.median(per_run):.4f} ms per query "
          f"(runs: {runs}), slowest {slowest:.3f} ms")  # fmt: skip


def main() -> None:
    import os
    import sys

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=3000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rules", default="yahtzee,yatzy")
    ap.add_argument("--no-peer", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    from dicelab.engine.advice.query import OptionValues
    from dicelab.engine.advice.single import advise, scorecard_state
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.errors import UserError

    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    for name in args.rules.split(","):
        expected_table(name)  # make sure it is cached
        t = time.perf_counter()
        table = expected_table(name)
        load_ms = 1000 * (time.perf_counter() - t)
        found = []
        for pos in positions(table, 2 * args.queries):
            try:
                found.append((pos, scorecard_state(table, pos)))
            except UserError:
                continue
        found = found[: args.queries]
        ask = OptionValues(table)
        engine = [(m, u, y, pos.dice, pos.rerolls) for pos, (m, u, y, _) in found]
        advise(table, found[0][0])
        ask(*engine[0])
        print(f"{name}: table loaded from the cache in {load_ms:.0f} ms; "
              f"{len(found)} positions x {args.runs} runs")  # fmt: skip
        show("advise", *timed(lambda f, t=table: advise(t, f[0]), found, args.runs))
        ours = timed(lambda q, a=ask: a(*q), engine, args.runs)
        show("OptionValues", *ours)
        variant = PEER_VARIANTS.get(name)
        peer = None if args.no_peer or variant is None else run_peer(variant, args.runs)
        if peer is None:
            continue
        upper = [pos_upper for _, (_, pos_upper, _, _) in found]
        notation = [
            peer_notation(table, m, up, y, d, r, peer["names"])
            for (m, _, y, d, r), up in zip(engine, upper, strict=True)
        ]
        res = peer["run"](notation)
        show(f"peer {variant}", res["per_run"], float("nan"))
        # the peer counts an upper bonus already made as scored, not still to come
        made = [table.game.threshold > 0 and up >= table.game.threshold for up in upper]
        bonus = table.rules.bonus_points
        mine = [max(v for _, v in ask(*q)) - bonus * m for q, m in zip(engine, made, strict=True)]
        diff = max(abs(a - b) for a, b in zip(mine, res["best"], strict=True))
        ratio = statistics.median(res["per_run"]) / statistics.median(ours[0])
        print(f"  OptionValues against the peer: {ratio:.2f}x its speed; "
              f"best values agree to {diff:.2e}")  # fmt: skip


if __name__ == "__main__":
    main()
