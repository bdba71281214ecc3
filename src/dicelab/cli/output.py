"""What the command line shows: scorecards and progress bars.

Kept apart from :mod:`dicelab.cli` so that the command functions stay thin and
the web page can reuse the same texts.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Container, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import rich.console
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dicelab.errors import UserError
from dicelab.text import plural

if TYPE_CHECKING:  # the rules model (pydantic, numpy) loads with the first rule set
    from rich.console import JustifyMethod

    from dicelab.rules import Rules


class Console(rich.console.Console):
    """Rich's console without its automatic highlighting of numbers and names in
    plain text: compiling its patterns takes 30 ms, a tenth of a quick command,
    and every table here styles its own cells."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("highlight", False)
        super().__init__(*args, **kwargs)


def columns_table(
    columns: Iterable[tuple[str, JustifyMethod]], *, no_wrap: bool = False, **settings: Any
) -> Table:
    """A table of the commands: bold headings, ``columns`` each a heading and how its
    cells are justified (``no_wrap``: none of them wraps), ``settings`` the rest of
    rich's :class:`~rich.table.Table` (a ``title``)."""
    table = Table(header_style="bold", **settings)
    for heading, justify in columns:
        table.add_column(heading, justify=justify, no_wrap=no_wrap)
    return table


def justify_right(headings: Iterable[str], right: Container[str]) -> list[tuple[str, Any]]:
    """The columns of :func:`columns_table` for ``headings``: those in ``right``
    justified right (numbers), the others left."""
    return [(h, "right" if h in right else "left") for h in headings]


def warn(message: str) -> None:
    """One warning line on standard error: what is printed on standard output (a
    table, JSON) stays as it is."""
    print(f"warning: {message}", file=sys.stderr, flush=True)


def scorecard(rules: Rules) -> Panel:
    """A readable scorecard of a rule set: boxes, scoring, bonuses, joker."""
    table = Table(show_header=True, header_style="bold", expand=False)
    table.add_column("#", justify="right")
    table.add_column("box")
    table.add_column("id", style="dim")
    table.add_column("scores")
    table.add_column("upper", justify="center")
    for i, cat in enumerate(rules.categories, start=1):
        table.add_row(
            str(i), cat.label, cat.id, cat.scoring_text(), "yes" if cat.counts_for_bonus else ""
        )
    lines = [
        Text(
            f"{rules.dice} dice with {rules.faces} faces, "
            f"{rules.rolls} throws per turn (1 roll + {plural(rules.rolls - 1, 'reroll')}), "
            f"{plural(rules.n_categories, 'box')}"
        )
    ]
    if rules.save_unused_throws:
        lines.append(
            Text(f"Unused throws are saved for later turns (up to {rules.saved_cap} in hand)")
        )
    if rules.description.strip():
        lines.insert(0, Text(" ".join(rules.description.split()), style="italic"))
    if rules.upper_bonus is not None and rules.upper_bonus.points > 0:
        b = rules.upper_bonus
        lines.append(Text(f"Upper bonus: {b.points} points for an upper total of {b.threshold}+"))
    else:
        lines.append(Text("Upper bonus: none"))
    if rules.extra_yahtzee is not None:
        y = rules.extra_yahtzee
        box = rules.categories[rules.yahtzee_index].label
        if y.bonus:
            once = f"once {box} holds points"
            lines.append(Text(f"Extra bonus: {y.bonus} for each further all-same roll {once}"))
        from dicelab.rules.model import joker_text

        lines.append(Text("Joker: " + joker_text(rules)))
    if rules.forced_order:
        lines.append(Text("Order: each turn fills the first open box, in scorecard order"))
    title = f"{rules.name}: {rules.title}" if rules.title else rules.name
    return Panel(Group(*lines, table), title=title, expand=False)


#: Below this part of the work done, a bar with an estimate shows the estimate's
#: time left (a rate measured on the first percent says little).
MEASURED_FROM = 0.02


