"""``dicelab solve`` and ``dicelab distribution``: every objective of one player's game."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import typer

from dicelab.cli.app import CLUSTER_OPTION, STORE_OPTION, WORKERS_OPTION, app
from dicelab.cli.game_options import SETTINGS, for_dice_games, text_option
from dicelab.cli.objective_options import with_objective_params
from dicelab.engine import registry

if TYPE_CHECKING:
    from pathlib import Path


class _Solving(TypedDict):
    """What ``solve`` tells whichever solve it runs: the output, the cache, the size
    check and where the table lives while it is solved."""

    as_json: bool
    use_cache: bool
    allow_large: bool
    store: str | None


class _Showing(TypedDict):
    """What ``distribution`` tells the solve, in this process or on a cluster."""

    as_json: bool
    plot: Path | None
    use_cache: bool


def _solve_game(kw: dict, extra: dict) -> None:
    """``dicelab solve GAME``: a dice game of the chance model."""
    from dicelab.cli.chance import GameSolving, run_game_solve

    run_game_solve(kw["rules"], extra["settings"], objective=kw["objective"],
                   target=kw["target"], exact=kw["exact"], strategy=extra["strategy"],
                   against=extra["against"], plot=extra["plot"], as_json=kw["json_out"],
                   how=GameSolving(kw["allow_large"], not kw["no_cache"], kw["cluster"],
                                   kw["workers"], kw["store"]))  # fmt: skip


GAME_SOLVE = {
    "settings": SETTINGS,
    "strategy": text_option("--strategy", "A dice game: also this plain strategy's exact value."),
    "against": text_option("--against", "A dice game: the other player's strategy (default best)."),
    "plot": text_option("--plot", "A dice game: its picture (Pig: when to hold) to this file."),
}


#: ``--objective``: the Yahtzee family's and the dice games' (from the registry).
OBJECTIVE_HELP = (
    "expected (default), target (best P(score >= S)), targets (the same from the table of "
    "every S, about 4x longer once), win, or risk (--theta: play safe or risky). A dice game: "
    + "; ".join(f"{o.name} ({o.summary})" for o in registry.GAME_OBJECTIVES.values())
    + "."
)


@app.command()
@with_objective_params
@for_dice_games(GAME_SOLVE, _solve_game)
def solve(
    rules: str = typer.Argument(
        ...,
        help="A built-in name or a path to a rules file; or a dice game: pig, shut-the-box, "
        "bearoff, farkle, or a TOML file naming one.",
    ),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    objective: str | None = typer.Option(
        None,
        "--objective",
        help=OBJECTIVE_HELP,
    ),
    target: int | None = typer.Option(None, "--target", help="The score S to reach."),
    exact: bool = typer.Option(False, "--exact", help="An exact fraction (small state spaces)."),
    opponent: str | None = typer.Option(
        None, "--opponent", help="Opponent's score distribution file (win; default: optimum)."
    ),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
    cluster: str | None = CLUSTER_OPTION,
    workers: int | None = WORKERS_OPTION,
    store: str | None = STORE_OPTION,
    precision: str = typer.Option(
        "single",
        "--precision",
        help="Values inside a turn: single (faster, within 1e-6) or double; expected score only.",
    ),
) -> None:
    """Solve a rule set for the average, a target score, a win, or a risk attitude.

    The maximum expected score by default; with --target S the best
    P(score >= S); with --objective win the best chance to beat an
    opponent; with --theta T the best play for a player who plays safe
    (T > 0) or risky (T < 0). A dice game (pig, shut-the-box, bearoff, farkle:
    --set NAME=VALUE) gets its value with best play, checked."""

    from dicelab.cli.objective_options import given_params
    from dicelab.engine import registry
    from dicelab.engine.runtime.schedule import runner_for
    from dicelab.errors import UserError

    params = given_params()
    if objective is None:
        objective = registry.implied(params, "target" if target is not None else "expected")
    for name in params:  # a parameter of another objective is a mistake, not ignored
        owner = registry.implied({name: params[name]}, "")
        if owner != objective or target is not None:
            what = f"--{name} goes with --objective {owner}"
            raise UserError(
                f"{what}, not with {objective}"
                if target is None
                else f"{what}; --target with --objective target: give one of them"
            )
    plain = objective == "expected" and not exact and target is None and opponent is None
    plain = plain and not params
    if precision != "single":
        from dicelab.engine.objectives.expected import turn_dtype

        turn_dtype(precision)
        if not plain:
            raise UserError("--precision: applies to the expected-score solve only")
    how = _Solving(as_json=json_out, use_cache=not no_cache, allow_large=allow_large, store=store)
    with runner_for(cluster, workers) as runner:
        if not plain and objective not in ("expected", "target", "targets", "win"):
            from dicelab.cli.objectives import run_registered

            run_registered(rules, objective, params, runner=runner, exact=exact, **how)
            return
        if not plain:
            from dicelab.cli.objectives import run_objective

            run_objective(rules, objective, target, exact, opponent, runner=runner, **how)
            return
        from dicelab.cli.objectives import run_expected

        run_expected(rules, runner=runner, precision=precision, **how)


@app.command("distribution")
def distribution_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    as_json: bool = typer.Option(False, "--json", help="Print every figure as JSON."),
    plot: str | None = typer.Option(None, "--plot", help="Write a histogram (.png, .svg, .pdf)."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to hold."
    ),
    cluster: str | None = CLUSTER_OPTION,
    workers: int | None = WORKERS_OPTION,
) -> None:
    """Exact distribution of the final score under the expected-score optimum."""
    from pathlib import Path

    from dicelab.cli.game_options import not_for_games
    from dicelab.cli.objectives import run_distribution

    not_for_games("distribution", rules)

    how = _Showing(as_json=as_json, plot=Path(plot) if plot else None, use_cache=not no_cache)
    if cluster is None and workers is None:  # this process: no scheduler to load
        run_distribution(rules, allow_large=allow_large, **how)
        return
    from dicelab.engine.runtime.schedule import runner_for

    with runner_for(cluster, workers) as runner:
        run_distribution(rules, allow_large=allow_large, runner=runner, **how)


@app.command("compare")
def compare_command(
    rules: list[str] = typer.Argument(
        ..., help="Two or more rule sets: built-in names or paths to rules files."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one object: rule_sets, partings."),
    plot: str | None = typer.Option(
        None, "--plot", help="Draw the final-score distributions overlaid (.png, .svg, .pdf)."
    ),
    boxes: bool = typer.Option(
        False,
        "--boxes",
        help="Add the expected points of each box and bonus (about 40 times the solve, once).",
    ),
    duel: bool = typer.Option(
        False,
        "--duel",
        help="Solve the two-player games not cached yet, for the first player's edge "
        "(minutes each; too large ones are left out).",
    ),
    games: int = typer.Option(
        300, "--games", help="Games played to find where the best moves part (0: none)."
    ),
    seed: int = typer.Option(0, "--seed", help="Seed of the dice of those games."),
    top: int = typer.Option(5, "--top", help="Positions listed per pair and direction."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to hold."
    ),
) -> None:
    """Rule sets side by side: expected score, spread, percentiles, bonus chances, skill
    gap, the first player's edge, and where the best moves part."""
    from pathlib import Path

    from dicelab.cli.compare import Solving, run_compare
    from dicelab.cli.game_options import not_for_games

    for name in rules:
        not_for_games("compare", name)
    path = Path(plot) if plot else None
    how = Solving(as_json, not no_cache, allow_large, boxes, duel, games, seed, top)
    run_compare(rules, how, as_json, path)
