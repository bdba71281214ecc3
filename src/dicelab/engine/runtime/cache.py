"""Solved tables on disk: the cache folder, file format, checksum, load and save.

A solved table is expensive to make and cheap to keep, so each one is written to
the user's cache folder, named by a key derived from the normalised rules, the
objective and the engine version. A table file is::

    DICELAB-TABLE\\n
    <8-byte little-endian length><metadata JSON>
    <array bytes>

The metadata holds the normalised rules, the objective, the engine version, the
array's shape and dtype and the SHA-256 of every block of ``block_bytes`` bytes of
the array. A file is used only when every one of these matches what the caller
asks for; anything else (a truncated file, a flipped bit, a table of other rules
copied under the wrong name) is treated as absent and rebuilt. Files are written
to a temporary name in the same folder and renamed into place, so a crash never
leaves half a table behind.

A table can also be opened memory-mapped (:func:`open_mapped`): only the blocks a
caller reads are loaded and checked, so one position's advice from a table of
gigabytes reads a few megabytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from platformdirs import user_cache_dir

from dicelab.engine.runtime import budget, claims
from dicelab.errors import DamagedTable

if TYPE_CHECKING:  # numpy and the rules model load with the first table, not for a listing
    import numpy as np

    from dicelab.rules import Rules

#: Bumped whenever a change in the solvers or the file format changes a table file.
ENGINE_VERSION = "2"

#: Bytes per checksummed block of a table file's array.
BLOCK_BYTES = 1 << 18

MAGIC = b"DICELAB-TABLE\n"
SUFFIX = ".dlt"


_here = threading.local()


def cache_dir() -> Path:
    """The folder of cached tables (``DICELAB_CACHE_DIR`` overrides the default, and
    :func:`folder_in_this_thread` both)."""
    here = getattr(_here, "folder", None)
    if here is not None:
        return here
    env = os.environ.get("DICELAB_CACHE_DIR")
    return Path(env) if env else Path(user_cache_dir("dicelab")) / "tables"


@contextmanager
def folder_in_this_thread(folder: str | Path):
    """Within the block, this thread's tables are read from and written to ``folder``
    (the web server reads there what its worker solved for an upload)."""
    before = getattr(_here, "folder", None)
    _here.folder = Path(folder)
    try:
        yield
    finally:
        _here.folder = before


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


def holds_any(rules: Rules, objective: str) -> bool:
    """Whether the cache holds a file of these rules' name and this objective, with
    any parameters: when it holds none, no key need be worked out to look one up
    (the key of a large table can take seconds: its rows are hashed)."""
    return next(cache_dir().glob(f"{rules.name}.{objective}.*{SUFFIX}"), None) is not None


def save_table(path: Path, array: np.ndarray, meta: dict) -> None:
    """Write an array and its metadata atomically, with a checksum.

    The array's memory is hashed and written in place, never copied, so saving a
    table of several gigabytes needs no second one.
    """
    import numpy as np

    data = np.ascontiguousarray(array)
    view = memoryview(data).cast("B")  # type: ignore[arg-type]  # arrays are buffers
    blob = json.dumps(_header(meta, data, view), sort_keys=True).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stray(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=f"{TMP_PREFIX}{os.getpid()}-", suffix=SUFFIX, dir=path.parent)
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


def _header(meta: dict, data: np.ndarray, view: memoryview) -> dict:
    """A table file's metadata: ``meta`` and what the array says of itself."""
    header = dict(meta)
    header.update(
        shape=list(data.shape),
        dtype=str(data.dtype),
        block_bytes=BLOCK_BYTES,
        block_sha256=block_digests(view, BLOCK_BYTES),
        engine=ENGINE_VERSION,
        created=time.strftime("%Y-%m-%dT%H:%M:%S"),
    )
    return header


#: Start of the name of a table file being written (then the writer's process id).
TMP_PREFIX = ".tmp-"
#: A file being written that has not changed for this long is left over, whoever wrote it.
STALE_SECONDS = 3600


