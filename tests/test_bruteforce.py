"""The fast solver against a plain expectimax on tiny random rule sets.

The brute force below shares nothing with the solver but the category scoring
functions (tested on their own in test_rules.py): it throws ordered dice, keeps
any subset of dice by position, tracks the raw upper total and which boxes hold
points, and applies the extra-bonus and joker rules as SPEC words them, served
bonuses on the first throw and boxes that pay only once another holds points.
"""

from functools import cache
from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dicelab.engine.objectives.expected import solve_expected
from dicelab.rules import parse_rules


def box_choices(rules):
    """``choices(filled, yflag, dice)``: (box, points, extra) for every box the final
    dice may go in, as SPEC words the joker and extra-bonus rules."""
    cats = rules.categories
    n = len(cats)
    faces = rules.faces
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    joker = rules.joker
    extra_pts = rules.extra_bonus

    def counts(dice):
        c = [0] * faces
        for d in dice:
            c[d - 1] += 1
        return tuple(c)

    def joker_points(c, dice):
        cat = cats[c]
        natural = cat.points(counts(dice))
        if upper[c] or natural > 0 or cat.kind in ("face", "chance"):
            return natural
        fixed = getattr(cat, "score", "all")
        return (fixed if isinstance(fixed, int) else sum(dice)) * cat.factor

    ids = [c.id for c in cats]

    def plain_points(c, dice, holds, first):
        """Box ``c``'s points for the dice, as the rules text says."""
        cat = cats[c]
        needs = getattr(cat, "requires", None)
        if needs is not None and not holds >> ids.index(needs) & 1:
            return 0
        pts = cat.points(counts(dice))
        if first and getattr(cat, "served", 0) and cat.matches(counts(dice)):
            pts += cat.served * cat.factor  # part of the box's points: multiplied too
        return pts

    def choices(filled, yflag, dice, holds=0, first=False):
        """(box, points, extra) for every box the final dice may go in; ``holds``:
        the boxes holding points; ``first``: the dice are the turn's first throw."""
        open_boxes = [c for c in range(n) if not filled >> c & 1]
        same = len(set(dice)) == 1
        y_filled = ybox >= 0 and filled >> ybox & 1
        normal = [(c, plain_points(c, dice, holds, first)) for c in open_boxes]
        if not (same and y_filled):
            return [(c, p, 0) for c, p in normal]
        extra = extra_pts if yflag else 0
        match = [c for c in range(n) if cats[c].kind == "face" and cats[c].face == dice[0]]
        match_open = bool(match) and not filled >> match[0] & 1
        if joker in ("free", "free-if-fifty"):
            if match_open or (joker == "free-if-fifty" and not yflag):
                return [(c, p, extra) for c, p in normal]
            return [(c, joker_points(c, dice), extra) for c in open_boxes]
        if joker == "forced":
            if match_open:
                return [(match[0], cats[match[0]].points(counts(dice)), extra)]
            lower = [c for c in open_boxes if not upper[c]]
            if lower:
                return [(c, joker_points(c, dice), extra) for c in lower]
            return [(c, p, extra) for c, p in normal]
        return [(c, p, extra) for c, p in normal]

    return choices


