"""A two-player game in progress: both sheets, whose turn it is, advice by win chance.

A :class:`DuelGame` is two one-player games (:class:`dicelab.play.game.Game`), A's and
B's, played in alternation, A first. Its record holds both games' records, so a
game can be saved after every move and reviewed later: :func:`review_duel`
replays it and prices every decision of the human player in win chance.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from dicelab.engine.objectives.duel import DuelTable, duel_turn_values
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.engine.position import TIE, Option, Position, rank, scorecard_state
from dicelab.errors import UserError
from dicelab.plain import plain_fields
from dicelab.play.game import (
    Game,
    check_header,
    check_seed,
    find_box,
    load_record,
    record_header,
)
from dicelab.play.history import PricedGame
from dicelab.rules import Rules

FORMAT = "dicelab-duel"
FORMAT_VERSION = 1
SEATS = ("A", "B")

SeatT = TypeVar("SeatT", str, int)


def seats_seed(seed: int | None) -> int:
    """The seed of a game of several players, checked, or drawn at random when none
    is given; seat ``k``'s virtual dice are seeded ``seed + k``."""
    check_seed(seed)
    return secrets.randbelow(2**31) if seed is None else seed


class SeatedGame(Generic[SeatT]):
    """A game of several players in progress, whatever its seats are called (a duel's
    ``"A"`` and ``"B"``, a table's 1 to 4): one way to know whether it is over, to
    carry out the mover's option and to read one typed, so that a duel and a game at
    a table, and whatever plays them in the terminal, behave alike. A subclass gives
    ``mover``, ``seats``, :meth:`game_of` and :meth:`options`."""

    record: dict
    expected: ExpectedTable

    @property
    def mover(self) -> SeatT | None:
        """The seat to play, ``None`` when every sheet is full."""
        raise NotImplementedError

    @property
    def rules(self) -> Rules:
        """The rules played: those of the expected-score table each seat's game keeps
        its score by."""
        return self.expected.rules

    @property
    def seats(self) -> tuple[SeatT, ...]:
        """Every seat, in the order they play."""
        raise NotImplementedError

    def seat_name(self, seat: SeatT) -> str:
        """A seat as a turn's heading names it (``A``, ``seat 1``)."""
        return str(seat)

    def game_of(self, seat: SeatT) -> Game:
        """The one-player game of ``seat``."""
        raise NotImplementedError

    def options(self, rerolls: int | None = None) -> list[Option]:
        """Every option of the decision at hand, by the mover's chance, best first."""
        raise NotImplementedError

    @property
    def over(self) -> bool:
        return self.mover is None

    @property
    def _seat(self) -> SeatT:
        """The seat to play, while the game is on (a turn or a decision at hand)."""
        seat = self.mover
        assert seat is not None, "the game is over"
        return seat

    def apply(self, option: Option) -> None:
        """Carry out an option of :meth:`options` for the mover."""
        g = self.game_of(self._seat)
        if option.kind == "keep":
            assert option.keep is not None  # a keep option holds its dice
            g.keep(list(option.keep))
        else:
            assert option.box is not None  # a box option names its box
            g.fill(option.box)

    def find(self, text: str, options: list[Option]) -> Option:
        """The option the person typed: dice to keep, ``all``, ``none`` or a box."""
        g = self.game_of(self._seat)
        return find_typed(g, text, options, lambda: self.options(rerolls=0))

    def _replace(self, seat: SeatT, game: Game) -> None:
        """Put ``game`` (made anew from a seat's record) in ``seat``'s place."""
        raise NotImplementedError

    def undo(self) -> str:
        """Take back the person's last decision and every turn the other seats played
        after it; say what was taken back. Virtual dice then fall again as they did (each
        game is made anew from its record, :meth:`Game.resume`)."""
        human = self.record["human"]
        mine = self.game_of(human)
        turns = mine.turns
        if turns and turns[-1]["keeps"] and "box" not in turns[-1]:
            return mine.undo()  # a keep of this turn: no other seat has moved since
        filled = len(mine.filled)
        if not filled:
            raise UserError("nothing to take back: no decision yet")
        order = list(self.seats)
        mine_at, taken = order.index(human), 0
        for at, seat in enumerate(order):  # a seat after yours played this round, before
            g = self.game_of(seat)  # yours the next one
            if seat == human or len(g.filled) <= (filled - 1 if at > mine_at else filled):
                continue
            record = g.record
            record["turns"].pop()
            record["finished"], record["final_score"] = False, None
            self._replace(seat, Game.resume(self.expected, record))
            taken += 1
        what = mine.undo()
        return what + (f", and {taken} turn{'s' if taken != 1 else ''} played since" if taken
                       else "")  # fmt: skip


