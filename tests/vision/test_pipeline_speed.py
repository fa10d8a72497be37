"""The shortcuts that make a frame cheap (issue 16, speed for the Pi) must not change what
a frame shows: the marker search skipped while only a small part of the mat changed, and
the snapping of a card's sides reading only the pixels it needs."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detect import snap_quad
from vision.mats import get_mat
from vision.pipeline import Recognizer, changed_cells
from vision.synthetic import Degradations, HandPass, Placement, Scene, SyntheticCamera

SIZE = (960, 540)
MAT = get_mat("yokir")


def place(code: str, zone: str, dx: float = 0.0, angle: float = 0.0) -> Placement:
    x, y = MAT.zone(zone).center_mm
    return Placement(code, (x + dx, y), angle)


def test_changed_cells_counts_a_local_change_and_gives_up_on_a_global_one():
    rng = np.random.default_rng(2)
    ref = rng.integers(60, 200, (60, 100, 3)).astype(np.uint8)
    noisy = np.clip(ref + rng.normal(0, 2.0, ref.shape), 0, 255).astype(np.uint8)
    assert changed_cells(noisy, ref, 8.0) == 0
    laid = noisy.copy()
    laid[20:30, 30:37] = 250  # a card at 1/8 scale
    assert changed_cells(laid, ref, 8.0) == 70
    assert changed_cells(np.zeros_like(ref), ref, 8.0) is None  # the camera covered


def _spy_markers(rec: Recognizer) -> list[int]:
    """The frames whose mat markers `rec` searched."""
    searched: list[int] = []
    find = rec._find_mat

    def spy(*args, **kwargs):
        searched.append(rec._frame)
        return find(*args, **kwargs)

    rec._find_mat = spy  # type: ignore[method-assign]
    return searched


def test_markers_are_searched_less_while_cards_come_and_go_and_at_once_when_the_mat_moves():
    camera = SyntheticCamera(MAT, "yokir", seed=4, size=SIZE, degrade=Degradations(noise=0.3))
    base = (place("MT", "play-0"),)
    more = (*base, place("IA", "trick"))
    rec = Recognizer("yokir", MAT)
    searched = _spy_markers(rec)
    frame = 0
    for scene in [Scene(MAT, "yokir", base)] * 6:
        rec.process(camera.render(scene, frame / 30)[0], frame / 30, frame)
        frame += 1
    # a card laid and taken away every other frame: each frame differs from the last only
    # where it lies
    start = frame
    codes = []
    for k in range(24):
        image = camera.render(Scene(MAT, "yokir", more if k % 2 else base), frame / 30)[0]
        codes.append(sorted(c.code or "?" for c in rec.process(image, frame / 30, frame).cards))
        frame += 1
    during = [f for f in searched if f >= start]
    p = rec.params
    assert len(during) <= 24 // p.marker_every_local + 1 < 24 // p.marker_every
    assert codes == [["IA", "MT"] if k % 2 else ["MT"] for k in range(24)]
    # the mat (or the camera) moved: nearly every cell changed, so the markers are searched
    # at once, and the cards are where the moved picture shows them
    image = camera.render(Scene(MAT, "yokir", more), frame / 30)[0]
    shifted = np.roll(image, (6, 9), axis=(0, 1))
    seen = rec.process(shifted, frame / 30, frame)
    assert searched[-1] == frame
    before = rec.see(image, (frame + 1) / 30, frame + 1)
    for code in ("IA", "MT"):
        a = next(c for c in seen.cards if c.code == code).corners_px.mean(axis=0)
        b = next(c for c in before.cards if c.code == code).corners_px.mean(axis=0)
        assert np.abs(a - b - (9, 6)).max() < 1.0


def test_snapping_reads_past_the_image_edge_as_the_edge_pixels():
    """snap_quad reads a crop around the sides only: where its samples leave the image it
    must see what the whole image, replicated past its edge, shows."""
    img = np.full((120, 160), 40, np.uint8)
    cv2.rectangle(img, (-30, 20), (60, 100), 220, thickness=-1)  # a card cut by the left edge
    img = cv2.GaussianBlur(img, (0, 0), 1.2)
    quad = np.array([[-28, 22], [58, 22], [58, 98], [-28, 98]], np.float32)
    pad = 40
    padded = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    here = snap_quad(img, quad, 5.0, polarity=1)
    there = snap_quad(padded, quad + pad, 5.0, polarity=1) - pad
    np.testing.assert_allclose(here, there, atol=1e-3)  # the fitted lines: float32 rounding
    assert abs(float(here[1, 0]) - 60.5) < 1.0  # the right side found on the card's edge


def test_a_part_of_the_view_is_what_the_whole_view_shows_there():
    """Where only a part of the mat changed, only that part of the top-down view is made
    (the mat's edge continued outward as for the whole view): pixel for pixel the same
    but for the warp's rounding (one grey level, rarely)."""
    from vision.homography import mat_only

    camera = SyntheticCamera(MAT, "yokir", seed=4, size=SIZE, degrade=Degradations(noise=0.3))
    image = camera.render(Scene(MAT, "yokir", (place("MT", "play-0"), place("IA", "trick"))), 0.0)[0]
    rec = Recognizer("yokir", MAT)
    rec.see(image)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    H, p = rec._mat_state.H, rec.params
    card_px = tuple(v * p.detect_ppm for v in rec.size_mm)
    whole = mat_only(rec._top_down(gray, H), MAT.size_mm, p.detect_ppm, p.view_margin_mm, p.mat_inset_mm,
                     1.3 * max(card_px))
    h, w = whole.shape
    assert rec._view_shape() == (h, w)
    # the corners and edges of the view (the mat's edge continued), and the middle
    boxes = [(0, 0, 120, 90), (w - 100, h - 130, w, h), (0, h // 2 - 40, 60, h // 2 + 40),
             (w // 2 - 50, 0, w // 2 + 50, 70), (w // 3, h // 3, w // 3 + 150, h // 3 + 110)]
    parts = rec._view_parts(gray, H, boxes, card_px)
    for part, (x0, y0, x1, y1) in zip(parts, boxes, strict=True):
        there = whole[y0:y1, x0:x1]
        assert part.shape == there.shape
        assert np.abs(part.astype(int) - there).max() <= 1
        assert np.mean(part == there) > 0.995


def test_where_little_changed_only_that_part_is_searched_and_each_frame_shows_what_a_whole_search_shows():
    """A card taken away and laid back again and again, another card laid elsewhere, one
    pushed 2 mm, a hand reaching in: the frames where only a small part changed search
    that part alone, and every frame shows the cards (codes and places) and the events
    a search of the whole mat shows; the whole mat is searched all the same now and then."""
    from vision.pipeline import PipelineParams

    flaws = Degradations(noise=0.8, jpeg=0.5, light=0.3)
    camera = SyntheticCamera(MAT, "yokir", seed=7, size=SIZE, degrade=flaws)
    fast = Recognizer("yokir", MAT, params=PipelineParams(whole_every=30))
    whole = Recognizer("yokir", MAT, params=PipelineParams(whole_every=0))
    base = (place("MT", "play-0", -30), place("IA", "trick"), place("SM", "play-1"))
    extra = place("RL", "play-0", 40, -6)
    searched: list[int] = []
    for i in range(56):
        cards = list(base)
        if (i // 4) % 2 and i < 32:
            cards.append(extra)  # taken away and laid back every four frames
        if i >= 20:
            cards.append(place("PL", "play-2"))  # laid while the other comes and goes
        if i >= 36:
            cards[0] = place("MT", "play-0", -28)  # pushed 2 mm
        reach = 42 <= i < 52
        hand = HandPass.from_seat(MAT, 1, MAT.zone("play-1").center_mm, 42 / 30, 0.5) if reach else None
        image = camera.render(Scene(MAT, "yokir", tuple(cards), hand), i / 30)[0]
        a, b = fast.process(image, i / 30, i), whole.process(image, i / 30, i)
        if fast._last_whole == i:
            searched.append(i)
        assert sorted(c.code or "?" for c in a.cards) == sorted(c.code or "?" for c in b.cards), i
        for card in a.cards:
            twin = min(b.cards, key=lambda c: float(np.abs(c.corners_px - card.corners_px).max()))
            assert twin.code == card.code and np.abs(twin.corners_px - card.corners_px).max() < 1.5, i
        assert [(o.kind, o.code, o.zone) for o in a.observations] == \
            [(o.kind, o.code, o.zone) for o in b.observations], i
    assert fast.local_frames >= 20 and whole.local_frames == 0
    assert max(np.diff(searched)) <= fast.params.whole_every
    held = {c.code for c in fast.tracker.cards}
    assert {"MT", "IA", "SM", "PL"} <= held == {c.code for c in whole.tracker.cards}


def test_a_card_refitted_in_a_part_of_the_view_lies_where_the_whole_view_puts_it():
    """A card at the mat's edge (the Yonac stash), with the hard demo's camera flaws: the
    light flickers in a few cells around it, so its part of the view is searched again on
    its own. Its masks there must be the whole view's (the table's estimate reaches
    several cards around a pixel: made on the part alone it moved this card 2 to 4 px, and
    in the hard demo a stash card read in the whole view went unread in its part)."""
    from vision.pipeline import PipelineParams

    mat = get_mat("yonac")
    camera = SyntheticCamera(mat, "yonac", seed=1, size=(1280, 720), degrade=Degradations.preset("hard"))
    fast = Recognizer("yonac", mat, params=PipelineParams(whole_every=30))
    whole = Recognizer("yonac", mat, params=PipelineParams(whole_every=0))
    x, y = mat.zone("stash-3").center_mm
    scene = Scene(mat, "yonac", (Placement("AH", (x, y - 120), 0.0),))
    for i in range(6):
        image = camera.render(scene, i / 30)[0]
        a, b = fast.process(image, i / 30, i), whole.process(image, i / 30, i)
        assert [c.code for c in a.cards] == [c.code for c in b.cards] == ["AH"], i
        assert np.abs(a.cards[0].corners_px - b.cards[0].corners_px).max() < 0.5, i
    assert fast.local_frames >= 3 and whole.local_frames == 0
