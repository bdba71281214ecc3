"""The ``dicelab`` Typer application, the options its command groups share, and
:func:`fail`, the one way a command stops on a user's mistake.

Each module of :mod:`dicelab.cli.commands` adds one command group to :data:`app`;
those modules import nothing heavy at the top, so ``--help`` and the instant
commands load neither Numba nor the solvers.
"""

from __future__ import annotations

import os

# The command line uses no pydantic plugins; looking for them scans every installed
# package's entry points, a cost each command would pay at its first rules file.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer  # noqa: E402

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


#: Where a solve runs (see dicelab.engine.runtime.schedule and docs/cluster.md).
CLUSTER_OPTION = typer.Option(
    None, "--cluster", help="Solve on a running Dask scheduler, tcp://HOST:8786 (cluster extra)."
)


WORKERS_OPTION = typer.Option(
    None, "--workers", help="Solve on a local Dask cluster of N worker processes (cluster extra)."
)


STORE_OPTION = typer.Option(
    None, "--store", help="Keep the table being solved in a file in this folder, not in memory."
)
