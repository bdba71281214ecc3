"""The outputs the docs show, run as documented: each ``$ dicelab ...`` line of a
fenced block in ``docs/*.md`` followed by the lines it prints (the refusals, an
``error: ...`` line, are ``test_docs_figures.py``'s) is run in this process on the
documented machine (2 quiet cores, 23.5 GiB of memory, a cache of its own) and a
terminal 100 columns wide (``COLUMNS=100``: wide enough for every documented table
unbroken; a longer sentence wraps there), and must print what the docs show, so a
figure in the docs is the command's own.

How a documented output is read against standard output, line by line:

- a command goes on over lines that end in ``\\``; a ``# ...`` after it is a comment;
- the documented lines are printed lines, in the same order and one after the other,
  the first line first and the last line last;
- a line ``...``, or a table row whose cells hold only ``...``, stands for any lines
  (none included);
- a line that ends in `` ...`` is cut short: it stands for a printed line that
  begins with the text before the ``...``;
- a time varies by machine: a number followed by a unit of time (``ms``, ``µs``,
  ``s``, ``min``, ``h``, ``day(s)``; "solved in 1.9 s", "about 26 h") stands for any
  number followed by any unit of time;
- spaces at the end of a line do not count (a printed line may be padded); all else,
  the spaces before a line's text included, must be the same.

A command that names a file of the reader's own (``.toml``, ``.csv``, ``.json``) is
run only where the docs show that file just above: the fenced block of its kind that
comes last before the example's, with the file's name said between the two or in
the paragraph right before that block; elsewhere it is skipped, saying so.

An example whose command is a heavy job (:data:`HEAVY`: the duel's lead table of
yazy, five minutes on 2 quiet cores) runs only where ``DICELAB_DOCS_HEAVY=1`` asks
for it: ``DICELAB_DOCS_HEAVY=1 pytest -m slow tests/test_docs_outputs.py``.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from command_line import run_in_process as dicelab

DOCS = Path(__file__).resolve().parent.parent / "docs"

#: Examples that solve a large table (more than about 3 s here), run by ``pytest -m slow``:
#: ``(file, the command's start) -> what takes the time``.
SLOW = {
    ("advice.md", "dicelab advise yahtzee --dice 5 5 6 6 2"): "yahtzee's split by box: 3 to 6 s",
    ("duel.md", "dicelab duel advise yazy"): "yazy's two-player game and its lead: 12 min",
    ("objectives.md", "dicelab compare yahtzee house.toml"): "a second yahtzee, 600 games",
    ("games.md", "dicelab solve pig --set players=3"): "a table of a million turn starts: 4 s",
}

#: Slow examples whose tables are kept in the usual cache folder, not the test's own:
#: the same tables other slow tests solve (the page's duel), solved once in a run.
SHARED = {("duel.md", "dicelab duel advise yazy"): "yazy's duel, as the page's tests"}

#: Slow examples that are heavy jobs, run where ``DICELAB_DOCS_HEAVY=1`` asks.
HEAVY = {("duel.md", "dicelab duel advise yazy"): "yazy's lead table: 5 min on 2 cores"}

#: Examples whose command prints something else than the docs, where the command
#: is wrong and the docs right: ``(file, the command's start) -> why``.
KNOWN_WRONG: dict[tuple[str, str], str] = {}

FILES = re.compile(r"\.(toml|csv|json)$")
TIME = re.compile(r"\d+(?:[.,]\d+)?\s?(?:ms|µs|s|min|h|days?)\b")
BOX = re.compile(r"[│┃|]")


@dataclass
class Example:
    """A documented command with the lines it prints."""

    where: str  # file:line of its ``$`` line
    command: str  # the words after ``$``, continuation lines joined, no comment
    output: list[str]
    files: dict[str, str | None] = field(default_factory=dict)  # name: text shown, or None


def fences(lines: list[str]) -> list[tuple[int, int, str]]:
    """``(first line, closing line, language)`` of each fenced block, 0-based."""
    blocks, start, language = [], None, ""
    for i, line in enumerate(lines):
        if not line.startswith("```"):
            continue
        if start is None:
            start, language = i, line[3:].strip()
        else:
            blocks.append((start, i, language))
            start = None
    return blocks


def shown_file(name: str, lines: list[str], blocks, block: int) -> str | None:
    """The text of file ``name`` where the docs show it just above ``blocks[block]``,
    else ``None``."""
    if block == 0:
        return None
    start, end, language = blocks[block - 1]
    j = start  # the paragraph before the file's block, then the lines after it
    while j > 0 and not lines[j - 1].strip():
        j -= 1
    while j > 0 and lines[j - 1].strip():
        j -= 1
    said = lines[j:start] + lines[end + 1 : blocks[block][0]]
    if language != name.rsplit(".", 1)[-1] or not any(name in s for s in said):
        return None
    return "\n".join(lines[start + 1 : end]) + "\n"


def examples_in(text: str, name: str) -> list[Example]:
    """The examples with output of one Markdown text (the refusals and commands shown
    without output left out)."""
    lines = text.splitlines()
    blocks = fences(lines)
    found = []
    for b, (start, end, _) in enumerate(blocks):
        i = start + 1
        while i < end:
            if not lines[i].startswith("$ dicelab "):
                i += 1
                continue
            at, command = i, lines[i][2:]
            while command.endswith("\\") and i + 1 < end:
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            i += 1
            output = []
            while i < end and not lines[i].startswith("$ "):
                output.append(lines[i])
                i += 1
            if not output or output[0].startswith("error: "):
                continue
            words = shlex.split(command, comments=True)
            files = {w: shown_file(w, lines, blocks, b) for w in words if FILES.search(w)}
            found.append(Example(f"{name}:{at + 1}", shlex.join(words), output, files))
    return found


def documented() -> list[Example]:
    """Every example with output in ``docs/*.md``."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        found += examples_in(path.read_text(encoding="utf-8"), path.name)
    return found


def gap(line: str) -> bool:
    """Whether a documented line stands for any lines."""
    return BOX.sub("", line).strip() == "..."


def same(shown: str, printed: str) -> bool:
    """Whether a documented line is this printed line (times loosely, see above)."""
    shown, printed = TIME.sub("<time>", shown.rstrip()), TIME.sub("<time>", printed.rstrip())
    if shown.endswith(" ..."):
        return printed.startswith(shown[:-3])
    return shown == printed


def differs(run: list[str], printed: list[str], i: int) -> str | None:
    """Where the documented lines ``run`` differ from the printed ones from line ``i``."""
    for n, line in enumerate(run, start=i):
        if n >= len(printed):
            return f"the docs show {line!r} where the output has ended"
        if not same(line, printed[n]):
            return f"the docs show {line!r} where line {n + 1} is {printed[n].rstrip()!r}"
    return None


def mismatch(shown: list[str], printed: list[str]) -> str | None:
    """Where the documented lines ``shown`` part from ``printed`` (``None``: nowhere)."""
    runs: list[list[str]] = [[]]  # the lines between the gaps
    for line in shown:
        if gap(line):
            runs.append([])
        else:
            runs[-1].append(line)
    first, *rest = runs
    if wrong := differs(first, printed, 0):
        return wrong
    at = len(first)
    if not rest:
        more = at < len(printed)
        return f"line {at + 1} and on are printed too (... leaves lines out)" if more else None
    *middle, last = rest
    for run in middle:
        i = next((i for i in range(at, len(printed) + 1) if not differs(run, printed, i)), None)
        if i is None:
            return f"{run!r} is not printed, one line after another, after line {at}"
        at = i + len(run)
    return differs(last, printed, max(at, len(printed) - len(last)))


def named(examples: dict[tuple[str, str], str], example: Example) -> str | None:
    """What ``examples`` (``(file, the command's start) -> text``) say of ``example``."""
    where = example.where.split(":")[0]
    said = (t for (f, c), t in examples.items() if f == where and example.command.startswith(c))
    return next(said, None)


def test_the_docs_show_outputs():
    assert len(documented()) >= 5  # the parser still finds them


def test_the_docs_name_their_slow_and_wrong_examples():
    examples = documented()
    for name in (*SLOW, *SHARED, *HEAVY, *KNOWN_WRONG):  # one left behind hides nothing
        assert any(named({name: ""}, e) is not None for e in examples), name


def test_how_an_output_is_read():
    doc = """`house.toml`:

```toml
extends = "yacht"
```

and then:

```
$ dicelab solve yazy \\
    --top 2   # a comment
yazy: 165.7573 (solved in 1.9 s)
...
│   ...  │     │
last line ...
$ dicelab solve broken.csv
error: no
$ dicelab compare yacht house.toml
done
```
"""
    solve, compare = examples_in(doc, "x.md")
    assert (solve.where, solve.command) == ("x.md:10", "dicelab solve yazy --top 2")
    assert solve.files == {}
    assert compare.files == {"house.toml": 'extends = "yacht"\n'}
    printed = ["yazy: 165.7573 (solved in 12 min)", "a", "b", "last line of all"]
    assert mismatch(solve.output, printed) is None
    assert mismatch(solve.output, ["yazy: 165.7574 (solved in 1.9 s)", *printed[1:]])
    assert mismatch(solve.output, printed[:1])  # its last line not printed
    assert mismatch(["a", "b"], ["a", "b", "c"])  # a line left out says so: ...
    assert mismatch(["a", "b"], ["a", "x", "b"])
    assert mismatch(["  a"], [" a"])


def cases() -> list:
    """Each example, marked slow or known wrong where it is."""
    found = []
    for e in documented():
        marks = [pytest.mark.slow] if named(SLOW, e) else []
        if (heavy := named(HEAVY, e)) and os.environ.get("DICELAB_DOCS_HEAVY") != "1":
            marks.append(pytest.mark.skip(reason=f"{heavy}: DICELAB_DOCS_HEAVY=1 runs it"))
        if why := named(KNOWN_WRONG, e):
            marks.append(pytest.mark.xfail(reason=why, strict=True))
        found.append(pytest.param(e, marks=marks, id=e.where))
    return found


@pytest.mark.parametrize("example", cases())
def test_a_documented_output_is_what_the_command_prints(example, capsys, monkeypatch, tmp_path):
    from dicelab.engine.runtime import cost

    mine = [name for name, text in example.files.items() if text is None]
    if mine:
        pytest.skip(f"{example.where}: names a file of the reader's own ({mine[0]})")
    for name, text in example.files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # whatever the command writes, it writes here
    if not named(SHARED, example):
        monkeypatch.setenv("DICELAB_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setattr(cost, "cores_here", lambda shared=True: 2.0)  # 2 quiet cores
    monkeypatch.setattr(cost, "machine_memory", lambda: int(23.5 * 2**30))
    code = dicelab(monkeypatch, *shlex.split(example.command)[1:])
    printed = capsys.readouterr().out.splitlines()
    assert code == 0, (example.where, example.command)
    wrong = mismatch(example.output, printed)
    assert wrong is None, f"{example.where}: {wrong}; printed:\n" + "\n".join(printed)
