"""What ``dicelab duel`` and ``dicelab duel advise`` print: verdicts, advice, a plot.

The command line collects options; this module reads the sheets given on it, loads
(or solves) the duel table and shows the answer in rich tables or JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from dicelab.cli.output import check_plot_path, progress_bar
from dicelab.errors import UserError
from dicelab.play.duel import option_key
from dicelab.rules import Rules, load_rules
from dicelab.rules.compiled import compile_rules
from dicelab.solve.advice import (
    Option,
    Position,
    _check_turn,
    _possible_points,
    _rank,
    _sums,
    scorecard_state,
)
from dicelab.solve.advice import advise as advise_expected
from dicelab.solve.cost import big
from dicelab.solve.duel import DuelTable, duel_table, duel_turn_values
from dicelab.text import plural


def load_duel(rules: Rules, quiet: bool = False, use_cache: bool = True,
              allow_large: bool = False, mapped: bool = False,
              compare: bool = False, runner=None, store=None) -> DuelTable:  # fmt: skip
    """The duel table, solving it (with a progress bar) if it is not cached, and with
    ``compare`` the strategy comparisons too (``runner``, ``store``: where the solve
    runs, see :mod:`dicelab.solve.schedule`)."""
    from dicelab.solve.cache import DamagedTable

    game = compile_rules(rules)
    with progress_bar(f"solving the {rules.name} duel", enabled=not quiet, unit="work") as tick:
        table = duel_table(game, use_cache=use_cache, progress=tick, allow_large=allow_large,
                           mapped=mapped, compare=compare, runner=runner,
                           store=store)  # fmt: skip
        if mapped and table.meta.get("mapped") is not None:
            try:
                table.meta["mapped"].check(0, 1)
            except DamagedTable:  # read whole: the damage is seen and the table solved anew
                table = duel_table(game, use_cache=use_cache, progress=tick)
    return table


# -- the verdicts -----------------------------------------------------------------------
STRATEGY = {"win": "to win", "expected": "expected score"}


def run_duel(rules: str, *, as_json: bool = False, use_cache: bool = True,
             allow_large: bool = False, plot: str | None = None,
             console: Console | None = None, runner=None, store=None) -> DuelTable:  # fmt: skip
    """Run ``dicelab duel RULES``: solve the two-player game and print the verdicts."""
    import time

    console = console or Console()
    r = load_rules(rules)
    plot_path = check_plot_path(plot) if plot else None
    start = time.perf_counter()
    table = load_duel(r, quiet=as_json, use_cache=use_cache, allow_large=allow_large,
                      mapped=True, compare=True, runner=runner, store=store)  # fmt: skip
    seconds = time.perf_counter() - start
    v = table.meta.get("verdicts") or {}
    if plot_path is not None:
        plot_leads(table, plot_path)
    if as_json:
        out = {
            "rules": r.name,
            "objective": "duel",
            "pairs_of_sheets": table.space.n_nodes,
            "values": table.space.n_values,
            "start_value": table.start_value,
            **{k: v[k] for k in ("pairs", "from_distributions", "checks") if k in v},
            "solve_seconds": table.meta.get("solve_seconds") or round(table.seconds, 3),
            "compare_seconds": v.get("compare_seconds"),
            "seconds": round(seconds, 3),
            "cached": bool(table.meta.get("cached")),
            "table": table.meta.get("path"),
            "plot": str(plot_path) if plot_path else None,
        }
        console.print_json(json.dumps(out))
        return table
    show_verdicts(table, console, seconds)
    if plot_path is not None:
        console.print(f"plot written to {plot_path}")
    return table


def show_verdicts(table: DuelTable, console: Console, seconds: float) -> None:
    s = table.space
    r = table.rules
    how = "from the cache" if table.meta.get("cached") else "solved and compared"
    console.print(
        f"[bold]{r.name}[/bold], two players: both sheets in view, the higher final score "
        "wins, a tie counts half"
    )
    console.print(
        f"{big(s.n_nodes)} pairs of sheets, {big(s.n_values)} (sheets, lead) values; "
        f"{how} in {seconds:.1f} s"
    )
    value = table.start_value
    console.print(
        f"\nBoth playing to win, the first player's chance is [bold]{value:.10f}[/bold] "
        "(a win plus half a tie)."
    )
    edge = (value - 0.5) * 100
    side = "helps" if edge > 0 else "hurts"
    if abs(edge) < 5e-9:
        console.print("Moving first neither helps nor hurts.")
    else:
        console.print(
            f"Moving first {side}: {abs(edge):.3f} points of win chance "
            f"{'for' if edge > 0 else 'against'} the first player (the second sees the "
            "first player's final score before the last turn)."
        )
    v = table.meta.get("verdicts")
    if not v:
        return
    grid = Table(title="Strategy pairs, exact (A moves first)", header_style="bold")
    for col in ("A plays", "B plays", "A wins", "tie", "B wins", "A's chance"):
        grid.add_column(col, justify="left" if "plays" in col else "right")
    order = ("win-win", "win-expected", "expected-win", "expected-expected")
    for p in sorted(v["pairs"].values(), key=lambda p: order.index(f"{p['a']}-{p['b']}")):
        grid.add_row(
            STRATEGY[p["a"]], STRATEGY[p["b"]], f"{p['p_a_wins']:.6f}", f"{p['p_tie']:.6f}",
            f"{p['p_b_wins']:.6f}", f"{p['value_for_a']:.6f}",
        )  # fmt: skip
    console.print(grid)
    pairs = v["pairs"]
    if "win-expected" in pairs and "expected-win" in pairs:
        as_a = pairs["win-expected"]["value_for_a"]
        as_b = 1 - pairs["expected-win"]["value_for_a"]
        console.print(
            f"Playing to win against a player who plays for the expected score: "
            f"{as_a:.4f} moving first, {as_b:.4f} moving second, "
            f"[bold]{(as_a + as_b) / 2:.4f}[/bold] on average (a win plus half a tie), "
            "against 0.5 for playing for the expected score too."
        )
    check = v.get("checks", {}).get("fair_pair_value_minus_half")
    if check is not None:
        console.print(
            f"Check: two expected-score players make a fair game; computed value minus 1/2 "
            f"= {check:.1e}."
        )


# -- advice ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Sheet:
    """One player's sheet as the command line gives it."""

    filled: dict
    upper: int | None = None
    bonuses: int = 0
    score: int | None = None


