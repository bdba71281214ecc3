"""Where the layers of a solve run: in this process, or on a Dask cluster.

Every layered solver (expected score, target and utility tables, the duel and its
strategy comparisons) solves backwards in *layers*: the values of layer ``n``
depend only on layer ``n + 1``, and the states of one layer are independent of
each other. A solver describes its layers with a :class:`LayeredSolve` (one table
for the whole game) or a :class:`WindowSolve` (two layers held at a time); a
runner executes them:

* :class:`LocalRunner` (the default) calls the solver's kernels on the whole
  table in this process, layer after layer, exactly as a solver alone would;
* :class:`DaskRunner` cuts each layer into tasks for the workers of a
  ``dask.distributed`` cluster. Per layer, what the layer reads travels either
  once to every worker (the whole next layer) or to each task alone (the rows its
  states read), whichever moves fewer bytes; each task fills its part of the layer
  in a table of the worker's own, whose untouched pages the operating system never
  allocates, and sends back only the values it wrote. A task that fails is retried
  once; a second failure stops the solve with one line.

Either way a task is one parallel region of the solver's kernels. A region whose
work is short runs on one thread (:func:`threads_for`): on a busy machine a second
thread can wait a whole time slice for a core, and the region waits for it.

This module is the only place that knows which of the two runs a layer. The
solvers import nothing from Dask; Dask itself is imported only when a cluster is
asked for (``pip install -e ".[cluster]"``).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
from numba import njit

from dicelab.errors import UserError
from dicelab.rules.compiled import sorted_distinct

Progress = Callable[[int, int], None]

#: What a user types to get the cluster's packages.
INSTALL_HINT = 'pip install -e ".[cluster]"'


class LocalSolve(Protocol):
    """A solve in layers as :class:`LocalRunner` runs it: in this process, on the
    whole table (a :class:`LayeredSolve` says besides what its tasks read and write)."""

    #: Progress units of the whole solve, and those done before the first layer
    #: (the terminal layer, filled by :meth:`start`).
    total: int
    done: int
    #: Seconds of one progress unit on one thread (an estimate, see :func:`threads_for`).
    unit_seconds: float

    def layers(self) -> Sequence[int]:
        """The layers to solve, in the order they must run."""

    def start(self, table: np.ndarray) -> None:
        """Fill the terminal values (in this process, before any layer)."""

    def tasks(self, layer: int, pieces: int | None) -> list[Any]:
        """A layer cut into tasks: about ``pieces`` of them, or with ``None`` the
        solver's own cut for a single process (fine enough for a progress bar)."""

    def weight(self, task: Any) -> int:
        """Progress units a task completes."""

    def run(self, table: np.ndarray, task: Any) -> None:
        """Compute a task's values into ``table`` (the kernels of the solver)."""


class ChainSolve(LocalSolve, Protocol):
    """A solve that can also run several layers in one parallel region."""

    def run_chain(self, table: np.ndarray, chain: Sequence[int]) -> None:
        """Compute the layers ``chain``, in order, into ``table`` (one start of the
        threads, see :mod:`dicelab.engine.kernels.work`)."""


