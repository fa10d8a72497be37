"""`companion kiosk`: the touchscreen app (docs/kiosk.md).

    companion kiosk [--source SOURCE] [--fullscreen] [--db PATH] [--pins FILE]

On the Pi, systemd runs it full screen on the official display with the Pi camera; on a
desktop it opens an 800x480 window and the default camera is the synthetic table, so it
can be tried anywhere. Kivy is imported only when the command runs (`companion --help`
stays quick), and with no display to draw on it says so in one line instead of Kivy's
pages of log.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from companion.commands._args import regular_file
from companion.errors import CompanionError
from companion.storage import ENV_VAR

# SDL video drivers that draw without a window system (the Pi's console, a framebuffer).
CONSOLE_DRIVERS = frozenset({"kmsdrm", "fbcon", "directfb", "rpi", "vivante", "offscreen", "dummy"})


class NoDisplay(CompanionError, RuntimeError):
    """There is no screen for the kiosk to draw on."""


def has_display(env: dict[str, str] | None = None) -> bool:
    """An X or Wayland display, or an SDL driver that draws on the console (the Pi's
    kmsdrm under systemd)."""
    env = dict(os.environ) if env is None else env
    if env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"):
        return True
    return env.get("SDL_VIDEODRIVER", "").strip().lower() in CONSOLE_DRIVERS


def _size(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT in pixels (argparse reports a bad one)."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a window size is WIDTHxHEIGHT, like 800x480; got {text!r}") \
            from None
    if not (320 <= w <= 7680 and 240 <= h <= 4320):
        raise argparse.ArgumentTypeError(f"a window size from 320x240 to 7680x4320, got {text!r}")
    return w, h


def check_source(uri: str) -> None:
    """A camera source that can be checked without taking a camera: a file or folder is
    opened and closed (its first image read), the rest only parsed. One-line errors."""
    text = uri.strip()
    scheme = text.partition(":")[0].lower()
    if text.lower() in ("synthetic", "none", "picamera2"):
        return
    if scheme in ("file", "dir"):
        from vision.sources import open_source

        with open_source(text) as source:
            next(iter(source), None)  # the first image is read: a damaged one is said now
            return
    if scheme not in ("cv", "picamera2", "synthetic"):
        from vision.sources.base import UnknownSource

        raise UnknownSource(f"unknown camera source {uri!r}: use synthetic, picamera2, cv:N, "
                            f"file:PATH, dir:PATH or none")


def _preflight(args: argparse.Namespace):
    """Everything that can be wrong before a window opens, each as one line (and before
    Kivy is imported, so no Kivy log comes first): the database, then the pin map and
    the camera source (given here, or with --check also those of the kiosk settings)."""
    from companion.storage import Store
    from kiosk import prefs

    store = Store(args.db)
    try:
        source, pins = args.source, args.pins
        if args.check:
            saved = prefs.load(prefs.default_dir(store.path) / prefs.FILE_NAME)
            source, pins = source or saved.camera, pins or saved.pins
        if pins:
            from hardware.pinmap import load_pinmap

            load_pinmap(regular_file(pins, "pin map"))
        if source:
            check_source(source)
        if not has_display():
            raise NoDisplay("no display to open the kiosk on: set DISPLAY (a desktop), or run it "
                            "on the Pi's screen (SDL_VIDEODRIVER=kmsdrm, as the systemd unit does)")
    except BaseException:
        store.close()
        raise
    return store


def run(args: argparse.Namespace) -> int:
    started = time.monotonic()
    from kiosk.boot import configure, tune_process

    tune_process()  # before numpy, OpenCV and Kivy load: the memory budget (docs/kiosk.md)
    store = _preflight(args)
    try:
        configure(args.size, fullscreen=args.fullscreen)
        from kiosk.app import CompanionApp

        app = CompanionApp(store, source=args.source, pins=args.pins,
                           panel="none" if args.no_panel else "auto")
        if args.check:
            return _check(app, started)
        app.run()
    finally:
        store.close()
    return 0


def _check(app, started: float) -> int:
    """Start, draw the home screen once, print how long that took (from the process's
    start) and the memory in use, and quit (for the start-up budget, docs/kiosk.md)."""
    from kivy.clock import Clock

    shown: dict[str, float] = {}

    def drawn(*_: object) -> None:
        shown["at"] = time.monotonic()
        app.stop()

    def first_frame(*_: object) -> None:
        Clock.schedule_once(drawn, 0)  # the frame after the home screen was laid out

    app.bind(on_start=lambda *_: Clock.schedule_once(first_frame, 0))
    app.run()
    if "at" not in shown:
        print("companion kiosk: the home screen was never drawn", file=sys.stderr)
        return 1
    since = _process_age(shown["at"]) or shown["at"] - started
    print(f"home screen drawn {since:.2f} s after the process started; memory "
          f"{_rss_mb():.0f} MB (peak {_peak_mb():.0f} MB)")
    return 0


def _process_age(at: float) -> float | None:
    """Seconds from this process's start to the monotonic time `at` (Linux), else None."""
    try:
        with open("/proc/self/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open("/proc/uptime", encoding="ascii") as f:
            uptime = float(f.read().split()[0])
    except (OSError, IndexError, ValueError):
        return None
    started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time since boot
    return uptime - started - (time.monotonic() - at)


def _rss_mb() -> float:
    """Resident memory of this process in MB (Linux), 0 elsewhere."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _peak_mb() -> float:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KB on Linux
    return peak / 1024


def register(cli) -> None:
    p = cli.command("kiosk", "run the touchscreen app (full screen on the Pi's display)", run)
    p.add_argument("--source", metavar="SOURCE",
                   help="camera source: synthetic (the synthetic table of the game played), "
                        "picamera2, cv:N (a USB camera), file:PATH (a video), dir:PATH (images), or none "
                        "(default: the kiosk settings, else synthetic)")
    p.add_argument("--fullscreen", action="store_true",
                   help="full screen, no cursor, on-screen keyboard (the Pi's touchscreen)")
    p.add_argument("--db", metavar="PATH",
                   help=f"the database file (default: ${ENV_VAR}, else companion.db in the user "
                        f"data directory)")
    p.add_argument("--pins", metavar="FILE",
                   help="a TOML pin map: drive a real panel of buttons and LEDs with gpiozero "
                        "(default: the kiosk settings; without one the keyboard plays the panel)")
    p.add_argument("--no-panel", action="store_true",
                   help="no panel at all, not even the keyboard one")
    p.add_argument("--size", type=_size, default=(800, 480), metavar="WxH",
                   help="window size when not full screen (default 800x480, the official display)")
    p.add_argument("--check", action="store_true",
                   help="start, draw the home screen once, print the start-up time and memory, quit")
