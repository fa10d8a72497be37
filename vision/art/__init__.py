"""Card art: the faces and backs of the Yokir, Piktas, standard and IDEAL decks.

The same drawings are printed (`vision.printing`), put on the synthetic table
(`vision.synthetic`) and used by recognition as templates, so every function here is
cached: ask for a card at a resolution again, get the same array back while it is in the
cache. The arrays are read-only for that reason (copy one before drawing on it). Card
faces are kept up to `RENDER_CACHE_BYTES`, least recently used first out: a deck drawn for
templates at 6 px/mm or for print is 15 to 300 MB, which a kiosk cannot keep for nothing.

Every card carries its index (rank and suit) in its top-left corner and, turned 180
degrees, in its bottom-right corner: `index_box_mm(deck)` is where the first one is on
an upright card. The drawings are described in docs/cards-art.md.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.cards import Card, Deck, get_deck
from companion.errors import CompanionError
from vision.art import ideal, piktas, standard, yokir
from vision.art.canvas import Canvas
from vision.art.common import DeckArt, draw_card, finish
from vision.kept import KeptCache

MIN_PX_PER_MM = 0.5
MAX_PX_PER_MM = 40.0
#: At most this many bytes of rendered card faces are kept (a whole deck at the synthetic
#: table's 2 px/mm takes 2 to 10 MB; at 6 px/mm, 15 to 80 MB).
RENDER_CACHE_BYTES = 12 << 20

ARTS: dict[str, DeckArt] = {art.deck: art for art in (yokir.ART, piktas.ART, standard.ART, ideal.ART)}


class NoArt(CompanionError, ValueError):
    """A deck the project has no drawings for (the Ahyoheek picks, a deck a user taught)."""


class BadResolution(CompanionError, ValueError):
    """A drawing resolution outside what makes sense."""


def art_decks() -> tuple[str, ...]:
    """The decks that have card art."""
    return tuple(ARTS)


def deck_art(deck: str) -> DeckArt:
    """The art of a deck, by deck or game name (`yonac` is the standard deck)."""
    resolved = get_deck(deck)
    if resolved.name not in ARTS:
        raise NoArt(f"the {resolved.title} deck has no card art; decks with art: {', '.join(ARTS)}")
    return ARTS[resolved.name]


def card_size_mm(deck: str) -> tuple[float, float]:
    """(width, height) of the deck's cards in millimetres."""
    return deck_art(deck).size_mm


def corner_radius_mm(deck: str) -> float:
    """The radius of the deck's rounded card corners, in millimetres."""
    return deck_art(deck).radius_mm


def index_box_mm(deck: str) -> tuple[float, float, float, float]:
    """(x, y, w, h) mm of the top-left corner index on an upright card. The same box turned
    180 degrees about the card's centre holds the second copy of the index."""
    return deck_art(deck).index_box_mm


def _check_px(px_per_mm: float) -> float:
    try:
        px = float(px_per_mm)
    except (TypeError, ValueError):
        raise BadResolution(f"resolution must be a number of pixels per mm, got {px_per_mm!r}") from None
    if not MIN_PX_PER_MM <= px <= MAX_PX_PER_MM:
        raise BadResolution(f"resolution must be {MIN_PX_PER_MM:g} to {MAX_PX_PER_MM:g} pixels per mm, "
                            f"got {px_per_mm!r}")
    return px


def _card(deck: Deck, code: str) -> Card:
    return deck[code] if code in deck else deck.parse(code)


def _frozen(image: np.ndarray) -> np.ndarray:
    image.flags.writeable = False
    return image


def render_card(deck: str, code: str, px_per_mm: float = 3.0, *, keep: bool = True) -> np.ndarray:
    """The face of a card, upright, as a BGR uint8 image of
    (round(h_mm * px_per_mm), round(w_mm * px_per_mm), 3); white outside the rounded
    corners. `code` may also be the card's full name. Cached and read-only; with
    `keep=False` a drawing not cached yet is not cached either, for a caller that draws
    each face once (the recognizer's templates) or keeps its own (the kiosk's textures)."""
    art = deck_art(deck)
    card = _card(get_deck(art.deck), code)
    return _render_card(art.deck, card.code, _check_px(px_per_mm), keep)


_FACES = KeptCache(RENDER_CACHE_BYTES)  # drawn faces by (deck, code, px/mm)


def _render_card(deck: str, code: str, px_per_mm: float, keep: bool = True) -> np.ndarray:
    def draw() -> np.ndarray:
        return _frozen(draw_card(ARTS[deck], get_deck(deck)[code], px_per_mm).to_bgr())

    key = (deck, code, px_per_mm)
    if keep:
        return _FACES.made(key, draw)
    kept = _FACES.find(key)
    return kept if kept is not None else draw()


def render_back(deck: str, px_per_mm: float = 3.0) -> np.ndarray:
    """The back of the deck's cards (the same either way up), like `render_card`."""
    return _render_back(deck_art(deck).deck, _check_px(px_per_mm))


@lru_cache(maxsize=64)
def _render_back(deck: str, px_per_mm: float) -> np.ndarray:
    art = ARTS[deck]
    canvas = Canvas(art.size_mm, px_per_mm)
    art.draw_back(canvas)
    finish(canvas, art.radius_mm)
    return _frozen(canvas.to_bgr())


def card_mask(deck: str, px_per_mm: float = 3.0) -> np.ndarray:
    """The card's shape at the size of `render_card`: 255 inside the rounded outline, 0
    outside, anti-aliased at the corners. Cached and read-only."""
    return _card_mask(deck_art(deck).deck, _check_px(px_per_mm))


@lru_cache(maxsize=64)
def _card_mask(deck: str, px_per_mm: float) -> np.ndarray:
    art = ARTS[deck]
    canvas = Canvas(art.size_mm, px_per_mm, background=(255, 255, 255))
    canvas.clip_round(art.radius_mm, outside=(0, 0, 0))
    return _frozen(np.ascontiguousarray(np.asarray(canvas.to_rgb())[:, :, 0]))


def index_image(deck: str, code: str, px_per_mm: float = 3.0) -> np.ndarray:
    """The top-left corner index of a card as drawn by `render_card` (a read-only view)."""
    image = render_card(deck, code, px_per_mm)
    x, y, w, h = index_box_mm(deck)
    px = float(px_per_mm)
    return image[round(y * px):round((y + h) * px), round(x * px):round((x + w) * px)]


def index_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Zero-mean normalised correlation of two same-sized images, in grey (-1..1): how
    alike two corner indices look to template matching. Grey is the strict case: it
    ignores the colour that also tells suits apart."""
    if a.shape != b.shape:
        raise ValueError(f"images differ in size: {a.shape} and {b.shape}")
    ga = cv2.cvtColor(a, cv2.COLOR_BGR2GRAY) if a.ndim == 3 else a
    gb = cv2.cvtColor(b, cv2.COLOR_BGR2GRAY) if b.ndim == 3 else b
    return float(cv2.matchTemplate(ga, gb, cv2.TM_CCOEFF_NORMED)[0, 0])


__all__ = ["ARTS", "MAX_PX_PER_MM", "MIN_PX_PER_MM", "RENDER_CACHE_BYTES", "BadResolution", "NoArt",
           "art_decks",
           "card_mask", "card_size_mm", "corner_radius_mm", "deck_art", "index_box_mm",
           "index_correlation", "index_image", "render_back", "render_card"]
