"""Request and response bodies of the JSON API, with their limits.

The limits keep garbage cheap to refuse: every list, mapping and string has a
bounded size, integers are strict (``true`` or ``3.5`` is not a die), and the
meaning of a position (seven dice, a face of 9, an impossible upper total) is
checked by :func:`dicelab.engine.advice.single.advise`, which names what is wrong.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
    create_model,
)

from dicelab.dice import MAX_DICE
from dicelab.engine import registry

if TYPE_CHECKING:  # the names come from the registry at run time
    Objective = str
    TableKind = str
else:
    #: What a player plays for (the registry's objectives of the page's *Play for* menu).
    Objective = Literal.__getitem__(tuple(o.name for o in registry.menu()))
    #: The tables the server solves: every objective of the registry.
    TableKind = Literal.__getitem__(tuple(registry.OBJECTIVES))
RulesName = Annotated[str, StringConstraints(min_length=1, max_length=80)]
BoxId = Annotated[str, StringConstraints(min_length=1, max_length=40)]
Points = Annotated[StrictInt, Field(ge=0, le=1_000_000)]


class _Request(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _param_field(p: registry.Param, strict: bool = True):
    """A request field of an objective's parameter (from the registry), null by default
    (``strict``: a JSON number; else also the text of a query string)."""
    owners = " or ".join(f"`{o.name}`" for o in registry.OBJECTIVES.values() if o.param(p.name))
    kind: Any  # a field's type, made from the parameter's kind and range
    if p.kind is int:
        low = -1_000_000 if p.low is None else p.low
        high = 1_000_000 if p.high is None else min(p.high, 1_000_000)
        kind = Annotated[StrictInt if strict else int, Field(ge=low, le=high)]
    else:
        kind = Annotated[float, Field(ge=p.low, le=p.high, allow_inf_nan=False)]
    return (kind | None, Field(None, description=f"{p.help[:1].upper()}{p.help[1:]} "
                                                f"(objective {owners} only)."))  # fmt: skip


if TYPE_CHECKING:  # the models made from the registry below, as mypy sees them

    class _ObjectiveParams(_Request):
        target: int | None = None
        theta: float | None = None

    class ProgressQuery(BaseModel):
        objective: TableKind = "expected"
        target: int | None = None
        theta: float | None = None

else:
    #: The parameters of every objective (the target score, theta), as request fields.
    _ObjectiveParams = create_model(
        "_ObjectiveParams",
        __base__=_Request,
        **{p.name: _param_field(p) for p in registry.key_params()},
    )

    #: The query of a table's progress: its objective and the parameters that name it.
    ProgressQuery = create_model(
        "ProgressQuery",
        objective=(TableKind, "expected"),
        **{p.name: _param_field(p, strict=False) for p in registry.key_params()},
    )


class ObjectiveParam(BaseModel):
    name: str
    kind: str = Field(description="`int` or `float`.")
    help: str
    low: float | None
    high: float | None
    default: float | None


class ObjectiveInfo(BaseModel):
    """An objective a player may play for (see the registry in the docs)."""

    name: str
    summary: str
    unit: str = Field(description="How its values read: `points` or `chance`.")
    value_name: str = Field(description="What a value is, the parameters in braces.")
    menu: str | None = Field(description="Its words in the page's *Play for* menu.")
    params: list[ObjectiveParam]


class AdviceRequest(_ObjectiveParams):
    """A position: the rules, the scorecard, the dice showing and the rerolls left."""

    rules: RulesName = Field(
        "yahtzee", description="A built-in rule set name or the id of an uploaded one."
    )
    dice: list[Annotated[StrictInt, Field(ge=-1000, le=1000)]] = Field(
        max_length=MAX_DICE + 8,
        description="The dice showing, faces from 1, in any order.",
        examples=[[3, 3, 6, 5, 6]],
    )
    rerolls_left: Annotated[StrictInt, Field(ge=0, le=100)] = Field(
        description="Rerolls still allowed this turn: rolls - 1 after the first throw, "
        "0 after the last one (then the options are the boxes).",
        examples=[2],
    )
    filled: dict[BoxId, Points | None] = Field(
        default_factory=dict,
        max_length=64,
        description="Filled boxes: box id to the points written in it "
        "(null when unknown; then give upper_total).",
        examples=[{"ones": 3, "full_house": 25}],
    )
    upper_total: Points | None = Field(
        None, description="Upper-section points so far; derived from `filled` when omitted."
    )
    extra_bonuses: Annotated[StrictInt, Field(ge=0, le=1000)] = Field(
        0, description="Extra all-same bonuses already earned."
    )
    objective: Objective = Field(
        "expected",
        description="What to play for: `expected` the highest average final score, "
        "`target` the best chance of a final score of at least `target`, `win` the best "
        "chance to beat a player who plays for the highest average (a tie counts half), "
        "`risk` the best expected utility of the final score for a risk attitude `theta` "
        "(valued as a sure score in points).",
    )
    explain: StrictBool = Field(
        False,
        description="Say why for every option (`explain`): where its expected final score "
        "comes from (the first such request of a rule set solves its split by box), or "
        "what it does to the chance.",
    )
    wait_spread: StrictBool = Field(
        False,
        description="Wait for every option's spread (`sd`) where its table is not ready "
        "yet; by default such advice comes at once with `sd` null, and the table is "
        "worked out meanwhile for the next request.",
    )


class DistributionRequest(_Request):
    """A scorecard at the start of a turn, before the dice are thrown."""

    rules: RulesName = Field("yahtzee", description="A built-in rule set name or an upload id.")
    filled: dict[BoxId, Points | None] = Field(default_factory=dict, max_length=64)
    upper_total: Points | None = None
    extra_bonuses: Annotated[StrictInt, Field(ge=0, le=1000)] = 0


class OutlookRequest(_ObjectiveParams, DistributionRequest):
    """A scorecard at the start of a turn, and what the player plays for."""

    objective: Objective = "expected"


class OutlookOut(BaseModel):
    rules: str
    objective: Objective
    target: int | None
    theta: float | None = None
    score_so_far: int = Field(description="Points scored so far, without the upper bonus.")
    value: float = Field(
        description="With the best play for the objective from here: the expected final "
        "score, or the chance of reaching the target, or the chance to win."
    )
    expected_final_score: float | None = Field(
        description="Objective `expected`: the expected final score (the same as `value`)."
    )
    sd: float | None = Field(
        description="Objective `expected`: the standard deviation of the final score."
    )


class DistributionOut(BaseModel):
    rules: str
    score_so_far: int
    mean: float = Field(description="Expected final score (the expected-score optimum).")
    sd: float = Field(description="Standard deviation of the final score.")
    lowest: int = Field(description="Lowest final score with a chance above zero.")
    highest: int = Field(description="Highest final score with a chance above zero.")
    pmf: list[float] = Field(description="P(final score = lowest + i), i = 0 .. highest - lowest.")
    percentiles: dict[str, int] = Field(
        description="Percentile (1, 5, 10, 25, 50, 75, 90, 95, 99) to final score."
    )


class SheetIn(_Request):
    """One player's scorecard: filled boxes with their points, extra bonuses earned."""

    filled: dict[BoxId, Points] = Field(default_factory=dict, max_length=64)
    extra_bonuses: Annotated[StrictInt, Field(ge=0, le=1000)] = 0


