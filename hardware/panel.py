"""The panel: the seat buttons and LEDs, the table buttons, the status LEDs and the buzzer,
built with gpiozero from a `PinMap`.

The pin factory is injectable (gpiozero's own pattern): None uses gpiozero's default (the
real GPIO on a Pi, or whatever GPIOZERO_PIN_FACTORY names), tests pass a MockFactory.
Presses arrive on gpiozero's callback threads and are put on a queue as `ButtonEvent`s;
whoever drives the session (`PanelController.poll`) takes them off, so no callback ever
touches the session or the screen.

Debouncing: gpiozero's `bounce_time` asks the pin driver to filter contact bounce, but not
every driver does (MockFactory ignores it), so the panel also drops a press that comes
less than `bounce_time` after the button's last edge. A held button gives one event:
only the press edge counts and `hold_repeat` is never turned on.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Literal

from gpiozero import LED, Button, Buzzer, Factory, OutputDevice
from gpiozero.exc import BadPinFactory

from companion.errors import CompanionError
from hardware.pinmap import Part, PinMap, default_pinmap

Kind = Literal["seat", "confirm", "undo", "menu"]


class PanelError(CompanionError, RuntimeError):
    """A part of the panel could not be set up (pin busy, driver error)."""


class NoGPIO(PanelError):
    """gpiozero found no GPIO on this machine (not a Raspberry Pi, or no pin driver)."""


@dataclass(frozen=True)
class ButtonEvent:
    """One button press: kind "seat" (with the seat and the button's index, from 0), or
    "confirm", "undo", "menu" (seat and index None). In words (str), seats and buttons
    count from 1, as on the wiring table: "seat 1 button 1"."""

    kind: Kind
    seat: int | None = None
    index: int | None = None

    def __str__(self) -> str:
        if self.kind == "seat":
            return f"seat {(self.seat or 0) + 1} button {(self.index or 0) + 1}"  # as people count
        return f"{self.kind} button"


def event_of(part: Part) -> ButtonEvent:
    """The event a button part sends."""
    if part.role == "seat":
        return ButtonEvent("seat", part.seat, part.index)
    return ButtonEvent(part.role)  # type: ignore[arg-type]


class Panel:
    """Every part of the pin map as a gpiozero device, and the queue of button presses.

    Parts: `seat_buttons[s][i]`, `seat_leds[s]`, `confirm`, `undo`, `menu` (Buttons),
    `status_green`, `status_red` (LEDs), `buzzer` (Buzzer or None). `clock` is for tests:
    the software debounce reads it (seconds, monotonic).
    """

    def __init__(self, pinmap: PinMap | None = None, pin_factory: Factory | None = None, *,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.pinmap = pinmap if pinmap is not None else default_pinmap()
        self.events: queue.SimpleQueue[ButtonEvent] = queue.SimpleQueue()
        self._clock = clock
        self._bounce = self.pinmap.bounce_time
        self._lock = threading.Lock()
        self._last_edge: dict[ButtonEvent, float] = {}
        self._devices: list[tuple[Part, Button | OutputDevice]] = []
        self._buttons: dict[ButtonEvent, tuple[Part, Button]] = {}
        self._closed = False
        try:
            for part in self.pinmap.parts():
                self._devices.append((part, self._build(part, pin_factory)))
        except BaseException:
            self.close()
            raise
        named = {part.name: device for part, device in self._devices}
        seats = self.pinmap.seats
        self.seat_buttons: tuple[tuple[Button, ...], ...] = tuple(
            tuple(named[f"seat {s + 1} button {i + 1}"] for i in range(len(seat.buttons)))  # type: ignore[misc]
            for s, seat in enumerate(seats))
        self.seat_leds: tuple[LED, ...] = tuple(named[f"seat {s + 1} LED"]  # type: ignore[misc]
                                                for s in range(len(seats)))
        self.confirm: Button = named["confirm button"]  # type: ignore[assignment]
        self.undo: Button = named["undo button"]  # type: ignore[assignment]
        self.menu: Button = named["menu button"]  # type: ignore[assignment]
        self.status_green: LED = named["green LED"]  # type: ignore[assignment]
        self.status_red: LED = named["red LED"]  # type: ignore[assignment]
        self.buzzer: Buzzer | None = named.get("buzzer")  # type: ignore[assignment]

    def _build(self, part: Part, factory: Factory | None) -> Button | OutputDevice:
        try:
            if part.is_button:
                # bounce_time goes to the pin driver; gpiozero wants None for "no debounce"
                button = Button(part.pin, pull_up=True, bounce_time=self._bounce or None,
                                hold_repeat=False, pin_factory=factory)
                event = event_of(part)
                button.when_pressed = partial(self._edge, event, True)
                button.when_released = partial(self._edge, event, False)
                self._buttons[event] = (part, button)
                return button
            if part.role == "buzzer":
                return Buzzer(part.pin, pin_factory=factory)
            return LED(part.pin, pin_factory=factory)
        except BadPinFactory as exc:
            chosen = os.environ.get("GPIOZERO_PIN_FACTORY")
            if chosen and factory is None:
                raise NoGPIO(f"GPIOZERO_PIN_FACTORY={chosen!r} names no pin driver gpiozero can load "
                             f"({exc}); use mock, lgpio, rpigpio, pigpio or native") from exc
            raise NoGPIO(f"no GPIO found on this machine (not a Raspberry Pi, or gpiozero has no pin "
                         f"driver such as lgpio: {exc}); without hardware, use the keyboard panel "
                         f"or set GPIOZERO_PIN_FACTORY=mock") from exc
        except Exception as exc:  # a driver's own error (pin busy, no permission): name the part
            raise PanelError(f"cannot set up the {part.name} on {part.where}: "
                             f"{type(exc).__name__}: {exc}") from exc

    def _edge(self, event: ButtonEvent, pressed: bool) -> None:
        """A button's pin changed (a gpiozero callback thread): queue a press that follows
        a quiet spell of at least bounce_time; any edge restarts the quiet spell."""
        now = self._clock()
        with self._lock:
            last = self._last_edge.get(event)
            self._last_edge[event] = now
        if pressed and (last is None or now - last >= self._bounce):
            self.events.put(event)

    # -- reading presses --------------------------------------------------------------
    def get_event(self, timeout: float | None = 0) -> ButtonEvent | None:
        """The next press, waiting up to `timeout` seconds (0: don't wait; None: forever)."""
        try:
            if timeout == 0:
                return self.events.get_nowait()
            return self.events.get(timeout=timeout)
        except queue.Empty:
            return None

    def drain(self) -> list[ButtonEvent]:
        """Every press waiting, oldest first."""
        out: list[ButtonEvent] = []
        while (event := self.get_event()) is not None:
            out.append(event)
        return out

    # -- parts by name ----------------------------------------------------------------
    def buttons(self) -> Iterator[tuple[ButtonEvent, Part, Button]]:
        """Every button with its event and part, in pin-map order."""
        for event, (part, button) in self._buttons.items():
            yield event, part, button

    def button(self, event: ButtonEvent) -> Button | None:
        """The button that sends `event` (None if the pin map has no such button)."""
        found = self._buttons.get(event)
        return found[1] if found else None

    def part(self, event: ButtonEvent) -> Part | None:
        found = self._buttons.get(event)
        return found[0] if found else None

    def outputs(self) -> Iterator[tuple[Part, OutputDevice]]:
        """Every LED and the buzzer with its part, in pin-map order (seat LEDs first)."""
        for part, device in self._devices:
            if not part.is_button:
                yield part, device  # type: ignore[misc]

    def lit(self) -> dict[str, bool]:
        """Which outputs are on now, by part name ("seat 1 LED", "green LED", "buzzer"):
        what a keyboard panel draws on the screen, and what tests read."""
        return {part.name: bool(device.value) for part, device in self.outputs()}

    def all_off(self) -> None:
        for _, device in self.outputs():
            device.off()

    def close(self) -> None:
        """Turn everything off and release the pins (safe to call twice)."""
        if self._closed:
            return
        self._closed = True
        # Each Button has a hold thread that looks for its stop flag every 0.1 s; closing
        # them one by one would take 0.1 s a button, so flag them all first (gpiozero
        # internals: without them, closing is only slower).
        for _, device in self._devices:
            stopping = getattr(getattr(device, "_hold_thread", None), "stopping", None)
            if stopping is not None:
                stopping.set()
        for part, device in reversed(self._devices):
            if not part.is_button:
                with contextlib.suppress(Exception):  # a device already broken: still close it
                    device.off()
            device.close()
        self._devices.clear()
        self._buttons.clear()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
