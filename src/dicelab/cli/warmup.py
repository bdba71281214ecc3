"""Every command's kernels compiled once: the main solves here, the others beside them.

:func:`dicelab.api.compile_kernels` compiles what the main commands run (the
expected-score turn, targets, the distribution, the simulation, the dice games).
The other commands (the duel, a table of players, ``assign``, the dice race,
``compare``, ``--explain``, the dice games' advice) have kernels of their own, each
compiled on its first use: half a minute to a minute and a half of waiting, met
once per command. :func:`compile_all` compiles those too, in a second process on
the other core while this one compiles the main ones
(:func:`dicelab.engine.runtime.ahead.start_all`: it compiles into a folder of its
own, and what this cache lacks is brought over at the end). The second process
runs each command once on a tiny game (:data:`COMMANDS`), its output discarded
and its tables kept in a folder that is then removed.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from pathlib import Path

#: A duel of two dice of three faces and four boxes: solved in milliseconds.
TINY_RULES = """\
name = "tiny"
dice = 2
faces = 3
rolls = 2
upper_bonus = { threshold = 4, points = 5 }
categories = [
  { id = "ones", kind = "face", face = 1 },
  { id = "threes", kind = "face", face = 3 },
  { id = "pair", kind = "of_a_kind", count = 2, score = 10 },
  { id = "sum", kind = "chance" },
]
"""

#: Known rolls for ``assign``: one game of Yahtzee's thirteen turns.
ROLLS = "\n".join(["1 1 1 1 1", "2 3 4 5 6", "6 6 6 5 5", "3 3 4 4 5"] * 3 + ["1 2 3 4 5"])

#: The tiny duel with another bonus, to compare with it.
OTHER_RULES = TINY_RULES.replace('"tiny"', '"tiny-b"').replace("points = 5", "points = 8")

#: One call of each command (``RULES``, ``OTHER`` and ``ROLLS`` name files written
#: for it: :func:`write_files`).
# fmt: off
COMMANDS = [
    ["duel", "RULES"],
    ["duel", "advise", "RULES", "--dice", "1", "3", "--mine", "", "--theirs", "", "--explain"],
    ["match", "advise", "RULES", "--dice", "1", "3", "--mine", "", "--theirs", "", "--theirs", ""],
    ["match", "evaluate", "RULES", "--players", "2", "--games", "10"],
    ["compare", "RULES", "OTHER", "--duel"],
    ["assign", "ROLLS"],
    ["assign", "ROLLS", "--rules", "yahtzee"],
    ["race", "5,6,7", "6,7,8", "--simulate", "--max-games", "1000"],
    ["race", "best", "--dice", "1", "--faces", "4", "--picks", "2"],
    ["advise", "yazy", "--dice", "1", "1", "2", "5", "6", "--rerolls", "2", "--explain"],
    ["advise", "farkle", "--set", "players=2", "--set", "goal=200",
     "--at", "1 1 5 2 3 4 / 0 / 50 100"],
    ["advise", "farkle", "--set", "players=2", "--set", "goal=200", "--set", "penalty=50",
     "--at", "1 1 5 2 3 4 / 0 / 50 100 / 1 0"],
    ["solve", "bearoff", "--set", "mine=3,2,1"],
    ["solve", "bearoff", "--set", "mine=2,1", "--set", "theirs=2,1"],
    ["simulate", "bearoff", "--set", "mine=2,1", "--set", "theirs=2,1", "--games", "10"],
    ["solve", "pig", "--set", "players=3", "--set", "goal=4"],
    ["advise", "pig", "--set", "players=3", "--set", "goal=4", "--at", "1 2 3 1"],
    ["simulate", "pig", "--set", "players=3", "--set", "goal=4", "--games", "10"],
]
# fmt: on


#: Kernels of those commands: when all are cached, so are the rest (nothing to start).
COMPILED_BY_THEM = [
    "dicelab.engine.kernels.duel:duel_blocks",
    "dicelab.engine.kernels.lead:lead_blocks",
    "dicelab.engine.kernels.pairs:keep_rows",
    "dicelab.engine.kernels.parts:parts_layer",
    "dicelab.games.assign.hindsight:_options",
    "dicelab.games.chance.bearoff_race:race_edges",
    "dicelab.engine.kernels.seats:solve_seat_layer",
]


def run_commands() -> None:
    """Run :data:`COMMANDS` in this process, quietly, on tiny games (the second
    process of :func:`compile_all`), each twice: the second reads the tables the
    first kept, and a table read back (read-only, or in single precision) is read by
    kernels of its own. A command that fails is passed over."""
    from dicelab.cli import main

    with tempfile.TemporaryDirectory(prefix="dicelab-warmup-") as folder:
        os.environ["DICELAB_CACHE_DIR"] = folder
        os.environ["DICELAB_DATA_DIR"] = folder
        files = write_files(Path(folder))
        for command in COMMANDS + COMMANDS:
            sys.argv = ["dicelab", *(str(files.get(word, word)) for word in command)]
            with contextlib.suppress(BaseException), contextlib.redirect_stdout(io.StringIO()):
                main()
        with contextlib.suppress(BaseException):  # the page's spread of each option
            from dicelab.engine.objectives.expected import expected_table
            from dicelab.engine.objectives.spread import spread_table
            from dicelab.rules import load_rules

            table = expected_table(load_rules(files["RULES"]))
            spread_table(table.game, table)


def write_files(folder: Path) -> dict[str, Path]:
    """The files :data:`COMMANDS` name, written into ``folder``."""
    texts = {"RULES": TINY_RULES, "OTHER": OTHER_RULES, "ROLLS": ROLLS + "\n"}
    files = {key: folder / f"{key.lower()}.{'txt' if key == 'ROLLS' else 'toml'}"
             for key in texts}  # fmt: skip
    for key, text in texts.items():
        files[key].write_text(text)
    return files


def compile_all(progress=None) -> None:
    """Compile every command's kernels: :func:`dicelab.api.compile_kernels` here,
    :func:`run_commands` in another process meanwhile."""
    import dicelab.api
    from dicelab.engine.runtime import ahead

    job = f"{__name__}:run_commands"
    ahead.start_all(job, COMPILED_BY_THEM)
    dicelab.api.compile_kernels(progress)
    ahead.finish(job)