class DuelGame(SeatedGame[str]):
    """Two players' games in alternation; ``human`` is the seat of the person playing."""

    def __init__(
        self,
        table: DuelTable,
        expected: ExpectedTable,
        seed: int | None = None,
        human: str = "A",
        rules_source: str | None = None,
    ):
        if human not in SEATS:
            raise UserError(f"seat: got {human!r}, expected A (first) or B (second)")
        seed = seats_seed(seed)
        self.table = table
        self.expected = expected
        self._values: tuple | None = None  # the values of the turn under way, once worked out
        self.games = {
            "A": Game(expected, seed=seed, rules_source=rules_source),
            "B": Game(expected, seed=seed + 1, rules_source=rules_source),
        }
        rules = table.rules
        self.record: dict = {
            **record_header(FORMAT, FORMAT_VERSION, rules, rules_source),
            "seed": seed,
            "human": human,
            "a": self.games["A"].record,
            "b": self.games["B"].record,
        }

    @classmethod
    def resume(cls, table: DuelTable, expected: ExpectedTable, record: dict) -> DuelGame:
        """Continue a duel from its record: both games as they stood, virtual dice
        falling on as they would have."""
        check_duel_record(record, table)
        game = cls(table, expected, seed=record.get("seed"), human=record["human"],
                   rules_source=record.get("rules_source"))  # fmt: skip
        game.games = {seat: Game.resume(expected, record[seat.lower()]) for seat in SEATS}
        game.record["a"], game.record["b"] = game.games["A"].record, game.games["B"].record
        return game

    def _replace(self, seat: str, game: Game) -> None:
        self.games[seat] = game
        self.record[seat.lower()] = game.record

    @property
    def mover(self) -> str | None:
        """The seat to play (``None`` when both sheets are full)."""
        a, b = self.games["A"], self.games["B"]
        if a._turn is not None:
            return "A"
        if b._turn is not None:
            return "B"
        if len(a.filled) == len(b.filled):
            return None if a.phase == "over" else "A"
        return "B"

    @property
    def seats(self) -> tuple[str, ...]:
        return SEATS

    def game_of(self, seat: str) -> Game:
        return self.games[seat]

    def state(self, seat: str) -> tuple[int, int]:
        """Player state and score so far (without the upper bonus) of a seat."""
        g = self.games[seat]
        pos = Position(
            dice=(1,) * self.rules.dice, rerolls=0, filled=g.filled, extra_bonuses=g.extra_bonuses
        )
        mask, upper, flag, score = scorecard_state(self.table, pos, allow_full=True)
        return self.table.space.player(mask, upper, flag), score

    def options(self, rerolls: int | None = None) -> list[Option]:
        """Every option of the decision at hand, by the mover's win chance, best first."""
        seat = self._seat
        g = self.games[seat]
        me, mine = self.state(seat)
        them, theirs = self.state("B" if seat == "A" else "A")
        key = (me, them, mine - theirs)  # a turn's decisions share its values
        if self._values is None or self._values[0] != key:
            self._values = (key, duel_turn_values(self.table, me, them, mine - theirs))
        turn = self._values[1]
        space = self.table.game.space
        roll = space.index(tuple(_thrown(g.dice)))
        left = g.rerolls_left if rerolls is None else rerolls
        return rank(self.table.game, turn, roll, left, 0.0)