class DuelAdviceRequest(_Request):
    """A position of the two-player game: the mover's dice, their sheet and the other's."""

    rules: RulesName = Field(description="A built-in rule set name or an upload id.")
    dice: list[Annotated[StrictInt, Field(ge=-1000, le=1000)]] = Field(max_length=MAX_DICE + 8)
    rerolls_left: Annotated[StrictInt, Field(ge=0, le=100)]
    mine: SheetIn = Field(description="The sheet of the player to move.")
    theirs: SheetIn = Field(description="The other player's sheet.")
    explain: StrictBool = Field(
        False,
        description="Give each option's expected final lead, both playing to win (its "
        "table is worked out the first time: minutes for the largest games).",
    )


class DuelOutlookRequest(_Request):
    """Both sheets between turns."""

    rules: RulesName
    mine: SheetIn
    theirs: SheetIn
    my_seat: Literal["A", "B"] = Field(description="A moves first, B second.")


class MatchAdviceRequest(_Request):
    """A position at a table of two to four: my dice, my sheet and every other sheet."""

    rules: RulesName = Field(description="A built-in rule set name or an upload id.")
    dice: list[Annotated[StrictInt, Field(ge=-1000, le=1000)]] = Field(max_length=MAX_DICE + 8)
    rerolls_left: Annotated[StrictInt, Field(ge=0, le=100)]
    mine: SheetIn = Field(description="The sheet of the player to move.")
    theirs: list[SheetIn] = Field(
        min_length=1,
        max_length=3,
        description="Every other player's sheet (one to three). At my turn each has "
        "filled as many boxes as I have, or one more.",
    )
    method: Literal["auto", "lookahead"] = Field(
        "auto",
        description="`lookahead`: this turn played to finish first against players who "
        "play for points, the rest valued as played for points; `auto`: with one "
        "opponent, the exact two-player game where this server can solve it (both "
        "playing to win), else the lookahead.",
    )


