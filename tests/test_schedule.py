"""Parallel regions on a busy machine: short ones run on one thread, the kernels'
threads sleep between regions, and neither changes a single value."""

import os
import subprocess
import sys
from unittest import mock

import numpy as np
import pytest
from numba import config, get_num_threads, set_num_threads

from dicelab.engine.objectives.expected import ExpectedLayers, mark_unreachable
from dicelab.engine.runtime import schedule
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

    def run_chain(self, table, chain):
        weight = sum(self.weight(self.by_layer[k]) for k in chain)
        self.seen.append((weight * self.unit_seconds, get_num_threads(), list(chain)))
        super().run_chain(table, chain)


def solve(game, threads: int, chain_seconds: float = 0.0) -> tuple[np.ndarray, list]:
    before = get_num_threads()
    set_num_threads(threads)
    try:
        layers = Recording(game)
        table = np.empty(layers.size)
        with mock.patch.object(schedule, "CHAIN_SECONDS", chain_seconds):
            run_layers(layers, table)
        mark_unreachable(table.reshape(layers.shape), game)  # as the solver does
        return table, layers.seen
    finally:
        set_num_threads(before)


@several
def test_the_runner_gives_short_layers_one_thread_and_the_same_values():
    game = compile_rules(load_rules("yahtzee"))
    many, seen = solve(game, 2)  # a layer at a time
    short = [n for s, n in seen if s < ONE_THREAD_BELOW]
    long = [n for s, n in seen if s >= ONE_THREAD_BELOW]
    assert short and long  # the first and last layers are small, the middle ones not
    assert set(short) == {1} and set(long) == {2}
    one, _ = solve(game, 1)
    assert np.array_equal(many, one, equal_nan=True)


@several
def test_layers_chained_on_the_threads_give_the_values_of_a_layer_at_a_time():
    """A chain runs a layer's batches only once the layer before is finished."""
    game = compile_rules(load_rules("yahtzee"))
    alone, _ = solve(game, 1)
    chained, seen = solve(game, 2, chain_seconds=10.0)
    runs = [entry[2] for entry in seen]
    assert runs == [list(range(game.n_categories - 1, -1, -1))]  # one chain: every layer
    assert np.array_equal(alone.view(np.uint64), chained.view(np.uint64))


CHAINED = """
import numpy as np
from unittest import mock
from numba import set_num_threads
from dicelab.engine.objectives.expected import ExpectedLayers
from dicelab.engine.runtime import schedule
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules
game = compile_rules(load_rules("yahtzee"))
def table(threads, chain_seconds):
    set_num_threads(threads)
    layers = ExpectedLayers(game)
    out = np.zeros(layers.size)
    with mock.patch.object(schedule, "CHAIN_SECONDS", chain_seconds):
        schedule.run_layers(layers, out)
    return out.view(np.uint64)
alone = table(1, 0.0)
print(all(np.array_equal(alone, table(6, 10.0)) for _ in range(3)))
"""


def test_a_chain_on_more_threads_than_cores_gives_the_same_values():
    """Six threads on this machine's cores: threads wait for a core while others
    wait for their values (a waiting thread gives its core way), and the table is
    still the one solved a layer at a time on one thread, to the bit."""
    env = dict(os.environ, NUMBA_NUM_THREADS="6")
    out = subprocess.run([sys.executable, "-c", CHAINED], env=env, capture_output=True,
                         text=True, check=True, timeout=300)  # fmt: skip
    assert out.stdout.strip() == "True"


def test_chains_gather_consecutive_layers_up_to_their_work():
    layers = ExpectedLayers(compile_rules(load_rules("maxi-yatzy")))
    with mock.patch.object(schedule, "CHAIN_SECONDS", 1.0):
        runs = schedule.chains(layers)
    flat = [layer for chain, _ in runs for layer in chain]
    assert flat == layers.layers()  # each once, in order
    assert sum(weight for _, weight in runs) == layers.total - layers.done
    for chain, weight in runs:
        # a chain of several layers stays within the limit; a layer over it runs alone
        assert len(chain) == 1 or weight * layers.unit_seconds <= 1.0
    for (_, weight), (after, _) in zip(runs, runs[1:], strict=False):
        # and takes the next layer in unless that would pass it
        assert (weight + layers.weight(layers.by_layer[after[0]])) * layers.unit_seconds > 1.0
    sizes = [len(chain) for chain, _ in runs]
    assert sizes[0] > 1 and sizes[-1] > 1 and 1 in sizes  # small layers at both ends


def wait_policy(env: dict) -> str:
    code = "import os, dicelab; print(os.environ['OMP_WAIT_POLICY'])"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True)  # fmt: skip
    return out.stdout.strip()


def test_kernel_threads_sleep_between_regions_unless_told_otherwise():
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    assert wait_policy(env) == "PASSIVE"
    assert wait_policy(env | {"OMP_WAIT_POLICY": "ACTIVE"}) == "ACTIVE"
