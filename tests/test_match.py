"""Playing to win at a table of two to four, against independent checks.

- The chance to finish first as a utility of my score, against every tuple of the
  opponents' scores enumerated (ties shared).
- Each opponent's final-score distribution, against the brute force that plays the
  expected-score strategy out over ordered dice (``test_distribution.PolicyBrute``).
- Every option's chance, against a plain expectimax of my play valued by that
  enumeration (``test_target.BruteForce``).
- With every opponent finished, the advice of the win objective against their
  final scores.
"""

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.duel import FOUR_BOXES
from oracles.expectimax import BruteForce
from oracles.match import lookahead_brute, share_by_enumeration
from oracles.policy import PolicyBrute

from dicelab.engine.advice.duel import Sheet
from dicelab.engine.advice.match import final_pmf, match_advise, table_utility
from dicelab.engine.advice.single import Position
from dicelab.engine.objectives.expected import expected_table
from dicelab.engine.objectives.remaining import remaining_table
from dicelab.engine.objectives.win import solve_win
from dicelab.errors import UserError
from dicelab.rules import parse_rules
from dicelab.rules.compiled import compile_rules


def rerolled(rules, dice):
    """For every keep of ``dice`` (ordered, by position) that rerolls at least one die:
    the rolls it leads to, sorted, each as likely as the next."""
    faces = range(1, rules.faces + 1)
    for bits in range(1 << rules.dice):
        kept = tuple(dice[i] for i in range(rules.dice) if bits >> i & 1)
        free = rules.dice - len(kept)
        if free:
            yield [tuple(sorted(kept + x)) for x in itertools.product(faces, repeat=free)]


pmf_lists = st.lists(
    st.lists(st.floats(0.0, 1.0), min_size=1, max_size=7).filter(lambda w: sum(w) > 0.01),
    min_size=1,
    max_size=3,
)


@settings(max_examples=60, deadline=None)
@given(pmf_lists)
def test_the_table_utility_against_every_tuple_of_scores(weights):
    pmfs = [np.array(w) / sum(w) for w in weights]
    u = table_utility(pmfs)
    for me in range(u.values.size + 2):
        want = share_by_enumeration(me, pmfs)
        assert float(u.at(np.array([me]))[0]) == pytest.approx(want, abs=1e-12), me


def test_one_opponent_is_the_win_utility():
    from dicelab.engine.objectives.utility import win_utility

    p = np.array([0.1, 0.0, 0.3, 0.6])
    assert np.allclose(table_utility([p]).values, win_utility(p).values)


@pytest.fixture(scope="module")
def four():
    rules = parse_rules(FOUR_BOXES)
    return rules, compile_rules(rules), expected_table(rules, use_cache=False)


def test_an_opponents_distribution_is_their_sheet_played_for_points(four):
    rules, game, expected = four
    # ones=1 (upper 1) and pair=10 filled: points to come from the brute force's own play
    sheet = Sheet({"ones": 1, "pair": 10})
    remaining = remaining_table(game, expected, use_cache=False)
    pmf = final_pmf(remaining, sheet, "their")
    brute = PolicyBrute(rules).remaining(0b0101, 1, 0)
    want = {}
    for (rest, _, _), p in brute.items():
        want[11 + rest] = want.get(11 + rest, 0.0) + p
    assert pmf.size > max(want)
    for x in range(pmf.size):  # the table keeps single precision
        assert pmf[x] == pytest.approx(want.get(x, 0.0), abs=1e-7), x
    done = final_pmf(remaining, Sheet({"ones": 2, "threes": 3, "pair": 0, "sum": 4}), "t")
    assert np.flatnonzero(done).tolist() == [2 + 3 + 4 + 5]  # the upper bonus counted


def test_every_option_against_brute_force_at_a_table_of_three(four):
    rules, game, expected = four
    theirs = [Sheet({"threes": 3}), Sheet({})]  # one has played this round, one has not
    position = Position(dice=(1, 3), rerolls=1)
    got = match_advise(game, position, theirs, expected=expected, method="table")
    assert got.method.startswith("the table of this turn")
    pmfs = got.opponents
    top = max(p.size for p in pmfs) + 20
    u = [share_by_enumeration(s, pmfs) for s in range(top + 1)]
    brute = BruteForce(rules, "so_far", lanes=top + 1, utility=u)
    assert got.advice.options[0].value == pytest.approx(brute.throw(0, 0, 0, (1, 3), 1)[0])
    for o in got.advice.options:
        if o.kind == "keep" and not o.stops:
            free = 2 - len(o.keep)
            outs = [tuple(sorted(o.keep + x)) for x in itertools.product(range(1, 4), repeat=free)]
            want = np.mean([brute.throw(0, 0, 0, d, 0)[0] for d in outs])
        else:
            want = brute.throw(0, 0, 0, (1, 3), 0)[0]
        assert o.value == pytest.approx(want, abs=1e-9), o.label
    start = brute.state(0, 0, 0)[0]  # and the turn as a whole: the chance before the throw
    assert 0 < start < 1


