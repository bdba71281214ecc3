"""Solved tables on disk: the cache folder, file format, checksum, load and save.

A solved table is expensive to make and cheap to keep, so each one is written to
the user's cache folder, named by a key derived from the normalised rules, the
objective and the engine version. A table file is::

    DICELAB-TABLE\\n
    <8-byte little-endian length><metadata JSON>
    <array bytes>

The metadata holds the normalised rules, the objective, the engine version, the
array's shape and dtype and the SHA-256 of its bytes. A file is used only when
every one of these matches what the caller asks for; anything else (a truncated
file, a flipped bit, a table of other rules copied under the wrong name) is
treated as absent and rebuilt. Files are written to a temporary name in the same
folder and renamed into place, so a crash never leaves half a table behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from platformdirs import user_cache_dir

from dicelab.rules import Rules

#: Bumped whenever a change in the solvers changes what a table holds.
ENGINE_VERSION = "1"

MAGIC = b"DICELAB-TABLE\n"
SUFFIX = ".dlt"


def cache_dir() -> Path:
    """The folder of cached tables (``DICELAB_CACHE_DIR`` overrides the default)."""
    env = os.environ.get("DICELAB_CACHE_DIR")
    return Path(env) if env else Path(user_cache_dir("dicelab")) / "tables"


def table_key(rules: Rules, objective: str, params: dict | None = None) -> str:
    """Cache key of a table: rules, objective, its parameters and engine version."""
    blob = json.dumps(
        {
            "rules": rules.normalised(),
            "objective": objective,
            "params": params or {},
            "engine": ENGINE_VERSION,
        },
        sort_keys=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def table_path(rules: Rules, objective: str, params: dict | None = None) -> Path:
    """Where the table of these rules and objective lives in the cache."""
    key = table_key(rules, objective, params)
    return cache_dir() / f"{rules.name}.{objective}.{key}{SUFFIX}"


def save_table(path: Path, array: np.ndarray, meta: dict) -> None:
    """Write an array and its metadata atomically, with a checksum.

    The array's memory is hashed and written in place, never copied, so saving a
    table of several gigabytes needs no second one.
    """
    data = np.ascontiguousarray(array)
    view = memoryview(data).cast("B")
    header = dict(meta)
    header.update(
        shape=list(data.shape),
        dtype=str(data.dtype),
        sha256=hashlib.sha256(view).hexdigest(),
        engine=ENGINE_VERSION,
        created=time.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    blob = json.dumps(header, sort_keys=True).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(MAGIC)
            fh.write(struct.pack("<Q", len(blob)))
            fh.write(blob)
            fh.write(view)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def store_table(path: Path, array: np.ndarray, meta: dict) -> str | None:
    """Save a freshly solved table; returns its path, or ``None`` if it could not be.

    A disk that refuses the file (full, read-only, a cache path that is not a
    folder) must not cost the user the result just computed: one warning line on
    standard error, and the table is used uncached.
    """
    try:
        save_table(path, array, meta)
    except OSError as exc:
        print(f"warning: the table could not be cached in {path.parent}: {exc}", file=sys.stderr)
        return None
    return str(path)


def read_header(path: Path) -> dict | None:
    """Metadata of a table file, or ``None`` if it is not a readable table."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return None
            (n,) = struct.unpack("<Q", fh.read(8))
            if n > 10_000_000:
                return None
            header = json.loads(fh.read(n))
            header["_offset"] = len(MAGIC) + 8 + n
            return header if isinstance(header, dict) else None
    except (OSError, ValueError, struct.error):
        return None


def load_table(path: Path, expect: dict) -> tuple[np.ndarray, dict] | None:
    """Read a table if it is intact and matches ``expect``; else ``None``.

    ``expect`` maps metadata keys (``rules``, ``objective``, ``params`` ...) to the
    values they must have. The engine version and the checksum are always checked.
    """
    header = read_header(path)
    if header is None or header.get("engine") != ENGINE_VERSION:
        return None
    for key, value in expect.items():
        if header.get(key) != value:
            return None
    try:
        dtype = np.dtype(header["dtype"])
        shape = tuple(int(x) for x in header["shape"])
        array = np.empty(shape, dtype=dtype)
        view = memoryview(array).cast("B")
        with open(path, "rb") as fh:
            fh.seek(header["_offset"])
            got = fh.readinto(view)
            extra = fh.read(1)
    except (OSError, KeyError, TypeError, ValueError, MemoryError):
        return None
    if got != len(view) or extra or hashlib.sha256(view).hexdigest() != header.get("sha256"):
        return None
    return array, header


def lookup(
    rules: Rules, objective: str, shape: tuple[int, ...], params: dict | None = None
) -> tuple[np.ndarray, dict] | None:
    """A cached table of these rules, objective and parameters, if one is intact.

    Returns the values (which must have ``shape``) and the table's ``meta``
    (``cached``, ``path``, ``solve_seconds``), or ``None``.
    """
    path = table_path(rules, objective, params)
    expect = {"rules": rules.normalised(), "objective": objective, "params": params or {}}
    found = load_table(path, expect)
    if found is None or found[0].shape != tuple(shape):
        return None
    values, header = found
    return values, {"cached": True, "path": str(path), "solve_seconds": header.get("seconds")}


def remember(
    table, rules: Rules, objective: str, params: dict | None = None, use_cache: bool = True,
    **extra,
) -> None:  # fmt: skip
    """Set a freshly solved table's ``meta`` and, with ``use_cache``, store it."""
    table.meta = {"cached": False, "path": None}
    if use_cache:
        path = table_path(rules, objective, params)
        meta = {"rules": rules.normalised(), "objective": objective, "params": params or {}}
        meta.update(seconds=table.seconds, **extra)
        table.meta["path"] = store_table(path, table.values, meta)


@dataclass(frozen=True)
class CachedTable:
    """One file in the cache folder, as listed by ``dicelab cache list``."""

    path: Path
    rules: str
    objective: str
    bytes: int
    created: str
    valid: bool


def list_tables() -> list[CachedTable]:
    """Every table file in the cache folder, damaged ones included (``valid`` False)."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        if path.name.startswith(".tmp-"):
            continue
        header = read_header(path) or {}
        rules = header.get("rules", {})
        found.append(
            CachedTable(
                path=path,
                rules=rules.get("name", "?") if isinstance(rules, dict) else "?",
                objective=str(header.get("objective", "?")),
                bytes=path.stat().st_size,
                created=str(header.get("created", "?")),
                valid=bool(header) and header.get("engine") == ENGINE_VERSION,
            )
        )
    return found


def clear_tables() -> int:
    """Delete every table file (and stray temporary files); returns how many."""
    folder = cache_dir()
    if not folder.is_dir():
        return 0
    n = 0
    for path in folder.glob(f"*{SUFFIX}"):
        path.unlink(missing_ok=True)
        n += 1
    return n
