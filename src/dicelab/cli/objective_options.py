"""Command-line options read from the registry of objectives.

A command that plays for an objective takes ``--objective`` and one option per
parameter of the registry's objectives (``--target S``, ``--theta T``, ...).
:func:`with_objective_params` adds the parameter options a command does not declare
itself, from :mod:`dicelab.engine.registry`, and hands their values to the command
as ``params``: a new objective's parameter reaches every such command without
touching it.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable

import typer

from dicelab.engine import registry


def objective_help(among: list[registry.Objective]) -> str:
    """The help text of ``--objective``: each objective with what it plays for."""
    return "; ".join(f"{o.name}: {o.summary}" for o in among) + "."


def _option(p: registry.Param):
    owners = " or ".join(o.name for o in registry.OBJECTIVES.values() if o.param(p.name))
    rng = ""
    if p.low is not None and p.high is not None:
        rng = f", {p.low:g} to {p.high:g}"
    return typer.Option(None, f"--{p.name}", help=f"{p.help[:1].upper()}{p.help[1:]}{rng} "
                                                  f"(objective {owners}).")  # fmt: skip


#: The values of the registry's options given to the command now running.
_GIVEN: contextvars.ContextVar[dict | None] = contextvars.ContextVar("given", default=None)


def given_params() -> dict:
    """The registry's parameters given on the command line (``--theta``), by name:
    those the running command does not declare itself, and only those given."""
    return dict(_GIVEN.get() or {})


def with_objective_params(command: Callable) -> Callable:
    """Add an option for each registry parameter that ``command`` does not declare;
    their values reach it through :func:`given_params`."""
    signature = inspect.signature(command)
    extra = [p for p in registry.key_params() if p.name not in signature.parameters]
    shown = list(signature.parameters.values())
    for p in extra:
        kind = int if p.kind is int else float
        shown.append(
            inspect.Parameter(
                p.name,
                inspect.Parameter.KEYWORD_ONLY,
                default=_option(p),
                annotation=kind | None,
            )
        )

    @functools.wraps(command)
    def run(*args, **kwargs):
        values = {p.name: kwargs.pop(p.name, None) for p in extra}
        token = _GIVEN.set({k: v for k, v in values.items() if v is not None})
        try:
            return command(*args, **kwargs)
        finally:
            _GIVEN.reset(token)

    run.__signature__ = signature.replace(parameters=shown)  # type: ignore[attr-defined]
    run.__annotations__ = {**command.__annotations__,
                           **{p.name: (int if p.kind is int else float) | None
                              for p in extra}}  # fmt: skip
    return run
