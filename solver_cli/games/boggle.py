"""Boggle: every word in a 4x4, 5x5 or 6x6 grid of letter dice, found through the DAWG.

Rules. A word is a path of dice, each one adjacent to the previous one in any of the 8
directions, no die used twice in the word. A die's face is one letter, ``Qu`` (the Q die
always reads QU), one of the two-letter faces of Super Big Boggle (``An Er He In Qu Th``),
or a blank face, which blocks its square. Length counts letters, not dice: a ``Qu`` or
``Th`` face is two letters for ``--min-length`` and for scoring.

Search. A depth-first walk over the grid that reads the lexicon's forward DAWG
(``Gaddag.dawg_root``) as it goes, one arc per letter: a path whose letters are not the
prefix of any word is abandoned at once, so the work is bounded by the prefixes the grid
can actually spell, not by the number of paths (which is astronomical on a 6x6 grid).

Grids. As text, rows are separated by ``/`` or newlines; letters in any case; ``Q`` or
``Qu`` is the Qu die; ``[Th]`` (brackets) is a face with any other letters printed on it,
``[Q]`` a plain Q; ``.`` is a blank face; spaces inside a row are ignored. In a file,
blank lines and lines starting with ``#`` are ignored. A single row of exactly 16, 25 or
36 dice is read as the square grid it spells.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

from solver_cli._io import read_limited
from solver_cli._text import plural
from solver_cli.engine.alphabet import CODE, shown_char
from solver_cli.engine.gaddag import BELOW, FINAL, LETTER_BITS, Gaddag
from solver_cli.errors import InputError

SIZES = (4, 5, 6)
MAX_WORD_LENGTH = 15  # words longer than a Scrabble board are not kept in the lexicon cache
MAX_GRID_BYTES = 100_000  # a 6x6 grid with comments is well under 1 kB
GRID_HELP = "rows of letters separated by '/', e.g. ABCD/EFGH/IJKL/MNQuP"
CHAR_HELP = "use letters A-Z, Qu (or Q) for the Qu die, [Th] for a face with several letters, '.' for a blank face"

# ---------------------------------------------------------------------------------------
# Scoring


def boggle_score(length: int) -> int:
    """Points for a word of ``length`` letters: the classic Boggle table.

    3-4 letters 1, 5 letters 2, 6 letters 3, 7 letters 5, 8 or more 11. The table starts
    at 3 letters; a 2-letter word (only with ``min_length=2``, a house rule) also scores 1.
    """
    if length <= 4:
        return 1
    if length == 5:
        return 2
    if length == 6:
        return 3
    if length == 7:
        return 5
    return 11


def default_min_length(size: int) -> int:
    """3 letters on the classic 4x4 grid; 4 on Big Boggle (5x5) and Super Big Boggle (6x6)."""
    return 3 if size == 4 else 4


# ---------------------------------------------------------------------------------------
# Dice


@dataclass(frozen=True)
class DiceSet:
    name: str
    title: str
    size: int
    dice: tuple[tuple[str, ...], ...]  # six faces a die; a face is uppercase letters, "" = blank


def _dice(spec: str) -> tuple[tuple[str, ...], ...]:
    """``"AAEEGN HIMNQuU ..."``: one die per word, one face per letter; ``Qu`` (and the other
    capital-lowercase pairs) is one two-letter face, ``#`` a blank face."""
    dice = []
    for die in spec.split():
        faces = tuple(face.upper() if face != "#" else "" for face in re.findall(r"[A-Z][a-z]?|#", die))
        assert len(faces) == 6, die
        dice.append(faces)
    return tuple(dice)


