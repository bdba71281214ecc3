"""The refusals the docs show, run as documented: each ``$ dicelab ...`` line followed by
an ``error: ...`` line in ``docs/*.md`` must print that very line (on the documented
machine: 2 quiet cores and 23.5 GiB of memory), so a figure in the docs is the
command's own."""

import re
import shlex
from pathlib import Path

import pytest
from command_line import run_in_process as dicelab

DOCS = Path(__file__).resolve().parent.parent / "docs"


def documented() -> list[tuple[str, str, str]]:
    """``(file, command, error line)`` of every refusal shown in the docs."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        lines = path.read_text(encoding="utf-8").splitlines()
        for line, after in zip(lines, lines[1:], strict=False):
            if line.startswith("$ dicelab ") and after.startswith("error: "):
                found.append((path.name, line[2:], after))
    return found


def test_the_docs_show_refusals():
    assert len(documented()) >= 5  # the parser still finds them


@pytest.mark.parametrize("where, command, said", documented())
def test_a_documented_refusal_is_what_the_command_prints(where, command, said, capsys,
                                                        monkeypatch, tmp_path):  # fmt: skip
    from dicelab.engine.runtime import cost

    args = shlex.split(command)[1:]
    files = [a for a in args if re.search(r"\.(csv|toml|json)$", a)]
    if files:
        pytest.skip(f"{where}: names a file of the reader's own ({files[0]})")
    monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cost, "cores_here", lambda shared=True: 2.0)  # 2 quiet cores
    monkeypatch.setattr(cost, "machine_memory", lambda: int(23.5 * 2**30))
    assert dicelab(monkeypatch, *args) == 2, (where, command)
    assert capsys.readouterr().err.strip() == said, (where, command)