class OpponentOut(BaseModel):
    expected_final_score: float = Field(description="If they play for points from here.")
    best_final_score: int = Field(description="The most they can still finish with.")


class MatchAdviceOut(BaseModel):
    rules: str
    objective: Literal["match"]
    players: int
    method: str = Field(description="How the chances were worked out, in words.")
    dice: list[int]
    rerolls_left: int
    my_score: int = Field(description="Points so far, without the upper bonus.")
    target: None = None
    value: float = Field(description="My chance to finish first with the best play.")
    options: list[OptionOut] = Field(
        description="Every option, by the chance to finish first (a tie shared), best first."
    )
    opponents: list[OpponentOut]


class DuelOutlookOut(BaseModel):
    rules: str
    to_move: Literal["mine", "theirs"] | None = Field(
        description="Whose turn it is (the first player moves when both have filled as many "
        "boxes); null when both sheets are full."
    )
    my_score: int = Field(description="Points so far with the upper bonus once earned.")
    their_score: int
    win_chance: float = Field(
        description="The chance of `mine` to win (a tie counting half), both playing to win."
    )


class DuelAdviceOut(BaseModel):
    rules: str
    objective: Literal["duel"]
    seat: Literal["A", "B"] = Field(description="The mover's seat: A moved first.")
    dice: list[int]
    rerolls_left: int
    my_score: int = Field(description="The mover's points so far, without the upper bonus.")
    their_score: int
    target: None = None
    value: float = Field(description="The mover's chance to win with the best play.")
    options: list[OptionOut] = Field(description="Every option, by win chance, best first.")


class DuelReviewRequest(_Request):
    rules: RulesName
    record: dict[str, Any] = Field(
        description="A duel record (format `dicelab-duel`, as `dicelab duel play` writes)."
    )


class DuelDecisionOut(BaseModel):
    turn: int
    dice: list[int]
    rerolls_left: int
    chosen: str
    best: str
    win_chance_chosen: float
    win_chance_best: float
    cost: float = Field(description="Win chance lost against the best option.")


class DuelReviewOut(BaseModel):
    rules: str
    decisions: list[DuelDecisionOut] = Field(description="The human player's decisions.")
    total_cost: float
    mistakes: int


class ReviewRequest(_ObjectiveParams):
    """A game record, finished or not, as written by ``dicelab play`` or the page."""

    rules: RulesName | None = Field(
        None,
        description="The rule set played (a built-in name or an upload id); "
        "the record's `rules` when omitted.",
    )
    record: dict[str, Any] = Field(
        description="The game record (format `dicelab-game`, version 1; see docs/advice.md)."
    )
    objective: Objective = Field(
        "expected",
        description="What the game was played for: each decision is priced in expected "
        "points (`expected`), or in the chance of `target` or more, or the chance to beat "
        "a points player (`win`), or in sure points (`risk`).",
    )
    explain: StrictBool = Field(
        False, description="Say why each mistake costs what it does (objective `expected`)."
    )


