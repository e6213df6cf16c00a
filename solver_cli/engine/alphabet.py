"""Letters as small integers, the encoding every hot loop in scrab works with.

Codes follow the engines of the field (Macondo, wolges):
- a letter is 1..26 (A..Z); 0 is the GADDAG separator and, in rack counts, the blank;
- a square on the board holds 0 (empty), a letter code (a tile), or
  ``letter | BLANK_BIT`` (a blank tile standing for that letter);
- a set of letters is an int bitmask with bit ``code`` set, so ``1 << code``.
"""

from __future__ import annotations

from dataclasses import dataclass

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
ALPHABET_SIZE = 26
BLANK = 0  # index of the blank in rack counts
BLANK_BIT = 32  # set on a square's code when the tile there is a blank
LETTER_MASK = 31
ALL_LETTERS = ((1 << (ALPHABET_SIZE + 1)) - 1) & ~1  # bits 1..26

CODE = {ch: i + 1 for i, ch in enumerate(LETTERS)}


def shown_char(ch: str) -> str:
    """A character for an error message: quoted, or ``U+XXXX`` when it would not print."""
    return repr(ch) if ch.isprintable() else f"U+{ord(ch):04X}"


def letter_of(code: int) -> str:
    """Display form of a square or tile code: uppercase for a tile, lowercase for a blank."""
    ch = LETTERS[(code & LETTER_MASK) - 1]
    return ch.lower() if code & BLANK_BIT else ch


def encode_word(word: str) -> list[int]:
    """Codes of an A-Z word (any case); lowercase letters are NOT treated as blanks here."""
    return [CODE[ch] for ch in word.upper()]


def mask_letters(mask: int) -> str:
    """The letters of a bitmask, in order, for display."""
    return "".join(LETTERS[i - 1] for i in range(1, ALPHABET_SIZE + 1) if mask >> i & 1)


def parse_rack(text: str, rack_size: int, what: str = "rack") -> list[int]:
    """A rack such as ``AEIRST?`` (any case, ``?`` a blank) as 27 counts, index 0 = blanks.
    ``what`` names it in errors: a leave is read the same way."""
    from solver_cli.errors import InputError

    rack = text.strip()
    if not rack:
        raise InputError(f"{what} is empty: give its letters, e.g. 'AEIRST?' (? is a blank)")
    counts = [0] * 27
    for position, ch in enumerate(rack, 1):
        if ch == "?":
            counts[BLANK] += 1
        elif ch.isascii() and ch.isalpha():
            counts[CODE[ch.upper()]] += 1
        else:
            raise InputError(
                f"{what} {rack!r}: bad character {shown_char(ch)} at position {position} "
                "(use letters A-Z and ? for a blank)"
            )
    if len(rack) > rack_size:
        raise InputError(f"{what} {rack!r} has {len(rack)} tiles; a rack holds at most {rack_size}")
    return counts


def rack_text(counts: list[int]) -> str:
    """Counts back to text, letters in order and blanks last: ``AEIRST?``."""
    return "".join(LETTERS[i - 1] * counts[i] for i in range(1, ALPHABET_SIZE + 1)) + "?" * counts[BLANK]


@dataclass(frozen=True)
class Rack:
    """A rack as 27 counts (index 0 the blanks, then A..Z): the public, immutable form of the
    ``list[int]`` the engine works with."""

    counts: tuple[int, ...]

    @classmethod
    def parse(cls, text: str, rack_size: int = 7) -> Rack:
        """``AEIRST?`` (any case, ``?`` a blank); ``InputError`` naming a bad letter."""
        return cls(tuple(parse_rack(text, rack_size)))

    @property
    def text(self) -> str:
        return rack_text(list(self.counts))

    @property
    def size(self) -> int:
        return sum(self.counts)

    def __str__(self) -> str:
        return self.text
