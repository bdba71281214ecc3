"""Playing along: a game in progress, its record on disk, and its review.

The record is the game: every throw, every keep and every box, as plain JSON (see
``docs/advice.md``). A :class:`Game` appends to it step by step; :func:`review`
replays it against the expected-score table and prices every decision.

API
---
``Game(table, dice="virtual", seed=None)``
    Start a game (``dice="real"`` for dice the player throws and types in).
``game.phase``
    ``"roll"`` (dice must be thrown), ``"keep"`` (keep some dice, rerolls left),
    ``"box"`` (choose a box) or ``"over"``.
``game.roll(dice=None)``
    Throw the dice not kept: drawn for virtual dice; for real dice give the new
    dice (only the rerolled ones, or all of them including the kept ones).
``game.keep(dice)``
    Keep these dice and reroll the others; keeping all of them ends the rolling.
``game.fill(box)``
    Fill a box (id, number from 1 or name) with the dice showing; with rerolls
    left this keeps every die first. ``game.score`` is the points so far.
``game.position()`` / ``game.advice()``
    The decision at hand as an :class:`~dicelab.engine.advice.single.Position`, and its advice.
``find_box_option(advice, text, rules)``
    The box option a player named (id, number, name or a unique start of one).
``game.record`` / ``save_record(record, path)`` / ``load_record(path)``
    The JSON-ready record, written atomically and read back with checks.
``Game.resume(table, record)``
    Continue an unfinished game from its record.
``review(table, record) -> Review``
    Every decision with the best option and its cost, the totals, the luck.

>>> from dicelab.engine.objectives.expected import expected_table
>>> game = Game(expected_table("yahtzee"), seed=1)
>>> dice = game.roll()
>>> game.phase
'keep'
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from dicelab.engine.advice.single import TIE, Advice, Option, Position, advise
from dicelab.engine.objectives.expected import ExpectedTable
from dicelab.engine.table import SolvedTable
from dicelab.errors import UserError, parse_nested, read_user_file
from dicelab.plain import plain_fields
from dicelab.play.history import PricedGame

FORMAT = "dicelab-game"
FORMAT_VERSION = 1
#: How a record's dice came: ``virtual`` from NumPy's generator with the recorded seed
#: (so the seed and the keeps reproduce every throw), ``drawn`` by another program
#: (the web page) with no seed to reproduce them, ``real`` thrown and typed in.
RECORD_DICE = ("virtual", "drawn", "real")


def _faces(dice, n_faces: int, what: str) -> list[int]:
    """Dice as a sorted list of faces, checked."""
    if isinstance(dice, (str, bytes)) or not hasattr(dice, "__iter__"):
        raise UserError(f"{what}: expected a list of dice, got {dice!r}")
    out = []
    for d in dice:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= n_faces:
            raise UserError(f"{what}: die {d!r} is not a face from 1 to {n_faces}")
        out.append(int(d))
    return sorted(out)


def _contains(dice: list[int], part: list[int]) -> bool:
    """Whether the multiset ``part`` is inside ``dice``."""
    rest = list(dice)
    for d in part:
        if d not in rest:
            return False
        rest.remove(d)
    return True


def _minus(dice: list[int], part: list[int]) -> list[int]:
    rest = list(dice)
    for d in part:
        rest.remove(d)
    return rest


class Game:
    """A game being played, one decision at a time.

    Parameters
    ----------
    table : ExpectedTable
        The expected-score table of the rules played (for advice and scoring).
    dice : {"virtual", "real"}
        Virtual dice are drawn from a generator seeded by ``seed`` (a random seed
        is chosen and recorded when none is given); real dice are typed in.
    seed : int, optional
        Seed of the virtual dice: the same seed and choices give the same game.
    rules_source : str, optional
        How the rules were named (a built-in name or a file path), kept in the
        record so that a review can load them again.
    """

    def __init__(
        self,
        table: ExpectedTable,
        dice: str = "virtual",
        seed: int | None = None,
        rules_source: str | None = None,
    ):
        if dice not in ("virtual", "real"):
            raise UserError(f"dice: got {dice!r}, expected 'virtual' or 'real'")
        check_seed(seed)
        if dice == "real" and seed is not None:
            raise UserError("a seed is for virtual dice; real dice are typed in")
        if dice == "virtual" and seed is None:
            seed = secrets.randbelow(2**31)
        self.table = table
        rules = table.rules
        self.record: dict = {
            **record_header(FORMAT, FORMAT_VERSION, rules, rules_source),
            "dice": dice,
            "seed": seed if dice == "virtual" else None,
            "turns": [],
            "finished": False,
            "final_score": None,
        }
        self._rng = np.random.default_rng(seed) if dice == "virtual" else None

    # -- state ---------------------------------------------------------------------
    @property
    def rules(self):
        return self.table.rules

    @property
    def turns(self) -> list[dict]:
        return self.record["turns"]

    @property
    def _turn(self) -> dict | None:
        """The turn being played, or None between turns."""
        if self.turns and "box" not in self.turns[-1]:
            return self.turns[-1]
        return None

    @property
    def phase(self) -> str:
        """``"roll"``, ``"keep"``, ``"box"`` or ``"over"``."""
        if self.record["finished"]:
            return "over"
        t = self._turn
        if t is None or len(t["keeps"]) == len(t["throws"]) and not self._stopped(t):
            return "roll"
        return "box" if self.rerolls_left == 0 else "keep"

    def _stopped(self, turn: dict) -> bool:
        """Whether the turn's last keep was every die (no more rolling)."""
        return bool(turn["keeps"]) and len(turn["keeps"][-1]) == self.rules.dice

    @property
    def served_now(self) -> bool:
        """Whether the dice showing are the turn's first throw under rules that pay
        served bonuses: a box filled now takes its served points."""
        t = self._turn
        return bool(self.table.game.has_served and t and len(t["throws"]) == 1)

    @property
    def dice(self) -> list[int] | None:
        """The dice showing, sorted (None before the turn's first throw)."""
        t = self._turn
        return list(t["throws"][-1]) if t and t["throws"] else None

    @property
    def kept(self) -> list[int]:
        """The dice kept for the next throw."""
        t = self._turn
        if t and len(t["keeps"]) == len(t["throws"]):
            return list(t["keeps"][-1])
        return []

    @property
    def rerolls_left(self) -> int:
        """Rerolls still allowed in this turn."""
        t = self._turn
        if t is None or not t["throws"]:
            return self.rules.rolls - 1
        if self._stopped(t):
            return 0
        return self.rules.rolls - len(t["throws"])

    @property
    def filled(self) -> dict[str, int]:
        """The filled boxes and their points, in the order they were filled."""
        return {t["box"]: t["points"] for t in self.turns if "box" in t}

    @property
    def extra_bonuses(self) -> int:
        return sum(1 for t in self.turns if t.get("extra_bonus"))

    @property
    def score(self) -> int:
        """Points so far: boxes, extra bonuses, and the upper bonus once earned."""
        return score_of(self.rules, self.turns)

    # -- moves ---------------------------------------------------------------------
    def roll(self, dice=None) -> list[int]:
        """Throw the dice that are not kept; returns all the dice showing, sorted."""
        if self.phase != "roll":
            raise UserError(f"cannot roll now: {self._expect()}")
        rules = self.rules
        kept = self.kept
        need = rules.dice - len(kept)
        if dice is None:
            if self._rng is None:
                raise UserError("real dice: give the dice you threw")
            new = [int(x) for x in self._rng.integers(1, rules.faces + 1, size=need)]
        else:
            if self._rng is not None:
                raise UserError("virtual dice are drawn by the game: roll without dice")
            given = _faces(dice, rules.faces, "dice")
            if len(given) == need:
                new = given
            elif len(given) == rules.dice and _contains(given, kept):
                new = _minus(given, kept)
            else:
                also = f" (or all {rules.dice} including the kept {kept})" if kept else ""
                raise UserError(f"dice: got {len(given)}, expected the {need} thrown{also}")
        turn = self._turn
        if turn is None:
            turn = {"throws": [], "keeps": []}
            self.turns.append(turn)
        showing = sorted(kept + new)
        turn["throws"].append(showing)
        return list(showing)

    def keep(self, dice) -> None:
        """Keep these dice and reroll the others; all the dice means stop rolling."""
        if self.phase != "keep":
            raise UserError(f"cannot keep dice now: {self._expect()}")
        keep = _faces(dice, self.rules.faces, "keep")
        turn, showing = self._turn, self.dice
        assert turn is not None and showing is not None  # the keep phase: dice thrown
        if not _contains(showing, keep):
            raise UserError(f"keep: {keep} are not among the dice showing {showing}")
        turn["keeps"].append(keep)

    def fill(self, box: str) -> int:
        """Write the dice showing in a box; returns the points it took.

        With rerolls left, the dice are kept first (the rolling stops).
        """
        if self.phase == "keep":
            self.keep(self.dice)
        if self.phase != "box":
            raise UserError(f"cannot fill a box now: {self._expect()}")
        option = find_box_option(self.advice(), box, self.rules)
        t = self._turn
        assert t is not None and option.points is not None  # the box phase: a box option
        t["box"] = option.box
        t["points"] = option.points
        t["extra_bonus"] = option.extra
        if len(self.filled) == self.rules.n_categories:
            self.record["finished"] = True
            self.record["final_score"] = self.score
        return option.points

    def undo(self) -> str:
        """Take back the last decision (a keep, or a box) and say what it was: the dice
        shown before it come back, and virtual dice then fall as they did (no new luck
        is drawn by taking a decision back)."""
        turns = self.turns
        if turns and not turns[-1]["keeps"] and "box" not in turns[-1]:
            turns.pop()  # a turn thrown but not played: its decision is the last box
        if not turns:
            raise UserError("nothing to take back: no decision yet")
        t = turns[-1]
        if "box" in t:
            what = f"took back {t['box']} ({t['points']})"
            for key in ("box", "points", "extra_bonus"):
                t.pop(key, None)
            self.record["finished"], self.record["final_score"] = False, None
            if t["keeps"] and len(t["keeps"]) == len(t["throws"]):  # the rolling stopped
                t["keeps"].pop()  # with the box: the keep decision comes back
        else:
            what = f"took back keep {' '.join(map(str, t['keeps'][-1])) or 'nothing'}"
            t["keeps"].pop()
            del t["throws"][len(t["keeps"]) + 1 :]
        if self._rng is not None:  # the draws so far, drawn again from the seed
            self._rng = np.random.default_rng(self.record["seed"])
            for turn in self.turns:
                for i, throw in enumerate(turn["throws"]):
                    kept = turn["keeps"][i - 1] if i > 0 else []
                    self._rng.integers(1, self.rules.faces + 1, size=len(throw) - len(kept))
        return what

    def _expect(self) -> str:
        return {
            "roll": "the dice must be thrown",
            "keep": "choose the dice to keep",
            "box": "choose a box",
            "over": "the game is over",
        }[self.phase]

    # -- advice ----------------------------------------------------------------------
    def position(self) -> Position:
        """The decision at hand."""
        if self.phase not in ("keep", "box"):
            raise UserError(f"no decision now: {self._expect()}")
        rerolls = self.rerolls_left
        if self.served_now:  # scoring the first throw at once: the served boxes
            rerolls = self.rules.rolls - 1
        dice = self.dice
        assert dice is not None  # a decision: dice showing
        return Position(
            dice=tuple(dice),
            rerolls=rerolls,
            filled=self.filled,
            extra_bonuses=self.extra_bonuses,
        )

    def advice(self) -> Advice:
        """Every option of the decision at hand, ranked.

        Once the rolling has stopped only the boxes are options; on a served first
        throw they come with their served points, priced against the best box.
        """
        advice = advise(self.table, self.position())
        if self.phase == "box" and any(o.kind == "keep" for o in advice.options):
            boxes = [o for o in advice.options if o.kind == "box"]
            best = boxes[0].value
            boxes = [replace(o, cost=max(0.0, best - o.value)) for o in boxes]
            advice = replace(advice, options=boxes)
        return advice

    @classmethod
    def resume(cls, table: ExpectedTable, record: dict) -> Game:
        """Continue a game from its record (checked against the table's rules)."""
        game = cls(table, dice="real")
        for _ in _replay(game, record):
            pass
        for key in ("started", "rules_source", "dice", "seed"):
            game.record[key] = record.get(key, game.record[key])
        if record["dice"] == "drawn":  # drawn elsewhere, by no seed: draw on afresh
            game._rng = np.random.default_rng()
        if record["dice"] == "virtual":
            game._rng = np.random.default_rng(record["seed"])
            for t in game.turns:  # draw what the recorded throws drew
                for i, throw in enumerate(t["throws"]):
                    kept = t["keeps"][i - 1] if i > 0 else []
                    game._rng.integers(1, table.rules.faces + 1, size=len(throw) - len(kept))
        return game


