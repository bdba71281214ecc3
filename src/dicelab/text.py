"""Small pieces of English shared by the messages of every command."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 box``, ``2 boxes``: a count and its noun (``many`` for irregular plurals)."""
    if n == 1:
        return f"{n} {noun}"
    if many is None:
        many = noun + ("es" if noun.endswith(("s", "x", "sh", "ch")) else "s")
    return f"{n} {many}"
