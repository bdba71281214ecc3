"""``dicelab cache``: the solved tables kept on disk, listed and cleared."""

from __future__ import annotations

import sys

import typer

from dicelab.cli.app import app, fail

cache_app = typer.Typer(help="The solved tables kept on disk.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("list")
def cache_list() -> None:
    """List the cached tables."""
    from rich.table import Table

    from dicelab.cli.output import Console
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