def test_the_lookahead_against_brute_force_at_a_table_of_three(four):
    rules, game, expected = four
    theirs = [Sheet({"threes": 3}), Sheet({})]
    # the opponents' final scores, from the brute force's own play of their sheets
    pmfs = []
    for mask, up, score in ((0b0010, 3, 3), (0, 0, 0)):
        rest = PolicyBrute(rules).remaining(mask, up, 0)
        pmf = np.zeros(score + max(x for x, _, _ in rest) + 1)
        for (x, _, _), p in rest.items():
            pmf[score + x] += p
        pmfs.append(pmf)
    keep, box, throw = lookahead_brute(rules, pmfs, (1, 3), 1)
    position = Position(dice=(1, 3), rerolls=1)
    got = match_advise(game, position, theirs, expected=expected, method="lookahead")
    assert got.method.startswith("this turn played to finish first")
    assert len(got.advice.options) == 4  # keep none, 1, 3 or both (and stop)
    for o in got.advice.options:
        want = throw((1, 3), 0) if o.stops else keep(o.keep, 1)
        assert o.value == pytest.approx(want, abs=1e-6), o.label
    last = match_advise(game, Position(dice=(3, 3), rerolls=0), theirs, expected=expected,
                        method="lookahead")  # fmt: skip
    ids = [c.id for c in rules.categories]
    for o in last.advice.options:
        assert o.value == pytest.approx(box(ids.index(o.box), (3, 3)), abs=1e-6), o.label
    # the advice's auto method takes the lookahead where the duel does not apply
    assert match_advise(game, position, theirs, expected=expected).method == got.method


@pytest.mark.parametrize("method", ["table", "lookahead"])
def test_with_every_opponent_finished_it_is_the_win_objective(four, method):
    # (every opponent finished at my turn: it is my last turn, which the lookahead
    # plays exactly too)
    rules, game, expected = four
    done = Sheet({"ones": 2, "threes": 3, "pair": 0, "sum": 4})  # 14 with the bonus
    position = Position(dice=(3, 3), rerolls=0, filled={"ones": 1, "threes": 3, "sum": 5})
    got = match_advise(game, position, [done], expected=expected, method=method)
    final = np.zeros(15)
    final[14] = 1.0
    win = solve_win(game, final, use_cache=False).table.advise(position)
    assert [o.label for o in got.advice.options] == [o.label for o in win.options]
    for a, b in zip(got.advice.options, win.options, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-6)


@pytest.mark.parametrize(
    ("theirs", "message"),
    [
        ([], "players: got 1"),
        ([Sheet({})] * 4, "players: got 5"),
        ([Sheet({"ones": 1, "threes": 3})], "opponent 1's sheet has 2 boxes filled"),
        ([Sheet({"ones": 7})], "opponent 1's sheet: box 'ones': 7 points cannot be scored"),
        ([Sheet({"nosuch": 1})], "unknown box 'nosuch'"),
    ],
)
def test_tables_that_cannot_be_are_one_line(four, theirs, message):
    _, game, expected = four
    with pytest.raises(UserError, match=message):
        match_advise(game, Position(dice=(1, 3), rerolls=1), theirs, expected=expected)


@pytest.fixture(scope="module")
def four_file(tmp_path_factory):
    from oracles.duel import FOUR_TOML

    path = tmp_path_factory.mktemp("match") / "four.toml"
    path.write_text(FOUR_TOML)
    return str(path)


