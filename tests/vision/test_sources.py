"""Frame sources: names, options, files and folders, the Pi camera (through a fake
picamera2), one-line errors for every bad name."""

from __future__ import annotations

import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.errors import BadOption, CompanionError
from vision.sources import CameraUnavailable, SourceNotFound, UnknownSource, open_source
from vision.sources.picamera import NOT_INSTALLED

FAKE = Path(__file__).parent / "fake_picamera2"


def _image(value: int, size=(40, 30)) -> np.ndarray:
    image = np.zeros((size[1], size[0], 3), np.uint8)
    image[:, :, 2] = value
    return image


@pytest.fixture
def fake_picamera2(monkeypatch):
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    monkeypatch.syspath_prepend(str(FAKE))
    import picamera2

    picamera2.instances.clear()
    yield picamera2
    sys.modules.pop("picamera2", None)


def test_a_folder_gives_its_images_in_name_order_with_times(tmp_path):
    for name, value in (("b.png", 20), ("a.png", 10), ("c.jpg", 30)):
        cv2.imwrite(str(tmp_path / name), _image(value))
    (tmp_path / "notes.txt").write_text("not an image")
    with open_source(f"dir:{tmp_path}", fps=10) as src:
        frames = list(src)
    assert [f.index for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == pytest.approx([0.0, 0.1, 0.2])
    assert [int(f.image[0, 0, 2]) for f in frames[:2]] == [10, 20]
    assert abs(int(frames[2].image[0, 0, 2]) - 30) <= 2  # a JPEG
    assert all(f.truth is None for f in frames)


def test_an_image_file_is_one_frame_or_as_many_as_asked(tmp_path):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), _image(99))
    with open_source(f"file:{path}") as src:
        assert len(list(src)) == 1
    with open_source(f"file:{path}", frames=3, fps=2) as src:
        frames = list(src)
    assert [f.t for f in frames] == [0.0, 0.5, 1.0]
    assert frames[2].image.shape == (30, 40, 3)


