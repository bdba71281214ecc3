"""``python -m dicelab.cli``: the same command line as ``dicelab``."""

from dicelab.cli import main

main()
