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
from dicelab.web.store import Entry, Store

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
    probabilities from `lowest` to `highest` for the chart and its `label` (its name,
    told apart where two names coincide), and the partings (naming rule sets by label)."""

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


def labels(entries: list[Entry]) -> list[str]:
    """Each rule set's name, told apart where names coincide (a file named like a
    built-in rule set, two uploads of one name): by the file it came from, else its id."""
    names = [e.rules.name for e in entries]
    out = []
    for e, name in zip(entries, names, strict=True):
        if names.count(name) == 1:
            out.append(name)
        else:
            out.append(f"{name} ({e.file or ('built-in' if e.source == 'builtin' else e.id)})")
    if len(set(out)) < len(out):  # one file uploaded twice, changed: the ids differ
        pairs = zip(out, entries, strict=True)
        out = [f"{n} ({e.id})" if out.count(n) > 1 else n for n, e in pairs]
    return out


def _labelled(partings: dict, entries: list[Entry], named: list[str]) -> dict:
    """The partings (each other rule set against the first, both ways, where they
    compare: :func:`~dicelab.play.compare.find_partings`) with the rule sets called
    by their labels."""
    from dicelab.play.variants import not_comparable

    reports = iter(partings["pairs"])
    pairs, left_out = [], []
    first = entries[0].rules
    for j in range(1, len(entries)):
        why = not_comparable(first, entries[j].rules)
        if why is not None:
            left_out.append(f"{named[0]} and {named[j]}: {why}")
            continue
        for a, b in ((0, j), (j, 0)):
            pairs.append(next(reports) | {"played": named[a], "other": named[b]})
    return {"pairs": pairs, "left_out": left_out}


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
    named = labels(entries)
    for figures, label in zip(found, named, strict=True):
        figures["label"] = label
    return FastJSON(
        {
            "rule_sets": found,
            "partings": _labelled(partings.to_dict(body.top), entries, named)
            if partings
            else {"pairs": [], "left_out": []},
        }
    )