def stray_files(folder: Path | None = None) -> list[Path]:
    """Files a save left behind in the cache folder: killed while writing, its
    process gone (or silent for :data:`STALE_SECONDS`)."""
    folder = cache_dir() if folder is None else folder
    if not folder.is_dir():
        return []
    now = time.time()
    found = []
    for path in sorted(folder.glob(f"{TMP_PREFIX}*{SUFFIX}")):
        try:
            idle = now - path.stat().st_mtime
        except OSError:
            continue  # renamed or removed meanwhile: its save ended
        pid = path.name[len(TMP_PREFIX) :].split("-", 1)[0]
        if idle > STALE_SECONDS or not (pid.isascii() and pid.isdigit() and _alive(int(pid))):
            found.append(path)
    return found


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def remove_stray(folder: Path | None = None) -> tuple[int, int]:
    """Delete :func:`stray_files`; returns how many and their bytes."""
    n = size = 0
    for path in stray_files(folder):
        try:
            size += path.stat().st_size
            path.unlink()
            n += 1
        except OSError:
            pass  # gone already, or not ours to delete: left as it is
    return n, size


def block_digests(view: memoryview, block: int) -> list[str]:
    """SHA-256 of every ``block`` bytes of ``view`` (the last block may be short),
    on every core for a large array (hashing releases the interpreter's lock)."""
    starts = range(0, len(view), block)

    def digest(i: int) -> str:
        return hashlib.sha256(view[i : i + block]).hexdigest()

    workers = min(os.cpu_count() or 1, len(starts) // 64)
    if workers < 2:
        return [digest(i) for i in starts]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(digest, starts, chunksize=16))


