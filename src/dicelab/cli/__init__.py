"""The ``dicelab`` command line.

Each capability registers its commands on :data:`app`; :func:`main` is the entry
point and turns :class:`~dicelab.errors.UserError` into one line and exit code 2.
"""

from __future__ import annotations

import os
import sys

# The command line uses no pydantic plugins; looking for them scans every installed
# package's entry points, a cost each command would pay at its first rules file.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402

from dicelab.errors import UserError  # noqa: E402

app = typer.Typer(
    help="Exact solvers, advice and analysis for dice games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> None:
    """Print one error line and exit with code 2."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(2)


def _print_version(value: bool) -> None:
    if value:
        from dicelab import __version__

        typer.echo(f"dicelab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """Exact solvers, advice and analysis for dice games."""


@app.command()
def version() -> None:
    """Print the dicelab version."""
    from dicelab import __version__

    typer.echo(__version__)


# -- rule sets ---------------------------------------------------------------------
rules_app = typer.Typer(help="The built-in rule sets and rules files.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


@rules_app.command("list")
def rules_list() -> None:
    """List the built-in rule sets."""
    from rich.console import Console
    from rich.table import Table

    from dicelab.rules import builtin_names, load_rules

    table = Table(title="Built-in rule sets")
    for col in ("name", "title", "boxes", "dice", "rolls"):
        table.add_column(col)
    for name in builtin_names():
        r = load_rules(name)
        table.add_row(name, r.title, str(r.n_categories), f"{r.dice}d{r.faces}", str(r.rolls))
    Console().print(table)


@rules_app.command("show")
def rules_show(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
) -> None:
    """Print a readable scorecard of a rule set."""
    from rich.console import Console

    from dicelab.cli.output import scorecard
    from dicelab.rules import load_rules

    Console().print(scorecard(load_rules(rules)))


# -- solving -----------------------------------------------------------------------
#: Where a solve runs (see dicelab.solve.schedule and docs/cluster.md).
CLUSTER_OPTION = typer.Option(
    None, "--cluster", help="Solve on a running Dask scheduler, tcp://HOST:8786 (cluster extra)."
)
WORKERS_OPTION = typer.Option(
    None, "--workers", help="Solve on a local Dask cluster of N worker processes (cluster extra)."
)
STORE_OPTION = typer.Option(
    None, "--store", help="Keep the table being solved in a file in this folder, not in memory."
)


@app.command()
def solve(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    objective: str | None = typer.Option(
        None, "--objective", help="expected (default), target (P(score >= S)) or win."
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
    """Solve a rule set: maximum expected score, best P(score >= S), or best chance to win."""
    import json
    import time

    from dicelab.cli.output import progress_bar
    from dicelab.rules import load_rules
    from dicelab.solve.expected import expected_table
    from dicelab.solve.schedule import runner_for

    if objective is None:
        objective = "target" if target is not None else "expected"
    plain = objective == "expected" and not exact and target is None and opponent is None
    if precision != "single":
        from dicelab.errors import UserError
        from dicelab.solve.expected import turn_dtype

        turn_dtype(precision)
        if not plain:
            raise UserError("--precision: applies to the expected-score solve only")
    with runner_for(cluster, workers) as runner:
        if not plain:
            from dicelab.cli.objectives import run_objective

            run_objective(
                rules,
                objective,
                target=target,
                exact=exact,
                opponent=opponent,
                as_json=json_out,
                use_cache=not no_cache,
                allow_large=allow_large,
                runner=runner,
                store=store,
            )
            return
        r = load_rules(rules)
        start = time.perf_counter()
        with progress_bar(f"solving {r.name}", enabled=not json_out) as tick:
            if r.save_unused_throws:  # throws in hand: their own table, not cached
                from dicelab.solve.saved import solve_saved

                table = solve_saved(
                    r, progress=tick, allow_large=allow_large, runner=runner, store=store
                )
            else:
                table = expected_table(
                    r,
                    use_cache=not no_cache,
                    progress=tick,
                    allow_large=allow_large,
                    runner=runner,
                    store=store,
                    precision=precision,
                )
    seconds = time.perf_counter() - start
    if json_out:
        out = {
            "rules": r.name,
            "objective": "expected",
            "precision": precision,
            "expected_score": table.expected_score,
            "states": table.n_states,
            "seconds": round(seconds, 4),
            "solve_seconds": round(table.seconds, 4) if not table.meta.get("cached") else None,
            "cached": bool(table.meta.get("cached")),
            "table": table.meta.get("path"),
        }
        typer.echo(json.dumps(out))
        return
    how = "from the cache" if table.meta.get("cached") else "solved"
    digits = 6 if precision == "single" else 7  # single-precision turns: within 1e-6
    typer.echo(
        f"{r.name}: optimal expected score {table.expected_score:.{digits}f} "
        f"({table.n_states:,} states, {how} in {seconds:.2f} s)"
    )


# -- the two-player game ---------------------------------------------------------------
class _DuelGroup(typer.core.TyperGroup):
    """``dicelab duel RULES`` runs ``duel solve RULES``; ``duel advise`` and ``duel play``
    are subcommands."""

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["solve", *args]
        return super().parse_args(ctx, args)


duel_app = typer.Typer(
    cls=_DuelGroup,
    help="The two-player game solved exactly: who wins, not who scores most.",
    no_args_is_help=True,
)
app.add_typer(duel_app, name="duel")


@duel_app.command("solve")
def duel_solve(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write the cache."),
    plot: str | None = typer.Option(
        None, "--plot", help="Plot the value of a lead for a few sheet pairs (.png, .svg)."
    ),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
    cluster: str | None = CLUSTER_OPTION,
    workers: int | None = WORKERS_OPTION,
    store: str | None = STORE_OPTION,
) -> None:
    """Solve the two-player game (also: dicelab duel RULES) and compare strategies."""
    from dicelab.cli.duel import run_duel
    from dicelab.solve.schedule import runner_for

    with runner_for(cluster, workers) as runner:
        run_duel(
            rules,
            as_json=json_out,
            use_cache=not no_cache,
            allow_large=allow_large,
            plot=plot,
            runner=runner,
            store=store,
        )


@duel_app.command("advise", context_settings={"allow_extra_args": True})
def duel_advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    dice: list[str] = typer.Option(..., "--dice", help="The dice showing: --dice 3 3 6 5 6."),
    rerolls: int | None = typer.Option(
        None, "--rerolls", help="Rerolls left (default: all of them, after the first throw)."
    ),
    mine: list[str] = typer.Option([], "--mine", help="My filled boxes: ones=3,sixes=18."),
    theirs: list[str] = typer.Option([], "--theirs", help="The opponent's filled boxes."),
    my_score: int | None = typer.Option(None, "--my-score", help="My score so far."),
    their_score: int | None = typer.Option(None, "--their-score", help="Their score so far."),
    my_upper: int | None = typer.Option(None, "--my-upper", help="My upper total."),
    their_upper: int | None = typer.Option(None, "--their-upper", help="Their upper total."),
    my_bonuses: int = typer.Option(0, "--my-bonuses", help="My extra all-same bonuses."),
    their_bonuses: int = typer.Option(0, "--their-bonuses", help="Their extra bonuses."),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
) -> None:
    """Rank every option of a duel position by win chance, beside its expected-score rank."""
    from dicelab.cli.advice import parse_filled
    from dicelab.cli.duel import run_duel_advise
    from dicelab.rules import load_rules
    from dicelab.solve.duel_advice import Sheet

    r = load_rules(rules)
    run_duel_advise(
        rules,
        [*dice, *ctx.args],
        rerolls=rerolls,
        mine=Sheet(parse_filled(mine, r), my_upper, my_bonuses, my_score),
        theirs=Sheet(parse_filled(theirs, r), their_upper, their_bonuses, their_score),
        top=top,
        as_json=as_json,
    )


@duel_app.command("play")
def duel_play_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    seat: str = typer.Option("A", "--seat", help="A to move first, B to move second."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the dice."),
    record: str | None = typer.Option(
        None, "--record", help="Game record file (default: dicelab-duel-DATE-TIME.json)."
    ),
    hide: bool = typer.Option(False, "--hide-advice", help="Play without advice."),
    top: int = typer.Option(6, "--top", min=0, help="Options shown at each step (0: all)."),
) -> None:
    """Play against the computer (it plays to win); your win chance after every decision."""
    from pathlib import Path

    from dicelab.cli.duel_play import run_duel_play

    code = run_duel_play(
        rules, seed=seed, seat=seat, record=Path(record) if record else None, show=not hide, top=top
    )
    raise typer.Exit(code)


@duel_app.command("review")
def duel_review_command(
    file: str = typer.Argument(..., help="A duel record written by dicelab duel play."),
    all_decisions: bool = typer.Option(False, "--all", help="List every decision."),
    as_json: bool = typer.Option(False, "--json", help="Print the review as JSON."),
) -> None:
    """Review a recorded duel: each of your decisions priced in win chance."""
    from dicelab.cli.duel_play import run_duel_review

    run_duel_review(file, as_json=as_json, all_decisions=all_decisions)


@duel_app.command("disagreements")
def duel_disagreements_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    games: int = typer.Option(200, "--games", help="Duels to play (1 to 100,000)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the dice."),
    top: int = typer.Option(10, "--top", min=0, help="Show this many (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
) -> None:
    """Where playing to win and playing for the expected score part most, in play."""
    from dicelab.cli.duel import run_disagreements

    run_disagreements(rules, games=games, seed=seed, top=top, as_json=as_json)


# -- the cache ---------------------------------------------------------------------
cache_app = typer.Typer(help="The solved tables kept on disk.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("list")
def cache_list() -> None:
    """List the cached tables."""
    from rich.console import Console
    from rich.table import Table

    from dicelab.solve.cache import cache_dir, list_tables

    found = list_tables()
    console = Console()
    if not found:
        console.print(f"no cached tables in {cache_dir()}")
        return
    table = Table(title=f"Cached tables in {cache_dir()}")
    for col in ("rules", "objective", "size", "created", "file"):
        table.add_column(col, overflow="fold")
    for t in found:
        name = t.rules if t.valid else f"{t.rules} (damaged or foreign)"
        size = f"{t.bytes / 2**20:.1f} MiB"
        table.add_row(name, t.objective, size, t.created, t.path.name)
    console.print(table)


@cache_app.command("clear")
def cache_clear(
    rules: str | None = typer.Argument(
        None, help="Only the tables of this rule set (its name, as `cache list` shows it)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
) -> None:
    """Delete cached tables: all of them, or those of one rule set."""
    from dicelab.solve.cache import cache_dir, clear_tables, list_tables

    found = [t for t in list_tables() if rules is None or t.rules == rules]
    if not found:
        what = f"of {rules!r} " if rules else ""
        typer.echo(f"no cached tables {what}in {cache_dir()}")
        return
    size = sum(t.bytes for t in found) / 2**20
    question = f"delete {len(found)} table file{'s' if len(found) != 1 else ''} ({size:.1f} MiB)"
    if not yes:
        if not sys.stdin.isatty():
            fail(f"cache clear: {question}? add --yes to confirm")
        if not typer.confirm(f"{question} from {cache_dir()}?", default=False):
            raise typer.Exit(1)
    n = clear_tables(rules)
    typer.echo(f"removed {n} table file{'s' if n != 1 else ''} from {cache_dir()}")


@app.command()
def race(
    lists: list[str] = typer.Argument(
        ...,
        metavar="A B | best",
        help="Two lists such as 5,6,7,8,9 5,6,7,7,8, or the word best.",
    ),
    dice: int = typer.Option(2, "--dice", help="Number of dice thrown together."),
    faces: int = typer.Option(6, "--faces", help="Faces per die."),
    picks: int | None = typer.Option(None, "--picks", help="Numbers per list (race best)."),
    simulate: bool = typer.Option(False, "--simulate", help="Also simulate, as a cross-check."),
    seed: int = typer.Option(0, "--seed", help="Seed of the simulation."),
    min_games: int = typer.Option(1_000, "--min-games", help="Simulate at least this many."),
    max_games: int = typer.Option(100_000, "--max-games", help="Simulate at most this many."),
    share: float = typer.Option(
        0.75, "--share", help="Stop simulating once the leader won this share of decided games."
    ),
    start: str | None = typer.Option(
        None, "--start", help="Start list of the substitution search (race best)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plot: str | None = typer.Option(None, "--plot", help="Write a plot to this file (.png, .svg)."),
) -> None:
    """The dice race: exact win/lose/tie chances of two lists, or the best list."""
    from pathlib import Path

    from dicelab.cli.race import run_race

    settings = dict(seed=seed, min_games=min_games, max_games=max_games, decisive_share=share)
    run_race(
        lists,
        dice=dice,
        faces=faces,
        picks=picks,
        simulation=settings if simulate else None,
        start=start,
        as_json=as_json,
        plot=Path(plot) if plot else None,
    )


@app.command("assign")
def assign_command(
    file: str | None = typer.Argument(
        None, help="File of rolls, one per line, one line per box per game (default: stdin)."
    ),
    rules: str = typer.Option(
        "uva10149", "--rules", help="Built-in rule set or path to a rules file."
    ),
    as_json: bool = typer.Option(
        False, "--json", help="Print each game's total, bonus and the roll in each box."
    ),
) -> None:
    """Best scoring of known rolls: each game's box scores, bonus and total."""
    from dicelab.cli.assign import run_assign

    run_assign(file, rules=rules, as_json=as_json)


# -- advice, play-along, review, simulation ----------------------------------------
@app.command("advise", context_settings={"allow_extra_args": True})
def advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    dice: list[str] = typer.Option(
        ..., "--dice", help="The dice showing: --dice 3 3 6 5 6 (or 3,3,6,5,6 or 33656)."
    ),
    rerolls: int | None = typer.Option(
        None, "--rerolls", help="Rerolls left (default: all of them, after the first throw)."
    ),
    filled: list[str] = typer.Option(
        [], "--filled", help="Filled boxes with their points: ones=3,sixes=18 (box=? unknown)."
    ),
    upper: int | None = typer.Option(
        None, "--upper", help="Upper total so far (needed when upper points are unknown)."
    ),
    bonuses: int = typer.Option(0, "--bonuses", help="Extra all-same bonuses already earned."),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
    target: int | None = typer.Option(
        None, "--target", help="Play to reach this final score: rank by P(score >= S)."
    ),
) -> None:
    """Rank every option of a position by its expected final score (or its chance of
    reaching a target score)."""
    from dicelab.cli.advice import run_advise

    run_advise(
        rules,
        [*dice, *ctx.args],
        rerolls=rerolls,
        filled=filled,
        upper=upper,
        bonuses=bonuses,
        top=top,
        as_json=as_json,
        target=target,
    )