class UploadRequest(_Request):
    """The text of a rules file (TOML, as described in docs/rules.md)."""

    toml: str = Field(
        max_length=64_000,
        description="The rules file's text. `extends` may name only a built-in rule set.",
        examples=[
            'extends = "yahtzee"\nname = "my-yahtzee"\n\n[upper_bonus]\n'
            "threshold = 60\npoints = 35\n"
        ],
    )
    filename: str | None = Field(
        None,
        max_length=200,
        description="The file's name: a file that extends another without a `name` of "
        "its own is named after it (`house.toml`: `house`), else `<base>-variant`.",
        examples=["house.toml"],
    )


class Box(BaseModel):
    id: str
    name: str
    scores: str = Field(description="What the box scores, in words.")
    upper: bool = Field(description="Whether its points add to the upper total.")


class UpperBonusInfo(BaseModel):
    threshold: int
    points: int


class ExtraBonusInfo(BaseModel):
    box: str = Field(description="The all-same box.")
    points: int = Field(description="Points for each further all-same roll.")
    joker: str
    joker_always: bool = Field(
        False, description="Whether an all-same roll is a joker whether or not its box is filled."
    )
    text: str = Field(description="The joker rule in words.")


class RulesSummary(BaseModel):
    id: str = Field(description="The name to use in other calls.")
    source: Literal["builtin", "upload"]
    name: str
    title: str
    dice: int
    faces: int
    rolls: int = Field(description="Throws per turn: the first roll and the rerolls.")
    boxes: int
    fingerprint: str = Field(description="SHA-256 of everything that changes results.")
    file: str | None = Field(None, description="An upload's file name, where it was given.")


class RulesInfo(RulesSummary):
    description: str
    upper_bonus: UpperBonusInfo | None
    extra_bonus: ExtraBonusInfo | None
    served: bool = Field(
        description="Whether some box pays extra for a hand made on the turn's first throw; "
        "then a first throw scored at once is advised with rerolls_left = rolls - 1."
    )
    forced_order: bool = Field(
        False,
        description="Whether each turn fills the first open box in scorecard order "
        "(advice then offers that box alone).",
    )
    categories: list[Box]


class RulesList(BaseModel):
    rules: list[RulesSummary]


class ExpectedInfo(BaseModel):
    id: str
    expected_score: float = Field(description="Optimal expected final score of a game.")
    cached: bool = Field(description="Whether the table came from the disk cache.")


class TableProgress(BaseModel):
    id: str
    state: Literal["ready", "queued", "solving", "cached", "idle"] = Field(
        description="ready: in memory; queued: waiting for the solve now running; solving: "
        "being loaded or solved now; cached: on disk, loaded at the first advice; idle: to be "
        "solved at the first advice."
    )
    position: int | None = Field(
        None, description="Place in the queue of solves, 1 next (while queued)."
    )
    estimate_seconds: float | None = Field(
        None,
        description="An upper estimate of the seconds a first solve takes on this server "
        "(left out while it is worked out: a few seconds for the largest rule sets).",
    )
    behind: str | None = Field(
        None, description="While queued: the solve it waits for (rule set, table)."
    )
    behind_left_seconds: float | None = Field(
        None, description="While queued: the seconds that solve has left, once known."
    )
    refused: str | None = Field(
        None,
        description="Why this server would refuse to solve the table (its size: memory or "
        "time beyond its limits), once that is known; absent for a table it can make.",
    )
    done: int | None = Field(None, description="States solved so far (while solving).")
    total: int | None = Field(None, description="States to solve (while solving).")
    seconds: float | None = Field(None, description="Seconds since the solve started.")
    left_seconds: float | None = Field(
        None,
        description="Seconds left at the rate the solve has kept so far (while solving, "
        "once some of it is done; compiling and loading before it are left out).",
    )


