"""A card too blurred to name is still offered to a person with the likeliest cards."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.art import render_card
from vision.identify import identify
from vision.templates import deck_templates


@pytest.mark.parametrize("code", ["QC", "QH"])
def test_an_unread_court_is_offered_with_its_whole_corner_ranking(code):
    """Blurred this much, the standard deck's rank and suit read as noise (a 4 or a 7 of
    spades) and the card stays unnamed; its whole index corner still ranks it first, so
    that is what the question offers, rather than nothing."""
    img = render_card("standard", code, 3.0)
    h, w = img.shape[:2]
    pad = 30
    frame = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(40, 90, 40))
    frame = cv2.GaussianBlur(frame, (0, 0), 5.0)
    quad = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    read = identify(frame, quad, deck_templates("standard"))
    assert read.code is None
    assert read.candidates and read.candidates[0][0] == code
    assert all(0.0 < s <= 1.0 for _, s in read.candidates)
