"""Cards on a checked tablecloth without a mat (vision.tables, issue 16)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.mats import get_mat
from vision.pipeline import PipelineParams, Recognizer
from vision.synthetic import Degradations, Placement, Scene, SyntheticCamera, _table
from vision.tables import _paper, cards_on_cloth, find_check, plain_table


def gingham(w: int = 640, h: int = 360) -> np.ndarray:
    """The synthetic room's red and white checked cloth (squares w // 48 px)."""
    return _table((w, h), np.random.default_rng(0), "cloth")


def card_mask(shape: tuple[int, int], centre: tuple[float, float], angle: float,
              size: tuple[float, float] = (42, 58)) -> np.ndarray:
    out = np.zeros(shape, np.uint8)
    box = cv2.boxPoints((centre, size, angle)).astype(np.int32)
    cv2.fillPoly(out, [box], 255)
    return out


def test_a_checked_cloth_is_found_and_other_tables_are_not():
    cloth = gingham()
    check = find_check(_paper(cv2.cvtColor(cloth, cv2.COLOR_BGR2HSV), 60.0))
    assert check is not None and check.side == pytest.approx(13, abs=1)
    # its white squares lie every other square along both axes
    steps = sorted(abs(float(v)) for v in (*check.a, *check.b))
    assert steps[:2] == pytest.approx([0, 0], abs=1) and steps[2:] == pytest.approx([26, 26], abs=1)
    grey = cv2.cvtColor(cloth, cv2.COLOR_BGR2GRAY)
    assert plain_table(cloth, grey, 60.0) is not None
    for kind in ("light-oak", "walnut", "white", "grey"):
        table = _table((640, 360), np.random.default_rng(0), kind)
        table[100:158, 200:242] = 245  # a card on it
        assert plain_table(table, cv2.cvtColor(table, cv2.COLOR_BGR2GRAY), 60.0) is None, kind


def test_the_cloths_squares_a_card_touches_are_no_part_of_it():
    """White cards (one square to the cloth, one turned 25 degrees), with coloured print,
    lying on the cloth's white squares: the cards alone are left, each whole."""
    cloth = gingham()
    square = card_mask(cloth.shape[:2], (216, 146), 0.0)  # whole squares along its top and left
    truth = cv2.bitwise_or(square, card_mask(cloth.shape[:2], (420, 200), 25.0))
    image = cloth.copy()
    image[truth > 0] = 250
    cv2.circle(image, (216, 146), 10, (40, 40, 200), -1)  # a red pip like the cloth's squares
    cv2.rectangle(image, (410, 185), (430, 215), (60, 60, 180), -1)
    paper = _paper(cv2.cvtColor(image, cv2.COLOR_BGR2HSV), 60.0)
    assert paper is not None
    # the paper mask joins the cards to the squares they touch
    _, labels = cv2.connectedComponents(paper, connectivity=4)
    assert np.count_nonzero(labels == labels[120, 200]) > np.count_nonzero(square & paper) + 150
    check = find_check(paper)
    assert check is not None
    cards = cards_on_cloth(paper, check)
    inter = np.count_nonzero(cards & truth)
    assert inter / np.count_nonzero(cards | truth) > 0.95  # the turned card loses its corners' tips
    # nothing of the cloth is left over 4 px from the cards (a sliver of a square stays
    # along the turned card's edge)
    near = cv2.dilate(truth, np.ones((9, 9), np.uint8))
    assert np.count_nonzero(cards & ~near) == 0


def cloth_camera(deck: str, game: str) -> SyntheticCamera:
    return SyntheticCamera(get_mat(game), deck, seed=2, size=(1280, 720),
                           degrade=Degradations(table="cloth"), bare=True)


@pytest.mark.parametrize("deck, game, placements", [
    ("standard", "yonac", (Placement("QC", (250.0, 300.0)), Placement("7D", (430.0, 120.0), 12.0),
                           Placement("9H", (600.0, 250.0), 90.0), Placement("3D", (600.0, 330.0), 90.0),
                           Placement("KS", (330.0, 120.0), face_up=False))),
    ("ideal", "medieval-mastery", (Placement("GC", (283.0, 433.0)), Placement("US", (350.0, 433.0)),
                                   Placement("TW", (239.0, 250.0), 180.0),
                                   Placement("KP", (633.0, 183.0), 270.0))),
])
def test_without_a_mat_cards_on_a_checked_cloth_are_found_and_named(deck, game, placements):
    """On the red and white gingham every face-up card is named, touching cards and
    a turned one too, the face-down card is not, and no square of the cloth is
    named (before: the standard deck's cards none, and a phantom JD)."""
    camera = cloth_camera(deck, game)
    image, truth = camera.render(Scene(get_mat(game), deck, placements), 0.0)
    result = Recognizer(deck, None).see(image)
    named = {c.code: c for c in result.cards if c.code}
    assert sorted(named) == sorted(p.code for p in placements if p.face_up)
    for t in truth.cards:
        if t.face_up:
            centre = np.asarray(t.corners_px).mean(axis=0)
            assert np.hypot(*(named[t.code].corners_px.mean(axis=0) - centre)) < 5.0


def test_the_cloth_is_painted_over_only_when_asked():
    """`table_pattern` off: the frame is searched as before (and the cards are lost in
    the cloth's squares)."""
    placements = (Placement("QC", (250.0, 300.0)), Placement("7D", (430.0, 120.0), 12.0))
    camera = cloth_camera("standard", "yonac")
    image, _ = camera.render(Scene(get_mat("yonac"), "standard", placements), 0.0)
    off = Recognizer("standard", None, params=PipelineParams(table_pattern=False)).see(image)
    on = Recognizer("standard", None).see(image)
    assert sorted(c.code for c in on.cards if c.code) == ["7D", "QC"]
    assert sorted(c.code for c in off.cards if c.code) != ["7D", "QC"]
