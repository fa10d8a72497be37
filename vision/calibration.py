"""Camera calibration with OpenCV's ChArUco tools: the printed board, collecting views of it,
the intrinsics and lens distortion they give, where they are kept, and undoing the
distortion in frames.

Why: the mat's homography assumes a pinhole camera. A wide lens (the Camera Module 3
Wide, about 120 degrees) bends straight lines near the edge of the view by many pixels,
so mat millimetres come out wrong there. One calibration per camera and resolution,
made once with `companion camera calibrate`, lets every frame source straighten its
frames (`Undistorter`, applied by `vision.sources.calibrated.CalibratedSource`).

The stages are plain functions and one small object:

* `board()` / `board_image()`: the ChArUco board, the same for every paper size;
* `find_board(image)`: its corners in a frame (`cv2.aruco.CharucoDetector`);
* `Calibrator.add_frame(image) -> Progress`, `Calibrator.result() -> Calibration`:
  views taken only when they are new enough, then `cv2.calibrateCamera`;
* `Calibration.save` / `load_calibration` / `find_calibration`: JSON files under
  `companion.paths.data_dir()/calibration/<camera>-<W>x<H>.json`, written atomically;
* `Undistorter`: remap maps computed once per calibration, `apply(image)` per frame,
  `points(xy)` for callers that straighten only the points they use;
* `warp_maps(calibration, H, size)`: a raw frame straight to a straightened top-down view
  in one remap of the view's size (no whole-frame remap).
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.errors import CompanionError

# --- the board -------------------------------------------------------------------------

BOARD_SQUARES = (7, 5)  # columns x rows of chessboard squares: 24 inner corners
SQUARE_MM = 36.0  # fits A4 and letter, landscape, with margins: 252 x 180 mm
MARKER_MM = 27.0
BOARD_DICTIONARY = cv2.aruco.DICT_5X5_100  # not the mats' DICT_4X4_50: a board is never a mat
BOARD_NAME = (f"ChArUco {BOARD_SQUARES[0]}x{BOARD_SQUARES[1]} squares of {SQUARE_MM:g} mm, "
              f"markers {MARKER_MM:g} mm, DICT_5X5_100")

# --- what a good calibration needs -------------------------------------------------------

MIN_CORNERS = 12  # of 24: fewer and a view says little about the lens
MIN_VIEWS = 10  # fewer are refused
TARGET_VIEWS = 20  # `companion camera calibrate` stops here by default
MAX_ERROR_PX = 1.0  # RMS reprojection error above this is refused
MIN_NOVELTY = 0.1  # how far (in `_pose_key` units) a view must be from every view taken
COVERAGE_GRID = (8, 6)  # cells across and down the frame for the "covered" share
ESTIMATE_FROM = 4  # views before the running reprojection error is computed


class CalibrationError(CompanionError, ValueError):
    """A calibration that cannot be made, read or used; the message says why, with numbers."""


class TooFewViews(CalibrationError):
    """Fewer views of the board than a well-conditioned calibration needs."""


class ErrorTooHigh(CalibrationError):
    """A calibration whose reprojection error is above the limit."""


class CalibrationMismatch(CalibrationError):
    """A calibration made at another resolution than the frames it is applied to."""


class BadCalibration(CalibrationError):
    """A calibration file that cannot be read."""


@lru_cache(maxsize=1)
def board() -> cv2.aruco.CharucoBoard:
    """The ChArUco board every calibration uses (units: millimetres)."""
    return cv2.aruco.CharucoBoard(BOARD_SQUARES, SQUARE_MM, MARKER_MM,
                                  cv2.aruco.getPredefinedDictionary(BOARD_DICTIONARY))


def board_size_mm() -> tuple[float, float]:
    return BOARD_SQUARES[0] * SQUARE_MM, BOARD_SQUARES[1] * SQUARE_MM


def board_image(px_per_mm: float) -> np.ndarray:
    """The board drawn at `px_per_mm`, grey uint8, no margin: pixel (x, y) is board
    millimetre ((x + 0.5) / px_per_mm, (y + 0.5) / px_per_mm)."""
    w, h = board_size_mm()
    size = (round(w * px_per_mm), round(h * px_per_mm))
    return board().generateImage(size, marginSize=0, borderBits=1)


def board_pdf(paper: str = "a4", px_per_mm: float = 10.0) -> tuple[bytes, str]:
    """The board on one landscape sheet at true size, with its sizes and a 50 mm bar to
    check the print's scale, as PDF bytes (the caller writes them), and what is on it."""
    from PIL import Image

    from vision.printing import _new_pdf, _scale_bar, paper_size

    portrait = paper_size(paper, ("a4", "letter"))
    page = (portrait[1], portrait[0])
    w, h = board_size_mm()
    pdf = _new_pdf(page, "ChArUco calibration board")
    pdf.add_page()
    x, y = (page[0] - w) / 2, (page[1] - h) / 2
    pdf.image(Image.fromarray(board_image(px_per_mm)), x, y, w, h)
    pdf.set_text_color(40, 40, 40)
    pdf.set_font("helvetica", size=9)
    pdf.set_xy(10.0, 5.0)
    cols, rows = BOARD_SQUARES
    pdf.cell(page[0] - 20.0, 5.0, f"Table Companion calibration board: {cols} x {rows} "
             f"squares of {SQUARE_MM:g} mm, markers {MARKER_MM:g} mm (ArUco DICT_5X5_100). Print at 100% "
             "(actual size) and keep it flat.", align="C")
    _scale_bar(pdf, page)
    what = (f"the calibration board ({BOARD_NAME}), {w:g} x {h:g} mm, on one {paper} sheet "
            f"(landscape): each square is {SQUARE_MM:g} mm; print at 100%")
    return bytes(pdf.output()), what