@app.command("play")
def play_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    dice: str = typer.Option("virtual", "--dice", help="virtual (drawn) or real (typed in)."),
    seed: int | None = typer.Option(None, "--seed", help="Seed of the virtual dice."),
    record: str | None = typer.Option(
        None, "--record", help="Game record file (default: dicelab-game-DATE-TIME.json)."
    ),
    resume: str | None = typer.Option(None, "--resume", help="Continue a saved, unfinished game."),
    hide: bool = typer.Option(
        False, "--hide-advice", help="Play without advice; review at the end."
    ),
    top: int = typer.Option(8, "--top", min=0, help="Options shown at each step (0: all)."),
) -> None:
    """Play along in the terminal with advice at every step; the game is saved and reviewed."""
    from pathlib import Path

    from dicelab.cli.play import run_play

    code = run_play(
        rules,
        dice=dice,
        seed=seed,
        record=Path(record) if record else None,
        resume=Path(resume) if resume else None,
        show=not hide,
        top=top,
    )
    raise typer.Exit(code)


@app.command("review")
def review_command(
    file: str = typer.Argument(..., help="A game record written by dicelab play."),
    rules: str | None = typer.Option(
        None, "--rules", help="Rules to review with (default: those named in the record)."
    ),
    mistakes: bool = typer.Option(False, "--mistakes", help="List only the mistakes."),
    as_json: bool = typer.Option(False, "--json", help="Print the review as JSON."),
) -> None:
    """Review a recorded game: each decision, the best option, the cost of each mistake."""
    from dicelab.cli.advice import run_review

    run_review(file, rules=rules, as_json=as_json, mistakes_only=mistakes)


