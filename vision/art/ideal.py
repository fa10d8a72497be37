"""IDEAL (130 cards, for Medieval Mastery): five suits, Swords ♠, Cups ♥, Staffs ♣,
Pentacles ♦ and Wands Ψ, each of 26 ranks from the King (25) down to the Xenocrat (0).
A card shows its rank initial and value in the corners, its rank name, value, class and
learning style in the middle, as in the rules' tables."""

from __future__ import annotations

from companion.cards import Card
from vision.art.canvas import Canvas
from vision.art.common import DeckArt, SuitInk, draw_back_pattern
from vision.art.index import draw_corner_index, draw_rank

SUITS = {
    "S": SuitInk("spade", (22, 22, 22), (22, 22, 22), (228, 228, 228)),
    "C": SuitInk("heart", (196, 22, 34), (196, 22, 34), (250, 224, 224)),
    "T": SuitInk("club", (16, 118, 52), (10, 100, 42), (222, 242, 226)),
    "P": SuitInk("diamond", (212, 160, 20), (150, 104, 0), (250, 240, 208), outlined=True),
    "W": SuitInk("wand", (112, 40, 150), (100, 32, 136), (238, 226, 246)),
}
# The rules' first table: class and learning style of every rank.
CLASSES = {**dict.fromkeys("KQPFJ", "RULER"), **dict.fromkeys("ESIAC", "COURTIER"),
           **dict.fromkeys("OUBMR", "ARTISAN"), **dict.fromkeys("HGYDL", "FARMER"),
           **dict.fromkeys("WVTNZ", "WANDERER"), "X": "XENOCRAT"}
STYLES = dict(zip("KQPFJESIACOUBMRHGYDLWVTNZX",
                  ("IDEALIST", "CONFORMIST", "THEORIST", "ACTIVIST", "EMPIRICIST",
                   "CONFORMIST", "IDEALIST", "EMPIRICIST", "THEORIST", "ACTIVIST",
                   "THEORIST", "IDEALIST", "ACTIVIST", "EMPIRICIST", "CONFORMIST",
                   "ACTIVIST", "EMPIRICIST", "CONFORMIST", "THEORIST", "IDEALIST",
                   "EMPIRICIST", "ACTIVIST", "THEORIST", "CONFORMIST", "IDEALIST",
                   "IDEAL MAN"), strict=True))
SIZE = (63.0, 88.0)
INDEX_BOX = (2.0, 2.5, 14.0, 33.0)


def draw_index(canvas: Canvas, card: Card) -> None:
    suit = SUITS[card.suits[0]]
    x, y, w, h = draw_corner_index(canvas, "ideal", card, card.rank or "", suit.ink, None, rank_share=0.36)
    value_h = h * 0.36
    draw_rank(canvas, str(card.value), (x + 0.6, y, w - 1.2, value_h), suit.ink)
    rest = h - value_h - 0.8
    suit.draw(canvas, x + w / 2, y + value_h + 0.8 + rest / 2, min(w, rest) + 0.4)


def draw_face(canvas: Canvas, card: Card) -> None:
    w, h = canvas.size_mm
    suit = SUITS[card.suits[0]]
    rank = card.rank or ""
    canvas.rect(17, 4, w - 34, h - 8, fill=suit.tint, radius=2.5)
    canvas.text((card.rank_name or "").upper(), (19, 7, w - 38, 5.0), suit.ink, bold=0.03,
                squeeze=0.6)
    suit.draw(canvas, w / 2, 33, 22, paper=suit.tint)
    canvas.ellipse(w / 2, 57, 8.5, 8.5, outline=suit.ink, width=0.6)
    draw_rank(canvas, str(card.value), (w / 2 - 5, 52.5, 10, 9), suit.ink)
    canvas.text(CLASSES[rank], (19, 71, w - 38, 3.2), suit.ink, bold=0.02, squeeze=0.7)
    canvas.text(STYLES[rank], (19, 76.5, w - 38, 3.2), suit.ink, bold=0.02, squeeze=0.7)


def draw_back(canvas: Canvas) -> None:
    draw_back_pattern(canvas, 3.5, field=(30, 76, 52), line=(210, 190, 120), emblem="club",
                      emblem_fill=(230, 210, 140))


ART = DeckArt("ideal", SIZE, 3.5, INDEX_BOX, draw_face, draw_index, draw_back)
