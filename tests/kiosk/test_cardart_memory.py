"""The kiosk's card pictures are kept once, as textures (the memory budget, docs/kiosk.md)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.kiosk


def test_a_card_texture_leaves_no_drawing_in_the_art_cache(kiosk_app):
    from kiosk import cardart
    from vision import art

    art._FACES.clear()
    texture = cardart.card_texture("ideal", "GC")
    assert texture is not None and texture.size == (101, 141)
    assert len(art._FACES) == 0  # the texture is the picture kept, not a drawing besides it
    assert cardart.card_texture("ideal", "GC") is texture
