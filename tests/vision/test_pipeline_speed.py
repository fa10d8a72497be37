"""The shortcuts that make a frame cheap (issue 16, speed for the Pi) must not change what
a frame shows: the marker search skipped while only a small part of the mat changed, and
the snapping of a card's sides reading only the pixels it needs."""

from __future__ import annotations

import cv2
import numpy as np

from vision.detect import snap_quad
from vision.mats import get_mat
from vision.pipeline import Recognizer, changed_cells
from vision.synthetic import Degradations, Placement, Scene, SyntheticCamera

SIZE = (960, 540)
MAT = get_mat("yokir")


def place(code: str, zone: str) -> Placement:
    return Placement(code, MAT.zone(zone).center_mm, 0.0)


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