@dataclass(frozen=True)
class DuelAdvice:
    """Every option of a duel position, ranked by win chance, with its expected-score rank."""

    seat: str  # "A" or "B"
    my_score: int
    their_score: int
    options: list[Option]  # by win chance, best first
    expected_rank: dict  # option key -> (rank, expected final score)

    @property
    def lead(self) -> int:
        return self.my_score - self.their_score

    def to_dict(self) -> dict:
        return {
            "seat": self.seat,
            "my_score": self.my_score,
            "their_score": self.their_score,
            "win_chance": self.options[0].value,
            "options": [
                {
                    "label": o.label, "kind": o.kind,
                    "keep": list(o.keep) if o.keep is not None else None, "box": o.box,
                    "points": o.points, "win_chance": o.value, "cost": o.cost,
                    "expected_rank": self.expected_rank[option_key(o)][0],
                    "expected_final_score": self.expected_rank[option_key(o)][1],
                }
                for o in self.options
            ],
        }  # fmt: skip


def _player(table: DuelTable, sheet: Sheet, who: str) -> tuple[int, int]:
    """Player state and score of a sheet; one clear line when it cannot be."""
    g = table.game
    position = Position(dice=(1,) * g.rules.dice, rerolls=0, filled=sheet.filled,
                        upper_total=sheet.upper, extra_bonuses=sheet.bonuses)  # fmt: skip
    try:
        mask, upper, flag, score = scorecard_state(table, position, allow_full=True)
    except UserError as exc:
        raise UserError(f"{who} sheet: {exc}") from None
    # boxes without points: their points are the score's unknown part (the upper ones'
    # are known from the upper total where the rules track it)
    unknown = [c for c, cat in enumerate(g.rules.categories)
               if cat.id in sheet.filled and sheet.filled[cat.id] is None
               and not (g.upper[c] and g.threshold > 0)]  # fmt: skip
    if sheet.score is not None:
        if isinstance(sheet.score, bool) or not isinstance(sheet.score, int) or sheet.score < 0:
            raise UserError(f"{who} score: got {sheet.score!r}, expected a whole number >= 0")
        rest = sheet.score - score
        choices = tuple(tuple(sorted(_possible_points(g, c))) for c in unknown)
        if rest not in _sums(choices):
            raise UserError(
                f"{who} score: got {sheet.score}, but the filled boxes given "
                + ("cannot make it" if unknown else f"add up to {score}")
            )
        score = sheet.score
    elif unknown:
        raise UserError(f"{who} score: give it (some boxes have no points)")
    i = table.space.player(mask, upper, flag)
    if i < 0:
        raise UserError(f"{who} sheet cannot occur in a game")
    return i, score


