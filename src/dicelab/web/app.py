"""The FastAPI application: the play-along page and its JSON API.

Every mistake in a request is answered with a 4xx status and ``{"detail": "..."}``
naming what is wrong: :class:`~dicelab.errors.UserError` from the library becomes
400 (404 for an unknown rule set), a body that does not fit the request model
becomes 422, a body over the size limit 413. A 500 means a bug in dicelab.
"""

from __future__ import annotations

import asyncio
import json
from importlib import resources
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from dicelab.errors import UserError
from dicelab.rules.model import JOKER_TEXT
from dicelab.solve.advice import TIE, Position, advise, advise_target, advise_win, scorecard_state
from dicelab.solve.spread import option_spreads
from dicelab.web import models as m
from dicelab.web.store import Entry, NotFound, Store

#: The key of an advice's values, by objective (see :meth:`dicelab.solve.advice.Advice.to_dict`).
VALUE_KEYS = ("expected_final_score", "probability", "win_probability")
#: Largest request body accepted, in bytes.
MAX_BODY = 256 * 1024

API_DESCRIPTION = """
Advice for dice games of the Yahtzee family, from exact expected-score tables.

* `GET /api/rules` lists the rule sets; `GET /api/rules/{id}` gives one's scorecard.
* `POST /api/rules` uploads a rules file (TOML text) and returns its id.
* `GET /api/rules/{id}/expected` solves (or loads) the table and gives the optimal
  expected score of a game.
* `POST /api/advice` ranks every option of a position (the keeps before a reroll,
  the boxes after the last throw) by expected final score, with its cost against
  the best one; or, with `objective`, by the chance of reaching a `target` score
  or of beating a player who plays for points.
* `POST /api/outlook` gives the value of a scorecard before the turn's first throw.
* `POST /api/review` prices every decision of a game record (the format written by
  `dicelab play` and by the page) against optimal play.

Errors are 4xx with `{"detail": "what is wrong"}`.
"""

ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": m.ErrorOut, "description": "The request makes no sense for the rules."},
    404: {"model": m.ErrorOut, "description": "Unknown rule set."},
    422: {"model": m.ErrorOut, "description": "The body does not fit the request model."},
}


class FastJSON(JSONResponse):
    """JSON without a second validation pass; NumPy scalars written as numbers."""

    def render(self, content: Any) -> bytes:
        return json.dumps(
            content, allow_nan=False, separators=(",", ":"), default=_plain
        ).encode("utf-8")


def _plain(value: Any) -> Any:
    if hasattr(value, "item"):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