class LayeredSolve(LocalSolve, Protocol):
    """A solve that runs backwards in layers over one flat table of values.

    A solve object travels to the workers once per run, so it holds the compiled
    rules and index arrays it needs, and nothing heavier.
    """

    #: Number of values in the table.
    size: int
    #: The table's dtype.
    dtype: np.dtype

    def reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)``: the flat ranges of the table a layer reads."""

    def writes(self, task: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)``: the flat ranges a task writes."""

    def task_reads(self, task: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)``: the flat ranges one task reads (within :meth:`reads`)."""


class WindowSolve(Protocol):
    """A backward pass that keeps two layers (windows) only, and reads a fixed table.

    A window is an array ``(rows, values of the layer)``; layer ``n`` reads the
    window of layer ``n + 1`` and the ranges :meth:`fixed_reads` of a fixed table
    given to :func:`run_windows` (in the duel's comparisons: the win-optimal
    chances, whose decisions every pair follows).
    """

    rows: int
    dtype: np.dtype
    total: int
    done: int
    unit_seconds: float

    def layers(self) -> Sequence[int]: ...

    def start(self) -> np.ndarray:
        """The window of the last layer."""

    def width(self, layer: int) -> int:
        """Values of a layer (the columns of its window)."""

    def fixed_reads(self, layer: int) -> tuple[np.ndarray, np.ndarray]:
        """Flat ranges of the fixed table that a layer reads."""

    def tasks(self, layer: int, pieces: int | None) -> list[Any]: ...

    def weight(self, task: Any) -> int: ...

    def columns(self, task: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(starts, lengths)``: the columns of the layer's window a task writes."""

    def run(
        self, fixed: np.ndarray, nxt: np.ndarray, cur: np.ndarray, layer: int, task: Any
    ) -> None:
        """Compute a task's columns of ``cur`` from ``nxt`` and ``fixed``."""


# -- moving ranges of a flat table -------------------------------------------------------
@njit(cache=True)
def gather_ranges(table, starts, lengths):
    """The values of ``table`` in the given flat ranges, one after the other."""
    out = np.empty(lengths.sum(), table.dtype)
    k = 0
    for r in range(starts.shape[0]):
        s = starts[r]
        for t in range(lengths[r]):
            out[k] = table[s + t]
            k += 1
    return out


@njit(cache=True)
def scatter_ranges(table, starts, lengths, values):
    """Write ``values`` (as :func:`gather_ranges` returned them) back into ranges."""
    k = 0
    for r in range(starts.shape[0]):
        s = starts[r]
        for t in range(lengths[r]):
            table[s + t] = values[k]
            k += 1


#: Work (seconds on one thread) below which a parallel region runs on one thread. A
#: region ends when its slowest thread does; on a machine whose cores are busy with
#: other work, a thread that has to wait for a core can take several milliseconds to
#: start, longer than a small region takes. One thread costs a short region at most
#: half this on a quiet machine.
ONE_THREAD_BELOW = 0.005

#: Work (seconds on one thread) up to which consecutive layers of a :class:`ChainSolve`
#: run as one chain: each start of the threads costs tens of microseconds, and each
#: layer's end leaves threads idle while the slowest batch finishes. A chain reports
#: progress at its end.
CHAIN_SECONDS = 1.0


@contextlib.contextmanager
def threads_for(seconds: float) -> Iterator[None]:
    """Run the parallel regions inside on one thread when ``seconds`` (their work on
    one thread) is below :data:`ONE_THREAD_BELOW`; otherwise on every thread."""
    from numba import get_num_threads, set_num_threads

    threads = get_num_threads()
    if threads == 1 or seconds >= ONE_THREAD_BELOW:
        yield
        return
    set_num_threads(1)
    try:
        yield
    finally:
        set_num_threads(threads)


def chains(solve: LocalSolve) -> list[tuple[list[int], int]]:
    """The layers of ``solve`` in runs to solve as one chain, each with its progress
    units: consecutive layers up to :data:`CHAIN_SECONDS` of work together, where the
    solve can chain them (a :class:`ChainSolve`); otherwise one layer a run (its
    units then counted task by task as they run)."""
    if not hasattr(solve, "run_chain"):  # its tasks are planned as they run
        return [([layer], 0) for layer in solve.layers()]
    runs: list[tuple[list[int], int]] = []
    for layer in solve.layers():
        weight = sum(solve.weight(task) for task in solve.tasks(layer, None))
        if runs and (runs[-1][1] + weight) * solve.unit_seconds <= CHAIN_SECONDS:
            runs[-1] = (runs[-1][0] + [layer], runs[-1][1] + weight)
        else:
            runs.append(([layer], weight))
    return runs


