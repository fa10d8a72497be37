"""Card detection on small drawn tables: uneven light, glare, touching and covered cards."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.art import render_card
from vision.detect import (
    _fit_line,
    _fit_lines,
    _sample,
    background,
    card_scale,
    find_cards,
    grow,
    masks,
    occluders,
    order_quad,
    signed_area,
    snap_quad,
)

PPM = 1.25  # px/mm of the drawn tables, as the top-down view the pipeline detects in
SIZE = (63.0, 88.0)
CARD_PX = (SIZE[0] * PPM, SIZE[1] * PPM)
ASPECT = SIZE[1] / SIZE[0]


def table(w: int = 420, h: int = 320, light: float = 0.0, seed: int = 0) -> np.ndarray:
    """A green felt with a weave, lit from one side when `light` > 0."""
    rng = np.random.default_rng(seed)
    img = np.empty((h, w, 3), np.float32)
    img[:] = (62, 96, 34)
    img += rng.normal(0, 4, (h, w, 1))
    if light:
        img *= (1 - light) + light * np.linspace(0.2, 1.3, w)[None, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def put(img: np.ndarray, code: str, centre: tuple[float, float], angle: float, deck: str = "standard",
        ppm: float = PPM) -> np.ndarray:
    """Lay a card on the image; return its true corners clockwise from its top-left."""
    card = render_card(deck, code, 6.0)
    ch, cw = card.shape[:2]
    s = ppm / 6.0
    M = cv2.getRotationMatrix2D((cw / 2, ch / 2), -angle, s)
    M[:, 2] += np.array(centre) - np.array([cw / 2, ch / 2])
    h, w = img.shape[:2]
    face = cv2.warpAffine(card, M, (w, h), flags=cv2.INTER_AREA)
    alpha = cv2.warpAffine(np.full((ch, cw), 255, np.uint8), M, (w, h), flags=cv2.INTER_AREA)
    a = alpha.astype(np.float32)[..., None] / 255
    img[:] = (face * a + img * (1 - a)).astype(np.uint8)
    edges = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], np.float64) - 0.5  # pixel centres are whole
    return edges @ M[:, :2].T + M[:, 2]


def grey(img: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)


def nearest(quads, corners) -> np.ndarray:
    """The detected quad whose centre is nearest the true card's, its corners matched up."""
    c = corners.mean(axis=0)
    q = min(quads, key=lambda x: np.linalg.norm(x.center - c))
    best = min((q.corners[[(i + k) % 4 for i in range(4)]] for k in range(4)),
               key=lambda r: np.abs(r - corners).max())
    return best


def test_a_lone_card_has_sub_pixel_corners_under_uneven_light():
    img = table(light=0.7)
    truth = put(img, "7H", (210, 160), 17)
    quads = find_cards(grey(img), ASPECT, CARD_PX)
    assert len(quads) == 1 and quads[0].complete
    assert np.abs(nearest(quads, truth) - truth).max() < 1.0


def test_corners_run_clockwise_from_a_short_side():
    img = table()
    put(img, "KS", (210, 160), 100)
    quad = find_cards(grey(img), ASPECT, CARD_PX)[0].corners
    assert signed_area(quad) > 0
    sides = np.linalg.norm(quad - quad[[1, 2, 3, 0]], axis=1)
    assert sides[0] < sides[1] and sides[2] < sides[3]


def test_glare_and_printed_lines_are_not_cards():
    img = table()
    cv2.circle(img, (90, 90), 38, (255, 255, 255), -1)  # a glare spot
    cv2.rectangle(img, (230, 60), (230 + int(CARD_PX[0]), 60 + int(CARD_PX[1])), (200, 220, 200), 1)
    img = cv2.GaussianBlur(img, (5, 5), 0)  # the spot's edge fades like glare does
    assert find_cards(grey(img), ASPECT, CARD_PX) == []


def test_touching_cards_are_two_cards():
    img = table()
    left = put(img, "AS", (170, 160), 0)
    right = put(img, "AD", (170 + CARD_PX[0], 160), 0)
    quads = find_cards(grey(img), ASPECT, CARD_PX)
    assert len(quads) == 2
    for truth in (left, right):
        assert np.abs(nearest(quads, truth) - truth).max() < 2.5


