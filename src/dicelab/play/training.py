"""Training: decisions to answer, graded at once with the cost and the why.

The positions come from games played by the expected-score optimum with dice drawn
from a seed, so they are positions a good player meets. Each decision of those
games is weighed: a tie or a single option teaches nothing and is left out, a close
call (the second option a fraction of a point behind) weighs most, an obvious one
(the second option many points behind) little. Where the player's history says
which kinds of decision (keeps, upper boxes, lower boxes) they get wrong, those
weigh more. A *daily set* takes its seed from the date and ignores the history,
so everyone meets the same positions that day.

Each answer is graded against the advice of its position (the same as ``dicelab
advise``): the cost against the best option and, where the split of the expected
score by box is at hand, the sentence that says why. A session ends with the
average loss per decision and the share of best answers, the figures of the
classic proficiency test.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from dicelab.engine.advice.single import TIE, Advice, Option, Position, advise
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.errors import UserError
from dicelab.play.game import DECISION_KINDS, Game, PricedChoice, find_box_option, record_header

FORMAT = "dicelab-training"
FORMAT_VERSION = 1
#: Games played to draw the positions of a session from.
POOL_GAMES = 12
#: Most questions in a session.
MAX_QUESTIONS = 100
#: The gap (expected points between the best and the second option) at which a
#: decision weighs ``1/e`` of a close call.
GAP_SCALE = 3.0


def daily_seed(day: dt.date) -> int:
    """The seed of a date's set: the same on every machine."""
    return day.year * 10_000 + day.month * 100 + day.day


@dataclass(frozen=True)
class Question:
    """One decision to make: the position and its advice (kept for the grading)."""

    number: int
    advice: Advice
    kind: str  # the kind of the best option (see dicelab.play.game.DECISION_KINDS)
    boxes: tuple[str, ...] = ()  # the box ids in scorecard order

    @property
    def position(self) -> Position:
        return self.advice.position

    def to_dict(self) -> dict:
        p = self.position
        return {
            "question": self.number,
            "dice": list(p.dice),
            "rerolls_left": p.rerolls,
            "filled": dict(p.filled),
            "extra_bonuses": p.extra_bonuses,
            "options": [o.label for o in self.options],
        }

    @property
    def options(self) -> list[Option]:
        """The options in a fixed order that gives nothing away: keeps by size and
        faces, then boxes in scorecard order (the advice ranks them)."""

        def order(o: Option) -> tuple[bool, int, tuple[int, ...]]:
            assert o.keep is not None  # a keep option holds its dice
            return o.stops, len(o.keep), o.keep

        keeps = sorted((o for o in self.advice.options if o.kind == "keep"), key=order)
        boxes = [o for o in self.advice.options if o.kind == "box"]
        return keeps + sorted(boxes, key=lambda o: self.boxes.index(o.box))


@dataclass(frozen=True)
class Graded(PricedChoice):
    """An answer against the best option: what it costs, and why."""

    question: Question
    chosen: Option
    best: Option
    why: str = ""

    @property
    def correct(self) -> bool:
        return not self.mistake

    # the figures of a reviewed decision, for the history
    @property
    def turn(self) -> int:
        return len(self.question.position.filled) + 1

    @property
    def dice(self) -> tuple[int, ...]:
        return self.question.position.dice

    def to_dict(self) -> dict:
        return {
            "question": self.question.number,
            "chosen": self.chosen.label,
            "best": self.best.label,
            "cost": self.cost,
            "correct": self.correct,
            "why": self.why,
        }


