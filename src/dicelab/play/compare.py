"""Rule sets compared: the figures of each, whoever shows them.

``dicelab compare`` and the page's *Compare* view show the same things: for each rule
set the optimum's expected score and final-score distribution, the balance sheet
(each box's expected points under the optimum), the skill gap (the optimum against
the simple strategy of :mod:`dicelab.play.simple`), the first player's edge in the
two-player game where its table is at hand, and, between rule sets that share a
scorecard, the positions where their best moves part (:mod:`dicelab.play.variants`).
The command line and the server each fetch the tables their own way (progress
bars; worker processes); what they compute from them, and the JSON both give, is
here once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dicelab.errors import TooLarge, UserError
from dicelab.play.simple import SimpleStrategy
from dicelab.play.variants import PartingReport

if TYPE_CHECKING:
    from dicelab.engine.objectives.scores import ScoreDistribution
    from dicelab.rules import Rules

#: The percentiles of the final score shown side by side.
SHOWN_PERCENTILES = (10, 50, 90)
#: The balance sheet's parts beside the boxes (keys of :attr:`Compared.boxes`).
UPPER_BONUS, EXTRA_BONUSES = "upper bonus", "extra bonuses"


@dataclass(frozen=True)
class DuelEdge:
    """The first player's chance in the two-player game (a win plus half a tie, both
    playing to win), or why it is left out (``note``)."""

    chance: float | None = None
    note: str | None = None
    cached: bool = False
    solvable: bool = False  # left out only for want of a solve this machine can make

    @property
    def edge(self) -> float | None:
        """The first player's chance less a half: what moving first is worth."""
        return None if self.chance is None else self.chance - 0.5

    def to_dict(self) -> dict:
        return {"first_player_chance": self.chance, "edge": self.edge, "note": self.note,
                "solvable": self.solvable}  # fmt: skip


@dataclass(frozen=True)
class Compared:
    """One rule set of a comparison: as typed, loaded, and its figures (``boxes``,
    ``simple`` and ``duel`` where they were asked for)."""

    given: str
    rules: Rules
    expected: float
    dist: ScoreDistribution
    boxes: dict[str, float] | None = None
    simple: SimpleStrategy | None = None
    duel: DuelEdge | None = None

    @property
    def skill_gap(self) -> float | None:
        """Expected points the optimum makes over the simple strategy."""
        return None if self.simple is None else self.expected - self.simple.expected

    def to_dict(self) -> dict:
        d = self.dist
        out = {
            "rules": self.rules.name,
            "given": self.given,
            "expected_score": self.expected,
            "sd": d.sd,
            "percentiles": {str(q): d.percentile(q) for q in SHOWN_PERCENTILES},
            "p_bonus": d.p_bonus,
            "all_same_box": d.all_same_box,
            "p_all_same": d.p_all_same,
            "min_score": d.lowest,
            "max_score": d.highest,
        }
        if self.boxes is not None:
            out["box_points"] = self.boxes
        if self.simple is not None:
            out["simple_strategy"] = self.simple.to_dict()
            out["skill_gap"] = self.skill_gap
        if self.duel is not None:
            out["duel"] = self.duel.to_dict()
        return out


@dataclass(frozen=True)
class Partings:
    """The positions where the best moves part, for each pair compared: every other
    rule set against the first, both ways; ``left_out`` says which pairs could not
    be and why."""

    reports: list[PartingReport] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)

    def to_dict(self, top: int = 10) -> dict:
        return {"pairs": [r.to_dict(top) for r in self.reports], "left_out": self.left_out}


def load_each(given: list[str]) -> list[Rules]:
    """Every rule set, loaded before any is solved; one that cannot be loaded is one
    line naming it."""
    from dicelab.rules import load_rules
    from dicelab.rules.compiled import compile_rules, refuse_variants

    if len(given) < 2:
        raise UserError(f"compare: got {len(given)} rule set(s), expected two or more")
    loaded = []
    for name in given:
        try:
            loaded.append(load_rules(name))
        except UserError as exc:
            raise UserError(f"compare: cannot load {name!r}: {exc}") from None
    names = [r.name for r in loaded]
    for name in names:
        if names.count(name) > 1:
            raise UserError(f"compare: two rule sets are named {name!r}; give one a name of "
                            "its own (name = \"...\" in its file)")  # fmt: skip
    for r in loaded:  # before any solve: a rule the distribution does not handle
        refuse_variants(compile_rules(r), "the comparison", served=False)
    return loaded


def sheet_of(r: Rules, row) -> dict[str, float]:
    """The balance sheet from the start's row of the split by box
    (:meth:`dicelab.engine.objectives.explain.ExplainTable.parts`): box id to expected
    points, then the upper bonus and the extra bonuses where the rules have them."""
    from dicelab.engine.objectives.explain import BONUS, EXTRA

    n = r.n_categories
    sheet = {cat.id: float(row[c]) for c, cat in enumerate(r.categories)}
    if r.bonus_threshold > 0:
        sheet[UPPER_BONUS] = float(row[n + BONUS])
    if r.extra_bonus:
        sheet[EXTRA_BONUSES] = float(row[n + EXTRA])
    return sheet


def duel_edge(
    r: Rules,
    solve: bool = False,
    use_cache: bool = True,
    allow_large: bool = False,
    progress: Callable | None = None,
) -> DuelEdge:
    """The first player's chance from the cached two-player table (its header alone:
    no table is read), or solved with ``solve``; otherwise left out, saying why: too
    large for this machine, or not solved yet and about how long it would take."""
    from dicelab.engine.objectives.duel import LAYOUT, OBJECTIVE, duel_cost, duel_table
    from dicelab.engine.runtime import cache
    from dicelab.rules.compiled import compile_rules

    game = compile_rules(r)
    if use_cache:
        header = cache.read_header(cache.table_path(r, OBJECTIVE, {"layout": LAYOUT}))
        if header and header.get("rules") == r.normalised() and "start_value" in header:
            return DuelEdge(float(header["start_value"]), cached=True)
    try:
        cost = duel_cost(game, compare=False)
        cost.check(allow_large)
    except TooLarge as exc:
        from dicelab.engine.runtime.cost import human_bytes, human_seconds

        size = f"{human_bytes(exc.bytes)}, {human_seconds(exc.seconds)}"
        return DuelEdge(note=f"too large to solve here ({size})")
    except UserError as exc:  # rules the two-player game does not handle
        return DuelEdge(note=str(exc).split(";")[0].removeprefix(f"{r.name}: "))
    if not solve:
        from dicelab.engine.runtime.cost import human_seconds

        return DuelEdge(note=f"not solved yet ({human_seconds(cost.seconds)})", solvable=True)
    table = duel_table(r, use_cache=use_cache, progress=progress, allow_large=allow_large)
    return DuelEdge(float(table.value()), cached=False)


def find_partings(
    tables: list, games: int, seed: int = 0, progress=None, use_cache: bool = True
) -> Partings:
    """Every other rule set against the first, both ways (``tables``: the
    expected-score tables in the order given), where they share a scorecard."""
    from dicelab.play.variants import not_comparable, partings

    found = Partings()
    first = tables[0]
    for other in tables[1:]:
        ra, rb = first.game.rules, other.game.rules
        why = not_comparable(ra, rb)
        if why is not None:
            found.left_out.append(f"{ra.name} and {rb.name}: {why}")
            continue
        for a, b in ((first, other), (other, first)):
            found.reports.append(partings(a, b, games, seed, progress, use_cache))
    return found