def find_box_option(advice: Advice, box: str, rules) -> Option:
    """The option of the box named by id, number (from 1), name, or a unique start of one."""
    return find_box(advice.options, advice.position.filled, box, rules)


def find_box(
    options: Sequence[Option], filled: Mapping[str, int | None], box: str, rules
) -> Option:
    """:func:`find_box_option` among ``options``, the boxes ``filled`` already taken."""
    ids = [c.id for c in rules.categories]
    key = str(box).strip()
    if key.isascii() and key.isdigit() and 1 <= int(key) <= len(ids):  # not "²"
        key = ids[int(key) - 1]
    low = key.lower()
    exact = [c.id for c in rules.categories if low in (c.id, c.label.lower())]
    starts = [
        c.id for c in rules.categories if c.id.startswith(low) or c.label.lower().startswith(low)
    ]
    if exact or (low and len(starts) == 1):
        key = (exact or starts)[0]
    if key not in ids:
        raise UserError(f"unknown box {box!r}; the boxes are: {', '.join(ids)}")
    for o in options:
        if o.box == key:
            return o
    if key in filled:
        raise UserError(f"box {key!r} is already filled")
    boxes = [o.box for o in options if o.kind == "box"]
    if rules.forced_order and boxes:
        raise UserError(
            f"{rules.name} fills its boxes in scorecard order: this turn fills {boxes[0]!r}"
        )
    raise UserError(f"box {key!r} cannot take this roll under the joker rule")


