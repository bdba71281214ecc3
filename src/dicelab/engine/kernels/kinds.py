"""The kinds of a game graph's nodes (see :mod:`dicelab.engine.kernels.graph`).

Kept apart from the kernels, which import Numba, so that laying a game out and
solving a small one (:mod:`dicelab.engine.small_graph`) never loads it.
"""

#: the first player, or the only one, who wants the value high
MAX = 0
#: the second player, or a one-player game that counts a cost
MIN = 1
#: the dice: edges weighted by their chances
CHANCE = 2
#: the game is over: the node is worth its payoff
END = 3
