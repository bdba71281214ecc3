"""Where two variants part: the positions met in play whose best move differs most.

Two rule sets with the same scorecard (the same boxes by id, the same dice, faces
and throws) can be asked about one position. Games are played by the optimum of
one of them (``played``), dice drawn from a seed; at every decision the other
(``other``) is asked for its best move too, and where they differ the move of
``other`` is priced under the rules played: the expected points it loses there
against the best move. A position met several times is listed once, with how
often it was met; the list is ordered by the points it costs per game (its cost
times the times met over the games), so a rare position of large cost and a
common one of small cost are weighed as a game feels them.

Each decision is two queries of the compiled turn
(:class:`dicelab.engine.advice.query.OptionValues`, 15 to 20 microseconds each),
so a few hundred games take about a second.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dicelab.errors import UserError
from dicelab.rules import Rules

#: Expected points under which two moves count as equally good (the tables are in
#: single precision; their values agree to about 1e-5 points).
MEANINGFUL = 1e-4
#: Games played when none is asked for: about a second per direction for Yahtzee.
GAMES = 300


def not_comparable(a: Rules, b: Rules) -> str | None:
    """Why positions of ``a`` cannot be asked of ``b`` (None when they can): their boxes
    or dice differ, or one of them serves points or saves throws."""
    ids_a, ids_b = [c.id for c in a.categories], [c.id for c in b.categories]
    if sorted(ids_a) != sorted(ids_b):
        only = sorted(set(ids_a) ^ set(ids_b))
        return "their boxes differ (" + ", ".join(only[:4]) + ("…" if len(only) > 4 else "") + ")"
    for what in ("dice", "faces", "rolls"):
        if getattr(a, what) != getattr(b, what):
            return f"their {what} differ ({getattr(a, what)} and {getattr(b, what)})"
    for r in (a, b):
        if r.save_unused_throws:
            return f"{r.name} saves unused throws"
        if r.has_served:
            return f"{r.name} pays points for a hand made on the first throw"
    return None


@dataclass(frozen=True)
class Parting:
    """One position where the two best moves differ, priced under the rules played."""

    turn: int
    filled: dict[str, int]
    upper_total: int
    dice: tuple[int, ...]
    rerolls_left: int
    best: str  # the best move under the rules played
    other: str  # the other rule set's best move
    cost: float  # expected points ``other`` loses here, under the rules played
    met: int  # times met in the games played
    per_game: float  # cost times met, over the games

    def to_dict(self) -> dict:
        return {
            "turn": self.turn,
            "filled": self.filled,
            "upper_total": self.upper_total,
            "dice": list(self.dice),
            "rerolls_left": self.rerolls_left,
            "best": self.best,
            "other": self.other,
            "cost": self.cost,
            "met": self.met,
            "points_per_game": self.per_game,
        }


@dataclass(frozen=True)
class PartingReport:
    """The decisions of ``games`` games played by ``played``'s optimum, against
    ``other``'s best moves."""

    played: str
    other: str
    games: int
    decisions: int
    differing: int  # decisions met where the best moves differ (a position met twice: twice)
    positions: list[Parting]  # each position once, the most points per game first

    @property
    def share(self) -> float:
        return self.differing / max(self.decisions, 1)

    @property
    def cost_per_game(self) -> float:
        """Expected points per game that ``other``'s moves lose under ``played``'s
        rules, each decision taken alone."""
        return sum(p.per_game for p in self.positions)

    def to_dict(self, top: int = 10) -> dict:
        return {
            "played": self.played,
            "other": self.other,
            "games": self.games,
            "decisions": self.decisions,
            "differing": self.differing,
            "share": self.share,
            "points_per_game": self.cost_per_game,
            "positions": len(self.positions),
            "largest": [p.to_dict() for p in self.positions[:top]],
        }


#: Its name in the cache: a report is a few kilobytes, kept beside the tables.
CACHED_AS = "partings"
LAYOUT = "partings-1"


def partings(
    played,
    other,
    games: int = GAMES,
    seed: int = 0,
    progress: Callable | None = None,
    use_cache: bool = True,
) -> PartingReport:
    """Play ``games`` games by the optimum of ``played`` (an expected-score table) and
    price ``other``'s best move wherever it differs (see the module); from the cache
    when these games were played before with these two rule sets."""
    from dicelab.engine.runtime import cache

    ra, rb = played.game.rules, other.game.rules
    why = not_comparable(ra, rb)
    if why is not None:
        raise UserError(f"{ra.name} and {rb.name} cannot share positions: {why}")
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 100_000:
        raise UserError(f"games: got {games!r}, expected 1 to 100,000")
    params = {"other": rb.normalised(), "games": games, "seed": seed, "layout": LAYOUT}
    if use_cache:
        found = cache.lookup(ra, CACHED_AS, (1,), params)
        if found is not None and isinstance(found[1]["header"].get("report"), dict):
            return report_of(found[1]["header"]["report"])
    report = _played(played, other, games, seed, progress)
    if use_cache:
        header = {"rules": ra.normalised(), "objective": CACHED_AS, "params": params,
                  "report": report.to_dict(top=len(report.positions))}  # fmt: skip
        cache.store_table(cache.table_path(ra, CACHED_AS, params), np.zeros(1), header)
    return report