class ExplainOut(BaseModel):
    """Why an option is worth its value: under the expected-score objective, where
    its expected final score comes from (every figure under the best play that
    follows); under the others, its chance in words."""

    text: str = Field(description="A sentence: against the best option (the best: the second).")
    probability: float | None = Field(None, description="The chance (target and win objectives).")
    expected_final_score: float | None = Field(
        None, description="The sum of the boxes and bonuses below (objective `expected`)."
    )
    box_points: dict[str, float | None] | None = Field(
        None, description="Box id to the points it ends with on average (written: as written)."
    )
    upper_bonus: float | None = Field(None, description="Expected upper-bonus points.")
    p_upper_bonus: float | None = Field(None, description="The chance of the upper bonus.")
    extra_bonus: float | None = Field(None, description="Expected extra-bonus points, earned too.")
    expected_extra_bonuses: float | None = Field(None, description="Their expected number.")
    p_all_same: float | None = Field(
        None, description="The chance that the all-alike box ends with points."
    )
    expected_lead: float | None = Field(
        None,
        description="The duel with `explain`: the mover's expected final lead (their final "
        "score minus the other's), both playing to win.",
    )


class OptionOut(BaseModel):
    kind: Literal["keep", "box"]
    label: str
    keep: list[int] | None = Field(description="Dice to keep (kind keep).")
    box: str | None = Field(description="Box id (kind box).")
    box_name: str | None
    points: int | None = Field(description="Points the box takes (kind box).")
    extra_bonus: int = Field(description="Extra all-same bonus earned with it (kind box).")
    stops: bool = Field(
        False, description="A keep of every die: no more rolling, a box is chosen next."
    )
    value: float = Field(
        description="Its value for the objective: the expected final score, or the chance "
        "of reaching the target, or the chance to win."
    )
    expected_final_score: float | None = Field(description="Objective `expected`: the value.")
    sd: float | None = Field(
        None, description="Objective `expected`: standard deviation of the final score."
    )
    cost: float = Field(
        description="What it gives up against the best option: expected points, or chance."
    )
    best: bool = Field(description="True for the best option and any that tie with it.")
    explain: ExplainOut | None = Field(None, description="Why, when the request asks (`explain`).")


class AdviceOut(BaseModel):
    rules: str
    dice: list[int]
    turn: int = Field(description="Which turn this is: boxes filled + 1.")
    turns: int = Field(description="Turns in a game: one per box.")
    roll: int = Field(description="Which throw of the turn the dice come from.")
    rolls: int = Field(description="Throws per turn.")
    rerolls_left: int
    score_so_far: int = Field(description="Points scored so far, without the upper bonus.")
    upper_total: int
    objective: Objective
    target: int | None = Field(description="The score to reach (objective `target`).")
    theta: float | None = Field(None, description="The risk attitude (objective `risk`).")
    value: float = Field(description="The best option's value: the position's value.")
    expected_final_score: float | None = Field(
        description="Objective `expected`: with optimal play from here."
    )
    options: list[OptionOut] = Field(description="Every option, best first.")


class DecisionOut(BaseModel):
    turn: int
    throw: int = Field(description="Which throw of the turn the dice come from.")
    dice: list[int]
    rerolls_left: int
    chosen: str
    chosen_value: float = Field(description="Expected final score after the choice made.")
    best: str
    best_value: float
    cost: float = Field(description="Expected points lost against the best option.")
    rank: int = Field(description="Rank of the choice among the options (1 is best).")
    options: int = Field(description="Number of options there were.")
    kind: Literal["keep", "upper box", "lower box"] = Field(
        description="A keep (or a stop) before a reroll, or the box filled."
    )
    why: str | None = Field(
        None, description="Why a mistake costs what it does (asked with `explain`)."
    )


class KindSummary(BaseModel):
    kind: Literal["keep", "upper box", "lower box"]
    decisions: int
    mistakes: int = Field(description="Decisions of this kind that were not the best.")
    cost: float = Field(description="Expected points these decisions lost in all.")


class ReviewOut(BaseModel):
    rules: str
    measure: Literal["points", "chance"] = Field(
        "points",
        description="What every figure is in: expected points, or the chance played for "
        "(objectives `target` and `win`: the start's chance, each cost, the outcome).",
    )
    finished: bool
    score: int = Field(description="Points so far (the final score of a finished game).")
    expected_score: float = Field(description="Optimal expected score of a whole game.")
    total_cost: float = Field(description="Sum of the decisions' costs.")
    mistakes: int = Field(description="Decisions that were not the best.")
    luck: float = Field(description="outcome - expected_score + total_cost.")
    outcome: float = Field(
        description="The final score, or the expected final score of an unfinished game."
    )
    average_cost: float = Field(description="Expected points lost per decision, on average.")
    by_kind: list[KindSummary] = Field(description="Mistakes and cost by kind of decision.")
    decisions: list[DecisionOut]


