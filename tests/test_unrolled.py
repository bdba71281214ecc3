"""The turn written out for one set of dice against the loops over the keeps.

The loops (:func:`dicelab.engine.kernels.duel.duel_throws`) are held to brute
forces in ``test_duel.py``; the written-out turn must give their values to the
last bit, every value of the table, on the dice sets it is written for.
"""

import io
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from numba import typeof

from dicelab.dice import dice_space
from dicelab.engine.kernels import dice_arrays
from dicelab.engine.kernels.unrolled import DiceShape, dice_shape
from dicelab.engine.objectives.duel import DuelLayers, duel_space
from dicelab.engine.runtime.schedule import run_layers
from dicelab.rules import parse_rules
from dicelab.rules.compiled import compile_rules


def small_game(dice: int, faces: int, rolls: int):
    """Three boxes and an upper bonus, on the dice given."""
    return compile_rules(
        parse_rules(
            {
                "name": f"small-{dice}d{faces}",
                "dice": dice,
                "faces": faces,
                "rolls": rolls,
                "upper_bonus": {"threshold": 6, "points": 7},
                "categories": [
                    {"id": "twos", "kind": "face", "face": 2},
                    {"id": "kind", "kind": "of_a_kind", "count": 3, "score": "all"},
                    {"id": "sum", "kind": "chance"},
                ],
            }
        )
    )


def duel_values(game, unrolled: bool) -> np.ndarray:
    space = duel_space(game)
    values = np.full(space.n_values, np.nan)
    run_layers(DuelLayers(game, space, unrolled=unrolled), values, None, None)
    return values


@pytest.mark.parametrize(
    "dice, faces, rolls",
    [
        (5, 6, 3),
        pytest.param(4, 6, 2, marks=pytest.mark.slow),
        pytest.param(5, 5, 1, marks=pytest.mark.slow),
    ],
)
def test_a_duel_with_the_turn_written_out_is_the_loops_to_the_bit(dice, faces, rolls):
    game = small_game(dice, faces, rolls)
    assert dice_shape(dice_arrays(game)) == DiceShape(dice, faces, rolls - 1)
    written, looped = duel_values(game, True), duel_values(game, False)
    assert not np.isnan(written).any()
    assert np.array_equal(written, looped)


def test_only_mid_sized_dice_sets_are_written_out():
    assert dice_shape(dice_arrays(small_game(3, 6, 3))) is None  # 84 keeps: the loops
    assert dice_shape(dice_arrays(small_game(6, 6, 3))) == DiceShape(6, 6, 2)  # 924
    assert dice_space(5, 8).add.shape[0] == 1287
    assert dice_shape(dice_arrays(small_game(5, 8, 3))) is None


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _kernel_cached_for(tmp_path, shapes):
    """A stand-in for a compiled kernel whose cache holds the dice ``shapes``."""
    index = tmp_path / "kernel.nbi"
    index.write_text("")
    keys = {((typeof(shape), "other arguments"), "this machine"): "file" for shape in shapes}
    cache_file = SimpleNamespace(_index_path=str(index), _load_index=lambda: keys)
    return SimpleNamespace(_cache=SimpleNamespace(_cache_file=cache_file))


def test_a_first_run_on_new_dice_says_it_compiles(tmp_path, monkeypatch):
    """The turn is written out per set of dice, so a kernel cached for five six-sided
    dice compiles again for six: the note says so then, and only then."""
    from dicelab.engine.kernels import announce_compile

    five, six = DiceShape(5, 6, 2), DiceShape(6, 6, 2)
    kernel = _kernel_cached_for(tmp_path, [five])
    for shape, says in ((five, False), (six, True), (None, False)):
        err = _Terminal()
        monkeypatch.setattr(sys, "stderr", err)
        announce_compile(kernel, shape=shape)
        assert ("compiling the solver kernels" in err.getvalue()) is says, shape
    (tmp_path / "kernel.nbi").unlink()  # nothing cached at all
    err = _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    announce_compile(kernel)
    assert "compiling the solver kernels" in err.getvalue()
