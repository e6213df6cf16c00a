"""The library's exceptions. The CLI turns each into a one-line error and an exit code."""


class ScrabError(Exception):
    """Base class of every error scrab reports to a user."""


class InputError(ScrabError):
    """Bad input from the user: a board, rack, rule set or word list that cannot be used."""


class LexiconError(InputError):
    """A word list that cannot be read or holds no usable word."""


class RulesError(InputError):
    """A rule set that is unknown or malformed."""
