"""Boards drawn as SVG: how a ``Position`` or a book's ``BookEntry`` shows in a notebook.

    from solver.svg import board_svg
    board_svg(Position.from_moves("4453"))                  # the board
    board_svg(entry.position, entry.move_scores, entry.best_moves)   # and each move's score

Presentation only, in plain text: ``Position._repr_svg_`` imports it when a
notebook first draws a board, as python-chess draws its own.  The colours are
the explorer's (``bookgen/web/static/style.css``): a blue frame, red discs for
the first player and yellow for the second, which differ in lightness as much
as in hue, so they stay apart for colour-blind eyes.  A move's score is
written out, its sign first; its colour only repeats it, the explorer's
(``palette``): blue for a win and vermillion for a loss, deeper the quicker,
grey for a draw; a best move is starred.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import TYPE_CHECKING

from .bitboard import Board
from .palette import score_colour

if TYPE_CHECKING:
    from .position import Position

CELL = 100  # the drawing's units a cell; ``size`` scales the whole
FRAME, HOLE, RIM = "#1d4fa8", "#f3f5f9", "#123a80"
FIRST, SECOND, LAST = "#d7263d", "#f4c430", "#ffffff"  # discs; the last one's ring
MUTED, TEXT = "#6b7686", "#1b1f24"  # the column numbers; a full column's mark
PIXELS_A_CELL = 44  # the default size
STAR = "\u2605"


def board_svg(
    position: Position,
    move_scores: Sequence[int | None] | None = None,
    best_moves: Sequence[int] = (),
    size: int | None = None,
) -> str:
    """``position`` as an SVG document (a string), its board's size; with ``move_scores``
    (a score a column, ``None`` for a full one), each under its column, ``best_moves``
    starred.  ``size``: the width in pixels (default 44 a column)."""
    board = position.board
    width, height = board.width, board.height
    labels = move_scores is not None or bool(best_moves)
    tall = height * CELL + CELL // 2 + (CELL * 7 // 10 if labels else 0)
    pixels = size or PIXELS_A_CELL * width
    first = position.current if position.ply % 2 == 0 else position.current ^ position.mask
    last = _last_stone(position)
    mover = "x" if position.ply % 2 == 0 else "o"
    title = f"Connect 4 on {board}: {position.moves or 'the empty board'}, {mover} to move"
    parts = [
        (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width * CELL} {tall}" '
            f'width="{pixels}" height="{round(pixels * tall / (width * CELL))}" '
            f'font-family="system-ui, sans-serif" role="img">'
        ),
        f"<title>{escape(title)}</title>",
        (
            f'<rect class="frame" width="{width * CELL}" height="{height * CELL}" rx="18" '
            f'fill="{FRAME}"/>'
        ),
    ]
    for col in range(width):
        for row in range(height):
            bit = 1 << (col * board.h1 + row)
            kind = "x" if first & bit else "o" if position.mask & bit else "hole"
            fill = {"x": FIRST, "o": SECOND, "hole": HOLE}[kind]
            ring = (
                f'stroke="{LAST}" stroke-width="6"'
                if bit == last
                else f'stroke="{RIM}" stroke-width="2"'
            )
            parts.append(
                f'<circle class="{kind}" cx="{col * CELL + CELL // 2}" '
                f'cy="{(height - 1 - row) * CELL + CELL // 2}" r="{CELL * 2 // 5}" '
                f'fill="{fill}" {ring}/>'
            )
    base = height * CELL + CELL * 2 // 5
    parts += [
        f'<text x="{col * CELL + CELL // 2}" y="{base}" text-anchor="middle" '
        f'font-size="30" fill="{MUTED}">{col + 1}</text>'
        for col in range(width)
    ]
    if labels:
        parts += _score_labels(board, move_scores, best_moves)
    parts.append("</svg>")
    return "\n".join(parts)


def _score_labels(
    board: Board, move_scores: Sequence[int | None] | None, best_moves: Sequence[int]
) -> list[str]:
    """Under each column: its move's score on its colour, a star if it is best."""
    width, height = board.width, board.height
    top = height * CELL + CELL // 2
    parts = []
    for col in range(width):
        score = None if move_scores is None else move_scores[col]
        star = col + 1 in best_moves
        if score is None and not star:
            continue  # a full column, or a score the book does not hold
        x = col * CELL + CELL // 2
        text = "" if score is None else f"{score:+d}" if score else "0"
        fill = HOLE if score is None else score_colour(score, board)
        colour = TEXT if score is None else "#ffffff"
        outline = f' stroke="{TEXT}" stroke-width="4"' if star else ""
        parts.append(
            f'<g class="score" data-col="{col + 1}" data-score="{text}">'
            f'<rect x="{col * CELL + 8}" y="{top}" width="{CELL - 16}" '
            f'height="{CELL * 3 // 5}" rx="10" fill="{fill}"{outline}/>'
            f'<text x="{x}" y="{top + CELL * 2 // 5}" text-anchor="middle" '
            f'font-size="30" font-weight="bold" fill="{colour}">'
            f"{STAR if star else ''}{text}</text></g>"
        )
    return parts


def _last_stone(position: Position) -> int:
    """The bit of the last stone played (0 on the empty board)."""
    if not position.moves:
        return 0
    board = position.board
    col = int(position.moves[-1]) - 1
    stones = position.mask & board.column_masks[col]
    return 1 << (stones.bit_length() - 1)
