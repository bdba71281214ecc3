"""Games played to their end for the tests that keep, review or import them."""

from dicelab.engine.objectives.expected import expected_table
from dicelab.play.game import Game


def finished_game(seed: int = 12, rules: str = "yazy") -> dict:
    """The record of a finished game, every option the best."""
    game = Game(expected_table(rules), seed=seed)
    while game.phase != "over":
        if game.phase == "roll":
            game.roll()
        else:
            best = game.advice().best
            if best.kind == "box":
                game.fill(best.box)
            else:
                game.keep(list(best.keep))
    return game.record
