"""Coverage-guided fuzz targets for scrab's readers: board files, racks, CGP, GCG game
records, rule files and the lexicon cache (the native code's targets are in fuzz_native.py,
which uses the drivers here).

Each target takes raw bytes and feeds them to one reader. A reader may refuse its input only
with a ``ScrabError`` (the one-line error users see); any other exception, a hang or a crash
is a bug, and so is an accepted input that breaks the target's own checks (a round trip, a
limit). Run one target with atheris (libFuzzer's options after the name)::

    python tests/fuzz/fuzz_readers.py board -runs=100000
    python tests/fuzz/fuzz_readers.py cache -max_total_time=600 corpus-dir/

Without atheris, ``--hypothesis N`` runs N Hypothesis-generated inputs instead (random bytes
and mutations of the seeds); tests/fuzz/test_fuzz_readers.py runs every target for a bounded
number of inputs either way. A new target is one function here with the ``@target`` decorator
(and, optionally, its seed inputs).
"""

from __future__ import annotations

import functools
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
try:
    import solver_cli  # noqa: F401  (the installed copy: the one under test)
except ImportError:  # run as a script from a checkout where scrab is not installed
    sys.path.insert(0, str(ROOT))

Target = Callable[[bytes], None]


@dataclass
class Suite:
    """A set of fuzz targets, each with a function giving its seed inputs (this file's
    readers; fuzz_native.py has the native code's), and the modules atheris instruments for
    coverage when it runs them."""

    instrument: tuple[str, ...]
    targets: dict[str, Target] = field(default_factory=dict)
    seeds: dict[str, Callable[[], list[bytes]]] = field(default_factory=dict)

    def target(self, seeds: Callable[[], list[bytes]] = list) -> Callable[[Target], Target]:
        """Register ``fuzz_NAME`` as the target NAME, with a function giving its seed inputs."""

        def register(func: Target) -> Target:
            name = func.__name__.removeprefix("fuzz_")
            self.targets[name] = func
            self.seeds[name] = seeds
            return func

        return register


READERS = Suite(
    instrument=(
        "solver_cli.engine.alphabet",
        "solver_cli.engine.rules",
        "solver_cli.formats.boardfile",
        "solver_cli.formats.cgp",
        "solver_cli.formats.gcg_read",
        "solver_cli.formats.position",
        "solver_cli.lexicon.cache",
    )
)
TARGETS, SEEDS, target = READERS.targets, READERS.seeds, READERS.target


def run_one(name: str, data: bytes, suite: Suite = READERS) -> None:
    """Feed one input to a target: a ScrabError is a proper refusal; anything else escapes."""
    from solver_cli.errors import ScrabError

    try:
        suite.targets[name](data)
    except ScrabError as exc:
        message = str(exc)
        assert message and "\n" not in message, f"an error message must be one line: {message!r}"


@functools.cache
def _rules():  # the standard rules, loaded once
    from solver_cli.engine.rules import load_rules

    return load_rules("scrabble")


@functools.cache
def _all_rules():  # the shipped rule sets, loaded once
    from solver_cli.engine.rules import load_rules

    return tuple(load_rules(name) for name in ("scrabble", "wwf", "super"))


# ------------------------------------------------------------------------------ the targets


def _board_seeds() -> list[bytes]:
    return [p.read_bytes() for p in sorted((ROOT / "boards").glob("*.txt")) if "grid" not in p.name]


@target(_board_seeds)
def fuzz_board(data: bytes) -> None:
    from solver_cli.formats.boardfile import parse_board
    from solver_cli.formats.position import decode_board_bytes

    rules = _rules()
    board = parse_board(decode_board_bytes(data, "fuzz"), rules, "fuzz")
    assert (board.rows, board.cols) == (rules.rows, rules.cols)
    again = parse_board(board.to_text(), rules, "round trip")  # what scrab writes, it reads back
    assert again.squares == board.squares


@target(lambda: [b"AEIRST?", b"??", b"qu", b"Z", b" retains "])
def fuzz_rack(data: bytes) -> None:
    from solver_cli.engine.alphabet import parse_rack, rack_text

    text = data.decode("utf-8", "replace")
    counts = parse_rack(text, 7)
    assert len(counts) == 27 and min(counts) >= 0 and 0 < sum(counts) <= 7
    assert parse_rack(rack_text(counts), 7) == counts