@pytest.mark.parametrize("middle_on_top", [True, False])
def test_the_middle_card_of_a_touching_row_is_found(middle_on_top):
    """None of its corners is a corner of the row's shape: it is what the row holds beyond
    the two cards found from their corners."""
    img = table(460)
    step = CARD_PX[0] - 4  # each card overlaps its neighbour by 4 px
    spots = [(230 - step, 160), (230 + step, 160), (230, 160)]
    if not middle_on_top:
        spots = spots[2:] + spots[:2]
    truths = {spot: put(img, code, spot, 0) for code, spot in zip(("4S", "9D", "KC"), spots, strict=True)}
    quads = find_cards(grey(img), ASPECT, CARD_PX)
    assert len(quads) == 3
    middle = truths[(230, 160)]
    # white on white shows no edge between the cards: across the row the middle one is
    # only placed within the 8 px hidden under or lying over its neighbours; along the
    # row (its ends, on the row's outline) to the pixel
    err = np.abs(nearest(quads, middle) - middle)
    assert err[:, 0].max() < 6.0 and err[:, 1].max() < 1.0
    # and a row of two is still two cards
    img = table(460)
    put(img, "4S", (230 - step / 2, 160), 0)
    put(img, "9D", (230 + step / 2, 160), 0)
    assert len(find_cards(grey(img), ASPECT, CARD_PX)) == 2


def test_a_card_partly_under_another_is_found_with_its_hidden_corners_inferred():
    img = table()
    under = put(img, "9C", (180, 150), 10)
    over = put(img, "QH", (235, 190), 55)
    quads = find_cards(grey(img), ASPECT, CARD_PX)
    assert len(quads) == 2
    lower = min(quads, key=lambda q: np.linalg.norm(q.center - under.mean(axis=0)))
    assert not lower.complete and any(lower.seen)
    assert np.abs(nearest(quads, under) - under).max() < 3.0
    assert np.abs(nearest(quads, over) - over).max() < 2.0


def test_without_a_known_size_whole_cards_give_the_scale():
    img = table(520, 380)
    put(img, "2S", (120, 130), 5)
    put(img, "8D", (300, 220), -30)
    quads = find_cards(grey(img), ASPECT)
    assert len(quads) == 2
    assert card_scale(quads, SIZE) == pytest.approx(PPM, rel=0.03)


def test_square_cards_are_found_too():
    img = table()
    truth = put(img, "raven", (210, 160), 30, deck="piktas")
    quads = find_cards(grey(img), 1.0, (76 * PPM, 76 * PPM))
    assert len(quads) == 1
    assert np.abs(nearest(quads, truth) - truth).max() < 1.0


def test_a_hand_is_an_occluder_and_a_card_is_not():
    img = table()
    put(img, "5S", (120, 160), 0)
    cv2.ellipse(img, (300, 170), (70, 45), 30, 0, 360, (128, 160, 206), -1)  # skin
    g = grey(img)
    found = masks(g, CARD_PX[0])
    quads = find_cards(g, ASPECT, CARD_PX, found=found)
    occ = occluders(found, quads, 0.15 * CARD_PX[0] * CARD_PX[1])
    assert len(quads) == 1
    assert occ[170, 300] == 255 and occ[160, 120] == 0


def test_the_background_follows_the_light_not_the_cards():
    img = table(light=0.8)
    put(img, "JH", (210, 160), 0)
    g = grey(img)
    bg = background(g, CARD_PX[0])
    felt_left, felt_right = float(np.median(g[:, :20])), float(np.median(g[:, -20:]))
    assert abs(bg[160, 10] - felt_left) < 8 and abs(bg[160, 410] - felt_right) < 12
    assert bg[160, 210] < 0.6 * g[160, 180]  # under the card: the felt, not the card


