"""``python -m dicelab``: the same command line as ``dicelab``."""

from dicelab.cli import main

main()
