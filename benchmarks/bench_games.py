"""Benchmark of the dice games on the chance model, with OpenSpiel in the same run.

Run ``python benchmarks/bench_games.py`` (``--runs N``, ``--goals 10,15,20,25``,
``--no-peer``, ``--peer-python PATH``); ``--race-checkers N`` measures the bear-off's
table of pairs of sides alone (one thread, every thread, in a file with ``--store``,
on two Dask workers), and what its rate makes of 15 checkers a side; ``--seats``
the tables of three and four players of Pig and Farkle alone.

Four parts, each a median of ``--runs``:

- the games solved where their turns start, as whole commands with their peak
  memory: two-player Farkle to 10,000 (``--farkle-goal``) from an empty table
  cache, then advice at a position of it read back from the cache; two-dice Pig to
  100; Pig to 10 beside ``dicelab --help``; and, in this process, the laid-out
  game beside the turn starts on games both hold (Farkle to 1,000, Pig to 100);
- whole commands from process start: ``dicelab solve pig`` (Pig to 100),
  ``dicelab solve shut-the-box --set tiles=12 --exact`` (the value as a fraction),
  ``dicelab solve bearoff`` of 15 checkers on the 6-point (every side of up to
  15 checkers: the one-sided table, with its distribution of throws) and the race
  of 6 checkers on the 6-point a side (every pair of sides of up to 6 checkers:
  the two-sided table, 853,776 pairs);
- Pig to each of ``--goals``, solved in this process (layout, value iteration,
  exact valuation), beside OpenSpiel's value iteration on the same game
  (``open_spiel.python.algorithms.value_iteration`` with ``cyclic_game=True``)
  in a process of its own: both values are printed, OpenSpiel's converted from its
  utilities (-1 to 1) to a chance to win;
- the machine's load average before and after, so a noisy run shows as such.

OpenSpiel is installed into ``benchmarks/.spiel-venv`` from the package registry
(``open_spiel`` and ``cvxpy``, which its value iteration imports), never into the
project's own environment; ``--peer-python`` names another interpreter that has it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PEER_VENV = HERE / ".spiel-venv"

PEER = textwrap.dedent(
    """
    import json, sys, time
    sys.setrecursionlimit(100_000)
    import pyspiel
    from open_spiel.python.algorithms import value_iteration
    goal, runs = int(sys.argv[1]), int(sys.argv[2])
    game = pyspiel.load_game("pig", {"winscore": goal})
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        values = value_iteration.value_iteration(game, -1, 1e-9, cyclic_game=True)
        times.append(time.perf_counter() - t)
    value = values[str(game.new_initial_state())]
    print(json.dumps({"times": times, "value": (1 + value) / 2, "states": len(values)}))
    """
)


def peer_python(given: str | None) -> str | None:
    """An interpreter with OpenSpiel: the one given, or the side environment (made
    on first use); ``None`` if it cannot be installed here."""
    if given:
        return given
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"installing OpenSpiel into {PEER_VENV} ...", flush=True)
        made = subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)])
        pip = [str(python), "-m", "pip", "install", "-q", "open_spiel", "cvxpy"]
        if made.returncode or subprocess.run(pip).returncode:
            print("OpenSpiel could not be installed: its figures are left out")
            return None
    return str(python)


def whole_command(args: list[str], runs: int, no_cache: bool = True) -> float:
    """Median seconds of a dicelab command from process start (solved each time:
    ``--no-cache``, so no run reads what the one before it kept)."""
    return measured(args, runs, no_cache)[0]


def measured(args: list[str], runs: int, no_cache: bool = True,
             env: dict | None = None) -> tuple[float, float]:  # fmt: skip
    """Median seconds and the largest peak memory (MiB) of a dicelab command."""
    times, peaks = [], []
    for _ in range(runs):
        t = time.perf_counter()
        extra = ["--no-cache"] if no_cache else []
        child = subprocess.Popen([sys.executable, "-m", "dicelab.cli", *args, *extra],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 env=env)  # fmt: skip
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        times.append(time.perf_counter() - t)
        if child.returncode != 0:
            raise RuntimeError(f"dicelab {' '.join(args)} exited {child.returncode}")
        peaks.append(usage.ru_maxrss / 1024)
    return statistics.median(times), max(peaks)


def busche() -> None:
    """Farkle to 10,000 under M. Busche's rules (2016: the first player wins 53.487 %),
    once, as a whole command."""
    rules = ["penalty=500", "floor=-2500", "min_bank=300", "goal_by_bank=true"]
    args = ["solve", "farkle", "--set", "players=2", *[x for r in rules for x in ("--set", r)],
            "--json"]  # fmt: skip
    began = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "dicelab.cli", *args, "--no-cache"],
                         capture_output=True, text=True, check=True)  # fmt: skip
    seconds = time.perf_counter() - began
    value = json.loads(out.stdout)["value"]
    print(f"farkle to 10000, Busche's rules: {value:.6f} (published 53.487 %), {seconds:.0f} s "
          "whole command")  # fmt: skip


def turn_starts(runs: int, farkle_goal: int) -> None:
    """The games solved where their turns start (see the module's text)."""
    import tempfile

    from dicelab.games.chance.farkle import Farkle
    from dicelab.games.chance.pig import Pig
    from dicelab.games.chance.solution import solve

    print("games solved where their turns start: whole commands (median s, peak MiB)")
    farkle = ["solve", "farkle", "--set", "players=2", "--set", f"goal={farkle_goal}"]
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, DICELAB_CACHE_DIR=cache)
        s, peak = measured(farkle, 1, no_cache=False, env=env)  # empty cache: solved, kept
        print(f"  farkle to {farkle_goal}, two players, empty cache: {s:7.2f} s {peak:7.0f} MiB")
        at = ["advise", "farkle", "--set", "players=2", "--set", f"goal={farkle_goal}", "--at",
              "1 1 5 2 3 4 / 300 / 4000 6500"]  # fmt: skip
        s, peak = measured(at, runs, no_cache=False, env=env)
        print(f"  ... advice at a position, table cached:   {s:7.2f} s {peak:7.0f} MiB")
    ten = ["--set", "mine=6,6,6,5,5,4,4,3,2,1", "--set", "theirs=6,5,5,4,4,3,3,2,2,1"]
    for name, args in [("two-dice pig to 100", ["solve", "pig", "--set", "dice=2"]),
                       ("pig to 100", ["solve", "pig"]),
                       ("pig to 10", ["solve", "pig", "--set", "goal=10"]),
                       ("bear-off, 10 checkers a side", ["solve", "bearoff", *ten])]:  # fmt: skip
        s, peak = measured(args, runs)
        print(f"  {name + ':':43} {s:7.2f} s {peak:7.0f} MiB")
    t = []
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "dicelab.cli", "--help"], check=True,
                       capture_output=True)  # fmt: skip
        t.append(time.perf_counter() - began)
    print(f"  {'dicelab --help:':43} {statistics.median(t):7.2f} s")
    print("laid out against turn starts, in this process (median s)")
    for game in (Farkle(players=2, goal=1000), Pig(goal=100), Pig(goal=100, dice=2)):
        solve(game, turns=True)  # kernels loaded
        laid, turns = [], []
        for _ in range(runs):
            began = time.perf_counter()
            a = solve(game, turns=False)
            laid.append(time.perf_counter() - began)
            began = time.perf_counter()
            b = solve(game, turns=True)
            turns.append(time.perf_counter() - began)
        lm, tm = statistics.median(laid), statistics.median(turns)
        print(f"  {game.name:22} {len(a):>11,} positions {lm:8.3f} s | {len(b):>7,} turn "
              f"starts {tm:7.3f} s | {lm / tm:6.0f}x | values {a.value():.12f} "
              f"{b.value():.12f}")  # fmt: skip


