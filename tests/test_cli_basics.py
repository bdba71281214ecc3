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


def test_version_option_and_python_m_dicelab():
    out = subprocess.run(
        [sys.executable, "-m", "dicelab", "--version"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout.strip() == f"dicelab {__version__}"


def test_negative_top_is_refused_in_one_line():
    out = run("advise", "yazy", "--dice", "1", "2", "3", "4", "5", "--top", "-3")
    assert out.returncode == 2
    assert "--top" in out.stderr and out.stderr.count("\n") == 1


def test_plural():
    from dicelab.text import plural

    assert plural(1, "box") == "1 box"
    assert plural(2, "box") == "2 boxes"
    assert plural(0, "table file") == "0 table files"
    assert plural(3, "die", "dice") == "3 dice"


def test_serve_on_a_busy_port_or_bad_host_says_so_in_one_line():
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        out = run("serve", "--port", str(port))
    assert out.returncode == 2 and out.stderr.count("\n") == 1
    assert "already in use" in out.stderr
    out = run("serve", "--host", "no.such.host.invalid")
    assert out.returncode == 2 and out.stderr.count("\n") == 1


def test_a_bad_plot_name_is_refused_before_any_work():
    for args in (
        ("distribution", "yazy", "--plot", "noext"),
        ("race", "5,6,7,8,9", "5,6,7,7,8", "--plot", "x.txt"),
        ("door", "--plot", "/no/such/folder/x.png"),
        ("simulate", "yazy", "--plot", "x.txt"),
    ):
        out = run(*args)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, args
        assert "plot:" in out.stderr


# A command that answers from a cached table runs without the compiler: it is run as
# `python -m dicelab ...` would be, and reports which of the slow imports it made.
NO_COMPILER = (
    "import atexit, runpy, sys\n"
    "slow = ('numba', 'numpy', 'numpy.ma', 'pydantic')\n"
    "atexit.register(lambda: print('loaded:', [m for m in slow if m in sys.modules],"
    " file=sys.stderr))\n"
    "sys.argv = ['dicelab', *sys.argv[1:]]\n"
    "runpy.run_module('dicelab', run_name='__main__')\n"
)


def test_answers_from_a_cached_table_load_no_numba(tmp_path):
    import dicelab
    from dicelab.engine.objectives.distribution import score_distribution

    dicelab.solve("yazy")  # cached in the tests' private folder (conftest.py)
    score_distribution("yazy")  # the optimum's distribution is kept beside it
    dice = ["--dice", "1", "2", "3", "4", "5", "--rerolls", "2"]
    mine = tmp_path / "mine.toml"
    mine.write_text('extends = "yazy"\nname = "mine"\n')
    for args, loaded in (
        (["advise", "yazy", *dice], "['numpy']"),
        (["advise", "yazy", "--dice", "6", "6", "6", "2", "1", "--json"], "['numpy']"),
        (["rules", "show", "yazy"], "[]"),  # no NumPy to show a scorecard
        (["rules", "show", str(mine)], "['pydantic']"),  # a user's file is validated
        (["distribution", "yazy"], "['numpy']"),
        (["cache", "list"], "[]"),
        (["solve", "--help"], "[]"),
    ):
        out = subprocess.run(
            [sys.executable, "-c", NO_COMPILER, *args], capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        assert f"loaded: {loaded}" in out.stderr, (args, out.stderr)


def _nested(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_deeply_nested_files_are_one_line(tmp_path):
    toml = _nested(tmp_path, "deep.toml", "a = " + "[" * 600 + "]" * 600 + "\n")
    record = _nested(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    for args in [
        ("rules", "show", toml),
        ("solve", toml),
        ("review", record),
        ("duel", "review", record),
        ("play", "yacht", "--resume", record),
    ]:
        out = run(*args)
        assert out.returncode == 2, (args, out.stderr)
        assert "nested too deeply" in out.stderr and out.stderr.count("\n") == 1, (args, out.stderr)


def test_endless_or_huge_files_are_refused_in_one_line(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (16 * 1024 * 1024 + 1))
    for args in [("review", "/dev/zero"), ("review", str(big)), ("rules", "show", "/dev/zero")]:
        out = run(*args)
        assert out.returncode == 2, (args, out.stderr)
        said = "not a regular file" if "/dev/zero" in args else "over 16 MiB"
        assert said in out.stderr and out.stderr.count("\n") == 1, (args, out.stderr)


def test_a_named_command_runs_alone_with_the_same_help():
    """``main`` hands Typer only the command or group the line names (Typer builds
    every command's options before it runs one); each says the same as in the whole
    application, and anything else gets the whole application."""
    from typer.testing import CliRunner

    from dicelab.cli import _command_named, app

    runner = CliRunner()
    names = [c.name or c.callback.__name__.replace("_", "-") for c in app.registered_commands]
    names += [g.name for g in app.registered_groups]
    assert {"solve", "advise", "review", "duel", "rules", "cache"} <= set(names)
    for name in names:
        only = _command_named([name, "--help"])
        assert only is not app and len(only.registered_commands + only.registered_groups) == 1
        alone = runner.invoke(only, [name, "--help"], prog_name="dicelab")
        whole = runner.invoke(app, [name, "--help"], prog_name="dicelab")
        assert alone.exit_code == whole.exit_code == 0 and alone.output == whole.output, name
    for argv in ([], ["--help"], ["--version"], ["solv"], ["Solve"]):
        assert _command_named(argv) is app
