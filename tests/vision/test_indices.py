"""Cards found by their corner index alone (vision.indices): a fanned hand, a card cut
by the picture's edge, and printed text that is not an index.

The deck here is drawn by the test itself, as a maker we never saw might print one: a
rank in a plain font over a suit mark in each index corner, pips in the middle. The
companion learns its layout and samples (vision.glyphs) from upright faces, as
`deck learn` does from photos, and then reads tilted, overlapping cards."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision import glyphs
from vision.indices import IndexParams, card_from, centres_mm, corner_edges, find_index_cards

PPM = 6.0
SIZE = (63.0, 88.0)
RANKS = ("9", "10", "J", "Q", "K", "A")
SUITS = {"S": ((0, 0, 0), "triangle"), "C": ((0, 0, 0), "circle"), "H": ((40, 30, 200), "heart"),
         "D": ((40, 30, 200), "diamond")}


def _suit(img: np.ndarray, suit: str, centre: tuple[float, float], size: float) -> None:
    colour, shape = SUITS[suit]
    x, y = centre
    r = size / 2
    if shape == "circle":
        cv2.circle(img, (round(x), round(y)), round(r), colour, -1, cv2.LINE_AA)
        return
    if shape == "triangle":  # a spade: a point, two lobes and a stem
        cv2.circle(img, (round(x - 0.45 * r), round(y + 0.2 * r)), round(0.5 * r), colour, -1, cv2.LINE_AA)
        cv2.circle(img, (round(x + 0.45 * r), round(y + 0.2 * r)), round(0.5 * r), colour, -1, cv2.LINE_AA)
        cv2.fillPoly(img, [np.round([(x, y + r), (x - 0.3 * r, y + 1.1 * r), (x + 0.3 * r, y + 1.1 * r)])
                           .astype(np.int32)], colour, cv2.LINE_AA)
    pts = {"triangle": [(x, y - r), (x + 0.95 * r, y + 0.2 * r), (x - 0.95 * r, y + 0.2 * r)],
           "diamond": [(x, y - r), (x + 0.7 * r, y), (x, y + r), (x - 0.7 * r, y)],
           "heart": [(x - r, y - 0.4 * r), (x - 0.5 * r, y - r), (x, y - 0.5 * r), (x + 0.5 * r, y - r),
                     (x + r, y - 0.4 * r), (x, y + r)]}[shape]
    cv2.fillPoly(img, [np.round(pts).astype(np.int32)], colour, cv2.LINE_AA)


def face(code: str) -> np.ndarray:
    """An upright face of the test deck at PPM px/mm."""
    rank, suit = code[:-1], code[-1]
    w, h = round(SIZE[0] * PPM), round(SIZE[1] * PPM)
    img = np.full((h, w, 3), 250, np.uint8)
    half = np.full((h, w, 3), 250, np.uint8)
    colour = SUITS[suit][0]
    scale = cv2.getTextSize(rank, cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)[0]
    fs = 7.0 * PPM / scale[1]
    tw = cv2.getTextSize(rank, cv2.FONT_HERSHEY_DUPLEX, fs, 3)[0][0]
    cv2.putText(half, rank, (round(5.5 * PPM - tw / 2), round(11.5 * PPM)), cv2.FONT_HERSHEY_DUPLEX, fs,
                colour, 3, cv2.LINE_AA)
    _suit(half, suit, (5.5 * PPM, 18.0 * PPM), 5.0 * PPM)
    img = np.minimum(img, half)
    img = np.minimum(img, cv2.rotate(half, cv2.ROTATE_180))
    for cx, cy in ((0.4, 0.3), (0.6, 0.5), (0.4, 0.7)):
        _suit(img, suit, (cx * w, cy * h), 12 * PPM)
    return img


CODES = [r + s for r in RANKS for s in SUITS]


@pytest.fixture(scope="module")
def deck() -> glyphs.Glyphs:
    faces = {c: face(c) for c in CODES}
    layout = glyphs.learn_layout(faces, SIZE)
    assert layout is not None
    cards = {c: (c[:-1], c[-1], c[-1] in "HD") for c in CODES}
    return glyphs.build_glyphs({c: [f] for c, f in faces.items()}, cards, SIZE, layout)


def table(h: int = 480, w: int = 640, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    base = np.full((h, w, 3), (70, 95, 120), np.float32) + rng.normal(0, 12, (h, w, 1))
    return np.clip(cv2.GaussianBlur(base, (3, 3), 0), 0, 255).astype(np.uint8)


def lay(img: np.ndarray, code: str, centre: tuple[float, float], width: float, angle: float,
        rim: bool = False) -> np.ndarray:
    """The card laid on img; rim: its edge shows, as a real card's edge and thin shadow do
    where it lies on a card as white as itself."""
    card = face(code)
    if rim:
        cv2.rectangle(card, (0, 0), (card.shape[1] - 1, card.shape[0] - 1), (185, 185, 185), 2)
    h, w = card.shape[:2]
    M = cv2.getRotationMatrix2D((w / 2, h / 2), angle, width / w)
    M[:, 2] += np.array(centre) - np.array([w / 2, h / 2])
    warped = cv2.warpAffine(card, M, img.shape[1::-1], flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), M, img.shape[1::-1]) > 128
    out = img.copy()
    out[mask] = warped[mask]
    return out


def test_the_centres_of_rank_and_suit_are_learned_from_the_samples(deck):
    rank, suit = centres_mm(deck)
    assert rank == pytest.approx((5.5, 8.0), abs=1.2)
    assert suit == pytest.approx((5.5, 18.0), abs=1.2)


@pytest.mark.parametrize("angle", [0.0, 35.0, 180.0, -100.0])
def test_a_card_is_placed_from_its_two_index_marks(deck, angle):
    rank, suit = centres_mm(deck)
    a = np.radians(angle)
    R = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    origin, scale = np.array([200.0, 150.0]), 2.5
    quad, found = card_from(origin + scale * R @ rank, origin + scale * R @ suit, deck)
    want = np.array([origin + scale * R @ np.array(c) for c in ((0, 0), (63, 0), (63, 88), (0, 88))])
    assert found == pytest.approx(scale, rel=1e-6)
    assert np.abs(quad - want).max() < 1e-3


def test_a_fanned_hand_is_read_by_its_corner_indices(deck):
    img = table()
    hand = ["QH", "9S", "KD", "10C"]
    for i, code in enumerate(hand):  # each card covers most of the one before it
        img = lay(img, code, (220 + 45 * i, 260), 170, 12 - 7 * i)
    found = {c.code: c for c in find_index_cards(img, deck)}
    assert set(found) == set(hand)
    # the last card lies whole: its index is read at its own top-left corner
    top = found["10C"]
    assert top.scale == pytest.approx(170 / 63, rel=0.12)


def test_a_card_cut_by_the_picture_edge_is_read_and_its_outline_runs_past_the_edge(deck):
    img = lay(table(seed=1), "AH", (600, 80), 180, -30)
    found = find_index_cards(img, deck)
    assert [c.code for c in found] == ["AH"]
    assert found[0].corners[:, 0].max() > img.shape[1]  # the whole card, not only what is in view


def test_an_index_inside_a_card_already_named_is_not_read_again(deck):
    img = lay(table(seed=2), "JS", (320, 240), 200, 10)
    outline = np.array([[200, 90], [450, 110], [430, 400], [180, 380]], np.float32)
    assert [c.code for c in find_index_cards(img, deck)] == ["JS"]
    assert find_index_cards(img, deck, skip=[outline]) == []


def test_printed_text_and_an_empty_table_are_not_cards(deck):
    assert find_index_cards(table(seed=3), deck) == []
    page = np.full((480, 640, 3), 245, np.uint8)  # lines of text, the first cut by the edge
    for row in range(14):
        cv2.putText(page, "K9 Q10 AJ 9K Q A 10", (20, 8 + 36 * row), cv2.FONT_HERSHEY_DUPLEX, 1.0,
                    (20, 20, 20), 2, cv2.LINE_AA)
    assert find_index_cards(page, deck) == []


def test_the_edges_of_a_card_are_plain_at_its_corner_and_absent_inside_it():
    """corner_edges: where a card really ends (its top-left corner on the table) both
    edges show a step; a quad placed 20 mm inside the card has paper on both sides."""
    img = table(seed=4)
    x0, y0 = 40, 40  # a blank card at 3 px/mm, upright
    img[y0:y0 + 264, x0:x0 + 189] = 235
    grey = cv2.GaussianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    quad = np.array([[x0, y0], [x0 + 189, y0], [x0 + 189, y0 + 264], [x0, y0 + 264]], np.float32)
    top, left = corner_edges(grey, quad, 3.0)
    assert min(top, left) > 60
    inside = corner_edges(grey, quad + 60, 3.0)
    assert max(inside) < 10
    assert corner_edges(grey, quad - 1000, 3.0) == (0.0, 0.0)  # off the picture


def test_an_index_printed_inside_a_picture_is_not_a_card_when_an_edge_is_required(deck):
    """A rank and suit printed in the middle of a page (as in a card's picture, or a 9's
    pips read as a 4) place a card whose edges would lie on plain paper: read without
    the edge test, not with it. A fanned hand (each card's edge showing) keeps every card."""
    page = np.full((480, 640, 3), 240, np.uint8)
    half = face("KD")[: round(30 * PPM), : round(12 * PPM)]  # the index corner only
    small = cv2.resize(half, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    h, w = small.shape[:2]
    page[200:200 + h, 300:300 + w] = np.minimum(page[200:200 + h, 300:300 + w], small)
    page[200:200 + h, 300:302] = 240  # no card edge beside it
    page[200:202, 300:300 + w] = 240
    assert [c.code for c in find_index_cards(page, deck)] == ["KD"]
    edged = IndexParams(min_edge=10.0, one_edge=40.0)
    assert find_index_cards(page, deck, edged) == []
    img = table()
    hand = ["QH", "9S", "KD", "10C"]
    for i, code in enumerate(hand):
        img = lay(img, code, (220 + 45 * i, 260), 170, 12 - 7 * i, rim=True)
    assert {c.code for c in find_index_cards(img, deck, edged)} == set(hand)
