"""Training: the questions drawn, the grading (that of ``advise``), the daily set."""

import datetime as dt
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from dicelab.engine.advice.single import TIE, advise
from dicelab.engine.objectives.expected import expected_table
from dicelab.errors import UserError
from dicelab.play.training import Training, draw_questions, kind_weights, option_for


@pytest.fixture(scope="module")
def yazy():
    return expected_table("yazy")


def test_the_grading_is_that_of_advise(yazy):
    session = Training(yazy, 8, seed=5)
    for q in session.questions:
        lib = advise(yazy, q.position)
        assert [(o.key, o.cost) for o in q.advice.options] == [(o.key, o.cost) for o in lib.options]
        for o in q.options:  # every option, answered by its label's words
            text = o.box if o.kind == "box" else ("all" if o.stops else " ".join(map(str, o.keep)))
            chosen = option_for(q.advice, text or "none", yazy.rules)
            assert chosen.key == o.key
        graded = session.answer(
            q, "none" if q.advice.options[0].kind == "keep" else q.advice.best.box
        )
        assert graded.best.key == lib.best.key
        assert graded.cost == pytest.approx(
            next(o.cost for o in lib.options if o.key == graded.chosen.key)
        )
    assert session.average_cost == pytest.approx(np.mean([g.cost for g in session.answers]))
    assert session.best_share == np.mean([g.cost <= TIE for g in session.answers])


def test_no_question_is_a_tie_and_close_calls_weigh_more(yazy):
    qs = draw_questions(yazy, 40, seed=3)
    gaps = [q.advice.options[1].cost for q in qs]
    assert min(gaps) > TIE  # a tie or a single option teaches nothing
    assert len({(q.position.dice, q.position.rerolls, tuple(q.position.filled)) for q in qs}) == 40
    assert np.median(gaps) < 3.0  # mostly close calls, though obvious ones can come up


def test_the_options_shown_give_nothing_away(yazy):
    for q in draw_questions(yazy, 10, seed=8):
        labels = [o.label for o in q.options]
        assert sorted(labels) == sorted(o.label for o in q.advice.options)
        keeps = [o for o in q.options if o.kind == "keep" and not o.stops]
        assert [len(o.keep) for o in keeps] == sorted(len(o.keep) for o in keeps)
        assert "kind" not in q.to_dict()


def test_kinds_often_wrong_come_up_more(yazy):
    rows = [
        {"kind": "keep", "decisions": 100, "mistakes": 2},
        {"kind": "upper box", "decisions": 30, "mistakes": 20},
        {"kind": "lower box", "decisions": 30, "mistakes": 1},
    ]
    w = kind_weights(rows)
    assert w["upper box"] == 3.0 and min(w.values()) == 1.0
    plain = draw_questions(yazy, 30, seed=2)
    weighted = draw_questions(yazy, 30, seed=2, kind_weights=w)
    count = lambda qs: sum(q.kind == "upper box" for q in qs)  # noqa: E731
    assert count(weighted) > count(plain)


def test_a_daily_set_is_the_date_s_and_ignores_the_history(yazy):
    day = dt.date(2026, 11, 26)
    a = Training(yazy, 5, day=day, kind_weights={"keep": 3.0})
    b = Training(yazy, 5, day=day)
    assert a.seed == b.seed == 20261126
    assert [q.to_dict() for q in a.questions] == [q.to_dict() for q in b.questions]


def run(*args, stdin="", **env):
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], input=stdin, capture_output=True,
        text=True, env=dict(os.environ, **env),
    )  # fmt: skip


@pytest.mark.slow
def test_the_daily_set_is_the_same_on_two_machines(tmp_path):
    args = ("train", "yazy", "--date", "2026-11-26", "-n", "6", "--json", "--no-why")
    answers = "none\n" * 6
    one = run(*args, stdin=answers, NUMBA_NUM_THREADS="1", DICELAB_CACHE_DIR=str(tmp_path / "a"),
              DICELAB_DATA_DIR=str(tmp_path / "da"))  # fmt: skip
    two = run(*args, stdin=answers, NUMBA_NUM_THREADS="2", DICELAB_CACHE_DIR=str(tmp_path / "b"),
              DICELAB_DATA_DIR=str(tmp_path / "db"))  # fmt: skip
    assert one.returncode == two.returncode == 0, one.stderr + two.stderr
    questions = [[json.loads(line) for line in out.stdout.splitlines() if '"options"' in line]
                 for out in (one, two)]  # fmt: skip
    assert len(questions[0]) == 6 and questions[0] == questions[1]


def test_train_grades_says_why_and_keeps_the_session(tmp_path):
    data = str(tmp_path / "data")
    tries = ("none\n" + "".join(f"{box}\n" for box in range(1, 12))) * 3  # a keep, or a box
    out = run("train", "yazy", "-n", "3", "--seed", "4", stdin=tries, DICELAB_DATA_DIR=data)
    assert out.returncode == 0, out.stderr
    assert "3 answered" in out.stdout and "kept in the history" in out.stdout
    listed = json.loads(run("history", "--json", DICELAB_DATA_DIR=data).stdout)
    assert listed["games"][-1]["kind"] == "training"
    assert listed["games"][-1]["decisions"] == 3


@pytest.mark.parametrize(
    "args, words",
    [
        (("-n", "0"), "questions"),
        (("--date", "26/11/2026"), "--date"),
        (("--daily", "--seed", "3"), "--seed"),
    ],
)
def test_bad_training_requests_are_one_line(args, words):
    out = run("train", "yazy", *args)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and words in out.stderr


def test_saved_throws_are_refused():
    from types import SimpleNamespace

    from dicelab.rules import load_rules

    with pytest.raises(UserError, match="save throws"):
        Training(SimpleNamespace(rules=load_rules("maxi-yatzy-saved")), 3)


def test_a_session_played_elsewhere_is_one_record_whenever_it_is_graded(monkeypatch):
    import itertools

    import dicelab.play.game as game_module
    from dicelab.play.training import questions_at

    table = expected_table("yazy")
    played = Training(table, 3, seed=4)
    stamps = (f"2026-01-01T00:00:{s:02d}" for s in itertools.count())
    monkeypatch.setattr(game_module.time, "strftime", lambda fmt: next(stamps))

    def graded_again() -> dict:
        qs = questions_at(table, [q.position for q in played.questions])
        session = Training(table, len(qs), seed=4, questions=qs)
        for q in qs:
            session.answer(q, q.options[0].label)
        return session.record

    assert graded_again() == graded_again()  # a second apart: the same record
    assert played.record["started"] != played.record["started"]  # played here: its time