def test_a_video_file_gives_its_frames_with_the_video_clock(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(5):
        writer.write(_image(40 * i, (64, 48)))
    writer.release()
    with open_source(f"file:{path}") as src:
        frames = list(src)
    assert len(frames) == 5
    assert frames[0].image.shape == (48, 64, 3)
    assert frames[-1].t == pytest.approx(0.4, abs=0.02)
    assert int(frames[3].image[10, 10, 2]) == pytest.approx(120, abs=8)


def test_closing_a_source_ends_it_and_twice_is_harmless(tmp_path):
    path = tmp_path / "one.png"
    cv2.imwrite(str(path), _image(1))
    src = open_source(f"file:{path}", frames=5)
    next(src)
    src.close()
    src.close()
    assert src.closed
    with pytest.raises(CompanionError, match="closed"):
        next(src)


def test_the_pi_camera_through_picamera2(fake_picamera2):
    with open_source("picamera2", width=64, height=48, fps=15) as src:
        frames = [next(src) for _ in range(3)]
        camera = fake_picamera2.instances[0]
        assert camera.started and not camera.stopped
    assert camera.config["main"] == {"size": (64, 48), "format": "RGB888"}
    assert camera.config["controls"] == {"FrameRate": 15.0}
    assert [f.image.shape for f in frames] == [(48, 64, 3)] * 3
    assert [int(f.image[0, 0, 0]) for f in frames] == [0, 1, 2]
    assert [f.t for f in frames] == pytest.approx([0.0, 1 / 30, 2 / 30], abs=1e-6)
    assert camera.stopped and camera.closed, "closing the source releases the camera"


def test_the_pi_camera_number_and_options_come_from_the_name(fake_picamera2):
    with open_source("picamera2:0?width=32&height=24") as src:
        assert next(src).image.shape == (24, 32, 3)
    with pytest.raises(CameraUnavailable, match="could not open Pi camera 1"):
        open_source("picamera2:1")


def test_without_picamera2_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import picamera2 -> ImportError
    with pytest.raises(CameraUnavailable) as err:
        open_source("picamera2")
    assert str(err.value) == NOT_INSTALLED
    assert "sudo apt install python3-picamera2" in NOT_INSTALLED
    assert "--system-site-packages" in NOT_INSTALLED


def test_a_camera_that_is_not_there(monkeypatch):
    class Closed:
        def __init__(self, index):
            self.index = index
            self.released = False

        def isOpened(self):
            return False

        def release(self):
            self.released = True

    monkeypatch.setattr(cv2, "VideoCapture", Closed)
    with pytest.raises(CameraUnavailable, match=r"could not open camera 7 \(cv:7\)"):
        open_source("cv:7")


@pytest.mark.parametrize(("uri", "error", "words"), [
    ("webcam", UnknownSource, "unknown frame source 'webcam'"),
    ("ftp:somewhere", UnknownSource, "unknown frame source 'ftp:somewhere'"),
    ("", UnknownSource, "needs a name"),
    ("cv:front", UnknownSource, "camera index must be a whole number, got 'front'"),
    ("cv:-1", UnknownSource, "camera index must be 0 or more"),
    ("picamera2:x", UnknownSource, "camera index must be a whole number, got 'x'"),
    ("file:", UnknownSource, "file: needs a path"),
    ("file:/no/such/video.mp4", SourceNotFound, "no such file: /no/such/video.mp4"),
    ("dir:/no/such/folder", SourceNotFound, "no such folder: /no/such/folder"),
    ("synthetic:", UnknownSource, "needs a game"),
    ("synthetic:chess", CompanionError, "no mat for game 'chess'"),
    ("synthetic:yokir?speed=2", BadOption, "has no option 'speed'"),
    ("synthetic:yokir?seed=abc", BadOption, "option seed must be a whole number, got 'abc'"),
    ("synthetic:yokir?degrade=awful", BadOption, "unknown degradation preset 'awful'"),
    ("synthetic:yokir?blur=3", BadOption, "degradation blur must be 0 (off) to 1 (strongest), got 3.0"),
    ("synthetic:piktas?players=12", BadOption, "seats 2 to 11 players, got 12"),
])
def test_bad_names_are_one_line_errors_naming_the_value(uri, error, words):
    with pytest.raises(error) as err:
        open_source(uri)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_a_folder_without_images_and_a_file_that_is_a_folder(tmp_path):
    with pytest.raises(SourceNotFound, match="no images"):
        open_source(f"dir:{tmp_path}")
    with pytest.raises(CompanionError, match="is a folder: use dir:"):
        open_source(f"file:{tmp_path}")
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not a png")
    with pytest.raises(CompanionError, match=r"cannot read .* as an image"):
        open_source(f"file:{bad}")


def _lens(size: tuple[int, int]):
    from vision.calibration import Calibration

    w, h = size
    matrix = np.array([[0.7 * w, 0, w / 2], [0, 0.7 * w, h / 2], [0, 0, 1]])
    return Calibration("picamera2-0", size, matrix, np.array([-0.3, 0.1, 0, 0, 0]), 0.3, 12, 0.9)


def test_a_pi_camera_with_a_stored_calibration_gives_straightened_frames(fake_picamera2, tmp_path,
                                                                         monkeypatch):
    from vision.calibration import Undistorter

    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    with open_source("picamera2", width=64, height=48) as src:
        raw = next(src).image
        assert src.calibration is None  # no calibration: frames as they come
    lens = _lens((64, 48))
    lens.save()
    with open_source("picamera2", width=64, height=48) as src:
        first = next(src)
        assert src.calibration is not None and src.calibration.size == (64, 48)
        assert fake_picamera2.instances[-1].started  # the wrapper passes the camera's attributes on
    assert np.array_equal(first.image, Undistorter(lens).apply(raw))
    with open_source("picamera2:0?width=64&calibration=none&height=48") as src:
        assert not hasattr(src, "calibration")  # the camera itself, not wrapped
        assert np.array_equal(next(src).image, raw)
    with open_source("picamera2", width=32, height=24) as src:  # calibrated at 64x48 only
        assert next(src).image.shape == (24, 32, 3)
        assert src.calibration is None and "64x48 only" in src.note


def test_a_calibration_file_for_any_source_and_its_errors(tmp_path):
    image = np.zeros((48, 64, 3), np.uint8)
    image[::4] = 255
    cv2.imwrite(str(tmp_path / "a.png"), image)
    path = _lens((64, 48)).save(tmp_path / "lens.json")
    with open_source(f"file:{tmp_path / 'a.png'}", calibration=str(path)) as src:
        assert not np.array_equal(next(src).image, image)
    with pytest.raises(CompanionError, match="no such calibration file") as err:
        open_source(f"file:{tmp_path / 'a.png'}", calibration=str(tmp_path / "missing.json"))
    assert "\n" not in str(err.value)
    small = _lens((32, 24)).save(tmp_path / "small.json")
    with open_source(f"dir:{tmp_path}", calibration=str(small)) as src, \
            pytest.raises(CompanionError, match="made at 32x24 and the frames are 64x48"):
        next(src)


def test_the_pi_camera_gives_a_yuv420_lores_stream_and_copies_main_only_when_asked(fake_picamera2):
    from vision.sources.base import SourceError

    with open_source("picamera2", width=64, height=48) as src:
        camera = fake_picamera2.instances[0]
        assert camera.config["lores"] == {"size": (64, 48), "format": "YUV420"}  # never below 64x48
    with open_source("picamera2", width=256, height=144) as src:
        camera = fake_picamera2.instances[-1]
        assert camera.config["lores"] == {"size": (128, 72), "format": "YUV420"}
        first = src.read_lazy()
        second = src.read_lazy()
        assert first.lores.shape == (72, 128) and int(first.lores[0, 0]) == 0 and int(second.lores[0, 0]) == 1
        assert camera.arrays == ["lores", "lores"], "the main stream is not copied unless asked for"
        main = second.main()
        assert main.shape == (144, 256, 3) and int(main[0, 0, 0]) == 1
        assert second.main() is main and camera.arrays.count("main") == 1
        with pytest.raises(SourceError, match="after the next frame was read"):
            first.main()
        assert [f.index for f in (first, second)] == [0, 1] and second.t == pytest.approx(1 / 30)
    assert camera.stopped and camera.closed