def run_task(solve: LocalSolve, table: np.ndarray, task: Any) -> None:
    """One task of a layered solve: one parallel region, on one thread if it is short."""
    with threads_for(solve.weight(task) * solve.unit_seconds):
        solve.run(table, task)


def run_window_task(
    solve: WindowSolve, fixed: np.ndarray, nxt: np.ndarray, cur: np.ndarray, layer: int, task: Any
) -> None:
    """One task of a windowed pass, as :func:`run_task`."""
    with threads_for(solve.weight(task) * solve.unit_seconds):
        solve.run(fixed, nxt, cur, layer, task)


def run_layers(
    solve: LayeredSolve,
    table: np.ndarray,
    progress: Progress | None = None,
    runner: Runner | None = None,
) -> None:
    """Solve every layer of ``solve`` into ``table`` (a flat array of ``solve.size``)."""
    (runner or LocalRunner()).run(solve, table, progress)


def run_windows(
    solve: WindowSolve,
    fixed: np.ndarray,
    progress: Progress | None = None,
    runner: Runner | None = None,
) -> np.ndarray:
    """Run every layer of a :class:`WindowSolve`; returns the window of the first layer."""
    return (runner or LocalRunner()).run_windows(solve, fixed, progress)


class Runner:
    """Executes the layers of a :class:`LayeredSolve` or a :class:`WindowSolve`."""

    #: whether the kernels run in this process (so it should compile them)
    in_process = False

    def run(self, solve: LayeredSolve, table: np.ndarray, progress: Progress | None) -> None:
        raise NotImplementedError

    def run_windows(
        self, solve: WindowSolve, fixed: np.ndarray, progress: Progress | None
    ) -> np.ndarray:
        raise NotImplementedError


class LocalRunner(Runner):
    """Every layer in this process, with the solver's kernels on the whole table."""

    in_process = True

    def run(self, solve: LocalSolve, table: np.ndarray, progress: Progress | None) -> None:
        solve.start(table)
        done = solve.done
        if progress is not None:
            progress(done, solve.total)
        for chain, weight in chains(solve):
            if len(chain) > 1:
                with threads_for(weight * solve.unit_seconds):
                    cast(ChainSolve, solve).run_chain(table, chain)
                done += weight
                if progress is not None:
                    progress(done, solve.total)
                continue
            for task in solve.tasks(chain[0], None):
                run_task(solve, table, task)
                if progress is not None:
                    done += solve.weight(task)
                    progress(done, solve.total)

    def run_windows(
        self, solve: WindowSolve, fixed: np.ndarray, progress: Progress | None
    ) -> np.ndarray:
        nxt = solve.start()
        done = solve.done
        for layer in solve.layers():
            cur = np.empty((solve.rows, solve.width(layer)), dtype=solve.dtype)
            for task in solve.tasks(layer, None):
                run_window_task(solve, fixed, nxt, cur, layer, task)
            nxt = cur
            done += cur.shape[1]
            if progress is not None:
                progress(done, solve.total)
        return nxt


# -- the cluster -------------------------------------------------------------------------
#: Per worker process: the table of the layer being solved, by solve key (a windowed
#: pass holds its fixed values, next layer and current layer).
_WORKER_TABLES: dict[str, tuple[int, Any]] = {}
_WORKER_LOCK = threading.Lock()


def _worker_table(key: str, layer: int, solve: LayeredSolve, payload: tuple) -> np.ndarray:
    """This worker's table for a layer, holding the values the layer reads.

    Made once per layer and worker (the tasks of a layer on one worker share it,
    and write disjoint ranges); ``np.empty`` leaves pages nobody touches unallocated.
    """
    with _WORKER_LOCK:
        held = _WORKER_TABLES.get(key)
        if held is not None and held[0] == layer:
            return held[1]
        _WORKER_TABLES.pop(key, None)  # the previous layer's table goes first
        table = np.empty(solve.size, dtype=solve.dtype)
        starts, lengths, values = payload
        scatter_ranges(table, starts, lengths, values)
        _WORKER_TABLES[key] = (layer, table)
        return table