class BodyLimit:
    """ASGI middleware: refuse request bodies over ``limit`` bytes with 413."""

    def __init__(self, app, limit: int = MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await self._refuse(scope, receive, send)
                return
        seen = 0

        async def counted_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise StarletteHTTPException(413, self._message())
            return message

        await self.app(scope, counted_receive, send)

    def _message(self) -> str:
        return f"request body over {self.limit} bytes"

    async def _refuse(self, scope, receive, send) -> None:
        await JSONResponse({"detail": self._message()}, status_code=413)(scope, receive, send)


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


def _summary(entry: Entry) -> dict:
    r = entry.rules
    return {
        "id": entry.id,
        "source": entry.source,
        "name": r.name,
        "title": r.title or r.name,
        "dice": r.dice,
        "faces": r.faces,
        "rolls": r.rolls,
        "boxes": r.n_categories,
        "fingerprint": r.fingerprint(),
    }


def _info(entry: Entry) -> dict:
    r = entry.rules
    extra = None
    if r.extra_yahtzee is not None:
        box = r.categories[r.yahtzee_index].label
        extra = {
            "box": r.extra_yahtzee.category,
            "points": r.extra_bonus,
            "joker": r.joker,
            "text": JOKER_TEXT[r.joker].format(box=box),
        }
    bonus = None
    if r.upper_bonus is not None and r.bonus_points > 0:
        bonus = {"threshold": r.upper_bonus.threshold, "points": r.upper_bonus.points}
    return {
        **_summary(entry),
        "description": " ".join(r.description.split()),
        "upper_bonus": bonus,
        "extra_bonus": extra,
        "served": r.has_served,
        "categories": [
            {"id": c.id, "name": c.label, "scores": c.scoring_text(), "upper": c.counts_for_bonus}
            for c in r.categories
        ],
    }


def create_app(store: Store | None = None) -> FastAPI:
    """Build the application; ``store`` lets tests share or inspect the tables."""
    store = store or Store()
    app = FastAPI(
        title="dicelab",
        description=API_DESCRIPTION,
        version=_version(),
        docs_url=None,  # our own viewer below: it loads nothing from other sites
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.store = store
    app.add_middleware(BodyLimit)

    @app.exception_handler(NotFound)
    async def _not_found(request: Request, exc: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(UserError)
    async def _user_error(request: Request, exc: UserError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(
            {"detail": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers
        )

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": f"internal error: {type(exc).__name__}"}, status_code=500)

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

    @app.get(
        "/api/rules",
        response_model=m.RulesList,
        tags=["rules"],
        summary="The built-in and uploaded rule sets",
    )
    def list_rules() -> dict:
        entries = store.builtin() + store.uploads()
        return {"rules": [_summary(e) for e in entries]}

    @app.post(
        "/api/rules",
        response_model=m.RulesInfo,
        status_code=201,
        tags=["rules"],
        responses=ERRORS,
        summary="Upload a rules file",
    )
    def upload_rules(body: m.UploadRequest) -> dict:
        """Check a rules file and keep it; use the returned `id` as `rules` in other calls.

        The same rules uploaded twice get the same id. Rules too large to solve
        within a few seconds are refused unless their table is already cached.
        """
        return _info(store.upload(body.toml))

    @app.get(
        "/api/rules/{rules_id}",
        response_model=m.RulesInfo,
        tags=["rules"],
        responses=ERRORS,
        summary="The scorecard of a rule set",
    )
    def get_rules(rules_id: str) -> dict:
        return _info(store.get(rules_id))

    @app.get(
        "/api/rules/{rules_id}/progress",
        response_model=m.TableProgress,
        response_model_exclude_none=True,
        tags=["rules"],
        responses=ERRORS,
        summary="How far the solve of a rule set has come",
    )
    def get_progress(rules_id: str, objective: m.TableKind = "expected") -> dict:
        """Answers at once, also while the rule set is being solved: the page polls it
        to show a progress bar, and it gives the time a first solve takes. `objective`
        names the table: `expected` (the default), `target`, `win` or `duel`."""
        entry = store.get(rules_id)
        return {"id": entry.id, **store.progress(entry.rules, objective)}

    @app.get(
        "/api/rules/{rules_id}/expected",
        response_model=m.ExpectedInfo,
        tags=["rules"],
        responses=ERRORS,
        summary="Solve a rule set: its optimal expected score",
    )
    async def get_expected(rules_id: str) -> dict:
        """Solves the rule set (or loads its table); later advice on it is then fast."""
        entry = store.get(rules_id)
        table = await asyncio.wrap_future(store.table_future(entry.rules))
        return {
            "id": entry.id,
            "expected_score": table.expected_score,
            "cached": bool(table.meta.get("cached")),
        }

    async def table_for(rules, objective: str = "expected"):
        # a table in memory answers on the event loop; one still to be loaded or
        # solved is awaited without holding a thread
        found = store.loaded(rules, objective)
        if found is not None:
            return found
        try:
            return await asyncio.wrap_future(store.table_future(rules, objective))
        except UserError as exc:  # a solve too large: the command-line way out means nothing here
            text = str(exc)
            if "--allow-large" not in text:
                raise
            text = text.split("; add --allow-large")[0]
            if objective == "duel":
                text += "; duels are played on smaller rule sets, such as yazy"
            raise UserError(text) from None

    def turn_start(table, body) -> tuple[int, int, int, int]:
        """``(mask, upper, flag, score)`` of the scorecard of a request, checked."""
        position = Position(
            dice=(), rerolls=0, filled=dict(body.filled),
            upper_total=body.upper_total, extra_bonuses=body.extra_bonuses,
        )  # fmt: skip
        return scorecard_state(table, position, allow_full=True)


    def check_target(rules, body) -> None:
        if body.objective == "target" and body.target is None:
            raise UserError("objective target: give the final score to reach (`target`)")
        if body.objective != "target" and body.target is not None:
            raise UserError(f"target: only with objective target (got {body.objective})")

    @app.post(
        "/api/advice",
        response_model=m.AdviceOut,
        tags=["advice"],
        responses=ERRORS,
        summary="Every option of a position, ranked",
    )
    async def post_advice(body: m.AdviceRequest) -> FastJSON:
        """Rank the keeps (rerolls left) or the boxes (after the last throw).

        Each option has its value for the objective under the best play from then
        on (the expected final score, the chance of reaching the target, or the
        chance to win) and its cost: what it gives up against the best one.
        The first advice of an objective other than `expected` solves its table.
        """
        entry = store.get(body.rules)
        rules = entry.rules
        check_target(rules, body)
        table = await table_for(rules, body.objective)
        position = Position(
            dice=tuple(body.dice),
            rerolls=body.rerolls_left,
            filled=dict(body.filled),
            upper_total=body.upper_total,
            extra_bonuses=body.extra_bonuses,
        )
        if body.objective == "target":
            advice = advise_target(table, position, body.target)
        elif body.objective == "win":
            advice = advise_win(table, position)
        else:
            advice = advise(table, position)
        out = advice.to_dict()
        key = next(k for k in VALUE_KEYS if k in out)
        for option, o in zip(out["options"], advice.options, strict=True):
            option["box_name"] = o.box_name
            option["best"] = o.cost <= TIE
            option["value"] = option.pop(key)
            option["sd"] = None
            option["expected_final_score"] = option["value"] if key == VALUE_KEYS[0] else None
        out["value"] = out.pop(key)
        # every option's spread: not for served hands or saved throws
        if body.objective == "expected" and not (rules.has_served or rules.save_unused_throws):
            spread = await table_for(rules, "spread")
            sds = option_spreads(spread, position, advice.options)
            for option, sd in zip(out["options"], sds, strict=True):
                option["sd"] = sd
        out.update(
            rules=entry.id,
            objective=body.objective,
            target=body.target,
            expected_final_score=out["value"] if key == VALUE_KEYS[0] else None,
            turn=len(body.filled) + 1,
            turns=rules.n_categories,
            roll=rules.rolls - body.rerolls_left,
            rolls=rules.rolls,
        )
        return FastJSON(out)

    @app.post(
        "/api/outlook",
        response_model=m.OutlookOut,
        tags=["advice"],
        responses=ERRORS,
        summary="The value of a scorecard before the turn's first throw",
    )
    async def post_outlook(body: m.OutlookRequest) -> dict:
        """What the rest of the game holds from the start of a turn, with the best play
        for the objective: the expected final score (and its spread), or the chance of
        reaching the target, or the chance to win."""
        entry = store.get(body.rules)
        rules = entry.rules
        check_target(rules, body)
        table = await table_for(rules, body.objective)
        mask, upper, flag, score = turn_start(table, body)
        if body.objective == "target":
            value = table.value(mask, upper, flag, max(body.target - score, 0))
        elif body.objective == "win":
            value = table.value(mask, upper, flag, score)
        else:
            value = score + table.value(mask, upper, flag)
        expected = value if body.objective == "expected" else None
        sd = None
        if body.objective == "expected" and not rules.save_unused_throws:
            sd = (await table_for(rules, "spread")).sd(mask, upper, flag)
        return {
            "rules": entry.id, "objective": body.objective, "target": body.target,
            "score_so_far": score, "value": value, "expected_final_score": expected, "sd": sd,
        }  # fmt: skip

    @app.post(
        "/api/distribution",
        response_model=m.DistributionOut,
        tags=["advice"],
        responses=ERRORS,
        summary="The distribution of the final score from the start of a turn",
    )
    async def post_distribution(body: m.DistributionRequest) -> FastJSON:
        """The exact probability of every final score from a scorecard before the turn's
        first throw, with the expected-score optimum played from there (about a second
        for the first turns of Yahtzee, much less later)."""
        entry = store.get(body.rules)
        rules = entry.rules
        if rules.save_unused_throws:
            raise UserError(f"{rules.name}: no score distribution for saved throws")
        table = await table_for(rules)
        mask, upper, flag, score = turn_start(table, body)
        g = table.game
        u, y = g.turn_state(upper, flag)
        dist = await asyncio.wrap_future(store.distribution_future(rules, (mask, y, u, score)))
        lo, hi = dist.lowest, dist.highest
        return FastJSON({
            "rules": entry.id, "score_so_far": score, "mean": dist.mean, "sd": dist.sd,
            "lowest": lo, "highest": hi, "pmf": dist.pmf[lo : hi + 1].tolist(),
            "percentiles": {str(q): v for q, v in dist.percentiles().items()},
        })  # fmt: skip

    # -- the two-player game ----------------------------------------------------------
    def duel_sheets(table, body):
        """Player states and scores of both sheets (A moves when both have filled as
        many boxes), each checked."""
        from dicelab.solve.duel_advice import Sheet, sheet_state

        mine = sheet_state(table, Sheet(dict(body.mine.filled), bonuses=body.mine.extra_bonuses),
                       "my")  # fmt: skip
        theirs = sheet_state(table, Sheet(dict(body.theirs.filled),
                                      bonuses=body.theirs.extra_bonuses), "their")  # fmt: skip
        return mine, theirs

    @app.post(
        "/api/duel/advice",
        response_model=m.DuelAdviceOut,
        tags=["duel"],
        responses=ERRORS,
        summary="Every option of the player to move in the two-player game, by win chance",
    )
    async def post_duel_advice(body: m.DuelAdviceRequest) -> FastJSON:
        """Both players play to win (a tie counts half). The first call on a rule set
        solves its two-player game, when this server can hold it."""
        from dicelab.solve.duel_advice import Sheet, duel_advise

        entry = store.get(body.rules)
        table = await table_for(entry.rules, "duel")
        expected = await table_for(entry.rules)
        advice = duel_advise(
            table, expected, tuple(body.dice), body.rerolls_left,
            Sheet(dict(body.mine.filled), bonuses=body.mine.extra_bonuses),
            Sheet(dict(body.theirs.filled), bonuses=body.theirs.extra_bonuses),
        )  # fmt: skip
        options = []
        for o in advice.options:
            options.append({
                "kind": o.kind, "label": o.label, "keep": list(o.keep) if o.keep else
                ([] if o.kind == "keep" else None), "box": o.box, "box_name": o.box_name,
                "points": o.points, "extra_bonus": o.extra, "stops": o.stops, "value": o.value,
                "expected_final_score": None, "sd": None, "cost": o.cost, "best": o.cost <= TIE,
            })  # fmt: skip
        return FastJSON({
            "rules": entry.id, "objective": "duel", "seat": advice.seat, "dice": list(body.dice),
            "rerolls_left": body.rerolls_left, "my_score": advice.my_score,
            "their_score": advice.their_score, "target": None, "value": advice.options[0].value,
            "options": options,
        })  # fmt: skip

    @app.post(
        "/api/duel/outlook",
        response_model=m.DuelOutlookOut,
        tags=["duel"],
        responses=ERRORS,
        summary="Whose turn it is in the two-player game, and the win chance",
    )
    async def post_duel_outlook(body: m.DuelOutlookRequest) -> dict:
        """Between turns: who moves next and the chance of `mine` to win, both playing
        to win; at the end, 1, 1/2 or 0 by the final scores."""
        entry = store.get(body.rules)
        table = await table_for(entry.rules, "duel")
        (me, mine), (them, theirs) = duel_sheets(table, body)
        s, g = table.space, table.game
        k_me, k_them = int(s.p_count[me]), int(s.p_count[them])
        bonus = {i: int(g.rules.bonus_points) if g.threshold > 0 and s.p_u[i] >= g.threshold
                 else 0 for i in (me, them)}  # fmt: skip
        k_a, k_b = (k_me, k_them) if body.my_seat == "A" else (k_them, k_me)
        if k_a == k_b == g.n_categories:
            final_me, final_them = mine + bonus[me], theirs + bonus[them]
            chance = 1.0 if final_me > final_them else 0.5 if final_me == final_them else 0.0
            to_move = None
        elif k_a in (k_b, k_b + 1):
            mover_is_me = (k_a == k_b) == (body.my_seat == "A")
            if mover_is_me:
                to_move, chance = "mine", table.mover_value(me, them, mine - theirs)
            else:
                to_move, chance = "theirs", 1.0 - table.mover_value(them, me, theirs - mine)
        else:
            raise UserError(
                f"the sheets do not alternate: A has {k_a} boxes filled and B {k_b}; A moves "
                "when both have as many, B when A has one more"
            )
        return {
            "rules": entry.id, "to_move": to_move, "my_score": mine + bonus[me],
            "their_score": theirs + bonus[them], "win_chance": chance,
        }  # fmt: skip

    @app.post(
        "/api/duel/review",
        response_model=m.DuelReviewOut,
        tags=["duel"],
        responses=ERRORS,
        summary="The human player's decisions of a duel record, priced in win chance",
    )
    async def post_duel_review(body: m.DuelReviewRequest) -> dict:
        from dicelab.play.duel import review_duel

        entry = store.get(body.rules)
        table = await table_for(entry.rules, "duel")
        expected = await table_for(entry.rules)
        decisions = await run_in_threadpool(review_duel, table, expected, body.record)
        out = [d.to_dict() for d in decisions]
        return {
            "rules": entry.id, "decisions": out, "total_cost": sum(d.cost for d in decisions),
            "mistakes": sum(d.mistake for d in decisions),
        }  # fmt: skip

    @app.post(
        "/api/review",
        response_model=m.ReviewOut,
        tags=["advice"],
        responses=ERRORS,
        summary="Every decision of a game record, priced",
    )
    async def post_review(body: m.ReviewRequest) -> dict:
        """Replay a game record and give each decision's cost against the best option.

        The record's rules fingerprint must match the rule set named by `rules`.
        """
        from dicelab.play.game import review

        name = body.rules if body.rules is not None else body.record.get("rules")
        if not isinstance(name, str) or not name:
            raise UserError("review: name the rules played (`rules`, or the record's `rules`)")
        entry = store.get(name[:80])
        table = await asyncio.wrap_future(store.table_future(entry.rules))
        done = await run_in_threadpool(review, table, body.record)
        return {**done.to_dict(), "rules": entry.id}

    return app


def _version() -> str:
    from dicelab import __version__

    return __version__


def run(host: str = "127.0.0.1", port: int = 8000, log_level: str = "info") -> None:
    """Serve the page and the API until interrupted."""
    import uvicorn

    uvicorn.run(create_app(), host=host, port=port, log_level=log_level)