# The dice as printed in the games, as catalogued in BoardGameGeek's "letter distribution"
# thread (boardgamegeek.com/thread/300883) and copied by many solvers.
DICE_SETS: dict[int, DiceSet] = {
    4: DiceSet(
        "classic",
        "classic Boggle dice, 1987+ set",
        4,
        _dice(
            "AAEEGN ABBJOO ACHOPS AFFKPS AOOTTW CIMOTU DEILRX DELRVY "
            "DISTTY EEGHNW EEINSU EHRTVW EIOSST ELRTTY HIMNQuU HLNNRZ"
        ),
    ),
    5: DiceSet(
        "big",
        "Big Boggle dice, Deluxe / Boggle Master set",
        5,
        _dice(
            "AAAFRS AAEEEE AAFIRS ADENNN AEEEEM AEEGMU AEGMNN AFIRSY BJKQuXZ CCNSTW "
            "CEIILT CEILPT CEIPST DDLNOR DHHLOR DHHNOT DHLNOR EIIITT EMOTTT ENSSSU "
            "FIPRSY GORRVW HIPRRY NOOTUW OOOTTU"
        ),
    ),
    6: DiceSet(
        "super-big",
        "Super Big Boggle dice",
        6,
        _dice(
            "AAAFRS AAEEEE AAEEOO AAFIRS ABDEIO ADENNN AEEEEM AEEGMU AEGMNN AEILMN "
            "AEINOU AFIRSY AnErHeInQuTh BBJKXZ CCENST CDDLNN CEIITT CEIPST CFGNUY DDHNOT "
            "DHHLOR DHHNOW DHLNOR EHILRS EIILST EILPST EIO### EMTTTO ENSSSU GORRVW "
            "HIRSTV HOPRST IPRSYY JKQuWXZ NOOTUW OOOTTU"
        ),
    ),
}


# ---------------------------------------------------------------------------------------
# The grid


def face_label(face: str) -> str:
    """How a face is printed on a die: ``A``, ``Qu``, ``Th``; a blank face is ``""``."""
    return face[:1] + face[1:].lower()


def face_token(face: str) -> str:
    """How a face is written in a grid string, so that it reads back as the same face."""
    if face == "":
        return "."
    if face == "QU" or len(face) == 1 and face != "Q":
        return face_label(face)
    return f"[{face_label(face)}]"


@dataclass(frozen=True)
class Grid:
    """A square grid of dice faces, row-major; a face is uppercase letters, "" = blank."""

    size: int
    faces: tuple[str, ...]

    @classmethod
    def from_rows(cls, rows: list[list[str]]) -> Grid:
        """From faces such as ``[["A", "QU", ...], ...]`` (any case; "" a blank face)."""
        return cls(len(rows), tuple(face.upper() for row in rows for face in row))

    def at(self, row: int, col: int) -> str:
        return self.faces[row * self.size + col]

    def rows(self) -> list[list[str]]:
        """Faces as printed on the dice (``Qu``), row by row."""
        n = self.size
        return [[face_label(f) for f in self.faces[r * n : (r + 1) * n]] for r in range(n)]

    def to_text(self) -> str:
        """The grid as a one-line grid string (``ABCD/EFGH/...``) that parses back to it."""
        n = self.size
        return "/".join("".join(face_token(f) for f in self.faces[r * n : (r + 1) * n]) for r in range(n))


@dataclass
class _Row:
    faces: list[str]
    line: int  # 1-based line of the text
    column: int  # 1-based column where the row starts
    shared_line: bool  # the line holds more than one row ('/')


def parse_grid(text: str, source: str | None = None) -> Grid:
    """Parse a grid string (``source`` None) or the text of a grid file named ``source``.

    Errors are one line naming the bad value and where it is: ``file, line L, column C``
    for a file, ``grid 'TEXT', row R, column C`` for a string.
    """
    if text.startswith("\ufeff"):
        text = text[1:]
    is_file = source is not None
    name = source if source is not None else f"grid {text.strip()!r}"
    rows: list[_Row] = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip(" \t\r")
        if not line.strip() or (is_file and line.lstrip().startswith("#")):
            continue
        start = 0
        pieces = line.split("/")
        for piece in pieces:
            where = _Where(name, is_file, number, start + 1, len(rows) + 1, len(pieces) > 1)
            faces = _tokenize(piece, where)
            if faces or len(pieces) > 1:
                if not faces:
                    raise InputError(f"{where.row()}: empty row (two '/' in a row, or a '/' at an end?)")
                rows.append(_Row(faces, number, start + 1, len(pieces) > 1))
            start += len(piece) + 1
    if not rows:
        if is_file:
            raise InputError(f"{name}: no grid in the file (only blank lines and comments); give {GRID_HELP}")
        raise InputError(f"the grid is empty: give {GRID_HELP}")
    if len(rows) == 1 and len(rows[0].faces) in (16, 25, 36):
        n = {16: 4, 25: 5, 36: 6}[len(rows[0].faces)]
        flat = rows[0].faces
        return Grid(n, tuple(flat))
    n = len(rows[0].faces)
    first = _Where(name, is_file, rows[0].line, rows[0].column, 1, rows[0].shared_line)
    if n not in SIZES:
        raise InputError(
            f"{first.row()}: a row of {plural(n, 'die', 'dice')}; a Boggle grid is 4x4, 5x5 or 6x6 "
            f"(or one row of 16, 25 or 36 dice)" + _qu_hint(rows[0].faces)
        )
    for index, row in enumerate(rows, 1):
        where = _Where(name, is_file, row.line, row.column, index, row.shared_line)
        if index > n:
            raise InputError(f"{where.row()}: more than {n} rows, but the rows have {n} dice (the grid must be square)")
        if len(row.faces) != n:
            raise InputError(
                f"{where.row()}: row has {plural(len(row.faces), 'die', 'dice')}, expected {n} like row 1 "
                "(the grid must be square)" + _qu_hint(row.faces)
            )
    if len(rows) != n:
        raise InputError(f"{name}: {plural(len(rows), 'row')} of {n} dice; a {n}x{n} grid needs {n} rows")
    return Grid(n, tuple(face for row in rows for face in row.faces))


