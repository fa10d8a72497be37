"""`companion doctor`: runs without a Pi and without a camera, says so line by line, and
never shows a traceback."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.commands import doctor

ROOT = Path(__file__).resolve().parent.parent
KEYS = ["companion", "board", "os", "ram", "python", "numpy", "opencv", "picamera2", "camera",
        "recognition", "memory", "kiosk"]

NO_CAMERA_PICAMERA2 = '''\
class Picamera2:
    def __init__(self, camera_num=0, **kwargs):
        raise IndexError("list index out of range")
'''


def run_doctor(tmp_path: Path, picamera2_init: str | None, *args: str) -> subprocess.CompletedProcess:
    """`companion doctor` in a fresh process; with `picamera2_init`, a picamera2 package with
    that __init__.py comes first on the path (the camera is then absent on any machine)."""
    env = dict(os.environ)
    if picamera2_init is not None:
        (tmp_path / "picamera2").mkdir()
        (tmp_path / "picamera2" / "__init__.py").write_text(picamera2_init)
        env["PYTHONPATH"] = os.pathsep.join([str(tmp_path), str(ROOT)])
    return subprocess.run([sys.executable, "-m", "companion", "doctor", *args], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)


def lines_by_key(stdout: str) -> dict[str, str]:
    return {key.rstrip(":"): value.strip() for key, _, value in
            (line.partition(":") for line in stdout.splitlines())}


def test_doctor_without_a_pi_or_camera_prints_every_line(tmp_path):
    proc = run_doctor(tmp_path, NO_CAMERA_PICAMERA2, "--frames", "3")
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert [line.partition(":")[0] for line in proc.stdout.splitlines()] == KEYS
    got = lines_by_key(proc.stdout)
    if not doctor.MODEL.exists():
        assert got["board"].startswith("not a Raspberry Pi")
    assert got["python"].startswith(".".join(map(str, sys.version_info[:2])))
    import cv2
    import numpy

    assert got["numpy"] == numpy.__version__ and got["opencv"] == cv2.__version__
    assert got["picamera2"].startswith("imports")
    assert got["camera"].startswith("no camera: picamera2 does not open")
    assert "list index out of range" in got["camera"]
    assert "from the synthetic table (no camera), synthetic:yokir" in got["recognition"]
    assert "frames/s" in got["recognition"] and "1280x720" in got["recognition"]
    assert "MB peak RSS" in got["memory"] and "without Kivy's window" in got["memory"]


def test_doctor_refuses_too_few_frames_in_one_line(tmp_path):
    proc = run_doctor(tmp_path, None, "--frames", "1")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--frames must be from 2 to 1000, got 1" in proc.stderr


def test_board_model_reads_the_device_tree(tmp_path):
    model = tmp_path / "model"
    model.write_bytes(b"Raspberry Pi 5 Model B Rev 1.0\0")
    assert doctor.board_model(model) == "Raspberry Pi 5 Model B Rev 1.0"
    model.write_bytes(b"Pine64 RockPro64\0")
    assert doctor.board_model(model) == "not a Raspberry Pi (Pine64 RockPro64)"
    assert doctor.board_model(tmp_path / "missing").startswith("not a Raspberry Pi")


def test_picamera2_built_against_another_numpy_is_one_line(tmp_path, monkeypatch):
    package = tmp_path / "picamera2"
    package.mkdir()
    (package / "__init__.py").write_text(
        'raise ValueError("numpy.dtype size changed, may indicate binary incompatibility")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    line, imported = doctor.picamera2_line()
    assert not imported
    assert line.startswith("does not import: ValueError: numpy.dtype size changed")
    assert "docs/pi.md" in line


def test_recognition_speed_counts_whole_frames_only():
    result = {"camera_error": None, "source": "picamera2:0", "size": [1280, 720], "frames": 5,
              "seconds": [0.9, 0.1, 0.2, 0.3, 0.002], "still": [False, False, False, False, True],
              "rss_mb": 150.0, "peak_mb": 160.0}
    lines = doctor.describe(result, "picamera2")
    assert lines.camera == "picamera2:0 opens"
    # the first frame warms up; of 0.1, 0.2, 0.3 the median is 0.2 s: 5 frames/s
    assert lines.recognition.startswith("5.0 frames/s (200 ms a frame, median of 3 whole 1280x720 "
                                        "frames) from the camera, picamera2:0")
    assert "1 of 5 frames were the table unchanged, 2 ms each" in lines.recognition
    assert lines.memory.startswith("160 MB peak RSS (150 MB at the end)")
    failed = doctor.describe({"error": "the measuring process took more than 600 s"}, "cv:0")
    assert failed.recognition == "the measuring process took more than 600 s"


def test_running_kiosks_are_found_in_proc(tmp_path):
    def process(pid: int, argv: list[str], rss_kb: int) -> None:
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (tmp_path / str(pid) / "status").write_text(f"Name:\tx\nVmHWM:\t{rss_kb + 1024} kB\n"
                                                    f"VmRSS:\t{rss_kb} kB\n")

    process(101, ["/opt/tc/.venv/bin/python", "/opt/tc/.venv/bin/companion", "kiosk", "--fullscreen"],
            200 * 1024)
    process(102, ["/opt/tc/.venv/bin/python", "/opt/tc/.venv/bin/companion", "demo"], 50 * 1024)
    process(103, ["/usr/bin/vim", "kiosk"], 10 * 1024)
    (tmp_path / "self").mkdir()
    assert doctor.kiosk_processes(tmp_path) == [(101, 200.0, 201.0)]


@pytest.mark.parametrize("meminfo, expected", [
    ("MemTotal:  1963264 kB\nMemFree: 1 kB\nMemAvailable:  1048576 kB\n", "1917 MB, 1024 MB available"),
    ("nonsense\n", "unknown"),
])
def test_memory_line(tmp_path, meminfo, expected):
    (tmp_path / "meminfo").write_text(meminfo)
    assert doctor.memory_line(tmp_path / "meminfo") == expected
