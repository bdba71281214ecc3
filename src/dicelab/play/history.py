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

A history that cannot be written (a read-only folder, a full disk, a data folder
that is a file) is a :class:`HistoryError` naming why, which costs the caller a
warning, never the game; one that cannot be opened for writing is still read, the
file opened read-only. SQLite keeps no checksums: a row whose fields no longer read
(a JSON column that does not parse, a number column holding text) is left out of
what is read, and its id is told to the caller.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import math
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


class HistoryError(UserError):
    """The history cannot be read or written here: a read-only folder, a full disk, a
    damaged file or another program's, a newer dicelab's.

    ``str()`` names the file, for the command line; :attr:`reason` says why without
    a path, for the server's answers. :attr:`doing` is ``"read"`` or ``"written"``.
    """

    def __init__(self, doing: str, why: str, reason: str) -> None:
        super().__init__(f"the history could not be {doing} ({why})")
        self.doing = doing
        self.reason = reason


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
    is created until a game is kept); reading one that cannot be opened for writing
    (a read-only folder, a full disk) opens it read-only.

    Raises
    ------
    HistoryError
        For a history that cannot be read (or, with ``write``, written): a read-only
        folder, a full disk, a file that is not a dicelab history (damaged, or
        another program's) or one written by a newer dicelab; the file is left as it is.
    """
    path = Path(path) if path is not None else history_path()
    if not write and not _exists(path):
        con = sqlite3.connect(":memory:")
        try:
            _migrate(con, path, "read")
            yield con
        finally:
            con.close()
        return
    con = _open(path, write)
    try:
        yield con
    except sqlite3.DatabaseError as exc:
        raise _failure(exc, path, "written" if write else "read") from None
    finally:
        con.close()


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except PermissionError:  # a folder that may not be looked into: opening it says why
        return True
    except OSError:  # a name too long for this system: no such file
        return False


def _open(path: Path, write: bool) -> sqlite3.Connection:
    """A connection to the history's file, checked and brought up to date; for
    reading, the file opened read-only where it cannot be opened for writing."""
    doing = "written" if write else "read"
    try:
        if write:
            path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        return _ready(con, path, doing, read_only=False)
    except (OSError, sqlite3.Error) as exc:
        if write or not _environmental(exc):
            raise _failure(exc, path, doing) from None
        first = exc
    # -shm and -wal cannot be made where nothing can be written: immutable, then
    for mode in ("mode=ro", "mode=ro&immutable=1"):
        try:
            uri = f"{path.resolve().as_uri()}?{mode}"
            con = sqlite3.connect(uri, uri=True, timeout=BUSY_SECONDS, isolation_level=None)
            return _ready(con, path, doing, read_only=True)
        except (OSError, sqlite3.Error) as exc:
            if not _environmental(exc):
                raise _failure(exc, path, doing) from None
    raise _failure(first, path, doing) from None


def _ready(con: sqlite3.Connection, path: Path, doing: str, read_only: bool):
    """The connection, its file checked and migrated (closed if it is not fit)."""
    con.text_factory = _text
    try:
        _check(con, path, doing)
        _migrate(con, path, doing, read_only)
    except BaseException:
        con.close()
        raise
    return con


def _text(data: bytes) -> str | None:
    """A text field, or ``None`` where a damaged byte left it no UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _busy(exc: Exception) -> bool:
    """Whether an SQLite error says that another connection holds the file."""
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


#: Words of SQLite's errors that blame the place of the file, not the file.
_PLACE_WORDS = ("readonly", "read-only", "unable to open", "disk is full", "permission", "i/o")


def _environmental(exc: BaseException) -> bool:
    """Whether an error blames where the file is (a read-only folder, a full disk),
    not what it holds."""
    if isinstance(exc, OSError):
        return True
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and any(w in text for w in _PLACE_WORDS)


def _failure(exc: BaseException, path: Path, doing: str) -> HistoryError:
    why, public = _reason(exc, path)
    return HistoryError(doing, why, public)


def _reason(exc: BaseException, path: Path) -> tuple[str, str]:
    """Why the history failed, in words: with its path, and without."""
    if isinstance(exc, Exception) and _busy(exc):
        wait = f"another process has held {{}} for over {BUSY_SECONDS:.0f} s; try again"
        return wait.format(path), wait.format("it")
    text = str(exc).lower()
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC or "disk is full" in text or ("i/o" in text and _full(path)):
        return f"the disk of {path.parent} is full", "the disk is full"
    place = _misplaced(path)
    if place is not None:
        return place
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or (
        isinstance(exc, sqlite3.Error) and _environmental(exc) and "i/o" not in text
    ):
        return _read_only(path, exc)
    if isinstance(exc, OSError):
        return f"{exc.filename or path}: {exc.strerror or exc}", str(exc.strerror or exc)
    if "i/o" in text:
        return f"a disk I/O error at {path}", "a disk I/O error"
    return f"{path} is damaged ({exc}); it was left as it is", "its file is damaged"


def _full(path: Path) -> bool:
    """Whether the disk of the history's folder has no room left (SQLite may call
    that a disk I/O error)."""
    try:
        room = os.statvfs(path.parent)
    except (OSError, AttributeError):
        return False
    writable = not room.f_flag & os.ST_RDONLY
    return writable and (room.f_bavail == 0 or room.f_bfree == 0)


def _misplaced(path: Path) -> tuple[str, str] | None:
    """A history file that is a folder, or a folder of it that is a file."""
    try:
        if path.is_dir():
            return f"{path} is a folder, not a file", "its file is a folder"
        for folder in path.parents:
            if folder.exists():
                if folder.is_dir():
                    return None
                return f"{folder} is not a folder", "its folder is a file"
    except OSError:
        return None
    return None


def _read_only(path: Path, exc: BaseException) -> tuple[str, str]:
    """Where writing is refused: a read-only file system, folder or file."""
    folder = next((f for f in path.parents if _exists(f)), path.parent)  # the one to write in
    with contextlib.suppress(OSError, AttributeError):
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"read-only file system at {folder}", "read-only file system"
    if _exists(path) and not os.access(path, os.R_OK):
        return f"no permission to open {path}", "no permission to open its file"
    if _exists(path) and not os.access(path, os.W_OK):
        return f"read-only file {path}", "read-only file"
    if not os.access(folder, os.W_OK | os.X_OK) or "read" in str(exc).lower():
        return f"read-only folder {folder}", "read-only folder"
    return f"{path} cannot be opened ({exc})", "its file cannot be opened"


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


def _check(con: sqlite3.Connection, path: Path, doing: str) -> None:
    """Refuse a file that is not a dicelab history, before anything is written to it."""
    try:
        # one statement, so one snapshot: another process may be creating the schema
        app, tables = _patiently(
            con,
            "SELECT (SELECT application_id FROM pragma_application_id), "
            "(SELECT count(*) FROM sqlite_master)",
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        if _busy(exc) or _environmental(exc):
            raise
        raise HistoryError(
            doing,
            f"{path} is not a dicelab history, or a damaged one; it was left as it is, "
            "and DICELAB_DATA_DIR picks another folder",
            "its file is not a dicelab history, or a damaged one",
        ) from None
    if app != APPLICATION_ID and tables:
        raise HistoryError(
            doing,
            f"{path} is an SQLite database of another program; it was left as it is, "
            "and DICELAB_DATA_DIR picks another folder",
            "its file is an SQLite database of another program",
        )


def _migrate(con: sqlite3.Connection, path: Path, doing: str, read_only: bool = False) -> None:
    """Apply the schema scripts the database lacks, each in one transaction (on a
    file opened read-only, the first write fails: the caller says why)."""
    version = _patiently(con, "PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise HistoryError(
            doing,
            f"{path} was written by a newer dicelab, schema {version} where this one "
            f"knows {len(MIGRATIONS)}; it was left as it is",
            "it was written by a newer dicelab",
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
    if read_only:
        return
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


def entries(
    rules: str | None = None,
    path: Path | None = None,
    last: int = 0,
    damaged: list[int] | None = None,
) -> list[Entry]:
    """The kept games, oldest first (``rules``: of one rule set; ``last``: the most
    recent so many, 0 for all). A row whose fields no longer read is left out, its
    id added to ``damaged`` where given."""
    query = (
        "SELECT id, kind, rules, finished_at, score, decisions, mistakes, total_cost, worst "
        "FROM games" + (" WHERE rules = ?" if rules else "") + " ORDER BY finished_at, id"
    )
    with connect(path) as con:
        rows: list[_EntryRow] = con.execute(query, (rules,) if rules else ()).fetchall()
    found = []
    for row in rows:
        entry = _entry(row)
        if entry is not None:
            found.append(entry)
        elif damaged is not None:
            damaged.append(row[0])
    return found[-last:] if last > 0 else found


def _entry(row: _EntryRow) -> Entry | None:
    """The entry of a row, or ``None`` where a field of it does not read as it should."""
    _, kind, rules, finished_at, score, decisions, mistakes, total_cost, worst = row
    numbers = (finished_at, total_cost)
    if not (
        kind in KINDS
        and isinstance(rules, str)
        and all(type(n) is int and n >= 0 for n in (decisions, mistakes))
        and type(score) is int
        and all(type(x) in (int, float) and math.isfinite(x) for x in numbers)
    ):
        return None
    mistaken = _json(worst)
    if not isinstance(mistaken, list) or not all(_mistake(w) for w in mistaken):
        return None
    try:
        time.localtime(finished_at)  # a time this platform can tell
    except (OverflowError, OSError, ValueError):
        return None
    return Entry(*row[:8], mistaken)


def _mistake(data: object) -> bool:
    """Whether one of the worst mistakes of a row reads as :func:`keep` wrote it."""
    if not isinstance(data, dict) or not {"turn", "chosen", "best", "cost"} <= data.keys():
        return False
    cost = data["cost"]
    return type(cost) in (int, float) and math.isfinite(cost)


def _json(text: object) -> object:
    """A JSON field's value, or ``None`` where a damaged byte broke it."""
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        return None


def _no_constant(word: str) -> float:
    raise ValueError(f"{word}: not written by dicelab")


def records(
    ids: list[int] | None = None, path: Path | None = None, damaged: list[int] | None = None
) -> list[dict]:
    """The game records kept (``ids``: those games only), oldest first; a record that
    no longer reads is left out, its id added to ``damaged`` where given."""
    with connect(path) as con:
        rows = con.execute("SELECT id, record FROM games ORDER BY finished_at, id").fetchall()
    found = []
    for i, text in rows:
        if ids is not None and i not in ids:
            continue
        record = _json(text)
        if isinstance(record, dict):
            found.append(record)
        elif damaged is not None:
            damaged.append(i)
    return found


def kinds_of(rules: str, path: Path | None = None, damaged: list[int] | None = None) -> list[dict]:
    """The decisions and mistakes of each kind in the kept games and training sessions
    of a rule set (not the duels or games at a table: their costs are win chance), one
    row per game and kind; a game whose figures no longer read is left out, its id
    added to ``damaged`` where given."""
    with connect(path) as con:
        rows = con.execute(
            "SELECT id, by_kind FROM games WHERE rules = ? AND kind NOT IN ('duel', 'match')",
            (rules,),
        ).fetchall()
    found = []
    for i, text in rows:
        kinds = _json(text)
        if isinstance(kinds, list) and all(_kind_row(k) for k in kinds):
            found += kinds
        elif damaged is not None:
            damaged.append(i)
    return found


def _kind_row(data: object) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("kind"), str)
        and all(type(data.get(k)) is int and data[k] >= 0 for k in ("decisions", "mistakes"))
    )


def damaged_note(ids: list[int]) -> str:
    """One sentence naming the games of the history left out as damaged."""
    shown = ", ".join(f"#{i}" for i in ids[:10]) + (
        f" and {len(ids) - 10} more" if len(ids) > 10 else ""
    )
    one = len(ids) == 1
    return (
        f"game{'' if one else 's'} {shown} of the history {'is' if one else 'are'} damaged "
        f"(a field that no longer reads) and {'is' if one else 'are'} left out"
    )


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
