"""``dicelab solve GAME`` and ``dicelab advise GAME`` for the games of the chance model:
Pig, Shut the Box, the bear-off, Farkle, or a TOML file naming one with its settings."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from dicelab.cli.output import Console, check_plot_path, progress_bar
from dicelab.engine import registry
from dicelab.errors import TooLarge, UserError
from dicelab.games.chance.explore import DEFAULT_LIMIT
from dicelab.games.chance.families import game_from
from dicelab.games.chance.model import CHANCE, ChanceGame
from dicelab.games.chance.solution import ChanceSolution, solve
from dicelab.plot.games import has_picture

#: The most positions whose values are worked out in exact fractions.
EXACT_LIMIT = 200_000

#: What each objective's value is, as a report says it (from the registry).
MEANING = {name: o.value_name for name, o in registry.GAME_OBJECTIVES.items()}


@dataclass(frozen=True)
class GameSolving:
    """How ``solve GAME`` solves: past the size check (``allow_large``), through the
    cache folder (``cache``), and for a table of turn starts or of pairs of sides on
    a Dask cluster (``cluster``, its address, or ``workers``, a count of local worker
    processes) with the table being solved in a file in ``store``."""

    allow_large: bool = False
    cache: bool = True
    cluster: str | None = None
    workers: int | None = None
    store: str | None = None


def _solved(
    game: ChanceGame,
    objective: str | None,
    target: float | None,
    allow_large: bool,
    console: Console,
    quiet: bool,
    exact: bool = False,
    cache: bool = True,
    offer_large: bool = False,
    runner=None,
    store: str | None = None,
) -> tuple[ChanceSolution, float]:
    limit = 10**9 if allow_large else None
    began = time.perf_counter()
    name = game.name if len(game.name) <= 30 else game.name[:29] + "…"
    from dicelab.games.chance.turn_solution import solves_by_turns

    unit = "passes"
    if solves_by_turns(game, objective):
        unit = "pairs" if hasattr(game, "race_plays") else "turn totals"
    with progress_bar(f"solving {name}", enabled=not quiet, unit=unit) as tick:
        try:
            solution = solve(game, objective, target=target, exact=exact, progress=tick,
                             limit=limit or DEFAULT_LIMIT, cache=cache, runner=runner,
                             store=store)  # fmt: skip
        except TooLarge as exc:  # the way out (--allow-large) only where there is one
            raise exc if offer_large else UserError(exc.summary) from None
    return solution, time.perf_counter() - began


def _solved_where(game, objective, target, console, quiet, exact,
                  how: GameSolving) -> tuple[ChanceSolution, float]:  # fmt: skip
    """:func:`_solved` as ``how`` says: its cluster or workers and store apply to the
    games solved as tables (a game small enough to lay out is solved in this process,
    as a note says)."""
    from dicelab.games.chance.turn_solution import solves_by_turns

    where = (how.cluster, how.workers, how.store)
    cluster, workers, store = where
    asked = [w for w, v in zip(("--cluster", "--workers", "--store"), where, strict=True)
             if v is not None]  # fmt: skip
    if exact or not solves_by_turns(game, objective):  # no runner (nor Numba) to start
        if asked:
            print(f"note: {game.name} is laid out and solved in this process; "
                  f"{', '.join(asked)} appl{'y' if len(asked) > 1 else 'ies'} to the tables "
                  "of turn starts and races", file=sys.stderr)  # fmt: skip
        return _solved(game, objective, target, how.allow_large, console, quiet, exact,
                       how.cache, offer_large=True)  # fmt: skip
    from dicelab.engine.runtime.schedule import runner_for

    with runner_for(cluster, workers) as runner:
        return _solved(game, objective, target, how.allow_large, console, quiet, exact,
                       how.cache, offer_large=True, runner=runner, store=store)  # fmt: skip


def throws_of(solution: ChanceSolution) -> list[float] | None:
    """One side's bear-off: the chance of each number of throws (trailing zeros cut)."""
    from dicelab.games.chance.bearoff import BearOff

    if not isinstance(solution.game, BearOff) or solution.game.players != 1:
        return None
    from dicelab.games.chance.bearoff_layout import throws_distribution  # loads Numba

    dist = [float(p) for p in throws_distribution(solution)]
    while dist and dist[-1] == 0.0:
        dist.pop()
    return dist


