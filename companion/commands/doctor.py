"""`companion doctor`: what a user with a Pi runs and pastes back. One line per fact:
the board, the OS, Python, numpy and OpenCV, whether picamera2 imports, whether the
camera opens, how fast recognition runs there, and how much memory it takes.

Recognition and memory are measured in a child process that does what the kiosk's
camera thread does (the unit's environment, the default game's recognizer and templates,
frames from the camera, or from the synthetic table when there is none) and nothing else,
so its peak RSS is the kiosk's camera-and-recognition share without Kivy's window; when a
kiosk is running, its own RSS is read from /proc as well. Nothing here raises: every
failure is a line saying what failed (docs/pi.md).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from companion import __version__
from companion.errors import CompanionError

MODEL = Path("/proc/device-tree/model")
GAME = "yokir"  # the kiosk's default game: its deck's templates and its mat
#: The kiosk unit's environment (systemd/table-companion-kiosk.service.in), so the child
#: allocates as the kiosk does.
KIOSK_ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MALLOC_ARENA_MAX": "2",
             "MALLOC_MMAP_THRESHOLD_": "1048576", "MALLOC_TRIM_THRESHOLD_": "33554432",
             "OPENCV_LOG_LEVEL": "ERROR",
             "LIBCAMERA_LOG_LEVELS": "*:ERROR"}
MARK = "DOCTOR "  # the child's result line starts with this


class BadFrames(CompanionError, ValueError):
    """--frames out of range."""


def board_model(path: Path = MODEL) -> str:
    """The device tree's model string ("Raspberry Pi 5 Model B Rev 1.0"), or "not a
    Raspberry Pi" when there is none or it names another board."""
    try:
        model = path.read_bytes().rstrip(b"\0").decode("utf-8", "replace").strip()
    except OSError:
        return "not a Raspberry Pi (no /proc/device-tree/model)"
    return model if "raspberry pi" in model.lower() else f"not a Raspberry Pi ({model})"


def os_line() -> str:
    try:
        name = platform.freedesktop_os_release().get("PRETTY_NAME", "unknown Linux")
    except OSError:
        name = platform.system()
    bits = struct.calcsize("P") * 8
    return f"{name}, kernel {platform.release()}, {platform.machine()}, {bits}-bit userland"


def memory_line(meminfo: Path = Path("/proc/meminfo")) -> str:
    fields = {}
    try:
        for line in meminfo.read_text().splitlines():
            key, _, rest = line.partition(":")
            fields[key] = int(rest.split()[0]) / 1024
    except (OSError, ValueError, IndexError):
        return "unknown"
    total, free = fields.get("MemTotal"), fields.get("MemAvailable")
    return f"{total:.0f} MB, {free:.0f} MB available" if total and free else "unknown"


def module_version(name: str) -> str:
    """A module's version, or why it cannot be imported (one line)."""
    try:
        module = importlib.import_module(name)
    except ImportError:
        return "not installed"
    except Exception as exc:  # a binary built against another numpy raises ValueError
        return f"does not import: {type(exc).__name__}: {exc}"
    return str(getattr(module, "__version__", "installed"))


def picamera2_line() -> tuple[str, bool]:
    """What importing picamera2 gives, and whether it imported."""
    try:
        module = importlib.import_module("picamera2")
    except ImportError:
        return "not installed (the Pi camera needs Raspberry Pi OS's python3-picamera2)", False
    except Exception as exc:
        return (f"does not import: {type(exc).__name__}: {exc} (see \"picamera2 does not import\" "
                f"in docs/pi.md)"), False
    try:
        from importlib.metadata import version

        where = version("picamera2")
    except Exception:
        where = "installed"
    stand_in = " (pi-check's stand-in)" if getattr(module, "STAND_IN", False) else ""
    jpeg = sys.modules.get("simplejpeg")
    jpeg_words = (f", simplejpeg {getattr(jpeg, '__version__', '?')} from "
                  f"{Path(jpeg.__file__).parent}" if jpeg is not None and jpeg.__file__ else "")
    return f"imports: {where}{stand_in}{jpeg_words}", True


def kiosk_processes(proc: Path = Path("/proc")) -> list[tuple[int, float, float]]:
    """(pid, RSS MB, peak RSS MB) of every running `companion kiosk`."""
    found = []
    for entry in proc.iterdir() if proc.is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
            status = (entry / "status").read_text()
        except OSError:
            continue
        names = [Path(w.decode(errors="replace")).name for w in words[:3]]
        if "kiosk" not in [w.decode(errors="replace") for w in words] or "companion" not in names:
            continue
        values = {k: int(v.split()[0]) / 1024 for k, _, v in
                  (ln.partition(":") for ln in status.splitlines()) if k in ("VmRSS", "VmHWM")}
        found.append((int(entry.name), values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)))
    return found


# ------------------------------------------------------------------ the measuring child

