"""The panel at the table: seat buttons and LEDs, confirm/undo/menu buttons, status LEDs
and a buzzer, through gpiozero (docs/hardware.md).

- `pinmap`: the TOML pin map, checked at start-up (`load_pinmap`, `default_pinmap`).
- `panel`: `Panel(pinmap, pin_factory=None)`, the gpiozero devices and a queue of
  `ButtonEvent`s filled from gpiozero's callback threads.
- `controller`: `PanelController(panel, session)`, presses to the session, the session's
  view model to the LEDs and the buzzer; `poll()` from the UI clock or `start()` a thread.
- `keyboard`: `KeyboardPanel`, the same panel on mock pins pressed with keys, for a desktop.

Dependencies point one way: this package uses companion's session port, view model and
engines' actions; companion never imports it (only `companion panel test` does, lazily).
"""

from hardware.controller import PanelController
from hardware.keyboard import DEFAULT_KEYS, KeyboardPanel
from hardware.panel import ButtonEvent, NoGPIO, Panel, PanelError
from hardware.pinmap import BadPinMap, PinMap, SeatPins, default_pinmap, load_pinmap, parse_pinmap

__all__ = ["DEFAULT_KEYS", "BadPinMap", "ButtonEvent", "KeyboardPanel", "NoGPIO", "Panel",
           "PanelController", "PanelError", "PinMap", "SeatPins", "default_pinmap", "load_pinmap",
           "parse_pinmap"]
