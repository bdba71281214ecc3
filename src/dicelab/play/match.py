"""A game at a table of two to four in progress: every sheet, whose turn it is, advice
by the chance to finish first.

A :class:`MatchGame` is one one-player game (:class:`dicelab.play.game.Game`) per
seat, played in turn, seat 1 first. The advice of each turn is worked out once, from
the sheets as they stand when it begins (:func:`dicelab.engine.advice.match.match_turn`),
for the person playing and for the computer players alike, who play to win by it.
Its record holds every seat's game record, so a game can be saved after every move
and reviewed later: :func:`review_match` replays it and prices every decision of
the person playing in chance to finish first.
"""

from __future__ import annotations

from collections.abc import Iterator

from dicelab.engine.advice.duel import Sheet
from dicelab.engine.advice.match import MAX_PLAYERS, METHODS, MIN_PLAYERS, MatchTurn, match_turn
from dicelab.engine.advice.single import Option
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.errors import UserError
from dicelab.play.duel import DuelDecision, SeatedGame, replay_seats, seats_seed
from dicelab.play.game import Game, check_header, load_record, record_header

FORMAT = "dicelab-match"
FORMAT_VERSION = 1


class MatchGame(SeatedGame[int]):
    """Every seat's game, in turn; ``human`` is the seat (1 first) of the person
    playing, the others are computer players who play to win."""

    def __init__(
        self,
        expected: ExpectedTable,
        players: int,
        seed: int | None = None,
        human: int = 1,
        rules_source: str | None = None,
        method: str = "auto",
    ):
        if isinstance(players, bool) or not isinstance(players, int):
            raise UserError(f"players: got {players!r}, expected a whole number")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise UserError(f"players: got {players}, expected {MIN_PLAYERS} to {MAX_PLAYERS}")
        if isinstance(human, bool) or not isinstance(human, int) or not 1 <= human <= players:
            raise UserError(f"seat: got {human!r}, expected 1 to {players}")
        if method not in METHODS:
            raise UserError(f"method: got {method!r}, expected one of {', '.join(METHODS)}")
        seed = seats_seed(seed)
        self.expected = expected
        self.method = method
        self.games = [
            Game(expected, seed=seed + k, rules_source=rules_source) for k in range(players)
        ]
        self.record: dict = {
            **record_header(FORMAT, FORMAT_VERSION, expected.rules, rules_source),
            "seed": seed,
            "players": players,
            "human": human,
            "method": method,
            "sheets": [g.record for g in self.games],
        }
        self._turn: tuple[tuple, MatchTurn] | None = None

    @classmethod
    def resume(cls, expected: ExpectedTable, record: dict) -> MatchGame:
        """Continue a game at a table from its record: every sheet as it stood, virtual
        dice falling on as they would have."""
        check_match_record(record, expected)
        game = cls(expected, record["players"], seed=record.get("seed"), human=record["human"],
                   rules_source=record.get("rules_source"),
                   method=record.get("method", "auto"))  # fmt: skip
        game.games = [Game.resume(expected, sheet) for sheet in record["sheets"]]
        game.record["sheets"] = [g.record for g in game.games]
        return game

    @property
    def mover(self) -> int | None:
        """The seat to play (1 first), ``None`` when every sheet is full."""
        for k, g in enumerate(self.games):
            if g._turn is not None:
                return k + 1
        counts = [len(g.filled) for g in self.games]
        if min(counts) == self.rules.n_categories:
            return None
        return counts.index(min(counts)) + 1

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(range(1, len(self.games) + 1))

    def seat_name(self, seat: int) -> str:
        return f"seat {seat}"

    def game_of(self, seat: int) -> Game:
        return self.games[seat - 1]

    def _replace(self, seat: int, game: Game) -> None:
        self.games[seat - 1] = game
        self.record["sheets"][seat - 1] = game.record

    def turn(self, progress=None) -> MatchTurn:
        """The advice of the turn under way (worked out once for it)."""
        seat = self._seat
        key = (seat, len(self.games[seat - 1].filled))
        if self._turn is None or self._turn[0] != key:
            g = self.games[seat - 1]
            theirs = [
                Sheet(dict(o.filled), bonuses=o.extra_bonuses)
                for k, o in enumerate(self.games)
                if k != seat - 1
            ]
            turn = match_turn(self.expected.game, g.position(), theirs, self.expected,
                              progress, method=self.method)  # fmt: skip
            self._turn = (key, turn)
        return self._turn[1]

    def options(self, rerolls: int | None = None, progress=None) -> list[Option]:
        """Every option of the decision at hand, by the mover's chance to finish first."""
        from dataclasses import replace

        position = self.games[self._seat - 1].position()
        if rerolls is not None:
            position = replace(position, rerolls=rerolls)
        return self.turn(progress).advise(position).options

    def standings(self) -> list[int]:
        """Every seat's score so far (upper bonus included once earned)."""
        return [g.score for g in self.games]


# -- review -------------------------------------------------------------------------------
def load_match_record(path) -> dict:
    """Read a record of a game at a table; a file that is not one is a :class:`UserError`."""
    return load_record(path, FORMAT, "match")


def check_match_record(record: dict, expected: ExpectedTable) -> None:
    """A record's version, players, seat, method and every sheet's header."""
    if record.get("version") != FORMAT_VERSION:
        raise UserError(f"match record version {record.get('version')!r} is not supported")
    players = record.get("players")
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise UserError(f"match record: players {players!r}, expected 2 to 4")
    if record.get("human") not in range(1, players + 1):
        raise UserError(f"match record: seat {record.get('human')!r}, expected 1 to {players}")
    if record.get("method", "auto") not in METHODS:
        raise UserError(f"match record: method {record.get('method')!r} is not known")
    sheets = record.get("sheets")
    if not isinstance(sheets, list) or len(sheets) != players:
        raise UserError(f"match record: expected {players} sheets")
    for sheet in sheets:
        if not isinstance(sheet, dict):
            raise UserError("match record: a sheet is not a game record")
        check_header(sheet, expected)


def replay(expected: ExpectedTable, record: dict, seat: int) -> Iterator[DuelDecision]:
    """Every decision of ``seat`` in a recorded game at a table, in order."""
    check_match_record(record, expected)
    table = MatchGame(expected, record["players"], seed=0, method=record.get("method", "auto"))
    table.games = [Game(expected, dice="real") for _ in range(record["players"])]
    turns = [sheet.get("turns", []) for sheet in record["sheets"]]
    return replay_seats(table, turns, "match", lambda k: k == seat)


def review_match(expected: ExpectedTable, record: dict, seat: int | None = None):
    """The decisions of one seat (the person's by default), each priced in chance to
    finish first by the advice of its turn (:class:`~dicelab.play.duel.DuelDecision`)."""
    seat = seat or record.get("human", 0)  # none (0): the record's check refuses it
    return list(replay(expected, record, seat))
