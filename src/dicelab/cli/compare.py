"""What ``dicelab compare A B ...`` prints: rule sets side by side.

For each rule set: the optimal expected score (the expected-score table, from the
cache when solved before), the final-score distribution of that optimum (the
figures of ``dicelab distribution``), the skill gap (the optimum against the simple
strategy, valued exactly: :mod:`dicelab.play.simple`) and the first player's edge in
the two-player game where its table is cached (``--duel`` solves it); with
``--boxes`` the balance sheet. Then, between rule sets with one scorecard, the
positions met in play where their best moves part most
(:mod:`dicelab.play.variants`). One table with a column per rule set, or one JSON
object. The figures themselves are :mod:`dicelab.play.compare`'s, shared with the
page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import typer

from dicelab.play.compare import (
    EXTRA_BONUSES,
    SHOWN_PERCENTILES,
    UPPER_BONUS,
    Compared,
    Partings,
    load_each,
    sheet_of,
)
from dicelab.rules import Rules

__all__ = ["Compared", "Solving", "load_each", "run_compare"]


@dataclass(frozen=True)
class Solving:
    """How a comparison has its tables: with a progress bar or quietly, from the cache
    or not, large ones allowed or refused; the same for every table it reads. What
    it adds to the figures: the balance sheet (``boxes``), two-player games solved
    where not cached (``duel``), games played for the partings (``games``, 0: none)."""

    quiet: bool = False
    use_cache: bool = True
    allow_large: bool = False
    boxes: bool = False
    duel: bool = False
    games: int = 300
    seed: int = 0
    top: int = 5


def balance_sheet(r: Rules, how: Solving) -> dict[str, float]:
    """Expected points each box ends with under the expected-score optimum, then the
    bonuses: the game's start in the split of the score by box (``dicelab advise
    --explain``'s table, cached once solved; about 40 times the expected-score solve)."""
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.explain import explain_table

    with progress_bar(f"{r.name}'s score by box", enabled=not how.quiet) as tick:
        table = explain_table(r, use_cache=how.use_cache, progress=tick,
                              allow_large=how.allow_large)  # fmt: skip
    return sheet_of(r, table.parts(0, 0, 0))  # every box open, no flag, upper total 0


def compared(given: str, r: Rules, how: Solving) -> tuple[Compared, object]:
    """The figures of one rule set, solved or read from the cache, and its
    expected-score table (for the partings)."""
    from dicelab.cli.objectives import optimum_distribution
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.expected import expected_table
    from dicelab.play.compare import duel_edge
    from dicelab.play.simple import simple_strategy

    with progress_bar(f"solving {r.name}", enabled=not how.quiet) as tick:
        table = expected_table(r, use_cache=how.use_cache, progress=tick,
                               allow_large=how.allow_large)  # fmt: skip
    dist = optimum_distribution(r, how.quiet, how.use_cache, how.allow_large)
    with progress_bar(f"{r.name}'s simple strategy", enabled=not how.quiet, unit="layers") as tick:
        simple = simple_strategy(r, how.use_cache, tick, how.allow_large)
    with progress_bar(f"{r.name}'s two-player game", enabled=not how.quiet) as tick:
        duel = duel_edge(r, how.duel, how.use_cache, how.allow_large, tick)
    sheet = balance_sheet(r, how) if how.boxes else None
    return Compared(given, r, table.value(), dist, sheet, simple, duel), table


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
    if all(c.simple is not None for c in found):
        rows.append(("simple strategy", [f"{c.simple.expected:.4f}" for c in found if c.simple]))
        rows.append(("skill gap", [f"{c.skill_gap:.4f}" for c in found]))
    if all(c.duel is not None for c in found):
        rows.append(("first player's edge", [_edge(c) for c in found]))
    return rows


def _edge(c: Compared) -> str:
    """The duel's cell: the first player's edge in points of win chance, or a mark
    sending to the note under the table."""
    assert c.duel is not None
    if c.duel.edge is None:
        return "left out*"
    return f"{100 * c.duel.edge:+.3f} pts"


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


def headings_of(found: list[Compared]) -> list[str]:
    """The column headings: the rule sets' names, or as typed where two share one."""
    headings = [c.rules.name for c in found]
    if len(set(headings)) < len(headings):  # two files of one name: tell them apart
        headings = [c.given for c in found]
    return headings


