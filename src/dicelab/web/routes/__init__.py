"""The JSON API, one module of routes per area, and what they share.

Each area's module holds an ``APIRouter`` (:mod:`.rules`, :mod:`.advice`,
:mod:`.duel`, :mod:`.records`); :func:`dicelab.web.app.create_app` includes them.
A handler finds the server's :class:`~dicelab.web.store.Store` through
:func:`get_store` and its tables through :func:`table_for` (or :func:`with_table`
where a table may be memory-mapped).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from dicelab.engine import registry
from dicelab.engine.advice.single import Position, scorecard_state
from dicelab.errors import DamagedTable, TooLarge, UserError
from dicelab.web import models as m
from dicelab.web.store import Store

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": m.ErrorOut, "description": "The request makes no sense for the rules."},
    404: {"model": m.ErrorOut, "description": "Unknown rule set."},
    413: {"model": m.ErrorOut, "description": "The body is over the size limit."},
    422: {"model": m.ErrorOut, "description": "The body does not fit the request model."},
}


def route(router: APIRouter, method: str, path: str, model: type, summary: str, **extra: Any):
    """Declare a route of the JSON API: its method, path, the model of its answer, a
    one-line summary, and the errors every route may answer with (:data:`ERRORS`)."""
    return router.api_route(
        path, methods=[method], response_model=model, responses=ERRORS, summary=summary, **extra
    )


class FastJSON(JSONResponse):
    """JSON without a second validation pass; NumPy scalars written as numbers."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, allow_nan=False, separators=(",", ":"), default=_plain).encode(
            "utf-8"
        )


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def get_store(request: Request) -> Store:
    """The server's rule sets and tables (a FastAPI dependency)."""
    return request.app.state.store


def awaitable(future) -> asyncio.Future:
    """An asyncio future of a thread's future whose error is always taken, so that work
    dropped on purpose (a client gone, no one awaiting it any more) leaves no "Future
    exception was never retrieved" traceback in the server's log."""
    waiting = asyncio.wrap_future(future)
    waiting.add_done_callback(_taken)
    return waiting


def _taken(waited: asyncio.Future) -> None:
    if not waited.cancelled():
        waited.exception()  # taken: the request that wanted it says what went wrong


async def table_for(store: Store, rules, objective: str = "expected"):
    """The table of an objective: at once from memory, else awaited while it is loaded
    or solved (without holding a thread). A solve too large is refused in words that
    fit the page (the command line's way out means nothing there)."""
    found = store.loaded(rules, objective)
    if found is not None:
        return found
    future = store.table_future(rules, objective, wait=True)
    try:
        return await stopping_ends(awaited_while_there(awaitable(future)))
    except ClientGone:
        store.release_table(rules, objective, gone=True)
        raise UserError("the client left before the table was ready") from None
    except TooLarge as exc:
        text = exc.summary
        if objective == "duel":
            text += "; duels are played on smaller rule sets, such as yazy"
        raise UserError(text) from None


#: The request being answered (set for every route: see :func:`remember_request`).
current_request: ContextVar[Request | None] = ContextVar("current_request", default=None)


async def remember_request(request: Request) -> None:
    """A dependency of every route: the request, for :func:`awaited_while_there`
    (async, so that it is set in the task that runs the route)."""
    current_request.set(request)


class ClientGone(Exception):
    """The client closed its connection while its request waited."""


async def awaited_while_there(waiting: asyncio.Future):
    """``waiting``, awaited while the client of the current request is still there:
    a client that leaves (a page that moved on) stops waiting, so a solve that no
    one awaits any more can be dropped before it starts."""
    request = current_request.get()
    while True:
        done, _ = await asyncio.wait({waiting}, timeout=0.25)
        if done:
            return waiting.result()
        if request is not None and await request.is_disconnected():
            raise ClientGone()


class Stopping(Exception):
    """The server stopped while this request waited for a solve (answered 503)."""


async def stopping_ends(awaitable):
    """Await a solve or a distribution; when the server stops meanwhile (it cancels
    the requests still waiting, see :func:`dicelab.web.app.run`), answer that instead
    of failing."""
    try:
        return await awaitable
    except asyncio.CancelledError:
        raise Stopping() from None


async def with_table(store: Store, rules, objective: str, use):
    """``use(table)`` (a value, or an awaitable of one) on the table of an objective.

    A memory-mapped table reads its blocks as a request needs them; one that fails
    its checksum is dropped, its file deleted, and the table solved anew and used
    again, as the command line does: the damage costs that request a solve, and no
    later request sees it.
    """
    for attempt in (1, 2):
        table = await table_for(store, rules, objective)
        try:
            out = use(table)
            return (await out) if inspect.isawaitable(out) else out
        except DamagedTable as exc:
            store.drop_damaged(rules, objective, exc.path)
            if attempt == 2:
                raise


@dataclass(frozen=True)
class RulesOnly:
    """The compiled rules in a table's place, where a check needs only them (a
    scorecard checked before its table is solved)."""

    game: Any


def turn_start(table, body) -> tuple[int, int, int, int]:
    """``(mask, upper, flag, score)`` of the scorecard of a request, checked."""
    position = Position(
        dice=(),
        rerolls=0,
        filled=dict(body.filled),
        upper_total=body.upper_total,
        extra_bonuses=body.extra_bonuses,
    )
    return scorecard_state(table, position, allow_full=True)


def spec_of(body) -> registry.Spec:
    """The objective of a request with its parameters (:mod:`dicelab.engine.registry`),
    checked: each parameter of the objective given, none of another objective's."""
    params = {p.name: getattr(body, p.name, None) for p in registry.key_params()}
    spec = registry.spec(body.objective, registry.menu(), **params)
    for p in spec.objective.params:
        if p.in_key and spec.params.get(p.name) is None:
            raise UserError(f"objective {spec.name}: give {p.help} (`{p.name}`)")
    return spec
