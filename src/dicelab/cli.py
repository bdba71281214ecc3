"""The ``dicelab`` command line.

Each capability registers its commands on :data:`app`; :func:`main` is the entry
point and turns :class:`~dicelab.errors.UserError` into one line and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from dicelab.errors import UserError

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


@app.callback()
def _root() -> None:
    """Exact solvers, advice and analysis for dice games."""


@app.command()
def version() -> None:
    """Print the dicelab version."""
    from dicelab import __version__

    typer.echo(__version__)


def main() -> None:
    """Run the command line; user mistakes end in one line and exit code 2."""
    try:
        app()
    except UserError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(2)


if __name__ == "__main__":  # pragma: no cover
    main()