def find_typed(g: Game, text: str, options: list[Option], boxes_now) -> Option:
    """The option a player of game ``g`` typed among ``options``: dice to keep, ``all``,
    ``none`` or a box (before the last throw, among ``boxes_now()``: the rolling stops)."""
    word = text.strip().lower()
    if g.phase == "keep":
        if word.startswith("keep "):  # an option's label typed as shown
            word = word[5:].strip()
        keep: tuple[int, ...] | None = None
        if word == "all":
            assert g.dice is not None  # the keep phase: dice thrown
            keep = tuple(g.dice)
        elif word in ("none", "nothing", "-"):
            keep = ()
        elif word and all(ch.isdigit() or ch in ", " for ch in word):
            from dicelab.dice import parse_dice

            keep = tuple(sorted(parse_dice([word], g.rules.faces)))
        if keep is not None:
            for o in options:
                if o.kind == "keep" and o.keep == keep:
                    return o
            raise UserError(f"keep: {list(keep)} are not among the dice showing {g.dice}")
        options = boxes_now()
    if word.isdigit():  # a digit is a die's face at every prompt, never a row
        raise UserError(f"{word}: a box is named, not numbered (numbers are dice): type its "
                        "name, or an option's letter")  # fmt: skip
    return find_box(options, g.filled, word, g.rules)


def _thrown(dice: list[int] | None) -> list[int]:
    """The dice of a turn once thrown. Before its first throw there are none: a record's
    box without throws fails here as iterating None does (broken turn data)."""
    if dice is None:
        raise TypeError("'NoneType' object is not iterable")
    return dice


def seat_label(seat: str) -> str:
    return "first player (A)" if seat == "A" else "second player (B)"


# -- review -------------------------------------------------------------------------------
@dataclass(frozen=True)
class DuelDecision:
    """One decision of a recorded game of several players (a duel, a game at a table),
    priced in the mover's chance to win (a tie shared)."""

    turn: int
    seat: str | int
    dice: tuple[int, ...]
    rerolls_left: int
    chosen: Option
    best: Option

    @property
    def cost(self) -> float:
        return max(0.0, self.best.value - self.chosen.value)

    @property
    def mistake(self) -> bool:
        return self.cost > TIE

    def to_dict(self) -> dict:
        return {
            "turn": self.turn,
            "seat": self.seat,
            "dice": list(self.dice),
            "rerolls_left": self.rerolls_left,
            "chosen": self.chosen.label,
            "best": self.best.label,
            "win_chance_chosen": self.chosen.value,
            "win_chance_best": self.best.value,
            "cost": self.cost,
        }


def load_duel_record(path) -> dict:
    """Read a duel record; a file that is not one is a :class:`UserError`."""
    return load_record(path, FORMAT, "duel")


def check_duel_record(record: dict, table: DuelTable) -> None:
    """A duel record's version, seat and both games' headers, against the table's rules."""
    if record.get("version") != FORMAT_VERSION:
        raise UserError(f"duel record version {record.get('version')!r} is not supported")
    if record.get("human") not in SEATS:
        raise UserError(f"duel record: seat {record.get('human')!r}, expected A or B")
    for key in ("a", "b"):
        if not isinstance(record.get(key), dict):
            raise UserError(f"duel record: no game of player {key.upper()}")
        check_header(record[key], table)


def replay(table: DuelTable, expected: ExpectedTable, record: dict) -> Iterator[DuelDecision]:
    """Every decision of a recorded duel, in the order they were made."""
    check_duel_record(record, table)
    duel = DuelGame(table, expected, seed=0, human=record["human"])
    duel.games = {"A": Game(expected, dice="real"), "B": Game(expected, dice="real")}
    turns = [record["a"]["turns"], record["b"]["turns"]]
    return replay_seats(duel, turns, "duel", lambda seat: True)