@lru_cache(maxsize=1)
def _detector() -> cv2.aruco.CharucoDetector:
    return cv2.aruco.CharucoDetector(board())


@dataclass(frozen=True, eq=False)
class BoardView:
    """The board's corners found in one frame: image points (N, 2) and the matching board
    points (N, 3) in millimetres, and the corner ids."""

    image_points: np.ndarray
    board_points: np.ndarray
    ids: np.ndarray

    @property
    def corners(self) -> int:
        return len(self.ids)


def find_board(image: np.ndarray) -> BoardView | None:
    """The ChArUco corners in `image` (BGR or grey), or None when none are found."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = _detector().detectBoard(grey)
    if ids is None or len(ids) == 0:
        return None
    obj, img = board().matchImagePoints(corners, ids)
    return BoardView(img.reshape(-1, 2).astype(np.float32), obj.reshape(-1, 3).astype(np.float32),
                     ids.reshape(-1))


# --- how new a view is ---------------------------------------------------------------------

def _pose_key(view: BoardView, size: tuple[int, int]) -> np.ndarray | None:
    """Where the board is in the frame and how it is turned, as five numbers of about the
    same weight: centre x and y (share of the frame), size (square root of its share of
    the frame's area), and tilt left-right and top-bottom (log ratios of opposite sides of
    the whole board's outline). Two views closer than MIN_NOVELTY add little."""
    if view.corners < 4:
        return None
    H, _ = cv2.findHomography(view.board_points[:, :2], view.image_points, 0)
    if H is None:
        return None
    w, h = board_size_mm()
    outline = cv2.perspectiveTransform(np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), H)[0]
    W, Ht = size
    centre = outline.mean(axis=0)
    area = abs(cv2.contourArea(outline))
    if area <= 1.0:
        return None
    side = [float(np.linalg.norm(outline[(i + 1) % 4] - outline[i])) for i in range(4)]
    if min(side) <= 1e-6:
        return None
    tilt_x = math.log(side[1] / side[3])  # right side against left side
    tilt_y = math.log(side[2] / side[0])  # bottom against top
    return np.array([centre[0] / W, centre[1] / Ht, math.sqrt(area / (W * Ht)), tilt_x, tilt_y])


@dataclass(frozen=True)
class Progress:
    """What `Calibrator.add_frame` made of a frame, for the user: whether the board was
    found (and how many corners), whether the view was taken and why not, the views taken
    so far, the share of the frame their corners cover, the running reprojection error
    (None until ESTIMATE_FROM views), and a hint on what to do next."""

    found: bool
    corners: int
    taken: bool
    reason: str
    views: int
    target: int
    coverage: float
    error_px: float | None
    hint: str

    @property
    def done(self) -> bool:
        return self.views >= self.target

    def line(self) -> str:
        """One line for a terminal."""
        error = "-" if self.error_px is None else f"{self.error_px:.2f} px"
        return (f"views {self.views}/{self.target}, frame covered {self.coverage:.0%}, "
                f"reprojection error {error}: {self.reason}" + (f"; {self.hint}" if self.hint else ""))


