"""The command line run inside the test's process, as a user would type it."""

import sys

from dicelab.cli import main


def run_in_process(monkeypatch, *args) -> int:
    """Run ``dicelab ARGS`` in this process (output to capsys); its exit code."""
    monkeypatch.setattr(sys, "argv", ["dicelab", *args])
    try:
        main()
    except SystemExit as exc:
        return exc.code or 0
    return 0
