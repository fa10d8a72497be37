"""A card too blurred to name is still offered to a person with the likeliest cards."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.art import render_card
from vision.identify import identify
from vision.templates import deck_templates


def _blurred(code: str, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """A card of our drawn standard deck on felt, blurred (Gaussian sigma, px), and its quad."""
    img = render_card("standard", code, 3.0)
    h, w = img.shape[:2]
    pad = 30
    frame = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(40, 90, 40))
    quad = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    return cv2.GaussianBlur(frame, (0, 0), sigma), quad


@pytest.mark.parametrize("code", ["QC", "QS"])
def test_an_unread_court_is_offered_with_its_whole_corner_ranking(code):
    """Blurred this much, the standard deck's rank and suit read as noise (a 4 or a 7 of
    spades) and the card stays unnamed; its whole index corner still ranks it first, so
    that is what the question offers, rather than nothing."""
    frame, quad = _blurred(code, 5.0)
    read = identify(frame, quad, deck_templates("standard"))
    assert read.code is None
    assert read.candidates and read.candidates[0][0] == code
    assert all(0.0 < s <= 1.0 for _, s in read.candidates)


def test_a_blurred_drawn_card_is_named_by_its_whole_corner_when_its_face_agrees():
    """Blurred past reading its glyphs, a card of our own drawn deck whose whole corner is
    plainly first and whose face clearly beats the runner-up's (an ace's big pip, a jack's
    picture) is named; across the whole deck at that blur no card is named wrongly, and
    courts that differ from their runner-up only in the suit stay unnamed."""
    t = deck_templates("standard")
    named = {}
    for code in t.card_codes:
        frame, quad = _blurred(code, 6.0)
        named[code] = identify(frame, quad, t).code
    assert all(read in (None, code) for code, read in named.items())
    assert [named[c] for c in ("AH", "AC", "JS", "JH")] == ["AH", "AC", "JS", "JH"]