@app.command("simulate")
def simulate_command(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    games: int = typer.Option(100_000, "--games", help="Number of games."),
    seed: int = typer.Option(0, "--seed", help="Seed of the dice: same seed, same games."),
    plot: str | None = typer.Option(None, "--plot", help="Write a histogram (.png, .svg, .pdf)."),
    bins: int = typer.Option(20, "--bins", help="Bins of the text histogram."),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON."),
) -> None:
    """Simulate games with the optimal strategy and compare with the exact expectation."""
    from pathlib import Path

    from dicelab.cli.advice import run_simulate

    run_simulate(
        rules,
        games=games,
        seed=seed,
        plot=Path(plot) if plot else None,
        bins=bins,
        as_json=as_json,
    )


@app.command("serve")
def serve_command(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
    log_level: str = typer.Option(
        "info", "--log-level", help="Server log level (warning: no line per request)."
    ),
) -> None:
    """Serve the play-along web page and its JSON API (docs at /docs)."""
    from dicelab.web.app import run

    if not 0 <= port <= 65535:
        fail(f"port: got {port}, expected 0 to 65535")
    levels = ("critical", "error", "warning", "info", "debug")
    if log_level not in levels:
        fail(f"log level: got {log_level!r}, expected one of: {', '.join(levels)}")
    _check_listen(host, port)
    typer.echo(f"dicelab: the page is at http://{host}:{port}/ (API docs at /docs)")
    run(host=host, port=port, log_level=log_level)