def test_order_quad_starts_top_left_on_a_short_side():
    q = np.array([[100, 10], [100, 98], [37, 98], [37, 10]], np.float32)  # counter-clockwise
    out = order_quad(q)
    assert out[0].tolist() == [37, 10] and signed_area(out) > 0
    assert order_quad(q, square=True)[0].tolist() == [37, 10]


def test_snap_moves_sides_onto_the_card_edges():
    img = table()
    truth = put(img, "4H", (210, 160), 12)
    g = grey(img)
    shifted = truth + np.array([2.5, -2.0])
    snapped = snap_quad(g, shifted.astype(np.float32), 5.0, polarity=1)
    assert np.abs(snapped - truth).max() < 1.0


def test_a_colour_image_is_refused_naming_its_shape():
    with pytest.raises(ValueError, match=r"uint8 grayscale.*\(10, 10, 3\)"):
        find_cards(np.zeros((10, 10, 3), np.uint8), ASPECT)


# --- dark cards (a Piktas void) under the hard preset's flaws ----------------------

PIKTAS_PX = (76 * PPM, 76 * PPM)


def hard(img: np.ndarray, seed: int = 0) -> np.ndarray:
    """The hard preset's camera flaws as the top-down view shows them: a blur of 2 px
    (sigma), light falling off by a third across the table, sensor noise (sigma 10) and
    JPEG at quality 30."""
    rng = np.random.default_rng(seed)
    out = cv2.GaussianBlur(img, (0, 0), 2.0).astype(np.float32)
    out *= np.linspace(1.0, 0.67, img.shape[1])[None, :, None]
    out += rng.normal(0, 10, out.shape[:2])[..., None]
    ok, jpeg = cv2.imencode(".jpg", np.clip(out, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 30])
    assert ok
    return cv2.imdecode(jpeg, cv2.IMREAD_COLOR)


@pytest.mark.parametrize(("code", "angle", "seed"), [("void2", 3, 0), ("void2", 183, 1), ("void1", -24, 2),
                                                     ("void1", 91, 3)])
def test_a_blurred_dark_card_on_the_dark_mat_is_found(code, angle, seed):
    """A void is darker than the mat; blurred, its light index stars near two corners bite
    into its dark pixels (the Piktas demo under the hard preset, seeds 2 and 4, lost it so):
    its outline is found where its blurred edge crosses halfway to the table, and a light
    card beside it does not disturb it."""
    img = table(seed=seed)
    truth = put(img, code, (150, 160), angle, deck="piktas")
    beside = put(img, "O4", (300, 160), -angle, deck="piktas")
    quads = find_cards(grey(hard(img, seed)), 1.0, PIKTAS_PX)
    assert len(quads) == 2
    assert np.abs(nearest(quads, truth) - truth).max() < 3.0
    assert np.abs(nearest(quads, beside) - beside).max() < 3.0


def test_a_blurred_dark_card_on_a_light_table_is_found():
    """Off the mat (a light oak table) a void is far darker than the table: the same pass."""
    rng = np.random.default_rng(6)
    img = np.clip(np.full((320, 420, 3), (128, 176, 214), np.float32) + rng.normal(0, 6, (320, 420, 1)),
                  0, 255).astype(np.uint8)
    truth = put(img, "void1", (210, 160), 33, deck="piktas")
    quads = find_cards(grey(hard(img, 6)), 1.0, PIKTAS_PX)
    assert len(quads) == 1
    assert np.abs(nearest(quads, truth) - truth).max() < 3.0


