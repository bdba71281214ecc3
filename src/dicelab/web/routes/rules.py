"""Routes of the rule sets: list, upload, one's scorecard, its solve and its progress."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from dicelab.engine import registry
from dicelab.rules.model import joker_text
from dicelab.web import models as m
from dicelab.web.routes import get_store, route
from dicelab.web.store import Entry, Store

router = APIRouter(tags=["rules"])


def summary(entry: Entry) -> dict:
    """A rule set in a line of the list."""
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
        "file": entry.file,
    }


def info(entry: Entry) -> dict:
    """A rule set's scorecard: its boxes, bonuses and joker rule."""
    r = entry.rules
    extra = None
    if r.extra_yahtzee is not None:
        extra = {
            "box": r.extra_yahtzee.category,
            "points": r.extra_bonus,
            "joker": r.joker,
            "joker_always": r.joker_always,
            "text": joker_text(r),
        }
    bonus = None
    if r.upper_bonus is not None and r.bonus_points > 0:
        bonus = {"threshold": r.upper_bonus.threshold, "points": r.upper_bonus.points}
    return {
        **summary(entry),
        "description": " ".join(r.description.split()),
        "upper_bonus": bonus,
        "extra_bonus": extra,
        "served": r.has_served,
        "forced_order": r.forced_order,
        "categories": [
            {"id": c.id, "name": c.label, "scores": c.scoring_text(), "upper": c.counts_for_bonus}
            for c in r.categories
        ],
    }


@router.get("/api/rules", response_model=m.RulesList, summary="The built-in and uploaded rule sets")
def list_rules(store: Store = Depends(get_store)) -> dict:
    entries = store.builtin() + store.uploads()
    return {"rules": [summary(e) for e in entries]}


@route(router, "POST", "/api/rules", m.RulesInfo, "Upload a rules file", status_code=201)
def upload_rules(body: m.UploadRequest, store: Store = Depends(get_store)) -> dict:
    """Check a rules file and keep it; use the returned `id` as `rules` in other calls.

    A file that extends another and gives no `name` is named after `filename`. The
    same rules uploaded twice get the same id. Rules too large to solve
    within a few seconds are refused unless their table is already cached.
    """
    return info(store.upload(body.toml, body.filename))


@route(router, "GET", "/api/rules/{rules_id}", m.RulesInfo, "The scorecard of a rule set")
def get_rules(rules_id: str, store: Store = Depends(get_store)) -> dict:
    return info(store.get(rules_id))


@route(
    router,
    "GET",
    "/api/rules/{rules_id}/progress",
    m.TableProgress,
    "How far the solve of a rule set has come",
    response_model_exclude_none=True,
)
def get_progress(
    rules_id: str,
    query: Annotated[m.ProgressQuery, Query()],
    store: Store = Depends(get_store),
) -> dict:
    """Answers at once, also while the rule set is being solved: the page polls it
    to show a progress bar, and it gives the time a first solve takes. `objective`
    names the table: `expected` (the default), `target`, `win`, `risk`, `duel`,
    `match` (the points to come from every state, for a table of two to four),
    `explain` (the split of the expected score by box, for the why of each option) or
    `duel-lead`; with `target`, the table that answers that score (without, the table
    of every target); with `theta`, the risk table of that attitude."""
    entry = store.get(rules_id)
    params = {p.name: getattr(query, p.name) for p in registry.key_params()}
    spec = registry.spec(query.objective, **params)
    return {"id": entry.id, **store.progress(entry.rules, spec.key)}


@route(router, "GET", "/api/objectives", list[m.ObjectiveInfo], "What a player may play for")
def get_objectives() -> list[dict]:
    """The objectives of the *Play for* menu, in order, with their parameters (name,
    kind, range, default) and how their values read (`points` or `chance`)."""
    return [o.to_dict() for o in registry.menu()]


@route(
    router,
    "GET",
    "/api/rules/{rules_id}/expected",
    m.ExpectedInfo,
    "Solve a rule set: its optimal expected score",
)
async def get_expected(rules_id: str, store: Store = Depends(get_store)) -> dict:
    """Solves the rule set (or loads its table); later advice on it is then fast."""
    entry = store.get(rules_id)
    table = await asyncio.wrap_future(store.table_future(entry.rules))
    return {
        "id": entry.id,
        "expected_score": table.expected_score,
        "cached": bool(table.meta.get("cached")),
    }
