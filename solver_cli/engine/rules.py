"""Rule sets as data: board layout, letter values, tile distribution, rack size, bingo.

Shipped rule sets live in ``solver_cli/data/rules/*.toml``; ``load_rules`` also reads a
user's own TOML file in the same format (see the README).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from solver_cli._data import data_folder
from solver_cli._io import one_line, path_exists, read_limited
from solver_cli._text import plural
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
MAX_END_FACTOR = 10  # out_gain, out_loss, stuck_loss: multiples of a rack's face value
MAX_NAME_LENGTH = 64  # the name ends up in GCG headers and output: one short printable line
MAX_TITLE_LENGTH = 200
MAX_NESTING = 8  # arrays and inline tables inside each other; a rule file needs 2
# tomllib's time and memory grow with the square of a dotted key's length (``a.b.c...``, or a
# ``[a.b.c...]`` header): 40,000 parts took 52 s and 6 GB. A rule file needs 2 parts
# (``tiles.A``) and about 40 keys.
MAX_KEY_PARTS = 8
MAX_KEYS = 1_000  # keys and table headers in the whole file


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
    # An exchange needs at least this many tiles in the bag and throws back at most
    # ``exchange_max`` tiles; ``scoreless_turns`` consecutive scoreless turns end a game.
    exchange_min_bag: int = 7
    exchange_max: int = 7
    scoreless_turns: int = 6
    # The end of a game: the player who goes out gains ``out_gain`` times the face value of
    # the opponent's rack and the opponent loses ``out_loss`` times it; when scoreless turns
    # end the game, each player loses ``stuck_loss`` times its own rack's face value.
    out_gain: int = 1
    out_loss: int = 1
    stuck_loss: int = 1

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
    folder = data_folder("rules")
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
        return parse_rules((data_folder("rules") / f"{shipped}.toml").read_text(encoding="utf-8"), shipped)
    path = Path(name_or_path)
    if path.suffix == ".toml" or path_exists(name_or_path):
        data = read_limited(path, MAX_RULES_BYTES, "rules file")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise RulesError(f"cannot read rules file {name_or_path}: not UTF-8 text (byte {exc.start})") from None
        other = _other_format(text)
        if other is not None:
            raise RulesError(
                f"{name_or_path} is {other}, not a rule file (give a shipped rule set ({known}) or a .toml file)"
            )
        return parse_rules(text, str(path))
    raise RulesError(f"unknown rule set {name_or_path!r} (shipped: {known}; or give a .toml path)")


def _other_format(text: str) -> str | None:
    """What ``text`` is when it reads as another of scrab's files, given to --rules by
    mistake: "a board file" (rows of ``.`` and letters, ``#`` comments) or "a GCG game record"
    (``>player:`` lines); else None. No rule file reads as either: its lines hold ``=`` or
    ``[``, and a ``>`` can start none."""
    lines = [line.strip() for line in text.split("\n") if line.strip() and not line.lstrip().startswith("#")]
    if lines and all(line.isascii() and (line.replace(".", "").isalpha() or set(line) == {"."}) for line in lines):
        return "a board file"
    if any(line.startswith(">") and ":" in line for line in lines):
        return "a GCG game record"
    return None


def parse_rules(text: str, source: str) -> Rules:
    def fail(msg: str) -> RulesError:
        return RulesError(f"{source}: {msg}")

    problem = _shape_problem(text)
    if problem is not None:
        raise fail(problem)
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
            raise fail(f"layout row {i} has {plural(len(row), 'square')}, row 1 has {cols} (grid must be rectangular)")
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
    exchange_min_bag = integer("exchange_min_bag", rack_size, 1, MAX_TILES)
    exchange_max = integer("exchange_max", rack_size, 0, rack_size)
    scoreless_turns = integer("scoreless_turns", 6, 1, 100)
    out_gain = integer("out_gain", 1, 0, MAX_END_FACTOR)
    out_loss = integer("out_loss", 1, 0, MAX_END_FACTOR)
    stuck_loss = integer("stuck_loss", 1, 0, MAX_END_FACTOR)
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
    default = one_line(Path(source).stem)[:MAX_NAME_LENGTH].strip()
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
        exchange_min_bag=exchange_min_bag,
        exchange_max=exchange_max,
        scoreless_turns=scoreless_turns,
        out_gain=out_gain,
        out_loss=out_loss,
        stuck_loss=stuck_loss,
        centre=centre,
    )


def _one_line(value: object, key: str, limit: int, fail: Callable[[str], RulesError]) -> str:
    """A name or title: it is written into GCG headers and output, so one printable line."""
    if not isinstance(value, str) or not value.strip() or len(value) > limit or not value.isprintable():
        raise fail(f"'{key}' must be one line of 1 to {limit} printable characters")
    return value


# The pre-scan's tokens: a quote (a string to skip), runs of dots, of ``=``, of openers, of
# closers, a comment, and everything else in runs (so a long line costs few steps).
_TOKEN = re.compile(
    r"""(?P<quote>["'])|(?P<dots>\.+)|(?P<equals>=+)|(?P<open>[\[{]+)|(?P<close>[\]}]+)|(?P<comment>\#[^\n]*)"""
    r"""|(?P<plain>[^"'.=\[\]{}#]+)"""
)
_NOT_IN_KEY = re.compile(r"[^A-Za-z0-9_ \t-]")  # ends a dotted key: anything but bare words and blanks
_BASIC_BODY = re.compile(r'(?:[^"\\\n]+|\\.)*')  # a one-line "string" up to its closing quote
_MULTILINE_BASIC_BODY = re.compile(r'(?:[^"\\]+|\\.|"(?!""))*', re.DOTALL)


def _shape_problem(text: str) -> str | None:
    """What makes ``text`` too costly for the TOML parser (None when nothing does), found in
    one linear pass outside strings and comments, before tomllib sees the text: arrays and
    inline tables nested deeper than MAX_NESTING (tomllib recurses on them), a dotted key or
    table header of more than MAX_KEY_PARTS parts (tomllib's cost is quadratic in them), or
    more than MAX_KEYS keys and headers. Each problem names its line.

    Dots are counted in any run of bare words, blanks and quoted strings, in keys and values
    alike (a valid value has at most one dot, as in ``1.5``), so the scan needs no TOML
    grammar and cannot be led to miss a key. Strings end where tomllib ends them (escapes; up
    to two quotes after a closing triple quote belong to the string)."""
    depth = keys = 0
    dots = 0  # in the current run of key parts
    line_start = True  # only blanks since the last line break: a "[" here opens a table header
    i, n = 0, len(text)

    def at(pos: int, problem: str) -> str:
        return f"line {text.count(chr(10), 0, pos) + 1}: {problem}"

    while i < n:
        match = _TOKEN.match(text, i)
        assert match is not None  # the alternatives cover every character
        kind, j = match.lastgroup, match.end()
        if kind == "plain":
            if _NOT_IN_KEY.search(text, i, j):
                dots = 0
            last_break = text.rfind("\n", i, j)
            if last_break >= 0:
                line_start = not text[last_break + 1 : j].strip(" \t")
            else:
                line_start = line_start and not text[i:j].strip(" \t")
            i = j
            continue
        if kind == "quote":
            j = _string_end(text, i)
        elif kind == "dots":
            dots += j - i
            if dots >= MAX_KEY_PARTS:  # refused here: the rest of the key need not be read
                return at(i, f"a dotted key or table header of more than {MAX_KEY_PARTS} parts")
        else:
            dots = 0
            if kind == "equals":
                keys += j - i
            elif kind == "open":
                keys += line_start and depth == 0 and text[i] == "["  # a table header
                depth += j - i
                if depth > MAX_NESTING:
                    return at(i, f"arrays or tables nested more than {MAX_NESTING} deep")
            elif kind == "close":
                depth = max(0, depth - (j - i))
            if keys > MAX_KEYS:
                return at(i, f"more than {MAX_KEYS:,} keys and table headers (a rule file needs about 40)")
        line_start = False
        i = j
    return None


def _string_end(text: str, i: int) -> int:
    """Where the string starting at ``text[i]`` (a quote) ends, as tomllib reads it; an
    unterminated one-line string ends at its line's end (tomllib then refuses the file)."""
    quote = text[i]
    if text.startswith(quote * 3, i):
        if quote == "'":
            end = text.find("'''", i + 3)
            j = len(text) if end < 0 else end
        else:
            body = _MULTILINE_BASIC_BODY.match(text, i + 3)
            assert body is not None  # the pattern matches the empty string
            j = body.end()
        if not text.startswith(quote * 3, j):
            return len(text)  # unterminated: tomllib refuses the file
        j += 3
        for _ in range(2):  # a closing triple quote may follow one or two of the string's own
            if text.startswith(quote, j):
                j += 1
        return j
    if quote == "'":
        stops = [k for k in (text.find("'", i + 1), text.find("\n", i + 1)) if k >= 0]
        j = min(stops, default=len(text))
    else:
        body = _BASIC_BODY.match(text, i + 1)
        assert body is not None
        j = body.end()
    return j + 1 if text.startswith(quote, j) else j