class TableFile:
    """A table solved straight into its cache file, memory-mapped, then committed.

    A large table written after its solve is held twice on the way (in the process
    and in the system's file cache) and copied once: 2 s of a Yahtzee win table's
    737 MB on a virtual machine whose fresh memory is slow. Here the solver fills
    :attr:`values`, the array part of a temporary file in the cache folder (its
    disk space reserved up front, so a full disk is an error now, not a crash
    mid-solve); :meth:`commit` writes the header into the space left for it, syncs
    the file and renames it into place. Until then the file is a temporary one,
    which :func:`remove_stray` clears if the process dies.
    """

    def __init__(self, path: Path, shape: tuple[int, ...], dtype) -> None:
        import numpy as np

        self.path = path
        self.dtype = np.dtype(dtype)
        self.shape = tuple(shape)
        nbytes = self.dtype.itemsize * int(np.prod(self.shape, dtype=np.int64))
        blocks = -(-nbytes // BLOCK_BYTES)
        # the header's room: its fields, one digest a block, and slack for the metadata;
        # the array then starts on a page boundary
        room = 4096 + 70 * blocks
        self.offset = -(-(len(MAGIC) + 8 + room) // 4096) * 4096
        self.room = self.offset - len(MAGIC) - 8
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stray(path.parent)
        fd, tmp = tempfile.mkstemp(
            prefix=f"{TMP_PREFIX}{os.getpid()}-", suffix=SUFFIX, dir=path.parent
        )
        self.tmp = Path(tmp)
        try:
            try:
                if hasattr(os, "posix_fallocate"):
                    os.posix_fallocate(fd, 0, self.offset + nbytes)
                else:
                    os.ftruncate(fd, self.offset + nbytes)
            finally:
                os.close(fd)
            self.values = np.memmap(
                self.tmp, dtype=self.dtype, mode="r+", offset=self.offset, shape=self.shape
            )
        except BaseException:
            self.tmp.unlink(missing_ok=True)
            raise

    def commit(self, meta: dict) -> None:
        """Checksum the array, write the header and move the file into place."""
        self.values.flush()
        view = memoryview(self.values).cast("B")  # type: ignore[arg-type]  # arrays are buffers
        blob = json.dumps(_header(meta, self.values, view), sort_keys=True).encode()
        # metadata larger than foreseen, or the file taken for a leftover by another
        # process's save (a solve of over an hour): the plain way, from the mapping
        if len(blob) > self.room or not self.tmp.exists():
            save_table(self.path, self.values, meta)
            self.discard()
            return
        with open(self.tmp, "r+b") as fh:
            fh.write(MAGIC)
            fh.write(struct.pack("<Q", self.room))
            fh.write(blob.ljust(self.room))  # JSON may end in spaces
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(self.tmp, self.path)

    def discard(self) -> None:
        """Drop the temporary file (the mapped values stay readable while held), and
        the claim on the table (:mod:`.claims`)."""
        self.tmp.unlink(missing_ok=True)
        claims.release(self.path)


def table_file(path: Path, shape: tuple[int, ...], dtype) -> TableFile | None:
    """A :class:`TableFile` for ``path``, or ``None`` (one warning line) where the
    disk refuses it: the table is then solved in memory."""
    try:
        return TableFile(path, shape, dtype)
    except (OSError, ValueError) as exc:
        print(
            f"warning: no room for the table's file in {path.parent} ({exc}); solving it in memory",
            file=sys.stderr,
        )
        return None


def store_table(path: Path, array: np.ndarray, meta: dict) -> str | None:
    """Save a freshly solved table; returns its path, or ``None`` if it could not be.

    A disk that refuses the file (full, read-only, a cache path that is not a
    folder) must not cost the user the result just computed: one warning line on
    standard error, and the table is used uncached. Either way the claim on the
    table (:mod:`.claims`) is given up: another process waiting for it goes on.
    """
    try:
        save_table(path, array, meta)
    except OSError as exc:
        print(f"warning: the table could not be cached in {path.parent}: {exc}", file=sys.stderr)
        return None
    finally:
        claims.release(path)
    budget.enforce(path.parent, path, SUFFIX)  # the cache keeps to its disk budget
    return str(path)


#: Tables being written by :func:`store_later`, by path.
_storing: dict[Path, threading.Thread] = {}
_storing_lock = threading.Lock()


def store_later(path: Path, table, meta: dict, dtype=None) -> None:
    """Store a table as :func:`store_table` does, in a thread of its own: a table of
    a gigabyte takes seconds to write, which its first user need not wait for. With
    ``dtype``, its values are stored in that type (converted in the thread too).

    ``table.meta["path"]`` is set once the file is written. The thread is not a
    daemon, so the process finishes the file before it exits; a lookup of the same
    file waits for it (:func:`wait_stored`) rather than solving the table again.
    """

    def store() -> None:
        import numpy as np

        values = table.values if dtype is None else np.asarray(table.values, dtype=dtype)
        table.meta["path"] = store_table(path, values, meta)

    thread = threading.Thread(target=store, name="dicelab-store", daemon=False)
    with _storing_lock:
        _storing[path] = thread
    thread.start()


def wait_stored(path: Path | None = None) -> None:
    """Wait until the table of ``path`` (every table, if ``None``) being written by
    :func:`store_later` is on disk."""
    with _storing_lock:
        threads = [t for p, t in _storing.items() if path is None or p == path]
    for thread in threads:
        thread.join()
    with _storing_lock:
        for p in [p for p, t in _storing.items() if not t.is_alive()]:
            del _storing[p]


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


def _matching_header(path: Path, expect: dict) -> dict | None:
    """The header of a table file if it matches ``expect`` and this engine."""
    import numpy as np

    header = read_header(path)
    if header is None or header.get("engine") != ENGINE_VERSION:
        return None
    for key, value in expect.items():
        if header.get(key) != value:
            return None
    try:
        header["_dtype"] = np.dtype(header["dtype"])
        header["_shape"] = tuple(int(x) for x in header["shape"])
        nbytes = header["_dtype"].itemsize * int(np.prod(header["_shape"], dtype=np.int64))
        block = int(header["block_bytes"])
        digests = header["block_sha256"]
        if block <= 0 or not isinstance(digests, list) or len(digests) != -(-nbytes // block):
            return None
        if path.stat().st_size != header["_offset"] + nbytes:
            return None
    except (OSError, KeyError, TypeError, ValueError):
        return None
    return header


def load_table(path: Path, expect: dict) -> tuple[np.ndarray, dict] | None:
    """Read a table if it is intact and matches ``expect``; else ``None``.

    ``expect`` maps metadata keys (``rules``, ``objective``, ``params`` ...) to the
    values they must have. The engine version and the checksums are always checked.
    """
    import numpy as np

    header = _matching_header(path, expect)
    if header is None:
        return None
    try:
        array = np.empty(header["_shape"], dtype=header["_dtype"])
        view = memoryview(array).cast("B")  # type: ignore[arg-type]  # arrays are buffers
        with open(path, "rb") as fh:
            fh.seek(header["_offset"])
            got = fh.readinto(view)
            extra = fh.read(1)
    except (OSError, MemoryError):
        return None
    if got != len(view) or extra:
        return None
    if block_digests(view, header["block_bytes"]) != header["block_sha256"]:
        return None
    return array, header


class MappedTable:
    """A table file's array, memory-mapped and checked block by block on first read.

    ``values`` is the mapped array; call :meth:`check` with the range of flat
    indices about to be read. A block whose checksum fails raises
    :class:`DamagedTable`, naming the file; a command then reads the table whole,
    which finds the damage and solves the table anew.
    """

    def __init__(self, path: Path, header: dict) -> None:
        import numpy as np

        self.path = path
        self.header = header
        self.values = np.memmap(
            path,
            dtype=header["_dtype"],
            mode="r",
            offset=header["_offset"],
            shape=header["_shape"],
        )
        self._raw = np.memmap(path, dtype=np.uint8, mode="r", offset=header["_offset"])
        self._block = int(header["block_bytes"])
        self._checked: set[int] = set()

    def check(self, lo: int, hi: int) -> None:
        """Verify the blocks holding flat elements ``lo .. hi - 1``."""
        size = self.values.dtype.itemsize
        first = lo * size // self._block
        last = (max(hi, lo + 1) * size - 1) // self._block
        for b in range(first, last + 1):
            if b in self._checked:
                continue
            chunk = self._raw[b * self._block : (b + 1) * self._block]
            if hashlib.sha256(chunk).hexdigest() != self.header["block_sha256"][b]:  # type: ignore[arg-type]  # arrays are buffers
                raise DamagedTable(
                    f"the cached table {self.path} is damaged (block {b} fails its "
                    "checksum); run the command again to solve it anew",
                    path=self.path,
                )
            self._checked.add(b)


def open_mapped(path: Path, expect: dict) -> MappedTable | None:
    """Open a table memory-mapped if its header matches ``expect``; else ``None``.

    Nothing of the array is read here: see :meth:`MappedTable.check`.
    """
    header = _matching_header(path, expect)
    if header is None:
        return None
    try:
        return MappedTable(path, header)
    except (OSError, ValueError):
        return None


def give_up(rules: Rules, objective: str, params: dict | None = None) -> None:
    """Give up the claim :func:`lookup` took on a table whose solve failed."""
    claims.release(table_path(rules, objective, params))


def lookup(
    rules: Rules,
    objective: str,
    shape: tuple[int, ...] | None,
    params: dict | None = None,
    mapped: bool = False,
) -> tuple[np.ndarray, dict] | None:
    """A cached table of these rules, objective and parameters, if one is intact.

    Returns the values (which must have ``shape``, unless it is ``None``) and the table's ``meta``
    (``cached``, ``path``, ``solve_seconds``, the whole ``header``), or ``None``.
    With ``mapped`` the values are memory-mapped and ``meta["mapped"]`` is the :class:`MappedTable`,
    whose blocks the caller checks before reading them.
    """
    path = table_path(rules, objective, params)
    wait_stored(path)  # a table this process is still writing
    found = _lookup_at(path, rules, objective, shape, params, mapped)
    if found is None and claims.claim(path):  # another process solved it meanwhile?
        found = _lookup_at(path, rules, objective, shape, params, mapped)
        if found is not None:
            claims.release(path)
    return found


def _lookup_at(path: Path, rules: Rules, objective: str, shape, params, mapped: bool):
    """:func:`lookup` of the file at ``path``, once."""
    expect = {"rules": rules.normalised(), "objective": objective, "params": params or {}}
    if mapped:
        table = open_mapped(path, expect)
        if table is None or (shape is not None and table.values.shape != tuple(shape)):
            return None
        budget.mark_used(path)
        meta = {"cached": True, "path": str(path), "mapped": table, "header": table.header}
        return table.values, meta | {"solve_seconds": table.header.get("seconds")}
    found = load_table(path, expect)
    if found is None or (shape is not None and found[0].shape != tuple(shape)):
        return None
    values, header = found
    budget.mark_used(path)
    meta = {"cached": True, "path": str(path), "header": header}
    return values, meta | {"solve_seconds": header.get("seconds")}


def remember(
    table,
    rules: Rules,
    objective: str,
    params: dict | None = None,
    use_cache: bool = True,
    *,
    into: TableFile | None = None,
    later: bool = False,
    **extra,
) -> None:
    """Set a freshly solved table's ``meta`` and, with ``use_cache``, store it:
    commit ``into`` where the table was solved into that file (see :func:`table_file`).
    With ``later``, the file is written in a thread of its own (:func:`store_later`)."""
    table.meta = {"cached": False, "path": None}
    solved_into = into is not None and table.values is into.values
    if into is not None and not (use_cache and solved_into):
        into.discard()
    if use_cache:
        path = table_path(rules, objective, params)
        meta = {"rules": rules.normalised(), "objective": objective, "params": params or {}}
        meta.update(seconds=table.seconds, **extra)
        if not solved_into and later:
            store_later(path, table, meta)
            return
        if not solved_into:
            table.meta["path"] = store_table(path, table.values, meta)
            return
        assert into is not None  # solved into its file
        try:
            into.commit(meta)
        except OSError as exc:
            into.discard()
            warning = f"warning: the table could not be cached in {path.parent}: {exc}"
            print(warning, file=sys.stderr)
            return
        finally:
            claims.release(path)
        budget.enforce(path.parent, path, SUFFIX)
        table.meta["path"] = str(path)


@dataclass(frozen=True)
class CachedTable:
    """One file in the cache folder, as listed by ``dicelab cache list``."""

    path: Path
    rules: str
    objective: str
    bytes: int
    created: str
    valid: bool
    #: the parameters that name it among the rule set's tables (a target, theta)
    params: str = ""
    #: when it was last written or read (the least recently used go first)
    used: str = ""


def list_tables() -> list[CachedTable]:
    """Every table file in the cache folder, damaged ones included (``valid`` False)."""
    folder = cache_dir()
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.glob(f"*{SUFFIX}")):
        if path.name.startswith(TMP_PREFIX):
            continue
        header = read_header(path) or {}
        rules = header.get("rules", {})
        found_params = header.get("params")
        params: dict = found_params if isinstance(found_params, dict) else {}
        try:
            st = path.stat()
        except OSError:
            continue  # removed meanwhile
        found.append(
            CachedTable(
                path=path,
                rules=rules.get("name", "?") if isinstance(rules, dict) else "?",
                objective=str(header.get("objective", "?")),
                bytes=st.st_size,
                created=str(header.get("created", "?")),
                valid=bool(header) and header.get("engine") == ENGINE_VERSION,
                params=", ".join(f"{k} {v}" for k, v in params.items() if k in SHOWN_PARAMS),
                used=time.strftime("%Y-%m-%d %H:%M", time.localtime(st.st_mtime)),
            )
        )
    return found


#: The parameters a listing names a table by (the others say how it is laid out).
SHOWN_PARAMS = ("target", "theta", "precision", "utility")


def clear_tables(rules: str | None = None) -> int:
    """Delete the table files of rule set ``rules`` (all when ``None``) and the
    :func:`stray_files`; returns how many tables (a save under way is left alone)."""
    doomed = [t.path for t in list_tables() if rules is None or t.rules == rules]
    for path in doomed:
        path.unlink(missing_ok=True)
    remove_stray()
    return len(doomed)
