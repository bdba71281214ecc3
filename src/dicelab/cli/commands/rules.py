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


@rules_app.command("show")
def rules_show(
    rules: str = typer.Argument(..., help="A built-in name or a path to a rules file."),
) -> None:
    """Print a readable scorecard of a rule set."""
    from dicelab.cli.output import Console, scorecard
    from dicelab.rules import load_rules

    Console().print(scorecard(load_rules(rules)))
