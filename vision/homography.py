"""The mat: find its ArUco markers, map camera pixels to mat millimetres, and keep that
mapping through brief covering of the markers.

A printed mat carries markers at known places (`MatSpec.markers`, corners in mm). Every
marker seen gives four point pairs; with two or more markers a homography from pixels to
mat millimetres follows (one marker alone is too small a base to extrapolate across the
table). `MatLock` keeps the last good homography while markers are covered by hands, says
"held", and says "lost" when it has not been confirmed for a while or the markers that
are still visible say the camera has moved.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

import cv2
import numpy as np


class _Marker(Protocol):
    id: int
    corners_mm: object


class MatLike(Protocol):
    """What this module needs of `vision.mats.MatSpec`."""

    size_mm: tuple[float, float]
    dictionary: int
    markers: Iterable[_Marker]


@functools.lru_cache(maxsize=16)
def _detector(dictionary: int, thorough: bool) -> cv2.aruco.ArucoDetector:
    """The quick detector thresholds with one window size; the thorough one (OpenCV's
    default, three sizes) costs three times as much and is the fallback."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    if not thorough:
        params.adaptiveThreshWinSizeMin = params.adaptiveThreshWinSizeMax = 11
    return cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)


def find_markers(gray: np.ndarray, dictionary: int, scale: float = 1.0) -> dict[int, np.ndarray]:
    """ArUco markers in a grayscale image: {id: (4, 2) float32 corners in pixels of `gray`,
    clockwise from the marker's top-left}. With scale < 1 the search runs on a smaller
    copy (cheaper; markers must stay above ~15 px), each marker found is found again in
    a crop of the full image around it, and the corners are then refined to sub-pixel
    accuracy on the full image."""
    if gray.ndim != 2:
        raise ValueError(f"find_markers needs a grayscale image, got shape {gray.shape}")
    img = gray
    if scale != 1.0:
        img = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    corners, ids, _ = _detector(dictionary, False).detectMarkers(img)
    if ids is None or len(ids) < 2:
        corners, ids, _ = _detector(dictionary, True).detectMarkers(img)
    if ids is None:
        return {}
    found: dict[int, np.ndarray] = {}
    for marker_id, c in zip(ids.ravel().tolist(), corners, strict=True):
        pts = (c.reshape(4, 2).astype(np.float32) + 0.5) / scale - 0.5
        if marker_id in found:  # a repeated id is a misread somewhere: trust neither
            found[marker_id] = np.empty((0, 2), np.float32)
            continue
        found[marker_id] = pts
    found = {k: v for k, v in found.items() if len(v)}
    if scale < 1.0:
        found = {k: _full_resolution(gray, dictionary, k, v) for k, v in found.items()}
    if found:
        pts = np.concatenate(list(found.values())).reshape(-1, 1, 2)
        # At most a 7x7 window: wider ones reach the outer edge of the marker's white
        # margin (a sixth of its side wide) and pull the corner off; smaller markers (a
        # wide lens far above) get a smaller window for the same reason.
        quads = pts.reshape(-1, 4, 2)
        side = float(np.median(np.linalg.norm(quads - np.roll(quads, 1, axis=1), axis=2)))
        half = int(np.clip(round(side / 16), 1, 3))
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.02)
        cv2.cornerSubPix(gray, pts, (half, half), (-1, -1), criteria)
        refined = pts.reshape(-1, 4, 2)
        found = {k: refined[i] for i, k in enumerate(found)}
    return found


#: A marker found in the smaller copy is looked for again in a crop of the full image
#: reaching this many of its sides past it (less, and the detector's threshold window
#: misses a 35 px marker's quiet zone).
RECROP_SIDES = 1.0


def _full_resolution(gray: np.ndarray, dictionary: int, marker_id: int, rough: np.ndarray) -> np.ndarray:
    """A marker found in a smaller copy, found again in a crop of the full image around
    it: its corners as the full-resolution search gives them (or `rough` if the crop
    does not show it). The copy's corners are 2 to 4 px off where a blurred corner is
    cut off at half size, too far for cornerSubPix's window, which must stay inside the
    marker's white margin (a 34 px marker behind a wide lens: fit error 2.7 -> 0.9 mm)."""
    side = float(np.max(np.linalg.norm(rough - np.roll(rough, 1, axis=0), axis=1)))
    h, w = gray.shape
    x0, y0 = (max(0, int(np.floor(v - RECROP_SIDES * side))) for v in rough.min(axis=0))
    x1, y1 = (int(np.ceil(v + RECROP_SIDES * side)) for v in rough.max(axis=0))
    x1, y1 = min(w, x1), min(h, y1)
    if x1 - x0 < 8 or y1 - y0 < 8:
        return rough
    corners, ids, _ = _detector(dictionary, False).detectMarkers(np.ascontiguousarray(gray[y0:y1, x0:x1]))
    if ids is None:
        return rough
    same = [c for i, c in zip(ids.ravel().tolist(), corners, strict=True) if i == marker_id]
    if len(same) != 1:
        return rough
    return same[0].reshape(4, 2).astype(np.float32) + np.float32([x0, y0])