def score_of(rules, turns: list[dict]) -> int:
    """Points of the filled boxes, extra bonuses, and the upper bonus if earned."""
    upper = {c.id for c in rules.categories if c.counts_for_bonus}
    total = sum(t["points"] + t.get("extra_bonus", 0) for t in turns if "box" in t)
    up = sum(t["points"] for t in turns if "box" in t and t["box"] in upper)
    if rules.bonus_threshold > 0 and up >= rules.bonus_threshold:
        total += rules.bonus_points
    return total


# -- records on disk -------------------------------------------------------------------
def save_record(record: dict, path: str | Path) -> Path:
    """Write a game record as JSON, atomically (a crash never leaves half a file)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".dicelab-game-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(record_text(record))
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write the game record {str(path)!r}: {exc.strerror}") from None
    return path


def record_text(record: dict) -> str:
    """A record as JSON text: one line per field, and one line per turn."""
    items = []
    for key, value in record.items():
        if key == "turns" and value:
            turns = ",\n".join("  " + json.dumps(t) for t in value)
            items.append(f' "turns": [\n{turns}\n ]')
        else:
            items.append(f" {json.dumps(key)}: {json.dumps(value)}")
    return "{\n" + ",\n".join(items) + "\n}\n"


def check_seed(seed) -> None:
    """A seed of the dice is a whole number 0 or more, or None (drawn at random)."""
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise UserError(f"seed: got {seed!r}, expected a whole number 0 or more")


def record_header(fmt: str, version: int, rules, rules_source: str | None) -> dict:
    """The fields every record starts with: its format and version, the rules (name,
    where they came from, fingerprint) and when the game started."""
    return {
        "format": fmt,
        "version": version,
        "rules": rules.name,
        "rules_source": rules_source or rules.name,
        "fingerprint": rules.fingerprint(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }


def load_record(path: str | Path, fmt: str = FORMAT, what: str = "game") -> dict:
    """Read a record of format ``fmt`` (a ``what`` record: game or duel); a file that is
    not one is a :class:`UserError`."""
    path = Path(path)
    text = read_user_file(path, f"{what} record {str(path)!r}")
    try:
        record = parse_nested(json.loads, text, path.name)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path.name}: not a dicelab {what} record (broken JSON: {exc})") from None
    if not isinstance(record, dict) or record.get("format") != fmt:
        raise UserError(f'{path.name}: not a dicelab {what} record (no "format": "{fmt}")')
    return record


def check_header(record: dict, table: SolvedTable) -> None:
    """Check a record's format, version and rules against the table's rules."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise UserError(f'not a dicelab game record (no "format": "{FORMAT}")')
    version = record.get("version")
    if version != FORMAT_VERSION:
        raise UserError(f"game record version {version!r} is not supported (expected 1)")
    rules = table.rules
    fp = record.get("fingerprint")
    if not isinstance(fp, str):
        raise UserError("game record: no rules fingerprint")
    if fp != rules.fingerprint():
        raise UserError(
            f"the game was played under other rules than {rules.name!r} "
            f"(the record names {record.get('rules')!r}; fingerprints differ)"
        )
    if record.get("dice") not in RECORD_DICE:
        raise UserError(
            f"game record: dice {record.get('dice')!r}, expected virtual, drawn or real"
        )
    seed = record.get("seed")
    if record["dice"] == "virtual" and (
        isinstance(seed, bool) or not isinstance(seed, int) or seed < 0
    ):
        raise UserError(f"game record: seed {seed!r}, expected a whole number for virtual dice")
    if not isinstance(record.get("turns"), list):
        raise UserError("game record: 'turns' must be a list")


