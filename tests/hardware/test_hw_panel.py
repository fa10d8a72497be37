"""The panel on gpiozero's MockFactory: presses become events, bounce and holds do not
repeat, LEDs are real outputs, and set-up problems are one clear error."""

from __future__ import annotations

import pytest
from gpiozero import LED, Button, Buzzer, Device
from gpiozero.exc import BadPinFactory
from gpiozero.pins.mock import MockFactory

from companion.errors import CompanionError
from hardware.panel import ButtonEvent, NoGPIO, Panel, PanelError
from hardware.pinmap import PinMap, SeatPins, default_pinmap


def test_parts_are_gpiozero_devices_on_the_mapped_pins(panel, mock_factory):
    assert len(panel.seat_buttons) == 5 and all(len(b) == 3 for b in panel.seat_buttons)
    assert all(isinstance(b, Button) for seat in panel.seat_buttons for b in seat)
    assert all(isinstance(led, LED) for led in panel.seat_leds)
    assert isinstance(panel.buzzer, Buzzer)
    assert panel.seat_buttons[1][2].pin is mock_factory.pin(22)
    assert panel.seat_leds[4].pin is mock_factory.pin(25)
    assert panel.confirm.pin is mock_factory.pin(12) and panel.status_red.pin is mock_factory.pin(7)
    # buttons pull up (pressed = pin to ground); nothing is lit at start
    assert all(b.pull_up and not b.is_pressed for b in panel.seat_buttons[0])
    assert not any(panel.lit().values()) and len(panel.lit()) == 8


def test_every_button_press_becomes_its_event(panel, press):
    for event, part, _button in panel.buttons():
        press(part.pin)
        assert panel.drain() == [event]
    assert [str(e) for e, _, _ in panel.buttons()][:2] == ["seat 1 button 1", "seat 1 button 2"]
    assert {e.kind for e, _, _ in panel.buttons()} == {"seat", "confirm", "undo", "menu"}


def test_events_arrive_in_press_order(panel, press):
    press(17)  # seat 1 button 0
    press(13)  # seat 3 button 2
    press(16)  # undo
    assert panel.drain() == [ButtonEvent("seat", 1, 0), ButtonEvent("seat", 3, 2), ButtonEvent("undo")]
    assert panel.get_event() is None


def test_contact_bounce_gives_one_press(panel, mock_factory, clock):
    pin = mock_factory.pin(3)
    for _ in range(4):  # the contacts chatter for a few milliseconds on the way down
        pin.drive_low()
        clock.advance(0.002)
        pin.drive_high()
        clock.advance(0.002)
    pin.drive_low()
    clock.advance(0.3)
    for _ in range(3):  # and on the way up
        pin.drive_high()
        clock.advance(0.003)
        pin.drive_low()
        clock.advance(0.003)
    pin.drive_high()
    assert panel.drain() == [ButtonEvent("seat", 0, 1)]


def test_a_held_button_does_not_repeat(panel, mock_factory, clock):
    pin = mock_factory.pin(12)
    pin.drive_low()
    clock.advance(10.0)  # far past gpiozero's hold_time
    pin.drive_low()  # the level is read again: no edge, no press
    assert not panel.confirm.hold_repeat
    pin.drive_high()
    assert panel.drain() == [ButtonEvent("confirm")]


def test_two_real_presses_are_two_events(panel, press):
    press(2, hold=0.08)
    press(2, hold=0.08)
    assert panel.drain() == [ButtonEvent("seat", 0, 0)] * 2


def test_bounce_time_comes_from_the_pin_map(mock_factory, clock):
    pm = PinMap((SeatPins((2,), 3),), confirm=4, undo=5, menu=6, status_green=7, status_red=8,
                bounce_time=0.0)
    with Panel(pm, clock=clock) as p:
        assert p.seat_buttons[0][0].pin.bounce is None  # no debounce asked of the driver
        pin = mock_factory.pin(2)
        pin.drive_low()
        pin.drive_high()
        pin.drive_low()
        assert p.drain() == [ButtonEvent("seat", 0, 0)] * 2
    with Panel(default_pinmap(), clock=clock) as p:
        assert p.seat_buttons[0][0].pin.bounce == 0.05  # given to the pin driver too


def test_leds_and_buzzer_are_outputs(panel, mock_factory):
    panel.seat_leds[2].on()
    panel.status_green.on()
    panel.buzzer.on()
    assert mock_factory.pin(23).state and mock_factory.pin(8).state and mock_factory.pin(18).state
    assert panel.lit() == {"seat 1 LED": False, "seat 2 LED": False, "seat 3 LED": True,
                           "seat 4 LED": False, "seat 5 LED": False, "green LED": True,
                           "red LED": False, "buzzer": True}
    panel.all_off()
    assert not any(panel.lit().values())


def test_an_injected_factory_is_used_instead_of_the_default(mock_factory, clock):
    own = MockFactory()
    with Panel(default_pinmap(), pin_factory=own, clock=clock) as p:
        assert p.confirm.pin_factory is own
        own.pin(12).drive_low()
        assert p.drain() == [ButtonEvent("confirm")]
        assert 12 not in {info.name for info in mock_factory.pins}  # the global one untouched


def test_close_turns_off_and_releases_the_pins(mock_factory, clock):
    p = Panel(default_pinmap(), clock=clock)
    p.seat_leds[0].on()
    p.close()
    p.close()  # twice is harmless
    assert p.closed and not mock_factory.pin(14).state
    with Panel(default_pinmap(), clock=clock) as again:  # the pins are free again
        assert not again.closed


def test_a_busy_pin_names_the_part(mock_factory, clock):
    holder = LED(25)
    try:
        with pytest.raises(PanelError, match=r"cannot set up the seat 5 LED on GPIO 25 \(pin 22\)"):
            Panel(default_pinmap(), clock=clock)
    finally:
        holder.close()
    with Panel(default_pinmap(), clock=clock):  # a failed set-up released what it had built
        pass


def test_no_gpio_is_a_clear_error(monkeypatch):
    def no_driver():
        raise BadPinFactory("Unable to load any default pin factory!")

    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(no_driver))
    with pytest.raises(NoGPIO, match=r"no GPIO found.*GPIOZERO_PIN_FACTORY=mock") as exc:
        Panel(default_pinmap())
    assert isinstance(exc.value, CompanionError) and isinstance(exc.value, RuntimeError)
