"""A card too blurred to name is still offered to a person with the likeliest cards."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.art import render_card
from vision.identify import IdentifyParams, Prior, by_face, identify
from vision.templates import deck_templates


def _blurred(code: str, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """A card of our drawn standard deck on felt, blurred (Gaussian sigma, px), and its quad."""
    img = render_card("standard", code, 3.0)
    h, w = img.shape[:2]
    pad = 30
    frame = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(40, 90, 40))
    quad = np.array([[pad, pad], [pad + w, pad], [pad + w, pad + h], [pad, pad + h]], np.float32)
    return cv2.GaussianBlur(frame, (0, 0), sigma), quad


@pytest.mark.parametrize("code", ["JC", "7S"])
def test_an_unread_card_is_offered_with_its_whole_corner_ranking(code):
    """Blurred this much (2.3 mm), the standard deck's rank and suit read as noise and
    the faces of the likeliest cards are too close to settle it, so the card stays
    unnamed; its whole index corner still ranks it first, so that is what the question
    offers, rather than nothing."""
    frame, quad = _blurred(code, 7.0)
    read = identify(frame, quad, deck_templates("standard"))
    assert read.code is None
    assert read.candidates and read.candidates[0][0] == code
    assert all(0.0 < s <= 1.0 for _, s in read.candidates)


@pytest.mark.parametrize("code", ["QC", "QS", "KH", "QH", "8S", "3H"])
def test_cards_whose_blurred_corners_read_alike_are_told_apart_by_their_faces(code):
    """At 1.8 mm of blur the corners of QC and QS (or 8S and 6H) barely differ and the
    glyphs read nothing, but the whole faces, blurred as much, differ in every pip: the
    card is named, with its face's margin."""
    frame, quad = _blurred(code, 5.5)
    t = deck_templates("standard")
    no_faces = IdentifyParams(face_pair_margin=9.0, face_agree_margin=9.0)
    assert identify(frame, quad, t, params=no_faces).code is None
    read = identify(frame, quad, t)
    assert read.code == code
    assert read.margin >= IdentifyParams().face_agree_margin


def test_a_card_already_in_play_needs_twice_the_face_margin():
    """The faces name a card; when the rules say it is already in play, the same reading
    needs twice the margin, so a margin between the two leaves it unnamed."""
    frame, quad = _blurred("KH", 5.5)
    t = deck_templates("standard")
    seen = (True, True, True, True)
    picked = by_face(frame, quad, t, identify(frame, quad, t).candidates, seen, IdentifyParams())
    assert picked is not None and picked[0] == "KH"
    between = IdentifyParams(face_agree_margin=picked[1] * 0.75, face_pair_margin=picked[1] * 0.75)
    likely = Prior(frozenset(t.card_codes) - {"KH"}, {"KH": "in trick 2"})
    assert by_face(frame, quad, t, identify(frame, quad, t).candidates, seen, between)[0] == "KH"
    assert by_face(frame, quad, t, identify(frame, quad, t).candidates, seen, between, likely) is None


def test_no_card_of_the_drawn_deck_is_named_wrongly_up_to_2_3_mm_of_blur():
    """The faces settle many blurred cards; none of the whole deck is named wrongly
    from 1.3 to 2.3 mm of blur (4 to 7 px at 3 px/mm)."""
    t = deck_templates("standard")
    for sigma in (4.0, 5.5, 7.0):
        for code in t.card_codes:
            read = identify(*_blurred(code, sigma), t).code
            assert read in (None, code), (sigma, code, read)


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
