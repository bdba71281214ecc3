"""Positions per second of the two-player solver (:mod:`dicelab.games.twoplayer`).

Run ``python benchmarks/bench_twoplayer.py`` (``--runs N``, ``--cards N``).

Solves a large door-lock card game (both hands 1..cards, default 11 cards, the
second player winning at exactly 5 x cards, the first at 5 x cards + 5 or more:
about 800,000 positions) and 4 x 3 tic-tac-toe, 3 in a row (111,973 positions),
each several times from scratch, and prints the median rate of each: reachable
positions divided by the whole solve time (exploring, inverting the move graph,
retrograde analysis).
"""

from __future__ import annotations

import argparse
import statistics
import time

from dicelab.games.door import DoorGame
from dicelab.games.tictactoe import TicTacToe
from dicelab.games.twoplayer import solve


def rates(game, runs: int) -> tuple[int, list[float]]:
    """Number of positions and the positions per second of each run."""
    per_second = []
    positions = 0
    for _ in range(runs):
        start = time.perf_counter()
        positions = len(solve(game))
        per_second.append(positions / (time.perf_counter() - start))
    return positions, per_second


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="solves per game (median taken)")
    parser.add_argument("--cards", type=int, default=11, help="cards in each door-game hand")
    args = parser.parse_args()

    cards = args.cards
    games = [
        (
            f"door game, hands 1..{cards}, target {5 * cards}, bust {5 * cards + 5}",
            DoorGame(tuple(range(1, cards + 1)), target=5 * cards, bust=5 * cards + 5),
        ),
        ("tic-tac-toe 4 x 3, 3 in a row", TicTacToe(3, 4, 3)),
    ]
    for name, game in games:
        positions, per_second = rates(game, args.runs)
        median = statistics.median(per_second)
        print(
            f"{name}: {positions:,} positions, median {median:,.0f} positions/s "
            f"({60 * median / 1e6:.1f} million a minute) over {args.runs} runs "
            f"(min {min(per_second):,.0f}, max {max(per_second):,.0f})"
        )


if __name__ == "__main__":
    main()