#: Tables of three to six players, as ``solve`` is given them.
SEATS = [
    ("pig to 100, 3 players", ["pig", "--set", "players=3"]),
    ("pig to 50, 4 players", ["pig", "--set", "players=4", "--set", "goal=50"]),
    ("farkle to 1000, 4 players", ["farkle", "--set", "players=4", "--set", "goal=1000"]),
    ("farkle to 2500, 3 players", ["farkle", "--set", "players=3", "--set", "goal=2500"]),
]


def seats(runs: int) -> None:
    """Tables of three and four players, each solved as a whole command (median s,
    peak MiB), with the first player's chance."""
    print("tables of players: whole commands, solved each time (median s, peak MiB)")
    for name, args in SEATS:
        s, peak = measured(["solve", *args], runs)
        out = subprocess.run([sys.executable, "-m", "dicelab.cli", "solve", *args, "--json"],
                             capture_output=True, text=True, check=True)  # fmt: skip
        chances = ", ".join(f"{c:.6f}" for c in json.loads(out.stdout)["chances"])
        print(f"  {name + ':':28} {s:7.2f} s {peak:7.0f} MiB   {chances}")


def race_table(checkers: int, runs: int) -> None:
    """The bear-off's table of pairs of sides of up to ``checkers`` checkers, in this
    process on one thread and on every thread, with the table in memory and in a
    file (``--store``), and on a local Dask cluster of two worker processes
    (``--workers 2``); pairs a second, and what that rate a thread makes of every
    pair of 15 checkers a side on 16 cores."""
    import tempfile
    from math import comb

    import numba
    import numpy as np

    from dicelab.engine.race import solve_race
    from dicelab.engine.runtime.schedule import runner_for
    from dicelab.games.chance.bearoff_table import race_plays

    _, plays = race_plays(checkers)
    pairs = plays.pips.size**2
    dtype = np.float32
    print(f"bear-off table of {checkers} checkers a side: {pairs:,} pairs, single precision "
          "(median s, pairs a second)")  # fmt: skip
    solve_race(race_plays(2)[1], dtype)  # kernels loaded
    threads = numba.get_num_threads()

    def timed(label: str, **how) -> float:
        times = []
        for _ in range(runs):
            began = time.perf_counter()
            solve_race(plays, dtype, **how)
            times.append(time.perf_counter() - began)
        m = statistics.median(times)
        print(f"  {label:40} {m:8.2f} s {pairs / m:12,.0f}")
        return m

    numba.set_num_threads(1)
    one = timed("one thread, in memory")
    numba.set_num_threads(threads)
    timed(f"{threads} threads, in memory")
    with tempfile.TemporaryDirectory() as folder:
        timed(f"{threads} threads, --store (a file)", store=folder)
    with runner_for(workers=2) as runner:
        timed("--workers 2 (Dask, local)", runner=runner)
    full = comb(15 + 6, 6) ** 2
    print(f"  15 a side ({full:,} pairs) at the one-thread rate on 16 threads: "
          f"{full / (pairs / one) / 16:.0f} s (a larger table is read from further away: "
          "its rate falls)")  # fmt: skip