def brute_force(rules) -> float:
    cats = rules.categories
    n = len(cats)
    faces = rules.faces
    dice_n = rules.dice
    upper = [c.counts_for_bonus for c in cats]
    ybox = rules.yahtzee_index
    threshold = rules.upper_bonus.threshold if rules.upper_bonus else 0
    bonus = rules.upper_bonus.points if rules.upper_bonus else 0
    choices = box_choices(rules)

    saving = rules.save_unused_throws
    cap = rules.max_saved_throws if rules.max_saved_throws is not None else 10**9

    @cache
    def game_value(filled, up_total, holds, saved=0):
        if filled == (1 << n) - 1:
            return bonus if threshold and up_total >= threshold else 0.0
        return turn_start(filled, up_total, holds, saved)

    def turn_start(filled, up_total, holds, saved):
        total = 0.0
        outcomes = list(product(range(1, faces + 1), repeat=dice_n))
        for dice in outcomes:
            total += throw_value(filled, up_total, holds, tuple(sorted(dice)),
                                 rules.rolls - 1 + saved, rules.rolls - 1 + saved)  # fmt: skip
        return total / len(outcomes)

    @cache
    def throw_value(filled, up_total, holds, dice, rerolls, most):
        """Best value of the dice with ``rerolls`` left in a turn that had ``most``."""
        best = -1.0
        yflag = 1 if ybox >= 0 and holds >> ybox & 1 else 0
        first = rerolls == most
        # unused throws go to the next turn when the rules save them
        keep_for_later = min(rerolls, cap) if saving else 0
        for c, pts, extra in choices(filled, yflag, dice, holds, first):
            up2 = up_total + (pts if upper[c] else 0)
            holds2 = holds | (1 << c if pts > 0 else 0)
            best = max(best, pts + extra + game_value(filled | 1 << c, up2, holds2,
                                                      keep_for_later))  # fmt: skip
        if rerolls == 0:
            return best
        for keep_bits in range(1 << dice_n):
            kept = [dice[i] for i in range(dice_n) if keep_bits >> i & 1]
            free = dice_n - len(kept)
            if free == 0:
                continue
            outs = list(product(range(1, faces + 1), repeat=free))
            avg = 0.0
            for new in outs:
                avg += throw_value(filled, up_total, holds, tuple(sorted(kept + list(new))),
                                   rerolls - 1, most)  # fmt: skip
            best = max(best, avg / len(outs))
        return best

    return game_value(0, 0, 0, 0)


def score_strategy():
    return st.one_of(st.integers(0, 30), st.sampled_from(["all", "matching"]))


@st.composite
def tiny_rules(draw, variants=False):
    """A tiny random rule set; with ``variants``, also served bonuses, pairs boxes
    that take fewer pairs, and an all-alike box that requires another."""
    dice = draw(st.integers(2, 3))
    faces = draw(st.integers(3, 4))
    n_cat = draw(st.integers(2, 3))
    cats = []
    for i in range(n_cat):
        kind = draw(st.sampled_from(["face", "chance", "of_a_kind", "pairs", "straight", "groups"]))
        cat = {"id": f"c{i}", "kind": kind}
        if kind == "face":
            cat["face"] = draw(st.integers(1, faces))
            cat["upper"] = draw(st.booleans())
        elif kind == "chance":
            cat["upper"] = draw(st.booleans())  # any box may count towards the bonus
        elif kind == "of_a_kind":
            cat["count"] = draw(st.integers(2, dice))
            cat["score"] = draw(score_strategy())
        elif kind == "pairs":
            cat["pairs"] = 1
            cat["same_face_ok"] = draw(st.booleans())
            cat["score"] = draw(score_strategy())
            if variants and dice >= 3 and draw(st.booleans()):
                cat["pairs"] = 2 if dice >= 4 else 1
                cat["at_least"] = 1
        elif kind == "straight":
            if draw(st.booleans()):
                cat["length"] = draw(st.integers(2, min(dice, faces)))
            else:
                size = draw(st.integers(1, dice))
                cat["sets"] = [
                    sorted(draw(st.lists(st.integers(1, faces), min_size=size, max_size=size)))
                ]
            cat["score"] = draw(score_strategy())
        elif kind == "groups":
            shapes = [s for s in ([1], [2], [2, 1], [1, 1], [3]) if sum(s) <= dice]
            cat["sizes"] = draw(st.sampled_from(shapes))
            cat["distinct"] = draw(st.booleans())
            cat["score"] = draw(score_strategy())
        if variants and kind not in ("face", "chance") and draw(st.booleans()):
            cat["served"] = draw(st.integers(1, 20))
        cats.append(cat)
    data = {
        "name": "tiny",
        "dice": dice,
        "faces": faces,
        "rolls": draw(st.integers(1, 3)),
        "categories": cats,
    }
    if draw(st.booleans()):
        threshold, points = draw(st.integers(1, 12)), draw(st.integers(1, 40))
        data["upper_bonus"] = {"threshold": threshold, "points": points}
    if draw(st.booleans()):
        data["categories"].append({"id": "all", "kind": "of_a_kind", "count": dice, "score": 50})
        data["extra_yahtzee"] = {
            "category": "all",
            "bonus": draw(st.sampled_from([0, 100])),
            "joker": draw(st.sampled_from(["free", "forced", "free-if-fifty", "none"])),
        }
        if len(data["categories"]) > 3:
            data["categories"] = data["categories"][-3:]
    if variants and "extra_yahtzee" not in data and draw(st.booleans()):
        data["categories"] = data["categories"][:2] + [
            {"id": "alike", "kind": "of_a_kind", "count": dice, "score": draw(st.integers(0, 30))},
            {"id": "again", "kind": "of_a_kind", "count": dice, "score": 60,
             "requires": "alike"},
        ]  # fmt: skip
    if variants and "extra_yahtzee" in data:
        for cat in data["categories"]:
            cat.pop("served", None)  # served bonuses do not combine with a joker
    for cat in data["categories"]:
        if cat.get("upper") and "served" in cat:
            del cat["served"]
    if variants and draw(st.booleans()):
        cat = draw(st.sampled_from(data["categories"]))
        cat["factor"] = draw(st.integers(2, 3))  # a box whose points count double or triple
    if (
        variants and len(data["categories"]) <= 2 and "upper_bonus" not in data
        and "extra_yahtzee" not in data and draw(st.booleans())
    ):  # fmt: skip
        data["columns"] = [1, draw(st.integers(2, 3))]
    return parse_rules(data)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules())
