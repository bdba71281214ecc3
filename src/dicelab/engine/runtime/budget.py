"""The disk budget of the table cache: it never grows past a limit, silently or not.

Solved tables are cheap to keep but some are large (a Yahtzee table over points
is 0.7 to 1.4 GiB), so a day of use could fill a disk. The cache folder keeps to a
limit: ``DICELAB_CACHE_LIMIT`` (a size such as ``2G`` or ``500M``; ``0`` for none),
by default 4 GiB or a quarter of the free disk where that is less (at least
512 MiB). After each table is written, the least recently used tables go first
until the folder fits (a table read from the cache counts as used: its file's
time is renewed), never the table just written; each removal is said in one line.

>>> parse_size("2G"), parse_size("500M"), parse_size("0")
(2147483648, 524288000, 0)
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
from pathlib import Path

#: The environment variable that sets the limit.
LIMIT_VARIABLE = "DICELAB_CACHE_LIMIT"
#: The default limit where the disk has room (a quarter of the free space if less).
DEFAULT_LIMIT = 4 << 30
#: The least default limit, however full the disk.
LEAST_LIMIT = 512 << 20

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes of a size written ``123``, ``500M``, ``2G``, ``1.5G`` (binary units)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if m is None:
        raise ValueError(text)
    return int(float(m.group(1)) * _UNITS[m.group(2)])


def cache_limit(folder: Path) -> int:
    """The limit in bytes (0: none): the variable's, else the default for this disk."""
    text = os.environ.get(LIMIT_VARIABLE, "").strip()
    if text:
        try:
            return parse_size(text)
        except ValueError:
            print(
                f"warning: {LIMIT_VARIABLE}: got {text!r}, expected a size such as 2G or "
                "500M (0: no limit); the default is used",
                file=sys.stderr,
            )
    where = folder
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        free = shutil.disk_usage(where).free
    except OSError:
        return DEFAULT_LIMIT
    return max(LEAST_LIMIT, min(DEFAULT_LIMIT, (free + folder_bytes(folder)) // 4))


def table_files(folder: Path, suffix: str) -> list[Path]:
    """The finished table files of the folder (temporary files of saves left out)."""
    if not folder.is_dir():
        return []
    return [p for p in folder.glob(f"*{suffix}") if not p.name.startswith(".")]


def folder_bytes(folder: Path, suffix: str = ".dlt") -> int:
    """Bytes the folder's tables take."""
    return sum(_size(p) for p in table_files(folder, suffix))


def mark_used(path: Path) -> None:
    """Count a table as used now (the least recently used go first)."""
    with contextlib.suppress(OSError):  # a read-only cache is still read
        os.utime(path)


def enforce(folder: Path, keep: Path, suffix: str) -> list[Path]:
    """Remove the least recently used tables until the folder keeps to its limit,
    never ``keep`` (the table just written); say so in one line. Returns the removed."""
    limit = cache_limit(folder)
    if limit <= 0:
        return []
    found = []
    for p in table_files(folder, suffix):
        try:
            st = p.stat()
        except OSError:
            continue
        found.append((st.st_mtime, st.st_size, p))
    total = sum(size for _, size, _ in found)
    removed, freed = [], 0
    for _, size, p in sorted(found):  # the least recently used first
        if total - freed <= limit:
            break
        if p == keep:
            continue
        try:
            p.unlink()
        except OSError:
            continue
        removed.append(p)
        freed += size
    if removed:
        print(
            f"note: the table cache keeps to {_gib(limit)} ({LIMIT_VARIABLE}): "
            f"{len(removed)} least recently used table{'s' if len(removed) != 1 else ''} "
            f"removed ({_gib(freed)})",
            file=sys.stderr,
        )
    return removed


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 1 << 30 else f"{n / 2**20:.0f} MiB"
