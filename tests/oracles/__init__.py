"""Independent answers the solvers are checked against: the project's strongest guarantee.

Each oracle shares nothing with the solver it checks but the category scoring
functions (tested on their own). All of them work on tiny games only.

- :mod:`oracles.rules`: tiny random rule sets (Hypothesis strategies).
- :mod:`oracles.expectimax`: plain expectimax over ordered dice, for the expected
  score (:func:`~oracles.expectimax.brute_force`) and for values over a points axis
  (:class:`~oracles.expectimax.BruteForce`: every target, any utility).
- :mod:`oracles.policy`: a table-driven strategy played out exactly: the
  distribution of the final score under any strategy.
- :mod:`oracles.duel`: the two-player game by expectimax over both sheets.
- :mod:`oracles.race`: the dice race by listing throws and by recursion.
- :mod:`oracles.chance`: Pig by value iteration from Neller and Presser's equations,
  Shut the Box and the bear-off by recursion in fractions (a move generator of
  their own).
"""