def _qu_hint(faces: list[str]) -> str:
    return "; note that Qu (or Q) is one die" if "QU" in faces else ""


@dataclass
class _Where:
    name: str
    is_file: bool
    line: int
    column: int  # where the row starts on its line
    row_number: int
    shared_line: bool

    def row(self) -> str:
        if self.is_file:
            return f"{self.name}, line {self.line}" + (f", column {self.column}" if self.shared_line else "")
        return f"{self.name}, row {self.row_number}"

    def at(self, offset: int) -> str:
        """The place of the character ``offset`` (0-based) in the row's text."""
        if self.is_file:
            return f"{self.name}, line {self.line}, column {self.column + offset}"
        return f"{self.name}, row {self.row_number}, column {offset + 1}"


def _tokenize(piece: str, where: _Where) -> list[str]:
    faces: list[str] = []
    i = 0
    while i < len(piece):
        ch = piece[i]
        if ch in " \t":
            i += 1
        elif ch == ".":
            faces.append("")
            i += 1
        elif ch.isascii() and ch.isalpha():
            if ch in "Qq":
                faces.append("QU")
                i += 2 if piece[i + 1 : i + 2] in ("u", "U") else 1
            else:
                faces.append(ch.upper())
                i += 1
        elif ch == "[":
            close = piece.find("]", i + 1)
            if close < 0:
                raise InputError(f"{where.at(i)}: '[' without a closing ']' (write a face such as [Th])")
            inside = piece[i + 1 : close]
            if not inside:
                raise InputError(f"{where.at(i)}: empty face '[]' (write the letters on the face, e.g. [Th])")
            for k, letter in enumerate(inside, i + 1):
                if not (letter.isascii() and letter.isalpha()):
                    raise InputError(
                        f"{where.at(k)}: unexpected character {shown_char(letter)} inside [...] (only letters)"
                    )
            faces.append(inside.upper())
            i = close + 1
        else:
            raise InputError(f"{where.at(i)}: unexpected character {shown_char(ch)} ({CHAR_HELP})")
    return faces


_PATH_LIKE = re.compile(r"(^(/|\./|\.\./|~))|(\.[A-Za-z][A-Za-z0-9]{1,4}$)")


def load_grid(argument: str) -> tuple[Grid, str]:
    """``GRID`` on the command line: an existing file, else a grid string.

    Returns the grid and the file name ("" for a grid string). A string that does not parse
    but looks like a file name (``x.txt``, ``./x``) is reported as a missing file rather than
    as a bad grid.
    """
    path = Path(argument)
    if argument and path.exists():
        return parse_grid(read_grid_file(path, argument), argument), argument
    try:
        return parse_grid(argument), ""
    except InputError:
        if _PATH_LIKE.search(argument.strip()):
            raise InputError(f"no grid file {argument!r} (no such file); a grid string is {GRID_HELP}") from None
        raise


def read_grid_file(path: Path, name: str) -> str:
    # read_limited: bounded, and a FIFO with no writer reads as empty instead of hanging
    return decode_grid_bytes(read_limited(path, MAX_GRID_BYTES, "grid file"), name)


def decode_grid_bytes(data: bytes, name: str) -> str:
    if len(data) > MAX_GRID_BYTES:
        raise InputError(f"{name}: far too large for a grid file (over {MAX_GRID_BYTES:,} bytes)")
    if b"\0" in data:
        raise InputError(f"{name}: not a text file (it contains NUL bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{name}: not UTF-8 text (bad byte at offset {exc.start})") from None


