"""What ``dicelab advise``, ``review`` and ``simulate`` print: rich tables and JSON.

The command line only collects options; this module reads the scorecard given on
the command line, loads the table, and shows the answer, so every output format
stays in one place (the play-along loop in :mod:`dicelab.cli.play` reuses it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from dicelab.cli.output import Console, check_plot_path, columns_table
from dicelab.dice import parse_dice
from dicelab.engine.advice.single import Advice, Position, advise, advise_target
from dicelab.engine.objectives.expected import ExpectedTable, expected_table
from dicelab.errors import UserError
from dicelab.play.game import Review, load_record, review
from dicelab.plot.scores import plot_scores
from dicelab.rules import Rules, load_rules

if TYPE_CHECKING:  # the simulator compiles kernels: imported only by the command using it
    from rich.console import JustifyMethod

    from dicelab.play.simulate import Simulation


# -- reading the command line ---------------------------------------------------------------
def parse_filled(items: Sequence[str], rules: Rules) -> dict[str, int | None]:
    """Boxes typed as ``ones=3,sixes=18,full_house=25``; ``box=?`` for unknown points.

    Options may be repeated; a box given twice is an error.
    """
    ids = [c.id for c in rules.categories]
    filled: dict[str, int | None] = {}
    for item in items:
        for part in re.split(r"[,\s]+", str(item).strip()):
            if not part:
                continue
            box, sep, pts = part.partition("=")
            box = box.strip().lower()
            if box not in ids:
                raise UserError(f"unknown box {box!r}; the boxes are: {', '.join(ids)}")
            if box in filled:
                raise UserError(f"box {box!r} is given twice")
            pts = pts.strip()
            if not sep or pts in ("", "?"):
                filled[box] = None
            elif re.fullmatch(r"\d+", pts):
                filled[box] = int(pts)
            else:
                raise UserError(f"box {box!r}: points {pts!r} are not a whole number (or ?)")
    return filled


def typed_position(
    rules: Rules,
    dice: Sequence[str],
    rerolls: int | None,
    filled: Sequence[str],
    upper: int | None,
    bonuses: int,
) -> Position:
    """A player's position as the command line gives it: the dice showing, the rerolls
    left (all of them after the first throw when not given) and the sheet's boxes
    (:func:`parse_filled`), upper total and extra bonuses."""
    return Position(
        dice=tuple(parse_dice(dice, rules.faces)),
        rerolls=rules.rolls - 1 if rerolls is None else rerolls,
        filled=parse_filled(filled, rules),
        upper_total=upper,
        extra_bonuses=bonuses,
    )


def load_table(rules: str | Rules, quiet: bool = False) -> ExpectedTable:
    """The expected-score table, solving (with a progress bar) if it is not cached."""
    from dicelab.cli.output import progress_bar

    r = load_rules(rules) if isinstance(rules, str) else rules
    with progress_bar(f"solving {r.name}", enabled=not quiet) as tick:
        return expected_table(r, progress=tick)


def load_any_table(rules: Rules, quiet: bool = False):
    """:func:`load_table`, or for rules that save unused throws their table with throws
    in hand (solved here, not cached): what advice and simulation play from."""
    if not rules.save_unused_throws:
        return load_table(rules, quiet)
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.saved import solve_saved

    with progress_bar(f"solving {rules.name}", enabled=not quiet) as tick:
        return solve_saved(rules, progress=tick)


# -- advise ------------------------------------------------------------------------------
def run_advise(
    rules: str,
    dice: Sequence[str],
    *,
    rerolls: int | None = None,
    filled: Sequence[str] = (),
    upper: int | None = None,
    bonuses: int = 0,
    top: int = 12,
    as_json: bool = False,
    console: Console | None = None,
    target: int | None = None,
    explain: bool = False,
    params: dict | None = None,
) -> Advice:
    """Run ``dicelab advise`` and print the ranked options.

    With ``target``, options are ranked by their chance of a final score of at
    least ``target`` (the target table, solved once and cached); with ``params`` of
    another objective of the registry (``theta``), by that objective's table. With
    ``explain``, each option also says why (see :mod:`dicelab.engine.objectives.explain`).
    """
    from dicelab.engine import registry

    console = console or Console()
    r = load_rules(rules)
    params = {k: v for k, v in (params or {}).items() if v is not None}
    position = typed_position(r, dice, rerolls, filled, upper, bonuses)
    if params and target is not None:
        names = " and ".join(f"--{n}" for n in params)
        raise UserError(f"{names} and --target play for different objectives: give one of them")
    if params:
        spec = registry.spec(registry.implied(params, ""), **params)
        advice = registered_advice(r, spec, position, quiet=as_json, explain=explain)
    elif target is None and explain:
        advice = explained_advice(r, position, quiet=as_json)
    elif target is None:
        advice = advise(load_any_table(r, quiet=as_json), position)
    else:
        from dicelab.cli.output import progress_bar
        from dicelab.engine.objectives.target import check_target
        from dicelab.engine.objectives.utility import reach_table
        from dicelab.engine.runtime.cache import DamagedTable
        from dicelab.rules.compiled import compile_rules

        game = compile_rules(r)
        check_target(game, target)  # before any solving
        with progress_bar(f"solving {r.name} for {target} or more", enabled=not as_json) as tick:
            ttable = reach_table(game, target, progress=tick, mapped=True)
            try:
                advice = advise_target(ttable, position, target)
            except DamagedTable:  # read whole, the damage is seen and the table solved anew
                ttable = reach_table(game, target, progress=tick)
                advice = advise_target(ttable, position, target)
    if explain and not advice.explanations:
        from dicelab.engine.objectives.explain import explain_chances

        advice = explain_chances(advice)
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **params, **advice.to_dict()}))
    else:
        show_advice(advice, r, console, top=top)
        if advice.explanations:
            show_why(advice, r, console, top)
    return advice


def registered_advice(
    rules: Rules, spec, position: Position, quiet: bool = False, explain: bool = False
) -> Advice:
    """Advice from the table of an objective of the registry, solved once with a
    progress bar (a damaged cached table is solved anew); with ``explain``, each
    option with its sentence (the objective's own)."""
    from dicelab.cli.output import progress_bar
    from dicelab.engine import registry
    from dicelab.rules.compiled import compile_rules

    game = compile_rules(rules)
    with progress_bar(f"solving {rules.name} for {spec.key}", enabled=not quiet) as tick:
        options = registry.SolveOptions(progress=tick)

        def advise(t):
            advice = t.advise(position, **spec.advise_args())
            return spec.objective.load("explain")(advice, t) if explain else advice

        return registry.using(game, spec, options, advise)


#: How an advice's values are headed and shown, by what they are.
MEASURES = {
    "expected_final_score": ("expected final score", 3),
    "win_probability": ("chance to win", 6),
    "certainty_equivalent": ("sure score (certainty equivalent)", 3),
}


def explained_advice(rules: Rules, position: Position, quiet: bool = False):
    """Advice with each option's why, from the split of the expected score by box
    (solved once with a progress bar, then read from the cache as it is needed)."""
    from dicelab.engine.objectives.explain import explain_advice
    from dicelab.engine.runtime.cache import DamagedTable

    table = explain_split(rules, quiet, mapped=True)
    try:
        return explain_advice(table, position)
    except DamagedTable:  # read whole, the damage is seen and the table solved anew
        return explain_advice(explain_split(rules, quiet), position)


def explain_split(rules: Rules, quiet: bool = False, mapped: bool = False):
    """The split of the expected score by box (:mod:`dicelab.engine.objectives.explain`), solved
    with a progress bar the first time."""
    from dicelab.cli.output import progress_bar
    from dicelab.engine.objectives.explain import explain_table
    from dicelab.rules.compiled import compile_rules

    what = f"splitting {rules.name}'s expected score by box"
    with progress_bar(what, enabled=not quiet, unit="layers") as tick:
        return explain_table(compile_rules(rules), progress=tick, mapped=mapped)


def show_why(advice: Advice, rules: Rules, console: Console, top: int) -> None:
    """Why, in a sentence per option, then where the points of the first options come
    from: each open box, the bonuses."""
    whys = advice.explanations
    shown = len(whys) if top <= 0 else min(top, len(whys))
    for i, why in enumerate(whys[:shown], start=1):
        console.print(f"{i}. {why.text}")
    if not hasattr(whys[0], "box_points"):
        return
    columns = whys[: min(3, shown)]
    table = Table(title="where the expected final score comes from", header_style="bold")
    table.add_column("")
    for o in advice.options[: len(columns)]:
        table.add_column(o.label, justify="right")
    for cat in rules.categories:
        if cat.id not in advice.position.filled:
            table.add_row(cat.label, *(f"{w.box_points[cat.id]:.2f}" for w in columns))
    first = columns[0]
    if first.p_upper_bonus is not None:
        cells = (f"{100 * w.p_upper_bonus:.1f}% ({w.upper_bonus:.2f})" for w in columns)
        table.add_row("upper bonus", *cells)
    if first.expected_extra_bonuses is not None:
        cells = (f"{w.expected_extra_bonuses:.3f} ({w.extra_bonus:.2f})" for w in columns)
        table.add_row("extra bonuses", *cells)
    elif first.p_all_same is not None:
        table.add_row("all alike scored", *(f"{100 * w.p_all_same:.1f}%" for w in columns))
    table.add_row("final score", *(f"{w.expected_final_score:.3f}" for w in columns))
    console.print(table)


#: The letters that name the options shown in terminal play (a letter picks one).
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def show_advice(
    advice: Advice, rules: Rules, console: Console, top: int = 12, letters: bool = False
) -> None:
    """The ranked options as a table, best first; with ``letters`` (terminal play) each
    named by a letter that picks it, so that no number on screen means two things."""
    p = advice.position
    when = (
        f"{p.rerolls} reroll{'s' if p.rerolls != 1 else ''} left"
        if p.rerolls
        else "after the last throw"
    )
    head = (
        f"{rules.name}: dice {' '.join(map(str, sorted(p.dice)))}, {when}; "
        f"score so far {advice.score_so_far}, upper total {advice.upper_total}"
    )
    console.print(head)
    table = Table(show_header=True, header_style="bold")
    table.add_column("#", justify="right")
    table.add_column("option")
    table.add_column("points now", justify="right")
    measure, digits = MEASURES.get(advice.measure, (f"P(score >= {advice.target})", 6))
    table.add_column(measure, justify="right")
    table.add_column("cost", justify="right")
    shown = advice.options if top <= 0 else advice.options[:top]
    if letters:
        shown = shown[: len(LETTERS)]
    for i, o in enumerate(shown, start=1):
        if o.kind == "box":
            assert o.points is not None and o.box_name is not None  # a box option has both
            now = str(o.points + o.extra)
            what = o.box_name + (f" +{o.extra} bonus" if o.extra else "")
        else:
            now = ""
            what = o.label
        style = "bold green" if o.cost <= 1e-9 else None
        shown_value, shown_cost = f"{o.value:.{digits}f}", f"{o.cost:.{digits}f}"
        name = LETTERS[i - 1] if letters else str(i)
        table.add_row(name, what, now, shown_value, shown_cost, style=style)
    console.print(table)
    hidden = len(advice.options) - len(shown)
    if hidden > 0:
        console.print(f"... and {hidden} more (--top 0 shows all)")


# -- review ------------------------------------------------------------------------------
def run_review(
    file: str,
    *,
    rules: str | None = None,
    as_json: bool = False,
    mistakes_only: bool = False,
    console: Console | None = None,
    explain: bool = False,
) -> Review:
    """Run ``dicelab review FILE`` and print every decision and the totals; with
    ``explain``, each mistake says why it costs what it does."""
    console = console or Console()
    record = load_record(file)
    source = rules or record.get("rules_source") or record.get("rules")
    if not isinstance(source, str):
        raise UserError(f"{Path(file).name}: the record names no rules (give --rules)")
    table = load_table(source, quiet=as_json)
    split = explain_split(table.rules, quiet=as_json) if explain else None
    result = review(table, record, split)
    if as_json:
        console.print_json(json.dumps(result.to_dict()))
    else:
        show_review(result, console, mistakes_only=mistakes_only)
    return result


def show_review(result: Review, console: Console, mistakes_only: bool = False) -> None:
    """Decisions with the best option and the cost, then the totals."""
    shown = [d for d in result.decisions if d.mistake or not mistakes_only]
    if not shown:
        console.print("no mistakes: every decision was a best option")
        for line in review_summary(result):
            console.print(line)
        return
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("turn", "right"),
        ("dice", "left"),
        ("rerolls", "right"),
        ("chosen", "left"),
        ("best", "left"),
        ("cost", "right"),
    )
    table = columns_table(columns, title=f"Review ({result.rules})")
    for d in shown:
        best = "" if not d.mistake else d.best.label
        style = "red" if d.cost >= 1 else ("yellow" if d.mistake else None)
        table.add_row(
            str(d.turn),
            " ".join(map(str, d.dice)),
            str(d.rerolls_left),
            d.chosen.label,
            best,
            f"{d.cost:.3f}" if d.mistake else "",
            style=style,
        )
    console.print(table)
    for d in shown:
        if d.why:
            console.print(f"turn {d.turn}, throw {d.throw}: {d.why}")
    for line in review_summary(result):
        console.print(line)