def run_game_solve(
    name: str,
    settings: list[str],
    *,
    objective: str | None = None,
    target: float | None = None,
    exact: bool = False,
    strategy: str | None = None,
    against: str | None = None,
    plot: str | None = None,
    as_json: bool = False,
    console: Console | None = None,
    how: GameSolving | None = None,
) -> ChanceSolution:
    """Solve a game of the chance model and print its value and how it was checked,
    as ``how`` says (:class:`GameSolving`: the size check, the cache, where a table
    is solved)."""
    how = how or GameSolving()
    console = console or Console()
    game = game_from(name, settings)
    path = check_plot_path(plot) if plot else None
    if path is not None and not has_picture(game):
        raise UserError(
            f"--plot: {game.name} has no picture yet (Pig and one side's bear-off have)"
        )
    size = getattr(game, "size", lambda: None)()
    if exact and size is not None and size > EXACT_LIMIT:
        raise UserError(f"--exact: {size:,} positions is too many for fractions; "
                        f"at most {EXACT_LIMIT:,}")  # fmt: skip
    if against and not strategy:
        raise UserError("--against: goes with --strategy (the strategy it plays against)")
    from dicelab.games.chance.strategies import strategy_from

    for text in (strategy, against):  # a strategy misnamed is said before the solve
        if text:
            strategy_from(game, text)
    solution, seconds = _solved_where(game, objective, target, console, as_json, exact, how)
    out = _report(solution, seconds, exact, path, strategy, against)
    if as_json:
        console.print_json(json.dumps(out))
    else:
        _print_report(solution, out, console)
    return solution


def _report(solution: ChanceSolution, seconds: float, exact: bool, path,
            strategy: str | None, against: str | None) -> dict:  # fmt: skip
    """What ``solve`` says of a solved game, as plain data (its ``--json``)."""
    game, s = solution.game, solution.solved
    out: dict = {"game": game.name, "objective": solution.objective, "value": solution.value(),
                 "positions": len(solution), "cycles": s.cyclic, "residual": s.residual,
                 "rounds": s.rounds, "seconds": round(seconds, 3),
                 "cached": solution.cached is not None}  # fmt: skip
    if game._title:  # a game file's own words
        out.update(title=game._title, published=game._published)
    if solution.objective == "target":
        out["target"] = solution.target
    if game.players > 2:  # a table of players: every seat's chance
        table = solution.table  # type: ignore[attr-defined]
        out.update(chances=[float(c) for c in solution.chances()],  # type: ignore[attr-defined]
                   method="seats", turn_starts=len(solution), sweeps=table.sweeps,
                   unsettled=table.unsettled)  # fmt: skip
    elif not hasattr(solution, "layout"):  # solved where its turns start
        laid_out = game.estimate()  # type: ignore[attr-defined]  # every banking game has one
        table = solution.table  # type: ignore[attr-defined]
        race = not hasattr(table, "turn")  # a race: a table of pairs of sides
        out.update(positions=laid_out, turn_starts=len(solution),
                   method="pairs of sides" if race else "turn starts",
                   sweeps=getattr(table, "sweeps", 1),
                   by_pairs=race or table.turn.by_pairs)  # fmt: skip
    if game.players == 2:
        out["draw"] = solution.draw()
    if exact:
        if len(solution) > EXACT_LIMIT:
            raise UserError(f"--exact: {len(solution):,} positions is too many for fractions; "
                            f"at most {EXACT_LIMIT:,}")  # fmt: skip
        out["exact"] = str(solution.exact())
    throws = throws_of(solution)
    if throws is not None:
        out["throws_distribution"] = throws
    if path is not None:
        from dicelab.plot.games import plot_game

        out["plot"] = str(plot_game(solution, path))
    if strategy:
        from dicelab.games.chance.strategies import strategy_from

        mine = strategy_from(game, strategy)
        theirs = strategy_from(game, against) if against else None
        out["strategy"] = {"name": strategy, "against": against or "best reply",
                           "value": solution.price(mine, theirs)}  # fmt: skip
    return out


