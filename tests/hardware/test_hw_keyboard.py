"""The keyboard panel: keys press the same buttons, through the same pins and queue."""

from __future__ import annotations

import pytest
from gpiozero import Device

from companion.games.base import Action
from hardware.controller import PanelController
from hardware.keyboard import DEFAULT_KEYS, BadKeyMap, KeyboardPanel, key_name
from hardware.panel import ButtonEvent
from hardware.pinmap import PinMap, SeatPins


@pytest.fixture
def keys(clock):
    with KeyboardPanel(clock=clock) as kb:
        yield kb


def tap(kb, key, clock):
    assert kb.key_down(key)
    clock.advance(0.1)
    assert kb.key_up(key)
    clock.advance(0.1)


def test_default_keys_cover_every_button_of_the_default_map(keys):
    assert len(DEFAULT_KEYS) == 18
    for event, _part, _button in keys.buttons():
        assert len(keys.keys_for(event)) == 1, event
    assert keys.keys_for(ButtonEvent("seat", 3, 1)) == ["i"]


def test_keys_make_the_same_events_as_buttons(keys, clock):
    for key in ("q", "s", "c", "o", "j", "Return", "BackSpace", "M"):
        tap(keys, key, clock)
    assert keys.drain() == [ButtonEvent("seat", 0, 0), ButtonEvent("seat", 1, 1), ButtonEvent("seat", 2, 2),
                            ButtonEvent("seat", 3, 2), ButtonEvent("seat", 4, 0), ButtonEvent("confirm"),
                            ButtonEvent("undo"), ButtonEvent("menu")]


def test_a_held_auto_repeating_key_presses_once(keys, clock):
    for _ in range(20):  # the system repeats key-down while the key is held
        assert keys.key_down("w")
        clock.advance(0.03)
    keys.key_up("w")
    assert keys.drain() == [ButtonEvent("seat", 0, 1)]


def test_other_keys_are_not_the_panels(keys):
    assert not keys.key_down("f1") and not keys.key_up("spacebar") and not keys.press("1")
    assert keys.drain() == []


def test_press_is_down_and_up(keys, clock):
    assert keys.press("enter")
    clock.advance(0.2)
    assert keys.press("\r")
    assert keys.drain() == [ButtonEvent("confirm")] * 2


def test_keys_for_buttons_the_pin_map_lacks_do_nothing(clock):
    pm = PinMap((SeatPins((2,), 14), SeatPins((3, 4), 15)), confirm=12, undo=16, menu=20,
                status_green=8, status_red=7)
    with KeyboardPanel(pm, clock=clock) as kb:
        assert kb.key_down("q") and not kb.key_down("w") and not kb.key_down("z")
        assert kb.keys_for(ButtonEvent("seat", 0, 1)) == []
        assert kb.drain() == [ButtonEvent("seat", 0, 0)]


def test_a_custom_key_map(clock):
    with KeyboardPanel(keymap={"1": ButtonEvent("seat", 0, 0), "Space": ButtonEvent("confirm")},
                       clock=clock) as kb:
        tap(kb, "1", clock)
        tap(kb, "space", clock)
        assert not kb.key_down("q")
        assert kb.drain() == [ButtonEvent("seat", 0, 0), ButtonEvent("confirm")]


def test_a_key_mapped_twice_is_refused(clock):
    with pytest.raises(BadKeyMap, match="key 'enter' is mapped twice, to confirm button and to undo button"):
        KeyboardPanel(keymap={"Enter": ButtonEvent("confirm"), "return": ButtonEvent("undo")}, clock=clock)


def test_key_names_fold_case_and_aliases():
    assert key_name("Return") == "enter" and key_name("Q") == "q" and key_name("\b") == "backspace"


def test_the_keyboard_panel_does_not_touch_the_global_pin_factory(clock):
    before = Device.pin_factory
    with KeyboardPanel(clock=clock):
        assert Device.pin_factory is before


def test_an_ahyoheek_round_on_the_keyboard_lights_the_screen_leds(keys, clock, make_session):
    session = make_session("ahyoheek", 2)
    ctrl = PanelController(keys, session, clock=clock)
    tap(keys, "e", clock)  # seat 0: beetle
    ctrl.poll()
    assert keys.lit()["seat 1 LED"] and keys.lit()["green LED"]
    tap(keys, "a", clock)  # seat 1: pen; beetle beats pen
    ctrl.poll()
    view = session.view()
    assert view.table["last_round"] == ["beetle", "pen"] and view.table["holdings"][0]["beetle"] == 1
    tap(keys, "backspace", clock)
    ctrl.poll()
    assert session.log == [Action.make("pick", 0, pick="beetle")] and keys.lit()["seat 1 LED"]
    ctrl.close()