def _dice_lists(value, what: str) -> list:
    if not isinstance(value, list) or not all(isinstance(x, list) for x in value):
        raise UserError(f"{what}: expected a list of lists of dice")
    return value


@dataclass(frozen=True)
class _Step:
    turn: int
    throw: int
    position: Position
    kind: str
    choice: list[int] | str  # the dice kept, or the box as the record names it


def _replay(game: Game, record: dict) -> Iterator[_Step]:
    """Drive ``game`` (real dice, fresh) through a record, yielding each decision first.

    Every move goes through the game's own checks, so a record that breaks the
    rules (a box filled twice, a keep that is not among the dice, too many
    throws) stops with a :class:`UserError` naming the turn.
    """
    check_header(record, game.table)
    turns = record["turns"]
    n = len(turns)
    for ti, turn in enumerate(turns):
        where = f"game record, turn {ti + 1}"
        try:
            if not isinstance(turn, dict):
                raise UserError("expected an object with throws, keeps and box")
            throws = _dice_lists(turn.get("throws"), "throws")
            keeps = _dice_lists(turn.get("keeps", []), "keeps")
            if not throws:
                raise UserError("no throws")
            if len(keeps) > len(throws):
                raise UserError(f"{len(keeps)} keeps for {len(throws)} throws")
            if "box" not in turn and ti < n - 1:
                raise UserError("no box, but more turns follow")
            for i, throw in enumerate(throws):
                if len(throw) != game.rules.dice:
                    raise UserError(f"throw {i + 1}: {len(throw)} dice, expected {game.rules.dice}")
                game.roll(throw)
                if i < len(keeps):
                    keep = _faces(keeps[i], 99, "keep")
                    # a served first throw kept whole is priced as the box it fills
                    if not (game.served_now and len(keep) == game.rules.dice):
                        yield _Step(ti, i, game.position(), "keep", keep)
                    game.keep(keeps[i])
            if "box" in turn:
                if game.phase == "keep":
                    showing = game.dice
                    assert showing is not None  # the keep phase: dice thrown
                    if not game.served_now:
                        yield _Step(ti, len(throws) - 1, game.position(), "keep", showing)
                    game.keep(game.dice)
                yield _Step(ti, len(throws) - 1, game.position(), "box", str(turn["box"]))
                points = game.fill(str(turn["box"]))
                done = game.turns[-1]
                for key in ("points", "extra_bonus"):
                    if key in turn and turn[key] != done[key]:
                        raise UserError(
                            f"box {done['box']!r}: the record says {key.replace('_', ' ')} "
                            f"{turn[key]!r}, the rules give {done[key]} ({points} points)"
                        )
        except UserError as exc:
            raise UserError(f"{where}: {exc}") from None
    final = record.get("final_score")
    if game.phase == "over" and final is not None and final != game.score:
        raise UserError(f"game record: final score {final!r}, the turns add up to {game.score}")


