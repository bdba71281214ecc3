"""Benchmark of the two-player game: the full solve, the comparisons, advice.

Run ``python benchmarks/bench_duel.py`` (``--rules NAME``, default ``yazy``;
``--solves N`` repeats the solve, default 1; ``--compare`` also times the strategy
comparisons; ``--lead`` the table of expected leads; ``--advice N`` positions for
the advice timing, default 200).

1. The solve, in a fresh process: wall time, peak memory (the process's maximum
   resident size) and the number of (sheets, lead) values, beside the
   one-player expected-score solve of the same rules in the same run.
2. With ``--compare``, the three strategy pairs evaluated in one pass (and the
   fair expected-score pair), timed in the same process after the solve; with
   ``--lead``, the expected leads of both playing to win
   (:mod:`dicelab.engine.objectives.duel_lead`), likewise, its kernels compiled beforehand
   on a tiny game.
3. Advice from the cached table (``dicelab duel RULES`` must have cached it):
   the size of the table on disk, the median time of one in-process answer over
   ``--advice`` positions met in play, and the whole ``dicelab duel advise``
   command from process start beside ``python -c pass``.

Every figure is a median; the load average before and after says how quiet the
machine was.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))

CHILD = r"""
import json, resource, sys, time
import numpy as np
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.duel import solve_duel
from dicelab.engine.objectives.duel_compare import EXPECTED, VERDICT_PAIRS, evaluate_pairs
from dicelab.engine.objectives.duel_lead import solve_lead
from dicelab.rules import parse_rules

game = compile_rules(load_rules(sys.argv[1]))
compare = sys.argv[2] == "1"
lead = sys.argv[3] == "1"
solve_expected(game)  # compile the kernels outside the timings
if lead:
    coin = parse_rules({"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
                        "categories": [{"id": "s", "kind": "chance"}]})
    solve_lead(solve_duel(coin))
t = time.perf_counter(); solve_expected(game); one = time.perf_counter() - t
t = time.perf_counter(); table = solve_duel(game); solve = time.perf_counter() - t
out = {"one_player": one, "solve": solve, "values": table.space.n_values,
       "nodes": table.space.n_nodes, "start_value": table.start_value}
if compare:
    t = time.perf_counter()
    res = evaluate_pairs(table, VERDICT_PAIRS + [(EXPECTED, EXPECTED)])
    out["compare"] = time.perf_counter() - t
    out["pairs"] = {f"{a}-{b}": r.to_dict() for (a, b), r in res.items()}
if lead:
    t = time.perf_counter()
    out["lead_value"] = solve_lead(table).value()
    out["lead"] = time.perf_counter() - t