def run_process(*args):
    return subprocess.run([sys.executable, "-m", "dicelab", *args], capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def test_the_command_gives_the_same_chances(four, four_file):
    rules, game, expected = four
    res = run_process("match", "advise", four_file, "--dice", "1", "3", "--rerolls", "1",
                      "--theirs", "threes=3", "--theirs", "", "--json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    got = match_advise(game, Position(dice=(1, 3), rerolls=1), [Sheet({"threes": 3}), Sheet({})],
                       expected=expected)  # fmt: skip
    assert out["players"] == 3 and out["win_chance"] == pytest.approx(got.win_chance, abs=1e-6)
    assert [o["label"] for o in out["options"]] == [o.label for o in got.advice.options]
    text = run_process("match", "advise", four_file, "--dice", "1", "3", "--theirs", "ones=1")
    assert text.returncode == 0 and "chance to finish first" in text.stdout
    assert "the exact two-player game" in text.stdout  # two players: the duel fits


def test_two_players_where_the_duel_fits_get_the_duels_advice(four):
    from dicelab.engine.advice.duel import duel_advise
    from dicelab.engine.objectives.duel import duel_table

    rules, game, expected = four
    position = Position(dice=(1, 3), rerolls=1, filled={"ones": 1})
    got = match_advise(game, position, [Sheet({"threes": 3, "pair": 10})], expected=expected)
    assert got.method.startswith("the exact two-player game")
    duel = duel_advise(duel_table(game), expected, (1, 3), 1, Sheet({"ones": 1}),
                       Sheet({"threes": 3, "pair": 10}))  # fmt: skip
    assert [o.key for o in got.advice.options] == [o.key for o in duel.options]
    for a, b in zip(got.advice.options, duel.options, strict=True):
        assert a.value == pytest.approx(b.value, abs=1e-6)  # float32 once cached
    assert got.advice.score_so_far == 1 and got.advice.to_dict()["win_probability"] > 0
    table = match_advise(game, position, [Sheet({"threes": 3, "pair": 10})],
                         expected=expected, method="table")  # fmt: skip
    assert table.method.startswith("the table of this turn")
    with pytest.raises(UserError, match="method duel: for two players"):
        two = [Sheet({"sum": 4}), Sheet({"sum": 5})]
        match_advise(game, position, two, expected=expected, method="duel")
    with pytest.raises(UserError, match="method: got 'best'"):
        match_advise(game, position, [Sheet({"sum": 4})], expected=expected, method="best")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--theirs", "ones=1", "--theirs", "", "--theirs", "", "--theirs", ""], "players: got 5"),
        (["--theirs", "nosuch=2"], "unknown box 'nosuch'"),
        (["--theirs", "ones=1,threes=3"], "opponent 1's sheet has 2 boxes filled"),
        ([], "players: got 1"),
    ],
)
def test_command_mistakes_are_one_line(four_file, args, message):
    res = run_process("match", "advise", four_file, "--dice", "1", "3", *args)
    assert res.returncode == 2 and message in res.stderr, res.stderr
    assert res.stderr.count("\n") == 1


def test_the_best_reply_reacts_to_the_opponents_turns_and_does_better(four):
    # the pass over both sheets is the exact best reply: where the opponent's next
    # turns still matter it is worth more than this turn's table (which does not
    # react to them), and at the last turn of both they are the same
    from dicelab.engine.advice.duel import duel_advise
    from dicelab.engine.objectives.match_exact import reply_table

    rules, game, expected = four
    reply = {seat: reply_table(game, seat) for seat in ("A", "B")}
    cases = [
        ("B", {"ones": 1}, {"threes": 3, "pair": 10}, 1e-3),
        ("A", {"ones": 1, "pair": 10, "sum": 5}, {"sum": 4, "threes": 3, "pair": 0}, 0),
    ]
    for seat, mine, theirs, more in cases:  # fmt: skip
        for dice in ((1, 1), (2, 3), (3, 3)):
            position = Position(dice=dice, rerolls=0, filled=mine)
            got = match_advise(game, position, [Sheet(theirs)], expected=expected, method="table")
            table = got.advice
            best = duel_advise(reply[seat], expected, dice, 0, Sheet(mine), Sheet(theirs))
            by_key = {o.key: o.value for o in table.options}
            for o in best.options:
                assert o.value >= by_key[o.key] - 1e-9
            gap = max(o.value - by_key[o.key] for o in best.options)
            assert (gap > more) if more else gap < 1e-9, (seat, dice, gap)