def marker_table(mat: MatLike) -> dict[int, np.ndarray]:
    """The mat's markers as {id: (4, 2) float32 corners in mm}."""
    return {m.id: np.asarray(m.corners_mm, np.float32).reshape(4, 2) for m in mat.markers}


@dataclass(frozen=True)
class MatFit:
    """A homography from camera pixels to mat millimetres and how well it fits."""

    H: np.ndarray  # 3x3, pixels -> mm
    markers: int  # how many markers it rests on
    error_mm: float  # RMS distance between the known and the mapped marker corners


def fit_mat(found: Mapping[int, np.ndarray], mat_markers: Mapping[int, np.ndarray],
            min_markers: int = 2, max_error_mm: float = 2.5, max_error_px: float = 2.5) -> MatFit | None:
    """The pixel -> mm homography from the markers found, or None when fewer than
    `min_markers` of the mat's markers are seen or the fit is worse than `max_error_mm`
    (a misread marker or a warped mat). Where the markers are small in the picture (a
    wide lens high above the table: under 1 px/mm) their corners are only good to a
    pixel or two, so the limit is at least `max_error_px` pixels in mm there; a misread
    id is tens of mm off all the same."""
    ids = [i for i in found if i in mat_markers]
    if len(ids) < min_markers:
        return None
    src = np.concatenate([found[i] for i in ids]).astype(np.float32)
    dst = np.concatenate([mat_markers[i] for i in ids]).astype(np.float32)
    method = cv2.RANSAC if len(ids) >= 3 else 0
    H, _ = cv2.findHomography(src, dst, method, 3.0)
    if H is None:
        return None
    err = reprojection_error(H, src, dst)
    side_px = np.linalg.norm(src - np.roll(src.reshape(-1, 4, 2), 1, axis=1).reshape(-1, 2), axis=1)
    side_mm = np.linalg.norm(dst - np.roll(dst.reshape(-1, 4, 2), 1, axis=1).reshape(-1, 2), axis=1)
    px_per_mm = float(np.median(side_px / np.maximum(side_mm, 1e-6)))
    limit = max(max_error_mm, max_error_px / px_per_mm) if px_per_mm > 0 else max_error_mm
    if not np.isfinite(err) or err > limit:
        return None
    return MatFit(H, len(ids), err)


def reprojection_error(H: np.ndarray, src: np.ndarray, dst: np.ndarray) -> float:
    """RMS distance between H(src) and dst."""
    mapped = to_plane(src, H)
    return float(np.sqrt(np.mean(np.sum((mapped - dst) ** 2, axis=1))))


