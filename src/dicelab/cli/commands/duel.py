"""``dicelab duel``: the two-player game solved, advised, played and reviewed."""

from __future__ import annotations

import inspect

import typer

from dicelab.cli.app import CLUSTER_OPTION, STORE_OPTION, WORKERS_OPTION, app


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
    compare: bool = typer.Option(
        False,
        "--compare",
        help="Also play each seat to win or for points against the other, exactly "
        "(about 12 times the solve, once: the cached table keeps them).",
    ),
    cluster: str | None = CLUSTER_OPTION,
    workers: int | None = WORKERS_OPTION,
    store: str | None = STORE_OPTION,
) -> None:
    """Solve the two-player game (also: dicelab duel RULES); --compare pits the strategies."""
    from dicelab.cli.duel import run_duel
    from dicelab.engine.runtime.schedule import runner_for

    with runner_for(cluster, workers) as runner:
        run_duel(
            rules,
            as_json=json_out,
            use_cache=not no_cache,
            allow_large=allow_large,
            plot=plot,
            compare=compare,
            runner=runner,
            store=store,
        )


def _with_sheets(command):
    """Give ``command`` both sheets' options, declared once for the two sides: ``--mine``,
    ``--my-score``, ``--my-upper``, ``--my-bonuses`` and the same with ``their``. The
    command takes them as ``**sheets`` and builds each side with :func:`_sheet`."""
    fields = [
        ("{side}_filled", list[str], [], "--{filled}", "{whose} filled boxes: ones=3,sixes=18."),
        ("{side}_score", int | None, None, "--{side}-score", "{whose} score so far."),
        ("{side}_upper", int | None, None, "--{side}-upper", "{whose} upper total."),
        ("{side}_bonuses", int, 0, "--{side}-bonuses", "{whose} extra all-same bonuses."),
    ]
    sides = [
        {"side": "my", "filled": "mine", "whose": "My"},
        {"side": "their", "filled": "theirs", "whose": "Their"},
    ]
    extra = [
        inspect.Parameter(
            name.format(**s),
            inspect.Parameter.KEYWORD_ONLY,
            default=typer.Option(default, flag.format(**s), help=text.format(**s)),
            annotation=kind,
        )
        for name, kind, default, flag, text in fields
        for s in sides
    ]
    own = inspect.signature(command, eval_str=True).parameters.values()
    params = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in own if p.kind != p.VAR_KEYWORD
    ]
    at = next(i for i, p in enumerate(params) if p.name == "top")
    command.__signature__ = inspect.Signature(params[:at] + extra + params[at:])
    return command


def _sheet(side: str, sheets: dict, rules):
    """One side's :class:`~dicelab.engine.advice.duel.Sheet` from the options of
    :func:`_with_sheets`."""
    from dicelab.cli.advice import parse_filled
    from dicelab.engine.advice.duel import Sheet

    return Sheet(
        parse_filled(sheets[f"{side}_filled"], rules),
        sheets[f"{side}_upper"],
        sheets[f"{side}_bonuses"],
        sheets[f"{side}_score"],
    )


@duel_app.command("advise", context_settings={"allow_extra_args": True})
@_with_sheets
def duel_advise_command(
    ctx: typer.Context,
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
    dice: list[str] = typer.Option(..., "--dice", help="The dice showing: --dice 3 3 6 5 6."),
    rerolls: int | None = typer.Option(
        None, "--rerolls", help="Rerolls left (default: all of them, after the first throw)."
    ),
    top: int = typer.Option(12, "--top", min=0, help="Show this many options (0: all)."),
    as_json: bool = typer.Option(False, "--json", help="Print every option as JSON."),
    explain: bool = typer.Option(
        False,
        "--explain",
        help="Say why: each option's win chance against the best, in words, and its "
        "expected final lead with both playing to win (a table worked out once: "
        "about 4 times the duel's solve).",
    ),
    **sheets,
) -> None:
    """Rank every option of a duel position by win chance, beside its expected-score rank."""
    from dicelab.cli.duel import run_duel_advise
    from dicelab.rules import load_rules

    r = load_rules(rules)
    run_duel_advise(
        rules,
        [*dice, *ctx.args],
        rerolls=rerolls,
        mine=_sheet("my", sheets, r),
        theirs=_sheet("their", sheets, r),
        top=top,
        as_json=as_json,
        explain=explain,
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
    resume: str | None = typer.Option(None, "--resume", help="Go on with a saved duel."),
) -> None:
    """Play against the computer (it plays to win); your win chance after every decision."""
    from pathlib import Path

    from dicelab.cli.duel_play import run_duel_play

    code = run_duel_play(
        rules, seed=seed, seat=seat, record=Path(record) if record else None, show=not hide,
        top=top, resume=Path(resume) if resume else None,
    )  # fmt: skip
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
