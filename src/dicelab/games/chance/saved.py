"""Solved dice games kept in the cache folder, as the Yahtzee tables are.

A built-in family's solution (every position's value and chosen move) is written
once, atomically and with checksums, into the same folder and format as the
tables (:mod:`dicelab.engine.runtime.cache`), and read back the next time the same
game is asked for: Pig to 100 or the bear-off race then skip their solve. The key
holds the game's class and settings, the objective, and a digest of the solver's
and the families' sources, so a changed rule or solver never reads an old answer;
the file must also fit the layout at hand (as many positions and links). A game
class of one's own is never cached: its code may change under the same name.
"""

from __future__ import annotations

import hashlib
import json
import re
from functools import cache
from pathlib import Path

import numpy as np

from dicelab.engine.graph import GraphSolution
from dicelab.games.chance.model import ChanceGame

__all__ = ["MIN_POSITIONS", "load", "load_turn_starts", "save", "save_turn_starts"]

#: The objective a turn-start table is kept under (its own files, beside the graphs').
TURN_STARTS = "win-turn-starts"

#: Smaller games are solved again rather than kept: they take less than reading a file.
MIN_POSITIONS = 100_000


@cache
def _sources_digest() -> str:
    """A digest of the sources a solution depends on (families, layouts, solvers),
    found without importing them (the kernels would load Numba)."""
    from importlib.util import find_spec

    here = Path(__file__).parent
    solvers = ("graph", "small_graph", "kernels.graph", "turnstart", "kernels.turnstart",
               "race", "kernels.race", "seats", "kernels.seats")  # fmt: skip
    found = [find_spec(f"dicelab.engine.{name}") for name in solvers]
    files = sorted(here.glob("*.py")) + [Path(spec.origin or "") for spec in found if spec]
    h = hashlib.sha256()
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _plain(value):
    """A setting as JSON, or ``None`` where it is not plain data (derived tables); a
    table that names itself by a ``key`` (Farkle's scoring) is its key."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if hasattr(value, "key"):
        return _plain(value.key)
    if isinstance(value, (tuple, list)):
        items = [_plain(v) for v in value]
        return None if any(i is None for i in items) else items
    return None


def game_key(game, objective: str, target: float | None) -> dict | None:
    """What names a solution: the game's class and settings, the objective; ``None``
    for a game class of one's own."""
    cls = type(game)
    if not cls.__module__.startswith("dicelab.games.chance."):
        return None
    family = getattr(game, "game", None)  # a table of players: its family's settings too
    if isinstance(family, ChanceGame):
        inner = game_key(family, objective, target)
        if inner is None:
            return None
        inner["settings"]["players"] = game.players
        return {**inner, "name": game.name}
    settings = {k: _plain(v) for k, v in sorted(vars(game).items()) if not k.startswith("_")}
    return {"game": f"{cls.__module__}.{cls.__qualname__}", "name": game.name,
            "settings": {k: v for k, v in settings.items() if v is not None},
            "objective": objective, "target": target, "sources": _sources_digest()}  # fmt: skip


def _path(key: dict) -> Path:
    from dicelab.engine.runtime.cache import SUFFIX, cache_dir

    blob = json.dumps(key, sort_keys=True, separators=(",", ":")).encode()
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", key["name"]).strip("-")[:40] or "game"
    digest = hashlib.sha256(blob).hexdigest()[:32]
    return cache_dir() / f"{slug}.{key['objective']}.{digest}{SUFFIX}"


def load(game, objective: str, target: float | None, nodes: int, links: int):
    """The cached solution of this game and objective and its file, if one is intact
    and fits the layout (``nodes`` positions, ``links`` links); else ``None``."""
    from dicelab.engine.runtime import budget
    from dicelab.engine.runtime.cache import load_table

    if nodes < MIN_POSITIONS:  # before the key: its digest reads the sources
        return None
    key = game_key(game, objective, target)
    if key is None:
        return None
    path = _path(key)
    found = load_table(path, {"game_key": key, "objective": objective, "links": links})
    if found is None or found[0].shape != (nodes, 2):
        return None
    table, header = found
    budget.mark_used(path)
    values, choice = table[:, 0].copy(), table[:, 1].astype(np.int64)
    solved = GraphSolution(values, choice, float(header["residual"]), int(header["cyclic"]),
                           int(header["sweeps"]), int(header["rounds"]), values)  # fmt: skip
    return solved, str(path)


def save(game, objective: str, target: float | None, solved: GraphSolution, links: int,
         seconds: float) -> str | None:  # fmt: skip
    """Keep a solution (see the module's text); its path, or ``None`` where it is not
    kept (too small, a game of one's own, or a disk that refuses it: one warning)."""
    from dicelab.engine.runtime.cache import store_table

    if solved.values.size < MIN_POSITIONS:
        return None
    key = game_key(game, objective, target)
    if key is None:
        return None
    table = np.column_stack([solved.values, solved.choice.astype(np.float64)])
    meta = {"game_key": key, "objective": objective, "links": links,
            "rules": {"name": key["name"]}, "params": {"target": target} if target else {},
            "residual": solved.residual, "cyclic": solved.cyclic, "sweeps": solved.sweeps,
            "rounds": solved.rounds, "seconds": seconds}  # fmt: skip
    return store_table(_path(key), table, meta)


