"""Fuzz targets for scrab's native code (issue #15): the move generator's check of a node
array and the move generator itself (``solver_cli.engine._movegen_c``), and the GADDAG
builder (``solver_cli.lexicon._build_c``).

Each target decodes its bytes into the C functions' arguments and checks what must hold:

- ``movegen``: a node array (a real GADDAG of a small word list, one with entries changed,
  or an arbitrary one laid out child-first), a rule set (a shipped one, one with a field
  changed, or a random board of 2 to 26 squares a side), a board, a rack, ``keep`` and
  ``sort``. ``Lexicon`` accepts exactly the arrays the Python twin's check
  (``gaddag.structure_problem``) accepts; ``Layout`` and ``generate`` refuse, with a
  ValueError, exactly the arguments that break their contract. On an accepted array every
  move places rack tiles (letters, blanks as letters) on empty squares, makes one whole
  word along its line through an anchor, scores at least 0, and comes back ranked and cut
  to ``keep`` as asked; the moves are the Python engine's (``_movegen_py.generate_moves``),
  the same moves with the same scores, and on a real GADDAG every word they form is in the
  word list.
- ``rollout``: the simulation's native play-outs on fuzzed word lists, boards, rule sets,
  racks, bags and leave tables give the twin's outcomes (their replies skip anchors by a
  bound on their moves' equity; the twin's take the move generator's best move).
- ``build``: raw bytes, or a sorted word list, with size limits. The C builder refuses
  (ValueError) exactly the texts that are not sorted, unique words of 1 to 64 letters A-Z,
  stops at a size limit (LimitError) exactly where the Python builder does, and otherwise
  gives the Python builder's node array entry for entry: a GADDAG that passes the
  structure check and accepts the words and nothing else.

A crash in C (a segfault, or an AddressSanitizer report when the extensions are built with
it) ends the run; atheris then writes the input to a crash file. Run them with the drivers
of fuzz_readers.py (libFuzzer's options after the name, or ``--hypothesis N``)::

    python tests/fuzz/fuzz_native.py movegen -max_total_time=600
    python tests/fuzz/fuzz_native.py build --hypothesis 2000

docs/security.md shows how to build the extensions for coverage of the C code itself.
"""

from __future__ import annotations

import functools
import random
import struct
import sys
from array import array
from collections import Counter
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz_readers import Suite, _all_rules, main  # noqa: E402

# atheris instruments the Python twin of the C array check; the C code's own coverage comes
# from building it with clang's -fsanitize=fuzzer-no-link (the Python move generator and
# builder, which every input also runs, would only slow the run down if instrumented).
NATIVE = Suite(instrument=("solver_cli.engine.gaddag",))
target = NATIVE.target

FINAL = 1 << 27
SEP = 1
BLANK_BIT = 32
LETTERS = frozenset(range(1, 27)) | frozenset(range(BLANK_BIT + 1, BLANK_BIT + 27))
MAX_RACK = 20  # the native generator's limits (native/scrab.h)
MAX_MULT = 4
MAX_VALUE = 1000
MAX_BINGO = 10_000
MAX_SIDE = 26
MAX_KEEP = 1 << 24
RECORD = struct.Struct("=qi6B26s4x")  # as engine/movegen.py reads it
COMMON = "AEIOSTRNLCDUGPMHBYFKWVZXQJ"  # letters by how often they make words, for a busy GADDAG


