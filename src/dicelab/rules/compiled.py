"""Rules turned into the integer arrays the compiled solvers read.

A :class:`CompiledRules` holds, for one rule set, the score of every category for
every roll, the scores under the joker rule, which boxes count towards the upper
bonus, and, for every set of filled boxes, the largest upper total it can hold
(capped at the bonus threshold). It is built once per rule set and shared by all
objectives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from dicelab.dice import DiceSpace, dice_space
from dicelab.rules import placement
from dicelab.rules.model import ChanceCategory, FaceCategory, OfAKindCategory, Rules

JOKER_CODES = {"none": 0, "free": 1, "forced": 2, "free-if-fifty": 3}


@dataclass(frozen=True)
class CompiledRules:
    """Score tables and state-space facts of a rule set.

    Attributes
    ----------
    rules : Rules
        The rule set itself.
    space : DiceSpace
        Rolls and keeps of its dice.
    score : ndarray, shape (n_categories, n_rolls)
        Points of each category for each roll.
    joker_score : ndarray, shape (n_categories, n_rolls)
        Points when an all-same roll is played as a joker: fixed-score boxes give
        their points and sum boxes the sum of the dice; upper boxes score as usual.
    roll_face : ndarray, shape (n_rolls,)
        For an all-same roll the face index (0-based), else -1.
    upper : ndarray of bool, shape (n_categories,)
        Boxes whose points add to the upper total.
    upper_box_of_face : ndarray, shape (faces,)
        The face box of each face (``-1`` if the rules have none); the joker rules
        ask whether it is filled.
    threshold : int
        Upper total earning the bonus, 0 when the bonus does not exist (then the
        upper total is not tracked at all).
    n_upper : int
        Number of upper-total lanes: ``threshold + 1`` or 1.
    n_flag : int
        2 when the state needs the "all-same box holds its points" flag, else 1.
    served_score : ndarray, shape (n_categories, n_rolls)
        Points of each category for each roll made on the turn's first throw: the
        served bonus added where the pattern is met (``score`` itself without one).
    requires_mask : int
        Bit mask of the boxes that pay only while the flag box holds points.
    """

    rules: Rules
    space: DiceSpace
    score: np.ndarray
    joker_score: np.ndarray
    roll_face: np.ndarray
    upper: np.ndarray
    upper_box_of_face: np.ndarray
    threshold: int
    n_upper: int
    n_flag: int
    served_score: np.ndarray
    requires_mask: int = 0

    @property
    def n_categories(self) -> int:
        return self.rules.n_categories

    def turn_state(self, upper_total: int, flag: int = 0) -> tuple[int, int]:
        """The table coordinates ``(u, y)`` of an upper total and a flag.

        The upper total only matters through the bonus, so it is capped at the
        threshold (and is 0 where the rules have no bonus); the flag is kept only
        where the rules track it (``n_flag == 2``), else 0.
        """
        u = min(upper_total, self.threshold) if self.threshold > 0 else 0
        return u, (flag if self.n_flag == 2 else 0)

    @cached_property
    def derived(self) -> dict:
        """What the solvers work out from this game alone (its bounds, row layouts),
        by name: worked out once per compiled game, however many tables ask."""
        return {}

    @cached_property
    def distinct_scores(self) -> tuple[np.ndarray, np.ndarray]:
        """Distinct points of each box, and each roll's position among them.

        Returns ``(values, index)``: ``values[c, j]`` is the ``j``-th distinct
        score of box ``c`` (padded with the last one), ``index[c, r]`` the position
        of roll ``r``'s score. The kernels value each distinct score once per state
        instead of once per roll.
        """
        return _distinct(self.score)

    @cached_property
    def served_distinct(self) -> tuple[np.ndarray, np.ndarray]:
        """:attr:`distinct_scores` of the first-throw table :attr:`served_score`."""
        return _distinct(self.served_score)

    @property
    def has_served(self) -> bool:
        """Whether a box pays more on the first throw than after it."""
        return self.rules.has_served

    @property
    def yahtzee(self) -> int:
        """The box whose "holds points" flag the state tracks (the all-same box of
        the extra rules, or the box others require), or -1."""
        return self.rules.flag_index

    @property
    def joker_code(self) -> int:
        return JOKER_CODES[self.rules.joker]

    @property
    def placement_code(self) -> int:
        """What :func:`dicelab.rules.placement.box_rule` takes as ``joker``: the joker
        mode, the forced order and the joker that needs no filled all-alike box, with
        the boxes that need the flag box in the bits above them."""
        rules = self.rules
        return placement.placement_code(
            self.joker_code, self.requires_mask, rules.forced_order, rules.joker_always
        )

    @property
    def full_mask(self) -> int:
        return (1 << self.n_categories) - 1

    @cached_property
    def possible_points(self) -> tuple[frozenset[int], ...]:
        """For every box, each score it can hold, with or without a joker."""
        both = np.concatenate([self.score, self.joker_score, self.served_score], axis=1)
        return tuple(frozenset(row.tolist()) for row in both)

    @cached_property
    def upper_subsets(self) -> tuple[np.ndarray, np.ndarray]:
        """The reach of every subset of the upper boxes, and each mask's subset.

        Returns ``(reach, subset)``: row ``reach[j]`` holds the upper totals the
        filled upper boxes ``j`` can give (capped at the threshold), and
        ``subset[mask]`` is the row of a set of filled boxes. Figures per mask are
        taken per subset and spread with ``subset``, so no temporary of the size
        of the whole value table is made.
        """
        c_count = self.n_categories
        cap = self.threshold
        ups = [c for c in range(c_count) if self.upper[c]] if cap > 0 else []
        reach = np.zeros((1 << len(ups), self.n_upper), dtype=np.bool_)
        reach[0, 0] = True
        scores = [sorted_distinct(self.score[c]) for c in ups]
        for bits in range(1, 1 << len(ups)):
            low = (bits & -bits).bit_length() - 1
            prev = np.flatnonzero(reach[bits ^ (1 << low)])
            reach[bits, np.minimum(cap, prev[:, None] + scores[low][None, :]).ravel()] = True
        masks = np.arange(1 << c_count)
        subset = np.zeros(1 << c_count, dtype=np.int64)
        for j, c in enumerate(ups):
            subset |= ((masks >> c) & 1) << j
        return reach, subset

    @cached_property
    def upper_reach(self) -> np.ndarray:
        """For every set of filled boxes, a 0/1 row of the upper totals it can hold.

        Shape ``(2**n_categories, n_upper)``; totals are capped at the threshold.
        """
        reach, subset = self.upper_subsets
        return reach[subset]

    @cached_property
    def upper_extent(self) -> np.ndarray:
        """For every set of filled boxes, one more than its largest upper total."""
        reach, subset = self.upper_subsets
        idx = np.arange(self.n_upper)[None, :]
        per_subset = (np.where(reach, idx, -1).max(axis=1) + 1).astype(np.int64)
        return per_subset[subset]

    def flags_of(self, mask: int) -> int:
        """How many flag values a set of filled boxes can have (1 or 2)."""
        if self.n_flag == 1 or not (mask >> self.yahtzee) & 1:
            return 1
        return 2

    @cached_property
    def n_states(self) -> int:
        """Number of reachable turn-start states (filled boxes, upper total, flag);
        under forced order only the sheets filled from the top."""
        reach, subset = self.upper_subsets
        masks = np.arange(1 << self.n_categories)
        if self.rules.forced_order:  # the boxes in order: the sheets filled from the top
            masks = (1 << np.arange(self.n_categories + 1)) - 1
        counts = reach.sum(axis=1)[subset[masks]]
        total = int(counts.sum())
        if self.n_flag == 2:
            with_y = ((masks >> self.yahtzee) & 1).astype(bool)
            total += int(counts[with_y].sum())
        return total


def sorted_distinct(x: np.ndarray) -> np.ndarray:
    """``np.unique(x)`` without importing ``numpy.ma`` (25 to 30 ms of a 0.3 s command)."""
    s = np.sort(np.ravel(x))
    return s[np.concatenate(([True], s[1:] != s[:-1]))] if s.size else s


def _distinct(score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c_count, n_rolls = score.shape
    uniq = [sorted_distinct(score[c]) for c in range(c_count)]
    width = max(len(u) for u in uniq)
    values = np.zeros((c_count, width), dtype=np.int64)
    index = np.zeros((c_count, n_rolls), dtype=np.int64)
    for c, u in enumerate(uniq):
        values[c, : len(u)] = u
        values[c, len(u) :] = u[-1]
        index[c] = np.searchsorted(u, score[c])
    return values, index


#: The rule sets compiled last, by the identity of their Rules object (a command or a
#: web request compiles its rules once, however many tables it asks for).
_COMPILED: OrderedDict[int, CompiledRules] = OrderedDict()
_COMPILED_KEPT = 16
_COMPILED_LOCK = threading.Lock()


def compile_rules(rules: Rules) -> CompiledRules:
    """The score tables of a rule set, built once per Rules object and then shared."""
    with _COMPILED_LOCK:
        found = _COMPILED.get(id(rules))
        if found is not None and found.rules is rules:
            _COMPILED.move_to_end(id(rules))
            return found
    game = _compile(rules)
    with _COMPILED_LOCK:
        _COMPILED[id(rules)] = game
        while len(_COMPILED) > _COMPILED_KEPT:
            _COMPILED.popitem(last=False)
    return game


def _box_constants(cat) -> tuple:
    """What :func:`_compile` reads of a box for every roll, read once: the box, its
    served points (with its factor), whether a joker roll scores its own points there
    (face boxes, chance, upper boxes), and the points it scores under the joker rule."""
    served_pts = getattr(cat, "served", 0) * cat.factor
    keeps_points = isinstance(cat, (FaceCategory, ChanceCategory)) or cat.counts_for_bonus
    return cat, served_pts, keeps_points, getattr(cat, "score", "all")


def _compile(rules: Rules) -> CompiledRules:
    """Build the score tables of a rule set."""
    space: DiceSpace = dice_space(rules.dice, rules.faces)
    n_rolls = space.n_rolls
    c_count = rules.n_categories
    score = np.zeros((c_count, n_rolls), dtype=np.int64)
    joker = np.zeros((c_count, n_rolls), dtype=np.int64)
    served = np.zeros((c_count, n_rolls), dtype=np.int64)
    roll_face = np.full(n_rolls, -1, dtype=np.int64)
    boxes = [_box_constants(cat) for cat in rules.categories]
    for ri, k in enumerate(space.rolls):
        counts = tuple(int(x) for x in space.counts[k])
        for f, n in enumerate(counts):
            if n == rules.dice:
                roll_face[ri] = f
        total = sum((f + 1) * n for f, n in enumerate(counts))
        for c, (cat, served_pts, keeps_points, fixed) in enumerate(boxes):
            pts = cat.points(counts)
            score[c, ri] = pts
            served[c, ri] = pts + served_pts if served_pts and cat.matches(counts) else pts
            if keeps_points or pts > 0:
                joker[c, ri] = pts
            else:
                joker[c, ri] = (fixed if isinstance(fixed, int) else total) * cat.factor
    upper = np.array(rules.upper_mask, dtype=np.bool_)
    box_of_face = np.full(rules.faces, -1, dtype=np.int64)
    for c, cat in enumerate(rules.categories):
        if isinstance(cat, FaceCategory) and box_of_face[cat.face - 1] < 0:
            box_of_face[cat.face - 1] = c
    threshold = rules.bonus_threshold
    if threshold > 0:
        most = int(sum(score[c].max() for c in range(c_count) if upper[c]))
        if most < threshold:
            threshold = 0  # the bonus can never be earned: no need to track the total
    n_upper = threshold + 1 if threshold > 0 else 1
    requires_mask = 0
    for c, cat in enumerate(rules.categories):
        if getattr(cat, "requires", None) is not None:
            requires_mask |= 1 << c
    needs_flag = rules.flag_index >= 0 and (
        rules.extra_bonus > 0 or rules.joker == "free-if-fifty" or requires_mask != 0
    )
    return CompiledRules(
        rules=rules,
        space=space,
        score=score,
        joker_score=joker,
        roll_face=roll_face,
        upper=upper,
        upper_box_of_face=box_of_face,
        threshold=threshold,
        n_upper=n_upper,
        n_flag=2 if needs_flag else 1,
        served_score=served,
        requires_mask=requires_mask,
    )


def refuse_variants(
    game: CompiledRules, what: str, requires: bool = False, served: bool = True
) -> None:
    """Stop with one line where a solver does not handle a rule of ``game``: throws
    saved for later turns; served bonuses unless ``served`` is false; with
    ``requires`` also boxes that need another box.

    Raises
    ------
    UserError
        Naming the rule set, the rule and what does handle it.
    """
    from dicelab.errors import UserError

    rules = game.rules
    if rules.save_unused_throws:
        raise UserError(
            f"{rules.name}: {what} does not handle unused throws saved for later turns yet; "
            f"`dicelab solve`, `advise` and `simulate` do"
        )
    if not served:
        return
    if rules.has_served:
        rule = "served bonuses (points for a hand made on the first throw)"
    elif requires and game.requires_mask:
        rule = "boxes that pay only once another box holds points"
    else:
        return
    raise UserError(
        f"{rules.name}: {what} does not handle {rule} yet; the expected-score, target, "
        f"exact, distribution, advice and simulation commands do"
    )


def as_game(rules: Rules | CompiledRules | str | Path) -> CompiledRules:
    """The compiled game of ``rules``: compiled rules as they are, rules compiled, a
    built-in name, a rules file or TOML text loaded and compiled.

    Solvers call this once at their entry, so a caller that passes a compiled game
    down never has the rules loaded or compiled again.
    """
    if isinstance(rules, CompiledRules):
        return rules
    if not isinstance(rules, Rules):
        from dicelab.rules import load_rules

        rules = load_rules(rules)
    return compile_rules(rules)


def all_same_box(rules: Rules) -> int:
    """Index of the all-dice-alike box (the extra-bonus box, else the first one), or -1."""
    if rules.yahtzee_index >= 0:
        return rules.yahtzee_index
    for i, cat in enumerate(rules.categories):
        if isinstance(cat, OfAKindCategory) and cat.count == rules.dice:
            return i
    return -1
