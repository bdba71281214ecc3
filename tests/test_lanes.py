"""Lane vectors (:mod:`dicelab.engine.kernels.lanes`) against NumPy, and the block kernels
against the row kernels they replace."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from dicelab.engine.kernels import DiceArrays, blocks, lanes, turn
from dicelab.rules import load_rules
from dicelab.rules.compiled import compile_rules


@njit
def _ops(a, b, c, out):
    """Every lane-vector operation on rows 0 of ``a``, ``b``, ``c`` into ``out``."""
    x = lanes.load(a, 0)
    y = lanes.load(b, 0)
    z = lanes.load(c, 0)
    lanes.store(out, 0, lanes.vmax(x, y))
    lanes.store(out, 1, lanes.vadd(x, y))
    lanes.store(out, 2, lanes.vsub(x, y))
    lanes.store(out, 3, lanes.vmul(x, y))
    lanes.store(out, 4, lanes.vfma(x, y, z))
    lanes.store(out, 5, lanes.splat(x, 2.5))


@njit
def _widened(a, out):
    lanes.store(out, 0, lanes.widen(lanes.load(a, 0)))


@njit
def _reversed(a, i, out):
    lanes.store(out, 0, lanes.vreverse(lanes.load(a, i)))


@njit
def _doubled(a, i, out):
    lanes.store(out, 0, lanes.load_double(a, i))


@njit
def _store_lanes(arr, i, j, src, lo, hi):
    lanes.store_lanes_at(arr, i, j, lanes.load(src, 0), lo, hi)


finite = st.floats(-1e6, 1e6, allow_nan=False, width=32)


def rounded(exact: Fraction, dtype) -> float:
    """``exact`` rounded to the nearest value of ``dtype`` (ties to even)."""
    guess = dtype(float(exact))
    best = None
    for cand in (np.nextafter(guess, dtype(-np.inf)), guess, np.nextafter(guess, dtype(np.inf))):
        key = (abs(Fraction(float(cand)) - exact), int(cand.view(f"u{cand.itemsize}")) & 1)
        if best is None or key < best[0]:
            best = (key, cand)
    return best[1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_operations_match_numpy(dtype, data):
    n = lanes.lanes_of(np.dtype(dtype).itemsize)
    rows = [
        np.array(data.draw(st.lists(finite, min_size=n, max_size=n)), dtype).reshape(1, n)
        for _ in range(3)
    ]
    a, b, c = rows
    out = np.zeros((6, n), dtype)
    _ops(a, b, c, out)
    assert np.array_equal(out[0], np.maximum(a[0], b[0]))
    assert np.array_equal(out[1], a[0] + b[0])
    assert np.array_equal(out[2], a[0] - b[0])
    assert np.array_equal(out[3], a[0] * b[0])
    # a fused multiply-add rounds once: the exact product and sum, rounded
    for lane in range(n):
        x, y, z = (Fraction(float(v[0, lane])) for v in (a, b, c))
        exact = x * y + z
        assert out[4, lane] == rounded(exact, dtype)
    assert np.all(out[5] == 2.5)


def test_widen_keeps_every_lane():
    a = (np.arange(16, dtype=np.float32) / 3).reshape(1, 16)
    out = np.zeros(16)
    _widened(a, out)
    assert np.array_equal(out, a[0].astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reverse_reads_a_row_backwards(dtype):
    # from an offset that is not a whole vector: the duel reads its rows so
    a = np.arange(40, dtype=dtype)
    n = lanes.lanes_of(np.dtype(dtype).itemsize)
    out = np.zeros(n, dtype)
    _reversed(a, 3, out)
    assert np.array_equal(out, a[3 : 3 + n][::-1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_double_load_reads_eight_values_of_either_precision(dtype):
    a = (np.arange(40) / 3).astype(dtype)  # thirds: single precision rounds them
    out = np.zeros(8)
    _doubled(a, 5, out)
    assert np.array_equal(out, a[5:13].astype(np.float64))


@pytest.mark.parametrize(("lo", "hi"), [(0, 16), (0, 5), (5, 16), (3, 9), (7, 7)])
def test_store_lanes_writes_only_its_lanes(lo, hi):
    arr = np.full((2, 3, 16), -1.0, np.float32)
    src = np.arange(16, dtype=np.float32).reshape(1, 16)
    _store_lanes(arr, 1, 2, src, lo, hi)
    want = np.full(16, -1.0, np.float32)
    want[lo:hi] = src[0, lo:hi]
    assert np.array_equal(arr[1, 2], want)
    assert np.all(arr[0] == -1.0) and np.all(arr[1, :2] == -1.0)


@njit
def _width(a):
    return lanes.width(a)


def test_a_lane_vector_is_64_bytes_of_the_array_values():
    assert _width(np.zeros((2, 16), np.float32)) == 16
    assert _width(np.zeros(3)) == 8


def test_rows_of_the_wrong_width_are_refused():
    @njit
    def bad(a, v):
        lanes.store(a, 0, lanes.load(v, 0))

    with pytest.raises(Exception, match="does not fit"):
        bad(np.zeros((2, 16), np.float64), np.zeros((1, 16), np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_block_throws_match_the_row_kernels(dtype):
    """The rerolls of one block equal :func:`keep_values` and :func:`best_keeps`."""
    space = compile_rules(load_rules("yahtzee")).space
    n = lanes.lanes_of(np.dtype(dtype).itemsize)
    rng = np.random.default_rng(7)
    A = rng.uniform(-20, 60, (space.add.shape[0], n)).astype(dtype)
    B = A.copy()
    turn.keep_values(A, space.add, space.size_start, space.dice, space.faces, n)
    turn.best_keeps(A, space.sub_rows, n)
    blocks.keep_block(B, space.add, space.size_start, space.dice, space.faces)
    blocks.best_block(B, space.sub_rows)
    assert np.array_equal(A, B)


def test_keep_mean_is_not_biased_in_single_precision():
    """``1/6`` rounded to single precision is 3e-8 too large: a plain multiply moves
    every mean up by that share; the block mean (rounded once) does not."""
    space = compile_rules(load_rules("yahtzee")).space
    rng = np.random.default_rng(3)
    A = rng.uniform(0, 30, (space.add.shape[0], 16)).astype(np.float32)
    plain = A.copy()
    exact = A.astype(np.float64)
    blocks.keep_block(A, space.add, space.size_start, space.dice, space.faces)
    turn.keep_values(exact, space.add, space.size_start, space.dice, space.faces, 16)
    inv = np.float32(1 / 6)
    for k in range(space.size_start[space.dice] - 1, -1, -1):
        total = plain[space.add[k, 0]].copy()
        for f in range(1, 6):
            total += plain[space.add[k, f]]
        plain[k] = total * inv
    keeps = slice(0, space.size_start[space.dice])
    bias = (A[keeps] - exact[keeps]).mean()
    plain_bias = (plain[keeps] - exact[keeps]).mean()
    assert plain_bias > 2e-7
    assert abs(bias) < plain_bias / 4
    assert np.abs(A[keeps] - exact[keeps]).max() < 1e-5


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_paired_blocks_match_one_block_at_a_time(dtype):
    """Two blocks_ paired row by row give each block's own turn, bit for bit."""
    space = compile_rules(load_rules("yahtzee")).space
    n = lanes.lanes_of(np.dtype(dtype).itemsize)
    n_keeps = space.add.shape[0]
    rng = np.random.default_rng(11)
    blocks_ = rng.uniform(-20, 60, (2, n_keeps, n)).astype(dtype)
    paired = np.ascontiguousarray(blocks_.transpose(1, 0, 2))
    base = rng.uniform(100, 200, 2 * n)
    dice = DiceArrays(space.add, space.sub_rows, space.size_start, space.roll_prob, space.dice,
                      space.faces, 2)  # fmt: skip
    want = np.zeros((2, n))
    for j in range(2):
        blocks.throws_block(blocks_[j], want[j], dice, blocks_[j], False, base[j * n : j * n + n])
    got = np.zeros((2, n))
    blocks.throws_pair(paired, got, dice, paired, False, base)
    assert np.array_equal(got, want)
    assert np.array_equal(paired.transpose(1, 0, 2), blocks_)


