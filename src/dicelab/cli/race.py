"""What ``dicelab race`` prints: rich tables for people, JSON for programs.

The command line only collects options; this module runs the race, the simulation or
the best-list search and shows the answer, so every output format stays in one place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.progress import Progress, TaskID
from rich.table import Table

from dicelab.cli.output import Console
from dicelab.errors import UserError
from dicelab.games.race.exact import RaceResult, parse_list, race
from dicelab.games.race.search import BestList, best_list
from dicelab.games.race.simulate import Simulation, simulate


def run_race(
    lists: Sequence[str],
    *,
    dice: int,
    faces: int,
    picks: int | None = None,
    simulation: dict | None = None,
    start: str | None = None,
    as_json: bool = False,
    plot: Path | None = None,
    console: Console | None = None,
) -> None:
    """Run ``dicelab race A B`` or ``dicelab race best`` and print the answer.

    ``simulation`` (``seed``, ``min_games``, ``max_games``, ``decisive_share``) asks
    for the simulation beside the exact chances of two lists.
    """
    from dicelab.cli.output import check_plot_path

    console = console or Console()
    if plot is not None:
        check_plot_path(plot)
    if list(lists) == ["best"]:
        if picks is None:
            raise UserError("race best needs --picks M, the number of numbers on a list")
        if simulation is not None:
            raise UserError("--simulate compares two lists; it does not apply to race best")
        first = parse_list(start, "start list") if start is not None else None
        _run_best(_search(dice, faces, picks, first, quiet=as_json), as_json, plot, console)
        return
    if len(lists) != 2:
        raise UserError(
            f"expected two lists such as 5,6,7,8,9 5,6,7,7,8 (or 'best'), got {len(lists)}"
        )
    if picks is not None or start is not None:
        raise UserError("--picks and --start belong to race best")
    a = parse_list(lists[0], "first list")
    b = parse_list(lists[1], "second list")
    result = race(a, b, dice, faces)
    sim = simulate(a, b, dice, faces, **simulation) if simulation is not None else None
    if plot is not None:
        from dicelab.plot.race import plot_race

        plot_race(result, plot, sim)
    if as_json:
        data = result.to_dict()
        if sim is not None:
            data["simulation"] = sim.to_dict()
        console.print_json(json.dumps(data))
    else:
        show_race(result, sim, console)


def _run_best(best: BestList, as_json: bool, plot: Path | None, console: Console) -> None:
    """Show (and draw) the best list."""
    if plot is not None:
        from dicelab.plot.race import plot_best

        plot_best(best, plot)
    if as_json:
        console.print_json(json.dumps(best.to_dict()))
    else:
        show_best(best, console)


def _search(
    dice: int, faces: int, picks: int, start: tuple[int, ...] | None, quiet: bool
) -> BestList:
    """The best-list search with a progress bar (with time estimate) on standard error."""
    from dicelab.cli.output import bar_columns

    bars = Progress(
        *bar_columns(label="{task.description:>14}"),
        console=Console(stderr=True),
        transient=True,
        disable=quiet,
    )
    tasks: dict[str, TaskID] = {}

    def progress(phase: str, done: int, total: int) -> None:
        if not tasks:
            bars.start()
        if phase not in tasks:
            tasks[phase] = bars.add_task(phase, total=total)
        bars.update(tasks[phase], completed=done, total=total)

    try:
        return best_list(dice, faces, picks, start=start, progress=progress)
    finally:
        if tasks:
            bars.stop()


def race_rules_text(dice) -> str:
    """The rules of the race, in one sentence, for the reports."""
    return (
        f"Rules: {dice.describe()} are thrown again and again; after each throw each "
        "player crosses off one copy of the sum from their list, if it is there. The "
        "first to cross off every number wins; finishing on the same throw is a tie."
    )


def show_race(result: RaceResult, sim: Simulation | None, console: Console) -> None:
    """One table: the exact chances (fraction and decimal) and, if run, the simulation."""
    console.print(race_rules_text(result.dice), style="dim")
    table = Table(
        title=f"Dice race with {result.dice.describe()}\n"
        f"A = {list(result.a)}   B = {list(result.b)}",
    )
    table.add_column("outcome")
    table.add_column("exact", justify="right")
    table.add_column("probability", justify="right")
    if sim is not None:
        table.add_column("simulated ± s.e.", justify="right")
    rows = (
        ("A wins", result.win, "win"),
        ("tie", result.tie, "tie"),
        ("B wins", result.lose, "lose"),
    )
    for name, value, key in rows:
        cells = [name, str(value), f"{float(value):.6f}"]
        if sim is not None:
            p, se = sim.estimate(key)
            cells.append(f"{p:.4f} ± {se:.4f}")
        table.add_row(*cells)
    console.print(table)
    verdict = {1: "beats", 0: "ties", -1: "loses to"}[(result.payoff > 0) - (result.payoff < 0)]
    console.print(
        f"A {verdict} B: P(A wins) - P(B wins) = {float(result.payoff):+.6f} "
        f"({result.payoff}); {result.positions} positions solved."
    )
    if sim is not None:
        early = "stopped early" if sim.stopped_early else "ran to the maximum"
        console.print(
            f"Simulation: {sim.games} games, seed {sim.seed}, {early} "
            f"(min {sim.min_games}, max {sim.max_games}, decisive share {sim.decisive_share})."
        )


def show_best(best: BestList, console: Console) -> None:
    """The best list (or optimal mix), its closest challengers, and the substitution search."""
    console.print(race_rules_text(best.dice), style="dim")
    console.print(
        f"Best list of {best.picks} numbers with {best.dice.describe()}: "
        f"{best.lists} lists in {best.classes} symmetry classes, "
        f"{best.candidates} played against every list, {best.seconds:.1f} s."
    )
    if best.pure:
        names = ", ".join(str(list(w)) for w in best.winners)
        many = len(best.winners) > 1
        console.print(
            f"[bold]{names}[/bold] {'each beat' if many else 'beats'} or "
            f"{'tie' if many else 'ties'} every other list (checked exactly): "
            f"{list(best.winners[0])} beats {best.beaten} lists and ties {best.tied}."
        )
        table = Table(title=f"Closest challengers of {list(best.winners[0])} (exact)")
        for col in ("opponent", "best wins", "opponent wins", "tie", "payoff"):
            table.add_column(col, justify="right")
        for c in best.closest:
            r = c.result
            table.add_row(
                str(list(c.numbers)),
                f"{float(r.win):.6f}",
                f"{float(r.lose):.6f}",
                f"{float(r.tie):.6f}",
                f"{float(r.payoff):+.6f}",
            )
        console.print(table)
    else:
        console.print(
            "No list beats or ties every other list; the optimal mixed choice "
            f"(value {best.value:+.2e}, no list gains more than {best.exploitability:.1e}):"
        )
        table = Table()
        table.add_column("list")
        table.add_column("weight", justify="right")
        for numbers, weight in best.mixed:
            table.add_row(str(list(numbers)), f"{weight:.6f}")
        console.print(table)
    sub = best.substitution
    if sub is not None:
        end = f"stopped at {list(sub.path[-1])}"
        if sub.cycled:
            end = "came back to a list it had seen"
        console.print(
            f"Substitution search (the write-up's) from {list(sub.path[0])}: "
            f"{len(sub.path) - 1} swaps, {end}."
        )
        against = "the best list" if best.pure else "the optimal mix"
        table = Table(title=f"Lists where the substitution search can stop ({len(sub.stops)})")
        table.add_column("list")
        table.add_column(f"payoff against {against}", justify="right")
        for numbers, value in list(zip(sub.stops, best.stop_payoffs, strict=True))[:20]:
            table.add_row(str(list(numbers)), f"{value + 0.0:+.6f}")
        console.print(table)