def show_comparison(found: list[Compared]) -> None:
    """One table, a column per rule set, and the notes of what was left out."""
    from dicelab.cli.output import Console, columns_table, justify_right
    from dicelab.play.simple import DESCRIPTION

    headings = headings_of(found)
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
    console = Console()
    console.print(table)
    console.print(f"simple strategy: {DESCRIPTION}; skill gap: the optimum's expected score "
                  "less the simple strategy's (both exact)", highlight=False)  # fmt: skip
    console.print("first player's edge: the first player's chance in the two-player game "
                  "(both playing to win) less a half", highlight=False)  # fmt: skip
    for c, h in zip(found, headings, strict=True):
        if c.duel is not None and c.duel.note:
            way = f": `dicelab compare ... --duel` or `dicelab duel {c.given}` solves it"
            console.print(f"* {h}: {c.duel.note}{way if c.duel.solvable else ''}", highlight=False)


def position_text(p, labels: dict[str, str]) -> str:
    """A position in a few words: the dice, the rerolls left, the boxes still open
    (as many as fit) and the upper total."""
    open_boxes = [label for box, label in labels.items() if box not in p.filled]
    shown = ", ".join(open_boxes[:4]) + (f" +{len(open_boxes) - 4}" if len(open_boxes) > 4 else "")
    dice = " ".join(map(str, p.dice))
    return f"{dice}, {p.rerolls_left} left; open {shown}; upper {p.upper_total}"


def show_partings(partings: Partings, top: int, found: list[Compared]) -> None:
    """For each pair both ways: how often the best moves differ, the points per game
    the other's moves lose, and the positions that weigh most."""
    from dicelab.cli.output import Console, columns_table, justify_right

    console = Console()
    rules_of = {c.rules.name: c.rules for c in found}
    for line in partings.left_out:
        console.print(f"positions not compared: {line}", highlight=False)
    for rep in partings.reports:
        console.print(
            f"\nPlayed by {rep.played}'s optimum ({rep.games} games, {rep.decisions} decisions): "
            f"{rep.other}'s best move differs at {rep.differing} ({100 * rep.share:.2f}%), "
            f"costing {rep.cost_per_game:.4f} points a game under {rep.played}'s rules",
            highlight=False,
        )
        if not rep.positions or top <= 0:
            continue
        heads = ["position met", f"{rep.played}'s best", f"{rep.other}'s", "cost", "met",
                 "a game"]  # fmt: skip
        t = columns_table(justify_right(heads, {"cost", "met", "a game"}),
                          title="where they part most (cost: points under "
                          f"{rep.played}'s rules)")  # fmt: skip
        labels = {c.id: c.label for c in rules_of[rep.played].categories}
        for p in rep.positions[:top]:
            t.add_row(position_text(p, labels), p.best, p.other, f"{p.cost:.3f}", str(p.met),
                      f"{p.per_game:.4f}")  # fmt: skip
        console.print(t)


def find_partings(tables: list, how: Solving) -> Partings:
    """The partings of the rule sets (see :func:`dicelab.play.compare.find_partings`),
    with a progress bar per pair and direction."""
    from dicelab.cli.output import progress_bar
    from dicelab.play.compare import find_partings as find

    if how.games <= 0:
        return Partings()
    with progress_bar("games played for the partings", enabled=not how.quiet, unit="games") as t:
        return find(tables, how.games, how.seed, t, how.use_cache)


def run_compare(given: list[str], how: Solving, as_json: bool = False,
                plot: Path | None = None) -> list[Compared]:  # fmt: skip
    """``dicelab compare``: load every rule set, solve each (or read the cache), then
    print the table or the JSON object, and draw the distributions overlaid."""
    from dicelab.cli.output import check_plot_path

    if plot is not None:
        check_plot_path(plot)
    if isinstance(how.games, bool) or not 0 <= how.games <= 100_000:
        from dicelab.errors import UserError

        raise UserError(f"--games: got {how.games}, expected 0 to 100,000")
    loaded = load_each(given)
    pairs = [compared(g, r, how) for g, r in zip(given, loaded, strict=True)]
    found = [c for c, _ in pairs]
    partings = find_partings([t for _, t in pairs], how)
    if plot is not None:
        from dicelab.plot.distribution import plot_distributions

        plot_distributions([c.dist for c in found], plot)
    if as_json:
        out = {"rule_sets": [c.to_dict() for c in found], "partings": partings.to_dict(how.top)}
        typer.echo(json.dumps(out))
    else:
        show_comparison(found)
        show_partings(partings, how.top, found)
        if plot is not None:
            typer.echo(f"distributions written to {plot}")
    return found
