"""A player's finished games, kept in a local SQLite database.

Every finished game (terminal play, the page, a duel, a training session) is kept
with its record (the JSON that ``dicelab review`` reads) and the figures of its
review: score, decisions, mistakes, average loss per decision and the worst
mistakes. ``dicelab history`` lists them, draws the trend and exports or imports
the records.

The database is one file in the user data folder (``DICELAB_DATA_DIR`` moves it):
the standard library's sqlite3 in WAL mode, so that two processes can write at
once (each game is one transaction; a writer waits for the other, up to
:data:`BUSY_SECONDS`). A game is written when it ends, so a killed process loses at
most the game in progress. The schema carries its version (``PRAGMA
user_version``) and the database its application id; opening one applies the
migrations it lacks. A file that is not such a database, or one of a newer
version, is refused in one line and never written to.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from dicelab.errors import UserError
from dicelab.plain import plain_fields

#: ``PRAGMA application_id`` of a dicelab history ("DLHI").
APPLICATION_ID = 0x444C4849
#: How long a writer waits for another one before giving up.
BUSY_SECONDS = 30.0
FILE_NAME = "history.sqlite3"
#: The schema, one script per version: a database of version ``v`` runs the scripts
#: after its ``v``-th. Never edit a script once released; add one.
MIGRATIONS = (
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        rules TEXT NOT NULL,
        finished_at REAL NOT NULL,
        score INTEGER NOT NULL,
        decisions INTEGER NOT NULL,
        mistakes INTEGER NOT NULL,
        total_cost REAL NOT NULL,
        worst TEXT NOT NULL,
        record TEXT NOT NULL,
        digest TEXT NOT NULL UNIQUE
    );
    CREATE INDEX games_by_time ON games (finished_at);
    """,
    # the decisions and mistakes of each kind (keeps, upper boxes, lower boxes)
    """
    ALTER TABLE games ADD COLUMN by_kind TEXT NOT NULL DEFAULT '[]';
    """,
)
#: What kinds of game are kept.
KINDS = ("game", "duel", "training", "match")
#: The kinds whose costs are a chance to win (a duel, a game at a table), not points.
CHANCE_KINDS = ("duel", "match")
#: Mistakes kept per game, the costliest first.
WORST_KEPT = 3


def data_dir() -> Path:
    """The folder of the history (``DICELAB_DATA_DIR`` overrides the user data folder)."""
    env = os.environ.get("DICELAB_DATA_DIR")
    if env:
        return Path(env)
    from platformdirs import user_data_dir

    return Path(user_data_dir("dicelab"))


def history_path() -> Path:
    return data_dir() / FILE_NAME


@dataclass(frozen=True)
class Entry:
    """One finished game, as the history keeps it."""

    id: int
    kind: str
    rules: str
    finished_at: float
    score: int
    decisions: int
    mistakes: int
    total_cost: float
    worst: list[dict]

    @property
    def average_cost(self) -> float:
        """Expected points lost per decision (0 for a game without decisions)."""
        return self.total_cost / self.decisions if self.decisions else 0.0

    @property
    def when(self) -> str:
        """The local date and time the game ended, to the minute."""
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(self.finished_at))

    def to_dict(self) -> dict:
        names = "id kind rules finished_at score decisions mistakes total_cost average_cost worst"
        return plain_fields(self, names, finished_at="when")


#: A row of the games as :func:`entries` selects it: an entry's fields, ``worst`` as JSON.
_EntryRow = tuple[int, str, str, float, int, int, int, float, str]


@contextmanager
def connect(path: Path | None = None, write: bool = False) -> Iterator[sqlite3.Connection]:
    """The history database, checked and brought up to the current schema.

    Reading a history that does not exist yet gives an empty one in memory (nothing
    is created until a game is kept).

    Raises
    ------
    UserError
        For a file that is not a dicelab history (damaged, or another program's), or
        one written by a newer dicelab; the file is left as it is.
    """
    path = Path(path) if path is not None else history_path()
    if not write and not path.exists():
        con = sqlite3.connect(":memory:")
        try:
            _migrate(con, path)
            yield con
        finally:
            con.close()
        return
    if write:
        path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
    try:
        _check(con, path)
        _migrate(con, path)
        yield con
    except sqlite3.DatabaseError as exc:
        if _busy(exc):
            raise UserError(
                f"history {path}: another process has held it for over {BUSY_SECONDS:.0f} s; "
                "try again"
            ) from None
        raise UserError(
            f"history {path}: the file is damaged ({exc}); it was left as it is"
        ) from None
    finally:
        con.close()


