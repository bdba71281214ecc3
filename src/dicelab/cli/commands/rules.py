"""``dicelab rules``: the built-in rule sets and a readable scorecard of any."""

from __future__ import annotations

import typer

from dicelab.cli.app import app

rules_app = typer.Typer(help="The built-in rule sets and rules files.", no_args_is_help=True)
app.add_typer(rules_app, name="rules")


@rules_app.command("list")
def rules_list() -> None:
    """List the built-in rule sets."""
    from rich.table import Table

    from dicelab.cli.output import Console
    from dicelab.rules import builtin_names, load_rules

    table = Table(title="Built-in rule sets")
    for col in ("name", "title", "boxes", "dice", "rolls"):
        table.add_column(col)
    for name in builtin_names():
        r = load_rules(name)
        table.add_row(name, r.title, str(r.n_categories), f"{r.dice}d{r.faces}", str(r.rolls))
    Console().print(table)
    Console().print(dice_games_table())


def dice_games_table():
    """The dice games' families and shipped presets, each with what it is."""
    from rich.table import Table

    from dicelab.games.chance.families import FAMILIES, preset_file, preset_names

    table = Table(title="Dice games and their presets (dicelab rules show NAME: the house rules)")
    for col in ("name", "title", "game"):
        table.add_column(col)
    for name, family in FAMILIES.items():
        table.add_row(name, family.title, family.summary)
    for name in preset_names():
        data = preset_file(name)
        table.add_row(name, str(data.get("title", "")), f"{data['game']}: "
                      f"{data.get('published', 'a preset')}")  # fmt: skip
    return table


@rules_app.command("show")
def rules_show(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
) -> None:
    """Print a readable scorecard of a rule set, or a dice game's house rules."""
    from dicelab.cli.game_options import near_game
    from dicelab.cli.output import Console, scorecard
    from dicelab.errors import NotFound
    from dicelab.games.chance.families import is_game
    from dicelab.rules import load_rules

    if is_game(rules):
        Console().print(house_rules_table(rules))
        return
    try:
        Console().print(scorecard(load_rules(rules)))
    except NotFound as exc:  # a dice game's name mistyped: say it too
        raise NotFound(f"{exc}{near_game(rules)}") from None


def house_rules_table(name: str):
    """A dice game's settings (a family's, a preset's or a game file's): each one's
    value here and what it means, so a game file can be written from it."""
    from rich.table import Table

    from dicelab.games.chance.families import settings_of

    family, values = settings_of(name)
    table = Table(title=f"{name}: game = \"{family.name}\" and its settings (--set NAME=VALUE, "
                        "or NAME = VALUE in a game file)")  # fmt: skip
    for col in ("setting", "value", "what it is"):
        table.add_column(col)
    for key, (_, what) in family.settings.items():
        value = values.get(key)
        shown = (
            "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        )
        table.add_row(key, shown or "(default)", what)
    return table
