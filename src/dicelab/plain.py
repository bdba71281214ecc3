"""Plain data for JSON: the part of a result's ``to_dict`` that is its attributes as
they are."""

from __future__ import annotations


def plain_fields(obj: object, names: str, **renamed: str) -> dict:
    """``{name: obj.name}`` for each of the space-separated ``names``, in order.

    A result's JSON mostly gives its attributes under their own names; this writes
    that once instead of a key and an attribute of the same name again and again.
    ``renamed`` gives the attribute a key reads where the two names differ.

    >>> from types import SimpleNamespace
    >>> plain_fields(SimpleNamespace(a=1, b=2, when="noon"), "b a finished_at", finished_at="when")
    {'b': 2, 'a': 1, 'finished_at': 'noon'}
    """
    return {name: getattr(obj, renamed.get(name, name)) for name in names.split()}
