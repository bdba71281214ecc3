"""Tiny random rule sets that a plain brute force solves in a fraction of a second."""

from hypothesis import strategies as st

from dicelab.rules import parse_rules


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


def small_rules(variants=False):
    """Tiny rules where the brute force runs in a fraction of a second."""
    return tiny_rules(variants).filter(lambda r: r.faces**r.dice * r.rolls <= 54)


@st.composite
def bonus_rules(draw):
    """Rules with an upper bonus and a few layers, where many states pass the bonus
    (three dice of four faces: a table of a few thousand values); a served bonus and
    a box whose points count more, at times."""
    faces = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4, unique=True))
    cats = [{"id": f"f{f}", "kind": "face", "face": f, "upper": True} for f in faces]
    cats.append({"id": "sum", "kind": "chance"})
    if draw(st.booleans()):
        cats.append({"id": "run", "kind": "straight", "length": 3, "score": 20})
        if draw(st.booleans()):
            cats[-1]["served"] = draw(st.integers(1, 20))  # more when made on the first throw
    if draw(st.booleans()):
        draw(st.sampled_from(cats))["factor"] = draw(st.integers(2, 3))
    best = 3 * sum(faces)
    data = {
        "name": "bonus",
        "dice": 3,
        "faces": 4,
        "rolls": draw(st.integers(1, 2)),
        "categories": cats,
        "upper_bonus": {"threshold": draw(st.integers(2, best)), "points": draw(st.integers(1, 9))},
    }
    if draw(st.booleans()):
        for cat in cats:
            cat.pop("served", None)  # served bonuses do not combine with a joker
        cats.append({"id": "all", "kind": "of_a_kind", "count": 3, "score": 50})
        data["extra_yahtzee"] = {
            "category": "all",
            "bonus": draw(st.sampled_from([0, 100])),
            "joker": draw(st.sampled_from(["free", "forced", "none"])),
        }
    return parse_rules(data)