def duel_advise(table: DuelTable, expected, dice: Sequence[int], rerolls: int,
                mine: Sheet, theirs: Sheet) -> DuelAdvice:  # fmt: skip
    """Rank every option of the player to move by win chance (both playing to win)."""
    g = table.game
    rerolls = _check_turn(g.rules, Position(tuple(dice), rerolls))
    me, my_score = _player(table, mine, "my")
    them, their_score = _player(table, theirs, "their")
    s = table.space
    k_me, k_them = int(s.p_count[me]), int(s.p_count[them])
    if k_me == g.n_categories:
        raise UserError("my sheet is full: the game is over for me")
    if k_them == k_me:
        seat = "A"
    elif k_them == k_me + 1:
        seat = "B"
    else:
        raise UserError(
            f"the sheets do not alternate: I have {plural(k_me, 'box')} filled and they have "
            f"{k_them}; the player to move has as many as the other, or one fewer"
        )
    roll = g.space.index(tuple(dice))
    turn = duel_turn_values(table, me, them, my_score - their_score)
    options = _rank(g, turn, roll, rerolls, 0.0)
    plain = advise_expected(expected, Position(tuple(dice), rerolls, mine.filled, mine.upper,
                                               mine.bonuses))  # fmt: skip
    ranks = {option_key(o): (n, o.value - plain.score_so_far + my_score)
             for n, o in enumerate(plain.options, start=1)}  # fmt: skip
    return DuelAdvice(seat, my_score, their_score, options, ranks)


def run_duel_advise(rules: str, dice: Sequence[str], *, rerolls: int | None, mine: Sheet,
                    theirs: Sheet, top: int = 12, as_json: bool = False,
                    console: Console | None = None) -> DuelAdvice:  # fmt: skip
    """Run ``dicelab duel advise``."""
    from dicelab.cli.advice import load_table, parse_dice

    console = console or Console()
    r = load_rules(rules)
    parsed = parse_dice(dice, r.faces)
    rerolls = r.rolls - 1 if rerolls is None else rerolls
    _check_turn(r, Position(tuple(parsed), rerolls))
    table = load_duel(r, quiet=as_json, mapped=True)
    advice = duel_advise(table, load_table(r, quiet=as_json), parsed, rerolls, mine, theirs)
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **advice.to_dict()}))
    else:
        show_duel_advice(advice, r, parsed, rerolls, console, top)
    return advice


def show_duel_advice(advice: DuelAdvice, rules: Rules, dice: Sequence[int], rerolls: int,
                     console: Console, top: int = 12) -> None:  # fmt: skip
    when = f"{plural(rerolls, 'reroll')} left" if rerolls else "after the last throw"
    lead = advice.lead
    standing = f"you lead by {lead}" if lead > 0 else (
        f"you trail by {-lead}" if lead < 0 else "level")  # fmt: skip
    console.print(
        f"{rules.name} duel: you move ({'first' if advice.seat == 'A' else 'second'} player), "
        f"{advice.my_score} to {advice.their_score}, {standing}; dice "
        f"{' '.join(map(str, sorted(dice)))}, {when}"
    )
    table = Table(header_style="bold")
    for col, just in (("#", "right"), ("option", "left"), ("win chance", "right"),
                      ("cost", "right"), ("expected score", "right"), ("its rank", "right")):
        table.add_column(col, justify=just)  # fmt: skip
    shown = advice.options if top <= 0 else advice.options[:top]
    for n, o in enumerate(shown, start=1):
        rank, score = advice.expected_rank[option_key(o)]
        mark = "" if rank == n else " *"
        style = "bold green" if o.cost <= 1e-9 else None
        table.add_row(str(n), o.label, f"{o.value:.6f}", f"{o.cost:.6f}", f"{score:.2f}",
                      f"{rank}{mark}", style=style)  # fmt: skip
    console.print(table)
    best_plain = min(advice.options, key=lambda o: advice.expected_rank[option_key(o)][0])
    if option_key(best_plain) != option_key(advice.options[0]):
        console.print(
            f"Playing for the expected score would choose [bold]{best_plain.label}[/bold]: "
            f"it costs {best_plain.cost:.6f} of win chance here."
        )
    else:
        console.print("Playing to win and playing for the expected score agree here.")
    hidden = len(advice.options) - len(shown)
    if hidden > 0:
        console.print(f"... and {hidden} more (--top 0 shows all)")


