"""The kernels compiled at install (``build_backend/dicelab_build.py``,
:func:`dicelab.cli.warmup.compile_all`): after it, no command compiles anything,
and nothing about it can fail an install."""

import contextlib
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dicelab.cli import app, warmup

ROOT = Path(__file__).resolve().parent.parent
DICELAB = str(Path(sys.executable).with_name("dicelab"))


#: The install compile's work again (its kernels cached by then), and the
#: distributions of every third-party module it imported.
IMPORTS = """
import sys
from importlib.metadata import packages_distributions
import dicelab.api
from dicelab.cli import warmup
warmup.run_commands()
dicelab.api.compile_kernels()
found = packages_distributions()
print(" ".join(sorted({d for m in list(sys.modules) for d in found.get(m.split(".")[0], [])})))
"""


#: Imported where installed, and done without: Numba reads its config file with it.
OPTIONAL = {"pyyaml"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~;\[ ]", requirement, maxsplit=1)[0].strip().lower().replace("_", "-")


def _build_closure() -> set[str]:
    """The build's requires (pyproject.toml) and everything they require, installed."""
    from importlib.metadata import PackageNotFoundError, requires

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    wanted = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    todo, seen = [_name(r) for r in wanted], {"dicelab"}
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        with contextlib.suppress(PackageNotFoundError):  # not installed: no requires
            todo += [_name(r) for r in requires(name) or [] if "extra ==" not in r]
    return seen


def _backend():
    spec = importlib.util.spec_from_file_location(
        "dicelab_build", ROOT / "build_backend" / "dicelab_build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_after_the_install_compile_no_command_compiles(tmp_path):
    """In an empty compile cache, the compile of the install leaves every kernel that
    the expected-score, target, win, distribution, simulation and table advice
    commands run, and the duel's, the table's, assign's, the race's and the dice
    games' (compiled in a second process and brought over): with Numba's cache
    messages on, none of them saves a newly compiled function."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        DICELAB_CACHE_DIR=str(tmp_path / "tables"),
    )
    backend = _backend()
    subprocess.run([sys.executable, "-c", backend.COMPILE], env=env, check=True, timeout=900)
    assert not (tmp_path / "tables").exists() or not list((tmp_path / "tables").iterdir())
    brought = subprocess.run(  # what says a later compile has nothing to start
        [sys.executable, "-c", "from dicelab.cli.warmup import COMPILED_BY_THEM as k; "
         "from dicelab.engine.runtime.ahead import _found, is_cached; "
         "print(all(is_cached(_found(x)) for x in k))"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert brought.stdout.strip() == "True"
    commands = [
        ["solve", "yacht", "--json"],
        ["solve", "yacht", "--objective", "target", "--target", "200", "--json"],
        ["solve", "yazy", "--objective", "win", "--json"],
        ["distribution", "yacht", "--json"],
        ["simulate", "yacht", "--games", "50", "--json"],
        ["match", "advise", "yazy", "--dice", "3", "3", "6", "5", "6", "--json"]
        + ["--method", "lookahead", "--mine", "", "--theirs", ""],
    ]
    # and every other command's, compiled in the second process (cli/warmup.py)
    files = warmup.write_files(tmp_path)
    commands += [[str(files.get(w, w)) for w in c] for c in warmup.COMMANDS]
    # the compile runs in pip's build environment: it needs no package but those
    used = subprocess.run([sys.executable, "-c", IMPORTS], env=env, capture_output=True,
                          text=True, check=True, timeout=300).stdout.split()  # fmt: skip
    missing = {_name(u) for u in used} - _build_closure() - OPTIONAL
    assert not missing, f"the compile imports {sorted(missing)}, not in the build's requires"
    for args in commands:
        out = subprocess.run(
            [DICELAB, *args],
            env=dict(env, NUMBA_DEBUG_CACHE="1"),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert out.returncode == 0, (args, out.stderr[-500:])
        compiled = re.findall(r"data saved to '([^']+)'", out.stdout + out.stderr)
        assert not compiled, (args, compiled)


def test_the_install_compile_never_fails_an_install(monkeypatch, capsys, tmp_path):
    backend = _backend()
    monkeypatch.setattr(backend, "TTY", str(tmp_path / "tty"))  # the terminal, past pip
    cleared = []  # the checkout's own compiled kernels stay where they are
    monkeypatch.setattr(backend, "clear_compiled", cleared.append)
    monkeypatch.setattr(backend, "COMPILE", "raise SystemExit('no compiler here')")
    assert backend.compile_kernels() is False
    assert "kernels not compiled at install (no compiler here)" in capsys.readouterr().err
    monkeypatch.setattr(backend, "COMPILE", "import time; time.sleep(5)")
    monkeypatch.setenv("DICELAB_COMPILE_TIMEOUT", "0.5")
    assert backend.compile_kernels() is False
    assert "kernels not compiled at install" in capsys.readouterr().err
    assert cleared == [backend.SOURCES / "dicelab"] * 2
    monkeypatch.setenv("DICELAB_COMPILE_TIMEOUT", "soon")  # a mistake: the default, said
    monkeypatch.setattr(backend, "COMPILE", "pass")
    assert backend.compile_kernels() is True
    assert "DICELAB_COMPILE_TIMEOUT should be seconds" in capsys.readouterr().err
    said = (tmp_path / "tty").read_text().splitlines()  # the last compile, start and end
    assert re.match(r"dicelab: compiling the solver's kernels once, about \d+ min", said[-2])
    assert re.match(r"dicelab: kernels compiled in \d+ s", said[-1])
    monkeypatch.setattr(backend, "TTY", str(tmp_path / "no" / "terminal"))
    assert backend.compile_kernels() is True  # no terminal: the log alone
    assert "kernels compiled in" in capsys.readouterr().err
    monkeypatch.setenv("DICELAB_NO_COMPILE", "1")
    monkeypatch.setattr(backend, "COMPILE", "raise SystemExit('never run')")
    assert backend.compile_kernels() is False
    assert capsys.readouterr().err == "" and len(cleared) == 4


def test_the_install_compile_starts_from_an_empty_cache(tmp_path):
    # a kernel's cache is checked against its own file only: an upgrade recompiles all
    backend = _backend()
    pycache = tmp_path / "dicelab" / "solve" / "__pycache__"
    pycache.mkdir(parents=True)
    for name in ("kernels.f-10.py311.nbi", "kernels.f-10.py311.1.nbc", "kernels.cpython-311.pyc"):
        (pycache / name).write_bytes(b"x")
    (tmp_path / "dicelab" / "notes.nbi").write_bytes(b"not in a cache folder")
    assert backend.clear_compiled(tmp_path / "dicelab") == 2
    assert sorted(p.name for p in pycache.iterdir()) == ["kernels.cpython-311.pyc"]
    assert (tmp_path / "dicelab" / "notes.nbi").exists()


def test_an_editable_wheel_is_setuptools_then_the_compile(monkeypatch, tmp_path):
    backend = _backend()
    calls = []
    monkeypatch.setattr(
        backend._setuptools, "build_editable", lambda *a: calls.append("wheel") or "w.whl"
    )
    monkeypatch.setattr(backend, "compile_kernels", lambda: calls.append("compile"))
    assert backend.build_editable(str(tmp_path)) == "w.whl"
    assert calls == ["wheel", "compile"]
    # every other hook is setuptools' own
    assert backend.build_wheel is backend._setuptools.build_wheel
    assert backend.get_requires_for_build_editable is (
        backend._setuptools.get_requires_for_build_editable
    )


def test_cache_compile_command_loads_what_is_compiled():
    result = CliRunner().invoke(app, ["cache", "compile"])
    assert result.exit_code == 0, result.output
    assert re.search(r"kernels compiled or loaded in \d+\.\d s", result.output)
