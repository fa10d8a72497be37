"""Card art: every card of the four drawn decks, at the size asked, with two corner
indices that a camera at 3 px/mm tells apart."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.cards import get_deck
from companion.errors import CompanionError, UnknownCard, UnknownDeck
from vision.art import (
    BadResolution,
    NoArt,
    art_decks,
    card_mask,
    card_size_mm,
    index_box_mm,
    index_correlation,
    index_image,
    render_back,
    render_card,
)

DECKS = ("yokir", "piktas", "standard", "ideal")
# The most two different cards' corner indices of one deck may correlate (zero-mean
# normalised correlation, in grey, at 3 px/mm); docs/cards-art.md gives the measured values.
INDEX_CORRELATION_LIMIT = 0.80


def test_the_four_decks_have_art():
    assert art_decks() == DECKS


@pytest.mark.parametrize("deck", DECKS)
def test_every_card_renders_at_its_true_proportions(deck):
    w, h = card_size_mm(deck)
    for card in get_deck(deck):
        image = render_card(deck, card.code, 3.0)  # the size the index test reuses from the cache
        assert image.shape == (round(h * 3.0), round(w * 3.0), 3)
        assert image.dtype == np.uint8
    assert render_back(deck, 3.0).shape == image.shape
    assert card_mask(deck, 3.0).shape == image.shape[:2]


def test_sizes_follow_the_decks():
    assert card_size_mm("yokir") == card_size_mm("standard") == card_size_mm("ideal") == (63.0, 88.0)
    assert card_size_mm("piktas") == (76.0, 76.0)
    assert card_size_mm("yonac") == card_size_mm("standard")
    assert render_card("piktas", "O1", 3.0).shape == (228, 228, 3)
    assert render_card("medieval-mastery", "KS", 3.0).shape == (264, 189, 3)


def test_renders_are_cached_and_read_only():
    a = render_card("yokir", "MT", 3.0)
    assert render_card("yokir", "Master of Thought", 3.0) is a
    with pytest.raises(ValueError):
        a[0, 0] = 0


def test_corners_outside_the_rounded_outline_are_white():
    for deck in DECKS:
        image = render_card(deck, get_deck(deck).codes[-1], 4.0)
        assert (image[0, 0] == 255).all() and (image[-1, -1] == 255).all()
        mask = card_mask(deck, 4.0)
        assert mask[0, 0] == 0 and mask[mask.shape[0] // 2, mask.shape[1] // 2] == 255


@pytest.mark.parametrize("deck", DECKS)
def test_the_index_is_in_two_opposite_corners(deck):
    px = 4.0
    x, y, w, h = index_box_mm(deck)
    cw, ch = card_size_mm(deck)
    assert x > 0 and y > 0 and x + w < cw / 2 and y + h < ch / 2
    for code in get_deck(deck).codes[::7]:
        image = render_card(deck, code, px).astype(int)
        upside_down = image[::-1, ::-1]
        top_left = image[round(y * px):round((y + h) * px), round(x * px):round((x + w) * px)]
        again = upside_down[round(y * px):round((y + h) * px), round(x * px):round((x + w) * px)]
        assert np.abs(top_left - again).mean() < 2.0, code
        assert top_left.std() > 20, "the index is high-contrast"


@pytest.mark.parametrize("deck", DECKS)
def test_corner_indices_of_one_deck_are_clearly_different_at_3_px_per_mm(deck):
    codes = get_deck(deck).codes
    grey = [cv2.cvtColor(index_image(deck, c, 3.0), cv2.COLOR_BGR2GRAY).astype(np.float64).ravel()
            for c in codes]
    vectors = np.array([(g - g.mean()) / np.linalg.norm(g - g.mean()) for g in grey])
    corr = vectors @ vectors.T
    np.fill_diagonal(corr, -1.0)
    i, j = np.unravel_index(np.argmax(corr), corr.shape)
    assert corr[i, j] < INDEX_CORRELATION_LIMIT, f"{codes[i]} and {codes[j]}: {corr[i, j]:.3f}"
    # the same measure as index_correlation, which matches with OpenCV
    assert index_correlation(index_image(deck, codes[i], 3.0), index_image(deck, codes[j], 3.0)) == \
        pytest.approx(corr[i, j], abs=1e-6)


def test_cards_of_a_deck_differ_from_each_other_and_from_the_back():
    for deck in DECKS:
        images = [render_card(deck, c, 2.0) for c in get_deck(deck).codes]
        back = render_back(deck, 2.0)
        for a, b in itertools.combinations(images[:12], 2):
            assert not np.array_equal(a, b)
        assert all(not np.array_equal(a, back) for a in images)
        assert np.abs(back.astype(int) - back[::-1, ::-1]).mean() < 3, "the back looks the same either way up"


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda: render_card("tarot", "XX"), UnknownDeck, "unknown deck 'tarot'"),
    (lambda: render_card("ahyoheek", "pen"), NoArt, "the Ahyoheek picks deck has no card art"),
    (lambda: render_card("yokir", "Mastr of Thought"), UnknownCard, "closest: Master of Thought (MT)"),
    (lambda: render_card("yokir", "MT", 0.1), BadResolution, "0.5 to 40 pixels per mm, got 0.1"),
    (lambda: render_back("piktas", "big"), BadResolution, "must be a number of pixels per mm, got 'big'"),
    (lambda: index_box_mm("uno"), UnknownDeck, "unknown deck 'uno'"),
])
def test_bad_arguments_are_one_line_errors(call, error, words):
    with pytest.raises(error) as err:
        call()
    assert isinstance(err.value, CompanionError)
    assert words in str(err.value) and "\n" not in str(err.value)
