"""Route of the *Compare* view: rule sets side by side, as ``dicelab compare`` gives them.

The expected-score tables come from the store (solved in a worker process the first
time, as for play); the rest is :mod:`dicelab.play.compare`'s, worked out in a
thread: the optimum's distribution (cached beside its table once worked out), the
simple strategy and the skill gap, the first player's edge where the two-player
table is cached already (the page never starts a duel's solve of minutes for a
comparison: it says so instead), the partings, and with ``boxes`` the balance sheet
(the split of the score by box, a table of about 40 solves, solved once).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from starlette.concurrency import run_in_threadpool

from dicelab.errors import UserError
from dicelab.web.models import RulesName
from dicelab.web.routes import FastJSON, get_store, route, table_for
from dicelab.web.store import Store

router = APIRouter(tags=["compare"])


class CompareRequest(BaseModel):
    """Two to four rule sets, and how many games to play for the partings."""

    model_config = ConfigDict(extra="forbid")

    rules: list[RulesName] = Field(
        ..., min_length=2, max_length=4, description="Built-in names or upload ids."
    )
    games: Annotated[StrictInt, Field(ge=0, le=2000)] = Field(
        200, description="Games played by each optimum to find where the best moves part."
    )
    top: Annotated[StrictInt, Field(ge=1, le=50)] = Field(
        8, description="Positions listed per pair and direction."
    )
    boxes: StrictBool = Field(False, description="Add the balance sheet (solved once).")


class CompareOut(BaseModel):
    """Each rule set's figures (as ``dicelab compare --json``), with its final-score
    probabilities from `lowest` to `highest` for the chart, and the partings."""

    rule_sets: list[dict[str, Any]]
    partings: dict[str, Any]


def _figures(entry_id: str, rules, table, explain, duel_chance: bool = True) -> dict:
    """One rule set's figures, in a thread: the distribution and the simple strategy
    from the cache or worked out, the duel's edge from the cache only."""
    from dicelab.engine.objectives.distribution import score_distribution
    from dicelab.play.compare import Compared, duel_edge, sheet_of
    from dicelab.play.simple import simple_strategy

    dist = score_distribution(rules)  # the optimum's, kept in the cache once worked out
    simple = simple_strategy(rules)
    duel = duel_edge(rules, solve=False) if duel_chance else None
    sheet = sheet_of(rules, explain.parts(0, 0, 0)) if explain is not None else None
    found = Compared(entry_id, rules, table.value(), dist, sheet, simple, duel).to_dict()
    lo, hi = dist.lowest, dist.highest
    boxes = [{"id": c.id, "label": c.label} for c in rules.categories]
    return found | {"id": entry_id, "boxes": boxes, "lowest": lo, "highest": hi,
                    "pmf": dist.pmf[lo : hi + 1].tolist()}  # fmt: skip


@route(router, "POST", "/api/compare", CompareOut, "Rule sets side by side")
async def post_compare(body: CompareRequest, store: Store = Depends(get_store)) -> FastJSON:
    """For each rule set: the optimal expected score, the spread of the final score, the
    bonus chances, the skill gap over the simple strategy and, where cached, the
    first player's edge in the two-player game; then the positions where the best
    moves part between rule sets of one scorecard. The first call on a rule set
    solves its table and works out its distribution (Yahtzee: about ten seconds)."""
    from dicelab.engine.objectives.explain import OBJECTIVE_EXPLAIN
    from dicelab.play.compare import find_partings
    from dicelab.rules.compiled import compile_rules, refuse_variants

    entries = [store.get(name) for name in body.rules]
    if len({e.id for e in entries}) < len(entries):
        raise UserError("compare: each rule set once")
    for e in entries:  # before any solve: a rule the distribution does not handle
        refuse_variants(compile_rules(e.rules), "the comparison", served=False)
    tables = [await table_for(store, e.rules) for e in entries]
    found = []
    for e, table in zip(entries, tables, strict=True):
        explain = await table_for(store, e.rules, OBJECTIVE_EXPLAIN) if body.boxes else None
        found.append(await run_in_threadpool(_figures, e.id, e.rules, table, explain))
    partings = await run_in_threadpool(find_partings, tables, body.games) if body.games else None
    return FastJSON(
        {
            "rule_sets": found,
            "partings": partings.to_dict(body.top) if partings else {"pairs": [], "left_out": []},
        }
    )