@dataclass
class Training:
    """A session of ``count`` questions on the rules of ``table``.

    Parameters
    ----------
    table : ExpectedTable
        The expected-score table of the rules (the grading is its advice).
    count : int
        Questions in the session (1 to :data:`MAX_QUESTIONS`).
    seed : int, optional
        Seed of the games the positions come from (random when left out).
    day : datetime.date, optional
        A daily set: the seed is the date's and ``kind_weights`` are ignored.
    kind_weights : mapping, optional
        Extra weight of each kind of decision, from the player's history
        (:func:`kind_weights`).
    explain : ExplainTable, optional
        The split of the expected score by box: each grading then says why.
    """

    table: ExpectedTable
    count: int = 10
    seed: int | None = None
    day: dt.date | None = None
    kind_weights: dict | None = None
    explain: object = None
    rules_source: str | None = None
    #: the questions, drawn from the seed unless given (a session played elsewhere,
    #: graded again: see :func:`questions_at`)
    questions: list[Question] | None = None
    answers: list[Graded] = field(init=False, default_factory=list)
    #: whether the session was played elsewhere (its questions given): when it
    #: started is then not known, and its record says none
    played_elsewhere: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.played_elsewhere = self.questions is not None
        if isinstance(self.count, bool) or not isinstance(self.count, int):
            raise UserError(f"questions: got {self.count!r}, expected a whole number")
        if not 1 <= self.count <= MAX_QUESTIONS:
            raise UserError(f"questions: got {self.count}, expected 1 to {MAX_QUESTIONS}")
        if self.table.rules.save_unused_throws:
            raise UserError(f"{self.table.rules.name}: training is not for rules that save throws")
        if self.day is not None:
            self.seed, self.kind_weights = daily_seed(self.day), None
        elif self.seed is None:
            # a fresh sequence's entropy is one int (numpy's stubs allow a sequence or None)
            self.seed = int(cast(int, np.random.SeedSequence().entropy) % 2**31)
        if self.questions is None:
            self.questions = draw_questions(self.table, self.count, self.seed, self.kind_weights)

    def answer(self, question: Question, text: str) -> Graded:
        """Grade an answer typed as ``dicelab play`` takes it: the dice to keep
        (``6 6``, ``none``, ``all``) or a box (id, name or number)."""
        chosen = option_for(question.advice, text, self.table.rules)
        why = ""
        if self.explain is not None and chosen.cost > TIE:
            from dicelab.play.game import why_of

            why = why_of(self.explain, question.position, chosen)
        graded = Graded(question, chosen, question.advice.best, why)
        self.answers.append(graded)
        return graded

    @property
    def total_cost(self) -> float:
        return float(sum(g.cost for g in self.answers))

    @property
    def average_cost(self) -> float:
        """Expected points lost per decision answered."""
        return self.total_cost / len(self.answers) if self.answers else 0.0

    @property
    def best_share(self) -> float:
        """The share of answers that were a best option."""
        return sum(g.correct for g in self.answers) / len(self.answers) if self.answers else 0.0

    def summary(self) -> dict:
        return {
            "rules": self.table.rules.name,
            "seed": self.seed,
            "daily": self.day.isoformat() if self.day else None,
            "questions": len(self.answers),
            "average_cost": self.average_cost,
            "best_share": self.best_share,
            "total_cost": self.total_cost,
            "by_kind": self.by_kind(),
        }

    def by_kind(self) -> list[dict]:
        """Answers, mistakes and cost of each kind of decision."""
        out = []
        for kind in DECISION_KINDS:
            gs = [g for g in self.answers if g.question.kind == kind]
            if gs:
                mistakes = sum(not g.correct for g in gs)
                cost = float(sum(g.cost for g in gs))
                out.append({"kind": kind, "decisions": len(gs), "mistakes": mistakes, "cost": cost})
        return out

    @property
    def record(self) -> dict:
        """The session as the history keeps it."""
        header = record_header(FORMAT, FORMAT_VERSION, self.table.rules, self.rules_source)
        if self.played_elsewhere:  # the same session sent twice is one record
            header["started"] = None
        return {
            **header,
            "seed": self.seed,
            "daily": self.day.isoformat() if self.day else None,
            "answers": [{**g.question.to_dict(), **g.to_dict()} for g in self.answers],
        }

    # what the history reads of a review
    @property
    def decisions(self) -> list[Graded]:
        return list(self.answers)

    @property
    def score(self) -> int:
        """Best answers given."""
        return sum(g.correct for g in self.answers)


def option_kind(option: Option, rules) -> str:
    if option.kind == "keep":
        return "keep"
    box = next(c for c in rules.categories if c.id == option.box)
    return "upper box" if box.counts_for_bonus else "lower box"


def questions_at(table, positions: list[Position]) -> list[Question]:
    """The questions of given positions (each checked as advice checks it)."""
    rules = table.rules
    ids = tuple(c.id for c in rules.categories)
    out = []
    for i, p in enumerate(positions, start=1):
        advice = advise(table, p)
        out.append(Question(i, advice, option_kind(advice.best, rules), ids))
    return out


