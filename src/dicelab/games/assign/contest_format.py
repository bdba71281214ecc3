"""The programming contest's text format of known rolls: games read, answers written.

Input: lines of dice (``1 2 3 4 5``), one game every ``boxes`` lines, any number of
games; output: one line a game with each box's points, the bonus and the total
(:func:`format_lines`), or the same as JSON with the roll of each box
(:func:`format_json`). A malformed line ends the reading: the games before it are
kept, and the mistake names the line (:class:`ParsedGames`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import numpy as np

from dicelab.errors import UserError
from dicelab.games.assign.hindsight import DEFAULT_RULES, Assignments, checked_game
from dicelab.rules import Rules
from dicelab.rules.compiled import CompiledRules


@dataclass(frozen=True)
class ParsedGames:
    """Games read from the contest's text format.

    Attributes
    ----------
    faces : ndarray, shape (n_games, n_boxes, dice)
        The complete games read before the first error.
    lines : ndarray, shape (n_games, n_boxes)
        The input line (1-based) of every roll.
    error : UserError or None
        The first mistake in the input, naming its line; games after it are not read.
    """

    faces: np.ndarray
    lines: np.ndarray
    error: UserError | None


_INT = re.compile(r"[+-]?[0-9]+")


def _bad_token(tokens: list[str], faces: int) -> str | None:
    """Why a line's values are not faces, or None if they all are."""
    for t in tokens:
        if not _INT.fullmatch(t):
            return f"{t!r} is not a whole number"
        if not 1 <= int(t) <= faces:
            return f"{t} is not a face of the dice (expected 1 to {faces})"
    return None


def _faces_array(rows: list[list[str]], faces: int) -> tuple[np.ndarray, int]:
    """The rows as integers, and the first row that is not all faces (or -1).

    Plain digits, the usual case, are converted by NumPy in one go; anything
    else is checked token by token to find the first bad line.
    """
    joined = "".join(["".join(t) for t in rows])
    if joined.isascii() and joined.isdigit():
        try:
            arr = np.array(rows).astype(np.int64)
        except (ValueError, OverflowError):
            pass
        else:
            bad = np.flatnonzero(((arr < 1) | (arr > faces)).any(axis=1))
            return arr, int(bad[0]) if len(bad) else -1
    first_bad = next((i for i, t in enumerate(rows) if _bad_token(t, faces)), -1)
    good = rows if first_bad < 0 else rows[:first_bad]
    arr = np.array([[int(x) for x in t] for t in good], dtype=np.int64)
    return arr.reshape(len(good), len(rows[0])), first_bad


def _parse_plain(text: str, dice: int, faces: int, n_cat: int) -> ParsedGames | None:
    """Vectorised reading of a flawless input of one-digit faces, else None.

    Works on the bytes: each digit is a token, each newline ends a line. Any
    other character, a line of the wrong length, a face out of range or a game
    cut short returns None, and the line-by-line reader finds and names the fault.
    """
    if not text.isascii() or faces > 9:
        return None
    b = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    digit = (b >= ord("0")) & (b <= ord("9"))
    newline = b == ord("\n")
    blank = (b == ord(" ")) | (b == ord("\t")) | (b == ord("\r")) | newline
    if not np.all(digit | blank):
        return None
    if np.any(digit[1:] & digit[:-1]):
        return None  # a number of several digits
    line_of = np.cumsum(newline) - newline
    tok_line = line_of[digit]
    vals = b[digit].astype(np.int64) - ord("0")
    per_line = np.bincount(tok_line, minlength=int(newline.sum()) + 1)
    if np.any((per_line != 0) & (per_line != dice)):
        return None
    if np.any((vals < 1) | (vals > faces)):
        return None
    numbers = np.flatnonzero(per_line) + 1
    if len(numbers) % n_cat:
        return None
    n_games = len(numbers) // n_cat
    return ParsedGames(
        faces=vals.reshape(n_games, n_cat, dice),
        lines=numbers.astype(np.int64).reshape(n_games, n_cat),
        error=None,
    )