# -- review ------------------------------------------------------------------------------
class PricedChoice:
    """A choice against the best option of its decision, priced as the options are
    ranked (``chosen.cost``): what a reviewed decision and a graded answer share."""

    chosen: Option
    best: Option

    @property
    def cost(self) -> float:
        """What the choice loses against the best option (0 for a best choice)."""
        return self.chosen.cost

    @property
    def mistake(self) -> bool:
        return self.cost > TIE


@dataclass(frozen=True)
class Decision(PricedChoice):
    """One decision of a played game, priced in expected points against the best option."""

    turn: int
    throw: int
    dice: tuple[int, ...]
    rerolls_left: int
    chosen: Option
    best: Option
    rank: int
    n_options: int
    #: ``keep`` (a choice of dice before a reroll, or stopping), ``upper box`` (a box
    #: whose points count towards the upper bonus) or ``lower box``
    kind: str = "keep"
    #: why the choice costs what it does, for a mistake reviewed with the split of the
    #: expected score by box (see :func:`review`); else empty
    why: str = ""


@dataclass(frozen=True)
class Review(PricedGame):
    """A played game, decision by decision, against optimal play.

    ``luck`` splits the difference between the outcome and the expectation at the
    start: ``outcome = expected_score - total_cost + luck``. For a finished game
    the outcome is the final score; for an unfinished one it is the expected final
    score after the last decision. A game reviewed in the chance it was played for
    (``measure`` ``"chance"``, see :func:`review_chance`) has every figure in that
    chance: the start's, each cost, and the outcome (1 or 0 for a target reached or
    missed, the chance to beat the opponent with the final score).
    """

    rules: str
    decisions: list[Decision]
    finished: bool
    score: int
    expected_score: float
    outcome: float
    measure: str = "points"

    @property
    def mistakes(self) -> list[Decision]:
        return [d for d in self.decisions if d.mistake]

    @property
    def luck(self) -> float:
        return self.outcome - self.expected_score + self.total_cost

    def by_kind(self) -> list[dict]:
        """Decisions, mistakes and cost of each kind of decision (keeps, upper boxes,
        lower boxes), for the kinds the game had."""
        out = []
        for kind in DECISION_KINDS:
            ds = [d for d in self.decisions if d.kind == kind]
            if ds:
                out.append(
                    {
                        "kind": kind,
                        "decisions": len(ds),
                        "mistakes": sum(d.mistake for d in ds),
                        "cost": float(sum(d.cost for d in ds)),
                    }
                )
        return out

    def to_dict(self) -> dict:
        """Plain data for JSON output."""
        return {
            **plain_fields(self, "rules measure finished score expected_score total_cost"),
            "mistakes": len(self.mistakes),
            **plain_fields(self, "luck outcome"),
            "average_cost": self.total_cost / len(self.decisions) if self.decisions else 0.0,
            "by_kind": self.by_kind(),
            "decisions": [
                {
                    "turn": d.turn,
                    "throw": d.throw,
                    "dice": list(d.dice),
                    "rerolls_left": d.rerolls_left,
                    "chosen": d.chosen.label,
                    "chosen_value": d.chosen.value,
                    "best": d.best.label,
                    "best_value": d.best.value,
                    "cost": d.cost,
                    "rank": d.rank,
                    "options": d.n_options,
                    "kind": d.kind,
                    "why": d.why or None,
                }
                for d in self.decisions
            ],
        }