out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(out))
"""


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores"


def bench_solve(rules: str, solves: int, compare: bool, lead: bool = False) -> None:
    runs = []
    flags = ["1" if compare else "0", "1" if lead else "0"]
    for _ in range(solves):
        res = subprocess.run([sys.executable, "-c", CHILD, rules, *flags],
                             capture_output=True, text=True)  # fmt: skip
        if res.returncode != 0:
            raise SystemExit(res.stderr[-2000:])
        runs.append(json.loads(res.stdout))
    med = {k: statistics.median(r[k] for r in runs) for k in ("one_player", "solve", "peak_mib")}
    r0 = runs[0]
    print(f"{rules} duel: {r0['nodes']:,} pairs of sheets, {r0['values']:,} (sheets, lead) "
          f"values; start value {r0['start_value']:.12f}")  # fmt: skip
    print(
        f"  solve            {med['solve']:8.1f} s  (median of {solves}; "
        f"{med['solve'] / med['one_player']:.0f}x the one-player solve, "
        f"{med['one_player']:.3f} s, same run)"
    )
    print(f"  peak memory      {med['peak_mib']:8.0f} MiB")
    if compare:
        c = statistics.median(r["compare"] for r in runs)
        print(f"  comparisons      {c:8.1f} s  ({c / med['solve']:.1f}x the solve)")
        for key, p in r0["pairs"].items():
            print(
                f"    {key:18s} A {p['p_a_wins']:.6f}  tie {p['p_tie']:.6f}  B {p['p_b_wins']:.6f}"
            )
    if lead:
        t = statistics.median(r["lead"] for r in runs)
        print(
            f"  expected leads   {t:8.1f} s  ({t / med['solve']:.2f}x the solve; the first "
            f"player's expected lead {r0['lead_value']:+.6f})"
        )


def positions(rules: str, count: int):
    """Duel positions met in play (both playing to win), as advice arguments."""
    from dicelab.cli.advice import load_table
    from dicelab.cli.duel import load_duel
    from dicelab.play.duel import DuelGame
    from dicelab.rules import load_rules

    r = load_rules(rules)
    table = load_duel(r, quiet=True, mapped=True)
    expected = load_table(r, quiet=True)
    found = []
    seed = 0
    while len(found) < count:
        duel = DuelGame(table, expected, seed=seed)
        seed += 2
        while not duel.over and len(found) < count:
            seat = duel.mover
            g = duel.games[seat]
            if g.phase == "roll":
                g.roll()
                continue
            other = duel.games["B" if seat == "A" else "A"]
            found.append((tuple(g.dice), g.rerolls_left, dict(g.filled), dict(other.filled)))
            duel.apply(duel.options()[0])
    return table, expected, found


def bench_advice(rules: str, count: int) -> None:
    from dicelab.engine.advice.duel import Sheet, duel_advise

    table, expected, found = positions(rules, count)
    path = Path(table.meta["path"])
    print(f"  table on disk    {path.stat().st_size / 2**30:8.2f} GiB ({path.name})")
    times = []
    for dice, rerolls, mine, theirs in found:
        t = time.perf_counter()
        duel_advise(table, expected, dice, rerolls, Sheet(mine), Sheet(theirs))
        times.append(time.perf_counter() - t)
    print(
        f"  advice           {1000 * statistics.median(times):8.2f} ms  (median over "
        f"{len(times)} positions met in play, in process; slowest "
        f"{1000 * max(times):.1f} ms)"
    )
    dice, rerolls, mine, theirs = found[len(found) // 2]
    cmd = [DICELAB, "duel", "advise", rules, "--dice", *map(str, dice), "--rerolls",
           str(rerolls), "--mine", ",".join(f"{k}={v}" for k, v in mine.items()) or "",
           "--theirs", ",".join(f"{k}={v}" for k, v in theirs.items()) or ""]  # fmt: skip
    cmd = [c for c in cmd if c != ""]
    base = [sys.executable, "-c", "pass"]
    walls = {"python -c pass": [], "dicelab duel advise": []}
    for _ in range(7):
        for name, c in (("python -c pass", base), ("dicelab duel advise", cmd)):
            t = time.perf_counter()
            subprocess.run(c, stdout=subprocess.DEVNULL, check=True)
            walls[name].append(time.perf_counter() - t)
    b = statistics.median(walls["python -c pass"])
    w = statistics.median(walls["dicelab duel advise"])
    print(f"  whole command    {w:8.3f} s  (python -c pass {b:.3f} s, same run: {w / b:.1f}x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rules", default="yazy")
    ap.add_argument("--solves", type=int, default=1)
    ap.add_argument("--compare", action="store_true")
    ap.add_argument("--lead", action="store_true", help="Also time the expected leads.")
    ap.add_argument("--advice", type=int, default=200)
    ap.add_argument("--skip-solve", action="store_true", help="Only time advice.")
    args = ap.parse_args()
    print(load())
    if not args.skip_solve:
        bench_solve(args.rules, args.solves, args.compare, args.lead)
    if args.advice > 0:
        bench_advice(args.rules, args.advice)
    print(load())


if __name__ == "__main__":
    main()
