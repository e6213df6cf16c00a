"""Rule sets as data: board layout, letter values, tile distribution, rack size, bingo.

Shipped rule sets live in ``solver_cli/data/rules/*.toml``; ``load_rules`` also reads a
user's own TOML file in the same format (see the README).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from solver_cli.alphabet import CODE, LETTERS
from solver_cli.errors import RulesError
from solver_cli.files import path_exists, read_limited

# Layout code -> (letter multiplier, word multiplier)
PREMIUM_CODES: dict[str, tuple[int, int]] = {
    ".": (1, 1),
    "d": (2, 1),
    "t": (3, 1),
    "q": (4, 1),
    "D": (1, 2),
    "T": (1, 3),
    "Q": (1, 4),
}
MAX_SIDE = 26  # column letters A..Z
MAX_RULES_BYTES = 1_000_000


@dataclass(frozen=True)
class Rules:
    """One game's rules; board-shaped data is flat and row-major (index = row * cols + col)."""

    name: str
    title: str
    rows: int
    cols: int
    layout: tuple[str, ...]  # premium codes, one string per row
    letter_mult: tuple[int, ...]
    word_mult: tuple[int, ...]
    values: tuple[int, ...]  # by letter code; index 0 (the blank) is 0
    counts: tuple[int, ...]  # tiles in the bag by letter code; index 0 = blanks
    rack_size: int
    bingo_bonus: int
    centre: tuple[int, int]  # (row, col), 0-based

    @property
    def tile_total(self) -> int:
        return sum(self.counts)

    def value_of(self, letter: str) -> int:
        return self.values[CODE[letter.upper()]]


def shipped_rule_sets() -> list[str]:
    folder = resources.files("solver_cli.data") / "rules"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_rules(name_or_path: str) -> Rules:
    """A shipped rule set by name (``scrabble``, ``wwf``) or a TOML file by path."""
    if name_or_path in shipped_rule_sets():
        res = resources.files("solver_cli.data") / "rules" / f"{name_or_path}.toml"
        return parse_rules(res.read_text(encoding="utf-8"), name_or_path)
    path = Path(name_or_path)
    if path.suffix == ".toml" or path_exists(name_or_path):
        data = read_limited(path, MAX_RULES_BYTES, "rules file")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RulesError(f"cannot read rules file {name_or_path}: not UTF-8 text (byte {exc.start})") from None
        return parse_rules(text, str(path))
    known = ", ".join(shipped_rule_sets())
    raise RulesError(f"unknown rule set {name_or_path!r} (shipped: {known}; or give a .toml path)")


def parse_square(text: str, rows: int, cols: int) -> tuple[int, int]:
    """``H8`` -> (7, 7): column letter then 1-based row number."""
    m = re.fullmatch(r"([A-Za-z])(\d{1,2})", text.strip())
    if not m:
        raise ValueError(f"bad square {text!r} (expected a column letter and a row number, e.g. H8)")
    col = ord(m.group(1).upper()) - ord("A")
    row = int(m.group(2)) - 1
    if not (0 <= row < rows and 0 <= col < cols):
        raise ValueError(f"square {text!r} is off the {rows}x{cols} board")
    return row, col


def parse_rules(text: str, source: str) -> Rules:
    def fail(msg: str) -> RulesError:
        return RulesError(f"{source}: {msg}")

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: e.g. a 5,000-digit integer
        raise fail(f"not valid TOML: {exc}") from None

    layout = data.get("layout")
    if not isinstance(layout, list) or not layout or not all(isinstance(r, str) for r in layout):
        raise fail("'layout' must be a list of strings, one per board row")
    rows, cols = len(layout), len(layout[0])
    for i, row in enumerate(layout, 1):
        if len(row) != cols:
            raise fail(f"layout row {i} has {len(row)} squares, row 1 has {cols} (grid must be rectangular)")
        for j, ch in enumerate(row, 1):
            if ch not in PREMIUM_CODES:
                known = " ".join(PREMIUM_CODES)
                raise fail(f"layout row {i} column {j}: unknown premium code {ch!r} (known: {known})")
    if not (2 <= rows <= MAX_SIDE and 2 <= cols <= MAX_SIDE):
        raise fail(f"board must be 2..{MAX_SIDE} squares a side, not {rows}x{cols}")

    def integer(key: str, default: int | None = None, minimum: int = 0) -> int:
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            raise fail(f"'{key}' must be an integer >= {minimum}")
        return value

    rack_size = integer("rack_size", 7, 1)
    bingo = integer("bingo_bonus", 50, 0)
    centre_text = data.get("centre", None)
    if centre_text is None:
        centre = (rows // 2, cols // 2)
    else:
        if not isinstance(centre_text, str):
            raise fail("'centre' must be a square such as \"H8\"")
        try:
            centre = parse_square(centre_text, rows, cols)
        except ValueError as exc:
            raise fail(f"'centre': {exc}") from None

    tiles = data.get("tiles")
    if not isinstance(tiles, dict):
        raise fail("missing [tiles] table (letter = [count, value])")
    values = [0] * 27
    counts = [0] * 27
    for key, entry in tiles.items():
        if key != "?" and (len(key) != 1 or key.upper() not in CODE):
            raise fail(f"[tiles]: {key!r} is not a letter A-Z or '?'")
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in entry)
        ):
            raise fail(f"[tiles] {key}: expected [count, value] with non-negative integers")
        code = 0 if key == "?" else CODE[key.upper()]
        counts[code], values[code] = entry
    missing = [ch for ch in LETTERS if ch not in tiles and ch.lower() not in tiles]
    if missing:
        raise fail(f"[tiles]: missing letter value for {', '.join(missing)}")
    values[0] = 0  # a blank always scores nothing

    lm = tuple(PREMIUM_CODES[ch][0] for row in layout for ch in row)
    wm = tuple(PREMIUM_CODES[ch][1] for row in layout for ch in row)
    name = data.get("name", Path(source).stem)
    return Rules(
        name=str(name),
        title=str(data.get("title", name)),
        rows=rows,
        cols=cols,
        layout=tuple(layout),
        letter_mult=lm,
        word_mult=wm,
        values=tuple(values),
        counts=tuple(counts),
        rack_size=rack_size,
        bingo_bonus=bingo,
        centre=centre,
    )


def square_name(row: int, col: int) -> str:
    return f"{LETTERS[col]}{row + 1}"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)
