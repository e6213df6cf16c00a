"""The library's exceptions. The CLI turns each into a one-line error and an exit code."""


class ScrabError(Exception):
    """Base class of every error scrab reports to a user."""


class InputError(ScrabError):
    """Bad input from the user: a board, rack, rule set or word list that cannot be used."""


class LexiconError(InputError):
    """A word list that cannot be read or holds no usable word."""


class RulesError(InputError):
    """A rule set that is unknown or malformed."""


class IllegalMove(ScrabError):
    """A well-formed move that the rules or the lexicon do not allow (a failed check)."""


class SelfPlayError(ScrabError):
    """A finished self-play game failed its final check (a bug, not a user's mistake)."""