def _cgp_seeds() -> list[bytes]:
    return [
        b"15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEIRST?/ 0/0 0 lex kjxqz;",
        b"15/15/15/15/15/15/15/3FORMATS5/15/15/15/15/15/15/15 QS/ABC 12/0 0",
        b"# a comment\n7RETAINs1/15/15/15/15/15/15/15/15/15/15/15/15/15/15 ?/ 70/0 1 bdn 2; lex sowpods;\n",
    ]


@target(_cgp_seeds)
def fuzz_cgp(data: bytes) -> None:
    from solver_cli.formats.cgp import format_cgp, parse_cgp

    position = parse_cgp(data.decode("utf-8", "replace"), "fuzz")
    try:
        text = format_cgp(position)
    except ValueError:  # a position CGP cannot write back (documented); reading it was fine
        return
    assert parse_cgp(text, "round trip") == position


def _gcg_seeds() -> list[bytes]:
    """The sample records that replay (those in bad/ are refused, which a seed may not be)."""
    folder = ROOT / "tests" / "formats" / "gcg"
    return [p.read_bytes() for p in sorted([*folder.glob("*.gcg"), *folder.glob("warn/*.gcg")])]


# Words for the replay's phony check: some of the seed records' words, so both outcomes occur.
_GCG_WORDS = frozenset(["WEAVE", "JUTE", "GONIA", "JO", "UN", "TI", "UNITIZE", "GELADA", "INSECT", "QI", "ZA"])


@target(_gcg_seeds)
def fuzz_gcg(data: bytes) -> None:
    from solver_cli.engine.alphabet import BLANK_BIT
    from solver_cli.engine.history import TURN_KINDS
    from solver_cli.formats.gcg_read import MAX_EVENTS, decode_gcg, read_gcg

    rules = _all_rules()[len(data) % 2]  # Scrabble and Words with Friends in turn (both 15x15)
    record = read_gcg(decode_gcg(data, "fuzz"), rules, "fuzz", _GCG_WORDS.__contains__)
    cols, size = rules.cols, rules.rows * rules.cols
    letters = {*range(1, 27), *range(BLANK_BIT + 1, BLANK_BIT + 27)}
    boards = [turn.board for turn in record.turns] + [record.final_board]
    assert len(record.turns) <= MAX_EVENTS
    assert all(len(board) == size and set(board) <= letters | {0} for board in boards)
    assert [turn.number for turn in record.turns] == list(range(1, len(record.turns) + 1))
    assert all(a.line < b.line for a, b in zip(record.turns, record.turns[1:], strict=False))
    for turn, after in zip(record.turns, boards[1:], strict=True):
        assert turn.kind in TURN_KINDS and turn.player in (0, 1), turn
        if turn.kind == "play":  # new tiles on empty squares, and on the board after the turn
            assert turn.placed and (turn.computed is None or turn.computed >= 0), turn
            for row, col, code in turn.placed:
                assert turn.board[row * cols + col] == 0 and after[row * cols + col] == code in letters, turn
            changed = [i for i in range(size) if after[i] != turn.board[i]]
            assert sorted(changed) == sorted(row * cols + col for row, col, _ in turn.placed), turn
        elif turn.kind == "withdrawn":  # tiles only taken away
            assert all(a in (0, b) for a, b in zip(after, turn.board, strict=True)), turn
        else:
            assert after == turn.board, turn
    for problem in record.problems:
        assert problem.message and "\n" not in problem.message, problem


def _rules_seeds() -> list[bytes]:
    folder = ROOT / "solver_cli" / "data" / "rules"
    return [p.read_bytes() for p in sorted(folder.glob("*.toml"))]


@target(_rules_seeds)
def fuzz_rules(data: bytes) -> None:
    from solver_cli.engine import rules as rules_module

    text = data.decode("utf-8", "replace")
    rules = rules_module.parse_rules(text, "fuzz")
    assert 0 <= rules.tile_total <= rules_module.MAX_TILES
    assert 1 <= rules.rack_size <= rules_module.MAX_RACK_SIZE
    assert max(rules.values) <= rules_module.MAX_TILE_VALUE
    assert rules.name.isprintable() and rules.title.isprintable()
    assert len(rules.letter_mult) == rules.rows * rules.cols