def dark_patch(img: np.ndarray, shape: str, centre: tuple[int, int], area: float) -> None:
    """A dark thing on the table as dark as a void, of a card's `area` in pixels."""
    colour = (28, 12, 12)
    x, y = centre
    if shape == "disc":
        cv2.circle(img, centre, round(math.sqrt(area / math.pi)), colour, -1)
    elif shape == "long":  # a sleeve's cuff: a card's area at twice its length
        w, h = math.sqrt(area / 2.0), math.sqrt(area * 2.0)
        top_left, bottom_right = (round(x - w / 2), round(y - h / 2)), (round(x + w / 2), round(y + h / 2))
        cv2.rectangle(img, top_left, bottom_right, colour, -1)
    elif shape == "notched":  # a square with a corner missing (an L)
        s = round(math.sqrt(area / 0.75))
        pts = np.array([[x - s // 2, y - s // 2], [x + s // 2, y - s // 2], [x + s // 2, y],
                        [x, y], [x, y + s // 2], [x - s // 2, y + s // 2]], np.int32)
        cv2.fillPoly(img, [pts], colour)
    elif shape == "small":  # a card's shape, four fifths of its size
        s = round(0.8 * math.sqrt(area))
        cv2.rectangle(img, (x - s // 2, y - s // 2), (x + s // 2, y + s // 2), colour, -1)
    else:
        raise AssertionError(shape)


@pytest.mark.parametrize("shape", ["disc", "long", "notched", "small"])
def test_a_dark_patch_of_a_card_area_but_not_its_shape_is_no_card(shape):
    img = table(seed=4)
    dark_patch(img, shape, (150, 160), PIKTAS_PX[0] * PIKTAS_PX[1])
    truth = put(img, "void2", (320, 160), 8, deck="piktas")  # the same image holds a real one
    quads = find_cards(grey(hard(img, 4)), 1.0, PIKTAS_PX)
    assert len(quads) == 1
    assert np.abs(nearest(quads, truth) - truth).max() < 3.0


def test_a_shadow_of_a_card_shape_is_no_card():
    """A shadow keeps over half the light: however card-like its shape, it is no dark card."""
    img = table(seed=5)
    s = round(PIKTAS_PX[0])
    patch = img[160 - s // 2:160 + s // 2, 150 - s // 2:150 + s // 2]
    patch[:] = patch * 0.55
    assert find_cards(grey(hard(img, 5)), 1.0, PIKTAS_PX) == []


# --- which corners are seen --------------------------------------------------------

@pytest.mark.parametrize(("angle", "seed"), [(0, 0), (4, 1), (-7, 2), (30, 5)])
def test_a_blurred_lone_card_on_a_printed_line_has_every_corner_seen(angle, seed):
    """A light printed line along one side (a zone's outline the card lies on) bends the
    blob, so the card is fitted from its other corners; the two inferred corners are
    still in plain view, the card's own edges running along both sides next to them. The
    hard demos lost such cards: read at the wrong corners, they were asked on screen."""
    img = table(seed=seed)
    truth = put(img, "AC", (200, 160), angle)
    a, b = sorted(truth[np.argsort(truth[:, 1])[:2]], key=lambda p: p[0])
    bar = np.array([a, b, b, a]) + np.array([(-6, 0), (6, 0), (6, -6), (-6, -6)])
    cv2.fillConvexPoly(img, np.rint(bar).astype(np.int32), (170, 175, 170))
    quads = find_cards(grey(hard(img, seed)), ASPECT, CARD_PX)
    assert len(quads) == 1
    assert quads[0].complete
    assert np.abs(nearest(quads, truth) - truth).max() < 3.0


def test_a_covered_corner_stays_unseen_and_the_others_are_seen():
    """Over 40 blurred and sharp tables, a card with one corner under another card: no
    corner under the other card is called seen, and nearly every corner in view is."""
    rng = np.random.default_rng(7)
    hidden_seen = shown_unseen = shown = 0
    for i in range(40):
        img = table(seed=i)
        under = put(img, "9C", (190, 150), float(rng.uniform(0, 360)))
        corner = under[int(rng.integers(4))]
        centre = corner + rng.uniform(-30, 30, 2) + (corner - under.mean(axis=0)) * rng.uniform(0.1, 0.6)
        over = put(img, "QH", tuple(centre), float(rng.uniform(0, 360)))
        quads = find_cards(grey(hard(img, i) if i % 2 else img), ASPECT, CARD_PX)
        lower = min(quads, key=lambda q: np.linalg.norm(q.center - under.mean(axis=0)))
        assert np.linalg.norm(lower.center - under.mean(axis=0)) < 10
        poly = over.reshape(-1, 1, 2).astype(np.float32)
        for p, seen in zip(lower.corners, lower.seen, strict=True):
            hidden = cv2.pointPolygonTest(poly, (float(p[0]), float(p[1])), True) > -2
            hidden_seen += hidden and seen
            shown += not hidden
            shown_unseen += not hidden and not seen
    assert hidden_seen == 0
    assert shown_unseen <= 0.05 * shown


# --- a lone card among other things in its blob ------------------------------------------

def test_a_card_lying_over_another_a_few_pixels_off_is_fitted_to_its_own_edges():
    """A card laid on a pile, the card under it showing a few pixels along two sides: the
    blob is barely more than a card, but the card on top is fitted to its own edges, not
    to the under card's where they show (in the hard Yonac demo, seed 1, an ace laid on the
    stash and fitted so came 5 px off and was asked on screen)."""
    img = table(seed=2)
    put(img, "AH", (205, 158), 32)
    top = put(img, "AC", (200, 160), 30)
    quads = find_cards(grey(hard(img, 2)), ASPECT, CARD_PX)
    assert np.abs(nearest(quads, top) - top).max() < 3.0


@pytest.mark.parametrize("label_side", [-1, 1])
def test_a_lone_card_touching_a_printed_label_is_whole(label_side):
    """A zone's printed label touching one end of a card bends its blob; the card is still
    one whole card with its four corners seen, fitted to its own edges."""
    img = table(seed=3)
    truth = put(img, "7S", (200, 160), 3)
    end = truth[[0, 1]] if label_side < 0 else truth[[3, 2]]
    mid = end.mean(axis=0)
    out, half = label_side * np.array([0.0, 9.0]), np.array([22.0, 0.0])
    label = np.array([mid - half, mid + half, mid + half + out, mid - half + out])
    cv2.fillConvexPoly(img, np.rint(label).astype(np.int32), (190, 200, 190))
    quads = find_cards(grey(hard(img, 3)), ASPECT, CARD_PX)
    assert len(quads) == 1 and quads[0].complete
    assert np.abs(nearest(quads, truth) - truth).max() < 2.5


def test_a_tilted_middle_card_under_a_straight_label_is_found():
    """A row of three touching cards whose middle card, on top and turned 3 degrees, has a
    printed label clinging to its top end. The label's straight edge runs with the mat,
    not with the card: framed by it, the card's ends were unbacked and it was lost (the
    room bench, IDEAL cards through the wide lens)."""
    img = table(460)
    step = CARD_PX[0] - 5
    put(img, "4S", (230 - step, 160), 0)
    put(img, "9D", (230 + step, 160), 0)
    middle = put(img, "KC", (230, 161), 3.0)
    x, y = (int(v) for v in middle[[0, 1]].mean(axis=0))
    cv2.rectangle(img, (x - 20, y - 12), (x + 20, y + 1), (205, 210, 205), -1)
    quads = find_cards(grey(hard(img, 0)), ASPECT, CARD_PX)
    assert len(quads) == 3
    err = np.abs(nearest(quads, middle) - middle)
    assert err[:, 0].max() < 6.0 and err[:, 1].max() < 3.0


# --- the small fits and samplers, against their plain forms -------------------------------

def test_lines_fitted_together_are_the_lines_fitted_one_by_one():
    """`_fit_lines` fits several point sets at once: each as `_fit_line` fits it alone,
    outliers dropped alike, and None for a set of fewer than 3 points."""
    rng = np.random.default_rng(4)
    for _ in range(30):
        k, m = 4, int(rng.integers(3, 40))
        start, step = rng.uniform(0, 200, (k, 1, 2)), rng.uniform(-2, 2, (k, 1, 2))
        pts = start + np.arange(m)[None, :, None] * step + rng.normal(0, 0.5, (k, m, 2))
        pts[:, : m // 6] += rng.normal(0, 6, (k, m // 6, 2))  # a few far off
        mask = rng.uniform(size=(k, m)) < 0.8
        mask[0, 2:] = False  # two points: too few
        for fit, p, w in zip(_fit_lines(pts, mask), pts, mask, strict=True):
            alone = _fit_line(p[w])
            if alone is None:
                assert fit is None
                continue
            (p0, d0), (p1, d1) = alone, fit
            assert abs(abs(float(d0 @ d1)) - 1.0) < 1e-9
            assert abs(float((p1 - p0) @ np.array([-d0[1], d0[0]]))) < 1e-6


def test_sampling_reads_the_nearest_pixel_and_zero_outside():
    img = np.arange(20 * 30, dtype=np.float32).reshape(20, 30)
    pts = np.array([[[10.5, 3.0], [11.5, 3.0], [-0.5, 2.0], [-0.6, 2.0], [29.4, 19.4], [29.6, 1.0]]])
    expected = [img[3, 10], img[3, 12], img[2, 0], 0.0, img[19, 29], 0.0]  # halves round to even
    assert _sample(img, pts).tolist() == [expected]
    assert _sample(img.astype(np.uint8), pts[0]).shape == (6,)


@pytest.mark.parametrize("angle", [0, 12, -35])
def test_without_a_known_size_a_card_with_a_corner_bitten_off_is_whole(angle):
    """`_whole_by_rect`: at an unknown scale a whole card whose paper mask has a corner
    cut away (a coloured index: five corners, no four-cornered outline) is still a card,
    fitted as the rectangle its hull fills; a blob of no card's shape is not."""
    img = table(420, 320)
    corners = put(img, "2S", (200, 160), angle)
    bite = corners[0] + 0.22 * (corners[1] - corners[0]) + 0.18 * (corners[3] - corners[0])
    cut = np.array([corners[0], corners[0] + 0.22 * (corners[1] - corners[0]), bite,
                    corners[0] + 0.18 * (corners[3] - corners[0])])
    cv2.fillConvexPoly(img, np.rint(grow(cut, 1.0)).astype(np.int32), (62, 96, 34))
    quads = find_cards(grey(img), ASPECT)
    assert len(quads) == 1
    # the bitten corner is where the card's sides meet, not where the bite left the paper
    # (within 3 % of the card's width: the cut at the known scale comes later)
    assert np.abs(nearest(quads, corners) - corners).max() < 0.03 * CARD_PX[0]
    assert card_scale(quads, SIZE) == pytest.approx(PPM, rel=0.03)
    # an L of paper (two cards' worth, a quarter missing) fills too little of its rectangle
    ell = table(420, 320)
    cv2.fillPoly(ell, [np.array([[100, 60], [260, 60], [260, 150], [180, 150], [180, 260], [100, 260]],
                                np.int32)], (235, 235, 235))
    assert find_cards(grey(ell), ASPECT) == []


def _random_quads(n: int, seed: int) -> list[np.ndarray]:
    """Card-like quads at any angle and size, some noisy, turned the other way round,
    degenerate (two corners at one point) or float32, as the detector meets them."""
    rng = np.random.default_rng(seed)
    quads = []
    for i in range(n):
        w, h, ang = rng.uniform(2, 140), rng.uniform(2, 180), rng.uniform(0, math.pi)
        turn = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        q = (np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2) @ turn.T + rng.uniform(-20, 520, 2)
        q = q + rng.normal(0, float(rng.choice([0.01, 1.0, 5.0])), (4, 2))
        q = q[::-1] if i % 3 == 0 else q
        if i % 11 == 0:
            q[2] = q[1]
        quads.append(q.astype(np.float32) if i % 2 else q)
    return quads


def test_the_geometry_helpers_give_their_numpy_formulas_values():
    """order_quad, short_long, grow, _solid and _rect_error work on plain floats or on
    fewer arrays (a cold frame calls them some 100 times): the same values as the numpy
    formulas they replace, but for _rect_error's fitted corners, whose products BLAS
    may fuse (a few units in the last place)."""
    from vision.detect import (
        _GRID_R,
        _GRID_S,
        _RING_T,
        ROLL,
        _rect_error,
        _similarity,
        _solid,
        grow,
        intersect,
        order_ideal,
        short_long,
    )

    mask = np.zeros((500, 500), np.uint8)
    rng = np.random.default_rng(3)
    for _ in range(30):
        x, y, w, h = (int(v) for v in rng.integers(0, 480, 2).tolist() + rng.integers(5, 160, 2).tolist())
        cv2.rectangle(mask, (x, y), (x + w, y + h), 255, -1)
    for q in _random_quads(3000, 7):
        f = np.asarray(q, np.float32)
        if signed_area(f) < 0:
            f = f[::-1]
        s01 = np.linalg.norm(f[1] - f[0]) + np.linalg.norm(f[3] - f[2])
        s12 = np.linalg.norm(f[2] - f[1]) + np.linalg.norm(f[0] - f[3])
        start = min((0, 2) if s01 <= s12 else (1, 3), key=lambda i: float(f[i, 0] + f[i, 1]))
        assert np.array_equal(order_quad(q), f[ROLL[start]])
        d = np.asarray(q, np.float64)
        sides = np.hypot(*(d - np.roll(d, -1, axis=0)).T)
        a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
        assert short_long(q) == (min(a, b), max(a, b))
        ccw = signed_area(d) < 0
        lines = []
        for i in range(4):
            u = d[(i + 1) % 4] - d[i]
            u = u / (np.linalg.norm(u) or 1.0)
            lines.append((d[i] + np.array([u[1], -u[0]]) * (-1 if ccw else 1) * 0.5, u))
        want = [intersect(*lines[i - 1], *lines[i]) for i in range(4)]
        assert np.array_equal(grow(q, 0.5), np.array([d[i] if p is None else p for i, p in enumerate(want)],
                                                       np.float32))
        p0, p1, _, p3 = d
        t = _RING_T[:, None]
        ring = np.concatenate([p0 + t * (p1 - p0) + 0.04 * (p3 - p0),
                               p0 + t * (p1 - p0) + (1 - 0.04) * (p3 - p0),
                               p0 + t * (p3 - p0) + 0.04 * (p1 - p0),
                               p0 + t * (p3 - p0) + (1 - 0.04) * (p1 - p0)])
        grid = p0 + _GRID_S * (p1 - p0) + _GRID_R * (p3 - p0)
        assert _solid(mask, q) == max(np.mean(_sample(mask, grid) > 0), np.mean(_sample(mask, ring) > 0))
        for size in ((63.0, 88.0), (70.0, 70.0)):
            ideal = order_ideal(d, size)
            t = _similarity(ideal, d)
            want = float(np.linalg.norm(ideal @ t[:, :2].T + t[:, 2] - d, axis=1).max())
            assert _rect_error(q, size) == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_masks_compare_the_pixels_as_a_float_copy_would():
    """`masks` compares the 8-bit pixels with the float thresholds directly (no float copy
    of the image, a 2.7 MB block a frame): the very masks cv2.compare of a float32 copy
    gives, 0/255 uint8."""
    from vision.detect import DetectParams, _background_small, _up

    rng = np.random.default_rng(5)
    params = DetectParams()
    for shape, card in (((300, 420), 70.0), ((123, 77), None)):
        gray = cv2.GaussianBlur(rng.integers(0, 256, shape).astype(np.uint8), (5, 5), 0)
        cv2.rectangle(gray, (20, 30), (90, 110), 250, -1)
        small = _background_small(gray, card, params)
        h, w = shape
        above = _up(np.maximum(small + params.min_contrast, (1.0 + params.rel_contrast) * small), w, h)
        below = _up(np.minimum(small - params.dark_contrast, (1.0 - params.rel_dark) * small), w, h)
        g, kernel = gray.astype(np.float32), np.ones((3, 3), np.uint8)
        found = masks(gray, card, params)
        wanted = (cv2.compare(g, above, cv2.CMP_GT), cv2.compare(g, below, cv2.CMP_LT))
        for got, want in zip((found.bright, found.dark), wanted, strict=True):
            assert got.dtype == np.uint8 and got.flags.c_contiguous
            assert np.array_equal(got, cv2.morphologyEx(want, cv2.MORPH_OPEN, kernel))
        assert found.bright.any() and set(np.unique(found.bright)) <= {0, 255}