@settings(max_examples=60, deadline=None)
@given(
    nl=st.integers(1, 40),
    x0=st.integers(-20, 20),
    gain=st.integers(0, 30),
    ulo=st.integers(-15, 5),
    width=st.integers(0, 20),
    single=st.booleans(),
)
def test_a_duel_row_read_backwards_matches_its_definition(nl, x0, gain, ulo, width, single):
    # lane l reads lead gain - (x0 + l): above the node's undecided range
    # ``above``, below it ``below``, inside it the node's row, in either precision
    from dicelab.engine.kernels import Leads
    from dicelab.engine.kernels.duel import duel_read

    uhi = ulo + width
    xlo = ulo
    toff = 7  # the row starts past some other node's values
    T = np.random.default_rng(nl * 97 + x0).random(toff + width + 1 + 3)
    T = T.astype(np.float32 if single else np.float64)
    leads = Leads(*(np.array([v], np.int64) for v in (toff, xlo, ulo, uhi)))
    dst = np.full(-(-nl // 8) * 8, np.nan)
    duel_read(dst, nl, x0, gain, 0, T, 2, leads, 0.25, 0.75)
    for lane in range(nl):
        lead = gain - (x0 + lane)
        want = 0.75 if lead > uhi else 0.25 if lead < ulo else float(T[toff - 2 + lead - xlo])
        assert dst[lane] == want, (lane, lead)
