"""Shared test set-up for the tests and the doctests: a private cache folder, so they
never touch the user's."""

import os

import pytest


@pytest.fixture(autouse=True, scope="session")
def _private_cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dicelab-cache")
    old = os.environ.get("DICELAB_CACHE_DIR")
    os.environ["DICELAB_CACHE_DIR"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("DICELAB_CACHE_DIR", None)
    else:
        os.environ["DICELAB_CACHE_DIR"] = old
