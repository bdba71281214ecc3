"""The ``dicelab`` command line.

:data:`~dicelab.cli.app.app` holds the commands, one module of
:mod:`dicelab.cli.commands` per group; the other modules here print what they
answer (rich tables, JSON, plots). :func:`main` is the entry point and turns a
:class:`~dicelab.errors.UserError` into one line and exit code 2.
"""

from __future__ import annotations

import copy
import sys
from typing import TYPE_CHECKING, cast

import typer

from dicelab.cli import commands  # noqa: F401  (each module adds its commands to app)
from dicelab.cli.app import app, fail
from dicelab.errors import UserError, readable

if TYPE_CHECKING:
    from click import ClickException
    from typer.models import CommandInfo

__all__ = ["app", "fail", "main"]

# Click's own error, Typer's BadParameter among its kinds (found without importing Click)
_CLI_ERROR = cast(
    "type[ClickException]",
    next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"),
)


def _name(command: CommandInfo) -> str:
    """The name a command is typed by: its own, or its function's with dashes."""
    if command.name:
        return command.name
    assert command.callback is not None  # a command is registered with its function
    return command.callback.__name__.replace("_", "-")


def _command_named(argv: list[str]) -> typer.Typer:
    """:data:`app` with only the command or group that ``argv`` names, where it names
    one: Typer works out every command's parameters before it runs one (about 9 ms
    for all of them), while ``--help``, a mistyped name and options before the
    command get the whole application."""
    if not argv or argv[0].startswith("-"):
        return app
    name = argv[0]
    named = [c for c in app.registered_commands if _name(c) == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not named and not groups:
        return app
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = named, groups
    return only


def main() -> None:
    """Run the command line; user mistakes end in one line and exit code 2."""
    try:
        code = _command_named(sys.argv[1:])(standalone_mode=False)
    except UserError as exc:
        typer.echo(f"error: {readable(str(exc))}", err=True)
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
