"""Work shared among threads (:mod:`dicelab.engine.kernels.work`) and a kernel
compiled in another process (:mod:`dicelab.engine.runtime.ahead`)."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit, set_num_threads

from dicelab.engine.kernels.work import on_threads, take
from dicelab.engine.objectives.expected import solve_expected


@njit(nogil=True)
def _count_batches(counter, w, n, seen, worker):
    b = take(counter)
    while b < n:
        seen[b] += 1
        worker[b] = w
        b = take(counter)


def test_every_batch_runs_once_on_some_thread():
    n = 10_000
    seen = np.zeros(n, np.int64)
    worker = np.full(n, -1, np.int64)
    set_num_threads(2)
    on_threads(_count_batches, n, seen, worker)
    assert (seen == 1).all()
    assert set(np.unique(worker)) <= {0, 1}
    set_num_threads(1)
    seen[:] = 0
    on_threads(_count_batches, n, seen, worker)
    assert (seen == 1).all()
    assert (worker == 0).all()


_FIRST_RUN = """
import json
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.kernels import blocks
table = solve_expected("yacht")
print(json.dumps({
    "score": table.expected_score,
    "single": [sum(blocks.solve_blocks.stats.cache_hits.values()),
               sum(blocks.solve_blocks.stats.cache_misses.values())],
    "double": [sum(blocks.solve_blocks_double.stats.cache_hits.values()),
               sum(blocks.solve_blocks_double.stats.cache_misses.values())],
}))
"""


@pytest.mark.slow
def test_a_first_solve_compiles_the_double_turn_in_another_process(tmp_path):
    """In an empty compile cache, the first solve leaves both turns cached (the
    double-precision one compiled by the child) and no temporary folder; the next
    process compiles nothing and both give the table of this process."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        DICELAB_CACHE_DIR=str(tmp_path / "tables"),
        TMPDIR=str(tmp_path / "tmp"),
    )
    (tmp_path / "tmp").mkdir()
    runs = []
    for _ in range(2):
        out = subprocess.run(
            [sys.executable, "-c", _FIRST_RUN], env=env, capture_output=True, text=True, check=True
        )
        runs.append(json.loads(out.stdout))
    assert list((tmp_path / "numba").rglob("blocks.solve_blocks_double-*.nbi"))
    assert not list((tmp_path / "tmp").iterdir())
    # [cache hits, compiled here]: the double turn came from the child's compile
    assert runs[0]["single"] == [0, 1] and runs[0]["double"] == [1, 0]
    assert runs[1]["single"] == [1, 0] and runs[1]["double"] == [1, 0]
    here = solve_expected("yacht").expected_score
    assert runs[0]["score"] == runs[1]["score"] == here


_TINY_KERNEL = """
from numba import njit


@njit(cache=True)
def plus_one(x):
    return x + 1
"""

_CALL = """
import json, sys
sys.path.insert(0, {folder!r})
import tiny_kernel
tiny_kernel.plus_one({arg})
stats = tiny_kernel.plus_one.stats
print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
"""


def _call(folder, cache, arg) -> list[int]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    code = _CALL.format(folder=str(folder), arg=arg)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def test_a_childs_other_signatures_join_this_cache(tmp_path):
    """A kernel compiled here for one signature and by a child for another (a table
    read back read-only, say): after the merge, this cache serves both."""
    from dicelab.engine.runtime import ahead

    (tmp_path / "tiny_kernel.py").write_text(_TINY_KERNEL)
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    assert _call(tmp_path, ours, "1") == [0, 1]  # compiled here for an int
    assert _call(tmp_path, theirs, "1.5") == [0, 1]  # the child's: a float
    sys.path.insert(0, str(tmp_path))
    try:
        import numba

        old = numba.config.CACHE_DIR
        numba.config.CACHE_DIR = str(ours)
        try:
            import tiny_kernel

            dispatcher = tiny_kernel.plus_one
            index = ahead.Path(dispatcher._cache._cache_file._index_path)
            child = next(theirs.rglob(index.name)).parent
            made = {"folder": str(child), "index": index.name, "kernel": "tiny_kernel:plus_one",
                    "data": sorted(p.name for p in child.glob("*.nbc"))}  # fmt: skip
            ahead._merge_files(made, dispatcher)
        finally:
            numba.config.CACHE_DIR = old
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("tiny_kernel", None)
    assert _call(tmp_path, ours, "1") == [1, 0]
    assert _call(tmp_path, ours, "1.5") == [1, 0]  # brought over: nothing compiled
