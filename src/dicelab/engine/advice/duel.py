"""Advice in the two-player game: every option of the player to move, by win chance.

A duel position is two sheets (each with its score), the dice and the rerolls left.
:func:`duel_advise` checks both sheets, finds whose turn it is from the boxes filled,
and ranks the options by the mover's chance to win with both playing to win, beside
the rank each option has for a player who plays for points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from dicelab.engine.objectives.duel import DuelTable, duel_turn_values
from dicelab.engine.position import (
    Option,
    Position,
    _possible_points,
    _sums,
    check_turn,
    rank,
    scorecard_state,
)
from dicelab.errors import UserError
from dicelab.text import plural


@dataclass(frozen=True)
class Sheet:
    """One player's sheet as the command line gives it.

    Examples
    --------
    >>> from dicelab import Sheet
    >>> Sheet({"ones": 3, "full_house": 25}, score=28).score
    28
    """

    filled: dict
    upper: int | None = None
    bonuses: int = 0
    score: int | None = None


@dataclass(frozen=True)
class DuelAdvice:
    """Every option of a duel position, ranked by win chance, with its expected-score rank."""

    seat: str  # "A" or "B"
    my_score: int
    their_score: int
    options: list[Option]  # by win chance, best first
    expected_rank: dict  # option key -> (rank, expected final score)
    #: a sentence per option, in option order, where asked for (see
    #: :func:`dicelab.engine.objectives.explain.duel_texts`)
    texts: tuple[str, ...] = ()
    #: option key -> the mover's expected final lead, both playing to win, where asked
    #: for (see :mod:`dicelab.engine.objectives.duel_lead`)
    leads: dict | None = None

    @property
    def lead(self) -> int:
        return self.my_score - self.their_score

    def to_dict(self) -> dict:
        return {
            "seat": self.seat,
            "my_score": self.my_score,
            "their_score": self.their_score,
            "win_chance": self.options[0].value,
            "options": [
                {
                    "label": o.label,
                    "kind": o.kind,
                    "keep": list(o.keep) if o.keep is not None else None,
                    "box": o.box,
                    "points": o.points,
                    "win_chance": o.value,
                    "cost": o.cost,
                    "expected_rank": self.expected_rank[o.key][0],
                    "expected_final_score": self.expected_rank[o.key][1],
                    **({"explain": self._explain(o, t)} if t or self.leads else {}),
                }
                for o, t in zip(self.options, self.texts or [""] * len(self.options), strict=True)
            ],
        }

    def _explain(self, option: Option, text: str) -> dict:
        out = {"probability": option.value, "text": text or None}
        if self.leads is not None:
            out["expected_lead"] = self.leads[option.key]
        return out


def sheet_scorecard(table, sheet: Sheet, who: str) -> tuple[int, int, int, int]:
    """``(mask, upper_total, flag, score)`` of a sheet (full or not) as
    :func:`~dicelab.engine.advice.single.scorecard_state` checks it, for any table of its
    rules; its mistakes name whose sheet it is."""
    position = Position(
        dice=(1,) * table.game.rules.dice,
        rerolls=0,
        filled=sheet.filled,
        upper_total=sheet.upper,
        extra_bonuses=sheet.bonuses,
    )
    try:
        return scorecard_state(table, position, allow_full=True)
    except UserError as exc:
        raise UserError(f"{who} sheet: {exc}") from None


def sheet_state(table: DuelTable, sheet: Sheet, who: str) -> tuple[int, int]:
    """Player state and score of a sheet; one clear line when it cannot be."""
    g = table.game
    mask, upper, flag, score = sheet_scorecard(table, sheet, who)
    # boxes without points: their points are the score's unknown part (the upper ones'
    # are known from the upper total where the rules track it)
    unknown = [
        c
        for c, cat in enumerate(g.rules.categories)
        if cat.id in sheet.filled
        and sheet.filled[cat.id] is None
        and not (g.upper[c] and g.threshold > 0)
    ]
    if sheet.score is not None:
        if isinstance(sheet.score, bool) or not isinstance(sheet.score, int) or sheet.score < 0:
            raise UserError(f"{who} score: got {sheet.score!r}, expected a whole number >= 0")
        rest = sheet.score - score
        choices = tuple(tuple(sorted(_possible_points(g, c))) for c in unknown)
        if rest not in _sums(choices):
            raise UserError(
                f"{who} score: got {sheet.score}, but the filled boxes given "
                + ("cannot make it" if unknown else f"add up to {score}")
            )
        score = sheet.score
    elif unknown:
        raise UserError(f"{who} score: give it (some boxes have no points)")
    i = table.space.player(mask, upper, flag)
    if i < 0:
        raise UserError(f"{who} sheet cannot occur in a game")
    return i, score


def duel_advise(
    table: DuelTable,
    expected,
    dice: Sequence[int],
    rerolls: int,
    mine: Sheet,
    theirs: Sheet,
    leads=None,
) -> DuelAdvice:
    """Rank every option of the player to move by win chance (both playing to win).

    With ``leads`` (a :class:`~dicelab.engine.objectives.duel_lead.LeadTable` of the same
    rules), each option's expected final lead comes too (``advice.leads``).
    """
    g = table.game
    rerolls = check_turn(g.rules, Position(tuple(dice), rerolls))
    me, my_score = sheet_state(table, mine, "my")
    them, their_score = sheet_state(table, theirs, "their")
    s = table.space
    k_me, k_them = int(s.p_count[me]), int(s.p_count[them])
    if k_me == g.n_categories:
        raise UserError("my sheet is full: the game is over for me")
    if k_them == k_me:
        seat = "A"
    elif k_them == k_me + 1:
        seat = "B"
    else:
        raise UserError(
            f"the sheets do not alternate: I have {plural(k_me, 'box')} filled and they have "
            f"{k_them}; the player to move has as many as the other, or one fewer"
        )
    roll = g.space.index(tuple(dice))
    turn = duel_turn_values(table, me, them, my_score - their_score)
    options = rank(g, turn, roll, rerolls, 0.0)
    plain = expected.advise(Position(tuple(dice), rerolls, mine.filled, mine.upper, mine.bonuses))
    ranks = {
        o.key: (n, o.value - plain.score_so_far + my_score)
        for n, o in enumerate(plain.options, start=1)
    }
    by_lead = None
    if leads is not None:
        from dicelab.engine.objectives.duel_lead import lead_turn_values

        lead_turn = lead_turn_values(leads, me, them, my_score - their_score)
        by_lead = {o.key: o.value for o in rank(g, lead_turn, roll, rerolls, 0.0)}
    return DuelAdvice(seat, my_score, their_score, options, ranks, leads=by_lead)


def advise_table(table: DuelTable, position, *, theirs, my_score: int | None = None, leads=None):
    """:meth:`DuelTable.advise <dicelab.engine.objectives.duel.DuelTable.advise>`: the
    mover's position and score, the other's sheet (a :class:`Sheet` or the filled boxes
    as a mapping), ranked by :func:`duel_advise` beside the expected-score table."""
    from dicelab.engine.objectives.expected import expected_table

    mine = Sheet(
        dict(position.filled),
        upper=position.upper_total,
        bonuses=position.extra_bonuses,
        score=my_score,
    )
    if not isinstance(theirs, Sheet):
        theirs = Sheet(dict(theirs))
    expected = expected_table(table.game)
    return duel_advise(table, expected, position.dice, position.rerolls, mine, theirs, leads=leads)
