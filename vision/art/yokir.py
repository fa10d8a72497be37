"""Yokir (24 cards): the four camps of the rules' story, each with its mark and colour:
Architecture a pyramid (black), Leadership Pharaoh's crown (red), Art & Music notes and a
paintbrush (black), Thought a papyrus scroll (red). Six ranks, Initiate to Master, named
on the card and counted by small marks; an Initiate notes that it may become the Oracle
or the Sage once trump is known."""

from __future__ import annotations

from companion.cards import Card
from vision.art.canvas import Canvas
from vision.art.common import DeckArt, SuitInk, draw_back_pattern
from vision.art.index import draw_corner_index

BLACK_INK = (25, 22, 20)
RED_INK = (185, 25, 25)
SUITS = {
    "A": SuitInk("pyramid", BLACK_INK, BLACK_INK, (236, 228, 210)),
    "L": SuitInk("crown", RED_INK, RED_INK, (246, 224, 214)),
    "M": SuitInk("notes and brush", BLACK_INK, BLACK_INK, (236, 228, 210)),
    "T": SuitInk("scroll", RED_INK, RED_INK, (246, 224, 214)),
}
GOLD = (176, 134, 40)
SIZE = (63.0, 88.0)
INDEX_BOX = (2.0, 2.5, 14.0, 27.0)


def draw_index(canvas: Canvas, card: Card) -> None:
    suit = SUITS[card.suits[0]]
    draw_corner_index(canvas, "yokir", card, card.rank or "", suit.ink, suit)


def draw_face(canvas: Canvas, card: Card) -> None:
    w, h = canvas.size_mm
    suit = SUITS[card.suits[0]]
    canvas.rect(17, 4, w - 34, h - 8, fill=suit.tint, radius=2.5)
    canvas.rect(17, 4, w - 34, h - 8, outline=GOLD, width=0.5, radius=2.5)
    canvas.text((card.rank_name or "").upper(), (19, 7, w - 38, 5.5), suit.ink, bold=0.03, squeeze=0.7)
    canvas.text(suit_name(card), (19, 14, w - 38, 3.2), GOLD, bold=0.02, squeeze=0.7)
    suit.draw(canvas, w / 2, 43, 27, paper=suit.tint)
    # the rank counted in small marks: rows of up to three
    value = card.value or 0
    step = 5.6
    rows = [min(3, value - 3 * r) for r in range((value + 2) // 3)]
    for r, count in enumerate(rows):
        x0 = w / 2 - step * (count - 1) / 2
        for i in range(count):
            suit.draw(canvas, x0 + i * step, 63.5 + r * 5.6, 4.6, paper=suit.tint)
    if card.rank == "I":
        canvas.text("(ORACLE · SAGE)", (19, 76.5, w - 38, 3.0), GOLD, bold=0.02, squeeze=0.8)


def suit_name(card: Card) -> str:
    return {"A": "ARCHITECTURE", "L": "LEADERSHIP", "M": "ART & MUSIC", "T": "THOUGHT"}[card.suits[0]]


def draw_back(canvas: Canvas) -> None:
    draw_back_pattern(canvas, 3.5, field=(28, 38, 78), line=(196, 160, 80), emblem="pyramid",
                      emblem_fill=(214, 178, 92))


ART = DeckArt("yokir", SIZE, 3.5, INDEX_BOX, draw_face, draw_index, draw_back)
