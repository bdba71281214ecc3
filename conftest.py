"""Shared test set-up for the tests and the doctests: a private cache folder, so they
never touch the user's (cached tables, the history of games)."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    """A cache folder and a data folder (the history of games) of the test session's own."""
    folders = {}
    old = {}
    for name in ("DICELAB_CACHE_DIR", "DICELAB_DATA_DIR"):
        folders[name] = tmp_path_factory.mktemp(name.lower().replace("_", "-"))
        old[name] = os.environ.get(name)
        os.environ[name] = str(folders[name])
    yield folders["DICELAB_CACHE_DIR"]
    for name, value in old.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