def replay_seats(
    game: SeatedGame, turns: list[list], what: str, priced: Callable[[SeatT], bool]
) -> Iterator[DuelDecision]:
    """Play a recorded game of several players again on ``game`` (its dice real), a
    round at a time: ``turns`` holds each seat's recorded turns, in the order of
    ``game.seats``. Yields the decisions of the seats ``priced(seat)``, in the order
    they were made (the other seats' turns are played unpriced). ``what`` names the
    record in a mistake. One replay for a duel and a game at a table alike."""
    try:
        for t in range(game.rules.n_categories):
            for seat, recorded in zip(game.seats, turns, strict=True):
                if t >= len(recorded):
                    return
                where = f"turn {t + 1} of {game.seat_name(seat)}"
                ranked = game.options if priced(seat) else None
                for dice, rerolls, chosen, best in replay_turn(
                    game.game_of(seat), recorded[t], where, ranked
                ):
                    yield DuelDecision(t + 1, seat, dice, rerolls, chosen, best)
    except (KeyError, TypeError, ValueError) as exc:
        raise UserError(f"{what} record: broken turn data ({exc})") from None


def replay_turn(g: Game, rt: dict, where: str, options=None):
    """Play one recorded turn ``rt`` of game ``g`` again; with ``options`` (the ranked
    options of the decision at hand), yield each decision as ``(dice, rerolls left,
    chosen option, best option)``. ``where`` names the turn in a mistake."""
    throws, keeps = rt.get("throws", []), rt.get("keeps", [])
    for i, throw in enumerate(throws):
        dice = g.roll(throw)
        if i < len(keeps):
            keep = tuple(sorted(keeps[i]))
            if options is not None:
                ranked = options()
                chosen = next((o for o in ranked if o.kind == "keep" and o.keep == keep), None)
                if chosen is None:
                    raise UserError(f"{where}: keep {list(keep)} is not among the dice {g.dice}")
                yield tuple(dice), g.rerolls_left, chosen, ranked[0]
            g.keep(list(keep))
    if "box" in rt:
        if options is not None:
            ranked = options()
            chosen = next((o for o in ranked if o.box == rt["box"]), None)
            if chosen is None:
                raise UserError(f"{where}: box {rt['box']!r} cannot take the dice {g.dice}")
            yield tuple(_thrown(g.dice)), 0, chosen, ranked[0]
        g.fill(rt["box"])


def review_duel(
    table: DuelTable, expected: ExpectedTable, record: dict, seat: str | None = None
) -> list[DuelDecision]:
    """The decisions of one seat (the human's by default), each priced in win chance."""
    seat = seat or record.get("human")
    return [d for d in replay(table, expected, record) if d.seat == seat]


@dataclass(frozen=True)
class DuelResult(PricedGame):
    """A finished duel as the history keeps it: the player's final score and
    decisions, each priced in win chance."""

    score: int
    decisions: list


def duel_result(table: DuelTable, expected: ExpectedTable, record: dict) -> DuelResult:
    """The human's result of a finished duel record (its decisions reviewed).

    Raises
    ------
    UserError
        For a duel not finished.
    """
    from dicelab.play.game import score_of

    decisions = review_duel(table, expected, record)
    seat = record.get("human", "A")
    rules = table.rules
    sheets = [record.get(side, {}).get("turns", []) for side in ("a", "b")]
    if any(sum("box" in t for t in turns) < rules.n_categories for turns in sheets):
        raise UserError("history: the duel is not finished; keep it when it is")
    return DuelResult(score_of(rules, sheets[0 if seat == "A" else 1]), decisions)


# -- where playing to win and playing for points part ----------------------------------
@dataclass(frozen=True)
class Disagreement:
    """A decision reached in play where the expected-score choice loses win chance."""

    turn: int
    seat: str
    my_filled: dict
    their_filled: dict
    my_score: int
    their_score: int
    dice: tuple[int, ...]
    rerolls_left: int
    to_win: Option
    for_points: Option

    @property
    def cost(self) -> float:
        """Win chance lost by the expected-score choice."""
        return self.to_win.value - self.for_points.value

    @property
    def lead(self) -> int:
        return self.my_score - self.their_score

    def to_dict(self) -> dict:
        names = "turn seat my_boxes their_boxes my_score their_score"
        return {
            **plain_fields(self, names, my_boxes="my_filled", their_boxes="their_filled"),
            "dice": list(self.dice),
            "rerolls_left": self.rerolls_left,
            "to_win": self.to_win.label,
            "win_chance": self.to_win.value,
            "for_points": self.for_points.label,
            "win_chance_for_points": self.for_points.value,
            "cost": self.cost,
        }