@pytest.mark.slow
def test_the_evaluation_of_two_players(four):
    from dicelab.engine.objectives.duel import DuelTable, duel_table
    from dicelab.engine.objectives.duel_compare import (
        EXPECTED,
        WIN,
        evaluate_pair,
        expected_outcomes,
    )
    from dicelab.play.match_eval import evaluate_two, win_optimal_chances

    rules, game, expected = four
    from dicelab.engine.objectives.match_exact import lookahead_table

    out = evaluate_two(game, games=20, best_reply=True)
    assert duel_table(game).meta["verdicts"] is None  # only the two pairs asked for
    duel = duel_table(game, compare=True)
    as_a = evaluate_pair(duel, WIN, EXPECTED).value
    assert out["first"]["win_optimal"] == pytest.approx(as_a, abs=1e-9)
    # the two pairs alone give the comparisons' figures to the last bit
    pairs = duel.meta["verdicts"]["pairs"]
    alone = DuelTable(game, duel.space, duel.values, meta={})  # no comparisons kept
    assert win_optimal_chances(alone, expected_outcomes(game, duel.space)) == (
        pairs["win-expected"]["value_for_a"],
        1 - pairs["expected-win"]["value_for_a"],
    )
    assert out["first"]["lookahead"] == lookahead_table(game, "A").start_value
    # the best reply to a points player does at least as well against them as any
    for seat in ("first", "second"):
        assert out[seat]["best_reply"] >= out[seat]["win_optimal"] - 1e-9
        assert out[seat]["best_reply"] >= out[seat]["lookahead"] - 1e-9
    assert out["best_reply_edge"] >= 1 - 1e-9 and out["best_reply_edge"] >= out["recovered_edge"]
    edge = sum(out[s]["lookahead"] - 0.5 for s in ("first", "second"))
    win = sum(out[s]["win_optimal"] - 0.5 for s in ("first", "second"))
    assert out["recovered_edge"] == pytest.approx(edge / win)
    assert 0.9 <= out["agreement"]["share"] <= 1 and out["agreement"]["decisions"] > 100


