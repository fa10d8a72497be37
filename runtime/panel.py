"""The table's panel: opening it from the settings, the pin test and the LED sequence.

`open_panel` picks the panel (a gpiozero panel from the pin map, else the keyboard panel).
`PinTest` counts each button's presses instead of playing them, and lights each output in
turn; it is driven by `tick(now)` from whoever owns the clock (the kiosk's UI thread), so
it never sleeps and tests give it the times they want.
"""

from __future__ import annotations

import logging
from typing import Any

from companion.errors import CompanionError

log = logging.getLogger(__name__)


def open_panel(choice: Any, pins: str | None) -> tuple[Any, str]:
    """The panel for `choice` ("auto": a gpiozero panel when `pins` names a pin map, else
    the keyboard panel; "keyboard"; "none" or None; or a panel object to use as it is),
    and a warning for the screen ("" when all is well)."""
    if choice in (None, "none"):
        return None, ""
    if choice not in ("auto", "keyboard"):
        return choice, ""
    warning = ""
    try:
        if choice == "auto" and pins:
            from hardware.panel import Panel
            from hardware.pinmap import load_pinmap

            return Panel(load_pinmap(pins)), ""
    except (ImportError, CompanionError) as exc:
        warning = f"The panel is not available ({exc}); the keyboard works instead"
        log.warning("panel: %s", exc)
    try:
        from hardware.keyboard import KeyboardPanel
    except ImportError as exc:
        log.info("no keyboard panel: %s", exc)
        return None, warning
    return KeyboardPanel(), warning


class PinTest:
    """The pin test of one panel: `presses` (part name -> presses seen), `lit` (the output
    lit by the sequence now, "" when none)."""

    def __init__(self, panel: Any) -> None:
        self.panel = panel
        self.presses: dict[str, int] = {}
        self.lit = ""
        self._outputs: list[tuple[Any, Any]] = []
        self._next = 0
        self._due: float | None = None
        self._step = 0.5
        panel.drain()

    def take_presses(self) -> bool:
        """Count the presses waiting on the panel; True when there were any."""
        events = list(self.panel.drain())
        for event in events:
            part = self.panel.part(event)
            name = part.name if part is not None else str(event)
            self.presses[name] = self.presses.get(name, 0) + 1
        return bool(events)

    def light_outputs(self, now: float, step: float = 0.5) -> None:
        """Light each LED (and beep the buzzer) in turn, `step` seconds each, from `now`."""
        self._outputs = list(self.panel.outputs())
        self._next = 0
        self._step = step
        self._advance(now)

    @property
    def lighting(self) -> bool:
        return self._due is not None

    def tick(self, now: float) -> bool:
        """Move the sequence on if its step is over; True when what is lit changed."""
        if self._due is None or now < self._due:
            return False
        self._advance(now)
        return True

    def advance(self) -> bool:
        """The next output now (for a caller whose clock fires every step); False once
        the sequence has ended."""
        if self._due is None:
            return False
        self._advance(self._due)
        return self._due is not None

    def _advance(self, now: float) -> None:
        for _, device in self._outputs:
            device.off()
        if self._next >= len(self._outputs):
            self.lit, self._due = "", None
            return
        part, device = self._outputs[self._next]
        device.on()
        self.lit = part.name
        self._next += 1
        self._due = now + self._step

    def stop(self) -> None:
        """End the test: nothing lit."""
        self._due = None
        self.lit = ""
        self.panel.all_off()
