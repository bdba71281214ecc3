"""Batches shared among threads: each thread takes the next batch from one counter.

A kernel written as a *worker*, ``worker(counter, w, *args)``, runs batches
``take(counter)`` until they run out, in thread ``w``'s own buffers. Compiled with
``nogil=True``, it runs on several Python threads at once (:func:`on_threads`).
This is what a ``prange`` loop with a chunk size of 1 does, without the parallel
compiler: outlining a loop body that reads a rule set's bundles of arrays takes
Numba about 4 s a specialisation, a third of a first solve's compile.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

_pool: ThreadPoolExecutor | None = None


@intrinsic
def take(typingctx, counter):
    """``counter[0] += 1`` as one atomic step, giving the value before: the next
    batch for the calling thread (callable from ``@njit`` code only)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        raise TypeError("take counts on an array of int64")

    def codegen(context, builder, signature, args):
        ary = context.make_array(counter)(context, builder, args[0])
        one = ir.Constant(ir.IntType(64), 1)
        return builder.atomic_rmw("add", ary.data, one, "monotonic")

    return types.int64(counter), codegen


def on_threads(worker, *args) -> None:
    """``worker(counter, w, *args)`` on Numba's number of threads (``w`` from 0),
    this thread among them; returns when every batch is done and re-raises the
    first error."""
    from numba import config, get_num_threads

    global _pool
    n = get_num_threads()
    counter = np.zeros(1, np.int64)
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