def report_of(d: dict) -> PartingReport:
    """A report from its :meth:`PartingReport.to_dict` (every position kept)."""
    positions = [
        Parting(p["turn"], p["filled"], p["upper_total"], tuple(p["dice"]), p["rerolls_left"],
                p["best"], p["other"], p["cost"], p["met"], p["points_per_game"])
        for p in d["largest"]
    ]  # fmt: skip
    return PartingReport(d["played"], d["other"], d["games"], d["decisions"], d["differing"],
                         positions)  # fmt: skip


def _played(played, other, games: int, seed: int, progress) -> PartingReport:
    """The games of :func:`partings`, played."""
    from dicelab.engine.advice.query import OptionValues

    ra, rb = played.game.rules, other.game.rules
    ask_a, ask_b = OptionValues(played), OptionValues(other)
    index_b = {c.id: i for i, c in enumerate(rb.categories)}
    to_b = np.array([index_b[c.id] for c in ra.categories], dtype=np.int64)
    to_a = np.argsort(to_b)
    play = _Player(played.game, ask_a, ask_b, to_b, to_a, np.random.default_rng(seed))
    for n in range(games):
        play.game_once()
        if progress is not None:
            progress(n + 1, games)
    ordered = sorted(play.found.values(), key=lambda p: (-p[0] * p[1], -p[0]))
    names = [c.id for c in ra.categories]
    positions = [
        Parting(
            turn=bin(mask).count("1") + 1,
            filled={names[c]: pts for c, pts in sheet},
            upper_total=up,
            dice=dice,
            rerolls_left=rerolls,
            best=_label(ask_a, code_a),
            other=_label(ask_a, code_b),
            cost=cost,
            met=met,
            per_game=cost * met / games,
        )
        for cost, met, (mask, up, y, dice, rerolls), sheet, code_a, code_b in ordered
    ]
    return PartingReport(ra.name, rb.name, games, play.decisions, play.differing, positions)


def _label(ask, code: int) -> str:
    """A move as a player reads it: ``keep 6 6``, ``keep all`` (score now) or a box's
    label."""
    if code < 0:
        return ask.game.rules.categories[-1 - code].label
    text = ask.label(code)
    return "keep all" if text.startswith("keep all") else text


class _Player:
    """Games by the optimum of one table, the other's best move asked at each decision."""

    def __init__(self, game, ask_a, ask_b, to_b, to_a, rng) -> None:
        from dicelab.engine.kernels import rule_arrays

        self.game, self.ask_a, self.ask_b = game, ask_a, ask_b
        self.to_b, self.to_a, self.rng = to_b, to_a, rng
        self.R = rule_arrays(game)
        self.space = game.space
        self.roll0 = int(game.space.size_start[game.space.dice])
        self.found: dict[tuple, list] = {}
        self.decisions = self.differing = 0

    def throw(self, kept: tuple[int, ...]) -> tuple[int, ...]:
        rules = self.game.rules
        new = self.rng.integers(1, rules.faces + 1, size=rules.dice - len(kept))
        return tuple(sorted(kept + tuple(int(f) for f in new)))

    def game_once(self) -> None:
        """One game, each decision compared (see :meth:`decide`)."""
        mask = up = y = 0
        sheet: list[tuple[int, int]] = []
        rules = self.game.rules
        for _ in range(rules.n_categories):
            dice, rerolls = self.throw(()), rules.rolls - 1
            while True:
                code = self.decide((mask, up, y, dice, rerolls), sheet)
                if code >= 0:
                    kept = self.space.faces_of(code)
                    dice = dice if len(kept) == rules.dice else self.throw(tuple(kept))
                    rerolls = 0 if len(kept) == rules.dice else rerolls - 1
                    continue
                from dicelab.rules.placement import placed

                c = -1 - code
                roll = self.ask_a._roll_of[dice] - self.roll0
                moves, _ = placed(mask, y, roll, self.R)
                pts, y = next((p, f) for b, p, f in moves if b == c)
                sheet = [*sheet, (c, pts)]
                mask |= 1 << c
                up += pts if self.game.upper[c] else 0
                break

    def decide(self, position: tuple, sheet: list) -> int:
        """The best move of the table played (the first of the best, on ties); where the
        other table's best differs by more than :data:`MEANINGFUL`, it is kept."""
        mask, up, y, dice, rerolls = position
        options = self.ask_a(mask, up, y, dice, rerolls)
        best_code, best_value = max(options, key=lambda o: o[1])
        self.decisions += 1
        mask_b = _moved(mask, self.to_b)
        try:
            theirs = max(self.ask_b(mask_b, up, y, dice, rerolls), key=lambda o: o[1])[0]
        except UserError:  # a scorecard the other rules cannot reach
            return best_code
        if theirs < 0:
            theirs = -1 - int(self.to_a[-1 - theirs])
        cost = best_value - dict(options)[theirs]
        if cost > MEANINGFUL:
            self.differing += 1
            kept = self.found.get(position)
            if kept is None:
                self.found[position] = [cost, 1, position, sorted(sheet), best_code, theirs]
            else:
                kept[1] += 1
        return best_code


def _moved(mask: int, to: np.ndarray) -> int:
    """A mask of boxes with each box moved to its place on another scorecard."""
    out = 0
    for c in range(to.size):
        if (mask >> c) & 1:
            out |= 1 << int(to[c])
    return out
