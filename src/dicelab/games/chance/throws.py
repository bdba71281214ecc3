"""A throw of two six-sided dice as backgammon counts it: 21 distinct throws."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["ROLLS"]

#: The 21 distinct throws of two dice, lower die first, and their chances.
ROLLS = tuple(((a, b), Fraction(1 if a == b else 2, 36)) for a in range(1, 7) for b in range(a, 7))