class Source:
    """The fuzzer's bytes read as numbers. Once they run out, bytes drawn from a generator
    seeded with them: every input decodes to a whole case, and a short one to a varied case
    rather than to zeros (the fuzzer still steers the case through the leading bytes)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0
        self.more = random.Random(data)

    def byte(self) -> int:
        self.at += 1
        return self.data[self.at - 1] if self.at <= len(self.data) else self.more.randrange(256)

    def below(self, n: int) -> int:
        """A number in 0..n-1 (n <= 65,536)."""
        value = self.byte() if n <= 256 else self.byte() << 8 | self.byte()
        return value % n

    def chance(self, sixteenths: int) -> bool:
        return self.below(16) < sixteenths

    def raw(self, n: int) -> bytes:
        return bytes(self.byte() for _ in range(n))


def _word_list(src: Source, longest: int = 8) -> list[str]:
    words = set()
    for _ in range(1 + src.below(24)):
        size = 1 + src.below(longest) if src.chance(2) else 2 + src.below(min(longest, 6) - 1)
        words.add("".join(COMMON[src.below(26) if src.chance(3) else src.below(8)] for _ in range(size)))
    return sorted(words)


@functools.lru_cache(maxsize=512)
def _python_gaddag(words: tuple[str, ...]):  # -> Gaddag
    from solver_cli.lexicon.build import build_gaddag

    return build_gaddag(list(words), builder="python")


# ------------------------------------------------------------------------------ movegen


def _node_array(src: Source, real: list[int]) -> tuple[list[int], int, int, str]:
    """(nodes, root, dawg_root, how): the real GADDAG's, with entries changed, or arbitrary."""
    how = ("real", "real", "changed", "arbitrary")[src.below(4)]
    if how == "changed":
        nodes = list(real)
        for _ in range(1 + src.below(4)):
            at = src.below(len(nodes))
            if src.chance(8):
                nodes[at] ^= 1 << src.below(32)
            else:
                nodes[at] = src.below(len(nodes) + 4)
        return nodes, src.below(len(nodes) + 2), src.below(len(nodes) + 2), how
    if how == "arbitrary":  # states laid out child-first, as the check requires, with any masks
        nodes, states = [], []
        for _ in range(1 + src.below(40)):
            mask = (src.byte() << 24 | src.byte() << 16 | src.byte() << 8 | src.byte()) & (FINAL | (FINAL - 1))
            if not states:
                mask &= FINAL
            else:
                mask &= src.byte() * 0x01010101 | FINAL | SEP  # often sparse
            states.append(len(nodes))
            nodes.append(mask)
            nodes += [states[src.below(len(states) - 1)] for _ in range((mask & (FINAL - 1)).bit_count())]
        return nodes, states[src.below(len(states))], states[src.below(len(states))], how
    return list(real), -1, -1, how  # the roots are the GADDAG's


def _rules(src: Source):  # -> (Rules, whether the native Layout must accept it)
    from solver_cli.engine.rules import Rules

    kind = src.below(8)
    if kind < 5:
        return _all_rules()[kind % 3], True
    if kind == 5:  # a random board
        rows, cols = 2 + src.below(MAX_SIDE - 1), 2 + src.below(MAX_SIDE - 1)
        size = rows * cols
        mult = [(1 + src.below(MAX_MULT), 1 + src.below(MAX_MULT)) if src.chance(3) else (1, 1) for _ in range(size)]
        values = (0, *(src.below(MAX_VALUE + 1) if src.chance(2) else src.below(11) for _ in range(26)))
        rules = Rules(
            name="fuzz",
            title="fuzz",
            rows=rows,
            cols=cols,
            layout=tuple("." * cols for _ in range(rows)),
            letter_mult=tuple(m[0] for m in mult),
            word_mult=tuple(m[1] for m in mult),
            values=values,
            counts=(2,) + (9,) * 26,
            rack_size=1 + src.below(MAX_RACK),
            bingo_bonus=src.below(MAX_BINGO + 1),
            centre=(src.below(rows), src.below(cols)),
        )
        return rules, True
    rules = _all_rules()[src.below(3)]  # one field out of (or at the edge of) its range
    field = src.below(6)
    value = src.below(65536) - 32768 if src.chance(4) else src.below(24) - 2
    if field in (0, 1):  # a multiplier reaches C as one byte: 0 and 5..7 are out of range
        mults = list(rules.letter_mult if field == 0 else rules.word_mult)
        mults[src.below(len(mults))] = src.below(8)
        rules = replace(rules, **{"letter_mult" if field == 0 else "word_mult": tuple(mults)})
        return rules, all(1 <= m <= MAX_MULT for m in mults)
    if field == 2:
        values = list(rules.values)
        values[src.below(27)] = value * 40
        return replace(rules, values=tuple(values)), all(0 <= v <= MAX_VALUE for v in values)
    if field == 3:
        return replace(rules, rack_size=value), 1 <= value <= MAX_RACK
    if field == 4:
        return replace(rules, bingo_bonus=value * 500), 0 <= value * 500 <= MAX_BINGO
    centre = (value, src.below(rules.cols + 2) - 1)
    return replace(rules, centre=centre), 0 <= centre[0] < rules.rows and 0 <= centre[1] < rules.cols


