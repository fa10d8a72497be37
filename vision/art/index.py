"""The corner index every card carries: the rank over the suit mark, inside a frame of
dashes that is a code telling the cards of a deck apart (docs/cards-art.md)."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np

from companion.cards import Card, get_deck
from vision.art.canvas import WHITE, Canvas, Colour
from vision.art.common import SuitInk
from vision.art.numerals import draw_number

# Around every corner index runs a frame of CODE_SEGMENTS dashes, CODE_WEIGHT of them
# drawn. Each card of a deck has its own pattern, and any two patterns differ in at least
# CODE_DISTANCE dashes, so two cards whose numerals and marks look alike (a 3 and a 5 of
# one suit, a spade and a club of one rank) still differ in a large part of their index.

CODE_SEGMENTS = 18
CODE_WEIGHT = 9
CODE_DISTANCE = 6


def _popcount(words: np.ndarray) -> np.ndarray:
    w = words.astype(np.uint32)
    w = w - ((w >> 1) & 0x55555555)
    w = (w & 0x33333333) + ((w >> 2) & 0x33333333)
    w = (w + (w >> 4)) & 0x0F0F0F0F
    return ((w * 0x01010101) >> 24).astype(np.int64)


@lru_cache(maxsize=1)
def code_words() -> tuple[int, ...]:
    """The code: words of CODE_SEGMENTS bits with CODE_WEIGHT ones, at least CODE_DISTANCE
    apart, chosen greedily in increasing order (a lexicode: the same list every time)."""
    words = np.array([sum(1 << b for b in bits)
                      for bits in itertools.combinations(range(CODE_SEGMENTS), CODE_WEIGHT)], np.int64)
    words.sort()
    chosen = []
    while words.size:
        first = int(words[0])
        chosen.append(first)
        words = words[_popcount(words ^ first) >= CODE_DISTANCE]
    return tuple(chosen)


@lru_cache(maxsize=16)
def index_codes(deck: str) -> dict[str, int]:
    """Each card's code word. Cards are taken in deck order; each gets the unused word
    farthest from the words of the cards it shares a rank or a suit with (the ones whose
    numerals or marks look the same), so those differ in as many dashes as possible."""
    cards = get_deck(deck).cards
    words = np.array(code_words(), np.int64)
    if len(cards) > len(words):
        raise ValueError(f"the index code has {len(words)} words, the {deck} deck {len(cards)} cards")
    used = np.zeros(len(words), bool)
    chosen: dict[str, int] = {}
    for i, card in enumerate(cards):
        kin = [chosen[c.code] for c in cards[:i] if _alike(card, c)]
        if kin:
            nearest = np.min(_popcount(words[:, None] ^ np.array(kin)[None, :]), axis=1)
        else:
            nearest = np.zeros(len(words), np.int64)
        nearest = np.where(used, -1, nearest)
        best = int(np.argmax(nearest))  # the first of the farthest
        used[best] = True
        chosen[card.code] = int(words[best])
    return chosen


def _alike(a: Card, b: Card) -> bool:
    return (a.value is not None and a.value == b.value) or bool(set(a.suits) & set(b.suits)) or \
        (a.kind == b.kind and a.kind in ("void", "joker"))


def draw_code_frame(canvas: Canvas, word: int, colour: Colour, thickness: float = 1.4) -> None:
    """The dashes of `word` around the edge of the canvas, clockwise from the top-left:
    a quarter of them on each short side, the rest on the long ones."""
    w, h = canvas.size_mm
    short = CODE_SEGMENTS // 6
    long_ = CODE_SEGMENTS // 2 - short
    t = thickness
    sides = [((t / 2, t / 2), (w - t / 2, t / 2), short if w <= h else long_),
             ((w - t / 2, t / 2), (w - t / 2, h - t / 2), long_ if w <= h else short),
             ((w - t / 2, h - t / 2), (t / 2, h - t / 2), short if w <= h else long_),
             ((t / 2, h - t / 2), (t / 2, t / 2), long_ if w <= h else short)]
    bit = 0
    for (x0, y0), (x1, y1), n in sides:
        length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        trim = (0.3 + t / 2) / length  # a gap between dashes, room for the round caps
        for k in range(n):
            if word >> bit & 1:
                a, b = k / n + trim, (k + 1) / n - trim
                canvas.line([(x0 + (x1 - x0) * a, y0 + (y1 - y0) * a),
                             (x0 + (x1 - x0) * b, y0 + (y1 - y0) * b)], colour, t)
            bit += 1


def draw_corner_index(canvas: Canvas, deck: str, card: Card, rank: str, ink: Colour,
                      mark: SuitInk | None, paper: Colour = WHITE,
                      rank_share: float = 0.45) -> tuple[float, float, float, float]:
    """The usual index: the code frame, the rank (numerals drawn, letters set) in the top
    `rank_share` of the inside and the suit mark below it. Returns the box left for the
    mark (x, y, w, h), which is where a caller without `mark` draws its own."""
    draw_code_frame(canvas, index_codes(deck)[card.code], ink)
    w, h = canvas.size_mm
    inset = 2.4
    iw, ih = w - 2 * inset, h - 2 * inset
    rank_h = ih * rank_share
    draw_rank(canvas, rank, (inset, inset, iw, rank_h), ink)
    box = (inset, inset + rank_h + 0.8, iw, ih - rank_h - 0.8)
    if mark is not None:
        size = min(box[2], box[3]) + 0.4
        mark.draw(canvas, box[0] + box[2] / 2, box[1] + box[3] / 2, size, paper)
    return box


def draw_rank(canvas: Canvas, text: str, box: tuple[float, float, float, float], colour: Colour) -> None:
    """A rank in a box: numbers with the drawn numerals, anything else in the font."""
    if text.isdigit():
        draw_number(canvas, text, box, colour)
    else:
        canvas.text(text, box, colour, bold=0.04, squeeze=0.55)
