"""Boggle: the DAWG-pruned grid search against a brute-force tracer, grid parsing, dice, CLI."""

from __future__ import annotations

import json
import random

import pytest
from click.testing import CliRunner

from solver_cli.cli import cli
from solver_cli.errors import InputError
from solver_cli.games import boggle as bg
from solver_cli.lexicon.build import build_gaddag

# ---------------------------------------------------------------------------------------
# The reference: for each word of a list, a plain backtracking search for a path that
# spells it. Knows nothing of the DAWG; a face matches when the rest of the word starts
# with its letters; a blank face ("") never matches.


def ref_paths(faces: tuple[str, ...], n: int, word: str) -> list[tuple[int, ...]]:
    """Every path (tuple of squares, row-major) that spells ``word``, in sorted order."""
    out: list[tuple[int, ...]] = []

    def extend(path: list[int], rest: str) -> None:
        if not rest:
            out.append(tuple(path))
            return
        last = path[-1] if path else None
        for cell in range(n * n):
            face = faces[cell]
            if not face or cell in path or not rest.startswith(face):
                continue
            if last is not None:
                dr, dc = abs(cell // n - last // n), abs(cell % n - last % n)
                if max(dr, dc) != 1:
                    continue
            path.append(cell)
            extend(path, rest[len(face) :])
            path.pop()

    extend([], word)
    return sorted(out)


def ref_traceable(faces: tuple[str, ...], n: int, word: str) -> bool:
    def extend(last: int | None, used: frozenset[int], rest: str) -> bool:
        if not rest:
            return True
        for cell in range(n * n):
            face = faces[cell]
            if not face or cell in used or not rest.startswith(face):
                continue
            if last is not None and max(abs(cell // n - last // n), abs(cell % n - last % n)) != 1:
                continue
            if extend(cell, used | {cell}, rest[len(face) :]):
                return True
        return False

    return extend(None, frozenset(), word)


def ref_words(grid: bg.Grid, words: list[str], min_length: int) -> set[str]:
    letters = set("".join(grid.faces))
    return {w for w in words if len(w) >= min_length and set(w) <= letters and ref_traceable(grid.faces, grid.size, w)}


REF_SCORE = {2: 1, 3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 11, 12: 11, 15: 11}


def check_result(result: bg.BoggleResult, expected: set[str]) -> None:
    grid = result.grid
    n = grid.size
    assert {w.word for w in result.words} == expected
    assert len(result.words) == len(expected)  # each word once
    assert [(-w.score, w.word) for w in result.words] == sorted((-w.score, w.word) for w in result.words)
    assert result.total == sum(REF_SCORE.get(len(w), 11) for w in expected)
    for found in result.words:
        assert found.score == REF_SCORE.get(len(found.word), 11)
        cells = [r * n + c for r, c in found.path]
        assert len(set(cells)) == len(cells)  # no die twice
        assert "".join(grid.faces[c] for c in cells) == found.word
        for a, b in zip(cells, cells[1:], strict=False):
            assert max(abs(a // n - b // n), abs(a % n - b % n)) == 1


def random_grid(rng: random.Random, n: int) -> bg.Grid:
    """Letters weighted towards common ones, plus now and then Qu, a two-letter face, a blank."""
    pool = "EEEEEAAAAIIIOOONNRRTTSSLLCDGHMPUBFKWYVXJZ"
    faces = []
    for _ in range(n * n):
        x = rng.random()
        if x < 0.03:
            faces.append("QU")
        elif x < 0.06:
            faces.append(rng.choice(["TH", "IN", "ER", "HE", "AN"]))
        elif x < 0.08:
            faces.append("")
        else:
            faces.append(rng.choice(pool))
    return bg.Grid(n, tuple(faces))


# ---------------------------------------------------------------------------------------
# Differential tests


@pytest.mark.parametrize("n", bg.SIZES)
def test_matches_brute_force_on_random_grids(small_words, small_gaddag, n):
    rng = random.Random(1000 + n)
    checked = 0
    for trial in range(40):
        grid = random_grid(rng, n) if trial % 2 else bg.roll_grid(n, trial)
        min_length = rng.choice([2, 3, 4, 5])
        result = bg.solve_boggle(grid, small_gaddag, min_length)
        expected = ref_words(grid, small_words, min_length)
        check_result(result, expected)
        checked += len(expected)
    assert checked > 100  # the grids do hold words: the comparison is not vacuous


def test_path_is_the_first_in_reading_order(small_words, small_gaddag):
    rng = random.Random(7)
    for _ in range(10):
        grid = random_grid(rng, 4)
        for found in bg.solve_boggle(grid, small_gaddag, 2).words:
            cells = tuple(r * 4 + c for r, c in found.path)
            assert cells == ref_paths(grid.faces, 4, found.word)[0]


@pytest.mark.parametrize("n", bg.SIZES)
def test_matches_brute_force_with_the_full_lexicon(full_lexicon, full_words, n):
    for seed in (1, 2):
        grid = bg.roll_grid(n, seed)
        result = bg.solve_boggle(grid, full_lexicon.gaddag)
        expected = ref_words(grid, full_words, bg.default_min_length(n))
        assert len(expected) > 20
        check_result(result, expected)


# ---------------------------------------------------------------------------------------
# Hand-checked cases

WORDS = [
    "CAT",
    "ACT",
    "TACT",
    "TAT",
    "AT",
    "QUEEN",
    "QUA",
    "QI",
    "QUIT",
    "THE",
    "THEN",
    "TEN",
    "NET",
    "ABBA",
    "SEEN",
    "STAR",
    "RATS",
    "ARTS",
    "TSAR",
    "ANTE",
    "ERA",
    "TEA",
    "ANT",
]


@pytest.fixture(scope="module")
def tiny():
    return build_gaddag(sorted(WORDS))


def solve_words(text, gaddag, min_length=None):
    return {w.word: w for w in bg.solve_boggle(bg.parse_grid(text), gaddag, min_length).words}


def test_known_grid(tiny):
    # C A X X       CAT: C(0,0) A(0,1) T(1,1);  ACT: A C T (C-T diagonal);  TACT needs two Ts
    # Z T X X       (only one here), TAT needs two Ts too.
    # X X X X
    # X X X X
    found = solve_words("CAXX/ZTXX/XXXX/XXXX", tiny, 2)
    assert set(found) == {"CAT", "ACT", "AT"}
    assert found["CAT"].path == ((0, 0), (0, 1), (1, 1))
    assert found["ACT"].path == ((0, 1), (0, 0), (1, 1))
    # With a second T adjacent to A: TAT and TACT appear.
    found = solve_words("CATX/ZTXX/XXXX/XXXX", tiny, 2)
    assert set(found) == {"CAT", "ACT", "AT", "TAT", "TACT"}
    assert found["TACT"].path == ((0, 2), (0, 1), (0, 0), (1, 1))


def test_no_die_used_twice(tiny):
    # ABBA with a single A: A-B-B-A would need the A twice.
    assert "ABBA" not in solve_words("ABBX/XXXX/XXXX/XXXX", tiny)
    assert "ABBA" in solve_words("ABBX/XXAX/XXXX/XXXX", tiny)
    # SEEN: S E E N with only one E is impossible; two Es adjacent make it.
    assert "SEEN" not in solve_words("SENX/XXXX/XXXX/XXXX", tiny)
    assert "SEEN" in solve_words("SENX/XEXX/XXXX/XXXX", tiny)


@pytest.mark.parametrize(
    "grid",
    [
        "STARX/XXXXX/XXXXX/XXXXX/XXXXX",  # across
        "SXXXX/TXXXX/AXXXX/RXXXX/XXXXX",  # down
        "SXXXX/XTXXX/XXAXX/XXXRX/XXXXX",  # diagonal
        "XXXXS/XXXTX/XXAXX/XRXXX/XXXXX",  # anti-diagonal
        "RATSX/XXXXX/XXXXX/XXXXX/XXXXX",  # backwards
        "XXXXX/XSXXX/RXTXX/XAXXX/XXXXX",  # zig-zag, every direction change
    ],
)
def test_eight_directions(tiny, grid):
    assert "STAR" in solve_words(grid, tiny)


def test_not_adjacent_is_not_a_word(tiny):
    # S, T, A, R all present but T and A are two squares apart.
    found = solve_words("STXA/XXXR/XXXX/XXXX", tiny)
    assert "STAR" not in found and "RATS" not in found and "TSAR" not in found


def test_wrapping_is_not_adjacency(tiny):
    # T at the end of row 1 and A at the start of row 2 are not neighbours.
    assert "AT" not in solve_words("XXXT/AXXX/XXXX/XXXX", tiny, 2)


def test_qu_die(tiny):
    # Q and Qu are the same die; QUEEN uses 4 dice but is 5 letters (2 points).
    for grid in ("QEEN/XXXX/XXXX/XXXX", "QuEEN/XXXX/XXXX/XXXX", "quEEN/XXXX/XXXX/XXXX"):
        found = solve_words(grid, tiny)
        assert found["QUEEN"].score == 2 and len(found["QUEEN"].path) == 4
    # QUA is 3 letters on 2 dice, so it counts for --min-length 3 ...
    found = solve_words("QAXX/XXXX/XXXX/XXXX", tiny, 3)
    assert "QUA" in found and found["QUA"].path == ((0, 0), (0, 1))
    assert "QUA" not in solve_words("QAXX/XXXX/XXXX/XXXX", tiny, 4)
    # ... and QI can never be played: the die reads QU.
    assert "QI" not in solve_words("QIXX/XXXX/XXXX/XXXX", tiny, 2)
    # A separate U die after the Qu die: QUIT spelt Qu-I-T, not Q-U-I-T.
    assert "QUIT" in solve_words("QITX/XXXX/XXXX/XXXX", tiny)
    assert "QUIT" not in solve_words("QXIT/XXXX/XXXX/XXXX", tiny)


def test_two_letter_faces_and_blanks(tiny):
    found = solve_words("[Th]EXX/XNXX/XXXX/XXXX", tiny)
    assert {"THE", "THEN"} <= set(found)
    assert found["THEN"].path == ((0, 0), (0, 1), (1, 1)) and found["THEN"].score == 1
    # A blank face blocks: T . E cannot join through it, and "" never spells anything.
    assert "TEN" in solve_words("TENX/XXXX/XXXX/XXXX", tiny)
    assert "TEN" not in solve_words("T.EN/XXXX/XXXX/XXXX", tiny)
    # [Q] is a plain Q face: QI is there, QUA is not.
    found = solve_words("[Q]IAX/XXXX/XXXX/XXXX", tiny, 2)
    assert "QI" in found and "QUA" not in found


def test_scores_by_length():
    assert [bg.boggle_score(k) for k in range(2, 17)] == [1, 1, 1, 2, 3, 5, 11, 11, 11, 11, 11, 11, 11, 11, 11]


def test_min_length_defaults(full_lexicon):
    assert [bg.default_min_length(n) for n in bg.SIZES] == [3, 4, 4]
    grid4 = bg.parse_grid("SERS/PATG/LINE/SERS")
    result = bg.solve_boggle(grid4, full_lexicon.gaddag)
    assert result.min_length == 3 and min(len(w.word) for w in result.words) == 3
    grid5 = bg.parse_grid("SERSA/PATGE/LINER/SERSE/ATONE")
    result = bg.solve_boggle(grid5, full_lexicon.gaddag)
    assert result.min_length == 4 and min(len(w.word) for w in result.words) == 4
    longer = bg.solve_boggle(grid5, full_lexicon.gaddag, 6)
    assert {w.word for w in longer.words} == {w.word for w in result.words if len(w.word) >= 6}


def test_classic_high_scoring_grid(full_lexicon, full_words):
    # The well-known dense grid: hundreds of words, dozens of 8+ letters.
    grid = bg.parse_grid("SERS/PATG/LINE/SERS")
    result = bg.solve_boggle(grid, full_lexicon.gaddag)
    words = {w.word for w in result.words}
    assert {"ESPALIERS", "REPAINTS", "GRAINS"} <= words
    assert "PLASTER" not in words  # every letter is there, but S-T are never adjacent after A
    assert words == ref_words(grid, full_words, 3)
    assert len(result.words) > 1000 and sum(1 for w in result.words if w.score == 11) > 30
    assert result.words[0].score == 11


# ---------------------------------------------------------------------------------------
# Parsing


def test_parse_forms_agree():
    expected = bg.Grid(4, ("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "QU", "P"))
    for text in (
        "ABCD/EFGH/IJKL/MNQuP",
        "abcd/efgh/ijkl/mnqp",
        "ABCD\nEFGH\nIJKL\nMNQUP\n",
        " A B C D / E F G H / I J K L / M N Qu P ",
        "ABCDEFGHIJKLMNQuP",  # one row of 16 dice
        "ABCD/EFGH\nIJKL/MNQP",
    ):
        assert bg.parse_grid(text) == expected, text
    file_text = "# a grid\n\nABCD\n  # indented comment\nEFGH\nIJKL\n\nmnqup\n"
    assert bg.parse_grid(file_text, "g.txt") == expected
    assert bg.parse_grid("\ufeffABCD/EFGH/IJKL/MNQP", "bom.txt") == expected


@pytest.mark.parametrize("n", bg.SIZES)
def test_grid_text_round_trips(n):
    for seed in range(30):
        grid = bg.roll_grid(n, seed)
        assert bg.parse_grid(grid.to_text()) == grid
    special = bg.Grid(4, ("QU", "Q", "TH", "") + ("A",) * 12)
    assert special.to_text() == "Qu[Q][Th]./AAAA/AAAA/AAAA"
    assert bg.parse_grid(special.to_text()) == special
    assert special.rows()[0] == ["Qu", "Q", "Th", ""]
    assert bg.Grid.from_rows(special.rows()) == special


@pytest.mark.parametrize(
    "text, source, message",
    [
        ("", None, "the grid is empty"),
        ("  \n ", None, "the grid is empty"),
        ("# only a comment\n\n", "g.txt", "g.txt: no grid in the file"),
        ("ABC/DEF/GHI", None, "row 1: a row of 3 dice; a Boggle grid is 4x4, 5x5 or 6x6"),
        ("ABCDEFG/" * 6 + "ABCDEFG", None, "a row of 7 dice"),
        ("ABCD/EFGH/IJKL", None, "3 rows of 4 dice; a 4x4 grid needs 4 rows"),
        ("ABCD/EFGH/IJKL/MNOP/QRST", None, "row 5: more than 4 rows"),
        ("ABCD/EFG/IJKL/MNOP", None, "row 2: row has 3 dice, expected 4"),
        ("ABCD/EFGH/IJKL/MNQUP", None, None),  # Qu is one die: this one is fine
        (
            "ABCD/EFGH/IJKL/MNQUPX",
            None,
            "row 4: row has 5 dice, expected 4 like row 1 (the grid must be square); note that Qu",
        ),
        ("ABCD/E1GH/IJKL/MNOP", None, "row 2, column 2: unexpected character '1'"),
        ("ABCD/EFGH/IJKL/MNOP/", None, "row 5: empty row"),
        ("AB[ThCD/EFGH/IJKL/MNOP", None, "row 1, column 3: '[' without a closing ']'"),
        ("AB[]CD/EFGH/IJKL/MNOP", None, "empty face '[]'"),
        ("A[T1]C/EFGH/IJKL/MNOP", None, "row 1, column 4: unexpected character '1' inside"),
        ("ABCD\nEFGH\nIJ-L\nMNOP\n", "grid.txt", "grid.txt, line 3, column 3: unexpected character '-'"),
        ("# c\nABCD\nEFGH\n\nIJK\nMNOP\n", "grid.txt", "grid.txt, line 5: row has 3 dice, expected 4"),
        ("ABCD\nEFGH\nIJKL\nMNOé\n", "grid.txt", "grid.txt, line 4, column 4: unexpected character 'é'"),
        ("ABCD\tEFGH", None, "a row of 8 dice"),
        ("ABCD/EF\x07H/IJKL/MNOP", None, "unexpected character U+0007"),
    ],
)
def test_parse_errors(text, source, message):
    if message is None:
        assert bg.parse_grid(text, source).size == 4
        return
    with pytest.raises(InputError) as info:
        bg.parse_grid(text, source)
    text_of = str(info.value)
    assert message in text_of
    assert "\n" not in text_of


def test_load_grid_file_or_string(tmp_path):
    path = tmp_path / "g.txt"
    path.write_text("# grid\nSERS\nPATG\nLINE\nSERS\n")
    grid, name = bg.load_grid(str(path))
    assert name == str(path) and grid.to_text() == "SERS/PATG/LINE/SERS"
    grid, name = bg.load_grid("sers/patg/line/sers")
    assert name == "" and grid.to_text() == "SERS/PATG/LINE/SERS"
    with pytest.raises(InputError, match=r"no grid file 'missing\.txt' \(no such file\)"):
        bg.load_grid("missing.txt")
    with pytest.raises(InputError, match="is a directory"):
        bg.load_grid(str(tmp_path))
    (tmp_path / "bin.txt").write_bytes(b"AB\0CD")
    with pytest.raises(InputError, match="NUL"):
        bg.load_grid(str(tmp_path / "bin.txt"))


# ---------------------------------------------------------------------------------------
# Dice


def _can_assign(faces: tuple[str, ...], dice: tuple[tuple[str, ...], ...]) -> bool:
    """Whether each face can come from its own die (bipartite matching, augmenting paths)."""
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for d, die in enumerate(dice):
            if faces[i] in die and d not in seen:
                seen.add(d)
                if d not in owner or place(owner[d], seen):
                    owner[d] = i
                    return True
        return False

    return all(place(i, set()) for i in range(len(faces)))


def test_dice_sets():
    assert {n: len(d.dice) for n, d in bg.DICE_SETS.items()} == {4: 16, 5: 25, 6: 36}
    for n, dice in bg.DICE_SETS.items():
        assert dice.size == n and all(len(die) == 6 for die in dice.dice)
        assert all(f == "" or f.isalpha() and f.isupper() for die in dice.dice for f in die)
    classic = bg.DICE_SETS[4].dice
    assert ("A", "A", "E", "E", "G", "N") in classic and ("H", "I", "M", "N", "QU", "U") in classic
    assert sum(die.count("QU") for die in classic) == 1 and not any("Q" in die for die in classic)
    assert sum(die.count("QU") for die in bg.DICE_SETS[5].dice) == 1
    big6 = bg.DICE_SETS[6].dice
    assert ("AN", "ER", "HE", "IN", "QU", "TH") in big6 and ("E", "I", "O", "", "", "") in big6


@pytest.mark.parametrize("n", bg.SIZES)
def test_roll_is_reproducible_and_uses_the_dice(n):
    grids = [bg.roll_grid(n, seed) for seed in range(25)]
    assert grids == [bg.roll_grid(n, seed) for seed in range(25)]
    assert len({g.faces for g in grids}) == 25
    for grid in grids:
        assert grid.size == n and len(grid.faces) == n * n
        assert _can_assign(grid.faces, bg.DICE_SETS[n].dice)
    assert not _can_assign(("Z",) * 16, bg.DICE_SETS[4].dice)  # the checker can fail
    # Seeded by random.Random(seed): the same shuffle and faces, independent of global state.
    random.seed(123)
    assert bg.roll_grid(n, 5) == grids[5]


# ---------------------------------------------------------------------------------------
# The CLI


@pytest.fixture(scope="module")
def runner(full_lexicon):  # the default list is built once, into the test cache
    return CliRunner()


def run(runner, *args, input=None):
    return runner.invoke(cli, ["boggle", *args], input=input)


def test_cli_table(runner, full_lexicon):
    result = run(runner, "SERS/PATG/LINE/SERS")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    out = result.stdout
    solved = bg.solve_boggle(bg.parse_grid("SERS/PATG/LINE/SERS"), full_lexicon.gaddag)
    assert out.startswith("4x4 grid: SERS/PATG/LINE/SERS\n")
    assert "│ S  │ E  │ R  │ S  │" in out  # the tray
    assert f"{len(solved.words):,} words, {solved.total:,} points  (kjxqz, 3+ letters)" in out  # counts as elsewhere
    assert out.rstrip().endswith(f"Total: {solved.total:,} points for {len(solved.words):,} words")
    listing = out.split("(kjxqz, 3+ letters)\n", 1)[1]
    lines = [line for line in listing.splitlines() if line.startswith("│")]
    rows = [[cell.strip() for cell in line.split("│")[1:-1]] for line in lines]
    listed = [(word, int(score)) for rank, word, letters, score in rows]
    assert listed == [(w.word, w.score) for w in solved.words]


def test_cli_json_shape(runner, full_lexicon, tmp_path):
    path = tmp_path / "grid.txt"
    path.write_text("# big boggle\nSERSA\nPATGE\nLINER\nSERSE\nAToNe\n")
    result = run(runner, str(path), "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    data = json.loads(result.stdout)
    assert set(data) == {
        "grid",
        "grid_text",
        "size",
        "lexicon",
        "min_length",
        "words",
        "word_count",
        "total",
        "seed",
        "dice",
    }
    assert data["grid"][4] == ["A", "T", "O", "N", "E"] and data["size"] == 5
    assert data["lexicon"] == "kjxqz" and data["min_length"] == 4 and data["seed"] is None and data["dice"] is None
    assert data["word_count"] == len(data["words"]) > 100
    assert data["total"] == sum(w["score"] for w in data["words"])
    for w in data["words"]:
        assert set(w) == {"word", "score", "path"}
        assert len(w["word"]) >= 4 and w["score"] == bg.boggle_score(len(w["word"]))
        assert "".join(data["grid"][r][c].upper() for r, c in w["path"]) == w["word"]
        assert full_lexicon.contains(w["word"])
    assert [(-w["score"], w["word"]) for w in data["words"]] == sorted((-w["score"], w["word"]) for w in data["words"])


def test_cli_min_length_and_stdin(runner):
    result = run(runner, "-", "--min-length", "7", "--json", input="serS\npatg\nline\nsers\n")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["min_length"] == 7 and data["words"] and all(len(w["word"]) >= 7 for w in data["words"])


def test_cli_random_seed_is_reproducible(runner):
    first = run(runner, "--random", "--seed", "42", "--size", "5")
    second = run(runner, "--random", "--seed", "42", "--size", "5")
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    grid = bg.roll_grid(5, 42)
    assert first.stdout.startswith(
        f"Rolled with seed 42: Big Boggle dice, Deluxe / Boggle Master set\n5x5 grid: {grid.to_text()}\n"
    )
    data = json.loads(run(runner, "--random", "--seed", "42", "--size", "5", "--json").stdout)
    assert data["seed"] == 42 and data["dice"] == "big" and data["grid"] == grid.rows()
    # Rolling and then solving the printed grid gives the same words.
    again = json.loads(run(runner, data["grid_text"], "--json").stdout)
    assert again["words"] == data["words"] and again["total"] == data["total"]
    other = json.loads(run(runner, "--random", "--seed", "43", "--size", "5", "--json").stdout)
    assert other["grid"] != data["grid"]


def test_cli_random_without_seed_reports_its_seed(runner):
    data = json.loads(run(runner, "--random", "--json").stdout)
    assert data["size"] == 4 and data["dice"] == "classic" and isinstance(data["seed"], int)
    assert data["grid"] == bg.roll_grid(4, data["seed"]).rows()


@pytest.mark.parametrize(
    "args, message",
    [
        (["ABCD/EFGH/IJK"], "Error: grid 'ABCD/EFGH/IJK', row 3: row has 3 dice, expected 4"),
        (["ABC/DEF/GHI"], "a Boggle grid is 4x4, 5x5 or 6x6"),
        (["ABCDEFG/ABCDEFG/ABCDEFG/ABCDEFG/ABCDEFG/ABCDEFG/ABCDEFG"], "a row of 7 dice"),
        (["AB3D/EFGH/IJKL/MNOP"], "row 1, column 3: unexpected character '3'"),
        ([""], "Error: the grid is empty"),
        (["nope.txt"], "Error: no grid file 'nope.txt'"),
        (["ABCD/EFGH/IJKL/MNOP", "--lexicon", "no-such-list"], "no word list 'no-such-list'"),
    ],
)
def test_cli_bad_grid_exits_2_with_one_line(runner, args, message):
    result = run(runner, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ")


def test_cli_bad_grid_file_names_line_and_column(runner, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("# comment\nABCD\nEFGH\nIJ?L\nMNOP\n")
    result = run(runner, str(path))
    assert result.exit_code == 2
    assert result.stderr == f"Error: {path}, line 4, column 3: unexpected character '?' ({bg.CHAR_HELP})\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["ABCD/EFGH/IJKL/MNOP", "--random"], "either GRID or --random"),
        ([], "missing GRID"),
        (["ABCD/EFGH/IJKL/MNOP", "--seed", "3"], "--seed applies only with --random"),
        (["ABCD/EFGH/IJKL/MNOP", "--size", "5"], "--size applies only with --random"),
        (["--random", "--size", "7"], "'7' is not one of"),
        (["ABCD/EFGH/IJKL/MNOP", "--min-length", "1"], "--min-length"),
    ],
)
def test_cli_usage_errors(runner, args, message):
    result = run(runner, *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert message in result.stderr


def test_cli_no_words(runner, tmp_path):
    words = tmp_path / "words.txt"
    words.write_text("zebra\nquartz\n")
    result = run(runner, "ABCD/EFGH/IJKL/MNOP", "--lexicon", str(words))
    assert result.exit_code == 0, result.output
    assert "No words in this grid" in result.stdout
    data = json.loads(run(runner, "ABCD/EFGH/IJKL/MNOP", "--lexicon", str(words), "--json").stdout)
    assert data["words"] == [] and data["total"] == 0 and data["lexicon"] == str(words)