def _native_layout(rules):  # -> _movegen_c.Layout
    from solver_cli.engine import _movegen_c

    row, col = rules.centre
    centre = row * rules.cols + col if 0 <= col < rules.cols else -1
    return _movegen_c.Layout(
        rules.rows,
        rules.cols,
        bytes(rules.letter_mult),
        bytes(rules.word_mult),
        rules.values,
        rules.rack_size,
        rules.bingo_bonus,
        centre,
    )


def _board(src: Source, rules, words: list[str]) -> tuple[list[int], bool]:
    """(squares, whether every square holds a valid code): empty, scattered tiles, or words
    of the list written on the board (so that moves build on them)."""
    size = rules.rows * rules.cols
    squares = [0] * size
    for _ in range(src.below(6)):  # words from the list, across or down
        word = words[src.below(len(words))]
        down = src.chance(8)
        line, start = src.below(rules.cols if down else rules.rows), src.below(rules.rows if down else rules.cols)
        for k, ch in enumerate(word):
            if start + k >= (rules.rows if down else rules.cols):
                break
            at = (start + k) * rules.cols + line if down else line * rules.cols + start + k
            squares[at] = (ord(ch) - 64) | (BLANK_BIT if src.chance(1) else 0)
    for _ in range(src.below(12) if src.chance(6) else 0):  # scattered tiles
        code = src.byte()  # a letter or a blank, or now and then any byte at all
        code = src.byte() if code >= 250 else 1 + code % 26 | (BLANK_BIT if code % 7 == 0 else 0)
        squares[src.below(size)] = code
    return squares, all(code == 0 or code in LETTERS for code in squares)


def _rack(src: Source) -> list[int]:
    rack = [0] * 27
    if src.below(32) == 0:  # any counts: more than a rack holds, now and then
        return list(src.raw(27))
    size = src.below(8) if src.chance(15) else src.below(MAX_RACK + 3)
    for _ in range(size):
        rack[0 if src.chance(2) else ord(COMMON[src.below(26) if src.chance(4) else src.below(10)]) - 64] += 1
    return rack


def _check_move(move, board: list[int], rules, rack: list[int], words: set[str] | None) -> None:
    score, down, line, start, codes = move
    rows, cols = rules.rows, rules.cols
    along, across = (rows, cols) if down else (cols, rows)
    assert score >= 0 and 0 <= line < across and codes and start >= 0 and start + len(codes) <= along, move

    def at(k: int) -> int:  # index of the k-th square along the move's line
        return k * cols + line if down else line * cols + k

    assert start == 0 or board[at(start - 1)] == 0, move  # the word is whole
    assert start + len(codes) == along or board[at(start + len(codes))] == 0, move
    new = [(at(start + k), code) for k, code in enumerate(codes) if board[at(start + k)] == 0]
    assert all(code == board[at(start + k)] for k, code in enumerate(codes) if board[at(start + k)]), move
    assert new and all(code in LETTERS for _, code in new), move
    used = Counter(0 if code & BLANK_BIT else code for _, code in new)
    assert all(used[code] <= rack[code] for code in used), (move, rack)
    if not any(board):
        assert any(square == rules.centre[0] * cols + rules.centre[1] for square, _ in new), move
    else:

        def neighbours(square: int) -> list[int]:
            r, c = divmod(square, cols)
            return [
                (r + dr) * cols + c + dc
                for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                if 0 <= r + dr < rows and 0 <= c + dc < cols
            ]

        assert len(new) < len(codes) or any(board[n] for square, _ in new for n in neighbours(square)), move
    if words is not None:  # a real GADDAG: every word the move forms is in the list
        formed = []
        for square, code in new:  # the cross-word through each new tile, if any
            r, c = divmod(square, cols)
            cells, pos = (
                ([board[r * cols + k] for k in range(cols)], c)
                if down
                else ([board[k * cols + c] for k in range(rows)], r)
            )
            cells[pos] = code
            lo, hi = pos, pos
            while lo > 0 and cells[lo - 1]:
                lo -= 1
            while hi + 1 < len(cells) and cells[hi + 1]:
                hi += 1
            if hi > lo:
                formed.append(_spelled(cells[lo : hi + 1]))
        if len(codes) > 1 or not formed:
            formed.append(_spelled(codes))
        assert all(word in words for word in formed), (move, formed)


