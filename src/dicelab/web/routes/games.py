"""Routes of the dice games on the chance model: the families, and play from a position.

The page keeps the game (the position, as the server last gave it); every request
names the game and its settings, so the server keeps no game of anyone's, only
the games built and solved themselves (:class:`dicelab.web.game_store.GameStore`:
each built once per settings, each solved once however many ask at once, a large
one in a worker process under the server's limits, dropped when its askers leave).
"""

from __future__ import annotations

import json
import numbers
from typing import Any

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from dicelab.errors import TooLarge, UserError
from dicelab.web import models as m
from dicelab.web.game_store import GameStore
from dicelab.web.routes import ClientGone, awaitable, awaited_while_there, route, stopping_ends

router = APIRouter(tags=["games"])

#: Lists within lists a position may have (the bear-off's: its sides and a throw).
MAX_DEPTH = 3


@route(router, "GET", "/api/games", list[m.GameFamilyOut], "The dice games of the chance model")
def get_games() -> list[dict]:
    """Each built-in family with its settings (name and meaning, default in brackets)
    and its presets (shipped game files: their settings, as typed)."""
    from dicelab.games.chance.families import FAMILIES, presets_of

    return [
        {"name": f.name, "title": f.title, "summary": f.summary,
         "settings": [{"name": k, "help": h} for k, (_, h) in f.settings.items()],
         "presets": presets_of(f.name)}
        for f in FAMILIES.values()
    ]  # fmt: skip


@route(router, "POST", "/api/games/position", m.GamePositionOut,
       "A dice game's position, ranked moves or throws; one step from it")  # fmt: skip
async def post_game_position(body: m.GamePositionRequest, request: Request) -> dict:
    """Solves the game on first use (Farkle to 10,000: about 20 s, in a worker process),
    then answers at once; a server told to stop meanwhile answers 503, and a client
    that leaves stops a solve no one else waits for."""
    games = game_store(request)
    key, game = await run_in_threadpool(games.game, body.game, body.settings)
    solution = games.solved(key)
    if solution is None:
        future = games.solution(key, game)
        try:
            solution = await stopping_ends(awaited_while_there(awaitable(future)))
        except ClientGone:
            games.release(key, gone=True)
            raise UserError("the client left before the game was solved") from None
        except TooLarge as exc:
            raise UserError(exc.summary) from None
        games.release(key)
    return await run_in_threadpool(_answer, solution, body)


@route(router, "POST", "/api/games/progress", m.GameProgress,
       "How far the solve of a dice game has come", response_model_exclude_none=True)  # fmt: skip
async def post_game_progress(body: m.GameRequest, request: Request) -> dict:
    """Answers at once, also while the game is being solved: the page polls it while
    its first position waits, to show a bar and the time left."""
    games = game_store(request)
    key, game = await run_in_threadpool(games.game, body.game, body.settings)
    return await run_in_threadpool(games.progress, key, game)


def game_store(request: Request) -> GameStore:
    """The server's dice games (made with the app, see :func:`dicelab.web.app.create_app`)."""
    return request.app.state.games


def _as_position(value: Any, depth: int = 0) -> Any:
    """A position sent back as JSON (lists) as the game's own (tuples); nesting deeper
    than any game's is refused before it can exhaust the stack."""
    if isinstance(value, list):
        if depth >= MAX_DEPTH:
            raise UserError("position: nested deeper than any game's position")
        return tuple(_as_position(v, depth + 1) for v in value)
    return value


def _kind(value: Any) -> Any:
    """What a part of a position is, for :func:`_position`: a flag, a whole number,
    a number with a fraction, some text, or the kinds of a tuple's parts."""
    if isinstance(value, tuple):
        return tuple(_kind(v) for v in value)
    if isinstance(value, bool):
        return bool
    return int if isinstance(value, numbers.Integral) else type(value)


def _position(solution, sent: Any) -> Any:
    """The position a request sends back, checked to be one of the game's as an answer
    gave it, else one clear 400.

    The games find a position by equality and read its parts as numbers and flags,
    so JSON's 0.0 or true would pass for 0 or 1 and a text for a flag, and then fail
    deep in the game's arithmetic: the parts must be of the kinds the game's own
    position has (a node of the bear-off race's other seat, which has no listed
    position, must hold whole numbers and text only)."""
    here = _as_position(sent)
    if hasattr(solution, "layout"):
        layout = solution.layout
        v = layout.node(here)  # a position this game reaches, or one clear line
        own = layout.positions[v] if v >= 0 else None
    else:  # solved where its turns start: the game's numbering of its positions
        v, own = 0, solution.known(here)
    if _kind(here) != (_kind(own) if v >= 0 else _whole(here)):
        shown = json.dumps(sent, ensure_ascii=True)[:80]
        raise UserError(f"position: got {shown}, not a position as this game gives it "
                        "(whole numbers, and true or false only where it has a flag)")  # fmt: skip
    return here


def _whole(value: Any) -> Any:
    """The kinds of a position made of whole numbers and text only (see :func:`_kind`)."""
    if isinstance(value, tuple):
        return tuple(_whole(v) for v in value)
    return str if isinstance(value, str) else int


def _answer(solution, body: m.GamePositionRequest) -> dict:
    game = solution.game
    here = game.start() if body.position is None else _position(solution, body.position)
    if body.move is not None and body.throw is not None:
        raise UserError("give a move or a throw, not both")
    if body.move is not None:
        moves = {mv.label: mv.position for mv in solution.advise(here)}
        if body.move not in moves:
            raise UserError(f"move: got {body.move!r}, expected one of {', '.join(moves)}")
        here = moves[body.move]
    elif body.throw is not None:
        if game.result(here) is not None or game.to_move(here) != -1:
            raise UserError("throw: the dice do not decide here")
        after = {label: pos for _, label, pos in game.outcomes(here)}
        if body.throw not in after:
            raise UserError(f"throw: got {body.throw!r}, expected one of {', '.join(after)}")
        here = after[body.throw]
        return _describe(solution, here, body.throw)
    return _describe(solution, here)


def _positions(solution) -> int:
    """The game's positions: those laid out, or for a game solved as a table (its turn
    starts, its pairs of sides) those it would have laid out."""
    if hasattr(solution, "layout"):
        return len(solution)
    return int(getattr(solution.game, "estimate", lambda: len(solution))())


def _describe(solution, here, throw: str | None = None) -> dict:
    """A position as the page draws it; after ``throw`` (its label), each move that
    sets dice aside names them (Farkle: the dice to tap)."""
    game = solution.game
    result = game.result(here)
    seat = None if result is not None else game.to_move(here)
    mover = "end" if seat is None else "dice" if seat == -1 else f"player {seat + 1}"
    out = {
        "game": game.name, "measure": game.measure, "players": game.players,
        "positions": _positions(solution), "start_value": solution.value(), "position": here,
        "text": game.show(here), "value": solution.value(here), "result": result,
        "verdict": None if result is None else game.verdict(here),
        "mover": mover, "board": getattr(game, "board", lambda _: None)(here),
        "moves": [], "throws": [],
    }  # fmt: skip
    if mover == "dice":
        out["throws"] = [
            {"throw": label, "chance": float(p)} for p, label, _ in game.outcomes(here)
        ]
    elif mover != "end":
        out["moves"] = [mv.to_dict() for mv in solution.advise(here)]
        kept = getattr(game, "kept_dice", None)
        if throw is not None and kept is not None:
            for move in out["moves"]:
                move["dice"] = kept(throw, move["move"])
    if game.players > 2:  # a table of players: every seat's chance here
        out["chances"] = [float(c) for c in solution.chances(here)]
    return out
