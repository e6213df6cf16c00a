"""The tables: fitted to any width without cutting a move, blank choices folded, Rich's look
kept, large tables streamed, an SVG copy, and a closed pipe ending quietly."""

from __future__ import annotations

import html
import io
import json
import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.table import Table
from rich.text import Text
from soak import python_engine_in_soak

from solver_cli.cli import cli
from solver_cli.cli.render import tenths
from solver_cli.cli.table import Column, print_table

ROOT = Path(__file__).resolve().parents[2]
BOARDS = ROOT / "boards"
MIDGAME = str(BOARDS / "midgame.txt")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def runner(full_lexicon):  # the default list, built once into the test cache
    return CliRunner()


def moves_json(runner, *args):
    """The same moves as JSON (which lists every blank choice: no --no-fold-blanks there)."""
    args = tuple(a for a in args if a != "--no-fold-blanks")
    result = runner.invoke(cli, ["solve", *args, "--json"])
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def table(runner, width, *args):
    result = runner.invoke(cli, ["solve", *args], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.stderr
    return result.stdout.splitlines()


def row_line(lines, rank, move):
    """The one line that holds the move's rank, position, whole word and score, as cells
    (an exchange or the pass: "-", then "exchange QU" or "pass")."""
    bar = "[│┃|]"
    if move["kind"] == "place":
        position, notation = re.escape(move["position"]), re.escape(move["notation"])
    else:
        word = "pass" if move["kind"] == "pass" else f"exchange {move['exchanged']}"
        position, notation = "-", re.escape(word)
    # (a space each side of the column rules, unless the table had to do without them)
    cells = (
        rf"(?<!\d){rank} ?{bar} ?{position}\s*{bar} ?{notation}(?=\s|{bar})[^│┃|]*{bar}\s*{move['score']}"
        rf"( bingo)?(\s|$|{bar})"
    )
    pattern = re.compile(cells)
    found = [i for i, line in enumerate(lines) if pattern.search(line)]
    assert len(found) == 1, (rank, move, "\n".join(lines))
    return found[0]


# --------------------------------------------------------------------------- widths


@pytest.mark.parametrize("width", [40, 60, 80, 120])
@pytest.mark.parametrize(
    "args",
    [
        (MIDGAME, "--rack", "RETAINS", "--top", "12"),
        (MIDGAME, "--rack", "AEIRST?", "--top", "12", "--no-fold-blanks"),
        (str(BOARDS / "wwf-midgame.txt"), "--rules", "wwf", "--rack", "QUIZERS", "--top", "12"),
    ],
)
def test_moves_are_never_cut_and_one_line_from_60_columns(runner, width, args):
    moves = moves_json(runner, *args)["moves"]
    lines = table(runner, width, *args)
    assert all(len(line) <= width for line in lines), "\n".join(lines)
    rows = [row_line(lines, m["rank"], m) for m in moves]
    assert rows == sorted(rows)  # in rank order
    if width >= 60:
        body = [line for line in lines if line.startswith("│")]
        assert len(body) == len(moves)  # one line per move, nothing under it
    if width >= 120:
        assert all(m["leave"] in lines[r] for m, r in zip(moves, rows, strict=True) if m["leave"])
        assert "Left out" not in "\n".join(lines)


@python_engine_in_soak()  # how the table is drawn: the same for both engines
def test_every_line_of_all_moves_fits_40_columns_with_a_blank(runner):
    """--all with a blank rack: five-digit ranks and folded rows. Without the outer edge, the
    rows used to keep a blank margin each side, and came to 41 columns."""
    args = (MIDGAME, "--rack", "AEIRST?", "--all")
    lines = table(runner, 40, *args)
    assert max(len(line) for line in lines) <= 40, max(lines, key=len)
    assert not [line for line in lines if line.endswith(" ")]  # no padding out to the edge
    moves = moves_json(runner, *args)["moves"]
    # the exchange of all seven tiles widens the Word column: the padding goes before a line overflows
    ranks = [int(m[1]) for line in lines if (m := re.match(r" *(\d+) ?│", line))]
    assert len(ranks) == len(groups_of(moves)) and max(ranks) > 10_000  # a row each, five-digit ranks among them
    shown = [row_line(lines, rank, moves[rank - 1]) for rank in (ranks[0], ranks[-1])]
    assert shown == sorted(shown)


@pytest.mark.parametrize("width", [26, 30])
def test_narrower_still_the_padding_goes_before_a_line_overflows(runner, width):
    args = (MIDGAME, "--rack", "AEIRST?", "--top", "8", "--no-fold-blanks")
    lines = table(runner, width, *args)
    assert max(len(line) for line in lines) <= width, "\n".join(lines)
    for m in moves_json(runner, *args)["moves"][:3]:
        assert any(m["position"] in line and m["notation"] in line for line in lines), m


def test_cross_words_give_way_before_the_blank_letters(runner):
    """At 80 columns the folded rows keep the letters their blank can be: without them a row's
    "+11" says nothing (the cross-words give way, as at 40 columns they fold under the row)."""
    lines = table(runner, 80, MIDGAME, "--rack", "AEIRST?", "--top", "6")
    header = next(line for line in lines if "Score" in line)
    assert "Blank as" in header and "Leave" in header and "Cross-words" not in header
    first = next(line for line in lines if "AERIeST +11" in line)
    assert "cdefiltvw" in first
    note = " ".join(line for line in lines if "Left out" in line or "widen" in line)
    assert "Left out at this width: Cross-words (" in note
    assert max(len(line) for line in lines) <= 80


def test_unseen_tiles_break_between_phrases_without_trailing_spaces(runner):
    for width in (40, 80):
        lines = table(runner, width, MIDGAME, "--rack", "AEIRST?", "--top", "2")
        at = next(i for i, line in enumerate(lines) if line.startswith("Unseen"))
        tail = lines[at:]
        assert all(len(line) <= width and not line.endswith(" ") for line in tail), tail
        text = "\n".join(tail)
        assert "(32 vowels, 36 consonants):" in text  # never broken inside the parentheses
        assert "".join(tail[-2:]).endswith("UUUUVWWXYZ")
    wide = table(runner, 120, MIDGAME, "--rack", "AEIRST?", "--top", "2")
    assert wide[-1].startswith("Unseen 68 tiles (32 vowels, 36 consonants): AAAAAB")


def test_narrow_table_folds_the_cross_words_under_the_move(runner):
    args = (MIDGAME, "--rack", "RETAINS", "--top", "5")
    moves = moves_json(runner, *args)["moves"]
    lines = table(runner, 40, *args)
    text = "\n".join(lines)
    for m in moves:
        at = row_line(lines, m["rank"], m)
        under = []
        for line in lines[at + 1 :]:
            if re.match(r"│ +\d+ │", line) or line.startswith("└"):
                break
            under.append(line.strip("│ "))
        said = " ".join(under)
        for word in m["cross_words"]:
            assert f"{word['word']} {word['score']} {word['kind']}" in said, text
        assert ("leave " + m["leave"] in said) if m["leave"] else "leave" not in said


def test_wide_enough_table_is_rich_table_output(runner):
    """The look is Rich's own Table: the same text, cell for cell."""
    columns = [Column("#", "right"), Column("Pos"), Column("Word"), Column("Score", "right"), Column("Cross-words")]
    rows = [
        ["1", "11E", (("AERI", ""), ("e", "bold"), ("ST", "")), "85 bingo", "DOCS 7 hook, AT 4 incidental"],
        ["12", "N8", (("(", "dim"), ("N", "dim"), (")", "dim"), ("ASTIER", "")), "77", "-"],
    ]
    for colour in (None, "truecolor"):
        ours, theirs = io.StringIO(), io.StringIO()
        options = {"width": 100, "color_system": colour, "force_terminal": colour is not None, "markup": False}
        print_table(Console(file=ours, **options), columns, rows)
        rich_table = Table(header_style="bold")
        for c in columns:
            rich_table.add_column(c.header, justify=c.justify)
        for r in rows:
            rich_table.add_row(*(c if isinstance(c, str) else Text.assemble(*c) for c in r))
        Console(file=theirs, **options).print(rich_table)
        assert ANSI.sub("", ours.getvalue()) == ANSI.sub("", theirs.getvalue())
        assert ("\x1b[1me\x1b[0m" in ours.getvalue()) == (colour is not None)  # the blank in bold


def test_terminal_output_matches_plain_output(runner):
    """Through Rich (colour on) and the plain fast path, the same characters."""
    args = ["solve", MIDGAME, "--rack", "AEIRST?", "--top", "30"]
    plain = runner.invoke(cli, args, env={"COLUMNS": "100"}).stdout
    coloured = runner.invoke(cli, args, env={"COLUMNS": "100", "FORCE_COLOR": "1", "TERM": "xterm-256color"}).stdout
    assert "\x1b[" in coloured and "\x1b[" not in plain
    assert ANSI.sub("", coloured).splitlines()[1:] == plain.splitlines()[1:]  # the title: same words


@python_engine_in_soak()  # how the table is drawn: the same for both engines
def test_all_as_a_table_lists_every_move(runner):
    args = (str(BOARDS / "opening.txt"), "--rack", "RST?", "--all", "--no-fold-blanks")  # 1,297 moves
    moves = moves_json(runner, *args)["moves"]
    lines = table(runner, 100, *args)
    assert len(moves) > 1000
    assert len([line for line in lines if line.startswith("│")]) == len(moves)
    for m in moves[:: len(moves) // 50]:
        row_line(lines, m["rank"], m)


# --------------------------------------------------------------------------- blank folding


def groups_of(moves):
    """The reference folding: moves with a blank and the same squares, score, leave and
    cross-words, in ranking order; each group listed by its first move's rank."""
    groups = defaultdict(list)
    order = []
    for m in moves:
        if any(t["blank"] for t in m["placed"]):
            key = (
                tuple((t["row"], t["col"]) for t in m["placed"]),
                m["score"],
                m["leave"],
                tuple((w["word"], w["score"], w["kind"]) for w in m["cross_words"]),
            )
        else:
            key = ("alone", m["rank"])
        if key not in groups:
            order.append(key)
        groups[key].append(m)
    return [groups[k] for k in order]


@python_engine_in_soak()  # how the table is drawn: the same for both engines
@pytest.mark.parametrize("sort", ["rank", "score", "length", "tiles"])
def test_blank_choices_fold_into_one_row(runner, sort):
    data = moves_json(runner, MIDGAME, "--rack", "RST?", "--all", "--sort", sort)
    everything = data["moves"]
    expected = groups_of(everything)[:15]
    assert any(len(g) > 1 for g in expected)
    lines = table(runner, 160, MIDGAME, "--rack", "RST?", "--top", "15", "--sort", sort)
    shown = sum(len(g) for g in expected)
    assert lines[0].startswith(f"{shown} of {data['total_moves']:,} moves (in 15 rows, blanks folded) for RST?")
    body = [line for line in lines if line.startswith("│")]
    assert len(body) == 15
    for group, line in zip(expected, body, strict=True):
        first = group[0]
        cells = [c.strip() for c in line.strip("│").split("│")]
        rank, position, word, score, blank_as, leave, value, equity, crosses = cells
        assert (value, equity) == (tenths(first["leave_value"], signed=True), tenths(first["equity"]))
        assert (rank, position) == (str(first["rank"]), first["position"])
        extra = f" +{len(group) - 1}" if len(group) > 1 else ""
        assert word == first["notation"] + extra
        assert score.split()[0] == str(first["score"])
        letters = sorted({t["letter"].lower() for m in group for t in m["placed"] if t["blank"]})
        assert blank_as == ("".join(letters) if len(group) > 1 else "-")
        assert leave == (first["leave"] or "-")


def test_folding_off_lists_each_blank_choice(runner):
    moves = moves_json(runner, MIDGAME, "--rack", "AEIRST?", "--top", "5")["moves"]
    lines = table(runner, 120, MIDGAME, "--rack", "AEIRST?", "--top", "5", "--no-fold-blanks")
    assert lines[0].startswith(f"5 of {12_487 + 2**7:,} moves for AEIRST?")  # 127 exchanges and the pass
    for m in moves:
        row_line(lines, m["rank"], m)


def test_folded_rank_is_what_move_and_explain_take(runner):
    everything = moves_json(runner, MIDGAME, "--rack", "AEIRST?", "--top", "40")["moves"]
    member = next(g[1] for g in groups_of(everything) if len(g) > 1)  # folded away in the table
    args = ["solve", MIDGAME, "--rack", "AEIRST?", "--show-board", "--move", str(member["rank"])]
    out = runner.invoke(cli, args).stdout
    assert out.splitlines()[-1].startswith(f"{member['position']} {member['notation']} {member['score']}")


# --------------------------------------------------------------------------- SVG


def test_svg_saves_the_table_and_the_board(runner, tmp_path):
    target = tmp_path / "position.svg"
    args = ["solve", MIDGAME, "--rack", "RETAINS", "--top", "3", "--show-board", "--svg", str(target)]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.stderr
    svg = target.read_text(encoding="utf-8")
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
    text = html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")
    for shown in (f"3 of {1_470 + 2**7:,} moves for AEINRST", "NASTIER", "CARRS 9 hook", "3W", "N8 NASTIER 77"):
        assert shown in text, shown
    assert "NASTIER" in result.stdout  # printed as well
    assert [p.name for p in tmp_path.iterdir()] == ["position.svg"]  # no temporary file left


@pytest.mark.parametrize(
    "target, message",
    [("{tmp}/no-such-folder/x.svg", "does not exist"), ("{tmp}", "is a directory"), ("", "file name is empty")],
)
def test_svg_that_cannot_be_written_fails_before_any_output(runner, tmp_path, target, message):
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--svg", target.format(tmp=tmp_path)])
    assert result.exit_code == 2 and result.stdout == ""
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("Error: ") and message in last


def _unwritable(kind: str, tmp_path: Path) -> tuple[str, str]:
    """A path --svg must refuse, and what the error says about it."""
    if kind == "fifo":
        os.mkfifo(tmp_path / "fifo")
        return str(tmp_path / "fifo"), "not a regular file (a FIFO)"
    if kind == "device":
        return "/dev/null", "not a regular file (a character device)"
    if kind == "dangling":
        (tmp_path / "dangling.svg").symlink_to(tmp_path / "nowhere.svg")
        return str(tmp_path / "dangling.svg"), "a symbolic link to a missing file"
    if kind == "loop":
        (tmp_path / "loop.svg").symlink_to(tmp_path / "loop.svg")
        return str(tmp_path / "loop.svg"), "a loop of symbolic links"
    target = tmp_path / "theirs.svg"
    target.write_text("old")
    (tmp_path / "planted.svg").symlink_to(target)
    os.lchown(tmp_path / "planted.svg", 54321, 54321)
    return str(tmp_path / "planted.svg"), "a symbolic link owned by another user (uid 54321)"


@pytest.mark.parametrize("kind", ["fifo", "device", "dangling", "loop", "other-users-link"])
@pytest.mark.parametrize("command", ["solve", "review"])
def test_svg_that_is_no_file_to_write_is_one_error_before_any_output(runner, tmp_path, kind, command):
    """These used to end in a traceback, after the table was printed."""
    path, message = _unwritable(kind, tmp_path)
    args = ["solve", MIDGAME, "--rack", "RETAINS"] if command == "solve" else ["review", str(BOARDS / "example.gcg")]
    result = runner.invoke(cli, [*args, "--svg", path])
    assert result.exit_code == 2 and result.stdout == "", (result.stdout, result.stderr)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    lines = result.stderr.strip().splitlines()
    assert lines == [f"Error: --svg: cannot write {path}: " + lines[0].split(": ", 3)[-1]], lines
    assert message in lines[0]
    if kind == "other-users-link":
        assert (tmp_path / "theirs.svg").read_text() == "old"


def test_svg_refused_at_write_time_is_one_error_too(runner, tmp_path, monkeypatch):
    """A file that becomes a FIFO between the check and the write: still one Error: line."""
    target = tmp_path / "late.svg"

    def check_passes(path, option):
        return None

    real_save = __import__("solver_cli.cli._common", fromlist=["save_svg"]).save_svg

    def turn_into_fifo(out, path, title, option="--svg"):
        os.mkfifo(path)
        real_save(out, path, title, option)

    monkeypatch.setattr("solver_cli.cli.solve.check_writable", check_passes)
    monkeypatch.setattr("solver_cli.cli.solve.save_svg", turn_into_fifo)
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--top", "1", "--svg", str(target)])
    assert result.exit_code == 2 and "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert (
        result.stderr.strip()
        == f"Error: --svg: cannot write {target}: not a regular file (a FIFO); scrab writes only files"
    )


def test_svg_keeps_the_old_file_whole_when_the_write_fails(runner, tmp_path, monkeypatch):
    target = tmp_path / "old.svg"
    target.write_text("old")

    def full_disk(path, text):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("solver_cli._io.write_atomically", full_disk)
    result = runner.invoke(cli, ["solve", MIDGAME, "--rack", "RETAINS", "--svg", str(target)])
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == f"Error: --svg: cannot write {target}: No space left on device"
    assert target.read_text() == "old"


# --------------------------------------------------------------------------- pipes


@python_engine_in_soak()  # how the table is drawn: the same for both engines
@pytest.mark.parametrize(
    "args",
    [
        ["solve", MIDGAME, "--rack", "AEIRST?", "--all"],
        ["solve", MIDGAME, "--rack", "AEIRST?", "--all", "--no-fold-blanks"],
        ["solve", MIDGAME, "--rack", "AEIRST?", "--all", "--json"],
        ["anagram", "ERST??", "--partial", "--all"],
    ],
)
def test_closed_pipe_is_a_quiet_exit_0(args, session_cache):
    """`scrab ... | head -n 1`: the reader leaves early; scrab ends with status 0, silently."""
    env = {**os.environ, "SCRAB_CACHE_DIR": str(session_cache)}
    pipeline = " ".join(f"'{a}'" for a in [sys.executable, "-m", "solver_cli", *args]) + " | head -n 1"
    done = subprocess.run(
        ["bash", "-c", pipeline + '; echo "status=${PIPESTATUS[0]}" >&2'],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert len(done.stdout.splitlines()) == 1
    # (without a trained leave table for the rules, the note saying so comes first)
    said = [line for line in done.stderr.splitlines() if not line.startswith("Warning: no leave values for scrabble")]
    assert said == ["status=0"], done.stderr[-2000:]


# --------------------------------------------------------------------------- large tables


@python_engine_in_soak()  # how the table is drawn: the same for both engines
@pytest.mark.parametrize("fold", [[], ["--no-fold-blanks"]])
@pytest.mark.parametrize("colour", [{}, {"FORCE_COLOR": "1", "TERM": "xterm-256color"}])
def test_all_as_a_table_never_lays_out_its_moves_with_rich_table(runner, monkeypatch, fold, colour):
    """`--all` as a table stays linear in its rows (issue #15, item 13): Rich's Table
    measures and wraps every cell of every row, which made 25,000 moves 8x slower than
    --json. Every row given to a Rich Table is counted: none of the moves may be."""
    import rich.table

    rows_added: list[tuple[object, ...]] = []
    add_row = rich.table.Table.add_row

    def counted(self, *cells, **options):
        rows_added.append(cells)
        return add_row(self, *cells, **options)

    monkeypatch.setattr(rich.table.Table, "add_row", counted)
    args = (str(BOARDS / "opening.txt"), "--rack", "RST?", "--all", *fold)  # 1,297 moves: what counts is no Rich row
    moves = moves_json(runner, *args)["moves"]
    rows_added.clear()
    result = runner.invoke(cli, ["solve", *args], env={"COLUMNS": "100", **colour})
    assert result.exit_code == 0, result.stderr
    assert len(moves) > 1000
    assert len([line for line in ANSI.sub("", result.stdout).splitlines() if line.startswith("│")]) >= len(moves) // 10
    assert rows_added == []