def option_for(advice: Advice, text: str, rules) -> Option:
    """The option an answer names: its label, the dice to keep (``6 6``, ``none``,
    ``all``) or a box (id, name or number)."""
    for o in advice.options:
        if o.label == str(text).strip():
            return o
    word = re.sub(r"^keep\s+", "", str(text).strip().lower())
    if word.startswith("all"):
        word = "all"
    if not word:
        raise UserError("an answer: the dice to keep (6 6, none, all) or a box")
    dice = tuple(sorted(advice.position.dice))
    keeps = [o for o in advice.options if o.kind == "keep"]
    if keeps and (word in ("none", "nothing", "-", "all") or re.fullmatch(r"[\d ,]+", word)):
        if word == "all":
            want = dice
        elif word in ("none", "nothing", "-"):
            want = ()
        else:
            want = tuple(sorted(int(ch) for ch in re.findall(r"\d", word)))
        for o in keeps:
            if o.keep == want:
                return o
        raise UserError(f"keep {' '.join(map(str, want)) or 'nothing'}: not among the dice "
                        f"{' '.join(map(str, dice))}")  # fmt: skip
    if not any(o.kind == "box" for o in advice.options):
        raise UserError("rerolls are left: answer with the dice to keep (6 6, none or all)")
    return find_box_option(advice, word, rules)


def draw_questions(table, count: int, seed: int, kind_weights=None) -> list[Question]:
    """``count`` decisions of games played by the optimum with the dice of ``seed``,
    weighed as the module says, without repeats."""
    rng = np.random.default_rng(seed)
    rules = table.rules
    pool: list[Advice] = []
    seen: set = set()
    games = 0
    while games < POOL_GAMES or len(pool) < count:
        if games >= 10 * POOL_GAMES + count:
            break
        for advice in _decisions(table, int(rng.integers(0, 2**31))):
            key = (advice.position.dice, advice.position.rerolls, tuple(advice.position.filled))
            if key not in seen and _gap(advice) > TIE:
                seen.add(key)
                pool.append(advice)
        games += 1
    if len(pool) < count:
        raise UserError(f"{rules.name}: only {len(pool)} decisions worth asking; ask fewer")
    kinds = [option_kind(a.best, rules) for a in pool]
    w = np.exp(-np.array([_gap(a) for a in pool]) / GAP_SCALE)
    if kind_weights:
        w *= np.array([kind_weights.get(k, 1.0) for k in kinds])
    picked = rng.choice(len(pool), size=count, replace=False, p=w / w.sum())
    ids = tuple(c.id for c in rules.categories)
    return [Question(i + 1, pool[j], kinds[j], ids) for i, j in enumerate(picked)]


def _gap(advice: Advice) -> float:
    """How far behind the best the second option is (0 for a single option)."""
    return advice.options[1].cost if len(advice.options) > 1 else 0.0


def _decisions(table, seed: int):
    """Every decision of one game played by the optimum, as its advice."""
    game = Game(table, seed=seed)
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
            continue
        advice = game.advice()
        yield advice
        best = advice.best
        if best.kind == "keep" and not best.stops:
            assert best.keep is not None  # a keep option holds its dice
            game.keep(list(best.keep))
        elif best.kind == "keep":
            assert game.dice is not None  # a decision: the dice are thrown
            game.keep(list(game.dice))
        else:
            assert best.box is not None  # a box option names its box
            game.fill(best.box)


def kind_weights(rows: list[dict]) -> dict[str, float]:
    """Extra weight of each kind of decision from past ``by_kind`` figures (lists of
    ``{"kind", "decisions", "mistakes"}``): the kinds with more mistakes per decision
    weigh more, one to three times (a kind never seen weighs as the average)."""
    totals: dict[str, list[int]] = {}
    for row in rows:
        t = totals.setdefault(row["kind"], [0, 0])
        t[0] += row["decisions"]
        t[1] += row["mistakes"]
    rates = {k: (m + 1) / (d + 4) for k, (d, m) in totals.items()}
    if not rates:
        return {}
    low, high = min(rates.values()), max(rates.values())
    if high - low < 1e-12:
        return {k: 1.0 for k in rates}
    return {k: 1.0 + 2.0 * (r - low) / (high - low) for k, r in rates.items()}
