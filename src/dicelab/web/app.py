"""The FastAPI application: the play-along page and its JSON API.

Every mistake in a request is answered with a 4xx status and ``{"detail": "..."}``
naming what is wrong: :class:`~dicelab.errors.UserError` from the library becomes
400 (404 for an unknown rule set), a body that does not fit the request model
becomes 422, a body over the size limit 413, a ``Host`` header that names
another site 400 (:mod:`dicelab.web.guards`). A history of games that cannot be read
or written (this server's own files) is a 503 that names why, without a path. A 500
means a bug in dicelab. The routes live in :mod:`dicelab.web.routes`, one module per
area.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from importlib import resources

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicelab.errors import DamagedTable, TooLarge, UserError, readable
from dicelab.play.history import HistoryError
from dicelab.web.game_store import GameStore
from dicelab.web.guards import BodyLimit, HostCheck
from dicelab.web.routes import (
    Stopping,
    advice,
    coach,
    compare,
    duel,
    games,
    match,
    records,
    remember_request,
    rules,
)
from dicelab.web.store import NotFound, QueueFull, Store

API_DESCRIPTION = """
Advice for dice games of the Yahtzee family, from exact tables.

* `GET /api/rules` lists the rule sets; `GET /api/rules/{id}` gives one's scorecard.
* `POST /api/rules` uploads a rules file (TOML text) and returns its id.
* `GET /api/rules/{id}/expected` solves (or loads) the table and gives the optimal
  expected score of a game; `GET /api/rules/{id}/progress` says how far a solve has
  come (any objective's table), at once, also while it runs.
* `POST /api/advice` ranks every option of a position (the keeps before a reroll,
  the boxes after the last throw) by expected final score, with its cost against
  the best one; or, with `objective`, by the chance of reaching a `target` score
  or of beating a player who plays for points, or by the sure score an option is
  worth to a player of risk attitude `theta` (`risk`).
* `POST /api/outlook` gives the value of a scorecard before the turn's first throw;
  `POST /api/distribution` the exact distribution of the final score from there.
* `POST /api/duel/advice` ranks the options of the player to move in the exact
  two-player game by win chance; `POST /api/duel/outlook` says whose turn it is and
  the chance to win between turns; `POST /api/duel/review` prices a duel record.
* `POST /api/review` prices every decision of a game record (the format written by
  `dicelab play` and by the page) against optimal play.
* `POST /api/compare` puts two to four rule sets side by side: expected score, spread,
  bonus chances, skill gap, the first player's edge where cached, and the positions
  where their best moves part.
* `GET /api/objectives` lists what a player may play for (the average, a target score, a
  win, a risk attitude), with each aim's parameters.
* `GET /api/health` answers while the server is up.

Errors are 4xx with `{"detail": "what is wrong"}`.
"""


def _validation_message(exc: RequestValidationError) -> str:
    """One line naming the first wrong field."""
    errors = exc.errors()
    if not errors:
        return "invalid request"
    first = errors[0]
    if first.get("type") == "json_invalid":
        return "the body is not valid JSON"
    loc = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{loc or 'body'}: {first.get('msg', 'invalid')}{more}"


def _reply(detail: str, status: int, headers: Mapping[str, str] | None = None) -> JSONResponse:
    """An error answer. A message may quote what the request sent, and JSON lets a
    request send text that UTF-8 cannot hold (a lone surrogate, ``\\ud800``): such
    characters are written as escapes, so that quoting them never fails the answer."""
    safe = readable(detail).encode("utf-8", "backslashreplace").decode("utf-8")
    return JSONResponse({"detail": safe}, status_code=status, headers=headers)


STOPPING = "the server is stopping; ask again once it is back"


class StopAnswers:
    """ASGI middleware: a request still running when the server stops is answered
    503 (:data:`STOPPING`), however far it had come.

    Once told to stop, uvicorn cancels the requests still running after its grace
    time; one cancelled while it awaited work in a thread (a game's solve, a review)
    ended in a traceback in the log and a 500. The thread's work is left to end with
    the process."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watched(message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except asyncio.CancelledError:
            if not started:  # else the answer is cut short: the connection closes
                await _reply(STOPPING, 503, {"Retry-After": "10"})(scope, receive, send)


def create_app(store: Store | None = None, hosts: Sequence[str] = (),
               dice_games: GameStore | None = None) -> FastAPI:  # fmt: skip
    """Build the application; ``store`` lets tests share or inspect the tables, and
    ``dice_games`` the dice games (by default under the store's limits).

    Requests are served when their ``Host`` header is an IP address, ``localhost``
    or one of ``hosts``."""
    app = FastAPI(
        title="dicelab",
        description=API_DESCRIPTION,
        version=_version(),
        docs_url=None,  # our own viewer below: it loads nothing from other sites
        redoc_url=None,
        openapi_url="/openapi.json",
        dependencies=[Depends(remember_request)],
    )
    app.state.store = store = store or Store()
    app.state.games = dice_games or GameStore(store.limits, store.processes)
    app.add_middleware(StopAnswers)
    app.add_middleware(BodyLimit)
    app.add_middleware(HostCheck, names=hosts)
    _answer_errors(app)
    _serve_page(app)
    for area in (rules, advice, duel, match, records, coach, games, compare):
        app.include_router(area.router)
    return app


def _answer_errors(app: FastAPI) -> None:
    """Every error as ``{"detail": ...}`` with its status (see the module docstring)."""

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> JSONResponse:
        return _reply(str(exc), 404)

    @app.exception_handler(QueueFull)
    async def _queue_full(request: Request, exc: QueueFull) -> JSONResponse:
        return _reply(str(exc), 503, {"Retry-After": "30"})

    @app.exception_handler(Stopping)
    async def _stopping(request: Request, exc: Stopping) -> JSONResponse:
        return _reply(STOPPING, 503, {"Retry-After": "10"})

    @app.exception_handler(DamagedTable)
    async def _damaged(request: Request, exc: DamagedTable) -> JSONResponse:
        # solved anew and damaged again (a failing disk?): the path stays unsaid
        detail = "a cached table was found damaged twice while being read; ask again later"
        return _reply(detail, 503)

    @app.exception_handler(HistoryError)
    async def _no_history(request: Request, exc: HistoryError) -> JSONResponse:
        # this server's own files: no fault of the request, and no path said
        lost = ": nothing was kept" if exc.doing == "written" else ""
        return _reply(coach.unavailable(exc) + lost, 503)

    @app.exception_handler(UserError)
    async def _user_error(request: Request, exc: UserError) -> JSONResponse:
        # a size refused: its summary, without the command line's way out
        return _reply(exc.summary if isinstance(exc, TooLarge) else str(exc), 400)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _reply(_validation_message(exc), 422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail, headers = str(exc.detail), exc.headers
        if exc.status_code == 400 and detail == "There was an error parsing the body":
            detail = "the body could not be read as JSON (broken, or nested too deeply)"
        methods = _methods(app, request) if exc.status_code == 405 else None
        if methods:  # every method of the path, not only the first route's
            headers = {**(headers or {}), "Allow": ", ".join(methods)}
        return _reply(detail, exc.status_code, headers)

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        return _reply(f"internal error: {type(exc).__name__}", 500)


def _methods(app: FastAPI, request: Request) -> list[str]:
    """The methods the API answers at the request's path (from its schema)."""
    import re

    path = request.url.path
    for template, operations in app.openapi()["paths"].items():
        if re.fullmatch(re.sub(r"\{[^}/]+\}", "[^/]+", template), path):
            return sorted(method.upper() for method in operations)
    return []


def _serve_page(app: FastAPI) -> None:
    """The page, its API viewer and their static files; the health check."""
    static = resources.files("dicelab.web") / "static"

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(str(static / "index.html"))

    @app.get("/docs", include_in_schema=False)
    def api_docs() -> FileResponse:
        return FileResponse(str(static / "api.html"))

    app.mount("/static", StaticFiles(directory=str(static)), name="static")

    @app.get("/api/health", tags=["server"], summary="Whether the server is up")
    def health() -> dict[str, str]:
        return {"status": "ok"}


def _version() -> str:
    from dicelab import __version__

    return __version__


#: Seconds the server waits, once told to stop, for requests in flight to finish.
GRACE_SECONDS = 2


def run(
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    allow_hosts: Sequence[str] = (),
    max_memory: int | None = None,
    max_seconds: float | None = None,
) -> None:
    """Serve the page and the API until interrupted, to requests addressed to
    ``host`` (when it is a name), ``localhost``, an IP address or ``allow_hosts``.

    Each table is solved in a worker process, refused before it starts when its
    estimate passes ``max_memory`` bytes or ``max_seconds`` (defaults: 3/4 of the
    machine's memory, an hour), and stopped when it runs past either.

    SIGTERM or Ctrl-C stops the server within :data:`GRACE_SECONDS` and a little
    more, whatever is solving: requests still waiting are cancelled, and a solve
    still running is not awaited. Nothing is left half-written by that: a table
    file is renamed into place whole, and a save cut short leaves a temporary
    file that the next start deletes.
    """
    import os
    import signal
    import sys

    import uvicorn

    def stop(signum, frame):  # uvicorn passes a stop signal on once it has stopped
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    from dicelab.engine.runtime.cost import MEMORY_VARIABLE, SECONDS_VARIABLE, memory_budget
    from dicelab.web.worker import Limits

    if max_memory is not None:  # the sizes of solves, here and in the workers
        os.environ[MEMORY_VARIABLE] = str(int(max_memory))
    if max_seconds is not None:
        os.environ[SECONDS_VARIABLE] = str(int(max_seconds))
    store = Store(limits=Limits(memory=memory_budget(), seconds=max_seconds))
    dice_games = GameStore(store.limits)
    app = create_app(store, hosts=[*allow_hosts, host], dice_games=dice_games)
    config = uvicorn.Config(
        app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=GRACE_SECONDS
    )
    try:
        uvicorn.Server(config).run()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        store.close()  # a worker still solving is killed
        dice_games.close()
    if store.busy() or dice_games.busy():  # the interpreter would wait for a solve's thread
        from dicelab.engine.runtime import ahead

        ahead.stop_children()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)
