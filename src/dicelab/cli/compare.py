"""What ``dicelab compare A B ...`` prints: rule sets side by side.

For each rule set: the optimal expected score (the expected-score table, from the
cache when solved before) and the final-score distribution of that optimum (the
figures of ``dicelab distribution``: sd, percentiles, P(upper bonus), P(all-alike
box scored)). One table with a column per rule set, or one JSON list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dicelab.errors import UserError

if TYPE_CHECKING:
    from dicelab.engine.objectives.scores import ScoreDistribution
    from dicelab.rules import Rules

#: The percentiles of the final score shown side by side.
SHOWN_PERCENTILES = (10, 50, 90)


@dataclass(frozen=True)
class Compared:
    """One rule set of a comparison: as typed, loaded, and its figures."""

    given: str
    rules: Rules
    expected: float
    dist: ScoreDistribution
    boxes: dict[str, float] | None = None

    def to_dict(self) -> dict:
        d = self.dist
        sheet = {} if self.boxes is None else {"box_points": self.boxes}
        return {
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
        } | sheet


#: The balance sheet's parts beside the boxes (keys of :attr:`Compared.boxes`).
UPPER_BONUS, EXTRA_BONUSES = "upper bonus", "extra bonuses"


@dataclass(frozen=True)
class Solving:
    """How a comparison has its tables: with a progress bar or quietly, from the cache
    or not, large ones allowed or refused; the same for every table it reads."""

    quiet: bool = False
    use_cache: bool = True
    allow_large: bool = False


def balance_sheet(r: Rules, how: Solving) -> dict[str, float]:
    """Expected points each box ends with under the expected-score optimum (box id to
    points), then the upper bonus and the extra bonuses where the rules have them:
    the game's start in the split of the score by box (``dicelab advise --explain``'s
    table, cached once solved; about 40 times the expected-score solve)."""
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.explain import BONUS, EXTRA, explain_table

    with progress_bar(f"{r.name}'s score by box", enabled=not how.quiet) as tick:
        table = explain_table(r, use_cache=how.use_cache, progress=tick,
                              allow_large=how.allow_large)  # fmt: skip
    row = table.parts(0, 0, 0)  # every box open, no flag, upper total 0
    n = r.n_categories
    sheet = {cat.id: float(row[c]) for c, cat in enumerate(r.categories)}
    if r.bonus_threshold > 0:
        sheet[UPPER_BONUS] = float(row[n + BONUS])
    if r.extra_bonus:
        sheet[EXTRA_BONUSES] = float(row[n + EXTRA])
    return sheet


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
    for r in loaded:  # before any solve: a rule the distribution does not handle
        refuse_variants(compile_rules(r), "the comparison", served=False)
    return loaded


def compared(given: str, r: Rules, how: Solving, boxes: bool = False) -> Compared:
    """The figures of one rule set, solved or read from the cache (with ``boxes``, its
    balance sheet too)."""
    from dicelab.cli.objectives import optimum_distribution
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.expected import expected_table

    with progress_bar(f"solving {r.name}", enabled=not how.quiet) as tick:
        table = expected_table(r, use_cache=how.use_cache, progress=tick,
                               allow_large=how.allow_large)  # fmt: skip
    dist = optimum_distribution(r, how.quiet, how.use_cache, how.allow_large)
    sheet = balance_sheet(r, how) if boxes else None
    return Compared(given, r, table.value(), dist, sheet)


def _percent(p: float | None) -> str:
    return "none" if p is None else f"{100 * p:.2f}%"


def comparison_rows(found: list[Compared]) -> list[tuple[str, list[str]]]:
    """The rows of the table: a heading and one cell per rule set."""
    rows = [
        ("expected score", [f"{c.expected:.4f}" for c in found]),
        ("sd", [f"{c.dist.sd:.4f}" for c in found]),
    ]
    for q in SHOWN_PERCENTILES:
        rows.append((f"p{q}", [str(c.dist.percentile(q)) for c in found]))
    rows.append(("range", [f"{c.dist.lowest}..{c.dist.highest}" for c in found]))
    rows.append(("P(upper bonus)", [_percent(c.dist.p_bonus) for c in found]))
    rows.append(("all-alike box", [c.dist.all_same_box or "none" for c in found]))
    rows.append(("P(it scores)", [_percent(c.dist.p_all_same) for c in found]))
    return rows


def sheet_rows(found: list[Compared]) -> list[tuple[str, list[str]]]:
    """The balance sheet's rows: each box label (in the order of the scorecards, the
    first rule set's first), then the bonuses; empty where a rule set has no such
    part."""
    cells: dict[str, dict[int, str]] = {}
    for i, c in enumerate(found):
        assert c.boxes is not None  # asked for with --boxes
        labels = {cat.id: cat.label for cat in c.rules.categories}
        for key, points in c.boxes.items():
            cells.setdefault(labels.get(key, key), {})[i] = f"{points:.3f}"
    bonuses = [k for k in (UPPER_BONUS, EXTRA_BONUSES) if k in cells]
    order = [k for k in cells if k not in bonuses] + bonuses
    return [(k, [cells[k].get(i, "") for i in range(len(found))]) for k in order]


def show_comparison(found: list[Compared]) -> None:
    """One table, a column per rule set."""
    from dicelab.cli.output import Console, columns_table, justify_right

    headings = [c.rules.name for c in found]
    if len(set(headings)) < len(headings):  # two files of one name: tell them apart
        headings = [c.given for c in found]
    columns = justify_right(["", *headings], set(headings))
    table = columns_table(columns, title="under optimal play (expected-score optimum)")
    table.columns[0].no_wrap = True
    for heading, cells in comparison_rows(found):
        table.add_row(heading, *cells)
    if found[0].boxes is not None:
        table.add_section()
        table.add_row("expected points of", *([""] * len(found)))
        for heading, cells in sheet_rows(found):
            table.add_row(f"  {heading}", *cells)
    Console().print(table)


def run_compare(
    given: list[str],
    as_json: bool = False,
    plot: Path | None = None,
    use_cache: bool = True,
    allow_large: bool = False,
    boxes: bool = False,
) -> list[Compared]:
    """``dicelab compare``: load every rule set, solve each (or read the cache), then
    print the table or the JSON list, and draw the distributions overlaid."""
    from dicelab.cli.output import check_plot_path

    if plot is not None:
        check_plot_path(plot)
    loaded = load_each(given)
    found = [
        compared(g, r, Solving(as_json, use_cache, allow_large), boxes)
        for g, r in zip(given, loaded, strict=True)
    ]
    if plot is not None:
        from dicelab.plot.distribution import plot_distributions

        plot_distributions([c.dist for c in found], plot)
    if as_json:
        typer.echo(json.dumps([c.to_dict() for c in found]))
    else:
        show_comparison(found)
        if plot is not None:
            typer.echo(f"distributions written to {plot}")
    return found
