"""The distribution of the points to come from every state, against independent checks.

- Every reachable state of random tiny rule sets, against the brute force that plays
  the expected-score strategy out over ordered dice (``test_distribution.PolicyBrute``).
- A full-size rule set's rows against the forward pass of ``score_distribution``
  from the same states (a second computation of the same figures).
- The cache: read back bit for bit, and a damaged file solved anew.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from oracles.policy import BRUTE, PolicyBrute
from oracles.rules import bonus_rules, small_rules

from dicelab.engine.objectives.distribution import score_distribution
from dicelab.engine.objectives.expected import solve_expected
from dicelab.engine.objectives.points import state_bounds
from dicelab.engine.objectives.remaining import TAIL, remaining_table, solve_remaining
from dicelab.errors import DamagedTable
from dicelab.rules.compiled import compile_rules


def brute_row(brute: PolicyBrute, mask: int, y: int, u: int) -> dict[int, float]:
    """The brute force's chance of each number of points to come."""
    out: dict[int, float] = {}
    for (rest, _, _), p in brute.remaining(mask, u, y).items():
        out[rest] = out.get(rest, 0.0) + p
    return out


@BRUTE
@given(small_rules(variants=True))
def test_every_state_against_brute_force(rules):
    game = compile_rules(rules)
    expected = solve_expected(rules, precision="double")
    table = solve_remaining(game, expected)
    brute = PolicyBrute(rules)
    reach = state_bounds(game).reachable
    for mask, y, u in zip(*np.nonzero(reach), strict=True):
        want = brute_row(brute, int(mask), int(y), int(u))
        lo, got = table.row(int(mask), int(y), int(u))
        assert lo == min(want) and lo + got.size - 1 == max(want)  # no tail under TAIL here
        for x in range(got.size):
            assert got[x] == pytest.approx(want.get(lo + x, 0.0), abs=1e-7), (mask, y, u, x)


def test_unreachable_states_are_refused():
    from oracles.duel import FOUR_BOXES

    from dicelab.errors import UserError
    from dicelab.rules import parse_rules

    table = remaining_table(parse_rules(FOUR_BOXES), use_cache=False)
    g = table.game
    mask, y, u = (int(v[0]) for v in np.nonzero(~state_bounds(g).reachable))
    with pytest.raises(UserError, match="no game reaches"):
        table.row(mask, y, u)


@pytest.mark.parametrize("start", [(0, 0, 0, 0), (0b1011, 0, 0, 20), (0b10110010110, 0, 0, 90)])
def test_rows_against_the_forward_distribution(start):
    table = remaining_table("yazy", use_cache=False)
    g = table.game
    mask, y, u, score = start
    forward = score_distribution(g, table.expected, start=(mask, y, u, score)).pmf
    lo, row = table.row(mask, y, u)
    got = np.zeros(max(forward.size, score + lo + row.size))
    got[score + lo : score + lo + row.size] = row
    want = np.zeros(got.size)
    want[: forward.size] = forward
    assert np.abs(got - want).max() < 1e-7 + 30 * TAIL


def test_the_cache_reads_back_and_a_damaged_file_is_solved_anew(tmp_path, monkeypatch):
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    first = remaining_table("yazy")
    again = remaining_table("yazy")
    assert not first.cached and again.cached
    assert np.array_equal(np.asarray(first.values), np.asarray(again.values))
    assert np.array_equal(first.off, again.off) and np.array_equal(first.lo, again.lo)
    (path,) = tmp_path.glob("yazy.remaining.*")
    raw = bytearray(path.read_bytes())
    raw[-200] ^= 0xFF  # a byte of the start's row (the last one)
    path.write_bytes(bytes(raw))
    mapped = remaining_table("yazy")
    assert mapped.cached  # the bounds are intact; the row is checked when read
    with pytest.raises(DamagedTable, match="damaged"):
        mapped.final_pmf(0)
    fresh = remaining_table("yazy", mapped=False)
    assert not fresh.cached  # read whole, the damage is seen: solved again and stored
    assert np.array_equal(np.asarray(fresh.values), np.asarray(first.values))
    assert remaining_table("yazy").final_pmf(0) == pytest.approx(first.final_pmf(0))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bonus_rules())
def test_states_past_the_upper_bonus_share_a_row_with_the_same_values_to_the_bit(rules):
    """The states of one mask and flag that lost the bonus take the first one's
    row, worked out and kept once: every state's row, bounds and values, is the one
    a table that works each of them out and keeps it gives, and the shared table
    keeps fewer values."""
    from unittest import mock

    from dicelab.engine.objectives import remaining

    game = compile_rules(rules)
    values = solve_expected(game)
    shared = solve_remaining(game, values)

    def alone(game, states):  # no state takes another's row
        return np.arange(states.shape[0]), np.ones(states.shape[0], bool)

    with mock.patch.object(remaining, "_sharing", alone):
        own = solve_remaining(game, values)
    assert np.array_equal(shared.lo, own.lo) and np.array_equal(shared.hi, own.hi)
    for m, y, u in zip(*np.nonzero(own.hi >= own.lo), strict=True):
        a, b = shared.row(m, y, u)[1], own.row(m, y, u)[1]
        assert np.array_equal(a.view(np.uint64), b.view(np.uint64))
    assert np.asarray(shared.values).size <= np.asarray(own.values).size


def test_a_table_kept_with_a_row_for_every_state_is_solved_anew(tmp_path, monkeypatch):
    """A cached table laid out with a row for every state (as before rows were
    shared) does not match the shared layout's size: it is solved again, never read
    with the wrong offsets."""
    from unittest import mock

    from dicelab.engine.objectives import remaining
    from dicelab.rules import parse_rules

    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    cats = [{"id": f"f{f}", "kind": "face", "face": f} for f in (1, 2, 3, 4)]
    rules = parse_rules(
        {
            "name": "shared",
            "dice": 3,
            "faces": 4,
            "rolls": 2,
            "categories": [*cats, {"id": "sum", "kind": "chance"}],
            "upper_bonus": {"threshold": 12, "points": 9},
        }
    )
    game = compile_rules(rules)

    def alone(game, states):
        return np.arange(states.shape[0]), np.ones(states.shape[0], bool)

    with mock.patch.object(remaining, "_sharing", alone):
        old = remaining_table(game)
    fresh = remaining_table(game)
    assert not fresh.cached  # the old layout is not read
    assert np.asarray(fresh.values).size < np.asarray(old.values).size
    again = remaining_table(game)
    assert again.cached and np.array_equal(np.asarray(again.values), np.asarray(fresh.values))
    assert again.final_pmf(0) == pytest.approx(old.final_pmf(0))
