"""Games of the chance model played out with the dice drawn: a cross-check of the exact
value, which simulated games must meet within a few standard errors."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dicelab.games.chance.solution import ChanceSolution

__all__ = ["Simulation", "simulate"]

#: A game still going after this many steps is counted as unfinished.
MAX_STEPS = 1_000_000


@dataclass(frozen=True)
class Simulation:
    """The mean result of ``games`` simulated games beside the exact value."""

    games: int
    mean: float
    standard_error: float
    exact: float
    unfinished: int

    @property
    def errors_off(self) -> float:
        """How many standard errors the mean lies from the exact value."""
        return abs(self.mean - self.exact) / self.standard_error if self.standard_error else 0.0

    def to_dict(self) -> dict:
        return {"games": self.games, "mean": self.mean, "standard_error": self.standard_error,
                "exact": self.exact, "standard_errors_off": self.errors_off,
                "unfinished": self.unfinished}  # fmt: skip


#: Games played between two ticks of the progress of a game solved where its turns start.
CHUNK = 200


def simulate(solution: ChanceSolution, games: int, seed: int = 0, progress=None) -> Simulation:
    """Play ``games`` games with the solved choices, the dice drawn from ``seed``
    (``progress(done, games)`` hears of the games played, where they take long: a
    game solved where its turns start works out each turn as it is played).

    Examples
    --------
    >>> from dicelab.games.chance.pig import Pig
    >>> from dicelab.games.chance.solution import solve
    >>> sim = simulate(solve(Pig(goal=10)), 20_000, seed=1)
    >>> sim.errors_off < 4
    True
    """
    from dicelab.engine.kernels.graph import play_games

    if not hasattr(solution, "graph") and not hasattr(solution.table, "play"):  # type: ignore[attr-defined]
        return _summed(_played_by_advice(solution, games, seed, progress), games, solution.value())
    if not hasattr(solution, "graph"):  # solved where its turns start
        table = solution.table  # type: ignore[attr-defined]
        parts = []
        for first in range(0, games, CHUNK):  # a game's dice: from seed + its number
            parts.append(table.play(min(CHUNK, games - first), seed + first))
            if progress is not None:
                progress(first + parts[-1].size, games)
        played = np.concatenate(parts)
        if solution.game.players > 2:  # the seat that won: player 1's win or not
            played = np.where(np.isnan(played), np.nan, (played == 0) * 1.0)
        return _summed(played, games, solution.value())
    g = solution.graph
    results = play_games(g.kind, g.start, g.to, g.prob, g.payoff, g.reward, solution.solved.choice,
                         games, seed, MAX_STEPS)  # fmt: skip
    return _summed(results, games, solution.value())


def _played_by_advice(solution, games: int, seed: int, progress) -> np.ndarray:
    """Games played out move by move, the dice drawn from ``seed``, each move the
    best the solution advises (a table of pairs of sides: a race, a few turns)."""
    import random

    from dicelab.games.chance.model import CHANCE

    game, rng = solution.game, random.Random(seed)
    out = np.full(games, np.nan)
    for g in range(games):
        here = game.start()
        for _ in range(MAX_STEPS):
            result = game.result(here)
            if result is not None:
                out[g] = result
                break
            if game.to_move(here) == CHANCE:
                chances, after = zip(*[(float(p), a) for p, _, a in game.outcomes(here)],
                                     strict=True)  # fmt: skip
                here = rng.choices(after, chances)[0]
            else:
                here = solution.advise(here)[0].position
        if progress is not None and (g + 1) % CHUNK == 0:
            progress(g + 1, games)
    return out


def _summed(results: np.ndarray, games: int, exact: float) -> Simulation:
    """The games' results (NaN: unfinished) summed up beside the exact value."""
    done = results[~np.isnan(results)]
    se = float(done.std(ddof=1) / np.sqrt(done.size)) if done.size > 1 else 0.0
    mean = float(done.mean()) if done.size else float("nan")
    return Simulation(games, mean, se, exact, int(games - done.size))