def _spelled(codes) -> str:
    return "".join(chr(64 + (code & 31)) for code in codes)


def _movegen_seeds() -> list[bytes]:
    """Found by a search for short inputs that decode to positions with moves, compared with
    the Python twin: a real GADDAG with every move and with the best few, an arbitrary array
    likewise (the bytes after these come from the generator seeded with them)."""
    return [
        bytes.fromhex(text)
        for text in (
            "b08215df3c101b7fe7f9a014",
            "06f2bf7ec70209e0cd05ee57",
            "58a9905cad87bd4c77e2983f",
            "5870f9309009e446e18bcd0a",
        )
    ]


@target(_movegen_seeds)
def fuzz_movegen(data: bytes) -> None:
    from solver_cli.engine import _movegen_c, _movegen_py
    from solver_cli.engine.board import Board
    from solver_cli.engine.gaddag import Gaddag, structure_problem
    from solver_cli.engine.movegen import rank_key

    src = Source(data)
    words = _word_list(src)
    real = _python_gaddag(tuple(words))
    nodes, root, dawg_root, how = _node_array(src, list(real.nodes))
    if how == "real":
        root, dawg_root = real.root, real.dawg_root
    typed = array("I", nodes)
    problem = structure_problem(typed, root, dawg_root)
    try:
        lexicon = _movegen_c.Lexicon(typed, root, dawg_root)
    except ValueError as exc:
        assert problem is not None and str(exc) == f"not a usable GADDAG: {problem}", (exc, problem)
        return
    assert problem is None
    rules, layout_ok = _rules(src)
    try:
        layout = _native_layout(rules)
    except ValueError:
        assert not layout_ok, rules
        return
    assert layout_ok, rules
    squares, board_ok = _board(src, rules, words)
    rack = _rack(src)
    rack_ok = sum(rack) <= MAX_RACK
    keep = (0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 10, 40, src.below(200), 0, MAX_KEEP + 1)[src.below(16)]
    sort = src.chance(8)
    try:
        total, records = _movegen_c.generate(lexicon, layout, bytes(squares), bytes(rack), keep=keep, sort=sort)
    except ValueError:
        assert not (board_ok and rack_ok and keep <= MAX_KEEP), (squares, rack, keep)
        return
    assert board_ok and rack_ok and keep <= MAX_KEEP
    moves = []
    for score, _leave, kind, down, line, start, length, blanks, codes in RECORD.iter_unpack(records):
        assert kind == 0 and down in (0, 1) and length <= MAX_SIDE and not any(codes[length:]), codes
        moves.append((score, bool(down), line, start, tuple(codes[:length])))
        assert blanks == sum(code >= BLANK_BIT for code in codes[:length])
    assert len(moves) == (total if keep == 0 else min(keep, total))
    lexicon_words = set(words) if how == "real" else None
    for move in moves:
        _check_move(move, squares, rules, rack, lexicon_words)
    if sum(rack) > 9 or rack[0] > 3:
        return  # the Python twin is too slow for a rack this large
    gaddag = Gaddag(typed, root, dawg_root, 0, 0)
    python = _movegen_py.generate_moves(Board(rules.rows, rules.cols, list(squares)), list(rack), gaddag, rules)
    if keep == 0 and not sort:
        assert Counter(moves) == Counter(python), (Counter(moves) - Counter(python), Counter(python) - Counter(moves))
    else:
        ranked = sorted(python, key=rank_key)
        assert len(python) == total and moves == (ranked[:keep] if keep else ranked)


