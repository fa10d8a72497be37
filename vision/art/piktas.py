"""Piktas (72 square cards, 76 mm, rounded corners): as the rules describe them, Stone
dark red triangles (mountains), Water dark blue drops, Sky dark green papyrus stems, Sun
orange sunbursts, Moon light blue crescents; 20 trumps that carry both suit marks and
their animal's name on a background split between the two suits; two voids that are
black star fields."""

from __future__ import annotations

import random

from companion.cards import PIKTAS_TRUMPS, Card
from vision.art.canvas import WHITE, Canvas, Colour
from vision.art.common import DeckArt, SuitInk, draw_back_pattern, draw_pips
from vision.art.index import draw_corner_index
from vision.art.marks import draw_mark

SUITS = {
    "O": SuitInk("triangle", (140, 24, 28), (120, 16, 20), (246, 222, 220)),
    "W": SuitInk("drop", (22, 56, 150), (18, 44, 128), (222, 230, 248)),
    "K": SuitInk("stem", (26, 112, 48), (18, 92, 36), (222, 240, 224)),
    "U": SuitInk("sunburst", (245, 135, 10), (196, 88, 0), (253, 236, 212), outlined=True),
    "M": SuitInk("crescent", (120, 186, 236), (28, 104, 176), (226, 240, 252), outlined=True),
}
# Three letters that tell the two animals of a suit pair apart (beetle and bee differ).
SHORT = {animal: animal[:3].upper() for pair in PIKTAS_TRUMPS for animal in pair[:2]}
SHORT["beetle"] = "BTL"
VOID_FIELD: Colour = (12, 12, 28)
TRUMP_INK: Colour = (30, 30, 30)

SIZE = (76.0, 76.0)
RADIUS = 6.0
INDEX_BOX = (2.5, 2.5, 16.0, 29.0)


def paper(card: Card) -> Colour:
    return VOID_FIELD if card.kind == "void" else WHITE


def draw_index(canvas: Canvas, card: Card) -> None:
    if card.kind == "void":
        x, y, w, h = draw_corner_index(canvas, "piktas", card, "", WHITE, None, paper=VOID_FIELD,
                                       rank_share=0.0)
        top = h * 0.55
        draw_mark(canvas, "star4", x + w / 2, y + top / 2, min(w, top) + 0.5, WHITE, VOID_FIELD)
        n = int(card.code[-1])
        size = min(w / n, h * 0.42)
        for i in range(n):
            draw_mark(canvas, "star4", x + w * (2 * i + 1) / (2 * n), y + h * 0.78, size, WHITE, VOID_FIELD)
        return
    if card.kind == "trump":
        x, y, w, h = draw_corner_index(canvas, "piktas", card, SHORT[card.code], TRUMP_INK, None,
                                       rank_share=0.34)
        size = min(w, h / 2) + 0.2
        for i, code in enumerate(card.suits):
            SUITS[code].draw(canvas, x + w / 2, y + h * (1 + 2 * i) / 4, size)
        return
    suit = SUITS[card.suits[0]]
    draw_corner_index(canvas, "piktas", card, str(card.value), suit.ink, suit)


def draw_face(canvas: Canvas, card: Card) -> None:
    w, h = canvas.size_mm
    if card.kind == "void":
        _star_field(canvas, card.code)
        return
    if card.kind == "trump":
        _trump(canvas, card)
        return
    suit = SUITS[card.suits[0]]
    value = card.value or 1
    if value == 1:
        suit.draw(canvas, w / 2, h / 2, 30)
    else:
        draw_pips(canvas, suit, value, (26.0, 14.0, 24.0, 48.0), 9.5)


def _trump(canvas: Canvas, card: Card) -> None:
    w, h = canvas.size_mm
    first, second = (SUITS[s] for s in card.suits)
    canvas.polygon([(0, 0), (w, 0), (0, h)], fill=first.tint)
    canvas.polygon([(w, 0), (w, h), (0, h)], fill=second.tint)
    first.draw(canvas, 52, 17, 18, paper=first.tint)
    second.draw(canvas, 24, 59, 18, paper=second.tint)
    canvas.rect(12, 30, w - 24, 16, fill=WHITE, outline=TRUMP_INK, width=0.5, radius=3)
    name = "MOUNTAIN LION" if card.code == "lion" else card.code.upper()
    canvas.text(name, (15, 33, w - 30, 7), TRUMP_INK, bold=0.04, squeeze=0.6)
    canvas.text("TRUMP", (15, 41.3, w - 30, 2.6), TRUMP_INK, bold=0.02)


def _star_field(canvas: Canvas, code: str) -> None:
    w, h = canvas.size_mm
    rng = random.Random(code)  # the same stars every time, different on each void
    for _ in range(70):
        x, y = rng.uniform(2, w - 2), rng.uniform(2, h - 2)
        if _in_index(x, y, w, h):
            continue
        r = rng.choice((0.25, 0.35, 0.5))
        canvas.ellipse(x, y, r, r, fill=(230, 230, 255))
    for _ in range(7):
        x, y = rng.uniform(20, w - 20), rng.uniform(8, h - 8)
        draw_mark(canvas, "star4", x, y, rng.uniform(3, 6), WHITE, VOID_FIELD)
    draw_mark(canvas, "star4", w / 2, h / 2, 26, WHITE, VOID_FIELD)


def _in_index(x: float, y: float, w: float, h: float) -> bool:
    bx, by, bw, bh = INDEX_BOX
    return (bx - 1 <= x <= bx + bw + 1 and by - 1 <= y <= by + bh + 1) or \
        (w - bx - bw - 1 <= x <= w - bx + 1 and h - by - bh - 1 <= y <= h - by + 1)


def draw_back(canvas: Canvas) -> None:
    draw_back_pattern(canvas, RADIUS, field=(22, 70, 76), line=(150, 200, 196), emblem="star4",
                      emblem_fill=(240, 230, 190), lattice=8.0)


ART = DeckArt("piktas", SIZE, RADIUS, INDEX_BOX, draw_face, draw_index, draw_back, paper)
