"""Dicelab's two-sided bear-off table against GNU Backgammon's database, pair by pair.

Run ``python benchmarks/bench_gnubg.py`` (``--runs N``, ``--peer-python PATH``,
``--database FILE``). dicelab solves the table of every pair of sides of up to 6
checkers on the six home points (``dicelab solve bearoff`` of 6 checkers a side:
924 sides, 853,776 pairs, the median of ``--runs`` solves timed) and reads each
pair's chance that the side on roll bears off first; gnubg's two-sided database
(``gnubg_ts0.bd``, header ``gnubg-TS-06-06-1``, shipped in the PyPI wheel
``gnubg``) is read directly from its file, and the 851,929 pairs in which both
sides still have checkers are compared (the 1,847 with a side off are the
game's ends, checked apart).

gnubg stores a pair's cubeless equity in 16 bits, so its chance to win moves in
steps of 1/65535; and it computes each pair from the stored 16-bit values of the
pairs after every play, dividing the sum over the 36 throws by 36 with C's
truncating division, so its values drift from the exact ones by up to one step
for each turn left in the race (several steps on the longest races). The script
therefore also replays that 16-bit arithmetic on dicelab's own plays of every
throw; it exits non-zero if

- the replay differs from gnubg's file by more than 2 storage steps on any pair
  (so both programs have the same game and the same plays), or
- dicelab's exact chance differs from gnubg's stored one by more than the most
  that gnubg's truncations can add up to on that pair (one step a turn left).

gnubg is installed into ``benchmarks/.gnubg-venv`` from the package registry,
never into the project's own environment; ``--peer-python`` names another
interpreter that has it, ``--database`` a two-sided database file to read instead.
The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import textwrap
import time
from math import comb
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
PEER_VENV = HERE / ".gnubg-venv"
POINTS = 6
HEADER = 40  # bytes of the ASCII header before the values

#: Run by the peer's interpreter: where the wheel's files are, its version, and
#: gnubg's own bear-off number of every side given (checked against ours).
PEER = textwrap.dedent(
    """
    import json, sys
    from importlib import metadata
    from pathlib import Path
    import gnubg
    sides, checkers = json.loads(sys.stdin.read()), int(sys.argv[1])
    numbers = [gnubg.positionbearoff(list(s) + [0] * (25 - len(s)), len(s), checkers)
               for s in sides]
    print(json.dumps({"folder": str(Path(gnubg.__file__).parent), "numbers": numbers,
                      "version": metadata.version("gnubg")}))
    """
)


def peer_python(given: str | None) -> str | None:
    """An interpreter with gnubg: the one given, or the side environment (made on
    first use); ``None`` if it cannot be installed here."""
    if given:
        return given
    python = PEER_VENV / "bin" / "python"
    if not python.exists():
        print(f"installing gnubg into {PEER_VENV} ...", flush=True)
        made = subprocess.run([sys.executable, "-m", "venv", str(PEER_VENV)])
        pip = [str(python), "-m", "pip", "install", "-q", "gnubg"]
        if made.returncode or subprocess.run(pip).returncode:
            print("gnubg could not be installed: nothing to compare against")
            return None
    return str(python)


def read_database(path: Path) -> tuple[np.ndarray, int, str]:
    """The side on roll's chance to win in gnubg's 16-bit steps, ``U[on roll, other]``
    by gnubg's numbers of the two sides; its checkers a side; its header.

    The format, from gnubg's makebearoff.c (generate_ts, BearOff2, WriteEquity) and
    bearoff.c (ReadTwoSidedBearoff, BearoffEvalTwoSided): a 40-byte ASCII header
    ``gnubg-TS-PP-CC-F`` padded with ``x`` to a newline (PP points, CC checkers, F 1
    if cubeful), then for the pair (``us`` on roll, ``them``), at index
    ``us * n + them`` (``n = C(PP + CC, PP)`` sides), 1 little-endian uint16 if
    cubeless or 4 if cubeful (cubeless equity first, then the cube owned, centred,
    the opponent's). A value ``u`` is the equity ``u / 32767.5 - 1``, so the
    chance to win is ``u / 65535``."""
    raw = path.read_bytes()
    header = raw[:HEADER].decode("ascii", "replace").rstrip("\nx")
    kind, points, checkers, cubeful = header.split("-")[1:5]
    if kind != "TS" or int(points) != POINTS:
        raise SystemExit(f"{path}: {header!r} is not a two-sided database of {POINTS} points")
    n, k = comb(POINTS + int(checkers), POINTS), 4 if cubeful == "1" else 1
    if len(raw) != HEADER + 2 * k * n * n:
        raise SystemExit(f"{path}: {len(raw)} bytes, not the {HEADER + 2 * k * n * n} "
                         f"of {header!r}")  # fmt: skip
    values = np.frombuffer(raw, "<u2", offset=HEADER).reshape(n, n, k)
    return values[:, :, 0].astype(np.int64), int(checkers), header


def gnubg_number(side: tuple[int, ...], checkers: int) -> int:
    """gnubg's number of a side (positionid.c, PositionBearoff): the side's
    checkers per point, points 1 to 6, written as stars and bars in
    ``checkers + 6`` places (each point's checkers, then a bar), the top place
    and the bars of points 1 to 5 marked; the six marked places, from the lowest,
    ranked in the combinatorial number system (the empty side is 0)."""
    place = POINTS - 1 + sum(side)
    marked = [place]
    for count in side[:-1]:
        place -= count + 1
        marked.append(place)
    return sum(comb(p, rank + 1) for rank, p in enumerate(sorted(marked)))


def dicelab_table(checkers: int, runs: int):
    """The solved table of every pair of sides of up to ``checkers`` checkers
    (:class:`~dicelab.games.chance.bearoff_table.RaceSolution`), and the median
    seconds of ``runs`` solves."""
    from dicelab.games.chance.families import game_from
    from dicelab.games.chance.solution import solve

    side = ",".join(["6"] * checkers)
    game = game_from("bearoff", [f"mine={side}", f"theirs={side}"])
    solve(game_from("bearoff", ["mine=6,6", "theirs=6,6"]))  # kernels loaded
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        solution = solve(game)  # no cache: solved each time
        times.append(time.perf_counter() - began)
    return solution, statistics.median(times)


def replay_16_bits(plays) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's arithmetic on dicelab's plays, pair by pair in order of their pips
    (the facts from makebearoff.c, BearOff2; the code is ours): each pair's value
    ``s = u - 32768``, a 16-bit integer (the side on roll's, 32767 if it has no
    checker left, else -32768 if the other has none); a throw's best play is the
    one leaving the other side the least, worth ``-s - 1`` (``65535 - u``); the
    throws' best values, a double once and any other throw twice, are summed and
    divided by 36 rounding towards zero. Returns the values as ``u`` and, for
    each pair, the most turns left before the race ends (the most steps the
    truncations can add up to there)."""
    from numba import njit

    @njit(cache=False)
    def kernel(start, to, weights, pips):
        k, throws = pips.size, weights.size
        value = np.zeros((k, k), np.int64)
        turns = np.zeros((k, k), np.int64)
        for r in np.argsort((pips.reshape(-1, 1) + pips.reshape(1, -1)).ravel()):
            i, j = r // k, r % k
            if i == 0 or j == 0:
                value[i, j] = 32767 if i == 0 else -32768
                continue
            total, longest = 0, 0
            for t in range(throws):
                least = 32767
                for q in range(start[i * throws + t], start[i * throws + t + 1]):
                    least = min(least, value[j, to[q]])
                    longest = max(longest, turns[j, to[q]])
                total += weights[t] * (-least - 1)
            value[i, j] = total // 36 if total >= 0 else -(-total // 36)
            turns[i, j] = longest + 1
        return value + 32768, turns

    weights = np.round(plays.chances * 36).astype(np.int64)
    return kernel(plays.start, plays.to, weights, plays.pips)


def written(side: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, side)) + ")"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--peer-python", help="an interpreter with gnubg installed")
    parser.add_argument("--database", type=Path, help="a two-sided gnubg database file")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}  ({os.cpu_count()} cores)")
    # a database file given: gnubg itself only where --peer-python names it
    python = None if args.database and not args.peer_python else peer_python(args.peer_python)
    if python is None and args.database is None:
        sys.exit(2)
    folder = version = None
    if python:
        spec = subprocess.run([python, "-c", "import importlib.util as u; "
                               "print(u.find_spec('gnubg').submodule_search_locations[0])"],
                              capture_output=True, text=True, check=True)  # fmt: skip
        folder = Path(spec.stdout.strip())
    path = args.database
    if path is None:
        assert folder is not None
        found = sorted(p for p in folder.rglob("gnubg_ts*.bd")
                       if p.read_bytes()[:12] == b"gnubg-TS-06-")  # fmt: skip
        if not found:
            raise SystemExit(f"no two-sided database of 6 points under {folder}")
        path = found[0]
    began = time.perf_counter()
    stored, checkers, header = read_database(path)
    read_s = time.perf_counter() - began

    solution, solve_s = dicelab_table(checkers, args.runs)
    W = solution.table.W
    sides = [tuple(int(key >> (4 * p)) & 15 for p in range(POINTS)) for key in solution.keys]
    ours = np.array([gnubg_number(s, checkers) for s in sides])
    if sorted(ours.tolist()) != list(range(len(sides))):
        raise SystemExit("the sides' numbers are not gnubg's 0 to n - 1")
    if python:
        out = subprocess.run([python, "-c", PEER, str(checkers)], input=json.dumps(sides),
                             capture_output=True, text=True, check=True)  # fmt: skip
        peer = json.loads(out.stdout)
        version = peer["version"]
        if peer["numbers"] != ours.tolist():
            raise SystemExit("our numbering of the sides is not gnubg's positionbearoff")
    U = stored[np.ix_(ours, ours)]  # gnubg's values in dicelab's order of the sides
    print(f"gnubg {version or '(version unknown)'}: {path.name} ({header}), "
          f"read in {read_s:.2f} s; "
          f"{len(sides)} sides numbered as by gnubg's positionbearoff"
          f"{'' if python else ' (not checked: no gnubg interpreter)'}")  # fmt: skip

    began = time.perf_counter()
    replay, turns = replay_16_bits(solution.table.plays)
    replay_s = time.perf_counter() - began

    step = 1 / 65535
    play = (slice(1, None), slice(1, None))  # both sides with checkers left
    diff = np.abs(W - U / 65535)[play]
    rounded = np.abs(np.round(W * 65535) - U)[play]
    replayed = np.abs(replay - U)
    over_bound = (np.abs(W * 65535 - U) - turns)[play]
    pairs = diff.size
    i, j = np.unravel_index(int(diff.argmax()), diff.shape)
    a, b = sides[i + 1], sides[j + 1]
    ends = np.concatenate([W[0, 1:] - U[0, 1:] / 65535, W[1:, 0] - U[1:, 0] / 65535])

    print(f"\npairs compared (both sides with checkers): {pairs:,} of {W.size:,}")
    print(f"largest difference:                  {diff.max():.3e} "
          f"({diff.max() / step:.2f} storage steps of 1/65535)")  # fmt: skip
    print(f"  at {written(a)} on roll against {written(b)} (checkers on points 1..6): "
          f"dicelab {W[i + 1, j + 1]:.9f}, gnubg {U[i + 1, j + 1] / 65535:.9f}")  # fmt: skip
    print(f"pairs differing by more than 1e-4:   {(diff > 1e-4).sum():,}")
    print(f"pairs differing by more than 1 step: {(diff > step).sum():,}"
          f"  (more than 2: {(diff > 2 * step).sum():,})")  # fmt: skip
    counts = np.bincount(rounded.astype(np.int64).ravel())
    print(f"dicelab rounded to 16 bits, off by:  largest {int(rounded.max())} steps; pairs "
          + ", ".join(f"{n} steps {c:,}" for n, c in enumerate(counts)))  # fmt: skip
    print(f"mean signed difference (dicelab - gnubg): "
          f"{np.mean(W[play] * 65535 - U[play]):+.3f} steps")  # fmt: skip
    print(f"ends (one side off, {ends.size:,} pairs): largest difference "
          f"{np.abs(ends).max():.1e}; both off: dicelab {W[0, 0]:.0f}, gnubg "
          f"{U[0, 0] / 65535:.0f} (never met in play)")  # fmt: skip
    print(f"gnubg's 16-bit arithmetic replayed on dicelab's plays: differs from the file "
          f"on {(replayed > 0).sum():,} of {replayed.size:,} pairs (largest {replayed.max()} "
          "steps)")  # fmt: skip
    print(
        f"dicelab's exact values within gnubg's truncations (a step a turn left) on every "
        f"pair: {bool((over_bound <= 1e-6).all())}; at the largest difference "
        f"{diff.max() / step:.2f} steps of {turns[i + 1, j + 1]} allowed (at most {turns.max()})"
    )
    print(f"\ndicelab's table solve (median of {args.runs}): {solve_s:.2f} s "
          f"({W.size / solve_s:,.0f} pairs a second); the 16-bit replay: {replay_s:.2f} s "
          "(with its compile)")  # fmt: skip
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")
    failed = []
    if replayed.max() > 2:
        failed.append("the replay of gnubg's arithmetic is more than 2 steps off its file")
    if (over_bound > 1e-6).any():
        failed.append("dicelab's values are further from gnubg's than its truncations allow")
    for reason in failed:
        print(f"FAILED: {reason}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
