"""The ``dicelab`` command line.

:data:`~dicelab.cli.app.app` holds the commands, one module of
:mod:`dicelab.cli.commands` per group; the other modules here print what they
answer (rich tables, JSON, plots). :func:`main` is the entry point and turns a
:class:`~dicelab.errors.UserError` into one line and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from dicelab.cli import commands  # noqa: F401  (each module adds its commands to app)
from dicelab.cli.app import app, fail
from dicelab.errors import UserError

__all__ = ["app", "fail", "main"]

_CLI_ERROR = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


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
