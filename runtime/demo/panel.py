"""The players' fingers on a mock panel: gpiozero's MockFactory drives the button pins low
and high, the real `hardware.panel.Panel` debounces and queues the presses, and the real
`hardware.controller.PanelController` turns them into session calls and lights the LEDs.

Used for Ahyoheek, whose picks are made on the seat buttons (pen, page, beetle), and for
any move a seat's buttons can make (a few choices that name no card).
"""

from __future__ import annotations

from gpiozero.pins.mock import MockFactory

from companion.cards import get_deck
from companion.games import Action
from companion.games.ahyoheek import PICKS
from companion.session import Session
from hardware.controller import PanelController
from hardware.panel import Panel
from hardware.pinmap import default_pinmap
from runtime.demo.errors import DemoError


class _Clock:
    """Table time for the panel's debounce and the controller's blinks: a press takes
    0.1 s, the finger stays off the button 0.1 s more."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class MockPanel:
    """A panel on gpiozero's mock pins, driving `session` through the panel controller."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.factory = MockFactory()
        self.clock = _Clock()
        self.panel = Panel(default_pinmap(), pin_factory=self.factory, clock=self.clock)
        self.controller = PanelController(self.panel, session, clock=self.clock)
        self.presses = 0

    def button_for(self, action: Action) -> tuple[int, int]:
        """(seat, button index) of the button that makes `action` now."""
        seat = action.seat
        seats = self.panel.pinmap.seats
        if seat is None or not 0 <= seat < len(seats):
            raise DemoError(f"{action}: no seat button can make it (the panel has "
                            f"{len(seats)} seats)")
        if self.session.game.name == "ahyoheek":
            return seat, PICKS.index(action["pick"])
        deck = self.session.game.deck
        codes = frozenset(get_deck(deck).codes) if deck else frozenset()
        choices = [a for a in self.session.legal_actions()
                   if a.seat == seat and not _names_card(a, codes)]
        if action not in choices or len(choices) > len(seats[seat].buttons):
            raise DemoError(f"{action}: seat {seat + 1}'s buttons cannot make it")
        return seat, choices.index(action)

    def press(self, seat: int, index: int) -> None:
        """A clean press and release of seat `seat`'s button `index`, then the controller's poll."""
        pin = self.factory.pin(self.panel.pinmap.seats[seat].buttons[index])
        pin.drive_low()
        self.clock.now += 0.1
        pin.drive_high()
        self.clock.now += 0.1
        self.presses += 1
        self.controller.poll()

    def press_for(self, action: Action) -> None:
        self.press(*self.button_for(action))

    def lit(self) -> dict[str, bool]:
        return self.panel.lit()

    def close(self) -> None:
        self.controller.close()
        self.panel.close()
        self.factory.close()


def _names_card(action: Action, codes: frozenset[str]) -> bool:
    """Does the action name a card? Then no seat button makes it (as the controller rules:
    button k makes the k-th legal choice that names no card)."""
    for key, value in action.data:
        values = value if isinstance(value, tuple) else (value,)
        if key in ("card", "cards") or any(isinstance(v, str) and v in codes for v in values):
            return True
    return False
