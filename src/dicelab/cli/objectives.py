"""What ``dicelab solve --objective ...`` and ``dicelab distribution`` print.

Kept apart from :mod:`dicelab.cli` so that the command functions stay thin: each
``run_*`` function solves (through the cache), then prints one summary or one
JSON object.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from dicelab.cli.output import progress_bar
from dicelab.engine import registry
from dicelab.errors import UserError
from dicelab.rules import load_rules

if TYPE_CHECKING:
    from dicelab.engine.objectives.scores import ScoreDistribution
    from dicelab.rules import Rules

#: The objectives of ``dicelab solve``: those with a report of their own here, then
#: every other objective of the registry that has a report (:func:`run_registered`).
OBJECTIVES = ("expected", "target", "targets", "win") + tuple(
    o.name for o in registry.front_door() if o.report is not None
)


def _odds(p: float) -> str:
    return f" (1 in {1 / p:,.0f})" if 0 < p < 0.01 else ""


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value)


def check_options(objective: str, target: int | None, exact: bool, opponent: str | None) -> None:
    """Reject option combinations that mean nothing, in one line each."""
    if objective not in OBJECTIVES:
        raise UserError(f"objective: got {objective!r}, expected one of: {', '.join(OBJECTIVES)}")
    if objective in ("target", "targets") and target is None:
        raise UserError(f"--objective {objective} needs --target S (the score to reach)")
    if objective not in ("target", "targets") and target is not None:
        raise UserError("--target goes with --objective target or targets")
    if objective == "targets" and exact:
        raise UserError("--exact solves one target: use --objective target")
    if objective != "win" and opponent is not None:
        raise UserError("--opponent goes with --objective win")
    if objective == "win" and exact:
        raise UserError("--exact is available for the expected and target objectives")


def run_objective(
    rules: str,
    objective: str,
    target: int | None = None,
    exact: bool = False,
    opponent: str | None = None,
    as_json: bool = False,
    use_cache: bool = True,
    allow_large: bool = False,
    runner=None,
    store=None,
) -> None:
    """Solve for one objective and print the answer (see ``dicelab solve --help``).

    ``runner`` and ``store`` say where a solve runs and where its table lives (see
    :mod:`dicelab.engine.runtime.schedule`); ``targets`` answers from the table of every target
    rather than of the one asked.
    """
    check_options(objective, target, exact, opponent)
    from dicelab.engine.runtime.schedule import LocalRunner

    on_cluster = runner is not None and not isinstance(runner, LocalRunner)
    if exact and (on_cluster or store is not None):
        raise UserError("--exact runs in this process: leave out --cluster, --workers and --store")
    r = load_rules(rules)
    if exact:
        _run_exact(r, objective, target, as_json)
    elif objective in ("target", "targets"):
        assert target is not None  # check_options asks for one
        every = objective == "targets"
        _run_target(r, target, as_json, use_cache, allow_large, runner, store, every)
    elif objective == "win":
        _run_win(r, opponent, as_json, use_cache, allow_large, runner)
    else:  # pragma: no cover - the plain objective is handled by the solve command
        raise UserError("the expected objective needs no report here")


def run_registered(
    rules: str,
    objective: str,
    params: dict,
    *,
    as_json: bool = False,
    use_cache: bool = True,
    allow_large: bool = False,
    runner=None,
    store=None,
    exact: bool = False,
) -> None:
    """Solve for an objective of the registry and print its report (one JSON object
    with ``--json``): any objective that declares ``report``, such as risk."""
    if objective not in OBJECTIVES:
        raise UserError(f"objective: got {objective!r}, expected one of: {', '.join(OBJECTIVES)}")
    if exact:
        raise UserError("--exact is available for the expected and target objectives")
    from dicelab.rules.compiled import compile_rules

    spec = registry.spec(objective, **params)
    r = load_rules(rules)
    game = compile_rules(r)
    report = spec.objective.load("report")
    with progress_bar(f"solving {r.name} for {objective}", enabled=not as_json) as tick:
        options = registry.SolveOptions(
            cache=use_cache, allow_large=allow_large, runner=runner, progress=tick, store=store
        )

        out = registry.using(game, spec, options, lambda t: report(t, options))
    if as_json:
        typer.echo(json.dumps(out))
        return
    for line in spec.objective.load("report", "_lines")(out):
        typer.echo(line)


def _run_exact(r, objective: str, target: int | None, as_json: bool) -> None:
    from dicelab.engine.objectives.exact import exact_expected, exact_target

    if objective == "target":
        assert target is not None  # check_options asks for one
        res = exact_target(r, int(target))
        what = f"best P(score >= {target})"
    else:
        res = exact_expected(r)
        what = "optimal expected score"
    if as_json:
        typer.echo(json.dumps(res.to_dict()))
        return
    typer.echo(f"{r.name}: {what}, exactly:")
    typer.echo(_fraction_text(res.value))
    digits = ".12e" if float(res.value) < 1e-3 else ".12f"
    typer.echo(
        f"= {float(res.value):{digits}} ({res.values_solved:,} values, "
        f"exact arithmetic in {res.seconds:.2f} s)"
    )


def _run_target(
    r,
    target: int,
    as_json: bool,
    use_cache: bool,
    allow_large: bool,
    runner=None,
    store=None,
    every: bool = False,
) -> None:
    from dicelab.engine.objectives.distribution import compile_meanwhile, score_distribution
    from dicelab.engine.objectives.target import check_target
    from dicelab.engine.objectives.utility import OneTargetTable
    from dicelab.rules.compiled import compile_rules

    game = compile_rules(r)  # once, for every table below
    check_target(game, target)
    every = every or store is not None  # a table held in a folder is the every-target one
    compile_meanwhile()  # the distribution's kernels, while the target table's compile
    start = time.perf_counter()
    what = "every target" if every else f"{target} or more"
    with progress_bar(f"solving {r.name} for {what}", enabled=not as_json) as tick:
        options = dict(use_cache=use_cache, progress=tick, allow_large=allow_large, runner=runner)
        table, best = _probability(game, target, every, store, options)
    plain = float(score_distribution(game, use_cache=use_cache, runner=runner).p_at_least[target])
    seconds = time.perf_counter() - start
    cached = bool(table.meta.get("cached"))
    one = isinstance(table, OneTargetTable)
    if as_json:
        out = {
            "rules": r.name,
            "objective": "target",
            "target": target,
            "probability": best,
            "expected_strategy_probability": plain,
            "table_of": "this target" if one else "every target",
            "values": table.n_values,
            "seconds": round(seconds, 4),
            "solve_seconds": None if cached else round(table.seconds, 4),
            "cached": cached,
            "table": table.meta.get("path"),
        }
        typer.echo(json.dumps(out))
        return
    how = "from the cache" if cached else f"solved in {table.seconds:.1f} s"
    typer.echo(f"{r.name}: best P(score >= {target}) = {best:.9g}{_odds(best)}")
    typer.echo(f"  the expected-score strategy reaches it with {plain:.9g}{_odds(plain)}")
    of = "this target" if one else "every target"
    typer.echo(f"  (table of {of}: {table.n_values:,} values, {how})")


def _probability(game, target: int, every: bool, store, options: dict):
    """The table that answers ``P(score >= target)`` and that chance.

    A cached table is memory-mapped and only its start row read; a damaged file is
    read whole, so the damage is seen and the table solved anew.
    """
    from dicelab.engine.objectives.target import target_table
    from dicelab.engine.objectives.utility import reach_table
    from dicelab.engine.runtime.cache import DamagedTable

    def table_of(mapped: bool):
        if every:
            return target_table(game, mapped=mapped, store=store, **options)
        return reach_table(game, target, mapped=mapped, **options)

    table = table_of(True)
    try:
        return table, table.probability(target)
    except DamagedTable:
        table = table_of(False)
        return table, table.probability(target)


def _run_win(
    r, opponent: str | None, as_json: bool, use_cache: bool, allow_large: bool, runner=None
) -> None:
    from dicelab.engine.objectives.win import solve_win

    with progress_bar(f"solving {r.name} to beat the opponent", enabled=not as_json) as tick:
        rep = solve_win(
            r,
            opponent=opponent,
            use_cache=use_cache,
            progress=tick,
            allow_large=allow_large,
            runner=runner,
        )
    if as_json:
        typer.echo(json.dumps(rep.to_dict()))
        return
    typer.echo(
        f"{r.name} against {rep.opponent} "
        f"(mean {rep.opponent_mean:.2f}, sd {rep.opponent_sd:.2f}), ties count half:"
    )
    typer.echo(f"  best strategy to win:   {rep.win_probability:.6f}")
    typer.echo(f"  expected-score strategy: {rep.expected_strategy_win_probability:.6f}")
    typer.echo(
        f"  gain {rep.win_probability - rep.expected_strategy_win_probability:+.6f} "
        f"({rep.seconds:.1f} s)"
    )


def score_marks(dist, most: int = 8) -> list[int]:
    """Round scores spread over where the final score falls (1st to 99.9th percentile),
    at most ``most`` of them, for the P(score >= s) line."""
    lo, hi = dist.percentile(1), dist.percentile(99.9)
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000):
        first = -(-lo // step) * step
        if (hi - first) // step + 1 <= most:
            return list(range(first, hi + 1, step)) or [lo]
    return [lo, hi]


def optimum_distribution(
    r: Rules, quiet: bool = False, use_cache: bool = True, allow_large: bool = False, runner=None
) -> ScoreDistribution:
    """The final-score distribution of the expected-score optimum: from the cache when
    kept there, else worked out (with a progress bar unless ``quiet``)."""
    from dicelab.engine.objectives.scores import cached_optimum
    from dicelab.rules.compiled import compile_rules

    # kept in the cache from an earlier run: read without loading the compiler
    dist = cached_optimum(compile_rules(r)) if use_cache and not r.save_unused_throws else None
    if dist is not None:
        return dist
    from dicelab.engine.objectives.distribution import score_distribution

    with progress_bar(f"distribution of {r.name}", enabled=not quiet) as tick:
        return score_distribution(
            r, progress=tick, use_cache=use_cache, allow_large=allow_large, runner=runner
        )


def run_distribution(
    rules: str,
    as_json: bool = False,
    plot: Path | None = None,
    use_cache: bool = True,
    allow_large: bool = False,
    runner=None,
) -> None:
    """Print the final-score distribution of the expected-score optimum."""
    from dicelab.cli.output import check_plot_path
    from dicelab.plot.distribution import plot_distribution

    if plot is not None:
        check_plot_path(plot)
    r = load_rules(rules)
    dist = optimum_distribution(r, as_json, use_cache, allow_large, runner)
    if plot is not None:
        plot_distribution(dist, plot)
    if as_json:
        out = dist.to_dict()
        if plot is not None:
            out["plot"] = str(plot)
        typer.echo(json.dumps(out))
        return
    typer.echo(f"{r.name}: final score under the {dist.strategy}")
    typer.echo(f"  mean {dist.mean:.7f}   sd {dist.sd:.4f}   range {dist.lowest}..{dist.highest}")
    pct = "  ".join(f"p{q} {x}" for q, x in dist.percentiles().items())
    typer.echo(f"  percentiles: {pct}")
    if dist.p_bonus is not None:
        typer.echo(f"  P(upper bonus) {dist.p_bonus:.6f}")
    if dist.p_all_same is not None:
        typer.echo(f"  P({dist.all_same_box} scored) {dist.p_all_same:.6f}")
    p_at_least = dist.p_at_least
    tail = "  ".join(f">={s}: {p_at_least[s]:.4g}" for s in score_marks(dist))
    typer.echo(f"  P(score >= s): {tail}")
    took = "read from the cache" if dist.meta.get("cached") else f"{dist.seconds:.2f} s"
    typer.echo(f"  (total probability {dist.total:.15f}, {took})")
    if plot is not None:
        typer.echo(f"  histogram written to {plot}")


def run_expected(
    rules: str,
    *,
    as_json: bool = False,
    use_cache: bool = True,
    allow_large: bool = False,
    runner=None,
    store=None,
    precision: str = "single",
) -> None:
    """``dicelab solve RULES``: the maximum expected score, solved or from the cache."""
    import json
    import time

    import typer

    from dicelab.api import solve
    from dicelab.cli.output import progress_bar
    from dicelab.engine.table import ExpectedScoreTable
    from dicelab.rules import load_rules

    r = load_rules(rules)
    start = time.perf_counter()
    with progress_bar(f"solving {r.name}", enabled=not as_json) as tick:
        table = solve(  # rules that save throws have their own table, never cached
            r,
            precision=precision,
            cache=use_cache,
            allow_large=allow_large,
            runner=runner,
            progress=tick,
            store=store,
        )
    assert isinstance(table, ExpectedScoreTable)  # the expected objective's table
    seconds = time.perf_counter() - start
    if as_json:
        out = {
            "rules": r.name,
            "objective": "expected",
            "precision": precision,
            "expected_score": table.expected_score,
            "states": table.n_states,
            "seconds": round(seconds, 4),
            "solve_seconds": round(table.seconds, 4) if not table.meta.get("cached") else None,
            "cached": bool(table.meta.get("cached")),
            "table": table.meta.get("path"),
        }
        typer.echo(json.dumps(out))
        return
    if table.meta.get("cached"):
        how = f"from the cache in {seconds:.2f} s"
    else:
        how = f"solved in {table.seconds:.2f} s"
        if seconds - table.seconds >= 1:  # a first run: the kernels compiled
            how += f", {seconds:.1f} s with the kernels' first compile"
    digits = 6 if precision == "single" else 7  # single-precision turns: within 1e-6
    typer.echo(
        f"{r.name}: optimal expected score {table.expected_score:.{digits}f} "
        f"({table.n_states:,} states, {how})"
    )
