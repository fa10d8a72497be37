"""Kivy's start-up settings for the kiosk, applied before Kivy creates its window.

Kept out of the package's __init__ so that `kiosk.boot` imports the same way whether the
package is installed normally or found as a plain directory.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The process tuning lives with the runtime (the vision process uses it too); the kiosk
# calls it before numpy, OpenCV or Kivy load.
from runtime.memory import release_memory, tune_process  # noqa: F401

#: The official Raspberry Pi 7" display.
SCREEN_SIZE = (800, 480)


class KivyAlreadyStarted(RuntimeError):
    """Kivy's window exists already, so its configuration can no longer change."""


def configure(size: tuple[int, int] = SCREEN_SIZE, *, fullscreen: bool = False,
              kivy_home: str | Path | None = None, log_level: str = "warning",
              max_fps: int = 30) -> None:
    """Set Kivy up for the kiosk before its window is created: window size (or full
    screen), no command-line parsing by Kivy, touch-only input niceties, and in full
    screen a docked on-screen keyboard and no quitting on Escape. `max_fps`: 30 is
    plenty for a referee's screen and leaves the Pi's cores to the camera; tests pass
    0 (no pacing) so their clock frames do not wait for real time."""
    if "kivy.core.window" in sys.modules:
        raise KivyAlreadyStarted("configure() must run before Kivy's window is imported")
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    if kivy_home is not None:
        os.environ["KIVY_HOME"] = str(kivy_home)
    from kiosk.kivysetup import prepare_environment, quiet_cutbuffer

    prepare_environment()  # KIVY_HOME under the data directory, SDL2's clipboard
    from kivy.config import Config

    quiet_cutbuffer()

    Config.set("kivy", "log_level", log_level)
    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "0" if fullscreen else "1")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("graphics", "show_cursor", "0" if fullscreen else "1")
    Config.set("graphics", "maxfps", str(max_fps))
    # A right click must not leave multitouch-simulation dots on a desktop.
    Config.set("input", "mouse", "mouse,multitouch_on_demand")
    if fullscreen:
        Config.set("kivy", "exit_on_escape", "0")
        Config.set("kivy", "keyboard_mode", "systemanddock")
