"""What ``dicelab duel`` and ``dicelab duel advise`` print: verdicts, advice, a plot.

The command line collects options; this module reads the sheets given on it, loads
(or solves) the duel table and shows the answer in rich tables or JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from dicelab.cli.output import (
    Console,
    check_plot_path,
    columns_table,
    justify_right,
    progress_bar,
)
from dicelab.engine.advice.duel import DuelAdvice, Sheet, duel_advise
from dicelab.engine.objectives.duel import DuelTable, duel_table
from dicelab.engine.position import Position, check_turn
from dicelab.engine.runtime.cost import big
from dicelab.errors import UserError
from dicelab.plot.duel import plot_leads
from dicelab.rules import Rules, load_rules
from dicelab.rules.compiled import compile_rules
from dicelab.text import plural

if TYPE_CHECKING:
    from rich.console import JustifyMethod


def load_duel(rules: Rules, quiet: bool = False, **how: Any) -> DuelTable:
    """The duel table, solving it (with a progress bar) if it is not cached; ``how``:
    as :func:`~dicelab.engine.objectives.duel.duel_table` takes it (``use_cache``,
    ``allow_large``, ``mapped``, ``compare``: the strategy comparisons too,
    ``runner`` and ``store``), but for the progress, which the bar shows. A mapped
    table found damaged is read whole: the damage is seen and the table solved anew."""
    from dicelab.engine.runtime.cache import DamagedTable

    game = compile_rules(rules)
    with progress_bar(f"solving the {rules.name} duel", enabled=not quiet, unit="work") as tick:
        table = duel_table(game, progress=tick, **how)
        if how.get("mapped") and table.meta.get("mapped") is not None:
            try:
                table.meta["mapped"].check(0, 1)
            except DamagedTable:
                again = {k: how[k] for k in ("use_cache", "compare") if k in how}
                table = duel_table(game, progress=tick, **again)
    return table


def load_lead(rules: Rules, duel: DuelTable, quiet: bool = False):
    """The expected-lead table that goes with a duel table, worked out (with a
    progress bar) if it is not cached; memory-mapped, and read whole if damaged."""
    from dicelab.engine.objectives.duel_lead import lead_table
    from dicelab.engine.runtime.cache import DamagedTable

    game = duel.game
    what = f"working out the {rules.name} duel's expected leads"
    with progress_bar(what, enabled=not quiet, unit="work") as tick:
        table = lead_table(game, duel, progress=tick, mapped=True)
        if table.meta.get("mapped") is not None:
            try:
                table.meta["mapped"].check(0, 1)
            except DamagedTable:
                table = lead_table(game, duel, progress=tick)
    return table


# -- the verdicts -----------------------------------------------------------------------
STRATEGY = {"win": "to win", "expected": "expected score"}


def run_duel(
    rules: str,
    *,
    as_json: bool = False,
    use_cache: bool = True,
    allow_large: bool = False,
    plot: str | None = None,
    compare: bool = False,
    console: Console | None = None,
    runner=None,
    store=None,
) -> DuelTable:
    """Run ``dicelab duel RULES``: solve the two-player game and print its value, and
    with ``compare`` (or where the cache holds them) the strategy comparisons."""
    import time

    console = console or Console()
    r = load_rules(rules)
    plot_path = check_plot_path(plot) if plot else None
    start = time.perf_counter()
    table = load_duel(
        r,
        quiet=as_json,
        use_cache=use_cache,
        allow_large=allow_large,
        mapped=True,
        compare=compare,
        runner=runner,
        store=store,
    )
    seconds = time.perf_counter() - start
    v = table.meta.get("verdicts") or {}
    if plot_path is not None:
        plot_leads(table, plot_path)
    if as_json:
        out = {
            "rules": r.name,
            "objective": "duel",
            "pairs_of_sheets": table.space.n_nodes,
            "values": table.space.n_values,
            "start_value": table.start_value,
            **{k: v[k] for k in ("pairs", "from_distributions", "checks") if k in v},
            "solve_seconds": table.meta.get("solve_seconds") or round(table.seconds, 3),
            "compared": bool(v),
            "compare_seconds": v.get("compare_seconds"),
            "seconds": round(seconds, 3),
            "cached": bool(table.meta.get("cached")),
            "table": table.meta.get("path"),
            "plot": str(plot_path) if plot_path else None,
        }
        console.print_json(json.dumps(out))
        return table
    show_verdicts(table, console, seconds, rules)
    if plot_path is not None:
        console.print(f"plot written to {plot_path}")
    return table


def show_verdicts(table: DuelTable, console: Console, seconds: float, typed: str = "") -> None:
    """The value of the game and, where made, the strategy comparisons (``typed``:
    the rules as the user gave them, for the command that makes them)."""
    s = table.space
    r = table.rules
    v = table.meta.get("verdicts")
    how = "from the cache" if table.meta.get("cached") else "solved"
    if v and not table.meta.get("cached"):
        how = "solved and compared"
    console.print(
        f"[bold]{r.name}[/bold], two players: both sheets in view, the higher final score "
        "wins, a tie counts half"
    )
    console.print(
        f"{big(s.n_nodes)} pairs of sheets, {big(s.n_values)} (sheets, lead) values; "
        f"{how} in {seconds:.1f} s"
    )
    value = table.start_value
    console.print(
        f"\nBoth playing to win, the first player's chance is [bold]{value:.10f}[/bold] "
        "(a win plus half a tie)."
    )
    edge = (value - 0.5) * 100
    side = "helps" if edge > 0 else "hurts"
    if abs(edge) < 5e-9:
        console.print("Moving first neither helps nor hurts.")
    else:
        console.print(
            f"Moving first {side}: {abs(edge):.3f} points of win chance "
            f"{'for' if edge > 0 else 'against'} the first player (the second sees the "
            "first player's final score before the last turn)."
        )
    if not v:
        from dicelab.engine.objectives.duel import compare_weight

        solve = table.meta.get("solve_seconds") or table.seconds
        ratio = compare_weight(table.game)
        console.print(
            f"\nTo pit playing to win against playing for points, in either seat: "
            f"dicelab duel {typed or r.name} --compare (exact; about {ratio:.0f} times "
            f"the solve, {_minutes(ratio * solve)} here, once)."
        )
        return
    headings = ("A plays", "B plays", "A wins", "tie", "B wins", "A's chance")
    grid = columns_table(
        justify_right(headings, headings[2:]), title="Strategy pairs, exact (A moves first)"
    )
    order = ("win-win", "win-expected", "expected-win", "expected-expected")
    for p in sorted(v["pairs"].values(), key=lambda p: order.index(f"{p['a']}-{p['b']}")):
        grid.add_row(
            STRATEGY[p["a"]],
            STRATEGY[p["b"]],
            f"{p['p_a_wins']:.6f}",
            f"{p['p_tie']:.6f}",
            f"{p['p_b_wins']:.6f}",
            f"{p['value_for_a']:.6f}",
        )
    console.print(grid)
    pairs = v["pairs"]
    if "win-expected" in pairs and "expected-win" in pairs:
        as_a = pairs["win-expected"]["value_for_a"]
        as_b = 1 - pairs["expected-win"]["value_for_a"]
        console.print(
            f"Playing to win against a player who plays for the expected score: "
            f"{as_a:.4f} moving first, {as_b:.4f} moving second, "
            f"[bold]{(as_a + as_b) / 2:.4f}[/bold] on average (a win plus half a tie), "
            "against 0.5 for playing for the expected score too."
        )
    check = v.get("checks", {}).get("fair_pair_value_minus_half")
    if check is not None:
        console.print(
            f"Check: two expected-score players make a fair game; computed value minus 1/2 "
            f"= {check:.1e}."
        )


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def run_duel_advise(
    rules: str,
    dice: Sequence[str],
    *,
    rerolls: int | None,
    mine: Sheet,
    theirs: Sheet,
    top: int = 12,
    as_json: bool = False,
    console: Console | None = None,
    explain: bool = False,
) -> DuelAdvice:
    """Run ``dicelab duel advise`` (with ``explain``, a sentence per option)."""
    from dicelab.cli.advice import load_table
    from dicelab.dice import parse_dice

    console = console or Console()
    r = load_rules(rules)
    parsed = parse_dice(dice, r.faces)
    rerolls = r.rolls - 1 if rerolls is None else rerolls
    check_turn(r, Position(tuple(parsed), rerolls))
    table = load_duel(r, quiet=as_json, mapped=True)
    leads = load_lead(r, table, quiet=as_json) if explain else None
    expected = load_table(r, quiet=as_json)
    advice = duel_advise(table, expected, parsed, rerolls, mine, theirs, leads=leads)
    if explain:
        from dataclasses import replace

        from dicelab.engine.objectives.explain import duel_texts

        advice = replace(advice, texts=tuple(duel_texts(advice)))
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **advice.to_dict()}))
    else:
        show_duel_advice(advice, r, parsed, rerolls, console, top)
        shown = advice.texts if top <= 0 else advice.texts[:top]
        for n, text in enumerate(shown, start=1):
            console.print(f"{n}. {text}")
    return advice


def show_duel_advice(
    advice: DuelAdvice,
    rules: Rules,
    dice: Sequence[int],
    rerolls: int,
    console: Console,
    top: int = 12,
) -> None:
    when = f"{plural(rerolls, 'reroll')} left" if rerolls else "after the last throw"
    lead = advice.lead
    standing = (
        f"you lead by {lead}" if lead > 0 else (f"you trail by {-lead}" if lead < 0 else "level")
    )
    console.print(
        f"{rules.name} duel: you move ({'first' if advice.seat == 'A' else 'second'} player), "
        f"{advice.my_score} to {advice.their_score}, {standing}; dice "
        f"{' '.join(map(str, sorted(dice)))}, {when}"
    )
    columns: list[tuple[str, JustifyMethod]] = [
        ("#", "right"),
        ("option", "left"),
        ("win chance", "right"),
        ("cost", "right"),
        ("expected score", "right"),
        ("its rank", "right"),
    ]
    if advice.leads is not None:
        columns.append(("expected lead", "right"))
    table = columns_table(columns)
    shown = advice.options if top <= 0 else advice.options[:top]
    for n, o in enumerate(shown, start=1):
        rank, score = advice.expected_rank[o.key]
        mark = "" if rank == n else " *"
        style = "bold green" if o.cost <= 1e-9 else None
        table.add_row(
            str(n),
            o.label,
            f"{o.value:.6f}",
            f"{o.cost:.6f}",
            f"{score:.2f}",
            f"{rank}{mark}",
            *([f"{advice.leads[o.key]:+.2f}"] if advice.leads is not None else []),
            style=style,
        )
    console.print(table)
    best_plain = min(advice.options, key=lambda o: advice.expected_rank[o.key][0])
    if best_plain.key != advice.options[0].key:
        console.print(
            f"Playing for the expected score would choose [bold]{best_plain.label}[/bold]: "
            f"it costs {best_plain.cost:.6f} of win chance here."
        )
    else:
        console.print("Playing to win and playing for the expected score agree here.")
    hidden = len(advice.options) - len(shown)
    if hidden > 0:
        console.print(f"... and {hidden} more (--top 0 shows all)")


# -- a picture ---------------------------------------------------------------------------
# -- disagreements -------------------------------------------------------------------------
def run_disagreements(
    rules: str,
    *,
    games: int = 200,
    seed: int = 0,
    top: int = 10,
    as_json: bool = False,
    console: Console | None = None,
):
    """Run ``dicelab duel disagreements``: where playing to win and for points part most."""
    from dicelab.cli.advice import load_table
    from dicelab.play.duel import find_disagreements

    console = console or Console()
    r = load_rules(rules)
    if isinstance(games, bool) or not 1 <= games <= 100_000:
        raise UserError(f"games: got {games}, expected 1 to 100,000")
    table = load_duel(r, quiet=as_json, mapped=True)
    expected = load_table(r, quiet=as_json)
    with progress_bar(f"playing {games} duels", enabled=not as_json, unit="games") as tick:
        report = find_disagreements(table, expected, games=games, seed=seed, progress=tick)
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **report.to_dict(top)}))
        return report
    console.print(
        f"{r.name}: {report.games} duels, both playing to win. At {report.decisions:,} "
        f"decisions the expected-score choice differed {report.occurrences:,} times "
        f"({100 * report.share:.1f}%); each such choice taken alone, they cost "
        f"{report.cost_per_game:.4f} of win chance per game."
    )
    ids = {c.id: c.label for c in r.categories}
    headings = ("turn", "score", "open boxes: mine | theirs", "dice", "rerolls", "to win",
                "for points", "cost")  # fmt: skip
    right = ("turn", "rerolls", "cost")
    t = columns_table(justify_right(headings, right), title="The largest disagreements")
    for d in report.disagreements[: max(top, 0) or None]:
        mine = [ids[b] for b in ids if b not in d.my_filled]
        theirs = [ids[b] for b in ids if b not in d.their_filled]
        t.add_row(
            f"{d.turn} ({d.seat})",
            f"{d.my_score}-{d.their_score}",
            f"{', '.join(mine)} | {', '.join(theirs) or '-'}",
            " ".join(map(str, d.dice)),
            str(d.rerolls_left),
            f"{d.to_win.label} ({d.to_win.value:.3f})",
            f"{d.for_points.label} ({d.for_points.value:.3f})",
            f"{d.cost:.4f}",
        )
    console.print(t)
    return report
