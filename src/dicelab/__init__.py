"""dicelab: exact solutions, advice and analysis for dice games.

The Yahtzee family (any rules written as data), the best scoring of known rolls,
and a few related games, all solved exactly.
"""

__version__ = "0.1.0"
