"""The keyboard panel: the same panel on a desktop, with keys for buttons.

`KeyboardPanel` is a `Panel` whose pins are gpiozero mock pins: a key going down drives
its button's pin low, going up drives it high, so presses take exactly the path of a real
button (debounce, one event per press, the same `ButtonEvent`s on the same queue) and the
`PanelController` cannot tell the difference. The LEDs and the buzzer are mock outputs
too: the kiosk draws `lit()` on the screen.

Keys are names as strings, as Kivy's `Keyboard.keycode_to_string` gives them ("q",
"enter", "backspace"); this module never imports Kivy. The kiosk binds Window's
`on_key_down` to `key_down(name)` and `on_key_up` to `key_up(name)`; both return True
when the key belongs to the panel, so other keys can go on to the app.

Default map (docs/hardware.md): seat 1 q w e, seat 2 a s d, seat 3 z x c, seat 4 u i o,
seat 5 j k l (pen, page, beetle in Ahyoheek); Enter confirm, Backspace undo, m menu.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping

from gpiozero.pins.mock import MockFactory

from companion.errors import CompanionError
from hardware.panel import ButtonEvent, Panel
from hardware.pinmap import PinMap

SEAT_KEYS = ("qwe", "asd", "zxc", "uio", "jkl")
DEFAULT_KEYS: dict[str, ButtonEvent] = {
    **{key: ButtonEvent("seat", s, i) for s, keys in enumerate(SEAT_KEYS) for i, key in enumerate(keys)},
    "enter": ButtonEvent("confirm"),
    "backspace": ButtonEvent("undo"),
    "m": ButtonEvent("menu"),
}
# other names the same keys go by (Kivy, pygame, browsers)
ALIASES = {"return": "enter", "numpadenter": "enter", "kp_enter": "enter", "\r": "enter",
           "\n": "enter", "\b": "backspace", "back": "backspace"}


class BadKeyMap(CompanionError, ValueError):
    """A key map that maps a key twice or names no key."""


def key_name(key: str) -> str:
    """A key's name as the key map spells it: lower case, aliases folded ("Return" -> "enter")."""
    name = key if len(key) == 1 and not key.isalpha() else key.strip().lower()
    return ALIASES.get(name, name)


class KeyboardPanel(Panel):
    """A panel on mock pins, pressed with keys. `keymap` maps key names to button events
    (default `DEFAULT_KEYS`); keys for buttons the pin map does not have do nothing."""

    def __init__(self, pinmap: PinMap | None = None, keymap: Mapping[str, ButtonEvent] | None = None,
                 *, clock: Callable[[], float] = time.monotonic) -> None:
        self.keymap: dict[str, ButtonEvent] = {}
        for key, event in (DEFAULT_KEYS if keymap is None else keymap).items():
            name = key_name(key)
            if not name:
                raise BadKeyMap(f"key map: an empty key name for {event}")
            if name in self.keymap and self.keymap[name] != event:
                raise BadKeyMap(f"key map: key {name!r} is mapped twice, to {self.keymap[name]} "
                                f"and to {event}")
            self.keymap[name] = event
        # its own MockFactory: the global Device.pin_factory stays as it is
        super().__init__(pinmap, pin_factory=MockFactory(), clock=clock)

    def _pin(self, key: str):  # a MockPin, or None for a key the panel does not use
        event = self.keymap.get(key_name(key))
        button = self.button(event) if event is not None else None
        return button.pin if button is not None else None

    def key_down(self, key: str) -> bool:
        """A key went down: press its button (a held, auto-repeating key presses once)."""
        pin = self._pin(key)
        if pin is None:
            return False
        pin.drive_low()
        return True

    def key_up(self, key: str) -> bool:
        """A key came up: release its button."""
        pin = self._pin(key)
        if pin is None:
            return False
        pin.drive_high()
        return True

    def press(self, key: str) -> bool:
        """Down and up at once, for callers that only see key-down events."""
        return self.key_down(key) and self.key_up(key)

    def keys_for(self, event: ButtonEvent) -> list[str]:
        """The keys that press `event`'s button (for the on-screen legend)."""
        return [key for key, ev in self.keymap.items() if ev == event and self.button(ev) is not None]
