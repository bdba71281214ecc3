"""``dicelab assign``: the best scoring of known rolls, read from a file or standard input."""

from __future__ import annotations

import sys
from pathlib import Path

from dicelab.errors import UserError, read_user_file
from dicelab.games.assign.contest_format import format_json, format_lines, parse_games
from dicelab.games.assign.hindsight import DEFAULT_RULES, assign, checked_game


def run_assign(
    source: str | Path | None, rules: str = DEFAULT_RULES, as_json: bool = False
) -> None:
    """The ``dicelab assign`` command: read, solve, print; then report a bad line.

    The complete games before a malformed line are answered first, so a long
    input is never lost to one mistake; the error is raised afterwards.
    """
    game = checked_game(rules)
    if source is None or str(source) == "-":
        try:
            text = sys.stdin.read()
        except UnicodeDecodeError as exc:
            raise UserError(f"standard input is not text: {exc}") from None
    else:
        text = read_user_file(source, f"input file {str(source)!r}")
    parsed = parse_games(text, game)
    if parsed.error is None and len(parsed.faces) == 0:
        where = "standard input" if source is None or str(source) == "-" else repr(str(source))
        raise UserError(f"{where} holds no game: expected lines of five dice (1 to 6), "
                        f"{game.n_categories} lines a game")  # fmt: skip
    result = assign(parsed.faces, game)
    out = format_json(result, parsed.lines) if as_json else format_lines(result)
    sys.stdout.write(out)
    sys.stdout.flush()
    if parsed.error is not None:
        raise parsed.error
