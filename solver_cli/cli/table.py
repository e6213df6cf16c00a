"""Result tables drawn in time linear in the rows, in Rich's look, fitted to the terminal.

Rich's ``Table`` measures and wraps every cell, which takes seconds for the 25,000 moves of
``scrab solve --all``. These tables hold short one-line cells, so the column widths are the
longest cell, and each row is assembled once. The box is Rich's ``HEAVY_HEAD`` (the default
of ``rich.table.Table``), with its ASCII stand-in where the console cannot draw it.

A table never cuts a cell, and no line is wider than the console while some layout fits.
When the table is too wide, its optional columns give way in their ``fold`` order
(in ``scrab solve``: ``Cross-words``, the leave's ``Value``, ``Leave``, ``Blank as``, and
last ``Equity``, the column the list is ranked by): on a console of
``one_line_width`` columns or more (``ONE_LINE_WIDTH`` unless the caller says otherwise)
they are left out, so that each row stays one line, and a note under the table names them;
on a narrower one they move to a line under the row, each value after its column's name.
Then the outer edge goes (and the blank margin inside it), and last the padding around the
column rules. A row that still does not fit is printed whole, for the terminal to wrap.
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rich.box import Box
    from rich.console import Console
    from rich.text import Text

Piece = tuple[str, str]  # (text, Rich style; "" for none)
Cell = str | tuple[Piece, ...]  # plain text, or styled pieces
EMPTY = "-"  # a cell with nothing to say, left out of a folded line
RICH_CHUNK = 500  # rows per Rich print: big enough to be fast, small enough to stream


ONE_LINE_WIDTH = 60  # from this width up, a row is always one line


@dataclass(frozen=True)
class Column:
    header: str
    justify: Literal["left", "right"] = "left"
    fold: int = 0  # 0: always shown; n: the n-th column to give way when the table is too wide
    label: str | None = None  # its name on a folded line (default: the header; "" for none)


@dataclass(frozen=True)
class Layout:
    inline: tuple[int, ...]  # column indexes shown side by side
    folded: tuple[int, ...]  # column indexes shown on a line under the row
    dropped: tuple[int, ...]  # column indexes left out
    edge: bool  # the outer border is drawn (with a space inside it)
    padded: bool = True  # a space each side of the rules between columns

    def width(self, widths: Sequence[int]) -> int:
        n = len(self.inline)
        rules = (n - 1) * (3 if self.padded else 1)
        return sum(widths[i] for i in self.inline) + rules + (4 if self.edge else 0)


def cell_text(cell: Cell) -> str:
    return cell if isinstance(cell, str) else "".join(text for text, _ in cell)


def _cell_width(text: str) -> int:
    if text.isascii():
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


def choose_layout(
    columns: Sequence[Column], widths: Sequence[int], max_width: int, one_line_width: int | None = ONE_LINE_WIDTH
) -> Layout:
    """The first layout that fits ``max_width``: every column side by side if they fit, else
    the optional columns giving way one by one (left out from ``one_line_width`` columns up,
    moved under the row below that; None: always moved under the row), then without the
    outer edge, then without the padding around the column rules."""
    order = [i for _, i in sorted((c.fold, i) for i, c in enumerate(columns) if c.fold)]
    fold = one_line_width is None or max_width < one_line_width
    candidates = []
    for edge, padded in ((True, True), (False, True), (False, False)):
        for k in range(len(order) + 1):
            away = tuple(sorted(order[:k]))
            inline = tuple(i for i in range(len(columns)) if i not in away)
            candidates.append(Layout(inline, away if fold else (), () if fold else away, edge, padded))
    for layout in candidates:
        if layout.width(widths) <= max_width:
            return layout
    return candidates[-1]


def print_table(
    out: Console,
    columns: Sequence[Column],
    rows: Sequence[Sequence[Cell]],
    title: str | None = None,
    header_style: str = "bold",
    *,
    one_line_width: int | None = ONE_LINE_WIDTH,
    fold_indent: int | None = None,
) -> None:
    """Print ``rows`` under ``columns`` (and ``title`` above), fitted to ``out.width``.
    ``one_line_width``: see ``choose_layout``; ``fold_indent``: where a line under the row
    starts (None: under the second column, when that leaves room to read)."""
    from rich.box import HEAVY_HEAD

    texts = [[cell_text(cell) for cell in row] for row in rows]
    widths = [_cell_width(c.header) for c in columns]
    for row_text in texts:
        for i, text in enumerate(row_text):
            n = _cell_width(text)
            if n > widths[i]:
                widths[i] = n
    layout = choose_layout(columns, widths, out.width, one_line_width)
    box = HEAVY_HEAD.substitute(out.options)
    lines = _Lines(columns, widths, layout, box, fold_indent)

    plain = out.color_system is None and not out.record  # no styles to draw: plain text is faster
    if title:
        if plain:
            out.file.write("\n".join(textwrap.wrap(title, max(out.width, 20), break_on_hyphens=False)) + "\n")
        else:
            out.print(title, style="italic", overflow="fold")

    body: list[list[Piece]] = []
    body += lines.top()
    body += lines.header(header_style)
    body += lines.head_rule()
    chunk = len(body)
    for row, row_text in zip(rows, texts, strict=True):
        body += lines.row(row, row_text)
        if len(body) - chunk >= RICH_CHUNK:
            _emit(out, body, plain)
            body, chunk = [], 0
    body += lines.bottom()
    if layout.dropped:
        names = ", ".join(columns[i].header for i in layout.dropped)
        note = f"Left out at this width: {names} (widen the terminal, or use --json)."
        body += [[(line, "dim")] for line in textwrap.wrap(note, max(out.width, 20))]
    _emit(out, body, plain)


def _emit(out: Console, lines: list[list[Piece]], plain: bool) -> None:
    if not lines:
        return
    if plain:
        out.file.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
        return
    from rich.text import Text

    joined: Text = Text("\n").join(Text.assemble(*line) for line in lines)
    out.print(joined, soft_wrap=True)


class _Lines:
    """The table's lines, as lists of styled pieces."""

    def __init__(
        self, columns: Sequence[Column], widths: Sequence[int], layout: Layout, box: Box, indent: int | None = None
    ) -> None:
        self.columns, self.widths, self.layout, self.box = columns, widths, layout, box
        pad = 2 if layout.padded else 0
        self.padded = [widths[i] + pad for i in layout.inline]
        if not layout.edge:  # no margin outside the first and last columns
            self.padded[0] -= pad // 2
            self.padded[-1] -= pad // 2
        self.total = layout.width(widths)
        if indent is None:
            # A folded line starts under the second column's text, if that leaves room to read.
            rule = 3 if layout.padded else 1
            first = widths[layout.inline[0]] + rule if len(layout.inline) > 1 else 0
            indent = first if self.total - first - 4 >= 16 else 0
        self.indent = indent

    def _edges(self, left: str, right: str) -> tuple[str, str]:
        return (left + " ", " " + right) if self.layout.edge else ("", "")

    def _cells(self, cells: Sequence[Cell], texts: Sequence[str], left: str, mid: str, right: str) -> list[Piece]:
        start, end = self._edges(left, right)
        rule = f" {mid} " if self.layout.padded else mid
        pieces: list[Piece] = [(start, "")]
        last = len(self.layout.inline) - 1
        for k, i in enumerate(self.layout.inline):
            if k:
                pieces.append((rule, ""))
            gap = " " * (self.widths[i] - _cell_width(texts[i]))
            cell = cells[i]
            styled = [(cell, "")] if isinstance(cell, str) else list(cell)
            if self.columns[i].justify == "right":
                pieces.append((gap, ""))
                pieces += styled
            else:
                pieces += styled
                if k < last or self.layout.edge:  # no trailing blanks without the edge
                    pieces.append((gap, ""))
        pieces.append((end, ""))
        return pieces

    def _span(self, text: str, style: str, left: str, right: str) -> list[list[Piece]]:
        """``text`` across the whole table (wrapped to it), between the edges."""
        start, end = self._edges(left, right)
        room = self.total - len(start) - len(end)
        lines = []
        for line in textwrap.wrap(text, max(room - self.indent, 8), break_on_hyphens=False) or [""]:
            body = " " * self.indent + line
            fill = " " * max(0, room - _cell_width(body)) if self.layout.edge else ""
            lines.append([(start, ""), (body, style), (fill, ""), (end, "")])
        return lines

    def top(self) -> list[list[Piece]]:
        return [[(self.box.get_top(self.padded), "")]] if self.layout.edge else []

    def header(self, style: str) -> list[list[Piece]]:
        headers = [c.header for c in self.columns]
        cells: list[Cell] = [((h, style),) for h in headers]
        box = self.box
        return [self._cells(cells, headers, box.head_left, box.head_vertical, box.head_right)]

    def head_rule(self) -> list[list[Piece]]:
        return [[(self.box.get_row(self.padded, "head", edge=self.layout.edge), "")]]

    def row(self, cells: Sequence[Cell], texts: Sequence[str]) -> list[list[Piece]]:
        box = self.box
        lines = [self._cells(cells, texts, box.mid_left, box.mid_vertical, box.mid_right)]
        said = [self._said(i, texts[i]) for i in self.layout.folded if texts[i] not in ("", EMPTY)]
        if said:
            lines += self._span("; ".join(said), "", box.mid_left, box.mid_right)
        return lines

    def _said(self, i: int, text: str) -> str:
        column = self.columns[i]
        label = column.header if column.label is None else column.label
        return f"{label} {text}" if label else text

    def bottom(self) -> list[list[Piece]]:
        return [[(self.box.get_bottom(self.padded), "")]] if self.layout.edge else []
