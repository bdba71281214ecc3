"""Shared test set-up for the tests and the doctests: a private cache folder, so they
never touch the user's (cached tables, the history of games), and Hypothesis's files
kept out of the work tree.

Hypothesis draws new examples on every run, so a run while working explores further;
``.ci/run`` sets ``DICELAB_HYPOTHESIS_PROFILE=ci``, whose examples are fixed (a seed
from each test's own source), so the gate judges a change, not a draw.
"""

import os
import shutil
import tempfile

import pytest
from hypothesis import settings
from hypothesis.configuration import set_hypothesis_home_dir

settings.register_profile("dicelab", database=None)
settings.register_profile("ci", parent=settings.get_profile("dicelab"), derandomize=True)
settings.load_profile(os.environ.get("DICELAB_HYPOTHESIS_PROFILE", "dicelab"))


def pytest_configure(config):
    """Hypothesis's own files (its caches) in a folder of this run, not in the work tree."""
    config._dicelab_hypothesis_home = tempfile.mkdtemp(prefix="dicelab-hypothesis-")
    set_hypothesis_home_dir(config._dicelab_hypothesis_home)


def pytest_unconfigure(config):
    shutil.rmtree(getattr(config, "_dicelab_hypothesis_home", ""), ignore_errors=True)


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
