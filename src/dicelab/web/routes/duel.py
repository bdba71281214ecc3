"""Routes of the two-player game: the mover's options by win chance, whose turn it is
and the chance to win, a duel record reviewed."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from dicelab.engine.advice.duel import Sheet, duel_advise, sheet_state
from dicelab.engine.advice.single import TIE, Option
from dicelab.engine.objectives.duel_lead import OBJECTIVE_LEAD
from dicelab.engine.objectives.explain import duel_texts
from dicelab.errors import UserError
from dicelab.web import models as m
from dicelab.web.routes import FastJSON, get_store, route, table_for, with_table
from dicelab.web.store import Store

router = APIRouter(tags=["duel"])


def sheet_of(body: m.SheetIn) -> Sheet:
    """A sheet of a request as the duel's advice reads it."""
    return Sheet(dict(body.filled), bonuses=body.extra_bonuses)


def option_json(o: Option, why: str | None = None, lead: float | None = None) -> dict:
    """One option of a duel position as the page reads it (``why``: its sentence,
    ``lead``: its expected final lead)."""
    keep = list(o.keep) if o.keep else ([] if o.kind == "keep" else None)
    return {
        "kind": o.kind,
        "label": o.label,
        "keep": keep,
        "box": o.box,
        "box_name": o.box_name,
        "points": o.points,
        "extra_bonus": o.extra,
        "stops": o.stops,
        "value": o.value,
        "expected_final_score": None,
        "sd": None,
        "cost": o.cost,
        "best": o.cost <= TIE,
        "explain": {"probability": o.value, "text": why, "expected_lead": lead} if why else None,
    }


@route(
    router,
    "POST",
    "/api/duel/advice",
    m.DuelAdviceOut,
    "Every option of the player to move in the two-player game, by win chance",
)
async def post_duel_advice(
    body: m.DuelAdviceRequest, store: Store = Depends(get_store)
) -> FastJSON:
    """Both players play to win (a tie counts half). The first call on a rule set
    solves its two-player game, when this server can hold it; the first with
    `explain`, its table of expected leads."""
    entry = store.get(body.rules)
    await table_for(store, entry.rules, "duel")  # first: a duel too large is refused at once
    leads = await table_for(store, entry.rules, OBJECTIVE_LEAD) if body.explain else None
    expected = await table_for(store, entry.rules)
    mine, theirs = sheet_of(body.mine), sheet_of(body.theirs)
    dice, rerolls = tuple(body.dice), body.rerolls_left

    def rank(table):
        return duel_advise(table, expected, dice, rerolls, mine, theirs, leads=leads)

    advice = await with_table(store, entry.rules, "duel", rank)
    return FastJSON(
        {
            "rules": entry.id,
            "objective": "duel",
            "seat": advice.seat,
            "dice": list(body.dice),
            "rerolls_left": body.rerolls_left,
            "my_score": advice.my_score,
            "their_score": advice.their_score,
            "target": None,
            "value": advice.options[0].value,
            "options": [
                option_json(o, why, advice.leads[o.key] if advice.leads else None)
                for o, why in zip(advice.options, duel_texts(advice), strict=True)
            ],
        }
    )


def outlook(table, body: m.DuelOutlookRequest) -> tuple[str | None, float, int, int]:
    """``(to_move, chance, my_score, their_score)`` of two sheets between turns, the
    scores with their upper bonuses."""
    me, mine = sheet_state(table, sheet_of(body.mine), "my")
    them, theirs = sheet_state(table, sheet_of(body.theirs), "their")
    s, g = table.space, table.game
    k_me, k_them = int(s.p_count[me]), int(s.p_count[them])
    bonus = {
        i: int(g.rules.bonus_points) if g.threshold > 0 and s.p_u[i] >= g.threshold else 0
        for i in (me, them)
    }
    k_a, k_b = (k_me, k_them) if body.my_seat == "A" else (k_them, k_me)
    if k_a == k_b == g.n_categories:
        final_me, final_them = mine + bonus[me], theirs + bonus[them]
        chance = 1.0 if final_me > final_them else 0.5 if final_me == final_them else 0.0
        to_move = None
    elif k_a in (k_b, k_b + 1):
        if (k_a == k_b) == (body.my_seat == "A"):
            to_move, chance = "mine", table.mover_value(me, them, mine - theirs)
        else:
            to_move, chance = "theirs", 1.0 - table.mover_value(them, me, theirs - mine)
    else:
        raise UserError(
            f"the sheets do not alternate: A has {k_a} boxes filled and B {k_b}; A moves "
            "when both have as many, B when A has one more"
        )
    return to_move, chance, mine + bonus[me], theirs + bonus[them]


@route(
    router,
    "POST",
    "/api/duel/outlook",
    m.DuelOutlookOut,
    "Whose turn it is in the two-player game, and the win chance",
)
async def post_duel_outlook(body: m.DuelOutlookRequest, store: Store = Depends(get_store)) -> dict:
    """Between turns: who moves next and the chance of `mine` to win, both playing
    to win; at the end, 1, 1/2 or 0 by the final scores."""
    entry = store.get(body.rules)
    to_move, chance, mine, theirs = await with_table(
        store, entry.rules, "duel", lambda table: outlook(table, body)
    )
    return {
        "rules": entry.id,
        "to_move": to_move,
        "my_score": mine,
        "their_score": theirs,
        "win_chance": chance,
    }


@route(
    router,
    "POST",
    "/api/duel/review",
    m.DuelReviewOut,
    "The human player's decisions of a duel record, priced in win chance",
)
async def post_duel_review(body: m.DuelReviewRequest, store: Store = Depends(get_store)) -> dict:
    from dicelab.play.duel import review_duel

    entry = store.get(body.rules)
    await table_for(store, entry.rules, "duel")  # first: a duel too large is refused at once
    expected = await table_for(store, entry.rules)
    decisions = await with_table(
        store,
        entry.rules,
        "duel",
        lambda table: run_in_threadpool(review_duel, table, expected, body.record),
    )
    return {
        "rules": entry.id,
        "decisions": [d.to_dict() for d in decisions],
        "total_cost": sum(d.cost for d in decisions),
        "mistakes": sum(d.mistake for d in decisions),
    }
