"""The kernels compiled at install (``build_backend/dicelab_build.py``,
:func:`dicelab.api.compile_kernels`): after it, no main command compiles anything,
and nothing about it can fail an install."""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from dicelab.cli import app

ROOT = Path(__file__).resolve().parent.parent
DICELAB = str(Path(sys.executable).with_name("dicelab"))


def _backend():
    spec = importlib.util.spec_from_file_location(
        "dicelab_build", ROOT / "build_backend" / "dicelab_build.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_after_the_install_compile_no_main_command_compiles(tmp_path):
    """In an empty compile cache, the compile of the install leaves every kernel that
    the expected-score, target, win, distribution and simulation commands run: with
    Numba's cache messages on, none of them saves a newly compiled function."""
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "numba"),
        DICELAB_CACHE_DIR=str(tmp_path / "tables"),
    )
    backend = _backend()
    subprocess.run([sys.executable, "-c", backend.COMPILE], env=env, check=True, timeout=900)
    assert not (tmp_path / "tables").exists() or not list((tmp_path / "tables").iterdir())
    commands = [
        ["solve", "yacht", "--json"],
        ["solve", "yacht", "--objective", "target", "--target", "200", "--json"],
        ["solve", "yazy", "--objective", "win", "--json"],
        ["distribution", "yacht", "--json"],
        ["simulate", "yacht", "--games", "50", "--json"],
    ]
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


def test_the_install_compile_never_fails_an_install(monkeypatch, capsys):
    backend = _backend()
    monkeypatch.setattr(backend, "COMPILE", "raise SystemExit('no compiler here')")
    assert backend.compile_kernels() is False
    assert "kernels not compiled at install (no compiler here)" in capsys.readouterr().err
    monkeypatch.setattr(backend, "COMPILE", "import time; time.sleep(5)")
    monkeypatch.setenv("DICELAB_COMPILE_TIMEOUT", "0.5")
    assert backend.compile_kernels() is False
    assert "kernels not compiled at install" in capsys.readouterr().err
    monkeypatch.setenv("DICELAB_NO_COMPILE", "1")
    monkeypatch.setattr(backend, "COMPILE", "raise SystemExit('never run')")
    assert backend.compile_kernels() is False
    assert capsys.readouterr().err == ""


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
