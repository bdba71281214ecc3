"""The command line's contract: version, usage errors exit with code 2."""

import subprocess
import sys

from dicelab import __version__


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "dicelab.cli", *args], capture_output=True, text=True
    )


def test_version():
    out = run("version")
    assert out.returncode == 0
    assert out.stdout.strip() == __version__


def test_unknown_command_exits_2():
    out = run("no-such-command")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
