"""The exceptions for mistakes a user can make, as a small hierarchy.

The command line turns a :class:`UserError` into a single line on standard error
and exit code 2; the web page turns it into a 400 (a :class:`NotFound` into a 404).
The library raises one wherever input (rules, positions, files, parameters) is
wrong, so the message must name what is wrong and what is expected. Callers that
need more than the message read the attributes of the subclasses, never the text.

>>> import dicelab
>>> try:
...     dicelab.load_rules("no-such-game")
... except dicelab.UserError as exc:
...     print(type(exc).__name__, str(exc).split(":")[0])
NotFound unknown rules 'no-such-game'
"""

from __future__ import annotations


class UserError(ValueError):
    """Bad input from a user: the message is shown as is, without a traceback.

    Examples
    --------
    >>> import dicelab
    >>> try:
    ...     dicelab.solve("yazy", objective="best")
    ... except dicelab.UserError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    objective: got 'best', expected one of: expected, target, win, ...
    """


class NotFound(UserError):
    """A name that refers to nothing: an unknown rule set, box or file.

    Examples
    --------
    >>> import dicelab
    >>> try:
    ...     dicelab.load_rules("yahtze")
    ... except dicelab.NotFound as error:
    ...     print(error)  # doctest: +ELLIPSIS
    unknown rules 'yahtze' (did you mean 'yahtzee'?): expected a built-in name (...)...
    """


class TooLarge(UserError):
    """A solve this machine is not expected to finish: too much memory or time.

    Attributes
    ----------
    what : str
        The table refused, in words (``"yahtzee's duel table"``).
    states : int
        Its number of states (or of the ``unit`` it counts).
    bytes : int
        The memory it needs.
    seconds : float
        The time it is expected to take on this machine (0 when not estimated).
    reason : str
        Why it is refused, in words (``"longer than an hour"``).
    summary : str
        The message without the command line's way out (``--allow-large``, offered
        only where the table is within reach: ``hopeless`` says it is not).

    Examples
    --------
    >>> import dicelab
    >>> issubclass(dicelab.TooLarge, dicelab.UserError)  # a size refused, said in one line
    True
    """

    def __init__(
        self,
        summary: str,
        *,
        what: str,
        states: int,
        bytes: int,
        seconds: float,
        reason: str,
        hopeless: bool = False,
    ) -> None:
        way = "far beyond this machine" if hopeless else "add --allow-large to try anyway"
        super().__init__(f"{summary}; {way}")
        self.summary = summary
        self.what = what
        self.states = states
        self.bytes = bytes
        self.seconds = seconds
        self.reason = reason


class DamagedTable(UserError):
    """A cached table's block failed its checksum while being read.

    Attributes
    ----------
    path : pathlib.Path
        The damaged file (the server never shows it).

    Examples
    --------
    >>> import dicelab
    >>> issubclass(dicelab.DamagedTable, dicelab.UserError)
    True
    """

    def __init__(self, message: str, path=None) -> None:
        super().__init__(message)
        self.path = path


#: Largest file a user may name (rules, game records, score distributions), in bytes:
#: each is a few kilobytes, and a device such as ``/dev/zero`` never ends.
MAX_USER_FILE = 16 * 1024 * 1024


def read_user_file(path, what: str, limit: int = MAX_USER_FILE, regular: bool = True) -> str:
    """The text of a file a user named, or one line that says why it cannot be had.

    ``what`` names the file in the message (``"rules file 'x.toml'"``): a missing
    file is a :class:`NotFound`, any other failure (a folder, no permission, not
    UTF-8, more than ``limit`` bytes; unless ``regular`` is false, a pipe or a
    device, which could wait for ever or never end) a :class:`UserError`.
    """
    import stat
    from pathlib import Path

    try:
        if regular and not stat.S_ISREG(Path(path).stat().st_mode):  # a pipe would wait
            raise UserError(f"{what} is not a regular file (a folder, a pipe or a device)")
        with Path(path).open("rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise NotFound(f"{what} does not exist") from None
    except OSError as exc:
        raise UserError(f"{what} cannot be read: {exc}") from None
    if len(data) > limit:
        raise UserError(f"{what} is over {limit // 2**20} MiB: expected a text file of a few KB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UserError(f"{what} cannot be read: {exc}") from None


def parse_nested(parse, text: str, what: str):
    """``parse(text)`` (``json.loads``, ``tomllib.loads``), with input nested deeper
    than the parser's recursion allows, or a number longer than Python converts
    (``sys.get_int_max_str_digits``), as a :class:`UserError` naming ``what``."""
    try:
        return parse(text)
    except RecursionError:
        raise UserError(
            f"{what}: nested too deeply (hundreds of lists or tables inside each other; "
            "expected a few levels)"
        ) from None
    except ValueError as exc:
        if "integer string conversion" not in str(exc):  # the parser's own mistakes
            raise
        raise UserError(f"{what}: a number of thousands of digits (expected a few)") from None


def whole_numbers(words, mistake: str) -> tuple[int, ...]:
    """The numbers of a list a user typed, or a :class:`UserError` saying ``mistake``
    where a word is not a whole number.

    >>> whole_numbers(["5", "6"], "expected whole numbers")
    (5, 6)
    """
    try:
        return tuple(int(word) for word in words)
    except ValueError:
        raise UserError(mistake) from None


#: A word of an error line longer than this is cut (a number of thousands of digits).
LONGEST_WORD = 80
#: An error line longer than this is cut.
LONGEST_LINE = 500


def readable(message: str) -> str:
    """An error message as one readable line: its whitespace one space, each word
    longer than :data:`LONGEST_WORD` cut with the count of what was left out (a
    5,000-digit number a user typed would otherwise be quoted whole), the whole
    at most :data:`LONGEST_LINE` characters."""
    words = []
    for word in message.split():
        if len(word) > LONGEST_WORD:
            body, mark = (word[:-1], word[-1]) if word[-1] in ",.;:'\")" else (word, "")
            word = f"{body[: LONGEST_WORD - 10]}…({len(body):,} characters){mark}"
        words.append(word)
    line = " ".join(words)
    return line if len(line) <= LONGEST_LINE else line[: LONGEST_LINE - 1] + "…"