@target(_movegen_seeds)
def fuzz_wordprune(data: bytes) -> None:
    """The endgame's word pruning (native/wordprune.c) on fuzzed boards and tiles: refuses a
    bad square, else finds exactly the words of its Python twin, each the lexicon's."""
    from solver_cli.engine import _movegen_c
    from solver_cli.engine.board import Board
    from solver_cli.engine.gaddag import Gaddag
    from solver_cli.lookahead import wordprune

    src = Source(data)
    words = _word_list(src)
    real = _python_gaddag(tuple(words))
    lexicon = _movegen_c.Lexicon(real.nodes, real.root, real.dawg_root)
    rules, _ = _rules(src)
    if not (1 <= rules.rows <= MAX_SIDE and 1 <= rules.cols <= MAX_SIDE):
        return
    squares, board_ok = _board(src, rules, words)
    tiles = [min(n, 255) for n in _rack(src)]
    try:
        found = _movegen_c.possible_words(lexicon, bytes(squares), rules.rows, rules.cols, bytes(tiles))
    except ValueError:
        assert not board_ok, squares
        return
    assert board_ok and found is not None
    native = sorted(set(found.decode("ascii").split()))
    assert set(native) <= set(words)
    if sum(tiles) > 9 or tiles[0] > 2:
        return  # the Python twin is too slow for this many tiles
    gaddag = Gaddag(real.nodes, real.root, real.dawg_root, 0, 0)
    board = Board(rules.rows, rules.cols, list(squares))
    assert wordprune.possible_words(board, tiles, gaddag, "python") == native


# ------------------------------------------------------------------------------ rollout


@functools.lru_cache(maxsize=4)
def _leave_table(kind: int):  # -> LeaveTable
    """No leave values, small ones, or ones so wide that replies exchange and pass."""
    from solver_cli.engine.leaves import TABLE_SIZE, LeaveTable

    rng = random.Random(kind)
    spread = (0, 600, 30_000, 3_000)[kind]
    return LeaveTable(array("h", (rng.randrange(-spread, spread + 1) for _ in range(TABLE_SIZE))), f"fuzz-{kind}")


def _tiles(src: Source, most: int) -> list[int]:
    rack = [0] * 27
    for _ in range(src.below(most + 1)):
        rack[0 if src.chance(2) else ord(COMMON[src.below(26) if src.chance(4) else src.below(10)]) - 64] += 1
    return rack


@target(_movegen_seeds)
def fuzz_rollout(data: bytes) -> None:
    """The simulation's native play-outs (native/rollout.c), whose replies walk the anchors
    best bound first and skip those whose bound cannot beat the best found (movegen.c's
    generate_best), on fuzzed word lists, boards, rule sets (any size, multipliers, values,
    rack size and bingo bonus), racks, bags and leave tables: every outcome is the twin's,
    whose replies are the move generator's best move, found without any bound."""
    from solver_cli.engine.board import Board
    from solver_cli.engine.movegen import EXCHANGE, PASS, Candidate
    from solver_cli.lookahead import rollout, sim

    src = Source(data)
    words = _word_list(src)
    gaddag = _python_gaddag(tuple(words))
    rules, layout_ok = _rules(src)
    if not layout_ok:
        return
    squares, board_ok = _board(src, rules, words)
    if not board_ok:
        return
    size = min(rules.rack_size, MAX_RACK)
    rack, opponent, bag = _tiles(src, size), _tiles(src, size), _tiles(src, 2 * size)
    if src.chance(6):  # the reply can play out its whole rack, a word of the list: a bingo
        word = words[src.below(len(words))]
        rules = replace(rules, rack_size=len(word))
        opponent = [0] * 27
        for ch in word:
            opponent[0 if src.chance(1) else ord(ch) - 64] += 1
    if src.chance(3):
        bag = [0] * 27  # the bag empty: the replies rank by the end-of-game adjustments
    rules = replace(rules, exchange_max=min(rules.exchange_max, rules.rack_size))  # as a rule file must
    bag_order = [code for code, n in enumerate(bag) for _ in range(n)]
    random.Random(src.byte()).shuffle(bag_order)
    leaves = _leave_table(src.below(4))
    board = Board(rules.rows, rules.cols, list(squares))
    found = sim.sim_candidates(board, rack, gaddag, rules, leaves, 1 + src.below(4))
    allowed = rollout.exchange_allowed(rules, len(bag_order))  # a candidate exchange, as sim allows
    found = [c for c in found if c.kind != EXCHANGE or len(c.codes) <= allowed]
    candidates = list(dict.fromkeys([*found, Candidate(0, 0, PASS, False, 0, 0, ())]))
    plies, scoreless, seed = 1 + src.below(4), src.below(rules.scoreless_turns), src.below(65536)
    live = range(len(candidates))
    args = (board, rack, gaddag, rules, leaves)
    native = rollout.play_outs(
        *args, candidates, rollout.pack_candidates(candidates), live, opponent, bag_order, seed, plies, scoreless,
        "native",
    )  # fmt: skip
    twin = [rollout.play_out(*args, c, opponent, bag_order, seed, plies, scoreless, "native") for c in candidates]
    assert native == twin, (native, twin)


