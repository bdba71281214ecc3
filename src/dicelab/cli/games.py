"""What ``dicelab door`` and ``dicelab tictactoe`` print: the two-player games' answers."""

from __future__ import annotations

from dicelab.cli.output import check_plot_path, task_display
from dicelab.games.door import cards_label


def print_door(summary: dict, console) -> None:
    """Print :func:`summarize`'s result as a short report with a table."""
    from rich.table import Table

    console.print(
        f"Door-lock card game: hands {cards_label(summary['first_hand'])} (first) and "
        f"{cards_label(summary['second_hand'])} (second). The players take turns, the first "
        "player first, each putting one card of their hand on the table (no passing); "
        f"when the table sum is exactly {summary['target']} the second player wins, at "
        f"{summary['bust']} or more the first."
    )
    console.print(
        f"Verdict: [bold]{summary['verdict']}[/bold] "
        f"({summary['moves_to_end']} cards with best play)"
    )
    console.print(f"Positions: {summary['positions']:,}")
    winning = summary["winning_first_moves"]
    console.print(f"Winning first moves: {cards_label(winning) if winning else 'none'}")
    table = Table(title="Each first card, then best play")
    table.add_column("first card", justify="right")
    table.add_column("result for first player")
    table.add_column("cards to the end", justify="right")
    table.add_column("second player's winning replies")
    table.add_column("main line")
    for opening in summary["first_moves"]:
        replies = opening["winning_replies"]
        table.add_row(
            str(opening["card"]),
            opening["value_for_first_player"],
            str(opening["moves_to_end"]),
            cards_label(replies) if replies else "none",
            f"{cards_label(opening['main_line'])}: {opening['end']}",
        )
    console.print(table)


def run_door(
    hand: str = "1 2 3 4 5",
    *,
    second_hand: str | None = None,
    target: int = 23,
    bust: int = 24,
    csv_path=None,
    plot_path=None,
    as_json: bool = False,
    allow_large: bool = False,
) -> None:
    """The ``dicelab door`` command: solve, write the files asked for, report."""
    import json
    import sys

    from dicelab.cli.output import Console
    from dicelab.engine.runtime.cost import positions_cost
    from dicelab.games.door import DoorGame, parse_hand, summarize, write_csv
    from dicelab.games.twoplayer import solve
    from dicelab.plot.door import write_plot

    if plot_path is not None:
        check_plot_path(plot_path)
    game = DoorGame(
        parse_hand(hand),
        second_hand=None if second_hand is None else parse_hand(second_hand),
        target=target,
        bust=bust,
    )
    cards = len(game.first_hand) + len(game.second_hand)
    cost = positions_cost(f"the door game with {cards} cards", 2**cards)
    cost.check(allow_large)
    cost.announce()
    with task_display(sys.stderr.isatty()) as display:
        solution = solve(game, display=display)
    if csv_path is not None:
        write_csv(solution, csv_path)
    if plot_path is not None:
        write_plot(solution, plot_path)
    summary = summarize(solution)
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        print_door(summary, Console())


def print_tictactoe(summary: dict, console) -> None:
    """Print :func:`summarize`'s result: verdict, counts, a board of first moves."""
    from rich.table import Table

    console.print(f"Tic-tac-toe, {summary['rows']} x {summary['columns']}, {summary['k']} in a row")
    console.print(
        f"Verdict: [bold]{summary['verdict']}[/bold] "
        f"({summary['moves_to_end']} moves with best play)"
    )
    console.print(f"Reachable positions: {summary['positions']:,}")
    console.print(f"Best first moves: {' '.join(summary['best_first_moves'])}")
    console.print(f"Main line: {' '.join(summary['main_line'])}")
    board = Table(title="Each first move for X (result, moves to the end)")
    board.add_column("")
    for column in range(summary["columns"]):
        board.add_column(chr(ord("a") + column), justify="center")
    results = {move["cell"]: move for move in summary["first_moves"]}
    for row in range(summary["rows"]):
        cells = []
        for column in range(summary["columns"]):
            move = results[f"{chr(ord('a') + column)}{row + 1}"]
            cells.append(f"{move['value_for_first_player']} {move['moves_to_end']}")
        board.add_row(str(row + 1), *cells)
    console.print(board)


def run_tictactoe(
    rows: int = 3,
    columns: int = 3,
    k: int = 3,
    *,
    as_json: bool = False,
    allow_large: bool = False,
) -> None:
    """The ``dicelab tictactoe`` command: solve and report."""
    import json
    import sys

    from dicelab.cli.output import Console
    from dicelab.engine.runtime.cost import positions_cost
    from dicelab.games.tictactoe import TicTacToe, summarize
    from dicelab.games.twoplayer import solve

    game = TicTacToe(rows, columns, k)
    cost = positions_cost(f"tic-tac-toe on {rows} x {columns}", game.position_bound)
    cost.check(allow_large)
    cost.announce()
    with task_display(sys.stderr.isatty()) as display:
        solution = solve(game, display=display)
    summary = summarize(solution)
    if as_json:
        print(json.dumps(summary, indent=2))
    else:
        print_tictactoe(summary, Console())
