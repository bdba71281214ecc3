"""dicelab: exact solutions, advice and analysis for dice games.

The Yahtzee family (any rules written as data), the best scoring of known rolls,
and a few related games, all solved exactly.
"""

import os

# The kernels' threads sleep between parallel regions instead of spinning: on a
# machine busy with other work a spinning thread takes a core from the thread that
# has work, and a solve of many small layers ran several times slower. Set before
# the threads start (at the first parallel region); a value already set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__version__ = "0.1.0"
