"""Running the kiosk's clock in tests."""

from __future__ import annotations

import time
from collections.abc import Callable


def pump_until(pump: Callable[..., None], condition: Callable[[], object], seconds: float = 5.0) -> bool:
    """Run Kivy's clock (`pump`) frame by frame until `condition()`: for work on another
    thread or process that needs real time to pass. The bound is generous, never a measure."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        pump(1)
    return bool(condition())