@pytest.mark.slow
def test_the_evaluate_command(four, four_file):
    res = run_process("match", "evaluate", four_file, "--games", "5", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["method"].startswith("exact") and out["agreement"]["games_per_seat"] == 5
    assert 0 < out["recovered_edge"] <= 1.0 + 1e-9
    text = run_process("match", "evaluate", four_file, "--games", "2")
    assert text.returncode == 0 and "of the win-optimal player's edge" in text.stdout
    bad = run_process("match", "evaluate", four_file, "--players", "7")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "players: got 7, expected 2 to 4" in bad.stderr


def test_a_game_at_a_table_played_reviewed_and_refused(four, four_file, tmp_path):
    from dicelab.cli.match_play import run_match_play
    from dicelab.play.match import MatchGame, review_match

    rules, game, expected = four
    record = tmp_path / "m.json"
    answers = iter(["", "", "", "", "", "", "", "", "3 3", "", "", "", "", "", "", "", ""] * 4)
    code = run_match_play(four_file, opponents=2, seed=7, record=record,
                          read=lambda prompt: next(answers))  # fmt: skip
    assert code == 0
    saved = json.loads(record.read_text())
    assert saved["format"] == "dicelab-match" and saved["players"] == 3
    assert all(len(s["turns"]) == 4 for s in saved["sheets"])
    mine = review_match(expected, saved)
    assert mine and all(d.seat == 1 for d in mine)
    from dicelab.play import history
    from dicelab.play.game import score_of

    kept = [e for e in history.entries() if e.kind == "match" and e.rules == "four"]
    assert kept, "the finished game is kept in the history"
    assert kept[-1].score == score_of(rules, saved["sheets"][0]["turns"])
    assert kept[-1].decisions == len(mine)
    assert kept[-1].total_cost == pytest.approx(sum(d.cost for d in mine), abs=1e-12)
    assert sum(d.cost for d in mine) >= 0
    # each computer followed the advice of its own turn: nothing to review
    for seat in (2, 3):
        theirs = review_match(expected, saved, seat)
        assert theirs and all(not d.mistake for d in theirs)
    # a decision's price is the advice's own figure for that position
    d = next(d for d in mine if d.rerolls_left > 0)
    assert d.best.value >= d.chosen.value
    res = run_process("match", "review", str(record), "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["total_cost"] == pytest.approx(sum(d.cost for d in mine), abs=1e-9)
    with pytest.raises(UserError, match="players: got 5"):
        MatchGame(expected, 5)
    with pytest.raises(UserError, match="seat: got 3, expected 1 to 2"):
        MatchGame(expected, 2, human=3)
    bad = run_process("match", "play", four_file, "--opponents", "4", "--record",
                      str(tmp_path / "x.json"))  # fmt: skip
    assert bad.returncode == 2 and "players: got 5" in bad.stderr
    assert not (tmp_path / "x.json").exists()
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({**saved, "players": 9}))
    res = run_process("match", "review", str(broken))
    assert res.returncode == 2 and "players 9" in res.stderr and res.stderr.count("\n") == 1


def reply_brute(rules, seat: str):
    """The best reply's chance (a win plus half a tie) of ``seat`` at the start, by a
    plain expectimax over both sheets: my throws over ordered dice and every keep by
    position, scored by the categories alone (rules without joker), the other player's
    turn outcomes those of the expected-score strategy played out by
    ``test_distribution.PolicyBrute``."""
    from functools import cache

    policy = PolicyBrute(rules)
    upper = [c.counts_for_bonus for c in rules.categories]
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    full = (1 << len(rules.categories)) - 1
    rolls = [tuple(sorted(d)) for d in itertools.product(range(1, rules.faces + 1),
                                                         repeat=rules.dice)]  # fmt: skip

    def counts(dice):
        return tuple(dice.count(f) for f in range(1, rules.faces + 1))

    def paid(up):
        return bonus if threshold and up >= threshold else 0

    @cache
    def value(me, other, lead, my_turn):
        """My chance, leading by ``lead``; sheets ``(filled, upper, flag)``."""
        if me[0] == full and other[0] == full:
            final = lead + paid(me[1]) - paid(other[1])
            return 1.0 if final > 0 else 0.5 if final == 0 else 0.0
        if my_turn:
            return sum(throw(me, other, lead, d, rules.rolls - 1) for d in rolls) / len(rolls)
        filled, up, y = other
        turn = {}
        for d in rolls:
            for k, p in policy.outcomes(filled, up, y, d, rules.rolls - 1).items():
                turn[k] = turn.get(k, 0.0) + p / len(rolls)
        total = 0.0
        for (c, pts, extra), p in turn.items():
            nxt = (filled | 1 << c, up + (pts if upper[c] else 0), y)
            total += p * value(me, nxt, lead - pts - extra, True)
        return total

    @cache
    def throw(me, other, lead, dice, rerolls):
        filled, up, y = me
        best = -1.0
        for c in range(len(rules.categories)):
            if filled >> c & 1:
                continue
            pts = rules.categories[c].points(counts(dice))
            mine = (filled | 1 << c, up + (pts if upper[c] else 0), y)
            best = max(best, value(mine, other, lead + pts, False))
        if rerolls == 0:
            return best
        for outs in rerolled(rules, dice):
            best = max(best, sum(throw(me, other, lead, d, rerolls - 1) for d in outs) / len(outs))
        return best

    start = (0, 0, 0)
    if seat == "A":
        return value(start, start, 0, True)
    return value(start, start, 0, False)


def test_the_best_reply_agrees_with_a_plain_expectimax_over_both_sheets(four):
    from dicelab.engine.objectives.match_exact import reply_table

    rules, game, expected = four
    assert reply_table(game, "A").start_value == pytest.approx(reply_brute(rules, "A"), abs=1e-9)
    b = 1 - reply_table(game, "B").start_value  # the table holds the waiting player's chance
    assert b == pytest.approx(reply_brute(rules, "B"), abs=1e-9)


def lookahead_eval_brute(rules, seat: str):
    """The chance of ``seat`` playing by the lookahead against a points player, by a
    plain expectimax over both sheets: each of my choices takes the larger chance
    to finish first with both sheets then played for points (``PolicyBrute``'s own
    play), within 1e-6 the larger true chance; every value carries both."""
    from functools import cache

    policy = PolicyBrute(rules)
    upper = [c.counts_for_bonus for c in rules.categories]
    full = (1 << len(rules.categories)) - 1
    faces = range(1, rules.faces + 1)
    rolls = [tuple(sorted(d)) for d in itertools.product(faces, repeat=rules.dice)]

    def counts(dice):
        return tuple(dice.count(f) for f in faces)

    @cache
    def points_chance(me, other, lead):
        total = 0.0
        for (a, _, _), p in policy.remaining(me[0], me[1], 0).items():
            for (b, _, _), q in policy.remaining(other[0], other[1], 0).items():
                d = lead + a - b
                total += p * q * (1.0 if d > 0 else 0.5 if d == 0 else 0.0)
        return total

    def better(new, old):
        return new[0] > old[0] + 1e-6 or (new[0] >= old[0] - 1e-6 and new[1] > old[1])

    @cache
    def value(me, other, lead, my_turn):
        """My true chance, leading by ``lead``; sheets ``(filled, upper)``."""
        if me[0] == full and other[0] == full:
            return points_chance(me, other, lead)  # the bonuses: rows of one score
        if my_turn:
            return sum(throw(me, other, lead, d, rules.rolls - 1)[1] for d in rolls) / len(rolls)
        turn = {}
        for d in rolls:
            for k, p in policy.outcomes(other[0], other[1], 0, d, rules.rolls - 1).items():
                turn[k] = turn.get(k, 0.0) + p / len(rolls)
        total = 0.0
        for (c, pts, extra), p in turn.items():
            nxt = (other[0] | 1 << c, other[1] + (pts if upper[c] else 0))
            total += p * value(me, nxt, lead - pts - extra, True)
        return total

    @cache
    def throw(me, other, lead, dice, rerolls):
        best = None
        for c in range(len(rules.categories)):
            if me[0] >> c & 1:
                continue
            pts = rules.categories[c].points(counts(dice))
            mine = (me[0] | 1 << c, me[1] + (pts if upper[c] else 0))
            pair = (points_chance(mine, other, lead + pts), value(mine, other, lead + pts, False))
            best = pair if best is None or better(pair, best) else best
        if rerolls == 0:
            return best
        for outs in rerolled(rules, dice):
            got = [throw(me, other, lead, d, rerolls - 1) for d in outs]
            pair = (sum(g[0] for g in got) / len(got), sum(g[1] for g in got) / len(got))
            best = pair if better(pair, best) else best
        return best

    start = (0, 0)
    return value(start, start, 0, seat == "A")


def test_the_lookahead_evaluated_exactly_against_a_plain_expectimax(four):
    from dicelab.engine.objectives.match_exact import lookahead_table, reply_table

    rules, game, _ = four
    a = lookahead_table(game, "A").start_value
    b = 1 - lookahead_table(game, "B").start_value  # the table holds the waiting player's
    assert a == pytest.approx(lookahead_eval_brute(rules, "A"), abs=1e-6)
    assert b == pytest.approx(lookahead_eval_brute(rules, "B"), abs=1e-6)
    # never above the best reply to the same player, and above an even game
    assert 0.5 < a <= reply_table(game, "A").start_value + 1e-9
    assert 0.5 < b <= 1 - reply_table(game, "B").start_value + 1e-9


def test_a_game_at_a_table_stopped_and_resumed_ends_as_one_played_straight(four_file, tmp_path):
    from dicelab.cli.match_play import run_match_play

    whole, part = tmp_path / "whole.json", tmp_path / "part.json"
    assert run_match_play(four_file, opponents=1, seed=3, record=whole,
                          read=lambda prompt: "") == 0  # fmt: skip
    answers = iter(["", "", "q"])
    assert run_match_play(four_file, opponents=1, seed=3, record=part,
                          read=lambda prompt: next(answers)) == 0  # fmt: skip
    assert run_match_play(four_file, resume=part, read=lambda prompt: "") == 0
    straight, resumed = json.loads(whole.read_text()), json.loads(part.read_text())
    assert [s["turns"] for s in straight["sheets"]] == [s["turns"] for s in resumed["sheets"]]


@pytest.mark.parametrize("seat", [1, 2])
def test_taking_back_a_box_takes_back_the_turns_played_since(four_file, tmp_path, seat):
    """``u`` after a box: the box, and every computer's turn played after it, come
    back; the dice then fall as they did, so the game ends as one played straight."""
    from dicelab.cli.match_play import run_match_play
    from dicelab.cli.output import Console

    said = Console(record=True, width=150)

    def played(answers: list[str], name: str) -> dict:
        it = iter(answers)
        record = tmp_path / f"{name}-{seat}.json"
        assert run_match_play(four_file, opponents=2, seed=7, record=record, seat=seat,
                              console=said, read=lambda prompt: next(it, "")) == 0  # fmt: skip
        return json.loads(record.read_text())

    straight = played(["u"], "straight")
    assert "nothing to take back: no decision yet" in said.export_text()
    # keeps and a box to the end of the first turn, the other two seats' turns, then
    # back: the box and both turns, then the keeps; then the best to the end
    back = played(["", "", "", "u", "u", "u"], "back")
    out = said.export_text()
    assert "took back" in out and "and 2 turns played since" in out
    assert [s["turns"] for s in back["sheets"]] == [s["turns"] for s in straight["sheets"]]