def own_pig(goal: int, runs: int) -> tuple[float, float, int]:
    """Median seconds of Pig to ``goal`` solved in this process, its value, positions."""
    from dicelab.games.chance.pig import Pig
    from dicelab.games.chance.solution import solve

    solve(Pig(goal=goal))  # compiled kernels loaded
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        s = solve(Pig(goal=goal))
        times.append(time.perf_counter() - t)
    return statistics.median(times), s.value(), len(s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--goals", default="10,15,20,25")
    parser.add_argument("--no-peer", action="store_true")
    parser.add_argument("--peer-python")
    parser.add_argument("--farkle-goal", type=int, default=10_000)
    parser.add_argument("--only-turns", action="store_true", help="the first part alone")
    busche_help = "also Farkle to 10,000 under Busche's rules (a quarter of an hour)"
    parser.add_argument("--busche", action="store_true", help=busche_help)
    race_help = "the bear-off table of N checkers a side alone: threads, --store, --workers"
    parser.add_argument("--race-checkers", type=int, help=race_help)
    parser.add_argument("--seats", action="store_true", help="the tables of players alone")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}  ({os.cpu_count()} cores)")
    if args.seats:
        seats(args.runs)
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
        return
    if args.race_checkers:
        race_table(args.race_checkers, args.runs)
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
        return
    if args.busche:
        busche()
    turn_starts(args.runs, args.farkle_goal)
    if args.only_turns:
        print(f"\nload average after: {os.getloadavg()[0]:.2f}")
        return
    pig = whole_command(["solve", "pig"], args.runs)
    box = whole_command(["solve", "shut-the-box", "--set", "tiles=12", "--exact"], args.runs)
    fifteen = "mine=" + ",".join(["6"] * 15)
    bear = whole_command(["solve", "bearoff", "--set", fifteen], args.runs)
    six = ",".join(["6"] * 6)
    race = whole_command(["solve", "bearoff", "--set", f"mine={six}", "--set", f"theirs={six}"],
                         args.runs)  # fmt: skip
    print(f"dicelab solve pig (to 100), whole command:              {pig:7.2f} s")
    print(f"dicelab solve shut-the-box --set tiles=12 --exact:      {box:7.2f} s")
    print(f"dicelab solve bearoff (15 checkers, 54,264 sides):      {bear:7.2f} s")
    print(f"dicelab solve bearoff race (6 a side, 853,776 pairs):   {race:7.2f} s")
    python = None if args.no_peer else peer_python(args.peer_python)
    print("\nPig, solved in one process (medians)")
    print(f"{'goal':>5} {'positions':>10} {'dicelab s':>10} {'OpenSpiel s':>12} {'ratio':>7}"
          f"  {'dicelab value':>14} {'OpenSpiel value':>16}")  # fmt: skip
    for goal in (int(g) for g in args.goals.split(",")):
        own_s, own_v, size = own_pig(goal, args.runs)
        peer_s = peer_v = None
        if python:
            out = subprocess.run([python, "-c", PEER, str(goal), str(args.runs)],
                                 capture_output=True, text=True)  # fmt: skip
            if out.returncode == 0:
                got = json.loads(out.stdout.strip().splitlines()[-1])
                peer_s, peer_v = statistics.median(got["times"]), got["value"]
            else:
                print(f"  OpenSpiel failed on goal {goal}: {out.stderr.strip()[-200:]}")
        ratio = f"{peer_s / own_s:7.0f}" if peer_s else f"{'-':>7}"
        peer_text = f"{peer_s:12.3f}" if peer_s else f"{'-':>12}"
        value_text = f"{peer_v:16.9f}" if peer_v is not None else f"{'-':>16}"
        print(f"{goal:>5} {size:>10,} {own_s:10.3f} {peer_text} {ratio}  {own_v:14.9f} "
              f"{value_text}")  # fmt: skip
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