def _check_listen(host: str, port: int) -> None:
    """Fail in one line, before the server starts, if it could not listen there."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        fail(f"host: cannot listen on {host!r}: {exc}")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            fail(f"cannot listen on {host}:{port}: {reason} (another server there? try --port)")


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

    from dicelab.cli.objectives import run_distribution
    from dicelab.solve.schedule import runner_for

    with runner_for(cluster, workers) as runner:
        run_distribution(
            rules,
            as_json=as_json,
            plot=Path(plot) if plot else None,
            use_cache=not no_cache,
            allow_large=allow_large,
            runner=runner,
        )


#: The command-line library's error base class (usage errors, bad option values).
_CLI_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


@app.command("door")
def door_command(
    hand: str = typer.Option("1 2 3 4 5", "--hand", help="Each player's cards, e.g. '1 2 3 4 5'."),
    second_hand: str | None = typer.Option(
        None, "--second-hand", help="The second player's cards, if not the same."
    ),
    target: int = typer.Option(23, "--target", help="Exact sum at which the second player wins."),
    bust: int = typer.Option(24, "--bust", help="Sum at or above which the first player wins."),
    csv: str | None = typer.Option(None, "--csv", help="Write the table of every position here."),
    plot: str | None = typer.Option(None, "--plot", help="Draw that table to this file (.png)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
) -> None:
    """The door-lock card game: verdict, winning first moves, main lines of play."""
    from dicelab.cli.games import run_door

    run_door(
        hand,
        second_hand=second_hand,
        target=target,
        bust=bust,
        csv_path=csv,
        plot_path=plot,
        as_json=as_json,
        allow_large=allow_large,
    )


@app.command("tictactoe")
def tictactoe_command(
    rows: int = typer.Option(3, "--rows", help="Rows of the board."),
    columns: int = typer.Option(3, "--columns", help="Columns of the board."),
    k: int = typer.Option(3, "--k", help="Marks in a row that win."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    allow_large: bool = typer.Option(
        False, "--allow-large", help="Solve even what this machine is not expected to finish."
    ),
) -> None:
    """Tic-tac-toe solved exactly: verdict, number of positions, best first moves."""
    from dicelab.cli.games import run_tictactoe

    run_tictactoe(rows, columns, k, as_json=as_json, allow_large=allow_large)


def main() -> None:
    """Run the command line; user mistakes end in one line and exit code 2."""
    try:
        code = app(standalone_mode=False)
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)
    except _CLI_ERROR as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":
            typer.echo(exc.format_message())
        else:
            message = " ".join(exc.format_message().split())
            typer.echo(f"error: {message} (see --help)", err=True)
        sys.exit(exc.exit_code)
    except typer.Abort:
        typer.echo("aborted", err=True)
        sys.exit(1)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":  # pragma: no cover
    main()