def _print_report(solution: ChanceSolution, out: dict, console: Console) -> None:
    """The report of :func:`_report` in words."""
    game = solution.game
    how = "read from the cache in" if solution.cached else "solved in"
    if "turn_starts" in out:
        kept = "pairs of sides" if out["method"] == "pairs of sides" else "turn starts"
        how = f"{how.replace(' in', '')} at its {out['turn_starts']:,} {kept} in"
    named = f"{game._title} ({game.name})" if game._title else game.name
    size = "" if out.get("method") == "seats" else f" {out['positions']:,} positions,"
    console.print(f"[bold]{named}[/bold]:{size} {how} {out['seconds']:.2f} s")
    default = solution.objective == (game.objective or ("win" if game.players == 2 else "points"))
    meaning = game.measure if default and game.measure else MEANING[solution.objective]
    exact = f" = {out['exact']}" if "exact" in out else ""
    if "chances" in out:
        shown = ", ".join(f"player {k} {c:.6f}" for k, c in enumerate(out["chances"], 1))
        console.print(f"{meaning}: [bold]{shown}[/bold]")
    else:
        console.print(f"{meaning}: [bold]{out['value']:.6f}[/bold]{exact}")
    if game._published:
        console.print(f"published: {game._published}")
    if out.get("draw"):
        console.print(f"chance of a draw: {out['draw']:.6f}")
    if "throws_distribution" in out:
        shown = ", ".join(f"{n}: {p:.4f}" for n, p in enumerate(out["throws_distribution"])
                          if p >= 5e-5)  # fmt: skip
        console.print(f"throws needed (best play): {shown}")
    if "plot" in out:
        console.print(f"the picture is in {out['plot']}")
    if "strategy" in out:
        st = out["strategy"]
        console.print(f"the strategy {st['name']} against {st['against']}: "
                      f"[bold]{st['value']:.6f}[/bold]")  # fmt: skip
    cycles = "no position comes back: one pass backwards"
    if out["cycles"]:
        cycles = (f"{out['cycles']:,} groups of positions that come back; {out['rounds']} "
                  "exact valuation(s)")  # fmt: skip
    if out.get("method") == "seats":
        _print_seats_check(out, console)
        return
    if out.get("method") == "pairs of sides":
        console.print("checked: no position comes back; one pass over the pairs of sides, "
                      "by their pips")  # fmt: skip
        return
    if "turn_starts" in out:
        steps, sweeps = out["rounds"], out["sweeps"]
        if out["by_pairs"]:
            again = f"; {sweeps} sweeps of the layers" if sweeps > 1 else ""
            how = (
                f"at most {steps} Newton steps a pair"
                if steps
                else "by Newton steps on the cluster's workers"
            )  # steps not sent back
            console.print(f"checked: every pair of turn starts a farkle joins solved exactly, "
                          f"{how} (the last moved no value){again}")  # fmt: skip
        else:
            console.print(f"checked: {sweeps} sweeps worked every turn out, the last moving no "
                          "value by more than 1e-14")  # fmt: skip
        return
    checked = f"{out['residual']:.1e}; {cycles}"
    console.print(f"checked: no single move gains over the solved play by more than {checked}")


def _print_seats_check(out: dict, console: Console) -> None:
    """How a table of players was solved, and how near every seat is to its best."""
    again = f"; {out['sweeps']} sweeps of the layers" if out["sweeps"] > 1 else ""
    console.print(f"checked: the turn starts each farkle joins solved together, every mover "
                  f"taking its best moves until none changed (at most {out['rounds']} rounds)"
                  f"{again}")  # fmt: skip
    if out["unsettled"] > 0:
        console.print(f"not settled: a wipe leads back through the lower scores, where best "
                      f"replies go round; after {out['sweeps']} sweeps the chances still "
                      f"moved by up to {out['unsettled']:.1e} from one sweep to the "
                      "next")  # fmt: skip
    if out["residual"] > 0:
        console.print(f"at a few turn starts the movers' best replies go round (each best "
                      "answers the one before, none best for all at once): there the moves "
                      "kept leave no mover more than "
                      f"{out['residual']:.1e} to gain by other moves of its own")  # fmt: skip


