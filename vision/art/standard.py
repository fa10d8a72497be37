"""A plain standard deck (52 cards and two jokers, for Yonac): big indices, classic pips,
lettered court cards. Real decks differ from maker to maker; this one is for printing and
for the synthetic table, and a user can teach the companion their own deck instead."""

from __future__ import annotations

from companion.cards import Card
from vision.art.canvas import WHITE, Canvas
from vision.art.common import DeckArt, SuitInk, draw_back_pattern, draw_pips
from vision.art.index import draw_corner_index
from vision.art.marks import draw_mark

BLACK_INK = (20, 20, 20)
RED_INK = (200, 20, 30)

SUITS = {
    "S": SuitInk("spade", BLACK_INK, BLACK_INK, (225, 225, 225)),
    "H": SuitInk("heart", RED_INK, RED_INK, (250, 220, 220)),
    "D": SuitInk("diamond", RED_INK, RED_INK, (250, 220, 220)),
    "C": SuitInk("club", BLACK_INK, BLACK_INK, (225, 225, 225)),
}
JOKER_MARK = {"JK1": "star5", "JK2": "star5 ring"}
COURT_NAMES = {"J": "JACK", "Q": "QUEEN", "K": "KING"}

SIZE = (63.0, 88.0)
INDEX_BOX = (2.0, 2.5, 14.0, 27.0)


def _ink(card: Card) -> tuple[int, int, int]:
    return RED_INK if card.colour == "red" else BLACK_INK


def draw_index(canvas: Canvas, card: Card) -> None:
    if card.kind == "joker":
        x, y, w, h = draw_corner_index(canvas, "standard", card, "JK", _ink(card), None)
        draw_mark(canvas, JOKER_MARK[card.code], x + w / 2, y + h / 2, min(w, h) + 0.4, _ink(card), WHITE)
        return
    suit = SUITS[card.suits[0]]
    draw_corner_index(canvas, "standard", card, card.rank or "", suit.ink, suit)


def draw_face(canvas: Canvas, card: Card) -> None:
    w, h = canvas.size_mm
    if card.kind == "joker":
        draw_mark(canvas, JOKER_MARK[card.code], w / 2, 40, 26, _ink(card), WHITE)
        canvas.text("JOKER", (18, 58, w - 36, 8), _ink(card), bold=0.05)
        return
    suit = SUITS[card.suits[0]]
    rank = card.rank or ""
    if rank == "A":
        suit.draw(canvas, w / 2, h / 2, 26)
    elif rank in COURT_NAMES:
        canvas.rect(17.5, 12, w - 35, h - 24, fill=suit.tint, outline=suit.ink, width=0.6, radius=2)
        canvas.text(rank, (19, 17, w - 38, 26), suit.ink, bold=0.05)
        canvas.text(COURT_NAMES[rank], (19, 47, w - 38, 6), suit.ink, bold=0.03)
        suit.draw(canvas, w / 2, 65, 13, paper=suit.tint)
    else:
        draw_pips(canvas, suit, int(rank), (22.0, 16.0, w - 44.0, h - 32.0), 9.0)


def draw_back(canvas: Canvas) -> None:
    draw_back_pattern(canvas, 3.5, field=(160, 28, 40), line=(235, 205, 205), emblem="diamond",
                      emblem_fill=(250, 240, 240))


ART = DeckArt("standard", SIZE, 3.5, INDEX_BOX, draw_face, draw_index, draw_back)
