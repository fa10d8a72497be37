"""Card pictures for the screen: the faces `vision.art` draws (the same drawings the
printer and the synthetic table use), as Kivy textures, kept in a small cache.

A card the project has no art for (a deck a user taught, Ahyoheek's picks) has no
picture: the widgets then show its code alone.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any

from companion.catalog import CATALOG
from companion.errors import CompanionError

log = logging.getLogger(__name__)

#: Drawing resolution: a 63 x 88 mm card is 101 x 141 px, a little more than the screen
#: shows it at, so the GPU only ever scales it down.
PX_PER_MM = 1.6
#: Textures kept (about 57 kB each): a Medieval Mastery hand, trick and field at 14 seats.
MAX_TEXTURES = 160

_cache: OrderedDict[tuple[str, str], Any] = OrderedDict()


def game_deck(game: str) -> str | None:
    """The deck whose art shows the cards of `game` (None for a game without cards)."""
    info = CATALOG.get(game)
    return info.deck if info is not None and info.deck else None


def card_texture(deck: str | None, code: str) -> Any:
    """The face of card `code` of `deck` as a Kivy texture, or None when there is no art
    for it. The same texture object comes back while it is in the cache."""
    if not deck or not code:
        return None
    key = (deck, code)
    if key in _cache:
        _cache.move_to_end(key)
        return _cache[key]
    texture = _draw(deck, code)
    _cache[key] = texture
    while len(_cache) > MAX_TEXTURES:
        _cache.popitem(last=False)
    return texture


def _draw(deck: str, code: str) -> Any:
    try:
        import numpy as np

        from vision.art import render_card
    except ImportError:  # a kiosk installed without vision still plays, by codes
        return None
    try:
        bgr = render_card(deck, code, PX_PER_MM, keep=False)  # the texture is what is kept
    except (CompanionError, KeyError, ValueError):
        return None
    from kivy.graphics.texture import Texture

    h, w = bgr.shape[:2]
    rgba = np.empty((h, w, 4), np.uint8)  # four bytes a pixel: rows need no alignment
    rgba[:, :, :3] = bgr[:, :, ::-1]
    rgba[:, :, 3] = 255
    texture = Texture.create(size=(w, h), colorfmt="rgba")
    texture.blit_buffer(rgba.tobytes(), colorfmt="rgba", bufferfmt="ubyte")
    texture.flip_vertical()
    return texture


def cached() -> int:
    """How many card textures are kept now (for tests)."""
    return len(_cache)