def test_solver_agrees_with_brute_force(rules):
    fast = solve_expected(rules).expected_score
    slow = brute_force(rules)
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tiny_rules(variants=True))
def test_solver_agrees_with_brute_force_on_variants(rules):
    slow = brute_force(rules)
    fast = solve_expected(rules, precision="double").expected_score
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))
    # single-precision turns, each value held relative to a double base
    fast = solve_expected(rules).expected_score
    assert abs(fast - slow) < 1e-6 * max(1.0, abs(slow))


@st.composite
def saving_rules(draw):
    """Tiny rules where unused throws are kept for later turns (a cap or none)."""
    rules = draw(tiny_rules().filter(lambda r: r.faces**r.dice <= 27 and r.n_categories <= 3))
    data = rules.as_data()
    data["save_unused_throws"] = True
    data["rolls"] = draw(st.integers(1, 2))
    if draw(st.booleans()):
        data["max_saved_throws"] = draw(st.integers(1, 2))
    return parse_rules(data)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(saving_rules())
def test_saved_throws_agree_with_brute_force(rules):
    from dicelab.engine.objectives.saved import solve_saved

    fast = solve_saved(rules).expected_score
    slow = brute_force(rules)
    assert abs(fast - slow) < 1e-9 * max(1.0, abs(slow))


def test_brute_force_on_a_hand_example():
    # one die, two faces, one throw, one box scoring the die: 1.5
    r = parse_rules(
        {"name": "coin", "dice": 1, "faces": 2, "rolls": 1,
         "categories": [{"id": "s", "kind": "chance"}]}
    )  # fmt: skip
    assert brute_force(r) == 1.5
    assert solve_expected(r).expected_score == 1.5


def test_joker_rules_on_a_small_game():
    # the four joker modes give distinct values on one fixed small game; solver and
    # brute force agree on each
    seen = set()
    for joker in ["free", "forced", "free-if-fifty", "none"]:
        r = parse_rules(
            {
                "name": "j",
                "dice": 3,
                "faces": 3,
                "rolls": 2,
                "upper_bonus": {"threshold": 6, "points": 10},
                "categories": [
                    {"id": "ones", "kind": "face", "face": 1},
                    {"id": "run", "kind": "straight", "length": 3, "score": 20},
                    {"id": "all", "kind": "of_a_kind", "count": 3, "score": 30},
                ],
                "extra_yahtzee": {"category": "all", "bonus": 50, "joker": joker},
            }
        )
        fast = solve_expected(r).expected_score
        assert abs(fast - brute_force(r)) < 1e-9
        seen.add(round(fast, 9))
    assert len(seen) >= 3
