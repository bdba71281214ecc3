"""Routes of the coach: training sessions and the history of finished games.

The history is the one of the user who runs the server (the local database of
:mod:`dicelab.play.history`): a finished game of the page and a finished training
session are kept there, as by ``dicelab play`` and ``dicelab train``. A history that
cannot be read or written is answered 503, in a sentence without its path; training
without its weights, and a listing without its damaged games, carry a ``note``.
"""

from __future__ import annotations

import datetime as dt

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool

from dicelab.engine.advice.single import Position, advise
from dicelab.engine.objectives.explain import OBJECTIVE_EXPLAIN
from dicelab.errors import UserError
from dicelab.play import history
from dicelab.play.training import Training, kind_weights, option_for, questions_at
from dicelab.web import models as m
from dicelab.web.routes import get_store, route, table_for
from dicelab.web.store import Store

router = APIRouter(tags=["coach"])


def _day(body) -> dt.date | None:
    if getattr(body, "date", None) is not None:
        try:
            return dt.date.fromisoformat(body.date)
        except ValueError:
            raise UserError(f"date: got {body.date!r}, expected YYYY-MM-DD") from None
    return dt.date.today() if getattr(body, "daily", False) else None


def _position(a: m.AnswerRequest) -> Position:
    return Position(tuple(a.dice), a.rerolls_left, dict(a.filled), None, a.extra_bonuses)


async def _why_table(store: Store, rules):
    """The split of the expected score by box, where the rules have one."""
    if rules.save_unused_throws:
        return None
    return await table_for(store, rules, OBJECTIVE_EXPLAIN)


@route(router, "POST", "/api/training", m.TrainingOut, "A training session's questions")
async def post_training(body: m.TrainingRequest, store: Store = Depends(get_store)) -> dict:
    """Decisions drawn from games of the optimum, weighted to the close calls and to
    the kinds of decision the history says this player gets wrong; a daily set
    (`daily`, or `date`) is the same for everyone that day."""
    entry = store.get(body.rules)
    day = _day(body)
    if day is not None and body.seed is not None:
        raise UserError("seed: a daily set takes its seed from the date; give one or the other")
    table = await table_for(store, entry.rules)
    weights, note = None, None
    if day is None:
        weights, note = await run_in_threadpool(_past_weights, entry.rules.name)
    session = await run_in_threadpool(
        Training, table, body.questions, body.seed, day, weights, None, entry.id
    )
    assert session.questions is not None  # drawn when the session began
    return {
        "rules": entry.id,
        "seed": session.seed,
        "daily": day.isoformat() if day else None,
        "questions": [q.to_dict() for q in session.questions],
        "note": note,
    }


def unavailable(exc: history.HistoryError) -> str:
    """What a history that failed says to the page: no path of the server's."""
    return f"this server's history could not be {exc.doing} ({exc.reason})"


def _past_weights(rules: str) -> tuple[dict | None, str | None]:
    """The weights of the kinds of decision from the history, and a note where it
    could not be read (the questions are then drawn without them) or some of its
    games are damaged."""
    damaged: list[int] = []
    try:
        weights = kind_weights(history.kinds_of(rules, damaged=damaged))
    except history.HistoryError as exc:
        return None, f"{unavailable(exc)}: the questions are drawn without its weights"
    return weights, history.damaged_note(damaged) if damaged else None


@route(router, "POST", "/api/training/answer", m.GradedOut, "Grade one answer, with why")
async def post_answer(body: m.AnswerRequest, store: Store = Depends(get_store)) -> dict:
    """The answer against the best option of its position (as the advice ranks
    them): its cost and, for a costly one, why."""
    entry = store.get(body.rules)
    table = await table_for(store, entry.rules)
    position = _position(body)
    advice = advise(table, position)
    chosen = option_for(advice, body.answer, entry.rules)
    why = ""
    if chosen.cost > 1e-9:
        split = await _why_table(store, entry.rules)
        if split is not None:
            from dicelab.play.game import why_of

            why = why_of(split, position, chosen)
    return {
        "question": len(body.filled) + 1,
        "chosen": chosen.label,
        "best": advice.best.label,
        "cost": chosen.cost,
        "correct": chosen.cost <= 1e-9,
        "why": why,
    }


@route(router, "POST", "/api/training/finish", m.TrainingSummaryOut, "End and keep a session")
async def post_finish(body: m.FinishRequest, store: Store = Depends(get_store)) -> dict:
    """Grade every answer of a session again (its figures are the server's, not the
    page's) and keep the session in the history."""
    entry = store.get(body.rules)
    table = await table_for(store, entry.rules)
    day = _day(body)

    def grade() -> tuple[Training, bool]:
        positions = [_position(a) for a in body.answers]
        qs = questions_at(table, positions)
        session = Training(table, len(qs), seed=body.seed if day is None else None, day=day,
                           rules_source=entry.id, questions=qs)  # fmt: skip
        for q, a in zip(qs, body.answers, strict=True):
            session.answer(q, a.answer)
        return session, history.keep(session.record, session, "training") is not None

    session, kept = await run_in_threadpool(grade)
    s = session.summary()
    return {**{k: s[k] for k in ("rules", "questions", "average_cost", "best_share",
                                 "total_cost", "by_kind")}, "kept": kept}  # fmt: skip


def _record_rules(store: Store, record: dict):
    """The rule set of a record: the page's id (``rules_source``), else its name."""
    given = [record.get("rules_source"), record.get("rules")]
    names = [n for n in given if isinstance(n, str) and n]
    if not names:
        raise UserError("history: the record names no rules")
    for name in names[:-1]:
        try:
            return store.get(name[:80])
        except UserError:
            continue
    return store.get(names[-1][:80])


@route(router, "GET", "/api/history", m.HistoryOut, "The finished games kept")
async def get_history(rules: str | None = None, last: int = 50) -> dict:
    """The games kept in this server's history (its user's), oldest first, with the
    mean score, loss per decision and share of best choices."""
    if not 0 <= last <= 10_000:
        raise UserError(f"last: got {last}, expected 0 to 10000")
    damaged: list[int] = []
    found = await run_in_threadpool(lambda: history.entries(rules, damaged=damaged))
    shown = found[-last:] if last else found
    note = history.damaged_note(damaged) if damaged else None
    return {"games": [e.to_dict() for e in shown], "summary": history.summary(found),
            "note": note}  # fmt: skip


@route(router, "POST", "/api/history", m.KeptOut, "Keep a finished game")
async def post_history(body: m.KeepRequest, store: Store = Depends(get_store)) -> dict:
    """Review a finished game record of the page (a game alone, or a duel: format
    `dicelab-duel`, priced in win chance) and keep it in the history."""
    from dicelab.play.game import review

    entry = _record_rules(store, body.record)
    table = await table_for(store, entry.rules)
    if body.record.get("format") == "dicelab-duel":  # priced in win chance
        from dicelab.play.duel import duel_result

        duel = await table_for(store, entry.rules, "duel")
        result = await run_in_threadpool(duel_result, duel, table, body.record)
        found = await run_in_threadpool(history.keep, body.record, result, "duel")
        return {"kept": found is not None, "id": found}
    done = await run_in_threadpool(review, table, body.record)
    if not done.finished:
        raise UserError("history: the game is not finished; keep it when it is")
    found = await run_in_threadpool(history.keep, body.record, done)
    return {"kept": found is not None, "id": found}
