"""Routes of advice on one player's game: a position's options, a scorecard's outlook,
the distribution of the final score."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from dicelab.engine import registry
from dicelab.engine.advice.single import TIE, Advice, Position
from dicelab.engine.objectives.expected import OBJECTIVE as EXPECTED_OBJECTIVE
from dicelab.engine.objectives.spread import option_spreads
from dicelab.errors import UserError
from dicelab.rules.compiled import as_game
from dicelab.web import models as m
from dicelab.web.routes import (
    ClientGone,
    FastJSON,
    RulesOnly,
    awaitable,
    awaited_while_there,
    get_store,
    route,
    spec_of,
    stopping_ends,
    table_for,
    turn_start,
    with_table,
)
from dicelab.web.store import Store

router = APIRouter(tags=["advice"])

#: The key of the values of an advice in expected points.
EXPECTED_KEY = "expected_final_score"


def advice_json(advice: Advice) -> tuple[dict, str]:
    """An advice as the page reads it (every value under ``value``), and the key its
    values had in :meth:`~dicelab.engine.advice.single.Advice.to_dict`."""
    out = advice.to_dict()
    key = advice.measure
    for option, o in zip(out["options"], advice.options, strict=True):
        option["box_name"] = o.box_name
        option["best"] = o.cost <= TIE
        option["value"] = option.pop(key)
        option["sd"] = None
        option.setdefault("explain", None)
        option[EXPECTED_KEY] = option["value"] if key == EXPECTED_KEY else None
    out["value"] = out.pop(key)
    return out, key


@route(router, "POST", "/api/advice", m.AdviceOut, "Every option of a position, ranked")
async def post_advice(body: m.AdviceRequest, store: Store = Depends(get_store)) -> FastJSON:
    """Rank the keeps (rerolls left) or the boxes (after the last throw).

    Each option has its value for the objective under the best play from then
    on (the expected final score, the chance of reaching the target, or the
    chance to win) and its cost: what it gives up against the best one.
    The first advice of an objective other than `expected` solves its table.
    """
    entry = store.get(body.rules)
    rules = entry.rules
    spec = spec_of(body)
    position = Position(
        dice=tuple(body.dice),
        rerolls=body.rerolls_left,
        filled=dict(body.filled),
        upper_total=body.upper_total,
        extra_bonuses=body.extra_bonuses,
    )

    def rank(table) -> Advice:
        return table.advise(position, **spec.advise_args())

    advice = await with_table(store, rules, spec.key, rank)
    if body.explain:
        advice = await explained(store, rules, position, advice, spec)
    out, key = advice_json(advice)
    # every option's spread: not for served hands or saved throws; where its table is
    # not in memory yet, the advice comes at once without it (each "sd" null) and the
    # table is loaded or solved meanwhile, for the next question
    if key == EXPECTED_KEY and not (rules.has_served or rules.save_unused_throws):
        spread = store.loaded(rules, "spread") if not body.wait_spread else (
            await table_for(store, rules, "spread"))  # fmt: skip
        if spread is None:
            store.table_future(rules, "spread")  # in the background: no one waits
        else:
            sds = option_spreads(spread, position, advice.options)
            for option, sd in zip(out["options"], sds, strict=True):
                option["sd"] = sd
    out.update(
        rules=entry.id,
        objective=body.objective,
        target=body.target,
        theta=body.theta,
        expected_final_score=out["value"] if key == EXPECTED_KEY else None,
        turn=len(body.filled) + 1,
        turns=rules.n_categories,
        roll=rules.rolls - body.rerolls_left,
        rolls=rules.rolls,
    )
    return FastJSON(out)


async def explained(store: Store, rules, position: Position, advice: Advice, spec) -> Advice:
    """The advice with why for each option: from the split of the expected score by box
    (its own table, matched option by option), or in the objective's own words."""
    from dataclasses import replace

    from dicelab.engine.objectives.explain import OBJECTIVE_EXPLAIN, explain_advice

    if spec.objective.explain is not None:
        return spec.objective.load("explain")(advice, await table_for(store, rules, spec.key))
    split = explain_advice(await table_for(store, rules, OBJECTIVE_EXPLAIN), position)
    why = {o.key: w for o, w in zip(split.options, split.explanations, strict=True)}
    return replace(advice, explanations=tuple(why[o.key] for o in advice.options))


@route(
    router,
    "POST",
    "/api/outlook",
    m.OutlookOut,
    "The value of a scorecard before the turn's first throw",
)
async def post_outlook(body: m.OutlookRequest, store: Store = Depends(get_store)) -> dict:
    """What the rest of the game holds from the start of a turn, with the best play
    for the objective: the expected final score (and its spread), or the chance of
    reaching the target, or the chance to win."""
    entry = store.get(body.rules)
    rules = entry.rules
    spec = spec_of(body)
    turn_start(RulesOnly(as_game(rules)), body)  # the scorecard checked before any solve

    def look(table) -> tuple[tuple[int, int, int, int], float]:
        start = turn_start(table, body)
        return start, table.outlook(*start, **spec.advise_args())

    (mask, upper, flag, score), value = await with_table(store, rules, spec.key, look)
    plain = spec.key == registry.spec(EXPECTED_OBJECTIVE).key
    expected = value if plain else None
    sd = None
    if plain and not rules.save_unused_throws:
        sd = (await table_for(store, rules, "spread")).sd(mask, upper, flag)
    return {
        "rules": entry.id,
        "objective": body.objective,
        "target": body.target,
        "theta": body.theta,
        "score_so_far": score,
        "value": value,
        "expected_final_score": expected,
        "sd": sd,
    }


async def awaited_while_connected(store: Store, rules, start: tuple):
    """The distribution from ``start``, awaited while the client is still there: a
    page moves on to the next turn and gives up the last one's chart, and a
    distribution no one waits for any more is dropped before it starts."""
    waiting = awaitable(store.distribution_future(rules, start))
    gone = False
    try:
        return await stopping_ends(awaited_while_there(waiting))
    except ClientGone:
        gone = True
        raise UserError("the client left before the distribution was ready") from None
    finally:
        store.release(rules, start, gone)


@route(
    router,
    "POST",
    "/api/distribution",
    m.DistributionOut,
    "The distribution of the final score from the start of a turn",
)
async def post_distribution(
    body: m.DistributionRequest, store: Store = Depends(get_store)
) -> FastJSON:
    """The exact probability of every final score from a scorecard before the turn's
    first throw, with the expected-score optimum played from there (about a second
    for the first turns of Yahtzee, much less later)."""
    entry = store.get(body.rules)
    rules = entry.rules
    if rules.save_unused_throws:
        raise UserError(f"{rules.name}: no score distribution for saved throws")
    table = await table_for(store, rules)
    mask, upper, flag, score = turn_start(table, body)
    u, y = table.game.turn_state(upper, flag)
    dist = await awaited_while_connected(store, rules, (mask, y, u, score))
    lo, hi = dist.lowest, dist.highest
    return FastJSON(
        {
            "rules": entry.id,
            "score_so_far": score,
            "mean": dist.mean,
            "sd": dist.sd,
            "lowest": lo,
            "highest": hi,
            "pmf": dist.pmf[lo : hi + 1].tolist(),
            "percentiles": {str(q): v for q, v in dist.percentiles().items()},
        }
    )