def _busy(exc: Exception) -> bool:
    """Whether an SQLite error says that another connection holds the file."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _patiently(con: sqlite3.Connection, sql: str, args=()):
    """Run a statement, again and again while another process holds the file (some
    statements, such as a change of journal mode, do not wait by themselves)."""
    deadline = time.monotonic() + BUSY_SECONDS
    while True:
        try:
            return con.execute(sql, args)
        except sqlite3.OperationalError as exc:
            if not _busy(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _check(con: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not a dicelab history, before anything is written to it."""
    try:
        # one statement, so one snapshot: another process may be creating the schema
        app, tables = _patiently(
            con,
            "SELECT (SELECT application_id FROM pragma_application_id), "
            "(SELECT count(*) FROM sqlite_master)",
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        if _busy(exc):
            raise
        raise UserError(
            f"history {path}: not a dicelab history (not an SQLite database, or a damaged "
            "one); it was left as it is (DICELAB_DATA_DIR picks another folder)"
        ) from None
    if app != APPLICATION_ID and tables:
        raise UserError(
            f"history {path}: an SQLite database of another program; it was left as it "
            "is (DICELAB_DATA_DIR picks another folder)"
        )


def _migrate(con: sqlite3.Connection, path: Path) -> None:
    """Apply the schema scripts the database lacks, each in one transaction."""
    version = _patiently(con, "PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise UserError(
            f"history {path}: written by a newer dicelab (schema {version}, this one "
            f"knows {len(MIGRATIONS)}); it was left as it is"
        )
    if version < len(MIGRATIONS):
        _patiently(con, "BEGIN IMMEDIATE")
        try:  # another process may have migrated meanwhile
            version = con.execute("PRAGMA user_version").fetchone()[0]
            for script in MIGRATIONS[version:]:
                for statement in filter(str.strip, script.split(";")):
                    con.execute(statement)
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise
    # WAL lets a reader and a writer work at once; the file keeps the mode once set
    if _patiently(con, "PRAGMA journal_mode").fetchone()[0] not in ("wal", "memory"):
        _patiently(con, "PRAGMA journal_mode=WAL")


class PricedGame:
    """A played game as :func:`keep` reads it: its ``score`` and its ``decisions``,
    each priced (``cost``), and what they cost in all. A reviewed game, a duel and a
    game at a table add up their costs here alike."""

    score: int
    decisions: list

    @property
    def total_cost(self) -> float:
        return float(sum(d.cost for d in self.decisions))


def keep(record: dict, review, kind: str = "game", path: Path | None = None) -> int | None:
    """Keep a finished game with the figures of its review; returns its id, or
    ``None`` when the same record is kept already.

    ``review`` is the game's :class:`dicelab.play.game.Review` (or any
    :class:`PricedGame`; each decision with ``cost``,
    ``mistake``, ``turn``, ``dice``, ``chosen`` and ``best``, and ``throw`` where
    known). Costs are expected points, or win chance for a duel or a game at a table.
    """
    if kind not in KINDS:
        raise ValueError(f"kind: got {kind!r}, expected one of {KINDS}")
    text = json.dumps(record, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(text.encode()).hexdigest()
    mistakes = sorted((d for d in review.decisions if d.mistake), key=lambda d: -d.cost)
    worst = [
        {
            "turn": d.turn,
            "throw": getattr(d, "throw", None),
            "dice": list(d.dice),
            "chosen": d.chosen.label,
            "best": d.best.label,
            "cost": d.cost,
        }
        for d in mistakes[:WORST_KEPT]
    ]
    by_kind = review.by_kind() if hasattr(review, "by_kind") else []
    row = (
        kind,
        str(record.get("rules", "")),
        time.time(),
        int(review.score),
        len(review.decisions),
        len(mistakes),
        float(review.total_cost),
        json.dumps(worst),
        text,
        digest,
        json.dumps(by_kind),
    )
    with connect(path, write=True) as con:
        cur = _patiently(
            con,
            "INSERT OR IGNORE INTO games (kind, rules, finished_at, score, decisions, "
            "mistakes, total_cost, worst, record, digest, by_kind) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            row,
        )
        return cur.lastrowid if cur.rowcount else None


def entries(rules: str | None = None, path: Path | None = None, last: int = 0) -> list[Entry]:
    """The kept games, oldest first (``rules``: of one rule set; ``last``: the most
    recent so many, 0 for all)."""
    query = (
        "SELECT id, kind, rules, finished_at, score, decisions, mistakes, total_cost, worst "
        "FROM games" + (" WHERE rules = ?" if rules else "") + " ORDER BY finished_at, id"
    )
    with connect(path) as con:
        rows: list[_EntryRow] = con.execute(query, (rules,) if rules else ()).fetchall()
    found = [Entry(*row[:8], json.loads(row[8])) for row in rows]
    return found[-last:] if last > 0 else found


def records(ids: list[int] | None = None, path: Path | None = None) -> list[dict]:
    """The game records kept (``ids``: those games only), oldest first."""
    with connect(path) as con:
        rows = con.execute("SELECT id, record FROM games ORDER BY finished_at, id").fetchall()
    wanted = None if ids is None else set(ids)
    return [json.loads(text) for i, text in rows if wanted is None or i in wanted]


def kinds_of(rules: str, path: Path | None = None) -> list[dict]:
    """The decisions and mistakes of each kind in the kept games and training sessions
    of a rule set (not the duels or games at a table: their costs are win chance), one
    row per game and kind."""
    with connect(path) as con:
        rows = con.execute(
            "SELECT by_kind FROM games WHERE rules = ? AND kind NOT IN ('duel', 'match')",
            (rules,),
        ).fetchall()
    return [row for (text,) in rows for row in json.loads(text)]


def summary(entries: list) -> dict:
    """The figures of the games and sessions kept: all of them, and the last ten.

    ``games`` counts every entry; ``mean_score`` is over the games alone (a training
    session's score counts its best answers, a duel's is one player's); the loss per
    decision and the share of best choices are over games and training sessions, in
    expected points (a duel's costs are win chance, and are left out).
    """

    def figures(es) -> dict:
        games = [e for e in es if e.kind == "game"]
        priced = [e for e in es if e.kind in ("game", "training")]
        decisions = sum(e.decisions for e in priced)
        return {
            "games": len(es),
            "mean_score": sum(e.score for e in games) / len(games) if games else None,
            "average_cost": sum(e.total_cost for e in priced) / decisions if decisions else None,
            "best_share": 1 - sum(e.mistakes for e in priced) / decisions if decisions else None,
        }

    return {"all": figures(entries), "last_10": figures(entries[-10:])}