def review_summary(result: Review) -> list[str]:
    """The totals of a review, one fact per line."""
    n = len(result.decisions)
    lines = [
        f"decisions: {n}, mistakes: {len(result.mistakes)}, "
        f"total cost: {result.total_cost:.3f} points",
    ]
    if result.finished:
        lines.append(
            f"final score: {result.score}; optimal expectation at the start: "
            f"{result.expected_score:.3f} ({result.score - result.expected_score:+.3f})"
        )
    else:
        lines.append(
            f"unfinished game: {result.score} points so far; expected final score now "
            f"{result.outcome:.3f}, at the start {result.expected_score:.3f}"
        )
    lines.append(
        f"luck: {result.luck:+.3f} (outcome = expectation - cost + luck: "
        f"{result.outcome:.3f} = {result.expected_score:.3f} - {result.total_cost:.3f} "
        f"{'+' if result.luck >= 0 else '-'} {abs(result.luck):.3f})"
    )
    return lines


# -- simulate ----------------------------------------------------------------------------
def run_simulate(
    rules: str,
    *,
    games: int,
    seed: int = 0,
    plot: Path | None = None,
    bins: int = 20,
    as_json: bool = False,
    console: Console | None = None,
) -> Simulation:
    """Run ``dicelab simulate`` and print the summary, histogram and optional plot."""
    from dicelab.play.simulate import compile_meanwhile, simulate

    console = console or Console()
    if not 1 <= bins <= 200:
        raise UserError(f"bins: got {bins}, expected 1 to 200")
    if plot is not None:
        check_plot_path(plot)
    compile_meanwhile()
    table = load_any_table(load_rules(rules), quiet=as_json)
    from dicelab.cli.output import progress_bar

    with progress_bar("simulating", enabled=not as_json and games >= 20_000, unit="games") as tick:
        sim = simulate(table, games, seed=seed, progress=tick)
    if plot is not None:
        plot_scores(sim, plot, bins=bins)
    if as_json:
        data = sim.to_dict()
        if plot is not None:
            data["plot"] = str(plot)
        console.print_json(json.dumps(data))
        return sim
    show_simulation(sim, console, bins=bins)
    if plot is not None:
        console.print(f"plot written to {plot}")
    return sim