def _status_mb(field: str) -> float:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def child(camera: str | None, frames: int, game: str = GAME) -> dict:
    """Open `camera` (or the synthetic table when it is None or does not open), run the
    recognizer on `frames` frames; the result and this process's memory."""
    import time

    from companion.catalog import game_info
    from vision.mats import get_mat
    from vision.pipeline import Recognizer
    from vision.sources import open_source

    report: dict = {"camera": camera, "camera_error": None}
    source = None
    if camera is not None:
        try:
            source = open_source(camera)
        except Exception as exc:  # no such camera, busy, a broken driver: all "no camera"
            report["camera_error"] = f"{type(exc).__name__}: {exc}".strip()
    if source is None:
        source = open_source(f"synthetic:{game}?frames={frames}")
    report["source"] = source.name
    recognizer = Recognizer(game_info(game).deck or game, get_mat(game))
    times, still, size = [], [], None
    with source:
        for frame in source:
            before = recognizer.still_frames
            began = time.perf_counter()
            recognizer.process(frame.image, frame.t, frame.index)
            times.append(time.perf_counter() - began)
            still.append(recognizer.still_frames > before)  # the last frame again: almost free
            size = (int(frame.image.shape[1]), int(frame.image.shape[0]))
            if len(times) >= frames:
                break
    report.update(frames=len(times), size=size, seconds=times, still=still,
                  rss_mb=_status_mb("VmRSS"), peak_mb=_status_mb("VmHWM"))
    return report


def measure(camera: str | None, frames: int, timeout: float = 600.0) -> dict:
    """Run `child` in a fresh process with the kiosk's environment."""
    code = ("import json, sys; from companion.commands.doctor import MARK, child; "
            f"print(MARK + json.dumps(child({camera!r}, {frames})), flush=True)")
    env = {**os.environ, **KIOSK_ENV}
    try:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"the measuring process took more than {timeout:.0f} s"}
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            return json.loads(line[len(MARK):])
    last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
    return {"error": f"the measuring process failed (exit {proc.returncode}): {last}"}


@dataclass(frozen=True)
class Lines:
    camera: str
    recognition: str
    memory: str


def describe(result: dict, camera: str | None) -> Lines:
    """The camera, recognition and memory lines from a child's report."""
    if "error" in result:
        return Lines("not measured", result["error"], "not measured")
    if camera is None:
        cam = "not tried (--camera none)"
    elif result["camera_error"]:
        cam = f"no camera: {camera} does not open ({result['camera_error']})"
    else:
        cam = f"{result['source']} opens"
    size = "x".join(map(str, result["size"])) if result["size"] else "?"
    # the first frame warms up (and always runs whole); still frames cost almost nothing
    full = sorted(t for i, (t, s) in enumerate(zip(result["seconds"], result["still"], strict=True))
                  if i and not s) or result["seconds"][:1]
    still = sum(result["still"])
    still_seconds = sum(t for t, s in zip(result["seconds"], result["still"], strict=True) if s)
    if full:
        median = full[len(full) // 2]
        where = ("the camera" if not result["camera_error"] and camera else
                 "the synthetic table (no camera)")
        rec = (f"{1 / median:.1f} frames/s ({median * 1000:.0f} ms a frame, median of {len(full)} "
               f"whole {size} frames) from {where}, {result['source']}"
               + (f"; {still} of {result['frames']} frames were the table unchanged, "
                  f"{1000 * still_seconds / still:.0f} ms each" if still else ""))
    else:
        rec = f"no frames came from {result['source']}"
    mem = (f"{result['peak_mb']:.0f} MB peak RSS ({result['rss_mb']:.0f} MB at the end) for the "
           f"kiosk's camera and recognition ({GAME} templates and mat, {size} frames), measured "
           "in a child process without Kivy's window")
    return Lines(cam, rec, mem)


def run(args: argparse.Namespace) -> int:
    if args.frames < 2 or args.frames > 1000:
        raise BadFrames(f"--frames must be from 2 to 1000, got {args.frames}")
    out: list[tuple[str, str]] = [
        ("companion", f"{__version__} ({Path(sys.executable).parent.parent})"),
        ("board", board_model()),
        ("os", os_line()),
        ("ram", memory_line()),
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("numpy", module_version("numpy")),
        ("opencv", module_version("cv2")),
    ]
    for key, value in out:
        _say(key, value)
    picamera, imported = picamera2_line()
    _say("picamera2", picamera)
    if args.camera == "auto":
        camera = "picamera2" if imported else "cv:0"
    else:
        camera = None if args.camera == "none" else args.camera
    lines = describe(measure(camera, args.frames), camera)
    _say("camera", lines.camera)
    _say("recognition", lines.recognition)
    _say("memory", lines.memory)
    kiosks = kiosk_processes()
    _say("kiosk", "; ".join(f"running (pid {pid}): {rss:.0f} MB RSS, {peak:.0f} MB peak"
                            for pid, rss, peak in kiosks)
         or "not running (run doctor again while it runs to read its own memory)")
    return 0


def _say(key: str, value: str) -> None:
    print(f"{key + ':':<13}{value}", flush=True)


def register(cli) -> None:
    p = cli.command("doctor", "print the board, versions, camera, recognition speed and memory "
                              "(paste it into a bug report)", run)
    p.add_argument("--frames", type=int, default=20, metavar="N",
                   help="frames to time recognition on (default 20)")
    p.add_argument("--camera", default="auto", metavar="SRC",
                   help="the camera to try: auto (picamera2 if it imports, else cv:0), none (the "
                        "synthetic table only), or a source name such as cv:1")
