"""The solvers of the Yahtzee family: objectives, advice, runtime and compiled kernels.

``dicelab.solve`` (the function in :mod:`dicelab.api`) is the front door; this package
holds what it calls. It never prints, draws or reads a command line."""
