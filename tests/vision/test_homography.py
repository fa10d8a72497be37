"""The mat stage: markers found, pixels mapped to millimetres, covered markers held."""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import pytest

from vision import homography
from vision.homography import FOUND, HELD, LOST, MatLock, find_markers, fit_mat, to_plane, top_down

DICT = cv2.aruco.DICT_4X4_50
PPM = 2.0  # drawing resolution of the test mat


@dataclass(frozen=True)
class Marker:
    id: int
    corners_mm: np.ndarray


@dataclass(frozen=True)
class Mat:
    size_mm: tuple[float, float]
    dictionary: int
    markers: tuple[Marker, ...]


def square(x: float, y: float, s: float) -> np.ndarray:
    return np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float32)


MAT = Mat((500.0, 350.0), DICT, tuple(Marker(i, square(x, y, 40.0)) for i, (x, y) in
                                     enumerate([(10, 10), (450, 10), (450, 300), (10, 300)])))
# Where the mat's corners land in a 1280x720 camera frame (a tilted camera).
FRAME_CORNERS = np.array([[180, 60], [1130, 90], [1210, 690], [90, 650]], np.float32)


def mat_image() -> np.ndarray:
    """The mat drawn at PPM px/mm: a green cloth with white-bordered markers."""
    w, h = int(MAT.size_mm[0] * PPM), int(MAT.size_mm[1] * PPM)
    img = np.full((h, w), 90, np.uint8)
    d = cv2.aruco.getPredefinedDictionary(DICT)
    for m in MAT.markers:
        x, y = (m.corners_mm[0] * PPM).astype(int)
        s = int(40 * PPM)
        img[y - 6:y + s + 6, x - 6:x + s + 6] = 255
        img[y:y + s, x:x + s] = cv2.aruco.generateImageMarker(d, m.id, s)
    return img


def truth_H() -> np.ndarray:
    """Pixels -> mm for the frame `camera_frame` makes."""
    mm = np.array([[0, 0], [MAT.size_mm[0], 0], [MAT.size_mm[0], MAT.size_mm[1]], [0, MAT.size_mm[1]]],
                  np.float32)
    return cv2.getPerspectiveTransform(FRAME_CORNERS, mm)


def camera_frame(cover: tuple[int, ...] = (), shift: float = 0.0) -> np.ndarray:
    """The mat seen by the camera; markers in `cover` hidden by a dark blob."""
    mat = mat_image()
    src = np.array([[0, 0], [mat.shape[1], 0], [mat.shape[1], mat.shape[0]], [0, mat.shape[0]]], np.float32)
    H = cv2.getPerspectiveTransform(src, FRAME_CORNERS + np.float32([shift, 0]))
    frame = cv2.warpPerspective(mat, H, (1280, 720), borderValue=40)
    for i in cover:
        c = to_plane(MAT.markers[i].corners_mm.mean(axis=0, keepdims=True), np.linalg.inv(truth_H()))[0]
        cv2.circle(frame, (int(c[0] + shift), int(c[1])), 70, 30, -1)
    return frame


def test_markers_are_found_with_their_ids_and_corners():
    frame = camera_frame()
    found = find_markers(frame, DICT)
    assert sorted(found) == [0, 1, 2, 3]
    expected = to_plane(MAT.markers[2].corners_mm, np.linalg.inv(truth_H()))
    assert np.abs(found[2] - expected).max() < 1.0


def test_a_half_size_search_finds_the_same_corners():
    frame = camera_frame()
    full, half = find_markers(frame, DICT), find_markers(frame, DICT, scale=0.5)
    assert sorted(half) == sorted(full)
    for i in full:
        assert np.abs(half[i] - full[i]).max() < 0.75


def test_the_homography_maps_pixels_to_mat_millimetres():
    fit = fit_mat(find_markers(camera_frame(), DICT), homography.marker_table(MAT))
    assert fit is not None and fit.markers == 4 and fit.error_mm < 0.5
    probe = np.array([[640, 360], [300, 500], [1000, 200]], np.float32)
    assert np.abs(to_plane(probe, fit.H) - to_plane(probe, truth_H())).max() < 1.0


def test_two_markers_are_enough_and_one_is_not():
    found = find_markers(camera_frame(cover=(1, 2)), DICT)
    assert sorted(found) == [0, 3]
    assert fit_mat(found, homography.marker_table(MAT)) is not None
    assert fit_mat({0: found[0]}, homography.marker_table(MAT)) is None


def test_a_misread_marker_does_not_spoil_the_fit():
    found = find_markers(camera_frame(), DICT)
    found[1] = found[1] + 60  # as if another marker's id were read here
    fit = fit_mat(found, homography.marker_table(MAT))
    assert fit is None or fit.error_mm < 2.5