DECISION_KINDS = ("keep", "upper box", "lower box")


def _kind(option: Option, rules) -> str:
    if option.kind == "keep":
        return "keep"
    box = next(c for c in rules.categories if c.id == option.box)
    return "upper box" if box.counts_for_bonus else "lower box"


def review(
    table: ExpectedTable, record: dict, explain=None, chance=None, measure: str = "chance"
) -> Review:
    """Price every decision of a recorded game against the expected-score optimum.

    ``explain``: an :class:`~dicelab.engine.objectives.explain.ExplainTable` of the rules; each
    mistake then says why it costs what it does (``Decision.why``). ``chance``: price
    in a chance instead (see :func:`review_chance`): ``(rank, start, final)``, the
    advice of a position, the chance at the start, the chance of a final score;
    ``measure`` names what those figures are (``chance``, or ``points`` for a sure
    score).
    """
    rank, start, final = chance if chance else (lambda p: advise(table, p), None, float)
    game = Game(table, dice="real")
    decisions: list[Decision] = []
    for step in _replay(game, record):
        advice = rank(step.position)
        try:
            chosen = _chosen(advice, step, table.rules)
        except UserError as exc:
            raise UserError(f"game record, turn {step.turn + 1}: {exc}") from None
        rank_of = 1 + advice.options.index(chosen)
        costly = chosen.cost > TIE and chance is None
        decisions.append(
            Decision(
                turn=step.turn + 1,
                throw=step.throw + 1,
                dice=step.position.dice,
                rerolls_left=step.position.rerolls,
                chosen=chosen,
                best=advice.best,
                rank=rank_of,
                n_options=len(advice.options),
                kind=_kind(chosen, table.rules),
                why=why_of(explain, step.position, chosen) if costly else "",
            )
        )
    finished = game.phase == "over"
    if finished:
        outcome = final(game.score)
    elif game.phase in ("keep", "box"):
        outcome = rank(game.position()).value if chance else game.advice().value
    elif decisions:
        outcome = decisions[-1].chosen.value
    else:
        outcome = table.expected_score if start is None else start
    return Review(
        rules=table.rules.name,
        decisions=decisions,
        finished=finished,
        score=game.score,
        expected_score=table.expected_score if start is None else start,
        outcome=outcome,
        measure="points" if chance is None else measure,
    )