def _cache_seeds() -> list[bytes]:
    import pickle

    from solver_cli.engine.gaddag import Gaddag
    from solver_cli.lexicon.build import build_gaddag
    from solver_cli.lexicon.cache import make_payload

    gaddag: Gaddag = build_gaddag(["AT", "CAT", "CATS", "QI", "ZA"])
    payload = make_payload(gaddag, "0" * 64, 15, 5, "seed")
    return [pickle.dumps(payload, protocol=p) for p in (3, 4, 5)]


@target(_cache_seeds)
def fuzz_cache(data: bytes) -> None:
    from solver_cli.engine.gaddag import Gaddag
    from solver_cli.lexicon.cache import decode_cache

    header = decode_cache(data)
    nodes = header["nodes"]
    size = header["states"] + header["arcs"]
    assert len(nodes) == size and 0 <= header["root"] < size and 0 <= header["dawg_root"] < size
    Gaddag(nodes, header["root"], header["dawg_root"], header["states"], header["arcs"])


# ------------------------------------------------------------------------------ drivers


def run_atheris(name: str, args: list[str], suite: Suite = READERS) -> None:
    import importlib

    import atheris

    with atheris.instrument_imports(include=["solver_cli"]):
        for module in suite.instrument:
            importlib.import_module(module)

    corpus = [a for a in args if not a.startswith("-")]
    if not corpus:  # start from the seeds, in a scratch corpus folder
        folder = tempfile.mkdtemp(prefix=f"scrab-fuzz-{name}-")
        for i, seed in enumerate(suite.seeds[name]()):
            Path(folder, f"seed-{i}").write_bytes(seed)
        args = [*args, folder]
    atheris.Setup([sys.argv[0], *args], lambda data: run_one(name, data, suite))
    atheris.Fuzz()


def hypothesis_inputs(name: str, suite: Suite = READERS):  # -> SearchStrategy[bytes]
    """Random bytes, and the seeds with bytes flipped, inserted and cut."""
    from hypothesis import strategies as st

    seeds = suite.seeds[name]() or [b""]

    @st.composite
    def mutated(draw) -> bytes:
        data = bytearray(draw(st.sampled_from(seeds)))
        for _ in range(draw(st.integers(0, 8))):
            where = draw(st.integers(0, len(data)))
            how = draw(st.sampled_from(("flip", "insert", "cut", "splice")))
            if how == "flip" and where < len(data):
                data[where] ^= 1 << draw(st.integers(0, 7))
            elif how == "insert":
                data[where:where] = draw(st.binary(min_size=1, max_size=8))
            elif how == "cut":
                del data[where : where + draw(st.integers(1, 64))]
            else:
                data = data[:where]
        return bytes(data)

    return st.one_of(st.binary(max_size=512), mutated())


def run_hypothesis(name: str, examples: int, suite: Suite = READERS) -> None:
    from hypothesis import HealthCheck, given, settings

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(hypothesis_inputs(name, suite))
    def check(data: bytes) -> None:
        run_one(name, data, suite)

    check()


def main(argv: list[str], suite: Suite = READERS) -> None:
    if len(argv) < 2 or argv[1] not in suite.targets:
        sys.exit(f"usage: {argv[0]} {{{','.join(suite.targets)}}} [libFuzzer options | --hypothesis N]")
    name, rest = argv[1], argv[2:]
    if rest[:1] == ["--hypothesis"]:
        run_hypothesis(name, int(rest[1]) if len(rest) > 1 else 1000, suite)
        print(f"{name}: {rest[1] if len(rest) > 1 else 1000} Hypothesis inputs, no failure")
        return
    os.environ.setdefault("SCRAB_CACHE_DIR", tempfile.mkdtemp(prefix="scrab-fuzz-cache-"))
    run_atheris(name, rest, suite)


if __name__ == "__main__":
    main(sys.argv)
