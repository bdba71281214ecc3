"""What ``dicelab history`` prints: the games kept, their trend, export and import."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from dicelab.cli.output import Console, check_plot_path, columns_table, warn
from dicelab.errors import UserError, parse_nested, read_user_file
from dicelab.play import history

if TYPE_CHECKING:
    from rich.console import JustifyMethod


def run_history(
    *,
    rules: str | None = None,
    last: int = 20,
    as_json: bool = False,
    plot: str | None = None,
    export: str | None = None,
    import_file: str | None = None,
    console: Console | None = None,
) -> None:
    """List the kept games (the last ``last``), or draw their trend, export them or
    import game records."""
    console = console or Console()
    if plot is not None:
        check_plot_path(plot)
    if import_file is not None:
        kept, known = import_records(import_file, quiet=as_json)
        console.print(f"imported {kept} game{'s' if kept != 1 else ''}; {known} already kept")
        return
    damaged: list[int] = []
    if export is not None:
        found = history.records(damaged=damaged)
        if damaged:
            warn(history.damaged_note(damaged))
        text = json.dumps(found, indent=1)
        try:
            Path(export).write_text(text + "\n")
        except OSError as exc:
            raise UserError(f"export: cannot write {export!r}: {exc.strerror}") from None
        console.print(f"exported {len(found)} game records to {export}")
        return
    entries = history.entries(rules, damaged=damaged)
    if damaged:
        warn(history.damaged_note(damaged))
    if plot is not None:
        from dicelab.plot.history import plot_history

        games = [e for e in entries if e.kind == "game"]  # scores alike: games alone
        what = f"{rules}: " if rules else ""
        plot_history(games, Path(plot), f"{what}{len(games)} games kept")
        console.print(f"wrote {plot}")
        return
    shown = entries[-last:] if last > 0 else entries
    if as_json:
        console.print_json(json.dumps({"games": [e.to_dict() for e in shown],
                                       "summary": history.summary(entries)}))  # fmt: skip
        return
    show_history(shown, entries, console)


def show_history(shown: list, entries: list, console: Console) -> None:
    if not entries:
        console.print(f"no games kept yet in {history.history_path()}")
        return
    kinds = {e.kind for e in shown}
    columns: list[tuple[str, JustifyMethod]] = [("#", "right"), ("ended", "left")]
    columns += [("kind", "left")] if kinds != {"game"} else []
    columns += [("rules", "left"), ("score", "right"), ("loss/decision", "right"),
                ("mistakes", "right")]  # fmt: skip
    table = columns_table(columns, no_wrap=True, title=f"Games kept in {history.history_path()}")
    worst = []
    for e in shown:
        chance = e.kind in history.CHANCE_KINDS  # costs in win chance
        cells = [str(e.id), e.when] + ([e.kind] if kinds != {"game"} else [])
        loss = f"{100 * e.average_cost:.2f}%" if chance else f"{e.average_cost:.3f}"
        score = "-" if e.kind == "training" else str(e.score)  # a session has no final score
        cells += [e.rules, score, loss, f"{e.mistakes}/{e.decisions}"]
        table.add_row(*cells)
        if e.worst:
            w = e.worst[0]
            cost = f"{100 * w['cost']:.1f}% win chance" if chance else f"{w['cost']:.2f} points"
            worst.append(f"  #{e.id}, turn {w['turn']}: {w['chosen']} instead of {w['best']} "
                         f"(-{cost})")  # fmt: skip
    console.print(table)
    if worst:
        console.print("the worst mistake of each game listed:")
        for line in worst[-10:]:
            console.print(line)
    s = history.summary(entries)
    for key, name in (("all", "all"), ("last_10", "the last 10")):
        f = s[key]
        if f["average_cost"] is None or (key == "last_10" and len(entries) <= 10):
            continue
        mean = f", mean score {f['mean_score']:.1f}" if f["mean_score"] is not None else ""
        console.print(
            f"{name}: {f['games']} kept{mean}; in games and training, "
            f"{f['average_cost']:.3f} points lost per decision, "
            f"{100 * f['best_share']:.1f}% best choices"
        )


def import_records(file: str, quiet: bool = False) -> tuple[int, int]:
    """Keep the game records of a file (one record, or a list as ``--export`` writes):
    each is reviewed first, so a record that breaks its rules is refused in one line."""
    from dicelab.cli.advice import load_table
    from dicelab.play.game import FORMAT, review

    text = read_user_file(file, f"game records file {file!r}", regular=True)
    try:
        data = parse_nested(json.loads, text, file)
    except json.JSONDecodeError as exc:
        raise UserError(f"{file}: not JSON ({exc.msg}, line {exc.lineno})") from None
    found = data if isinstance(data, list) else [data]
    kept = known = 0
    for i, record in enumerate(found, start=1):
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise UserError(f"{file}: record {i} is not a game record of dicelab play")
        source = record.get("rules_source") or record.get("rules")
        if not isinstance(source, str):
            raise UserError(f"{file}: record {i} names no rules")
        try:
            rules = _record_rules(source, record)  # checked before anything is solved
            result = review(load_table(rules, quiet=quiet), record)
        except UserError as exc:
            raise UserError(f"{file}: record {i}: {exc}") from None
        if not result.finished:
            raise UserError(f"{file}: record {i} is an unfinished game; finish it first")
        if history.keep(record, result) is None:
            known += 1
        else:
            kept += 1
    return kept, known


def _record_rules(source: str, record: dict):
    """The rules a record names, loaded and matched to its fingerprint before any
    table is solved: TOML text in a record may extend only built-in rule sets, and a
    path must be a regular file (never a pipe that would hang the import)."""
    from pathlib import Path

    from dicelab.rules import builtin_name, load_rules, rules_from_text

    if "\n" in source or "=" in source:
        rules = rules_from_text(source, source="the record's rules", allow_files=False)
    elif builtin_name(source) is not None:
        rules = load_rules(source)
    elif Path(source).is_file():
        rules = load_rules(Path(source))
    else:
        raise UserError(f"the rules {source[:80]!r} are neither built in nor a regular file")
    if rules.fingerprint() != record.get("fingerprint"):
        raise UserError(f"the game was played under other rules than {rules.name!r} "
                        "(their fingerprints differ)")  # fmt: skip
    return rules


def keep_game(record: dict, result, console: Console, kind: str = "game") -> None:
    """Keep a finished game in the history, saying so; a history that cannot be
    written costs a warning, never the game (its record file is saved already)."""
    try:
        history.keep(record, result, kind)
    except UserError as exc:
        warn(f"{exc}: this {'session' if kind == 'training' else 'game'} is not kept")
        return
    console.print(f"kept in the history ({history.history_path()}; dicelab history)")