def show_simulation(sim: Simulation, console: Console, bins: int = 20) -> None:
    """Summary figures, percentiles and a text histogram."""
    console.print(
        f"{sim.rules}: {sim.games:,} games with the optimal strategy (seed {sim.seed}), "
        f"{sim.seconds:.2f} s ({sim.games_per_minute:,.0f} games a minute)"
    )
    console.print(
        f"mean {sim.mean:.3f}, sd {sim.sd:.3f}, standard error {sim.standard_error:.3f}; "
        f"exact expected score {sim.expected_score:.3f}: difference "
        f"{sim.mean - sim.expected_score:+.3f} = {sim.z:+.2f} standard errors"
    )
    console.print(
        f"upper bonus in {100 * sim.upper_bonus.mean():.2f}% of games, all-same box scored in "
        f"{100 * sim.all_same.mean():.2f}%, extra bonuses {sim.extra_bonuses.mean():.4f} a game; "
        f"min {int(sim.scores.min())}, max {int(sim.scores.max())}"
    )
    pct = Table(show_header=True, header_style="bold", title="percentiles")
    values = sim.percentiles()
    for p in values:
        pct.add_column(f"{p}%", justify="right")
    pct.add_row(*(f"{v:g}" for v in values.values()))
    console.print(pct)
    for line in text_histogram(sim, bins=bins):
        console.print(Text(line))


def text_histogram(sim: Simulation, bins: int = 20, width: int = 50) -> list[str]:
    """One line per bin: range, bar, share of games."""
    counts, edges = sim.histogram(bins)
    top = max(1, int(counts.max()))
    lines = []
    for c, lo, hi in zip(counts, edges[:-1], edges[1:], strict=True):
        bar = "#" * int(round(width * c / top))
        lines.append(f"{int(lo):5d}-{int(hi) - 1:<5d} {bar:<{width}} {100 * c / sim.games:6.2f}%")
    return lines