def to_plane(points: np.ndarray, H: np.ndarray) -> np.ndarray:
    """Apply a homography to (N, 2) points."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(H, np.float64)).reshape(-1, 2)


def top_down(image: np.ndarray, H: np.ndarray, size_mm: tuple[float, float], px_per_mm: float,
             margin_mm: float = 0.0) -> np.ndarray:
    """The mat seen from straight above at `px_per_mm` (H maps image pixels to mm), with
    `margin_mm` of the table around it: pixel (u, v) is the point
    (u / px_per_mm - margin_mm, v / px_per_mm - margin_mm) mm of the mat. What the
    camera does not see repeats the nearest seen pixel."""
    m = margin_mm * px_per_mm
    S = np.array([[px_per_mm, 0.0, m], [0.0, px_per_mm, m], [0.0, 0.0, 1.0]])
    w = round((size_mm[0] + 2 * margin_mm) * px_per_mm)
    h = round((size_mm[1] + 2 * margin_mm) * px_per_mm)
    return cv2.warpPerspective(image, S @ H, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def mat_only(view: np.ndarray, size_mm: tuple[float, float], ppm: float, margin_mm: float,
             inset_mm: float, reach_px: float, in_place: bool = False) -> np.ndarray:
    """The top-down view with everything outside the mat's printed area (from `inset_mm`
    inside its edge) replaced by the mat's own edge continued outward.

    Why: the table around the mat may be lighter than the mat (light oak, white laminate,
    grey, a checked cloth) and would be taken for cards or hands. The edge is continued
    after a grey opening along it (`reach_px`, more than a card) so that a card lying at
    the edge does not become a streak across the margin. `in_place`: the margin is
    written into `view` itself (the same values, without copying the view)."""
    h, w = view.shape[:2]
    x0 = max(0, round((margin_mm + inset_mm) * ppm))
    y0 = max(0, round((margin_mm + inset_mm) * ppm))
    x1 = min(w, round((margin_mm + size_mm[0] - inset_mm) * ppm))
    y1 = min(h, round((margin_mm + size_mm[1] - inset_mm) * ppm))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return view
    inner = view[y0:y1, x0:x1]
    k = max(3, int(reach_px) | 1)

    def opened(line: np.ndarray) -> np.ndarray:
        row = np.ascontiguousarray(line).reshape(1, -1)
        kernel = np.ones((1, k), np.uint8)
        return cv2.dilate(cv2.erode(row, kernel, borderType=cv2.BORDER_REPLICATE), kernel,
                          borderType=cv2.BORDER_REPLICATE).ravel()

    top, bottom = opened(inner[0]), opened(inner[-1])
    left, right = opened(inner[:, 0]), opened(inner[:, -1])
    if in_place:
        out = view
    else:
        out = np.empty_like(view)
        out[y0:y1, x0:x1] = inner
    out[:y0, x0:x1] = top
    out[y1:, x0:x1] = bottom
    out[y0:y1, :x0] = left[:, None]
    out[y0:y1, x1:] = right[:, None]
    out[:y0, :x0] = top[0]
    out[:y0, x1:] = top[-1]
    out[y1:, :x0] = bottom[0]
    out[y1:, x1:] = bottom[-1]
    return out


FOUND, HELD, LOST = "found", "held", "lost"


def _shift_px(H_a: np.ndarray, H_b: np.ndarray, size_mm: tuple[float, float]) -> float:
    """How far apart (pixels) two pixel -> mm homographies put the mat's corners."""
    w, h = size_mm
    corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    a = to_plane(corners, np.linalg.inv(H_a))
    b = to_plane(corners, np.linalg.inv(H_b))
    return float(np.abs(a - b).max())


@dataclass(frozen=True)
class MatState:
    """Where the mat is in this frame. status: "found" (markers seen now), "held" (the
    last good mapping, markers covered), "lost" (no mapping to trust). H maps pixels to
    mm (None when lost); since: the time of the last confirmation."""

    status: str
    H: np.ndarray | None
    since: float | None
    markers: int = 0
    error_mm: float = float("nan")

    @property
    def ok(self) -> bool:
        return self.H is not None


class MatLock:
    """Keeps the pixel -> mm mapping from frame to frame.

    update() takes the markers found in a frame. A fresh fit replaces the held one when
    it moves the mat by more than `still_px` (sensor noise alone does not). With
    too few markers the last fit is held for `hold_s` seconds, unless a visible marker
    lies more than `moved_mm` from where the held fit puts it (the camera was bumped: the
    old mapping is wrong, and the state is lost until two markers are seen again).
    """

    def __init__(self, mat: MatLike, hold_s: float = 3.0, moved_mm: float = 6.0,
                 max_error_mm: float = 2.5, still_px: float = 0.35) -> None:
        self.mat = mat
        self.markers = marker_table(mat)
        self.hold_s = hold_s
        self.moved_mm = moved_mm
        self.max_error_mm = max_error_mm
        self.still_px = still_px
        self._fit: MatFit | None = None
        self._since: float | None = None

    def reset(self) -> None:
        self._fit, self._since = None, None

    def update(self, found: Mapping[int, np.ndarray], t: float) -> MatState:
        fit = fit_mat(found, self.markers, max_error_mm=self.max_error_mm)
        if fit is not None:
            if self._fit is None or _shift_px(self._fit.H, fit.H, self.mat.size_mm) > self.still_px:
                self._fit = fit
            self._since = t  # a fit within a hair of the held one keeps it: no jitter
            return MatState(FOUND, self._fit.H, t, fit.markers, fit.error_mm)
        if self._fit is None or self._since is None:
            return MatState(LOST, None, None)
        ids = [i for i in found if i in self.markers]
        if ids:
            src = np.concatenate([found[i] for i in ids])
            dst = np.concatenate([self.markers[i] for i in ids])
            mapped = to_plane(src, self._fit.H)
            if float(np.max(np.linalg.norm(mapped - dst, axis=1))) > self.moved_mm:
                self.reset()
                return MatState(LOST, None, None)
            self._since = t  # a visible marker where it should be confirms the mapping
        if t - self._since > self.hold_s:
            return MatState(LOST, None, self._since)
        return MatState(HELD, self._fit.H, self._since, len(ids), self._fit.error_mm)