def roll_grid(size: int, seed: int) -> Grid:
    """Shake the standard dice of ``size`` into the tray: reproducible for a given seed.

    ``random.Random(seed)`` shuffles the dice into the squares, then picks each die's
    top face (each of the six faces equally likely).
    """
    if size not in DICE_SETS:
        raise InputError(f"no dice set for a {size}x{size} grid (sizes: 4, 5, 6)")
    rng = random.Random(seed)
    dice = list(DICE_SETS[size].dice)
    rng.shuffle(dice)
    return Grid(size, tuple(rng.choice(die) for die in dice))


# ---------------------------------------------------------------------------------------
# Solving


@dataclass(frozen=True)
class FoundWord:
    word: str  # uppercase letters, QU spelled out
    score: int
    path: tuple[tuple[int, int], ...]  # (row, col) of each die, 0-based


@dataclass
class BoggleResult:
    grid: Grid
    min_length: int
    words: list[FoundWord]  # score descending, then alphabetical

    @property
    def total(self) -> int:
        return sum(w.score for w in self.words)


def _neighbours(n: int) -> tuple[tuple[int, ...], ...]:
    """For each square, its up-to-8 neighbours in reading (row-major) order."""
    out = []
    for r in range(n):
        for c in range(n):
            out.append(
                tuple(
                    rr * n + cc
                    for rr in range(r - 1, r + 2)
                    for cc in range(c - 1, c + 2)
                    if (rr, cc) != (r, c) and 0 <= rr < n and 0 <= cc < n
                )
            )
    return tuple(out)


def solve_boggle(grid: Grid, gaddag: Gaddag, min_length: int | None = None) -> BoggleResult:
    """Every lexicon word of at least ``min_length`` letters that the grid spells.

    A word found along several paths is listed once, with the first path in reading order
    (the lexicographically smallest sequence of squares, row-major).
    """
    n = grid.size
    if min_length is None:
        min_length = default_min_length(n)
    nodes = gaddag.nodes
    neighbours = _neighbours(n)
    codes = [tuple(CODE[ch] for ch in face) for face in grid.faces]
    first = [c[0] if c else 0 for c in codes]  # bit 0 is never set in a DAWG state
    found: dict[str, tuple[int, ...]] = {}
    letters: list[str] = []
    path: list[int] = []
    blocked = 0
    for cell, face in enumerate(grid.faces):
        if not face:
            blocked |= 1 << cell

    def visit(cell: int, state: int, used: int) -> None:
        # Read the face's letters (one, or two for Qu / Th ...) through the DAWG.
        for code in codes[cell]:
            mask = nodes[state]
            if not mask >> code & 1:
                return
            state = nodes[state + 1 + (mask & BELOW[code]).bit_count()]
        used |= 1 << cell
        letters.append(grid.faces[cell])
        path.append(cell)
        mask = nodes[state]
        if mask & FINAL:
            word = "".join(letters)
            if len(word) >= min_length and word not in found:
                found[word] = tuple(path)
        if mask & LETTER_BITS:
            for nb in neighbours[cell]:
                if not used >> nb & 1 and mask >> first[nb] & 1:
                    visit(nb, state, used)
        letters.pop()
        path.pop()

    root = gaddag.dawg_root
    root_mask = nodes[root]
    for cell in range(n * n):
        if not blocked >> cell & 1 and root_mask >> first[cell] & 1:
            visit(cell, root, blocked)

    words = [
        FoundWord(word, boggle_score(len(word)), tuple(divmod(cell, n) for cell in cells))
        for word, cells in found.items()
    ]
    words.sort(key=lambda w: (-w.score, w.word))
    return BoggleResult(grid, min_length, words)


def result_json(result: BoggleResult, lexicon: str) -> dict[str, object]:
    """The JSON-ready form of a result (without the ``--random`` fields)."""
    return {
        "grid": result.grid.rows(),
        "grid_text": result.grid.to_text(),
        "size": result.grid.size,
        "lexicon": lexicon,
        "min_length": result.min_length,
        "words": [{"word": w.word, "score": w.score, "path": [list(p) for p in w.path]} for w in result.words],
        "word_count": len(result.words),
        "total": result.total,
    }