def _worker_task(
    key: str, layer: int, solve: LayeredSolve, payload: tuple, threads: int, task: Any
) -> np.ndarray:
    """One task on a worker: solve its part of the layer, return what it wrote."""
    from numba import set_num_threads

    set_num_threads(threads)
    table = _worker_table(key, layer, solve, payload)
    run_task(solve, table, task)
    starts, lengths = solve.writes(task)
    return gather_ranges(table, starts, lengths)


def _worker_rows_task(threads: int, solve: LayeredSolve, payload: tuple, task: Any) -> np.ndarray:
    """One task on a worker, given only the rows it reads."""
    from numba import set_num_threads

    set_num_threads(threads)
    table = np.empty(solve.size, dtype=solve.dtype)  # untouched pages cost nothing
    scatter_ranges(table, *payload)
    run_task(solve, table, task)
    starts, lengths = solve.writes(task)
    return gather_ranges(table, starts, lengths)


def _worker_window_task(
    key: str, layer: int, solve: WindowSolve, payload: tuple, threads: int, task: Any
) -> np.ndarray:
    """One task of a windowed pass: its columns of the layer, for every row."""
    from numba import set_num_threads

    set_num_threads(threads)
    with _WORKER_LOCK:
        held = _WORKER_TABLES.get(key)
        if held is None or held[0] != layer:
            _WORKER_TABLES.pop(key, None)
            starts, lengths, values, nxt, size = payload
            fixed = np.empty(size, dtype=values.dtype)  # only the ranges read are touched
            scatter_ranges(fixed, starts, lengths, values)
            cur = np.empty((solve.rows, solve.width(layer)), dtype=solve.dtype)
            held = (layer, (fixed, nxt, cur))
            _WORKER_TABLES[key] = held
    fixed, nxt, cur = held[1]
    run_window_task(solve, fixed, nxt, cur, layer, task)
    starts, lengths = solve.columns(task)
    return np.stack([gather_ranges(row, starts, lengths) for row in cur])


def _worker_forget(key: str) -> None:
    """Drop a finished solve's table from a worker."""
    with _WORKER_LOCK:
        _WORKER_TABLES.pop(key, None)


@dataclass(frozen=True)
class LayerTraffic:
    """What one layer moved between the client and the workers."""

    layer: int
    tasks: int
    sent: int  # bytes of the values the layer reads, times the workers they went to
    received: int  # bytes of the values the tasks wrote