@dataclass(frozen=True)
class DisagreementReport:
    games: int
    decisions: int
    disagreements: list[Disagreement]  # every position found, largest cost first
    occurrences: int  # disagreements met in play, a position met twice counting twice
    total_cost: float  # their costs added up, each decision taken alone

    @property
    def share(self) -> float:
        """Share of the decisions met in play where the two choices differ."""
        return self.occurrences / max(self.decisions, 1)

    @property
    def cost_per_game(self) -> float:
        """Win chance an expected-score choice loses per game, each taken alone."""
        return self.total_cost / max(self.games, 1)

    def to_dict(self, top: int = 20) -> dict:
        return {
            "games": self.games,
            "decisions": self.decisions,
            "disagreements": self.occurrences,
            "positions": len(self.disagreements),
            "share": self.share,
            "cost_per_game": self.cost_per_game,
            "largest": [d.to_dict() for d in self.disagreements[:top]],
        }


def duel_decisions(
    table: DuelTable,
    expected: ExpectedTable,
    games: int,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[DuelGame, str]]:
    """Every decision met in ``games`` duels played one after another (the dice of
    duel ``n`` seeded ``seed + 2 * n``), as the duel and the seat to decide, its dice
    thrown; the caller carries out an option (``apply``) before taking the next.
    ``progress(done, games)`` is told after each duel. The one loop of every count
    over duels played by the computer on both seats."""
    for n in range(games):
        duel = DuelGame(table, expected, seed=seed + 2 * n)
        while (seat := duel.mover) is not None:
            g = duel.games[seat]
            if g.phase == "roll":
                g.roll()
                continue
            yield duel, seat
        if progress is not None:
            progress(n + 1, games)


def find_disagreements(
    table: DuelTable, expected: ExpectedTable, games: int = 200, seed: int = 0, progress=None
) -> DisagreementReport:
    """Play ``games`` duels, both players playing to win, and at every decision compare
    the win-optimal choice with the expected-score optimum's.

    Returns every decision where the expected-score choice loses win chance, the
    largest first; each position counts once.
    """
    from dicelab.engine.advice.single import advise

    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 100_000:
        raise UserError(f"games: got {games!r}, expected 1 to 100,000")
    found: dict[tuple, Disagreement] = {}
    decisions = occurrences = 0
    total = 0.0
    for duel, seat in duel_decisions(table, expected, games, seed, progress):
        g = duel.games[seat]
        dice = g.dice
        assert dice is not None  # a decision: the dice are thrown
        options = duel.options()
        other = duel.games["B" if seat == "A" else "A"]
        plain = advise(
            expected,
            Position(tuple(dice), g.rerolls_left, g.filled, extra_bonuses=g.extra_bonuses),
        )
        decisions += 1
        choice = next(o for o in options if o.key == plain.options[0].key)
        if options[0].value - choice.value > TIE:
            _, mine = duel.state(seat)
            _, theirs = duel.state("B" if seat == "A" else "A")
            d = Disagreement(
                len(g.filled) + 1,
                seat,
                dict(g.filled),
                dict(other.filled),
                mine,
                theirs,
                tuple(dice),
                g.rerolls_left,
                options[0],
                choice,
            )
            key = (
                seat,
                tuple(sorted(d.my_filled.items())),
                tuple(sorted(d.their_filled.items())),
                d.dice,
                d.rerolls_left,
            )
            found[key] = d
            occurrences += 1
            total += d.cost
        duel.apply(options[0])
    ordered = sorted(found.values(), key=lambda d: -d.cost)
    return DisagreementReport(games, decisions, ordered, occurrences, total)
