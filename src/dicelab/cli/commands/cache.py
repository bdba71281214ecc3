"""``dicelab cache``: the solved tables kept on disk, listed and cleared."""

from __future__ import annotations

import sys

import typer

from dicelab.cli.app import app, fail

cache_app = typer.Typer(help="The solved tables kept on disk.", no_args_is_help=True)
app.add_typer(cache_app, name="cache")


@cache_app.command("list")
def cache_list() -> None:
    """List the cached tables (and files that interrupted saves left behind)."""
    from rich.table import Table

    from dicelab.cli.output import Console
    from dicelab.engine.runtime import budget
    from dicelab.engine.runtime.cache import cache_dir, list_tables, stray_files

    found = sorted(list_tables(), key=lambda t: t.used, reverse=True)
    stray = stray_files()
    console = Console()
    folder = cache_dir()
    if not found:
        console.print(f"no cached tables in {folder}")
    else:
        table = Table(title=f"Cached tables in {folder}, the most recently used first")
        for col in ("rules", "objective", "size", "last used"):
            table.add_column(col, no_wrap=True, justify="right" if col == "size" else "left")
        for t in found:
            name = t.rules if t.valid else f"{t.rules} (damaged or foreign)"
            what = f"{t.objective} ({t.params})" if t.params else t.objective
            table.add_row(name, what, _mib(t.bytes), t.used)
        console.print(table)
        limit = budget.cache_limit(folder)
        of = f" of its limit {_mib(limit)} ({budget.LIMIT_VARIABLE})" if limit else ""
        n = len(found)
        console.print(f"{n} table{'s' if n != 1 else ''}, {_mib(sum(t.bytes for t in found))}{of}")
    if stray:
        console.print(f"{_stray_line(stray)}: dicelab cache clear removes them")


def _stray_line(stray) -> str:
    size = sum(_size(p) for p in stray) / 2**20
    n = len(stray)
    return f"{n} unfinished file{'s' if n != 1 else ''} of interrupted saves ({size:.1f} MiB)"


def _mib(n: int) -> str:
    if n >= 1 << 30:
        return f"{n / 2**30:.2f} GiB"
    return f"{n / 2**20:.1f} MiB" if n >= 1 << 20 else f"{n / 2**10:.0f} KiB"


def _size(path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


@cache_app.command("clear")
def cache_clear(
    rules: str | None = typer.Argument(
        None, help="Only the tables of this rule set (its name, as `cache list` shows it)."
    ),
    yes: bool = typer.Option(False, "--yes", "-y", help="Delete without asking."),
) -> None:
    """Delete cached tables: all of them, or those of one rule set.

    The files that interrupted saves left behind are always deleted too.
    """
    from dicelab.engine.runtime.cache import cache_dir, clear_tables, list_tables, stray_files
    from dicelab.rules import builtin_name, builtin_names, did_you_mean

    tables = list_tables()
    if rules is not None and rules not in {t.rules for t in tables}:
        rules = builtin_name(rules) or rules  # a built-in name in any case
        if rules not in builtin_names() and rules not in {t.rules for t in tables}:
            names = sorted({*builtin_names(), *(t.rules for t in tables)})
            fail(f"cache clear: no rule set named {rules!r}{did_you_mean(rules, names)}; "
                 "dicelab cache list shows the tables kept")  # fmt: skip
    found = [t for t in tables if rules is None or t.rules == rules]
    stray = stray_files()
    if not found and not stray:
        what = f"of {rules!r} " if rules else ""
        typer.echo(f"no cached tables {what}in {cache_dir()}")
        return
    size = sum(t.bytes for t in found) / 2**20
    parts = [f"{len(found)} table file{'s' if len(found) != 1 else ''} ({size:.1f} MiB)"]
    if stray:
        parts.append(_stray_line(stray))
    question = "delete " + " and ".join(parts)
    if not yes:
        if not sys.stdin.isatty():
            fail(f"cache clear: {question}? add --yes to confirm")
        if not typer.confirm(f"{question} from {cache_dir()}?", default=False):
            raise typer.Exit(1)
    n = clear_tables(rules)
    left = len(stray_files())
    typer.echo(
        f"removed {n} table file{'s' if n != 1 else ''}"
        + (f" and {len(stray) - left} unfinished file(s)" if stray else "")
        + f" from {cache_dir()}"
    )


@cache_app.command("compile")
def cache_compile() -> None:
    """Compile the solver's kernels now, as pip install -e . does once.

    Every command's: the main solves in this process, the duel, the table, assign,
    the race and the dice games' advice in a second one beside it; about two
    minutes on 2 cores. Kernels already compiled are only loaded.
    """
    import time

    from dicelab.cli.output import progress_bar
    from dicelab.cli.warmup import compile_all

    start = time.perf_counter()
    with progress_bar("compiling the kernels", unit="s") as tick:
        compile_all(tick)
    typer.echo(f"kernels compiled or loaded in {time.perf_counter() - start:.1f} s")
