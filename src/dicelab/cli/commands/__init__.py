"""The command groups of ``dicelab``, one module each; importing this package adds
them all to :data:`dicelab.cli.app.app`."""

from dicelab.cli.commands import rules, solve, duel, cache, games, play, train, history, serve  # noqa: F401, I001  (the order of --help)
