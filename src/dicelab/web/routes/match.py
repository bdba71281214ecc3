"""Routes of a table of two to four: my options by the chance to finish first."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from dicelab.engine.advice.match import (
    MatchTurn,
    check_table,
    duel_fits,
    final_pmf,
    table_utility,
)
from dicelab.engine.advice.single import Position
from dicelab.web import models as m
from dicelab.web.routes import FastJSON, get_store, route, table_for, with_table
from dicelab.web.routes.duel import option_json, sheet_of
from dicelab.web.store import Store

router = APIRouter(tags=["match"])


@route(
    router,
    "POST",
    "/api/match/advice",
    m.MatchAdviceOut,
    "Every option of a position at a table of two to four, by the chance to finish first",
)
async def post_match_advice(body: m.MatchAdviceRequest, store: Store = Depends(get_store)):
    """The other players are taken to play for points; a tie for first is shared. The
    first call on a rule set works out the distribution of the points to come from
    every state (Yahtzee: about half a minute); with one opponent and `auto`, where
    this server can solve the two-player game, its first call solves that."""
    entry = store.get(body.rules)
    expected = await table_for(store, entry.rules)
    game = expected.game
    position = Position(
        dice=tuple(body.dice),
        rerolls=body.rerolls_left,
        filled=dict(body.mine.filled),
        extra_bonuses=body.mine.extra_bonuses,
    )
    theirs = [sheet_of(s) for s in body.theirs]
    check_table(expected, position, theirs)  # before any solving
    duel = None
    if body.method == "auto" and len(theirs) == 1 and duel_fits(game):
        duel = await table_for(store, entry.rules, "duel")

    def rank(remaining):
        pmfs = [final_pmf(remaining, s, f"opponent {n}'s") for n, s in enumerate(theirs, 1)]
        kind, table = ("duel", duel) if duel is not None else ("lookahead", remaining)
        turn = MatchTurn(game, expected, theirs, pmfs, kind, table, 0.0, table_utility(pmfs))
        return turn, turn.advise(position)

    turn, advice = await with_table(
        store, entry.rules, "match", lambda t: run_in_threadpool(rank, t)
    )
    return FastJSON(
        {
            "rules": entry.id,
            "objective": "match",
            "players": len(theirs) + 1,
            "method": turn.method,
            "dice": list(body.dice),
            "rerolls_left": body.rerolls_left,
            "my_score": advice.score_so_far,
            "target": None,
            "value": advice.options[0].value,
            "options": [option_json(o) for o in advice.options],
            "opponents": [
                {
                    "expected_final_score": float(p @ range(p.size)),
                    "best_final_score": int(p.nonzero()[0][-1]),
                }  # fmt: skip
                for p in turn.opponents
            ],
        }
    )