@dataclass
class Calibrator:
    """Collects views of the board and calibrates from them.

    `add_frame(image)` finds the board, takes the view when it has at least `min_corners`
    corners and differs from every view taken by at least `min_novelty` (position, size or
    tilt), and returns a `Progress`. `result()` calibrates, or raises TooFewViews /
    ErrorTooHigh with the numbers. All frames must be the same size.
    """

    camera: str = "camera"
    target_views: int = TARGET_VIEWS
    min_views: int = MIN_VIEWS
    max_error_px: float = MAX_ERROR_PX
    min_corners: int = MIN_CORNERS
    min_novelty: float = MIN_NOVELTY
    size: tuple[int, int] | None = None
    views: list[BoardView] = field(default_factory=list, init=False)
    _keys: list[np.ndarray] = field(default_factory=list, init=False, repr=False)
    _covered: np.ndarray = field(default_factory=lambda: np.zeros(COVERAGE_GRID[::-1], bool), init=False,
                                 repr=False)
    _error: float | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.min_views < 3:
            raise CalibrationError(f"a calibration needs at least 3 views, got min_views={self.min_views}")
        if self.target_views < self.min_views:
            raise CalibrationError(f"the target of {self.target_views} views is below the minimum "
                                   f"of {self.min_views}")
        if not self.max_error_px > 0:
            raise CalibrationError(f"the error limit must be above 0 px, got {self.max_error_px}")

    @property
    def coverage(self) -> float:
        """Share of the frame's grid cells that hold a corner of a view taken."""
        return float(self._covered.mean())

    def add_frame(self, image: np.ndarray) -> Progress:
        """Look for the board in `image` and take the view if it is good and new."""
        size = (int(image.shape[1]), int(image.shape[0]))
        if self.size is None:
            self.size = size
        elif size != self.size:
            raise CalibrationMismatch(f"frame of {size[0]}x{size[1]} after frames of "
                                      f"{self.size[0]}x{self.size[1]}: calibrate at one resolution")
        view = find_board(image)
        if view is None:
            return self._progress(False, 0, False, "board not found")
        if view.corners < self.min_corners:
            return self._progress(True, view.corners, False,
                                  f"only {view.corners} corners seen, {self.min_corners} needed: "
                                  "show more of the board")
        key = _pose_key(view, size)
        if key is None:
            return self._progress(True, view.corners, False, "board seen edge-on")
        if self._keys:
            distances = [float(np.linalg.norm(key - k)) for k in self._keys]
            nearest = int(np.argmin(distances))
            if distances[nearest] < self.min_novelty:
                return self._progress(True, view.corners, False,
                                      f"too like view {nearest + 1}: move or tilt the board")
        self.views.append(view)
        self._keys.append(key)
        gw, gh = COVERAGE_GRID
        cells = np.clip((view.image_points / np.float32(size) * np.float32([gw, gh])).astype(int),
                        0, [gw - 1, gh - 1])
        self._covered[cells[:, 1], cells[:, 0]] = True
        if len(self.views) >= ESTIMATE_FROM:
            self._error = self._calibrate()[0]
        return self._progress(True, view.corners, True, f"view {len(self.views)} taken")

    def _progress(self, found: bool, corners: int, taken: bool, reason: str) -> Progress:
        return Progress(found, corners, taken, reason, len(self.views), self.target_views,
                        self.coverage, self._error, self._hint())

    def _hint(self) -> str:
        if len(self.views) >= self.target_views:
            return ""
        gw, gh = COVERAGE_GRID
        if self.views and self.coverage < 0.7:
            empty = ~self._covered
            sides = {"left": empty[:, :gw // 3].mean(), "right": empty[:, -(gw // 3):].mean(),
                     "top": empty[:gh // 3, :].mean(), "bottom": empty[-(gh // 3):, :].mean()}
            side = max(sides, key=lambda s: sides[s])
            return f"move the board towards the {side} of the view"
        if len(self.views) >= 3 and max(abs(k[3]) + abs(k[4]) for k in self._keys) < 0.15:
            return "tilt the board (30 to 45 degrees) in some views"
        return ""

    def _calibrate(self) -> tuple[float, np.ndarray, np.ndarray]:
        assert self.size is not None
        rms, matrix, dist, _, _ = cv2.calibrateCamera(
            [v.board_points for v in self.views], [v.image_points for v in self.views], self.size, None, None)
        return float(rms), matrix, dist.reshape(-1)

    def result(self) -> Calibration:
        """The calibration from the views taken; TooFewViews or ErrorTooHigh with the numbers."""
        n = len(self.views)
        if n < self.min_views or self.size is None:
            raise TooFewViews(f"only {n} views of the board were taken and {self.min_views} are needed "
                              f"(frame covered {self.coverage:.0%}): show the board in more places and tilts")
        rms, matrix, dist = self._calibrate()
        if rms > self.max_error_px:
            raise ErrorTooHigh(f"reprojection error {rms:.2f} px is above the limit of {self.max_error_px:g} "
                               f"px ({n} views, frame covered {self.coverage:.0%}): hold the board still "
                               "and flat, in good light, and calibrate again")
        return Calibration(self.camera, self.size, matrix, dist, rms, n, self.coverage)


# --- the result ------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Calibration:
    """A camera's intrinsics at one resolution: the 3x3 camera matrix, the distortion
    coefficients (OpenCV's k1, k2, p1, p2, k3), and how they were made."""

    camera: str
    size: tuple[int, int]
    matrix: np.ndarray
    distortion: np.ndarray
    error_px: float
    views: int
    coverage: float
    board: str = BOARD_NAME
    made: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))

    def check_size(self, size: tuple[int, int]) -> None:
        """CalibrationMismatch unless frames of `size` are what this calibration was made at."""
        if tuple(size) != tuple(self.size):
            raise CalibrationMismatch(
                f"the calibration of {self.camera} was made at {self.size[0]}x{self.size[1]} and the frames "
                f"are {size[0]}x{size[1]}: calibrate at this resolution "
                f"(companion camera calibrate) or use the camera at {self.size[0]}x{self.size[1]}")

    def to_json(self) -> dict[str, Any]:
        return {"camera": self.camera, "width": self.size[0], "height": self.size[1],
                "matrix": [[float(v) for v in row] for row in self.matrix],
                "distortion": [float(v) for v in self.distortion], "reprojection_error_px": self.error_px,
                "views": self.views, "coverage": self.coverage, "board": self.board, "made": self.made}

    @classmethod
    def from_json(cls, data: dict[str, Any], where: str = "calibration") -> Calibration:
        try:
            matrix = np.array(data["matrix"], np.float64)
            dist = np.array(data["distortion"], np.float64).reshape(-1)
            size = (int(data["width"]), int(data["height"]))
            if matrix.shape != (3, 3) or dist.size not in (4, 5, 8, 12, 14) or min(size) <= 0 \
                    or not np.all(np.isfinite(matrix)) or not np.all(np.isfinite(dist)):
                raise ValueError
            return cls(str(data["camera"]), size, matrix, dist, float(data["reprojection_error_px"]),
                       int(data["views"]), float(data.get("coverage", 0.0)), str(data.get("board", "")),
                       str(data.get("made", "")))
        except (KeyError, TypeError, ValueError):
            raise BadCalibration(f"{where} is not a calibration (camera, width, height, a 3x3 matrix, "
                                 "distortion coefficients, reprojection_error_px, views)") from None

    def save(self, path: Path | None = None) -> Path:
        """Write to `path` (default: the data directory's file for this camera and size)
        through a temporary file and a rename, so a crash never leaves half a file."""
        path = Path(path) if path is not None else calibration_path(self.camera, self.size)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(self.to_json(), f, indent=2)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path


def camera_key(name: str) -> str:
    """A camera's name as a file name: `picamera2:0` -> `picamera2-0`."""
    key = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.")
    if not key:
        raise CalibrationError(f"cannot name a calibration file after the camera {name!r}")
    return key


def calibration_dir() -> Path:
    from companion.paths import data_dir

    return data_dir() / "calibration"


def calibration_path(camera: str, size: tuple[int, int]) -> Path:
    """Where the calibration of `camera` at `size` is kept."""
    return calibration_dir() / f"{camera_key(camera)}-{size[0]}x{size[1]}.json"


def load_calibration(path: Path) -> Calibration:
    """A calibration file; BadCalibration naming it if it cannot be read."""
    path = Path(path)
    try:
        if path.exists() and not path.is_file():  # a folder, or /dev/zero read for ever
            raise BadCalibration(f"the calibration {path} is not a regular file")
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise BadCalibration(f"no such calibration file: {path}") from None
    except RecursionError:
        raise BadCalibration(f"cannot read the calibration {path}: JSON nested too deep") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadCalibration(f"cannot read the calibration {path}: {exc}") from None
    if not isinstance(data, dict):
        raise BadCalibration(f"{path} is not a calibration")
    return Calibration.from_json(data, str(path))


def find_calibration(camera: str, size: tuple[int, int]) -> Calibration | None:
    """The stored calibration of `camera` at `size`, or None if there is none."""
    path = calibration_path(camera, size)
    return load_calibration(path) if path.is_file() else None


def stored_sizes(camera: str) -> list[tuple[int, int]]:
    """The resolutions `camera` has stored calibrations for."""
    folder = calibration_dir()
    if not folder.is_dir():
        return []
    pattern = re.compile(re.escape(camera_key(camera)) + r"-(\d+)x(\d+)\.json")
    found = (pattern.fullmatch(p.name) for p in folder.iterdir())
    return sorted((int(m[1]), int(m[2])) for m in found if m)


# --- undoing the distortion ------------------------------------------------------------------

class Undistorter:
    """Straightens frames of one calibration: the remap maps are computed once (fixed-point
    CV_16SC2, the fastest form for cv2.remap) and each frame costs one remap.

    `alpha` is getOptimalNewCameraMatrix's: 0 keeps only pixels that exist in the frame
    (the centre keeps about its scale, the bent edges are cut), 1 keeps every pixel of the
    frame (the picture shrinks, black corners appear)."""

    def __init__(self, calibration: Calibration, alpha: float = 0.0) -> None:
        self.calibration = calibration
        self.size = tuple(calibration.size)
        self.matrix, _ = cv2.getOptimalNewCameraMatrix(calibration.matrix, calibration.distortion,
                                                       self.size, alpha, self.size)
        self.maps = cv2.initUndistortRectifyMap(calibration.matrix, calibration.distortion, None,
                                                self.matrix, self.size, cv2.CV_16SC2)

    def apply(self, image: np.ndarray) -> np.ndarray:
        """The frame as a pinhole camera with matrix `self.matrix` would have seen it."""
        size = (int(image.shape[1]), int(image.shape[0]))
        self.calibration.check_size(size)
        return undistort_image(image, self.maps)

    def points(self, points: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Raw frame points (N, 2) moved where `apply` puts them."""
        return undistort_points(points, self.calibration, self.matrix)


def warp_maps(calibration: Calibration, homography: np.ndarray, size: tuple[int, int],
              matrix: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Remap maps that take a RAW frame straight to the view `homography` makes of the
    straightened frame (`homography` maps pixels of a pinhole camera with `matrix`, default
    the calibration's own, to the `size` output, e.g. the mat's top-down view).

    The cheap way on a Pi: one remap of the output's size instead of a remap of the whole
    frame followed by a warp. The maps change only when the homography does."""
    K = calibration.matrix if matrix is None else matrix
    # initUndistortRectifyMap inverts (newCameraMatrix x R) as one 3x3 matrix, so a
    # homography from normalised rays to output pixels may stand in for newCameraMatrix
    to_output = np.asarray(homography, np.float64) @ K
    return cv2.initUndistortRectifyMap(calibration.matrix, calibration.distortion, None, to_output,
                                       tuple(size), cv2.CV_16SC2)


def undistort_image(image: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """One remap through maps from `cv2.initUndistortRectifyMap`."""
    return cv2.remap(image, maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)


def undistort_points(points: np.ndarray | Sequence[Sequence[float]], calibration: Calibration,
                     new_matrix: np.ndarray | None = None) -> np.ndarray:
    """Raw frame points (N, 2) as pixels of a pinhole camera with `new_matrix` (default:
    the calibration's own matrix), iterated to convergence even near a wide lens's edge."""
    P = calibration.matrix if new_matrix is None else new_matrix
    return undistort_pixels(points, calibration.matrix, calibration.distortion, P)


def undistort_pixels(points: np.ndarray | Sequence[Sequence[float]], matrix: np.ndarray,
                     distortion: np.ndarray, new_matrix: np.ndarray | None = None,
                     iterations: int = 50) -> np.ndarray:
    """Raw pixels (N, 2) of a camera with `matrix` and `distortion` as pinhole pixels of
    `new_matrix`, or as normalised rays when it is None. The iteration runs to convergence
    (OpenCV's default of 5 steps is short of it near a wide lens's edge)."""
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    if len(pts) == 0:
        return np.zeros((0, 2))
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, iterations, 1e-10)
    if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4
        out = cv2.undistortPointsIter(pts, matrix, distortion, None, new_matrix, criteria)
    else:  # OpenCV 5 takes the criteria in undistortPoints itself
        out = cv2.undistortPoints(pts, matrix, distortion, R=None, P=new_matrix, criteria=criteria)
    return out.reshape(-1, 2)
