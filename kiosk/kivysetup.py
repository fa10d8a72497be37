"""Where Kivy keeps its files, and a quiet start: called by `kiosk.boot.configure`
before Kivy is imported.

Kivy writes its config.ini and logs into `$KIVY_HOME` (by default `~/.kivy`); the kiosk
keeps them in the companion's data directory instead (`<data dir>/kivy`), with everything
else it stores. Kivy also looks for a clipboard and for an X "cut buffer" (middle-click
paste) through the xclip and xsel programs; where they are not installed (the Pi's kiosk,
a test machine) it logs a CRITICAL line with a traceback per program at every start,
although nothing is wrong: the clipboard is SDL2's, and a touchscreen has no middle
button. The clipboard provider is set to SDL2 and that one message is filtered out.
"""

from __future__ import annotations

import logging
import os
from collections.abc import MutableMapping
from pathlib import Path

#: Kivy's clipboard provider: SDL2's, which the kiosk's window already uses.
CLIPBOARD = "sdl2"
#: Kivy's image loaders: its own, DDS and SDL2's (PNG, JPEG: every picture the kiosk
#: shows). Kivy's default list also registers Pillow's, after SDL2's so never the one
#: used, yet loaded at start: 1.3 MB of the kiosk's memory and Pillow's libraries.
IMAGE_PROVIDERS = "tex,dds,sdl2"
_CUTBUFFER_MESSAGE = "Cutbuffer: Unable to find any valuable Cutbuffer provider"


def kivy_home() -> Path:
    """Kivy's folder under the companion's data directory."""
    from companion.paths import data_dir

    return data_dir() / "kivy"


def prepare_environment(env: MutableMapping[str, str] | None = None) -> dict[str, str]:
    """Set KIVY_HOME and KIVY_CLIPBOARD unless already set (a test or the systemd unit may
    set them); returns what it set. Must run before `import kivy`."""
    env = os.environ if env is None else env
    done = {}
    if not env.get("KIVY_HOME"):
        home = kivy_home()
        home.mkdir(parents=True, exist_ok=True)  # Kivy makes only the last folder
        env["KIVY_HOME"] = done["KIVY_HOME"] = str(home)
    if not env.get("KIVY_CLIPBOARD"):
        env["KIVY_CLIPBOARD"] = done["KIVY_CLIPBOARD"] = CLIPBOARD
    if not env.get("KIVY_IMAGE"):
        env["KIVY_IMAGE"] = done["KIVY_IMAGE"] = IMAGE_PROVIDERS
    return done


class _NoCutbuffer(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith(_CUTBUFFER_MESSAGE)


def quiet_cutbuffer() -> None:
    """Drop Kivy's 'no cut buffer provider' message (see the module's docstring)."""
    logger = logging.getLogger("kivy")
    if not any(isinstance(f, _NoCutbuffer) for f in logger.filters):
        logger.addFilter(_NoCutbuffer())
