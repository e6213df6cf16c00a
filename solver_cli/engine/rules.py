"""Rule sets as data: board layout, letter values, tile distribution, rack size, bingo.

Shipped rule sets live in ``solver_cli/data/rules/*.toml``; ``load_rules`` also reads a
user's own TOML file in the same format (see the README).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from solver_cli._io import path_exists, read_limited
from solver_cli.engine.alphabet import CODE, LETTERS
from solver_cli.engine.notation import parse_square
from solver_cli.errors import RulesError

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
# Limits checked before anything is built from a rule file: far above any real game (Super
# Scrabble has 200 tiles, letter values stop at 10) and small enough that a bag, a rack or a
# score stays an ordinary list and int.
MAX_TILES = 1_000  # in the whole bag, blanks included
MAX_TILE_VALUE = 1_000
MAX_RACK_SIZE = 20
MAX_BINGO_BONUS = 10_000
MAX_NAME_LENGTH = 64  # the name ends up in GCG headers and output: one short printable line
MAX_TITLE_LENGTH = 200
MAX_NESTING = 8  # arrays and inline tables inside each other; a rule file needs 2


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
    def max_side(self) -> int:
        """The longest line on the board: the longest word a move can make."""
        return max(self.rows, self.cols)

    @property
    def tile_total(self) -> int:
        return sum(self.counts)

    def value_of(self, letter: str) -> int:
        return self.values[CODE[letter.upper()]]


def shipped_rule_sets() -> list[str]:
    folder = resources.files("solver_cli.data") / "rules"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def shipped_rule_name(name: str) -> str | None:
    """The shipped rule set ``name`` names, in any case (``WWF`` is ``wwf``), else None."""
    key = name.lower()
    return key if key in shipped_rule_sets() else None


def load_rules(name_or_path: str) -> Rules:
    """A shipped rule set by name in any case (``scrabble``, ``wwf``, ``super``) or a TOML
    file by path (a path is used as given)."""
    known = ", ".join(shipped_rule_sets())
    if not name_or_path.strip():
        raise RulesError(f"empty rule-set name: give a shipped rule set ({known}) or a .toml file")
    shipped = shipped_rule_name(name_or_path)
    if shipped is not None:
        res = resources.files("solver_cli.data") / "rules" / f"{shipped}.toml"
        return parse_rules(res.read_text(encoding="utf-8"), shipped)
    path = Path(name_or_path)
    if path.suffix == ".toml" or path_exists(name_or_path):
        data = read_limited(path, MAX_RULES_BYTES, "rules file")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RulesError(f"cannot read rules file {name_or_path}: not UTF-8 text (byte {exc.start})") from None
        return parse_rules(text, str(path))
    raise RulesError(f"unknown rule set {name_or_path!r} (shipped: {known}; or give a .toml path)")


def parse_rules(text: str, source: str) -> Rules:
    def fail(msg: str) -> RulesError:
        return RulesError(f"{source}: {msg}")

    depth = _nesting_depth(text)
    if depth > MAX_NESTING:
        raise fail(f"arrays or tables nested {depth} deep (at most {MAX_NESTING})")
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError) as exc:  # ValueError: e.g. a 5,000-digit integer
        raise fail(f"not valid TOML: {exc}") from None
    except RecursionError:  # the pre-scan above makes this unreachable; kept as a backstop
        raise fail("arrays or tables nested too deeply") from None

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

    def integer(key: str, default: int, minimum: int, maximum: int) -> int:
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or not minimum <= value <= maximum:
            raise fail(f"'{key}' must be an integer from {minimum} to {maximum:,}")
        return value

    rack_size = integer("rack_size", 7, 1, MAX_RACK_SIZE)
    bingo = integer("bingo_bonus", 50, 0, MAX_BINGO_BONUS)
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
        if entry[0] > MAX_TILES or entry[1] > MAX_TILE_VALUE:
            raise fail(
                f"[tiles] {key}: count {entry[0]:,} or value {entry[1]:,} out of range "
                f"(a count at most {MAX_TILES:,}, a value at most {MAX_TILE_VALUE:,})"
            )
        code = 0 if key == "?" else CODE[key.upper()]
        counts[code], values[code] = entry
    missing = [ch for ch in LETTERS if ch not in tiles and ch.lower() not in tiles]
    if missing:
        raise fail(f"[tiles]: missing letter value for {', '.join(missing)}")
    if sum(counts) > MAX_TILES:
        raise fail(f"[tiles]: {sum(counts):,} tiles in the bag (at most {MAX_TILES:,})")
    values[0] = 0  # a blank always scores nothing

    lm = tuple(PREMIUM_CODES[ch][0] for row in layout for ch in row)
    wm = tuple(PREMIUM_CODES[ch][1] for row in layout for ch in row)
    # Without a name, the file's: made printable and short, since the user chose no name.
    default = "".join(ch if ch.isprintable() else "?" for ch in Path(source).stem)[:MAX_NAME_LENGTH].strip()
    name = _one_line(data.get("name", default or "rules"), "name", MAX_NAME_LENGTH, fail)
    title = _one_line(data.get("title", name), "title", MAX_TITLE_LENGTH, fail)
    return Rules(
        name=name,
        title=title,
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


def _one_line(value: object, key: str, limit: int, fail: Callable[[str], RulesError]) -> str:
    """A name or title: it is written into GCG headers and output, so one printable line."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit or not value.isprintable():
        raise fail(f"'{key}' must be one line of 1 to {limit} printable characters")
    return value


def _nesting_depth(text: str) -> int:
    """How deep arrays and inline tables nest, counted outside strings and comments, so a
    hostile file is refused before the recursive TOML parser runs out of stack."""
    deepest = depth = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch in "\"'":
            triple = text.startswith(ch * 3, i)
            quote = ch * 3 if triple else ch
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if ch == '"' and text[i] == "\\":
                    i += 1  # an escaped character, maybe a quote
                elif text[i] == "\n" and not triple:
                    break  # an unterminated one-line string: the parser reports it
                i += 1
            i += len(quote)
            continue
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
        i += 1
    return deepest
