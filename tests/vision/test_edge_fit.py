"""`vision.fit`: cards of a known size laid on a picture's edges."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.fit import edge_field, fit_rectangles, nudges, rectangle, shifted, sides_fitted


def _corner_error(a: np.ndarray, b: np.ndarray) -> float:
    """Largest corner distance between two quads, over the four ways round."""
    return min(float(np.abs(np.roll(a, k, axis=0) - b).max()) for k in range(4))


def test_a_rectangle_is_its_size_turned_and_clockwise():
    r = rectangle((100.0, 50.0), math.radians(30), (60.0, 84.0))
    assert np.allclose(r.mean(axis=0), (100.0, 50.0))
    assert math.isclose(float(np.linalg.norm(r[1] - r[0])), 60.0)
    assert math.isclose(float(np.linalg.norm(r[2] - r[1])), 84.0)
    assert math.isclose(math.degrees(math.atan2(*(r[1] - r[0])[::-1])), 30.0)
    area = sum(r[i][0] * r[(i + 1) % 4][1] - r[(i + 1) % 4][0] * r[i][1] for i in range(4)) / 2
    assert area > 0  # clockwise on a picture whose y runs down


def test_a_covered_card_is_found_on_its_edges_from_a_cut_that_missed_it():
    """A card 60 x 84 px, a third of it under another card: from a cut 14 px off and 3
    degrees askew, one of the three best rectangles of the card's size lies on it within
    2 px, and another on the card on top (whole, so the first: the pipeline leaves out
    the named cards). A card lying the other way round is found a quarter turned."""
    gray = np.full((240, 320), 70, np.uint8)
    under = rectangle((130.0, 120.0), math.radians(8), (60.0, 84.0))
    top = rectangle((180.0, 112.0), math.radians(8), (60.0, 84.0))
    cv2.fillConvexPoly(gray, np.round(under * 16).astype(np.int32), 210, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(gray, np.round(top * 16).astype(np.int32), 235, cv2.LINE_AA, 4)
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    gx, gy = edge_field(gray)
    found = fit_rectangles(gx, gy, (144.0, 114.0), math.radians(5), (60.0, 84.0), 42.0, 1.0)
    assert len(found) == 3 and found[0][0] >= found[1][0] >= found[2][0]
    assert _corner_error(found[0][1], top) < 2.0
    assert any(_corner_error(r, under) < 2.0 for _, r in found[1:])

    turned = np.full((240, 320), 70, np.uint8)
    landscape = rectangle((160.0, 120.0), math.radians(92), (60.0, 84.0))
    cv2.fillConvexPoly(turned, np.round(landscape * 16).astype(np.int32), 210, cv2.LINE_AA, 4)
    gx, gy = edge_field(turned)
    best = fit_rectangles(gx, gy, (150.0, 125.0), 0.0, (60.0, 84.0), 42.0, 1.0)[0][1]
    assert _corner_error(best, landscape) < 2.0


def test_a_card_shortened_by_the_camera_is_found_with_its_side_stretched_and_refined():
    """A card whose long side the camera's tilt shortened by 8 %: searched at the
    card's size, the best rectangle misses it by more than 3 px; with the long side
    also tried 0.92 as long, it lies on the card, and `refined` moves a rectangle found
    4 px off onto it."""
    from vision.fit import refined

    gray = np.full((240, 320), 70, np.uint8)
    card = rectangle((160.0, 120.0), math.radians(3), (60.0, 84.0 * 0.92))
    cv2.fillConvexPoly(gray, np.round(card * 16).astype(np.int32), 210, cv2.LINE_AA, 4)
    gx, gy = edge_field(gray)
    plain = fit_rectangles(gx, gy, (150.0, 125.0), 0.0, (60.0, 84.0), 40.0, 1.0, keep=1)[0][1]
    stretched = fit_rectangles(gx, gy, (150.0, 125.0), 0.0, (60.0, 84.0), 40.0, 1.0, keep=1,
                               stretches=((1.0, 1.0), (1.0, 0.92)))[0][1]
    assert _corner_error(plain, card) > 3.0
    assert _corner_error(stretched, card) < 2.0  # turned 2 degrees of its 3
    off = stretched + np.array([4.0, 0.0])
    assert _corner_error(refined(gx, gy, off, 2.0), card) < 2.0


def test_nudges_move_a_rectangle_a_little_every_way_and_keep_it_a_rectangle():
    """Four shifts of `step` px, two turns of a degree about the centre, and each pair
    of sides pushed apart and together by 3 %: ten rectangles, each one move away."""
    r = rectangle((100.0, 80.0), math.radians(20), (60.0, 84.0))
    moved = nudges(r, 1.5)
    assert len(moved) == 10
    shifts = [m.mean(axis=0) - r.mean(axis=0) for m in moved[:4]]
    assert sorted(tuple(np.round(s, 6)) for s in shifts) == [(-1.5, 0.0), (0.0, -1.5), (0.0, 1.5), (1.5, 0.0)]
    turns = [math.degrees(math.atan2(*(m[1] - m[0])[::-1])) - 20.0 for m in moved[4:6]]
    assert np.allclose(sorted(turns), [-1.0, 1.0])
    sides = [(float(np.linalg.norm(m[1] - m[0])), float(np.linalg.norm(m[2] - m[1]))) for m in moved[6:]]
    assert np.allclose(sides, [(61.8, 84.0), (58.2, 84.0), (60.0, 86.52), (60.0, 81.48)])
    for m in moved:
        assert np.allclose(np.linalg.norm(m[2] - m[0]), np.linalg.norm(m[3] - m[1]))  # still square-cornered


def test_a_card_plain_only_in_a_second_picture_is_found_on_the_two_together():
    """A cream card on light oak: in grey it differs from the table less than the wood's
    grain does, in the table-colour contrast plainly (the grain has no colour). On the
    grey gradients alone no likely rectangle lies on the card; on the two pictures'
    gradients together the best does."""
    gray = np.full((240, 320), 150, np.uint8)
    colour = np.full((240, 320), 10, np.uint8)
    gray[:, (np.arange(320) // 9) % 2 == 1] = 175  # the grain: 25 levels in grey, none in colour
    card = rectangle((160.0, 120.0), math.radians(4), (60.0, 84.0))
    cv2.fillConvexPoly(gray, np.round(card * 16).astype(np.int32), 165, cv2.LINE_AA, 4)
    cv2.fillConvexPoly(colour, np.round(card * 16).astype(np.int32), 120, cv2.LINE_AA, 4)
    alone = fit_rectangles(*edge_field(gray), (150.0, 125.0), 0.0, (60.0, 84.0), 40.0, 1.0)
    both = fit_rectangles(*edge_field(np.dstack([gray, colour])), (150.0, 125.0), 0.0, (60.0, 84.0),
                          40.0, 1.0)
    assert not any(_corner_error(r, card) < 2.0 for _, r in alone)
    assert _corner_error(both[0][1], card) < 2.0


def test_shifted_moves_a_rectangle_by_the_same_step_along_its_own_sides_eight_ways():
    """Along either side's direction and the diagonals between: a ring of eight
    rectangles around the one given, each its own shape and turn."""
    r = rectangle((100.0, 80.0), math.radians(30), (60.0, 84.0))
    moved = shifted(r, 2.0)
    assert len(moved) == 8
    u = (r[1] - r[0]) / 60.0
    v = (r[3] - r[0]) / 84.0
    steps = sorted((round(float((m - r)[0] @ u), 6), round(float((m - r)[0] @ v), 6)) for m in moved)
    assert steps == sorted((2.0 * a, 2.0 * b) for a in (-1, 0, 1) for b in (-1, 0, 1) if a or b)
    for m in moved:
        assert np.allclose(m - r, (m - r)[0])  # every corner moved alike: the same rectangle


def test_each_side_is_laid_on_its_own_edge_so_a_tilted_card_fits_as_a_trapezoid():
    """A card the camera sees tilted is a trapezoid: a rectangle 4 px off it has each side
    laid on the card's outermost edge, on its outer flank (a printed line inside the
    card, stronger than the card's own edge against the table, does not draw it in); a
    side against nothing (the card's edge under a hand, here the table's own colour)
    stays where it was."""
    gray = np.full((200, 240), 120, np.uint8)
    card = np.array([[80.0, 50.0], [150.0, 54.0], [156.0, 150.0], [74.0, 146.0]])
    cv2.fillConvexPoly(gray, np.round(card * 16).astype(np.int32), 170, cv2.LINE_AA, 4)
    cv2.line(gray, (86, 62), (148, 65), 20, 2)  # the print, just inside the top side
    gray = cv2.GaussianBlur(gray, (3, 3), 0)
    gx, gy = edge_field(gray)
    rect = rectangle((115.0, 100.0), math.radians(2), (72.0, 96.0))
    laid = sides_fitted(gx, gy, rect, 8.0)
    assert _corner_error(rect, card) > 4.0
    assert _corner_error(laid, card) < 3.0
    assert cv2.contourArea(laid) > cv2.contourArea(card.astype(np.float32))  # outside it, not in

    hidden = gray.copy()
    hidden[120:, :] = 120  # the card's lower part gone: its bottom side shows no edge
    gx, gy = edge_field(hidden)
    kept = sides_fitted(gx, gy, rect, 8.0)
    d = rect[3] - rect[2]
    for corner in kept[2:]:  # the bottom side's corners stay on its line
        off = corner - rect[2]
        assert abs(off[0] * d[1] - off[1] * d[0]) / np.hypot(*d) < 1e-3
    assert _corner_error(kept[:2], card[:2]) < 3.0  # the top side still on the card's