def bar_columns(unit: str = "", label: str = "{task.description}") -> tuple:
    """The columns of every progress bar: what it does, the bar, done of all (in
    ``unit``), the time spent and the time left.

    A task with an ``estimate`` field (seconds, known before the work starts) moves
    from its first second: until :data:`MEASURED_FROM` of the work is done, the bar
    fills with the time spent against the estimate and the time left counts down
    from it ("~"); after, the time left is the work's own rate since its first
    report, so it moves between two sparse reports too."""
    import time

    from rich.progress import (  # here: a command without a bar need not load it
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
    )
    from rich.progress_bar import ProgressBar

    def measured(task) -> tuple[float | None, float]:
        """Seconds since the first report (``None`` before it), and the part of the
        work done."""
        began = task.fields.get("began")
        if began is None or not task.total:
            return None, 0.0
        return time.monotonic() - began, task.completed / task.total

    class EstimatedBar(BarColumn):
        def render(self, task):
            run, part = measured(task)
            estimate = task.fields.get("estimate")
            if run is None or not estimate or part >= MEASURED_FROM:
                return super().render(task)
            return ProgressBar(total=estimate, completed=min(run, 0.95 * estimate),
                               width=self.bar_width, animation_time=task.get_time())  # fmt: skip

    class TimeLeft(ProgressColumn):
        def render(self, task) -> Text:
            run, part = measured(task)
            estimate = task.fields.get("estimate")
            if run is not None and part >= MEASURED_FROM:
                return Text(_clock(run * (1 - part) / part), style="progress.remaining")
            if run is not None and estimate:
                return Text("~" + _clock(max(estimate - run, 0.0)), style="progress.remaining")
            left = task.time_remaining
            return Text("-:--:--" if left is None else _clock(left), style="progress.remaining")

    return (
        TextColumn(label),
        EstimatedBar(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeLeft(),
    )


def _clock(seconds: float) -> str:
    """``H:MM:SS``, as Rich's own time columns write a time."""
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


@contextmanager
def progress_bar(
    description: str, enabled: bool = True, unit: str = "states", estimate: float | None = None
) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar with a time estimate on standard error.

    Yields a ``tick(done, total)`` callback for the solvers, or ``None`` when the
    bar is disabled (machine-readable output) or standard error is not a terminal.
    ``estimate``: the seconds the work is expected to take on this machine (a cost's
    :meth:`~dicelab.engine.runtime.cost.Cost.seconds_here`), which the bar shows
    from the first report until the work's own rate is known (:func:`bar_columns`);
    a solver that sizes its work first gives it through ``tick.expect(seconds)``
    (:meth:`~dicelab.engine.runtime.cost.Cost.tell`); a table read from the cache
    reports nothing and shows no estimate.
    """
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.progress import Progress

    with Progress(*bar_columns(unit), transient=True) as bar:
        task = bar.add_task(description, total=None, estimate=estimate, began=None)

        class Tick:
            """``tick(done, total)``; ``tick.expect(seconds)``: the solve's estimate."""

            began: float | None = None

            def __call__(self, done: int, total: int) -> None:
                if self.began is None:
                    self.began = time.monotonic()
                    bar.update(task, began=self.began)
                bar.update(task, completed=done, total=total)

            def expect(self, seconds: float) -> None:
                bar.update(task, estimate=seconds)

        yield Tick()


def check_plot_path(path: str | Path) -> Path:
    """A plot file the user named, checked before any work: a known picture format
    and a folder that exists."""
    path = Path(path)
    if path.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise UserError(f"plot: {str(path)!r} should end in .png, .svg or .pdf")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise UserError(f"plot: the folder {str(folder)!r} does not exist")
    return path


class _TaskDisplay:
    """A rich progress display on standard error, or nothing when switched off."""

    def __init__(self, progress):
        self._progress = progress

    def add(self, description: str, total: int | None):
        if self._progress is None:
            return None
        return self._progress.add_task(description, total=total)

    def update(self, task, **fields) -> None:
        if self._progress is not None:
            self._progress.update(task, **fields)


class task_display:
    """A live display of a two-player solve's tasks on standard error (nothing unless
    ``enabled``): the ``display`` of :func:`dicelab.games.twoplayer.solve`."""

    def __init__(self, enabled: bool):
        self._live = None
        if enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                ProgressColumn,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
            from rich.text import Text

            class RateColumn(ProgressColumn):
                def render(self, task) -> Text:
                    speed = task.finished_speed or task.speed
                    shown = "" if speed is None else f"{speed:,.0f}/s"
                    return Text(shown, style="progress.data.speed")

            self._live = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                RateColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> _TaskDisplay:
        if self._live is not None:
            self._live.start()
        return _TaskDisplay(self._live)

    def __exit__(self, *exc_info) -> None:
        if self._live is not None:
            self._live.stop()
