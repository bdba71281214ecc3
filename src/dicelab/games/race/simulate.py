"""The write-up's simulation of the dice race, kept as a cross-check of the exact solver.

Games are played with real dice throws (one random face per die), as the write-up did,
so the simulation shares nothing with the exact solver but the rules. The number of
games adapts: at least ``min_games``, at most ``max_games``, and it stops early once the
leader has won at least ``decisive_share`` of the games that had a winner.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import sqrt

import numpy as np
from numba import njit

from dicelab.errors import UserError
from dicelab.games.race.exact import Dice, Matchup
from dicelab.plain import plain_fields

#: Most games one simulation plays (as ``dicelab simulate``): minutes, not days.
MAX_GAMES = 20_000_000


@njit(cache=True)
def _play(a, b, dice, faces, seed, min_games, max_games, share):
    """Play until the stopping rule fires; return wins, losses, ties of ``a``."""
    np.random.seed(seed)
    need_a = a.sum()
    need_b = b.sum()
    left_a = a.copy()
    left_b = b.copy()
    wins = losses = ties = 0
    for g in range(max_games):
        left_a[:] = a
        left_b[:] = b
        more_a = need_a
        more_b = need_b
        while more_a > 0 and more_b > 0:
            s = 0
            for _ in range(dice):
                s += np.random.randint(0, faces)
            if left_a[s] > 0:
                left_a[s] -= 1
                more_a -= 1
            if left_b[s] > 0:
                left_b[s] -= 1
                more_b -= 1
        if more_a == 0 and more_b == 0:
            ties += 1
        elif more_a == 0:
            wins += 1
        else:
            losses += 1
        decisive = wins + losses
        if g + 1 >= min_games and decisive > 0 and max(wins, losses) >= share * decisive:
            break
    return wins, losses, ties


@dataclass(frozen=True)
class Simulation(Matchup):
    """Counted outcomes of simulated races of ``a`` against ``b``."""

    wins: int
    losses: int
    ties: int
    seed: int
    min_games: int
    max_games: int
    decisive_share: float

    @property
    def games(self) -> int:
        """Games played."""
        return self.wins + self.losses + self.ties

    @property
    def stopped_early(self) -> bool:
        """Whether the decisive-win share ended the run before ``max_games``."""
        return self.games < self.max_games

    def estimate(self, outcome: str) -> tuple[float, float]:
        """Observed share of ``"win"``, ``"lose"`` or ``"tie"`` and its standard error."""
        count = {"win": self.wins, "lose": self.losses, "tie": self.ties}[outcome]
        p = count / self.games
        return p, sqrt(p * (1 - p) / self.games)

    def to_dict(self) -> dict:
        """Plain data for JSON."""
        names = "games wins losses ties seed min_games max_games decisive_share stopped_early"
        out = plain_fields(self, names)
        for name in ("win", "lose", "tie"):
            p, se = self.estimate(name)
            out[name] = {"estimate": p, "standard_error": se}
        return out


def simulate(
    a: Iterable[int],
    b: Iterable[int],
    dice: int = 2,
    faces: int = 6,
    *,
    seed: int = 0,
    min_games: int = 1_000,
    max_games: int = 100_000,
    decisive_share: float = 0.75,
) -> Simulation:
    """Simulate races of ``a`` against ``b`` with the write-up's adaptive stopping rule.

    Parameters
    ----------
    seed
        Makes the run repeatable.
    min_games, max_games
        Bounds on the number of games.
    decisive_share
        Stop once the leader has won this share of the games that had a winner (after
        ``min_games``): above 0.5 and at most 1.0 (which stops only once the leader has
        won every decided game).
    """
    d = Dice(dice, faces)
    a = d.check(a, "first list")
    b = d.check(b, "second list")
    for name, value in (("min_games", min_games), ("max_games", max_games)):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_GAMES:
            raise UserError(f"{name} must be a whole number from 1 to {MAX_GAMES:,}, got {value!r}")
    if min_games > max_games:
        raise UserError(f"min_games ({min_games}) must not exceed max_games ({max_games})")
    if not 0.5 < decisive_share <= 1.0:
        raise UserError(f"decisive_share must be above 0.5 and at most 1, got {decisive_share}")
    if not 0 <= seed < 2**32:
        raise UserError(f"the seed must be between 0 and {2**32 - 1}, got {seed}")
    ca = np.zeros(len(d.sums), dtype=np.int64)
    cb = np.zeros(len(d.sums), dtype=np.int64)
    for x in a:
        ca[x - d.low] += 1
    for x in b:
        cb[x - d.low] += 1
    wins, losses, ties = _play(
        ca, cb, d.count, d.faces, seed, min_games, max_games, float(decisive_share)
    )
    return Simulation(
        a,
        b,
        d,
        int(wins),
        int(losses),
        int(ties),
        seed,
        min_games,
        max_games,
        float(decisive_share),
    )
