"""Camera calibration: views of the ChArUco board rendered through a KNOWN camera matrix
and lens distortion are calibrated, and the result must straighten a mat seen through
that lens to within a millimetre. Also the refusals (too few views, error above the
limit, another resolution), the stored files, the `companion camera` commands and the
source wrapper that applies a calibration."""

from __future__ import annotations

import json
import os
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from vision import calibration as cal
from vision.calibration import (
    Calibration,
    CalibrationMismatch,
    Calibrator,
    ErrorTooHigh,
    TooFewViews,
    Undistorter,
    find_calibration,
    load_calibration,
    undistort_points,
)
from vision.mats import get_mat

SIZE = (800, 450)  # small frames keep the test fast; a 16:9 sensor like the Pi's
K_TRUE = np.array([[430.0, 0, 404.0], [0, 431.0, 222.0], [0, 0, 1]])
# strong barrel distortion, as a wide lens: straight lines at the edge bend by ~30 px
D_TRUE = np.array([-0.30, 0.10, 0.0008, -0.0006, 0.0])
BOARD_PX_PER_MM = 4.0


# --- a small renderer: a plane seen through the known camera ------------------------------

def _pose(rx: float, ry: float, rz: float, centre: tuple[float, float], distance: float,
          plane_centre: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """Rotation and translation placing the plane point `plane_centre` (mm) on the ray
    through normalised image point `centre`, `distance` mm away, turned by rx, ry, rz degrees."""
    R, _ = cv2.Rodrigues(np.radians([rx, ry, rz]))
    t = distance * np.array([centre[0], centre[1], 1.0]) - R @ np.array([*plane_centre, 0.0])
    return R, t


@pytest.fixture(scope="module")
def undistorted_rays() -> np.ndarray:
    """For every pixel of a distorted frame, the normalised pinhole ray it sees (H, W, 2)."""
    w, h = SIZE
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    rays = cal.undistort_pixels(np.stack([xs, ys], axis=-1).reshape(-1, 2), K_TRUE, D_TRUE, None, 60)
    return rays.reshape(h, w, 2)


def _render_plane(plane: np.ndarray, px_per_mm: float, R: np.ndarray, t: np.ndarray,
                  rays: np.ndarray, background: int = 200) -> np.ndarray:
    """The picture `plane` (grey, `px_per_mm`) as the distorted camera sees it at pose R, t:
    each frame pixel's ray is met with the plane (the inverse mapping), then one remap."""
    Hn = np.column_stack([R[:, 0], R[:, 1], t])  # plane mm -> normalised image
    inv = np.linalg.inv(Hn)
    h, w = rays.shape[:2]
    homog = np.concatenate([rays, np.ones((h, w, 1))], axis=-1) @ inv.T
    mm = homog[..., :2] / homog[..., 2:3]
    map_xy = (mm * px_per_mm - 0.5).astype(np.float32)
    image = cv2.remap(plane, map_xy[..., 0], map_xy[..., 1], cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=background)
    return cv2.GaussianBlur(image, (3, 3), 0.6)


# Board poses across the frame: centres (normalised), tilts and distances, enough variety
# for a well-conditioned calibration with few views.
POSES = [
    (0, 0, 0, (0.0, 0.0), 330), (30, 0, 5, (-0.55, -0.3), 360), (-30, 0, -5, (0.55, 0.3), 360),
    (0, 30, 10, (0.55, -0.3), 360), (0, -30, -10, (-0.55, 0.3), 360), (20, 20, 0, (-0.2, 0.3), 300),
    (-20, -20, 15, (0.2, -0.3), 300), (35, -15, 0, (-0.8, 0.05), 420), (-35, 15, 0, (0.8, -0.05), 420),
    (10, 35, -5, (0.0, -0.35), 380), (-15, -35, 5, (0.0, 0.35), 380), (0, 0, 30, (0.6, 0.0), 450),
]


@pytest.fixture(scope="module")
def views(undistorted_rays) -> list[np.ndarray]:
    """The board seen through the known lens in every pose of POSES (BGR frames)."""
    plane = cal.board_image(BOARD_PX_PER_MM)
    bw, bh = cal.board_size_mm()
    frames = []
    for rx, ry, rz, centre, distance in POSES:
        R, t = _pose(rx, ry, rz, centre, distance, (bw / 2, bh / 2))
        frames.append(cv2.cvtColor(_render_plane(plane, BOARD_PX_PER_MM, R, t, undistorted_rays),
                                   cv2.COLOR_GRAY2BGR))
    return frames


@pytest.fixture(scope="module")
def calibrated(views) -> tuple[Calibrator, Calibration]:
    calibrator = Calibrator(camera="test-cam", target_views=len(views), min_views=8)
    for frame in views:
        calibrator.add_frame(frame)
    return calibrator, calibrator.result()


# --- the accuracy that matters: mat millimetres ---------------------------------------------

def _mat_error_mm(calibration: Calibration | None) -> float:
    """Worst error, in mat millimetres, of points all over a mat seen through the true
    lens, filling the view and a little tilted, after straightening the marker corners and
    the points with `calibration` (None: not straightened) and fitting the homography on
    the 16 marker corners, as the recognition does."""
    mat = get_mat("yokir")
    w, h = mat.size_mm
    R, t = _pose(10, 8, 3, (0.0, 0.0), 430, (w / 2, h / 2))  # the mat filling the view, tilted
    markers = np.array([c for m in mat.markers for c in m.corners_mm], np.float64)
    gx, gy = np.meshgrid(np.linspace(0, w, 9), np.linspace(0, h, 9))
    probe = np.stack([gx.ravel(), gy.ravel()], axis=1)

    def seen(mm: np.ndarray) -> np.ndarray:
        obj = np.column_stack([mm, np.zeros(len(mm))])
        px, _ = cv2.projectPoints(obj, cv2.Rodrigues(R)[0], t, K_TRUE, D_TRUE)
        return px.reshape(-1, 2)

    marker_px, probe_px = seen(markers), seen(probe)
    assert np.all((probe_px >= 0) & (probe_px < SIZE)), "the mat must lie inside the frame"
    if calibration is not None:
        marker_px = undistort_points(marker_px, calibration)
        probe_px = undistort_points(probe_px, calibration)
    H, _ = cv2.findHomography(markers, marker_px, 0)
    back = cv2.perspectiveTransform(probe_px.reshape(-1, 1, 2), np.linalg.inv(H)).reshape(-1, 2)
    return float(np.abs(back - probe).max())


def test_the_calibration_recovers_the_lens_to_within_a_millimetre_on_the_mat(calibrated):
    _, result = calibrated
    assert result.views == len(POSES)  # every pose differs enough to be taken
    assert result.error_px < 0.5
    assert result.size == SIZE
    assert _mat_error_mm(None) > 5.0  # the lens bends the mat by far more than a millimetre
    assert _mat_error_mm(result) < 1.0
    # the lens itself: focal lengths and the main radial term, near the truth
    assert result.matrix[0, 0] == pytest.approx(K_TRUE[0, 0], rel=0.02)
    assert result.matrix[1, 1] == pytest.approx(K_TRUE[1, 1], rel=0.02)
    assert result.distortion[0] == pytest.approx(D_TRUE[0], abs=0.03)


def test_progress_says_views_coverage_and_error(views):
    calibrator = Calibrator(camera="test-cam", target_views=6, min_views=4)
    progress = [calibrator.add_frame(frame) for frame in views[:6]]
    assert [p.views for p in progress] == [1, 2, 3, 4, 5, 6]
    assert all(p.taken and p.corners >= cal.MIN_CORNERS for p in progress)
    assert progress[0].error_px is None and progress[3].error_px is not None
    assert 0 < progress[0].coverage < progress[-1].coverage <= 1
    assert progress[-1].done and not progress[-2].done
    line = progress[-1].line()
    assert "views 6/6" in line and "covered" in line and " px" in line


def test_a_view_like_one_already_taken_is_not_taken(views):
    calibrator = Calibrator(target_views=10, min_views=3)
    assert calibrator.add_frame(views[0]).taken
    again = calibrator.add_frame(views[0])
    assert not again.taken and again.found and "too like view 1" in again.reason
    blank = calibrator.add_frame(np.full_like(views[0], 200))
    assert not blank.found and blank.reason == "board not found"
    assert calibrator.add_frame(views[1]).views == 2


def test_too_few_views_are_refused_with_the_numbers(views):
    calibrator = Calibrator(target_views=12, min_views=10)
    for frame in views[:5]:
        calibrator.add_frame(frame)
    with pytest.raises(TooFewViews, match=r"only 5 views .* 10 are needed"):
        calibrator.result()


def test_an_error_above_the_limit_is_refused_with_the_numbers(views):
    calibrator = Calibrator(target_views=8, min_views=8, max_error_px=0.01)
    for frame in views[:8]:
        calibrator.add_frame(frame)
    with pytest.raises(ErrorTooHigh, match=r"reprojection error \d+\.\d\d px is above the limit of 0.01 px"):
        calibrator.result()


def test_another_resolution_is_refused(calibrated, views):
    _, result = calibrated
    with pytest.raises(CalibrationMismatch, match="made at 800x450 and the frames are 640x360"):
        Undistorter(result).apply(np.zeros((360, 640, 3), np.uint8))
    calibrator = Calibrator()
    calibrator.add_frame(views[0])
    with pytest.raises(CalibrationMismatch, match="calibrate at one resolution"):
        calibrator.add_frame(cv2.resize(views[0], (640, 360)))


def test_saved_atomically_per_camera_and_resolution_and_read_back(calibrated, tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    _, result = calibrated
    path = result.save()
    assert path == tmp_path / "calibration" / "test-cam-800x450.json"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left
    back = find_calibration("test-cam", SIZE)
    assert back is not None and np.allclose(back.matrix, result.matrix)
    assert np.allclose(back.distortion, result.distortion) and back.views == result.views
    assert find_calibration("test-cam", (1280, 720)) is None
    assert cal.stored_sizes("test-cam") == [SIZE]
    path.write_text(json.dumps({"camera": "x", "matrix": [[1, 0]]}))
    with pytest.raises(cal.BadCalibration, match="is not a calibration"):
        load_calibration(path)


def test_warp_maps_go_from_the_raw_frame_to_the_straightened_view_in_one_remap(calibrated, views):
    _, result = calibrated
    undistorter = Undistorter(result)
    H = np.array([[0.5, 0.05, 10.0], [-0.04, 0.5, 20.0], [0.0, 0.0002, 1.0]])  # any view of the frame
    size = (300, 200)
    two_steps = cv2.warpPerspective(undistorter.apply(views[1]), H, size, flags=cv2.INTER_LINEAR)
    maps = cal.warp_maps(result, H, size, undistorter.matrix)
    one_step = cal.undistort_image(views[1], maps)
    assert one_step.shape == two_steps.shape
    inside = cv2.erode((two_steps > 0).all(axis=2).astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    difference = np.abs(one_step.astype(int) - two_steps.astype(int))[inside]
    assert inside.mean() > 0.5 and np.median(difference) <= 2 and np.percentile(difference, 99) < 20
    # and it is not the plain warp of the raw frame
    raw = cv2.warpPerspective(views[1], H, size, flags=cv2.INTER_LINEAR)
    assert np.abs(raw.astype(int) - two_steps.astype(int))[inside].mean() > \
        2 * np.abs(one_step.astype(int) - two_steps.astype(int))[inside].mean()


# --- the source wrapper --------------------------------------------------------------------

def _line_frame(rays: np.ndarray) -> np.ndarray:
    """A white sheet with one straight black line across it near the top edge of the view,
    seen through the known lens: the lens bends the line."""
    plane = np.full((400, 1000), 255, np.uint8)
    plane[118:122, :] = 0  # a 4 mm line along y = 120 mm, at 1 px/mm
    R, t = _pose(0, 0, 0, (0.0, -0.55), 400, (500, 120))
    return cv2.cvtColor(_render_plane(plane, 1.0, R, t, rays, background=255), cv2.COLOR_GRAY2BGR)


def _line_bend_px(image: np.ndarray) -> float:
    """How far the dark line's centre strays from a straight line, across the frame, px."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float64)
    dark = 255 - grey
    xs, ys = [], []
    for x in range(40, image.shape[1] - 40, 10):
        column = dark[:, x]
        if column.max() > 100:
            xs.append(x)
            ys.append(float((column * np.arange(len(column))).sum() / column.sum()))
    assert len(xs) > 50
    fit = np.polyfit(xs, ys, 1)
    return float(np.abs(np.polyval(fit, xs) - ys).max())


def test_the_source_wrapper_straightens_a_bent_line(calibrated, undistorted_rays, tmp_path, monkeypatch):
    from vision.sources import open_source

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    _, result = calibrated
    frame = _line_frame(undistorted_rays)
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), frame)
    path = result.save(tmp_path / "cam.json")
    with open_source(f"dir:{folder}") as plain:
        raw = next(plain).image
    with open_source(f"dir:{folder}", calibration=str(path)) as source:
        straight = next(source)
        assert source.calibration is result or np.allclose(source.calibration.matrix, result.matrix)
    assert straight.index == 0 and straight.image.shape == raw.shape
    assert _line_bend_px(raw) > 8.0
    assert _line_bend_px(straight.image) < 1.5


def test_the_wrapper_refuses_a_calibration_of_another_resolution(calibrated, tmp_path):
    from vision.sources import open_source

    _, result = calibrated
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.zeros((360, 640, 3), np.uint8))
    path = result.save(tmp_path / "cam.json")
    with open_source(f"dir:{folder}", calibration=str(path)) as source, \
            pytest.raises(CalibrationMismatch, match="made at 800x450 and the frames are 640x360"):
        source.read()


def test_a_camera_with_a_stored_calibration_is_straightened_and_one_without_is_not(
        calibrated, tmp_path, monkeypatch):
    from vision.sources.base import FrameSource
    from vision.sources.calibrated import CalibratedSource

    class Still(FrameSource):
        def __init__(self, image, name):
            super().__init__()
            self.name, self.image = name, image

        def _read(self):
            return (self.image, 0.0, None) if self._index < 2 else None

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    _, result = calibrated
    image = np.random.default_rng(1).integers(0, 255, (SIZE[1], SIZE[0], 3), np.uint8)
    with CalibratedSource(Still(image, "cv:3")) as source:
        frames = list(source)
        assert source.calibration is None
    assert len(frames) == 2 and frames[0].image is image  # untouched, as without calibration
    Calibration("cv:3", SIZE, result.matrix, result.distortion, result.error_px, result.views,
                result.coverage).save()
    with CalibratedSource(Still(image, "cv:3")) as source:
        frames = list(source)
        assert source.calibration is not None
    assert np.array_equal(frames[1].image, Undistorter(result).apply(image))
    # a calibration stored for another resolution only: frames pass as they are, with a note
    small = cv2.resize(image, (640, 360))
    with CalibratedSource(Still(small, "cv:3")) as source:
        frames = list(source)
        assert source.calibration is None and "800x450" in source.note
    assert frames[0].image is small


# --- the commands --------------------------------------------------------------------------

def test_board_pdf_is_written_and_not_overwritten_without_force(tmp_path, capsys):
    out = tmp_path / "board.pdf"
    assert main(["camera", "board", "-o", str(out), "--paper", "letter"]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    assert "36 mm" in capsys.readouterr().out
    assert main(["camera", "board", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "exists" in err and "--force" in err
    assert out.read_bytes() == data
    assert main(["camera", "board", "-o", str(out), "--force"]) == 0
    assert [p.name for p in tmp_path.iterdir()] == ["board.pdf"]  # no temporary file left


@pytest.mark.parametrize("target, words", [
    ("folder", "is a folder"),
    ("/dev/null", "not a regular file"),
    ("missing/board.pdf", "no such folder"),
])
def test_board_refuses_bad_outputs_in_one_line(tmp_path, capsys, target, words):
    (tmp_path / "folder").mkdir()
    path = target if target.startswith("/") else str(tmp_path / target)
    assert main(["camera", "board", "-o", path, "--force"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_board_checks_the_folder_is_writable_before_drawing(tmp_path, capsys, monkeypatch):
    locked = tmp_path / "locked"
    locked.mkdir()
    real_access = os.access
    # as a user without write permission sees it (root may write anywhere, so say it here)
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: False if Path(p) == locked
                        else real_access(p, mode, **kw))
    drawn = []
    monkeypatch.setattr(cal, "board_image", lambda *a: drawn.append(a))
    assert main(["camera", "board", "-o", str(locked / "b.pdf")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot write in the folder" in err and not drawn
    assert list(locked.iterdir()) == []


def test_calibrate_from_a_folder_of_views_saves_the_calibration(views, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path / "data"))
    folder = tmp_path / "views"
    folder.mkdir()
    for i, frame in enumerate(views):
        cv2.imwrite(str(folder / f"{i:02d}.png"), frame)
    args = ["camera", "calibrate", "--source", f"dir:{folder}", "--camera", "test-cam"]
    assert main([*args, "--views", "12", "--min-views", "8"]) == 0
    out = capsys.readouterr().out
    assert "views 12/12" in out and "reprojection error" in out and "covered" in out
    saved = tmp_path / "data" / "calibration" / "test-cam-800x450.json"
    assert saved.is_file() and str(saved) in out
    before = saved.read_bytes()
    # refusals: one line, exit 2, the stored calibration untouched
    assert main([*args, "--views", "12", "--min-views", "8", "--max-error", "0.01"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "above the limit of 0.01 px" in err
    for i in range(6, len(views)):
        (folder / f"{i:02d}.png").unlink()
    assert main([*args, "--views", "12", "--min-views", "8"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "only 6 views" in err and "8 are needed" in err
    assert saved.read_bytes() == before


def test_calibrate_needs_a_camera_name_for_a_folder_and_sane_numbers(tmp_path, capsys):
    folder = tmp_path / "views"
    folder.mkdir()
    cv2.imwrite(str(folder / "a.png"), np.zeros((10, 10, 3), np.uint8))
    assert main(["camera", "calibrate", "--source", f"dir:{folder}"]) == 2
    assert "--camera" in capsys.readouterr().err
    assert main(["camera", "calibrate", "--source", f"dir:{folder}", "--camera", "x", "--views", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1


def test_camera_module_is_lazy_about_opencv():
    import subprocess
    import sys

    code = ("import sys, companion.cli as c; c.build(); "
            "print('cv2' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).parents[2])
    assert out.stdout.strip() == "False"