class DaskRunner(Runner):
    """Each layer as tasks on a ``dask.distributed`` client's workers.

    Parameters
    ----------
    client : distributed.Client
        A connected client (see :func:`cluster_runner`).
    tasks_per_worker : int
        Tasks a layer is cut into, per worker (more evens out the load, fewer
        moves less).
    threads : int, optional
        Kernel threads per task (default: the cores of a worker's machine shared
        among the worker processes this client sees on it).
    send : {"auto", "layer", "rows"}
        What a layer sends: ``"layer"``, the values the whole layer reads, once to
        every worker; ``"rows"``, to each task only the rows its states read;
        ``"auto"`` (default), whichever moves fewer bytes for that layer (the whole
        layer on a few workers, the rows on many).
    """

    def __init__(
        self, client, tasks_per_worker: int = 8, threads: int | None = None, send: str = "auto"
    ) -> None:
        if send not in ("auto", "layer", "rows"):
            raise ValueError(f"send: got {send!r}, expected 'auto', 'layer' or 'rows'")
        self.client = client
        self.tasks_per_worker = tasks_per_worker
        self.threads = threads
        self.send = send
        #: What each layer moved: one :class:`LayerTraffic` per layer solved.
        self.traffic: list[LayerTraffic] = []

    def _workers(self) -> dict:
        info = self.client.scheduler_info(n_workers=-1)["workers"]
        if not info:
            raise UserError("the Dask cluster has no workers; start some with dask-worker")
        return info

    def _threads(self, workers: dict) -> int:
        if self.threads is not None:
            return self.threads
        hosts: dict[str, int] = {}
        for w in workers.values():
            hosts[w["host"]] = hosts.get(w["host"], 0) + 1
        cores = os.cpu_count() or 1
        return max(1, cores // max(hosts.values()))

    @contextlib.contextmanager
    def _session(self, solve) -> Iterator[_Session]:
        """What one solve on the cluster shares: the solve object sent once, the task
        count and kernel threads, a key for the workers' tables (dropped at the end),
        and one line for any failure of the cluster."""
        import uuid

        workers = self._workers()
        key = uuid.uuid4().hex
        try:
            yield _Session(
                key=key,
                workers=len(workers),
                threads=self._threads(workers),
                pieces=self.tasks_per_worker * len(workers),
                solve=self.client.scatter(solve, broadcast=True, hash=False),
            )
        except UserError:
            raise
        except Exception as err:  # the scheduler or a worker went away while data moved
            raise UserError(
                f"the Dask cluster failed during the solve ({type(err).__name__}: {err}); "
                "the solve stopped and nothing was cached"
            ) from None
        finally:
            with contextlib.suppress(Exception):
                self.client.run(_worker_forget, key)

    def _submit(self, fn, tasks: list, *args, payloads: list | None = None) -> dict:
        """One future per task, ``fn(*args, task)`` (with ``payloads``, each task's own
        payload before it), retried once; maps each future to its task."""
        per_task = payloads if payloads is not None else [None] * len(tasks)
        return {
            self.client.submit(
                fn, *args, *([] if p is None else [p]), task, retries=1, pure=False
            ): task
            for p, task in zip(per_task, tasks, strict=True)
        }

    def run(self, solve: LayeredSolve, table: np.ndarray, progress: Progress | None) -> None:
        from distributed import as_completed

        client = self.client
        solve.start(table)
        done = solve.done
        if progress is not None:
            progress(done, solve.total)
        with self._session(solve) as ses:
            for layer in solve.layers():
                tasks = solve.tasks(layer, ses.pieces)
                starts, lengths = solve.reads(layer)
                whole = int(lengths.sum()) * solve.dtype.itemsize * ses.workers
                rows = None
                if self.send != "layer":
                    rows = [solve.task_reads(task) for task in tasks]
                    by_task = sum(int(r[1].sum()) for r in rows) * solve.dtype.itemsize
                    if self.send == "auto" and by_task >= whole:
                        rows = None
                if rows is None:  # the layer's reads, once to every worker
                    payload = (starts, lengths, gather_ranges(table, starts, lengths))
                    sent = whole
                    payload_f = client.scatter(payload, broadcast=True, hash=False)
                    futures = self._submit(
                        _worker_task, tasks, ses.key, layer, ses.solve, payload_f, ses.threads
                    )
                else:  # to each task the rows it reads
                    payloads = [(s, n, gather_ranges(table, s, n)) for s, n in rows]
                    sent = sum(p[2].nbytes for p in payloads)
                    payload_f = client.scatter(payloads, hash=False)
                    del payloads
                    futures = self._submit(
                        _worker_rows_task, tasks, ses.threads, ses.solve, payloads=payload_f
                    )
                received = 0
                for fut in as_completed(futures):
                    task = futures[fut]
                    values = _result(fut, layer)
                    received += values.nbytes
                    scatter_ranges(table, *solve.writes(task), values)
                    if progress is not None:
                        done += solve.weight(task)
                        progress(done, solve.total)
                self.traffic.append(LayerTraffic(layer, len(tasks), sent, received))
                del payload_f

    def run_windows(
        self, solve: WindowSolve, fixed: np.ndarray, progress: Progress | None
    ) -> np.ndarray:
        from distributed import as_completed

        nxt = solve.start()
        done = solve.done
        with self._session(solve) as ses:
            for layer in solve.layers():
                starts, lengths = solve.fixed_reads(layer)
                values = gather_ranges(fixed, starts, lengths)
                payload = (starts, lengths, values, nxt, fixed.size)
                sent = (values.nbytes + nxt.nbytes) * ses.workers
                payload_f = self.client.scatter(payload, broadcast=True, hash=False)
                cur = np.empty((solve.rows, solve.width(layer)), dtype=solve.dtype)
                tasks = solve.tasks(layer, ses.pieces)
                futures = self._submit(
                    _worker_window_task, tasks, ses.key, layer, ses.solve, payload_f, ses.threads
                )
                received = 0
                for fut in as_completed(futures):
                    got = _result(fut, layer)
                    received += got.nbytes
                    c_starts, c_lengths = solve.columns(futures[fut])
                    for r in range(solve.rows):
                        scatter_ranges(cur[r], c_starts, c_lengths, got[r])
                self.traffic.append(LayerTraffic(layer, len(tasks), sent, received))
                del payload_f
                nxt = cur
                done += cur.shape[1]
                if progress is not None:
                    progress(done, solve.total)
        return nxt


@dataclass(frozen=True)
class _Session:
    """See :meth:`DaskRunner._session`."""

    key: str
    workers: int
    threads: int
    pieces: int
    solve: Any  # the solve object's future, on every worker


def _result(fut, layer: int) -> np.ndarray:
    """A task's values; a task that failed twice (or whose workers died) stops the solve."""
    try:
        return fut.result()
    except Exception as err:  # a KilledWorker, or the kernel's own error, after the retry
        what = type(err).__name__
        raise UserError(
            f"a task of layer {layer} failed twice on the Dask cluster ({what}: {err}); "
            "the solve stopped and nothing was cached"
        ) from None


# -- choosing a runner -------------------------------------------------------------------
def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UserError(
            f"--cluster and --workers need Dask's distributed package: {INSTALL_HINT}"
        ) from None
    return distributed


@contextlib.contextmanager
def cluster_runner(
    cluster: str | None = None, workers: int | None = None, timeout: float = 5.0
) -> Iterator[Runner]:
    """The runner a command asked for: ``--cluster ADDRESS``, ``--workers N`` or neither.

    ``cluster`` is the address of a running ``dask-scheduler``
    (``tcp://host:8786``); ``workers`` starts a ``LocalCluster`` of that many worker
    processes for the run, and stops it after. With neither, layers run in this
    process.
    """
    if cluster is not None and workers is not None:
        raise UserError("--cluster and --workers: give one or the other, not both")
    if cluster is None and workers is None:
        yield LocalRunner()
        return
    if workers is not None and not 1 <= workers <= 256:
        raise UserError(f"--workers: got {workers}, expected 1 to 256 worker processes")
    distributed = _import_distributed()
    import dask

    # A worker lost while it runs a task makes the task "suspicious"; the second
    # loss ends the solve (the default would try three times).
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        if workers is not None:
            with _quiet_logs():
                local = distributed.LocalCluster(
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=50,
                )
            try:
                with distributed.Client(local) as client:
                    yield DaskRunner(client)
            finally:
                with _quiet_logs():
                    local.close()
            return
        try:
            client = distributed.Client(cluster, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as err:
            raise UserError(
                f"--cluster: cannot reach a Dask scheduler at {cluster} ({err}); "
                "start one with dask-scheduler, and give its address as tcp://HOST:8786"
            ) from None
        with client:
            yield DaskRunner(client)


class ClusterRunner(Runner):
    """A cluster the command asked for, started (or reached) at its first solve.

    A command whose tables are all cached never starts one. Use as a context
    manager, or call :meth:`close`, to stop a ``LocalCluster`` it started.
    """

    def __init__(self, cluster: str | None = None, workers: int | None = None) -> None:
        if cluster is not None and workers is not None:
            raise UserError("--cluster and --workers: give one or the other, not both")
        if workers is not None and not 1 <= workers <= 256:
            raise UserError(f"--workers: got {workers}, expected 1 to 256 worker processes")
        _import_distributed()  # a missing package is said before any work
        self.cluster = cluster
        self.workers = workers
        self._stack = contextlib.ExitStack()
        self._runner: DaskRunner | None = None

    @property
    def traffic(self) -> list[LayerTraffic]:
        return self._runner.traffic if self._runner is not None else []

    def start(self) -> DaskRunner:
        """Connect to the cluster (or start the LocalCluster) now, if not yet done."""
        if self._runner is None:
            runner = self._stack.enter_context(cluster_runner(self.cluster, self.workers))
            # a cluster or workers given (what this runner is for): the runner is Dask's
            self._runner = cast(DaskRunner, runner)
        return self._runner

    def run(self, solve: LayeredSolve, table: np.ndarray, progress: Progress | None) -> None:
        self.start().run(solve, table, progress)

    def run_windows(
        self, solve: WindowSolve, fixed: np.ndarray, progress: Progress | None
    ) -> np.ndarray:
        return self.start().run_windows(solve, fixed, progress)

    def close(self) -> None:
        self._stack.close()
        self._runner = None

    def __enter__(self) -> ClusterRunner:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


@contextlib.contextmanager
def runner_for(cluster: str | None = None, workers: int | None = None) -> Iterator[Runner]:
    """The runner of a command's ``--cluster`` / ``--workers`` (this process if neither)."""
    if cluster is None and workers is None:
        yield LocalRunner()
        return
    with ClusterRunner(cluster, workers) as runner:
        yield runner


@contextlib.contextmanager
def _quiet_logs() -> Iterator[None]:
    """Keep Dask's start-up and shutdown chatter off the user's terminal."""
    import logging

    names = ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker")
    saved = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(logging.ERROR)
    try:
        yield
    finally:
        for n, level in saved.items():
            logging.getLogger(n).setLevel(level)


# -- tables larger than memory -----------------------------------------------------------
def new_table(size: int, dtype, store=None, name: str = "table") -> np.ndarray:
    """A flat table of ``size`` values: in memory, or with ``store`` a file in that
    folder, memory-mapped, so the operating system keeps only what is in use; or
    the values of a cache file being written
    (a :class:`~dicelab.engine.runtime.cache.TableFile`)."""
    if store is None:
        return np.empty(size, dtype=dtype)
    values = getattr(store, "values", None)
    if values is not None:
        if values.shape != (size,) or values.dtype != np.dtype(dtype):
            raise ValueError(f"a table file of {values.shape} {values.dtype} for {size} {dtype}")
        return values
    folder = Path(store)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.npy"
        free = _free_bytes(folder)
        need = size * np.dtype(dtype).itemsize
        if free is not None and need > free:
            raise UserError(
                f"--store {folder}: the table needs {need / 2**30:.1f} GiB and the "
                f"disk there has {free / 2**30:.1f} GiB free"
            )
        return np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=(size,))
    except OSError as err:
        raise UserError(f"--store {folder}: cannot write a table there ({err.strerror})") from None


def _free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except (OSError, AttributeError):
        return None
    return st.f_bavail * st.f_frsize


def pieces_of(weights: np.ndarray, pieces: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of at most ``pieces`` runs of items of about equal total
    weight (none empty), so that the tasks of a layer end at about the same time."""
    n = int(weights.size)
    if n == 0:
        return []
    ends = np.cumsum(weights, dtype=np.float64)
    if ends[-1] <= 0:
        ends = np.arange(1, n + 1, dtype=np.float64)
    marks = ends[-1] * np.arange(1, max(1, pieces)) / max(1, pieces)
    cuts = sorted_distinct(np.concatenate([[0], np.searchsorted(ends, marks, side="right"), [n]]))
    return [(int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:], strict=True) if hi > lo]
