"""Batches shared among threads: each thread takes the next batch from one counter.

A kernel written as a *worker*, ``worker(counter, w, *args)``, runs batches
``take(counter)`` until they run out, in thread ``w``'s own buffers. Compiled with
``nogil=True``, it runs on several Python threads at once (:func:`on_threads`).
This is what a ``prange`` loop with a chunk size of 1 does, without the parallel
compiler: outlining a loop body that reads a rule set's bundles of arrays takes
Numba about 4 s a specialisation, a third of a first solve's compile.

A worker may also run a *chain* of layers in one call: batches are numbered layer
after layer, a worker says each batch is finished (:func:`done`), and before it
starts a batch of the next layer it waits until every batch of the layer before is
finished (:func:`wait_done`). Threads then wait for one another only where a value
they need is still being worked out, not once a layer at a barrier, and a chain of
small layers costs one start of the threads, not one a layer (each start wakes
every thread through Python: about 70 microseconds for a second thread).
"""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.core.extending import intrinsic

_pool: ThreadPoolExecutor | None = None

#: Where a counter keeps the batches finished: a cache line after the next batch to
#: take, so that taking and finishing do not contend for one line.
DONE = 8


def _check_counter(counter, name: str) -> None:
    """A counter is an array of int64 (:func:`new_counter`)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        raise TypeError(f"{name} counts on an array of int64")


@intrinsic
def take(typingctx, counter):
    """``counter[0] += 1`` as one atomic step, giving the value before: the next
    batch for the calling thread (callable from ``@njit`` code only)."""
    _check_counter(counter, "take")

    def codegen(context, builder, signature, args):
        ary = context.make_array(counter)(context, builder, args[0])
        one = ir.Constant(ir.IntType(64), 1)
        return builder.atomic_rmw("add", ary.data, one, "monotonic")

    return types.int64(counter), codegen


def _done_pointer(context, builder, counter, arg):
    ary = context.make_array(counter)(context, builder, arg)
    return cgutils.get_item_pointer(
        context, builder, counter, ary, [ir.Constant(ir.IntType(64), DONE)]
    )


@intrinsic
def done(typingctx, counter):
    """One more batch finished: every value the calling thread wrote before is seen
    by a thread that then finds the count (:func:`wait_done`)."""
    _check_counter(counter, "done")

    def codegen(context, builder, signature, args):
        ptr = _done_pointer(context, builder, counter, args[0])
        one = ir.Constant(ir.IntType(64), 1)
        builder.atomic_rmw("add", ptr, one, "release")
        return context.get_dummy_value()

    return types.none(counter), codegen


@intrinsic
def finished(typingctx, counter):
    """The batches finished so far, with every value written before them."""
    _check_counter(counter, "finished")

    def codegen(context, builder, signature, args):
        ptr = _done_pointer(context, builder, counter, args[0])
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(counter), codegen


@intrinsic
def give_way(typingctx):
    """Let another thread run on this core (``sched_yield``): a waiting thread must
    not hold the core of the thread it waits for where threads outnumber cores."""

    def codegen(context, builder, signature, args):
        if sys.platform != "win32":
            fnty = ir.FunctionType(ir.IntType(32), [])
            builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
        return context.get_dummy_value()

    return types.none(), codegen


@njit(cache=True, inline="always")
def wait_done(counter, n):
    """Return once ``n`` batches are finished (see :func:`done`); inlined, so it is
    compiled as its caller is."""
    while finished(counter) < n:
        give_way()


def new_counter() -> np.ndarray:
    """A counter for :func:`take` and :func:`done`, both at zero."""
    return np.zeros(2 * DONE, np.int64)


def on_threads(worker, *args) -> None:
    """``worker(counter, w, *args)`` on Numba's number of threads (``w`` from 0),
    this thread among them; returns when every batch is done and re-raises the
    first error."""
    from numba import config, get_num_threads

    global _pool
    n = get_num_threads()
    counter = new_counter()
    if n == 1:
        worker(counter, 0, *args)
        return
    if _pool is None:
        _pool = ThreadPoolExecutor(max(1, config.NUMBA_NUM_THREADS - 1), "dicelab-kernel")
    others = [_pool.submit(worker, counter, w, *args) for w in range(1, n)]
    try:
        worker(counter, 0, *args)
    finally:
        for f in others:
            f.result()