class ErrorOut(BaseModel):
    detail: str = Field(description="What is wrong with the request.")


# -- the coach: training and the history of games ---------------------------------------
class TrainingRequest(_Request):
    """A training session: questions drawn from optimal play (or the daily set)."""

    rules: RulesName = Field("yahtzee", description="A built-in rule set name or an upload id.")
    questions: Annotated[StrictInt, Field(ge=1, le=50)] = Field(
        10, description="Decisions in the session."
    )
    daily: StrictBool = Field(False, description="Today's set: the same for everyone.")
    date: Annotated[str, StringConstraints(max_length=10)] | None = Field(
        None, description="The daily set of this date (YYYY-MM-DD)."
    )
    seed: Annotated[StrictInt, Field(ge=0, le=2**31)] | None = Field(
        None, description="Seed of the positions (random when left out)."
    )


class QuestionOut(BaseModel):
    question: int
    dice: list[int]
    rerolls_left: int
    filled: dict[str, int | None]
    extra_bonuses: int
    options: list[str] = Field(description="The options, in an order that gives nothing away.")


class TrainingOut(BaseModel):
    rules: str
    seed: int
    daily: str | None = Field(description="The date of a daily set.")
    questions: list[QuestionOut]
    note: str | None = Field(
        None, description="Why the history gave no weights (it could not be read), if so."
    )


class AnswerRequest(_Request):
    """One answer to a training question: its position and the option chosen."""

    rules: RulesName = Field("yahtzee", description="A built-in rule set name or an upload id.")
    dice: list[Annotated[StrictInt, Field(ge=-1000, le=1000)]] = Field(max_length=MAX_DICE + 8)
    rerolls_left: Annotated[StrictInt, Field(ge=0, le=100)]
    filled: dict[BoxId, Points | None] = Field(default_factory=dict, max_length=64)
    extra_bonuses: Annotated[StrictInt, Field(ge=0, le=1000)] = 0
    answer: Annotated[str, StringConstraints(min_length=1, max_length=80)] = Field(
        description="An option's label, or the dice to keep (`6 6`, `none`, `all`) or a box."
    )


class GradedOut(BaseModel):
    question: int
    chosen: str
    best: str
    cost: float = Field(description="Expected points lost against the best option.")
    correct: bool
    why: str = Field(description="Why the answer costs what it does (empty for a best one).")


class FinishRequest(_Request):
    """A finished session, every answer with its position: graded again and kept."""

    rules: RulesName = "yahtzee"
    seed: Annotated[StrictInt, Field(ge=0, le=2**31)] | None = None
    date: Annotated[str, StringConstraints(max_length=10)] | None = None
    answers: list[AnswerRequest] = Field(min_length=1, max_length=50)


class TrainingSummaryOut(BaseModel):
    rules: str
    questions: int
    average_cost: float = Field(description="Expected points lost per decision.")
    best_share: float = Field(description="The share of best answers.")
    total_cost: float
    by_kind: list[dict[str, Any]]
    kept: bool = Field(description="Kept in the history (false: the same session was kept).")


class HistoryGameOut(BaseModel):
    id: int
    kind: str
    rules: str
    finished_at: str
    score: int
    decisions: int
    mistakes: int
    total_cost: float
    average_cost: float
    worst: list[dict[str, Any]]


class HistoryOut(BaseModel):
    games: list[HistoryGameOut] = Field(description="The games kept, oldest first.")
    summary: dict[str, Any]
    note: str | None = Field(None, description="The damaged games left out, if any.")


class KeepRequest(_Request):
    """A finished game record (format `dicelab-game`, or `dicelab-duel`) to keep."""

    record: dict[str, Any]


class KeptOut(BaseModel):
    kept: bool = Field(description="False when the same record was kept already.")
    id: int | None


# -- dice games on the chance model (Pig, Shut the Box, the bear-off, Farkle) --------------
GameName = Annotated[str, StringConstraints(min_length=1, max_length=40)]
Setting = Annotated[str, StringConstraints(min_length=0, max_length=80)]


