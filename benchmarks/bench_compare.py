"""Benchmark of ``dicelab compare``, the whole command, cold and with its tables cached.

Run ``python benchmarks/bench_compare.py`` (``--runs N``, ``--cached-runs N``,
``--rules A B``: two Yahtzee variants by default, official Yahtzee and a house rule
of it, a full house worth 30, written out here as a rules file).

*Cold* runs each start from an empty cache folder of their own (the kernels are
compiled already, as after the install): both expected-score tables solved, both
optimum distributions worked out, both simple strategies valued, the two-player
games sized, 300 games played each way for the partings. *Cached* runs repeat the
command on the cache the cold runs filled. Each timing is from process start to
exit; medians and fastest are printed beside the load average before and after,
which says how quiet the machine was (the done-when of the command: cold <= 15 s,
cached <= 2 s, on 2 cores). ``--split`` adds one cold run inside this process with
the time of each part.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DICELAB = str(Path(sys.executable).with_name("dicelab"))
HOUSE = 'name = "house"\nextends = "yahtzee"\n\n[[categories]]\nid = "full_house"\nscore = 30\n'


def wall(cmd: list[str], cache: Path) -> float:
    """Seconds of ``cmd`` from process start to exit, with ``cache`` as its cache."""
    env = os.environ | {"DICELAB_CACHE_DIR": str(cache)}
    t = time.perf_counter()
    res = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - t
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {res.stderr.strip()[-300:]}")
    return elapsed


def split(rules: list[str], cache: Path) -> dict[str, float]:
    """One cold comparison in this process, the seconds of each part."""
    os.environ["DICELAB_CACHE_DIR"] = str(cache)
    from dicelab.cli.compare import Solving, compared, find_partings
    from dicelab.play.compare import load_each

    how = Solving(quiet=True)
    parts: dict[str, float] = {}
    t = time.perf_counter()
    loaded = load_each(rules)
    tables = [compared(g, r, how)[1] for g, r in zip(rules, loaded, strict=True)]
    parts["tables, distributions, simple strategies, duels"] = time.perf_counter() - t
    t = time.perf_counter()
    find_partings(tables, how)
    parts["partings (300 games each way)"] = time.perf_counter() - t
    return parts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3, help="cold runs")
    ap.add_argument("--cached-runs", type=int, default=7)
    ap.add_argument("--rules", nargs=2, default=None)
    ap.add_argument("--split", action="store_true")
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-compare-"))
    if args.rules is None:
        (folder / "house.toml").write_text(HOUSE)
        args.rules = ["yahtzee", str(folder / "house.toml")]
    cmd = [DICELAB, "compare", *args.rules]
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) on {os.cpu_count()} cores")
    cold = [wall(cmd, folder / f"cold-{i}") for i in range(args.runs)]
    cached = [wall(cmd, folder / "cold-0") for _ in range(args.cached_runs)]
    print(f"{'dicelab compare ' + ' '.join(Path(r).name for r in args.rules):44} "
          f"{'median s':>9} {'min s':>8}")  # fmt: skip
    for name, ts in (("cold (empty cache)", cold), ("tables cached", cached)):
        print(f"  {name:42} {statistics.median(ts):9.2f} {min(ts):8.2f}")
    if args.split:
        for name, s in split(args.rules, folder / "split").items():
            print(f"  {name:42} {s:9.2f}")
    one, five, _ = os.getloadavg()
    print(f"load average {one:.2f} (1 min), {five:.2f} (5 min) after the run")


if __name__ == "__main__":
    main()