def load_turn_starts(game, turn):
    """The cached turn-start table of a two-player banking game
    (:class:`~dicelab.engine.turnstart.TurnStartTable`) and its file, if one is intact
    and fits the turn at hand; else ``None``."""
    from dicelab.engine.runtime import budget
    from dicelab.engine.runtime.cache import load_table
    from dicelab.engine.turnstart import TurnStartTable

    key = game_key(game, TURN_STARTS, None)
    if key is None:
        return None
    path = _path(key)
    found = load_table(path, {"game_key": key, "objective": TURN_STARTS})
    side = turn.scores * turn.counts
    if found is None or found[0].shape != (side, side):
        return None
    table, header = found
    budget.mark_used(path)
    return TurnStartTable(turn, np.ascontiguousarray(table, np.float64), int(header["steps"]),
                          float(header["seconds"])), str(path)  # fmt: skip


def save_turn_starts(game, table, seconds: float) -> str | None:
    """Keep a turn-start table; its path, or ``None`` where it is not kept (a game of
    one's own, or a disk that refuses it: one warning)."""
    from dicelab.engine.runtime.cache import store_table

    key = game_key(game, TURN_STARTS, None)
    if key is None:
        return None
    meta = {"game_key": key, "objective": TURN_STARTS, "rules": {"name": key["name"]},
            "params": {}, "steps": table.steps, "seconds": seconds}  # fmt: skip
    return store_table(_path(key), table.W, meta)


#: The objective a table of players' turn starts is kept under.
SEATS = "seats"


def load_seats(game, turn):
    """The cached table of a table of players' turn starts
    (:class:`~dicelab.engine.seats.SeatTable`) and its file, if one is intact and
    fits; else ``None``."""
    from dicelab.engine.runtime import budget
    from dicelab.engine.runtime.cache import load_table
    from dicelab.engine.seats import SeatTable

    key = game_key(game, SEATS, None)
    if key is None:
        return None
    path = _path(key)
    found = load_table(path, {"game_key": key, "objective": SEATS})
    if found is None or found[0].shape != (turn.scores**game.players, game.players):
        return None
    table, header = found
    budget.mark_used(path)
    solved = SeatTable(turn, game.players, np.ascontiguousarray(table, np.float64),
                       int(header["rounds"]), int(header["sweeps"]), float(header["seconds"]),
                       float(header["regret"]), float(header["unsettled"]))  # fmt: skip
    return solved, str(path)


def seats_kept(game) -> bool:
    """Whether the cache holds a file of this table of players' turn starts (read and
    checked by :func:`load_seats` when used)."""
    key = game_key(game, SEATS, None)
    return key is not None and _path(key).is_file()


def save_seats(game, table) -> str | None:
    """Keep a table of players' turn starts; its path, or ``None`` where it is not
    kept."""
    from dicelab.engine.runtime.cache import store_table

    key = game_key(game, SEATS, None)
    if key is None:
        return None
    meta = {"game_key": key, "objective": SEATS, "rules": {"name": key["name"]}, "params": {},
            "rounds": table.rounds, "sweeps": table.sweeps, "seconds": table.seconds,
            "regret": table.regret, "unsettled": table.unsettled}  # fmt: skip
    return store_table(_path(key), table.T, meta)


def _named_key(what: dict) -> dict:
    """The key of a table named by ``what`` alone (a table that serves many games,
    such as every pair of bear-off sides of up to some checkers)."""
    name = "-".join(f"{k}-{v}" for k, v in sorted(what.items()))
    return {"game": "table", "name": name, "settings": what, "objective": "table",
            "target": None, "sources": _sources_digest()}  # fmt: skip


def load_named(what: dict, shape: tuple[int, ...]):
    """The cached table named by ``what`` and its file, if one is intact and of
    ``shape``; else ``None``."""
    from dicelab.engine.runtime import budget
    from dicelab.engine.runtime.cache import load_table

    key = _named_key(what)
    path = _path(key)
    found = load_table(path, {"game_key": key, "objective": "table"})
    if found is None or found[0].shape != tuple(shape):
        return None
    budget.mark_used(path)
    return found[0], str(path)


def save_named(what: dict, values: np.ndarray, seconds: float) -> str | None:
    """Keep the table named by ``what`` (see :func:`load_named`)."""
    from dicelab.engine.runtime.cache import store_table

    key = _named_key(what)
    meta = {"game_key": key, "objective": "table", "rules": {"name": key["name"]},
            "params": {}, "seconds": seconds}  # fmt: skip
    return store_table(_path(key), values, meta)