# ------------------------------------------------------------------------------ build


def _build_seeds() -> list[bytes]:
    return [
        bytes([1, 0]) + b"AT\nCAT\nCATS\nQI\nZA",
        bytes([2, 7, 5, 3, 1, 9, 8, 2, 4, 6, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9]) * 3,
        bytes([3, 1, 2, 30, 0, 0, 5, 12, 12, 1, 8, 3]) * 4,
        bytes([0, 0]) + b"A\nAB\nABC\nB\nBA\nBAD",
    ]


@target(_build_seeds)
def fuzz_build(data: bytes) -> None:
    from solver_cli.engine.gaddag import Gaddag, structure_problem
    from solver_cli.lexicon import _build_c
    from solver_cli.lexicon.build import _build_python, _LimitReached

    src = Source(data)
    mode = src.below(4)
    # raw bytes, valid or not; or a sorted list of short words, or of words up to 64 letters
    text = data[1:] if mode == 0 else "\n".join(_word_list(src, 64 if mode == 3 else 10)).encode()
    limits = src.below(5)
    max_entries = 1 << 24 if limits < 2 else 1 + src.below(3000)
    max_prefixes = 1 << 22 if limits in (0, 2) else src.below(400)
    try:
        native = _build_c.build(text, max_entries, max_prefixes)
    except ValueError as exc:
        assert not _valid_word_text(text), (text, exc)
        return
    except _build_c.LimitError as exc:
        native = ("limit", *exc.args)
    assert _valid_word_text(text), text
    words = text.decode().split("\n") if text else []
    try:
        python = _build_python(words, lambda phase, fraction: None, max_entries, max_prefixes)
    except _LimitReached as exc:
        assert native == ("limit", exc.what, exc.limit), (native, exc.what, exc.limit)
        return
    assert native[0] != "limit", (native, words)
    blob, root, dawg_root, states, arcs = native
    assert blob == python.nodes.tobytes(), words
    assert (root, dawg_root, states, arcs) == (python.root, python.dawg_root, python.state_count, python.arc_count)
    nodes = array("I")
    nodes.frombytes(blob)
    assert structure_problem(nodes, root, dawg_root) is None and len(nodes) == states + arcs
    gaddag = Gaddag(nodes, root, dawg_root, states, arcs)
    assert all(gaddag.contains(word) for word in words)
    others = {word[:-1] for word in words} | {word + "S" for word in words} | {word[::-1] for word in words}
    assert not any(gaddag.contains(word) for word in others - set(words) if word)


def _valid_word_text(text: bytes) -> bool:
    """Sorted, unique words of 1 to 64 letters A-Z joined by newlines (or no words at all)."""
    if not text:
        return True
    words = text.split(b"\n")
    return all(1 <= len(w) <= 64 and w.isalpha() and w.isupper() and w.isascii() for w in words) and all(
        a < b for a, b in zip(words, words[1:], strict=False)
    )


if __name__ == "__main__":
    main(sys.argv, NATIVE)
