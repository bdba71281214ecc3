"""Three to six players around a banking game: Pig and Farkle as party games.

:class:`Seated` seats ``players`` around a two-player banking family (Pig, Farkle)
and plays its turns: the family plays one turn as player 1 with the mover's score,
and the table keeps everyone's score, passing the dice round in seat order. The
first to the goal wins; each seat plays for its own chance to be that one. A
position is ``("at", mover, scores, turn)``, the scores in seat order (in the
family's units: Farkle's are 50 points) and ``turn`` the family's own position of
the mover's turn, or ``("won", seat)``.

The game is solved where its turns start, one chance per seat
(:mod:`dicelab.engine.seats`); ``dicelab solve pig --set players=3``.

>>> from dicelab.games.chance.pig import Pig
>>> game = Seated(Pig(goal=20), 3)
>>> game.show(game.start())
'player 1 to play, scores 0-0-0, turn total 0, the die is thrown'
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from dicelab.errors import UserError
from dicelab.games.chance.model import CHANCE, ChanceGame

__all__ = ["PLAYERS", "Seated", "seated"]

#: How many players a table of a banking game seats.
PLAYERS = range(3, 7)


class Seated(ChanceGame):
    """``players`` (3 to 6) around the two-player banking game ``game`` (see the
    module's text)."""

    objective = "win"

    def __init__(self, game: Any, players: int):
        if players not in PLAYERS:
            raise UserError(f"players: got {players}, expected 2 to 6")
        if not getattr(game, "turn_table_fits", True) or getattr(game, "counted", False) or (
                getattr(game, "goal_by_bank", False)):  # fmt: skip
            raise UserError(f"{game.name}: a double thrown again, the farkle penalty and the "
                            "goal by a bank are rules of the two-player game "
                            "(players=2)")  # fmt: skip
        self._game: Any = game  # a banking family: its turns, as Pig's and Farkle's
        self.players = players
        self.name = f"{game.name}, {players} players"
        self.unit = getattr(game, "unit", 1)
        self.measure = "each player's chance to finish first, every player playing their best"
        help_ = game.seat_text.__doc__ or ""
        example = help_.split("``")[1] if "``" in help_ else ""
        self.position_help = (
            f"'{example.strip(chr(34))}' with {players} scores (yours "
            f"first, then the next players'; p2 to p{players}: your seat)"
        )

    @property
    def game(self) -> Any:
        """The two-player family whose turns are played."""
        return self._game

    def start(self) -> Hashable:
        return ("at", 0, (0,) * self.players, self._game.turn_start(0))

    def to_move(self, position) -> int:
        return CHANCE if self._game.to_move(position[3]) == CHANCE else position[1]

    def _after(self, position, turn) -> Hashable:
        """Where the family's ``turn`` leads at the table: on in the turn, the win, or
        the next seat's turn start with the mover's score as the turn left it."""
        _, mover, scores, _ = position
        if self._game.result(turn) is not None:
            return ("won", mover)
        seat, mine, other, *_ = self._game.turn_of(turn)
        if seat == 0:
            return ("at", mover, scores, turn)
        now = list(scores)
        now[mover] = other  # the turn passed: player 1's score is the other's now
        nxt = (mover + 1) % self.players
        return ("at", nxt, tuple(now), self._game.turn_start(now[nxt]))

    def moves(self, position):
        return [(label, self._after(position, turn))
                for label, turn in self._game.moves(position[3])]  # fmt: skip

    def outcomes(self, position):
        return [(p, label, self._after(position, turn))
                for p, label, turn in self._game.outcomes(position[3])]  # fmt: skip

    def result(self, position) -> float | None:
        """1 where player 1 has won, 0 where another has (:meth:`winner` says who)."""
        if position[0] != "won":
            return None
        return 1.0 if position[1] == 0 else 0.0

    def winner(self, position) -> int | None:
        """The seat that has won, or ``None`` while the game goes on."""
        return position[1] if position[0] == "won" else None

    def verdict(self, position) -> str:
        return f"player {position[1] + 1} wins"

    def turn_starts(self, position) -> bool:
        return position[0] == "at" and self._game.turn_starts(position[3])

    def turn_of(self, position) -> tuple:
        """``(mover, scores in playing order from the mover's, turn total, dice to
        throw)`` of a position in a turn (dice ``None`` after a throw that scored)."""
        _, mover, scores, turn = position
        _, _, _, t, n, *_ = self._game.turn_of(turn)
        order = tuple(scores[(mover + j) % self.players] for j in range(self.players))
        return mover, order, t, n

    def kept_dice(self, throw: str, label: str) -> list[int] | None:
        """The dice a move sets aside from ``throw``, as the family says (Farkle)."""
        kept = getattr(self._game, "kept_dice", None)
        return kept(throw, label) if kept is not None else None

    def banking_turn(self):
        """The family's turn as the solver reads it."""
        return self._game.banking_turn()

    def estimate(self) -> int:
        """The turn starts of the table (every seat's score below the goal)."""
        return int(self.banking_turn().scores) ** self.players

    def board(self, position) -> dict:
        """What a table shows: every seat's score, the mover, the family's turn."""
        if position[0] == "won":
            return {"winner": position[1]}
        _, mover, scores, turn = position
        out = dict(self._game.board(turn))
        out.update(scores=[s * self.unit for s in scores], seat=mover)
        return out

    def show(self, position) -> str:
        if position[0] == "won":
            return f"player {position[1] + 1} has won"
        _, mover, scores, turn = position
        shown = "-".join(str(s * self.unit) for s in scores)
        return f"player {mover + 1} to play, scores {shown}, {self._game.show_turn(turn)}"

    def canonical(self, position) -> Hashable:
        """``position`` as the game writes it; ``KeyError`` where it has none."""
        try:
            if position[0] == "won" and len(position) == 2 and position[1] in range(self.players):
                return ("won", int(position[1]))
            kind, mover, scores, turn = position
            scores = tuple(int(s) for s in scores)
            top = self.banking_turn().scores
            ok = kind == "at" and mover in range(self.players) and len(scores) == self.players
            ok = ok and all(0 <= s < top for s in scores)
        except (TypeError, ValueError, IndexError):
            raise KeyError(position) from None
        if not ok:
            raise KeyError(position)
        turn = _family_position(self._game, turn)
        seat, mine, *_ = self._game.turn_of(turn)
        if seat != 0 or mine != scores[mover]:
            raise KeyError(position)
        return ("at", int(mover), scores, turn)

    def parse(self, text: str) -> Hashable:
        """Your seat's turn as the family writes it, with every score (yours first,
        then the next players' in playing order); ``p2`` ... says your seat."""
        words = text.split()
        seats = [w for w in words if w.lower().startswith("p") and w[1:].isdigit()]
        mover = int(seats[-1][1:]) - 1 if seats else 0
        if not 0 <= mover < self.players:
            raise UserError(f"{self.name} position: got {seats[-1]}, expected p1 to "
                            f"p{self.players}")  # fmt: skip
        rest = " ".join(w for w in words if w not in seats)
        own, yours_first = self._game.seat_text(rest, self.players)
        top = self.banking_turn().scores
        if any(s >= top for s in yours_first):
            raise UserError(f"{self.name} position: got {text!r}; every score is below the "
                            "goal")  # fmt: skip
        turn = self._game.parse(own)
        scores = [0] * self.players
        for j, s in enumerate(yours_first):
            scores[(mover + j) % self.players] = s
        return ("at", mover, tuple(scores), turn)


def _family_position(game: ChanceGame, turn: Any) -> Hashable:
    canonical = getattr(game, "canonical", None)
    if canonical is not None:
        return canonical(turn)
    numbered = game.positions()  # type: ignore[attr-defined]
    return numbered.position(numbered.index_of(turn))


def seated(family: type) -> Any:
    """A family's builder that seats three to six players (``players``) around its
    two-player game, and builds the family itself for fewer."""

    def build(players: int | None = None, **settings: Any) -> ChanceGame:
        if players is not None and players in PLAYERS:
            return Seated(family(players=2, **settings), players)
        if players is not None and not 1 <= players <= 6:
            raise UserError(f"{family.__name__.lower()} players: got {players}, expected "
                            + ("1 to 6" if family.__name__ == "Farkle" else "2 to 6"))  # fmt: skip
        return family(**settings) if players is None else family(players=players, **settings)

    return build
