"""The command groups of ``dicelab``, one module each; importing this package adds
them all to :data:`dicelab.cli.app.app`."""

# the order of --help
from dicelab.cli.commands import rules, solve, duel, match, cache, games  # noqa: F401, I001
from dicelab.cli.commands import play, train, history, serve  # noqa: F401, I001
