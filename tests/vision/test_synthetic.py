"""The synthetic table: reproducible from its seed, truthful about where the cards are,
and every degradation a knob that can be turned on its own."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.errors import BadOption, CompanionError
from vision.art import card_size_mm, index_box_mm, render_card
from vision.mats import get_mat
from vision.sources import open_source
from vision.synthetic import Degradations, HandPass, Placement, Scene, SyntheticCamera

SMALL = (320, 180)


def _frames(uri: str, **kw):
    with open_source(uri, **kw) as src:
        return list(src)


def test_the_synthetic_source_is_reproducible_from_its_seed():
    a = _frames("synthetic:yokir?seed=5&frames=40&width=320&height=180")
    b = _frames("synthetic:yokir", seed=5, frames=40, width=320, height=180)
    assert len(a) == len(b) == 40
    for fa, fb in zip(a, b, strict=True):
        assert fa.t == fb.t
        assert np.array_equal(fa.image, fb.image)
        assert fa.truth == fb.truth
    c = _frames("synthetic:yokir?seed=6&frames=40&width=320&height=180")
    assert any(not np.array_equal(fa.image, fc.image) for fa, fc in zip(a, c, strict=True))


def test_the_script_deals_moves_and_removes_cards_and_hands_pass():
    frames = _frames("synthetic:piktas?seed=2&frames=600&width=320&height=180&degrade=typical&hands=1")
    counts = [len(f.truth.cards) for f in frames]
    assert max(counts) >= 5
    assert any(b < a for a, b in itertools.pairwise(counts)), "some cards are taken away"
    assert any(f.truth.occluded for f in frames) and not all(f.truth.occluded for f in frames)
    deck = {"O", "W", "K", "U", "M"}
    codes = {c.code for f in frames for c in f.truth.cards}
    assert all(code[0] in deck or not code[-1].isdigit() or code.startswith("void") for code in codes)
    for frame in frames:
        on_table = [c.code for c in frame.truth.cards]
        assert len(on_table) == len(set(on_table)), "a card is never on the table twice"
        assert all(c.zone is not None for c in frame.truth.cards), "cards are dealt into zones"


def test_without_hands_no_frame_is_occluded():
    frames = _frames("synthetic:yonac?seed=1&frames=120&width=320&height=180&degrade=typical&hands=0")
    assert not any(f.truth.occluded for f in frames)
    assert max(len(f.truth.cards) for f in frames) >= 4


def test_truth_corners_are_where_the_card_is_drawn():
    mat = get_mat("yokir")
    camera = SyntheticCamera(mat, "yokir", seed=1, size=(640, 360), degrade="clean")
    trick = mat.zone("trick").center_mm
    scene = Scene(mat, "yokir", (Placement("MT", trick, 30.0),))
    image, truth = camera.render(scene)
    (card,) = truth.cards
    quad = np.array(card.corners_px, np.float32)
    # a top-down warp of the truth quad gives the card upright: its index is where the art has it
    w, h = card_size_mm("yokir")
    px = 4.0
    target = np.array([[0, 0], [w * px, 0], [w * px, h * px], [0, h * px]], np.float32) - 0.5
    to_card = cv2.getPerspectiveTransform(quad, target)
    upright = cv2.warpPerspective(image, to_card, (round(w * px), round(h * px)))
    x, y, bw, bh = index_box_mm("yokir")
    crop = (slice(round(y * px), round((y + bh) * px)), slice(round(x * px), round((x + bw) * px)))
    seen = cv2.cvtColor(upright[crop], cv2.COLOR_BGR2GRAY).astype(float)
    drawn = cv2.cvtColor(render_card("yokir", "MT", px)[crop], cv2.COLOR_BGR2GRAY).astype(float)
    assert np.corrcoef(seen.ravel(), drawn.ravel())[0, 1] > 0.8
    # the clockwise order starts at the card's own top-left, turned 30 degrees clockwise
    (x0, y0), (x1, y1) = card.corners_px[:2]
    assert np.degrees(np.arctan2(y1 - y0, x1 - x0)) == pytest.approx(30.0, abs=1.0)
    assert card.visible_fraction == 1.0
    assert card.zone == "trick"


def test_visible_fraction_counts_cards_on_top_hands_and_the_frame_edge():
    mat = get_mat("yokir")
    camera = SyntheticCamera(mat, "yokir", seed=1, size=SMALL, degrade="clean")
    cx, cy = mat.zone("trick").center_mm
    w, _ = card_size_mm("yokir")
    under, over = Placement("IA", (cx, cy)), Placement("SA", (cx + w / 2, cy))
    _, truth = camera.render(Scene(mat, "yokir", (under, over)))
    assert truth.cards[0].visible_fraction == pytest.approx(0.5, abs=0.03)
    assert truth.cards[1].visible_fraction == 1.0
    hand = HandPass.from_seat(mat, 0, (cx, cy), start_t=0.0, duration_s=1.0)
    _, truth = camera.render(Scene(mat, "yokir", (under,), hand), t=0.5)
    assert truth.occluded
    assert truth.cards[0].visible_fraction < 0.5
    _, truth = camera.render(Scene(mat, "yokir", (under,), hand), t=2.0)
    assert not truth.occluded and truth.cards[0].visible_fraction == 1.0
    # a card lying across the left edge of the picture is half in view
    edge = cv2.perspectiveTransform(np.array([[[-0.5, SMALL[1] / 2]]]), np.linalg.inv(camera.homography))
    off = Placement("PA", (float(edge[0, 0, 0]), cy))
    _, truth = camera.render(Scene(mat, "yokir", (off,)))
    assert truth.cards[0].visible_fraction == pytest.approx(0.5, abs=0.03)


def test_face_down_cards_show_the_back():
    mat = get_mat("yokir")
    camera = SyntheticCamera(mat, "yokir", seed=1, size=SMALL, degrade="clean")
    spot = mat.zone("trick").center_mm
    up, _ = camera.render(Scene(mat, "yokir", (Placement("MT", spot),)))
    down, truth = camera.render(Scene(mat, "yokir", (Placement("MT", spot, face_up=False),)))
    assert not np.array_equal(up, down)
    assert truth.cards[0].face_up is False and truth.cards[0].code == "MT"


def test_each_degradation_changes_the_picture_on_its_own():
    mat = get_mat("yokir")
    scene = Scene(mat, "yokir", (Placement("MT", mat.zone("trick").center_mm),))
    clean, _ = SyntheticCamera(mat, "yokir", seed=3, size=SMALL, degrade="clean").render(scene)
    hard = Degradations.preset("hard")
    for knob in Degradations.CAMERA_KNOBS:
        image, _ = SyntheticCamera(mat, "yokir", seed=3, size=SMALL, degrade=hard.only(knob)).render(scene)
        assert image.shape == clean.shape
        assert not np.array_equal(image, clean), knob


def test_degradations_parse_presets_and_knobs():
    assert Degradations.parse("clean") == Degradations()
    typical = Degradations.parse("typical")
    assert 0 < typical.blur < 1 and typical.enabled == Degradations.KNOBS
    assert Degradations.parse("clean,blur=0.5,hands=1").enabled == ("blur", "hands")
    assert Degradations.preset("hard").only("noise") == Degradations(noise=1.0)
    assert set(Degradations.CAMERA_KNOBS) | set(Degradations.SCENE_KNOBS) == set(Degradations.KNOBS)


@pytest.mark.parametrize(("make", "words"), [
    (lambda: Degradations(blur=1.5), "degradation blur must be 0 (off) to 1 (strongest), got 1.5"),
    (lambda: Degradations.parse("typical,fog=0.2"), "unknown degradation 'fog'"),
    (lambda: Degradations.parse("noise=lots"), "degradation noise must be a number from 0 to 1, got 'lots'"),
    (lambda: Degradations.preset("awful"), "unknown degradation preset 'awful'"),
    (lambda: Degradations().only("fog"), "unknown degradation 'fog'"),
    (lambda: SyntheticCamera(get_mat("yokir"), "yokir", size=(0, 10)), "16 to 8192 pixels a side, got 0x10"),
    (lambda: SyntheticCamera(get_mat("yokir"), "ahyoheek"), "has no card art"),
])
def test_bad_settings_are_one_line_errors(make, words):
    with pytest.raises(CompanionError) as err:
        make()
    assert words in str(err.value)


def test_a_scene_must_be_on_the_cameras_mat_and_name_cards_by_code():
    yokir = get_mat("yokir")
    camera = SyntheticCamera(yokir, "yokir", size=SMALL, degrade="clean")
    with pytest.raises(BadOption, match="looks at the Yokir mat"):
        camera.render(Scene(get_mat("piktas"), "piktas"))
    with pytest.raises(CompanionError, match="unknown card 'MX' in the Yokir deck; closest: "):
        camera.render(Scene(yokir, "yokir", (Placement("MX", (100.0, 100.0)),)))
    with pytest.raises(CompanionError, match="is a card name, not a code"):
        camera.render(Scene(yokir, "yokir", (Placement("Master of Thought", (100.0, 100.0)),)))


def test_hands_come_from_their_seat():
    mat = get_mat("yokir")
    target = mat.zone("trick").center_mm
    w, h = mat.size_mm
    assert HandPass.from_seat(mat, 0, target, 0.0).entry_mm[1] > h  # bottom seat: from below
    assert HandPass.from_seat(mat, 1, target, 0.0).entry_mm[0] < 0  # left seat: from the left
    assert HandPass.from_seat(mat, 2, target, 0.0).entry_mm[0] > w  # right seat: from the right
    hand = HandPass.from_seat(mat, None, (w / 2, 30.0), 1.0, 2.0)
    assert hand.entry_mm[1] < 0  # nearest edge: the top
    assert hand.position(0.5) is None and hand.position(2.0) == pytest.approx((w / 2, 30.0))
    with pytest.raises(BadOption, match="no seat 5"):
        HandPass.from_seat(mat, 5, target, 0.0)


def test_set_up_by_bands_draws_the_same_camera_as_whole_frames(monkeypatch):
    """The camera's set-up works a band of rows at a time to stay small in memory; the
    pictures must be the ones the whole-frame formulas give (and so the same as before)."""
    from vision import synthetic

    monkeypatch.setattr(synthetic, "BAND_ROWS", 7)  # several bands and a short last one
    size = (61, 45)
    w, h = size
    inv = np.linalg.inv(np.array([[1.1, 0.05, 3.0], [-0.02, 0.95, 2.0], [1e-4, 2e-4, 1.0]]))
    grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)), -1)
    source = cv2.perspectiveTransform(grid.reshape(-1, 1, 2), inv).reshape(h, w, 2)
    whole = cv2.convertMaps(source[..., 0], source[..., 1], cv2.CV_16SC2)
    banded = synthetic._remap_maps(inv, size)
    assert all(np.array_equal(a, b) for a, b in zip(whole, banded, strict=True))

    noise = synthetic._noise_fields(size, 0.8, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    for field in noise:
        expected = np.clip(rng.normal(0, 8.0, (h + 32, w + 32, 3)), -127, 127).astype(np.int16)
        assert field.shape == expected.shape and np.array_equal(field.astype(np.int16), expected)

    table = synthetic._table(size, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    grain = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 4))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_CUBIC)
    base = np.array(synthetic.TABLE_BGR, np.float32)
    assert np.array_equal(table, np.clip(base * (1 + 0.08 * grain[:, :, None]), 0, 255).astype(np.uint8))

    d = Degradations(light=0.7, shadow=0.6)
    gain = synthetic._lighting(size, d, np.random.default_rng(6))
    rng = np.random.default_rng(6)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    xs, ys = xs / w - 0.5, ys / h - 0.5
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (xs * np.cos(angle) + ys * np.sin(angle)) + 0.5
    g = 1.0 + d.light * (0.2 - 0.5 * np.clip(ramp, 0, 1) - 0.25 * (xs ** 2 + ys ** 2))
    cx, cy = rng.uniform(-0.3, 0.3, 2)
    rx, ry = rng.uniform(0.15, 0.3, 2)
    g *= 1.0 - 0.45 * d.shadow * np.exp(-(((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2))
    expected = np.clip(g * 200, 0, 255).astype(np.uint8)
    assert gain is not None and np.array_equal(gain, cv2.merge([expected] * 3))


def test_card_drawings_are_kept_up_to_a_size_in_bytes():
    """The card cache the synthetic table draws from keeps recent drawings, within its
    byte budget: a deck drawn large for templates or print is not kept for ever."""
    from vision.kept import KeptCache

    cache = KeptCache(max_bytes=3000)
    made: list[str] = []

    def make(key: str) -> np.ndarray:
        made.append(key)
        return np.full((10, 100), len(made), np.uint8)  # 1000 bytes

    a = cache.made("a", lambda: make("a"))
    assert cache.made("a", lambda: make("a")) is a and made == ["a"]
    for key in "bcd":
        cache.made(key, lambda key=key: make(key))
    assert len(cache) == 3 and cache.nbytes == 3000
    cache.made("b", lambda: make("b"))  # still kept: "a", the least recent, went first
    assert made == ["a", "b", "c", "d"]
    cache.made("a", lambda: make("a"))
    assert made[-1] == "a"
    big = cache.made("big", lambda: np.zeros(5000, np.uint8))  # larger than the budget: kept alone
    assert len(cache) == 1 and cache.made("big", lambda: make("big")) is big


# --- the room (issue 16) ------------------------------------------------------------------

ROOM_SMALL = (320, 180)


def _room_render(degrade, seed: int = 3, code: str = "MT"):
    mat = get_mat("yokir")
    scene = Scene(mat, "yokir", (Placement(code, mat.zone("trick").center_mm),))
    camera = SyntheticCamera(mat, "yokir", seed=seed, size=ROOM_SMALL, degrade=degrade)
    image, truth = camera.render(scene)
    return camera, image, truth


def test_every_room_condition_is_named_and_changes_the_picture():
    from vision.synthetic import ROOM_CONDITIONS

    _, clean, _ = _room_render("clean")
    assert {"lens-standard", "lens-wide", "table-light-oak", "table-white", "table-grey", "table-walnut",
            "table-cloth", "warm", "cool", "printer-cream", "printer-grey", "glare", "shade",
            "defocus"} <= set(ROOM_CONDITIONS)
    for name in ROOM_CONDITIONS:
        assert Degradations.parse(name) == ROOM_CONDITIONS[name]
        _, image, _ = _room_render(name)
        assert not np.array_equal(image, clean), name
    assert Degradations.parse("room,lens=wide,table=grey").enabled[-2:] == ("lens", "table")


def test_the_room_choices_are_checked():
    with pytest.raises(BadOption, match="lens must be one of pinhole, standard, wide, got 'fisheye'"):
        Degradations.parse("lens=fisheye")
    with pytest.raises(BadOption, match="unknown degradation preset 'kitchen'"):
        Degradations.parse("kitchen")


def test_a_wide_lens_bends_straight_lines_and_the_truth_follows_it():
    from vision.synthetic import LENSES

    wide = LENSES["wide"]
    camera, image, truth = _room_render("lens-wide")
    # the focal length puts the picture's edge at half the field of view once undistorted
    edge = camera._undistort(np.array([[ROOM_SMALL[0] - 0.5, camera.camera_matrix[1, 2]]]))[0, 0]
    f, cx = camera.camera_matrix[0, 0], camera.camera_matrix[0, 2]
    assert np.degrees(np.arctan((edge - cx) / f)) == pytest.approx(wide.hfov_deg / 2, abs=0.5)
    # the mat's straight top edge is bowed: its middle is off the line through its corners
    w, _ = camera.mat.size_mm
    a, m, b = np.array(camera.mat_to_frame([(0.0, 0.0), (w / 2, 0.0), (w, 0.0)]))
    d, e = b - a, m - a
    off = (d[0] * e[1] - d[1] * e[0]) / np.linalg.norm(d)
    assert abs(off) > 1.0
    # and the card's truth corners are where its bright paper is
    quad = np.array(truth.cards[0].corners_px)
    inside = quad.mean(axis=0) * 0.6 + quad * 0.4
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert min(int(grey[round(y), round(x)]) for x, y in inside) > 150
    # undistorting the corners gives back the ideal (pinhole) picture of the card
    back = camera._undistort(quad)
    w_card, h_card = card_size_mm("yokir")
    cx_mm, cy_mm = truth.cards[0].center_mm
    card_mm = [(cx_mm - w_card / 2, cy_mm - h_card / 2), (cx_mm + w_card / 2, cy_mm - h_card / 2),
               (cx_mm + w_card / 2, cy_mm + h_card / 2), (cx_mm - w_card / 2, cy_mm + h_card / 2)]
    pinhole = cv2.perspectiveTransform(np.array(card_mm).reshape(-1, 1, 2), camera.homography).reshape(-1, 2)
    assert np.abs(back - pinhole).max() < 0.05


@pytest.mark.parametrize(("table", "brighter"), [("light-oak", True), ("white", True), ("walnut", False)])
def test_tables_of_every_colour_surround_the_mat(table, brighter):
    _, image, _ = _room_render(f"table={table}")
    _, wood, _ = _room_render("clean")
    corner = (slice(0, 6), slice(0, 6))  # off the mat
    assert (image[corner].mean() > wood[corner].mean()) == brighter


def test_white_balance_tints_the_white_of_a_card():
    def card_white(degrade):
        _, image, truth = _room_render(degrade)
        quad = np.array(truth.cards[0].corners_px)
        x, y = quad.mean(axis=0) * 0.2 + quad[1] * 0.8  # near a corner: paper
        return image[round(y) + 1, round(x) - 1].astype(int)

    b, g, r = card_white("warm=1")
    assert r > g > b and r - b > 60  # orange
    b, g, r = card_white("cool=1")
    assert b > r + 30  # blue
    b, g, r = card_white("printer=1,paper=cream")
    assert r > b + 10 and r < 250  # cream paper, not white
    b, g, r = card_white("printer=1,paper=grey")
    assert abs(r - b) < 8 and r < 235


def test_glare_brightens_only_cards_and_shade_only_darkens():
    _, clean, truth = _room_render("clean")
    _, glare, _ = _room_render("glare=1")
    diff = glare.astype(int) - clean.astype(int)
    assert diff.min() >= 0
    card = np.zeros(clean.shape[:2], np.uint8)
    cv2.fillConvexPoly(card, np.round(np.array(truth.cards[0].corners_px)).astype(np.int32), 1)
    off_card = cv2.erode(1 - card, np.ones((5, 5), np.uint8)) > 0
    assert np.abs(diff[off_card]).max() == 0
    _, shade, _ = _room_render("shade=1")
    d = shade.astype(int) - clean.astype(int)
    assert d.max() <= 0 and d.min() < -20


def test_defocus_softens_edges():
    def sharpness(img):
        return float(cv2.Laplacian(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())

    _, clean, _ = _room_render("clean")
    _, soft, _ = _room_render("defocus=1")
    assert sharpness(soft) < 0.5 * sharpness(clean)


def test_defocus_does_not_move_the_picture():
    _, clean, _ = _room_render("clean")
    _, soft, _ = _room_render("defocus=1")
    grey = [cv2.cvtColor(i, cv2.COLOR_BGR2GRAY).astype(np.float32) for i in (clean, soft)]
    (dx, dy), _ = cv2.phaseCorrelate(grey[0], grey[1])
    assert abs(dx) < 0.35 and abs(dy) < 0.35  # the disc once sat off-centre: 3 px