def run_game_advise(
    name: str,
    settings: list[str],
    at: str | None,
    *,
    target: float | None = None,
    top: int = 12,
    as_json: bool = False,
    console: Console | None = None,
) -> list:
    """Rank every move at a position of a chance-model game, with its cost (by the
    chance of reaching ``target`` where one is given, one player)."""
    console = console or Console()
    game = game_from(name, settings)
    position = game.parse(at) if at else None
    if position is None and game.to_move(game.start()) == CHANCE:
        raise UserError(f"{game.name} starts with a throw of the dice: name a position with "
                        f"--at, e.g. {game.position_help or 'as the game writes it'}")  # fmt: skip
    estimate = table_wait(game, name, settings) if game.players > 2 else None
    if estimate:  # a table of players not made yet and long to make: from the duels
        from dicelab.games.chance.seated_solution import pairwise_advice

        estimate += ("; meanwhile each move is valued by the product of the mover's "
                     "two-player chances against each opponent alone, an estimate")  # fmt: skip

        solution: Any = pairwise_advice(game)
    else:
        solution, _ = _solved(
            game, None if target is None else "target", target, False, console, as_json
        )
    moves = solution.advise(position)
    if as_json:
        here = position if position is not None else game.start()
        said = {"game": game.name, "position": game.show(here),
                "moves": [m.to_dict() for m in moves]}  # fmt: skip
        if estimate:
            said["estimate"] = estimate
        console.print_json(json.dumps(said))
        return moves
    here = position if position is not None else game.start()
    if estimate:
        console.print(f"note: {estimate}")
    console.print(f"[bold]{game.name}[/bold]: {game.show(here)}")
    table = Table(show_edge=False)
    table.add_column("move")
    table.add_column("value", justify="right")
    table.add_column("cost", justify="right")
    seats = range(1, game.players + 1) if moves and moves[0].chances else ()
    for k in seats:
        table.add_column(f"player {k}", justify="right")
    for m in moves[: top or None]:
        each = [f"{c:.4f}" for c in m.chances or ()]
        table.add_row(m.label, f"{m.value:.6f}", "" if m.cost == 0 else f"{m.cost:.6f}", *each)
    console.print(table)
    if seats:
        console.print(f"value: the mover's chance to finish first (player "
                      f"{game.to_move(here) + 1}); player 1 to {game.players}: each one's "
                      "chance after the move")  # fmt: skip
    return moves


#: The longest a table of players is solved for ``advise``, before its advice comes
#: from the two-player game instead (``solve`` makes the table, once).
ADVISE_SECONDS = 60.0


def table_wait(game, name: str, settings: list[str]) -> str | None:
    """Why a table of players is not made for ``advise`` or ``play``: it is not in the
    cache and would take longer than :data:`ADVISE_SECONDS`, or more than this
    machine has (with the command that makes it); else ``None``."""
    from dicelab.engine.runtime.cost import human_seconds
    from dicelab.engine.seats import seat_cost
    from dicelab.games.chance import saved

    if saved.seats_kept(game):  # read once, by the solve that follows
        return None
    cost = seat_cost(game.banking_turn(), game.players)
    try:
        cost.check()
    except TooLarge as exc:
        why = exc.summary
    else:
        if cost.seconds_here() <= ADVISE_SECONDS:
            return None
        typed = " ".join(f"--set {s}" for s in settings)
        why = (f"the table of {game.players} players takes "
               f"{human_seconds(cost.seconds_here())} to make once (dicelab solve {name} "
               f"{typed})")  # fmt: skip
    return why


def run_game_simulate(name: str, settings: list[str], *, games: int | None = None, seed: int = 0,
                      as_json: bool = False, console: Console | None = None):  # fmt: skip
    """Play games of a dice game with best play, the dice drawn, beside the exact value
    (``games``: 100,000, or 2,000 where the game is solved where its turns start and
    each turn is worked out as it is played)."""
    from dicelab.games.chance.simulate import simulate
    from dicelab.games.chance.turn_solution import solves_by_turns

    console = console or Console()
    if games is not None and not 1 <= games <= 100_000_000:
        raise UserError(f"--games: got {games}, expected 1 to 100,000,000")
    game = game_from(name, settings)
    if games is None:
        games = 2_000 if solves_by_turns(game, None) else 100_000
    solution, _ = _solved(game, None, None, False, console, as_json)
    with progress_bar(f"playing {games:,} games", enabled=not as_json, unit="games") as tick:
        sim = simulate(solution, games, seed, progress=tick)
    if as_json:
        console.print_json(json.dumps({"game": game.name, **sim.to_dict()}))
        return sim
    console.print(f"[bold]{game.name}[/bold]: {games:,} games with best play (seed {seed})")
    console.print(f"mean result {sim.mean:.6f} ± {sim.standard_error:.6f} (one standard error); "
                  f"exact {sim.exact:.6f}: {sim.errors_off:.2f} standard errors apart")  # fmt: skip
    if sim.unfinished:
        console.print(f"{sim.unfinished:,} games still going after a million steps, left out")
    return sim