class GameSettingOut(BaseModel):
    name: str
    help: str


class GamePresetOut(BaseModel):
    """A shipped game file of the family: its house rules as the family's settings."""

    name: str = Field(description="The preset's name, as `dicelab solve NAME` takes it.")
    title: str
    published: str = Field(description="A published figure of the game and its source.")
    settings: dict[str, str] = Field(description='Its settings, as typed: {"shut": "two"}.')


class GameFamilyOut(BaseModel):
    name: str = Field(description="The family's name, as `dicelab solve NAME` takes it.")
    title: str = Field(description="The game's name as players say it: Shut the Box.")
    summary: str
    settings: list[GameSettingOut]
    presets: list[GamePresetOut] = Field(default_factory=list)


class GameRequest(_Request):
    """A dice game: its family and settings."""

    game: GameName = Field(description="pig, shut-the-box, bearoff or farkle.", examples=["pig"])
    settings: dict[str, Setting] = Field(
        default_factory=dict, max_length=8, description='The family\'s settings: {"goal": "50"}.'
    )


class GameProgress(BaseModel):
    state: Literal["ready", "queued", "solving", "idle"] = Field(
        description="ready: solved, in memory; queued: waiting behind another large solve; "
        "solving: being solved (or read from the disk) now; idle: not asked for yet."
    )
    done: int | None = Field(None, description="While solving: the units done.")
    total: int | None = Field(None, description="While solving: the units planned.")
    seconds: float | None = Field(None, description="While solving: the seconds so far.")
    left_seconds: float | None = Field(
        None, description="While solving, after its first second: the time left at its rate."
    )
    estimate_seconds: float | None = Field(
        None,
        description="For a game solved as a table (its size known before it starts): the "
        "seconds a first solve is estimated to take, erring long.",
    )


class GamePositionRequest(GameRequest):
    """A position of a dice game, and one step from it.

    Without `position`, the start; with `move` (a decision's label) or `throw` (a
    throw's label at a throw of the dice), the position after that step.
    """

    position: Any = Field(None, description="A position as an earlier answer gave it.")
    move: Setting | None = Field(None, description="The label of a move to make.")
    throw: Setting | None = Field(None, description="The label of a throw of the dice.")


class GameMoveOut(BaseModel):
    move: str
    value: float = Field(description="For the player to move (chance to win, points, turns).")
    cost: float = Field(description="Against the best move, in the same unit.")
    chances: list[float] | None = Field(None, description="Three players or more: each one's "
                                        "chance after the move, player 1 first.")  # fmt: skip
    dice: list[int] | None = Field(None, description="Farkle: the dice it sets aside.")


class GameThrowOut(BaseModel):
    throw: str
    chance: float


class GamePositionOut(BaseModel):
    game: str = Field(description="The game's name with its settings, in words.")
    measure: str = Field(description="What `start_value` means.")
    players: int
    positions: int = Field(description="Positions the game was solved over.")
    start_value: float = Field(description="The value of the start with best play.")
    position: Any = Field(description="The position, to send back with a move or a throw.")
    text: str = Field(description="The position in words.")
    mover: str = Field(description="player 1, player 2, dice, or end.")
    value: float = Field(description="The position's value, for the first player.")
    moves: list[GameMoveOut] = Field(description="Best first; empty unless a player is to move.")
    throws: list[GameThrowOut] = Field(description="Empty unless the dice are to decide.")
    result: float | None = Field(description="At the end: the result (1 means player 1 won).")
    chances: list[float] | None = Field(None, description="3 to 6 players: each one's chance.")
    verdict: str | None = Field(description="At the end: how the game ended, in words.")
    board: dict[str, Any] | None = Field(
        None,
        description="What a table shows, for drawing: `scores` (each player's, player 1 "
        "first), `turn_total`, `dice` (Farkle: to throw, or thrown), `farkles` (in a row), "
        "`tiles` (Shut the Box: each with `open`), `sides` (the bear-off: checkers on the "
        "points 1 to 6, side 1 first), `throw` (the throw to play), `seat` (whose turn: 0 "
        "for player 1), `winner` (0 for player 1).",
    )
