"""The seeded simulation agrees with exact fractions computed by the plain recursion."""

import pytest
from oracles.race import plain_race

from dicelab.errors import UserError
from dicelab.games.race.simulate import simulate


def test_reference_match_up_within_four_standard_errors():
    a, b = [5, 6, 7, 8, 9], [5, 6, 7, 7, 8]
    win, lose, tie = plain_race(a, b, 2, 6)
    sim = simulate(a, b, 2, 6, seed=7, min_games=40_000, max_games=40_000)
    assert sim.games == 40_000
    assert not sim.stopped_early
    for name, exact in (("win", win), ("lose", lose), ("tie", tie)):
        p, se = sim.estimate(name)
        assert abs(p - float(exact)) <= 4 * se


def test_same_seed_same_games():
    one = simulate([4, 7], [6, 8], 2, 6, seed=3, min_games=500, max_games=2_000)
    two = simulate([4, 7], [6, 8], 2, 6, seed=3, min_games=500, max_games=2_000)
    other = simulate([4, 7], [6, 8], 2, 6, seed=4, min_games=500, max_games=2_000)
    assert (one.wins, one.losses, one.ties) == (two.wins, two.losses, two.ties)
    assert (one.wins, one.losses, one.ties) != (other.wins, other.losses, other.ties)


def test_decisive_share_stops_early():
    # [7] wins 6 of 7 races against [2]: far above a 0.75 share, so it stops at once
    sim = simulate([7], [2], 2, 6, seed=1, min_games=300, max_games=50_000, decisive_share=0.75)
    assert sim.stopped_early
    assert sim.games == 300
    # a share of 1 needs every decided race won: [2] wins some, so all games are played
    sim = simulate([7], [2], 2, 6, seed=1, min_games=300, max_games=3_000, decisive_share=1.0)
    assert sim.games == 3_000
    assert not sim.stopped_early


def test_one_die_coin_race():
    # two heads before one tail: 1/4 exactly
    sim = simulate([1, 1], [2], 1, 2, seed=11, min_games=20_000, max_games=20_000)
    p, se = sim.estimate("win")
    assert abs(p - 0.25) <= 4 * se
    assert sim.ties == 0


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"min_games": 0}, "min_games"),
        ({"min_games": 10, "max_games": 5}, "must not exceed"),
        ({"decisive_share": 0.5}, "above 0.5"),
        ({"decisive_share": 2}, "at most 1"),
        ({"max_games": 10**12}, "20,000,000"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_settings(kwargs, message):
    with pytest.raises(UserError, match=message):
        simulate([7], [6], 2, 6, **kwargs)