def test_top_down_puts_the_markers_where_the_mat_says():
    fit = fit_mat(find_markers(camera_frame(), DICT), homography.marker_table(MAT))
    view = top_down(camera_frame(), fit.H, MAT.size_mm, PPM)
    mat = mat_image()
    assert view.shape == mat.shape
    for m in MAT.markers:
        x, y = (m.corners_mm[0] * PPM).astype(int)
        s = int(40 * PPM)
        patch = mat[y:y + s, x:x + s]
        window = view[y - 10:y + s + 10, x - 10:x + s + 10]
        _, score, _, (dx, dy) = cv2.minMaxLoc(cv2.matchTemplate(window, patch, cv2.TM_CCOEFF_NORMED))
        assert score > 0.8 and abs(dx - 10) <= 2 and abs(dy - 10) <= 2


def test_covered_markers_hold_the_last_mapping_then_lose_it():
    lock = MatLock(MAT, hold_s=2.0)
    assert lock.update(find_markers(camera_frame(), DICT), 0.0).status == FOUND
    covered = find_markers(camera_frame(cover=(0, 1, 2)), DICT)
    held = lock.update(covered, 1.0)
    assert held.status == HELD and held.ok
    assert lock.update({}, 1.5).status == HELD
    assert lock.update({}, 4.0).status == LOST
    assert lock.update(find_markers(camera_frame(), DICT), 4.1).status == FOUND


def test_a_bumped_camera_loses_the_mat_until_it_is_seen_again():
    lock = MatLock(MAT)
    lock.update(find_markers(camera_frame(), DICT), 0.0)
    moved = find_markers(camera_frame(cover=(0, 1, 2), shift=40), DICT)
    assert lock.update(moved, 0.1).status == LOST
    assert lock.update({}, 0.2).status == LOST
    state = lock.update(find_markers(camera_frame(shift=40), DICT), 0.3)
    assert state.status == FOUND


def test_no_mat_in_view_is_lost_from_the_start():
    lock = MatLock(MAT)
    state = lock.update(find_markers(np.full((720, 1280), 80, np.uint8), DICT), 0.0)
    assert state.status == LOST and not state.ok


def test_a_colour_image_is_refused_with_its_shape():
    with pytest.raises(ValueError, match="grayscale"):
        find_markers(np.zeros((10, 10, 3), np.uint8), DICT)


def test_small_markers_of_a_wide_lens_are_found_and_fitted():
    """A wide lens far above the table: markers about 34 px at 1280x720. Their corners are
    refined with a window that stays inside their white margin, and the mat is found."""
    from vision.mats import get_mat
    from vision.pipeline import Recognizer
    from vision.synthetic import Degradations, Scene, SyntheticCamera

    mat = get_mat("yonac")
    degrade = Degradations.parse("room,lens=wide").with_(hands=0)
    camera = SyntheticCamera(mat, "standard", seed=2, degrade=degrade)
    image, _ = camera.render(Scene(mat, "standard", ()), 0.0)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = find_markers(gray, mat.dictionary, 1.0)
    assert sorted(found) == sorted(m.id for m in mat.markers)
    for m in mat.markers:
        truth = np.array(camera.mat_to_frame(list(m.corners_mm)))
        assert np.abs(found[m.id] - truth).max() < 1.5
    state = Recognizer("standard", mat).see(image).mat
    assert state is not None and state.status == "found"


def test_a_half_size_search_gives_full_resolution_corners_behind_a_wide_lens():
    """Markers of about 35 px, a little blurred: in the half-size copy a corner comes out
    2 to 4 px off, too far for cornerSubPix's small window. Found again in a crop of
    the full frame, every corner is as good as a full-size search makes it, and so is the
    mat's fit (measured: 2.7 mm -> 0.9 mm)."""
    from vision.calibration import Undistorter
    from vision.mats import get_mat
    from vision.synthetic import Degradations, Scene, SyntheticCamera

    mat = get_mat("yonac")
    camera = SyntheticCamera(mat, "standard", seed=2, degrade=Degradations.parse("lens=wide,blur=0.2"))
    straighten = Undistorter(camera.calibration())
    image, _ = camera.render(Scene(mat, "standard", ()), 0.0)
    gray = cv2.cvtColor(straighten.apply(image), cv2.COLOR_BGR2GRAY)
    half = find_markers(gray, mat.dictionary, 0.5)
    assert sorted(half) == sorted(m.id for m in mat.markers)
    for m in mat.markers:
        truth = straighten.points(np.array(camera.mat_to_frame(list(m.corners_mm))))
        assert np.abs(half[m.id] - truth).max() < 1.0, m.id
    fit = fit_mat(half, homography.marker_table(mat))
    assert fit is not None and fit.error_mm < 1.0
