"""Fixtures for the panel tests: gpiozero's MockFactory (restored after each test, as in
gpiozero's own suite), a clock the tests move by hand, a panel on the default pin map and
in-memory sessions (fake_session.py, loaded under its own module name so that a helper of
the same file name in another test folder cannot shadow it)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.games import Game, make_game
from hardware.panel import Panel
from hardware.pinmap import default_pinmap

_spec = importlib.util.spec_from_file_location("tests_hardware_fake_session",
                                               Path(__file__).with_name("fake_session.py"))
assert _spec is not None and _spec.loader is not None
fake_session = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_session)
FakeSession = fake_session.FakeSession


class FakeClock:
    """Monotonic seconds that only move when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def mock_factory():
    save = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.reset()
        Device.pin_factory = save


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def panel(mock_factory, clock):
    with Panel(default_pinmap(), clock=clock) as p:
        yield p


@pytest.fixture
def press(mock_factory, clock):
    """press(pin): a clean press and release of the button on `pin`, then a quiet spell."""
    def do(pin: int, hold: float = 0.1) -> None:
        mock_factory.pin(pin).drive_low()
        clock.advance(hold)
        mock_factory.pin(pin).drive_high()
        clock.advance(0.1)
    return do


@pytest.fixture
def make_session():
    """make_session("ahyoheek", 3) or make_session(game_object): a FakeSession."""
    def make(game: str | Game = "ahyoheek", players: int | None = None, **options):
        if isinstance(game, str):
            game = make_game(game, players, **options)
        return FakeSession(game)
    return make