def parse_games(text: str, rules: Rules | CompiledRules | str = DEFAULT_RULES) -> ParsedGames:
    """Read games in the contest format: one roll per line, as many lines as boxes.

    A line holds the faces of one roll separated by spaces; blank lines are
    skipped. Reading stops at the first malformed line, or at a game cut short by
    the end of the input; the complete games before it are kept, so they can still
    be answered.
    """
    game = checked_game(rules)
    r = game.rules
    dice, n_cat = r.dice, r.n_categories
    plain = _parse_plain(text, dice, r.faces, n_cat)
    if plain is not None:
        return plain
    rows: list[list[str]] = []
    numbers: list[int] = []
    error: UserError | None = None
    error_row = -1

    def where(no: int, row: int) -> str:
        return f"line {no} (game {row // n_cat + 1}, roll {row % n_cat + 1})"

    for no, line in enumerate(text.split("\n"), start=1):
        tokens = line.split()
        if not tokens:
            continue
        if len(tokens) != dice:
            error = UserError(
                f"{where(no, len(rows))}: expected {dice} faces from 1 to {r.faces} "
                f"separated by spaces, got {len(tokens)} value{'s' if len(tokens) != 1 else ''}"
            )
            error_row = len(rows)
            break
        rows.append(tokens)
        numbers.append(no)
    arr = np.zeros((len(rows), dice), dtype=np.int64)
    if rows:
        arr, first_bad = _faces_array(rows, r.faces)
        if first_bad >= 0:
            why = _bad_token(rows[first_bad], r.faces)
            error = UserError(f"{where(numbers[first_bad], first_bad)}: {why}")
            error_row = first_bad
    n_rows = len(rows) if error is None else error_row
    n_games = n_rows // n_cat
    if error is None and n_rows % n_cat:
        got = n_rows % n_cat
        error = UserError(
            f"line {numbers[-1]}: the input ends in the middle of game {n_games + 1} "
            f"({got} of its {n_cat} rolls given, from line {numbers[n_games * n_cat]})"
        )
    keep = n_games * n_cat
    faces = arr[:keep].reshape(n_games, n_cat, dice)
    lines = np.array(numbers[:keep], dtype=np.int64).reshape(n_games, n_cat)
    return ParsedGames(faces=faces, lines=lines, error=error)


def format_lines(result: Assignments) -> str:
    """One line per game: each box's points, the bonus, [the extra bonus,] the total.

    For ``uva10149`` this is the contest's output, 15 numbers. The extra-bonus
    column is there only when the rules have an extra all-same bonus.
    """
    cols = [result.scores, result.bonus[:, None]]
    if result.rules.extra_bonus > 0:
        cols.append(result.extra_bonus[:, None])
    cols.append(result.total[:, None])
    table = np.concatenate(cols, axis=1).tolist()
    return "".join(" ".join(map(str, row)) + "\n" for row in table)


def to_records(result: Assignments, lines: np.ndarray | None = None) -> list[dict]:
    """Per game: total, bonus, extra bonus, and each box's roll and points."""
    ids = [c.id for c in result.rules.categories]
    out = []
    for g in range(len(result)):
        boxes = []
        for c, box in enumerate(ids):
            i = int(result.roll_of_box[g, c])
            item = {
                "box": box,
                "score": int(result.scores[g, c]),
                "roll": i + 1,
                "dice": [int(f) for f in result.faces[g, i]],
            }
            if lines is not None:
                item["line"] = int(lines[g, i])
            boxes.append(item)
        out.append(
            {
                "game": g + 1,
                "total": int(result.total[g]),
                "bonus": int(result.bonus[g]),
                "extra_bonus": int(result.extra_bonus[g]),
                "boxes": boxes,
            }
        )
    return out


def format_json(result: Assignments, lines: np.ndarray | None = None) -> str:
    """The games as one JSON document: ``{"rules": ..., "games": [...]}``.

    Each box is written on one line, so a game reads like a score sheet.
    """
    games = []
    for rec in to_records(result, lines):
        head = ", ".join(f'"{k}": {json.dumps(v)}' for k, v in rec.items() if k != "boxes")
        boxes = ",\n".join("        " + json.dumps(b) for b in rec["boxes"])
        games.append(f'    {{{head},\n      "boxes": [\n{boxes}\n      ]}}')
    body = ",\n".join(games)
    inner = f"[\n{body}\n  ]" if games else "[]"
    return f'{{\n  "rules": {json.dumps(result.rules.name)},\n  "games": {inner}\n}}\n'