def review_chance(
    table: ExpectedTable, chances, record: dict, params: dict | None = None, measure="chance"
):
    """Price every decision in what the game was played for, from that objective's
    table ``chances``: the chance of a target (``params`` holds the ``target``; a
    table of every target or of that one), the chance to beat a points player, or a
    sure score (risk). Each table gives its advice, its start and a finished game's
    value in its own measure (``measure``: ``chance``, or ``points`` for a sure score)."""
    params = params or {}
    start = chances.outlook(0, 0, 0, 0, **params)
    return review(
        table,
        record,
        chance=(
            lambda p: chances.advise(p, **params),
            float(start),
            lambda s: chances.final_value(int(s), **params),
        ),
        measure=measure,
    )


def why_of(explain, position: Position, chosen: Option) -> str:
    """The sentence that says why ``chosen`` is worth what it is, from the split of the
    expected score by box (``explain``: an ExplainTable, or ``None`` for none)."""
    if explain is None:
        return ""
    from dicelab.engine.objectives.explain import explain_advice

    # a box chosen once the rolling stopped is priced among the boxes alone
    for where in (position, replace(position, rerolls=0)):
        advice = explain_advice(explain, where)
        for o, why in zip(advice.options, advice.explanations, strict=True):
            if o.key == chosen.key:
                return why.text
    return ""


def _chosen(advice: Advice, step: _Step, rules) -> Option:
    if step.kind == "box":
        return find_box_option(advice, str(step.choice), rules)
    keep = tuple(sorted(step.choice))
    if step.position.rerolls == 0:
        raise UserError(
            f"keep {list(keep)} after the last throw: no rerolls are left, a box must be filled"
        )
    for o in advice.options:
        if o.keep == keep:
            return o
    raise UserError(f"keep {list(keep)} is not among the dice {list(step.position.dice)}")
