"""What every deck's art shares: the description of a deck style, drawing a whole card,
pip patterns, and the patterned card back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from companion.cards import Card
from vision.art.canvas import WHITE, Canvas, Colour
from vision.art.marks import draw_mark

EDGE: Colour = (190, 190, 190)  # the hairline around every card, so a cut card shows its edge


@dataclass(frozen=True)
class SuitInk:
    """How a suit is printed: `fill` for its marks, `ink` (darker) for index text and for
    the outline of pale marks, and a pale `tint` for backgrounds."""

    mark: str
    fill: Colour
    ink: Colour
    tint: Colour
    outlined: bool = False

    def draw(self, canvas: Canvas, cx: float, cy: float, size: float, paper: Colour = WHITE,
             angle: float = 0.0) -> None:
        draw_mark(canvas, self.mark, cx, cy, size, self.fill, paper, angle,
                  outline=self.ink if self.outlined else None, outline_width=size * 0.035)


@dataclass(frozen=True)
class DeckArt:
    """One deck's drawing: its card size and corner index box (mm), the face minus the
    indices, the index (drawn on a canvas the size of the box) and the back."""

    deck: str
    size_mm: tuple[float, float]
    radius_mm: float
    index_box_mm: tuple[float, float, float, float]
    draw_face: Callable[[Canvas, Card], None]
    draw_index: Callable[[Canvas, Card], None]
    draw_back: Callable[[Canvas], None]
    paper: Callable[[Card], Colour] = lambda card: WHITE


def draw_card(art: DeckArt, card: Card, px_per_mm: float) -> Canvas:
    """The whole face: paper, face art, the index in two opposite corners, the edge."""
    paper = art.paper(card)
    canvas = Canvas(art.size_mm, px_per_mm, background=paper)
    art.draw_face(canvas, card)
    index = canvas.patch(art.index_box_mm, paper)
    art.draw_index(index, card)
    x, y = art.index_box_mm[:2]
    canvas.paste(index, x, y)
    canvas.paste(index, x, y, rotate180=True)
    finish(canvas, art.radius_mm)
    return canvas


def finish(canvas: Canvas, radius: float) -> None:
    """Round the corners (white outside) and draw the hairline edge."""
    w, h = canvas.size_mm
    canvas.rect(0, 0, w, h, outline=EDGE, width=0.25, radius=radius)
    canvas.clip_round(radius)


def draw_back_pattern(canvas: Canvas, radius: float, field: Colour, line: Colour, emblem: str,
                      emblem_fill: Colour, border: float = 4.0, lattice: float = 7.0) -> None:
    """A back that looks the same either way up: a coloured field, a white border, a
    diamond lattice and an emblem drawn upright and upside down on top of each other."""
    w, h = canvas.size_mm
    canvas.rect(0, 0, w, h, fill=WHITE)
    canvas.rect(border, border, w - 2 * border, h - 2 * border, fill=field, radius=radius * 0.6)
    x0, y0, x1, y1 = border + 2, border + 2, w - border - 2, h - border - 2
    cx, cy = w / 2, h / 2
    reach = max(w, h)
    k = -int(reach / lattice) - 1
    while k * lattice < reach:
        off = k * lattice
        for sign in (1, -1):
            # lines of slope ±1 through (cx + off, cy), clipped to the inner rectangle
            pts = _clip_diagonal(cx + off, cy, sign, x0, y0, x1, y1)
            if pts:
                canvas.line(pts, line, 0.35)
        k += 1
    canvas.rect(x0, y0, x1 - x0, y1 - y0, outline=line, width=0.6, radius=radius * 0.4)
    size = min(w, h) * 0.42
    canvas.ellipse(cx, cy, size * 0.62, size * 0.62, fill=field, outline=line, width=0.6)
    draw_mark(canvas, emblem, cx, cy, size * 0.8, emblem_fill, field)
    draw_mark(canvas, emblem, cx, cy, size * 0.8, emblem_fill, field, angle=180)


def _clip_diagonal(px: float, py: float, sign: int, x0: float, y0: float, x1: float,
                   y1: float) -> list[tuple[float, float]] | None:
    """The part of the line y - py = sign * (x - px) inside a rectangle, or None."""
    pts = []
    for x in (x0, x1):
        y = py + sign * (x - px)
        if y0 <= y <= y1:
            pts.append((x, y))
    for y in (y0, y1):
        x = px + sign * (y - py)
        if x0 <= x <= x1:
            pts.append((x, y))
    pts = sorted(set(pts))
    return [pts[0], pts[-1]] if len(pts) >= 2 and pts[0] != pts[-1] else None


# Pip patterns for 1..10: (column 0..2, row 0..1) inside a pip area; pips on the lower
# half are printed upside down, as on ordinary playing cards.
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((1, 0.5),),
    2: ((1, 0), (1, 1)),
    3: ((1, 0), (1, 0.5), (1, 1)),
    4: ((0, 0), (2, 0), (0, 1), (2, 1)),
    5: ((0, 0), (2, 0), (1, 0.5), (0, 1), (2, 1)),
    6: ((0, 0), (2, 0), (0, 0.5), (2, 0.5), (0, 1), (2, 1)),
    7: ((0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1), (2, 1)),
    8: ((0, 0), (2, 0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1), (2, 1)),
    9: ((0, 0), (2, 0), (0, 1 / 3), (2, 1 / 3), (1, 0.5), (0, 2 / 3), (2, 2 / 3), (0, 1), (2, 1)),
    10: ((0, 0), (2, 0), (1, 1 / 6), (0, 1 / 3), (2, 1 / 3), (0, 2 / 3), (2, 2 / 3), (1, 5 / 6),
         (0, 1), (2, 1)),
}


def draw_pips(canvas: Canvas, suit: SuitInk, count: int, area: tuple[float, float, float, float],
              size: float, paper: Colour = WHITE) -> None:
    """`count` suit marks in the classic pattern inside `area` (x, y, w, h of pip centres)."""
    x, y, w, h = area
    for col, row in PIPS[count]:
        suit.draw(canvas, x + w * col / 2, y + h * row, size, paper, angle=180 if row > 0.5 else 0)
