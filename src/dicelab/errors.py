"""The one exception type for mistakes a user can make.

The command line turns a :class:`UserError` into a single line on standard error
and exit code 2; the library raises it wherever input (rules, positions, files,
parameters) is wrong, so the message must name what is wrong and what is expected.
"""


class UserError(ValueError):
    """Bad input from a user: the message is shown as is, without a traceback."""