# -- a picture ---------------------------------------------------------------------------
def plot_leads(table: DuelTable, path: Path, open_counts: Sequence[int] = (1, 2, 3, 5)) -> Path:
    """The first player's chance at a turn start against their lead, for sheets where
    the last ``k`` boxes of the scorecard are open on both sides (A to move)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    g = table.game
    s = table.space
    n = g.n_categories
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for k in open_counts:
        if not 1 <= k <= n:
            continue
        mask = g.full_mask ^ (((1 << k) - 1) << (n - k))
        i = s.player(mask, 0, 0)
        if i < 0:
            continue
        node = s.node(i, i)
        leads = np.arange(-int(s.xhi[node]) - 3, -int(s.xlo[node]) + 4)
        chance = 1.0 - table.waiting_values(np.full(leads.size, node), -leads)
        keep = ~np.isnan(chance)
        leads, chance = leads[keep], chance[keep]
        names = ", ".join(c.label for c in g.rules.categories[n - k:])
        ax.plot(leads, chance, marker="." if leads.size < 60 else None,
                label=f"{k} open: {names}" if k <= 3 else f"{k} open")  # fmt: skip
    ax.set_xlabel("first player's lead (points), both sheets alike")
    ax.set_ylabel("chance to win (+ half a tie), A to move")
    ax.set_title(f"{g.rules.name} duel: the value of a lead")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


# -- disagreements -------------------------------------------------------------------------
def run_disagreements(rules: str, *, games: int = 200, seed: int = 0, top: int = 10,
                      as_json: bool = False, console: Console | None = None):  # fmt: skip
    """Run ``dicelab duel disagreements``: where playing to win and for points part most."""
    from dicelab.cli.advice import load_table
    from dicelab.play.duel import find_disagreements

    console = console or Console()
    r = load_rules(rules)
    if isinstance(games, bool) or not 1 <= games <= 100_000:
        raise UserError(f"games: got {games}, expected 1 to 100,000")
    table = load_duel(r, quiet=as_json, mapped=True)
    expected = load_table(r, quiet=as_json)
    with progress_bar(f"playing {games} duels", enabled=not as_json, unit="games") as tick:
        report = find_disagreements(table, expected, games=games, seed=seed, progress=tick)
    if as_json:
        console.print_json(json.dumps({"rules": r.name, **report.to_dict(top)}))
        return report
    console.print(
        f"{r.name}: {report.games} duels, both playing to win. At {report.decisions:,} "
        f"decisions the expected-score choice differed {report.occurrences:,} times "
        f"({100 * report.share:.1f}%); each such choice taken alone, they cost "
        f"{report.cost_per_game:.4f} of win chance per game."
    )
    ids = {c.id: c.label for c in r.categories}
    t = Table(title="The largest disagreements", header_style="bold")
    for col in ("turn", "score", "open boxes: mine | theirs", "dice", "rerolls", "to win",
                "for points", "cost"):  # fmt: skip
        t.add_column(col, justify="right" if col in ("turn", "rerolls", "cost") else "left")
    for d in report.disagreements[: max(top, 0) or None]:
        mine = [ids[b] for b in ids if b not in d.my_filled]
        theirs = [ids[b] for b in ids if b not in d.their_filled]
        t.add_row(f"{d.turn} ({d.seat})", f"{d.my_score}-{d.their_score}",
                  f"{', '.join(mine)} | {', '.join(theirs) or '-'}",
                  " ".join(map(str, d.dice)), str(d.rerolls_left),
                  f"{d.to_win.label} ({d.to_win.value:.3f})",
                  f"{d.for_points.label} ({d.for_points.value:.3f})", f"{d.cost:.4f}")
    console.print(t)
    return report
