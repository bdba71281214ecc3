"""Parallel regions on a busy machine: short ones run on one thread, the kernels'
threads sleep between regions, and neither changes a single value."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import config, get_num_threads, set_num_threads

from dicelab.engine.objectives.expected import ExpectedLayers, mark_unreachable
from dicelab.engine.runtime.schedule import ONE_THREAD_BELOW, run_layers, threads_for
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules

several = pytest.mark.skipif(config.NUMBA_NUM_THREADS < 2, reason="needs two threads")


@several
def test_a_short_region_runs_on_one_thread_and_the_threads_come_back():
    threads = get_num_threads()
    with threads_for(ONE_THREAD_BELOW / 2):
        assert get_num_threads() == 1
    assert get_num_threads() == threads
    with threads_for(ONE_THREAD_BELOW * 2):
        assert get_num_threads() == threads
    with pytest.raises(RuntimeError), threads_for(0.0):
        raise RuntimeError("a failing region")
    assert get_num_threads() == threads


class Recording(ExpectedLayers):
    """The expected-score solve, noting the threads each task ran on."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.seen = []

    def run(self, table, task):
        self.seen.append((self.weight(task) * self.unit_seconds, get_num_threads()))
        super().run(table, task)


def solve(game, threads: int) -> tuple[np.ndarray, list]:
    before = get_num_threads()
    set_num_threads(threads)
    try:
        layers = Recording(game)
        table = np.empty(layers.size)
        run_layers(layers, table)
        mark_unreachable(table.reshape(layers.shape), game)  # as the solver does
        return table, layers.seen
    finally:
        set_num_threads(before)


@several
def test_the_runner_gives_short_layers_one_thread_and_the_same_values():
    game = compile_rules(load_rules("yahtzee"))
    many, seen = solve(game, 2)
    short = [n for s, n in seen if s < ONE_THREAD_BELOW]
    long = [n for s, n in seen if s >= ONE_THREAD_BELOW]
    assert short and long  # the first and last layers are small, the middle ones not
    assert set(short) == {1} and set(long) == {2}
    one, _ = solve(game, 1)
    assert np.array_equal(many, one, equal_nan=True)


def wait_policy(env: dict) -> str:
    code = "import os, dicelab; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return out.stdout.strip()


def test_kernel_threads_sleep_between_regions_unless_told_otherwise():
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert wait_policy(env) == "PASSIVE"
    assert wait_policy(env | {"OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"
