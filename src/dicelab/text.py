"""Small pieces of English shared by the messages of every command."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 box``, ``2 boxes``: a count and its noun (``many`` for irregular plurals)."""
    if n == 1:
        return f"{n} {noun}"
    if many is None:
        many = noun + ("es" if noun.endswith(("s", "x", "sh", "ch")) else "s")
    return f"{n} {many}"


def did_you_mean(text: str, names) -> str:
    """`` (did you mean 'yahtzee'?)`` for a name close to one of ``names``, else ''.

    >>> did_you_mean("chanse", ["chance", "ones"])
    " (did you mean 'chance'?)"
    """
    import difflib

    close = difflib.get_close_matches(text.strip().lower(), list(names), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
