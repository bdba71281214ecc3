"""Routes of game records: a finished or saved game, every decision priced."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from dicelab.engine.objectives.expected import OBJECTIVE as EXPECTED_OBJECTIVE
from dicelab.engine.objectives.explain import OBJECTIVE_EXPLAIN
from dicelab.errors import UserError
from dicelab.web import models as m
from dicelab.web.routes import get_store, route, spec_of, table_for
from dicelab.web.store import Store

router = APIRouter(tags=["advice"])


@route(router, "POST", "/api/review", m.ReviewOut, "Every decision of a game record, priced")
async def post_review(body: m.ReviewRequest, store: Store = Depends(get_store)) -> dict:
    """Replay a game record and give each decision's cost against the best option.

    The record's rules fingerprint must match the rule set named by `rules`.
    """
    from dicelab.play.game import review, review_chance

    name = body.rules if body.rules is not None else body.record.get("rules")
    if not isinstance(name, str) or not name:
        raise UserError("review: name the rules played (`rules`, or the record's `rules`)")
    entry = store.get(name[:80])
    table = await table_for(store, entry.rules)
    spec = spec_of(body)
    if spec.key == EXPECTED_OBJECTIVE:  # priced in expected points
        split = None
        if body.explain and not entry.rules.save_unused_throws:
            split = await table_for(store, entry.rules, OBJECTIVE_EXPLAIN)
        done = await run_in_threadpool(review, table, body.record, split)
    else:  # priced in what the game was played for, from that objective's table
        chances = await table_for(store, entry.rules, spec.key)
        args = spec.advise_args()
        unit = spec.objective.unit  # chances, or points (a sure score)
        done = await run_in_threadpool(review_chance, table, chances, body.record, args, unit)
    return {**done.to_dict(), "rules": entry.id}
