"""The pin map: the default fits the header; every wiring mistake is one line naming the
file, the line, the part and the value."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from companion.errors import CompanionError
from hardware.pinmap import (
    PHYSICAL,
    BadPinMap,
    PinMap,
    SeatPins,
    default_pinmap,
    default_pinmap_text,
    load_pinmap,
    parse_pinmap,
)

TABLE = """
[table]
confirm = 12
undo = 16
menu = 20
status_green = 8
status_red = 7
"""


def pins_text(seats: str, table: str = TABLE) -> str:
    return seats + table


def error(text: str) -> str:
    with pytest.raises(BadPinMap) as exc:
        parse_pinmap(text, "pins.toml")
    message = str(exc.value)
    assert "\n" not in message and message.startswith("pins.toml")
    return message


def test_default_map_fits_the_40_pin_header():
    pm = default_pinmap()
    assert len(pm.seats) == 5 and all(len(s.buttons) == 3 for s in pm.seats)
    pins = [p.pin for p in pm.parts()]
    assert len(pins) == len(set(pins)) == 26
    assert set(pins) == set(range(2, 28))
    assert pm.buzzer == 18 and pm.bounce_time == 0.05
    assert (pm.confirm, pm.undo, pm.menu, pm.status_green, pm.status_red) == (12, 16, 20, 8, 7)


def test_physical_pin_table_matches_gpiozero_board_data():
    header = MockFactory().board_info.headers["J8"]
    gpios = {int(info.name[4:]): number for number, info in header.pins.items()
             if info.name.startswith("GPIO")}
    assert gpios == PHYSICAL


def test_default_map_comments_give_the_right_physical_pins():
    # every "# physical a, b" comment matches the BCM numbers on its line
    import re
    for line in default_pinmap_text().splitlines():
        found = re.match(r"\s*\w+ = \[?([\d, ]+)\]?\s*# physical ([\d, ]+)", line)
        if found:
            bcm = [int(x) for x in found.group(1).split(",")]
            physical = [int(x) for x in found.group(2).split(",")]
            assert [PHYSICAL[b] for b in bcm] == physical, line


def test_load_from_file_and_buzzer_is_optional(tmp_path):
    path = tmp_path / "two.toml"
    path.write_text(pins_text("[[seat]]\nbuttons = [2, 3]\nled = 14\n[[seat]]\nbuttons = 4\nled = 15\n"))
    pm = load_pinmap(path)
    assert pm.seats == (SeatPins((2, 3), 14), SeatPins((4,), 15))
    assert pm.buzzer is None and pm.source == "two.toml"
    assert [p.name for p in pm.parts()][:3] == ["seat 1 button 1", "seat 1 button 2", "seat 1 LED"]


def test_a_pin_used_twice_names_both_lines():
    text = pins_text("[[seat]]\nbuttons = [2, 3, 4]\nled = 14\n\n[[seat]]\nbuttons = [17, 14]\nled = 15\n")
    message = error(text)
    assert message == ("pins.toml, line 6: GPIO 14 is used twice: by seat 1 LED (line 3) "
                       "and by seat 2 button 2")


def test_a_table_pin_clashing_with_a_seat():
    message = error(pins_text("[[seat]]\nbuttons = [2]\nled = 8\n"))
    assert message.startswith("pins.toml, line 9: GPIO 8 is used twice: by seat 1 LED (line 3)")
    assert "green LED" in message


def test_a_pin_that_does_not_exist():
    message = error(pins_text("[[seat]]\nbuttons = [2, 99]\nled = 14\n"))
    assert message.startswith("pins.toml, line 2: seat 1 button 2: GPIO 99 cannot be used")
    assert "2 to 27" in message


@pytest.mark.parametrize("pin", [0, 1, 28, 40, -3])
def test_pins_outside_2_to_27_are_refused(pin):
    message = error(pins_text(f"[[seat]]\nbuttons = [2]\nled = {pin}\n"))
    assert message.startswith(f"pins.toml, line 3: seat 1 LED: GPIO {pin} cannot be used")


@pytest.mark.parametrize("value", ['"GPIO17"', "3.5", "true", "[4]"])
def test_a_pin_that_is_not_a_number(value):
    message = error(pins_text(f"[[seat]]\nbuttons = [2]\nled = {value}\n"))
    assert message.startswith("pins.toml, line 3: seat 1 LED: a pin is a BCM GPIO number")


@pytest.mark.parametrize("seat", ["[[seat]]\nled = 14\n", "[[seat]]\nbuttons = []\nled = 14\n"])
def test_a_seat_without_buttons(seat):
    text = pins_text("[[seat]]\nbuttons = [2]\nled = 15\n" + seat)
    line = 4 if "buttons = []" not in seat else 5
    assert error(text).startswith(f"pins.toml, line {line}: seat 2 has no buttons")


def test_a_seat_with_four_buttons():
    message = error(pins_text("[[seat]]\nbuttons = [2, 3, 4, 5]\nled = 14\n"))
    assert message.startswith("pins.toml, line 2: seat 1 has 4 buttons")


def test_a_seat_without_led():
    message = error(pins_text("# comment\n[[seat]]\nbuttons = [2]\n"))
    assert message.startswith("pins.toml, line 2: seat 1 has no led")


def test_unknown_keys_and_sections_name_their_line():
    assert error(pins_text("[[seat]]\nbuttons = [2]\nledd = 14\n")).startswith(
        "pins.toml, line 3: unknown key 'ledd' in [[seat]] (seat 1) (did you mean 'led'?)")
    assert error(pins_text("[[seat]]\nbuttons = [2]\nled = 14\n", TABLE + "buzer = 18\n")).startswith(
        "pins.toml, line 11: unknown key 'buzer' in [table] (did you mean 'buzzer'?)")
    assert error(pins_text("[[seat]]\nbuttons = [2]\nled = 14\n[tabel]\nx = 1\n")).startswith(
        "pins.toml, line 4: unknown key 'tabel' in the pin map (did you mean 'table'?)")


def test_missing_table_key_and_missing_sections():
    text = pins_text("[[seat]]\nbuttons = [2]\nled = 14\n", TABLE.replace("undo = 16\n", ""))
    assert error(text).startswith("pins.toml, line 5: [table] has no undo")
    assert "there is no [table] section" in error("[[seat]]\nbuttons = [2]\nled = 14\n")
    assert "there are no seats" in error(TABLE)


def test_seat_written_with_single_brackets():
    assert error("[seat]\nbuttons = [2]\nled = 3\n" + TABLE).startswith(
        "pins.toml, line 1: seats are an array of tables: write [[seat]]")


def test_toml_syntax_error_names_its_line():
    assert error("[[seat]]\nbuttons = [2\nled = 14\n").startswith("pins.toml, line 3: not valid TOML")
    assert error("a = 1\na = 2\n") .startswith("pins.toml, line 2: not valid TOML")


def test_multi_line_arrays_and_comments_keep_line_numbers_right():
    text = pins_text('# a header = [1]\n[[seat]]\nbuttons = [\n  2,  # "led = 5"\n  3,\n]\n'
                     'led = 99  # [x]\n')
    assert error(text).startswith("pins.toml, line 7: seat 1 LED: GPIO 99")


def test_dotted_keys_are_located():
    table = "".join(f"table.{line}\n" for line in TABLE.splitlines()[2:])
    text = table.replace("table.confirm = 12", "table.confirm = 14") + "[[seat]]\nbuttons = [2]\nled = 14\n"
    assert error(text) == ("pins.toml, line 8: GPIO 14 is used twice: by confirm button (line 1) "
                           "and by seat 1 LED")
    assert error("[[seat]]\nbuttons = [2]\nled = 14\ntable.confirm = 3\n").startswith(
        "pins.toml, line 4: unknown key 'table' in [[seat]] (seat 1)")


def test_bounce_time_is_checked():
    assert error("bounce_time = 5\n[[seat]]\nbuttons = [2]\nled = 14\n" + TABLE).startswith(
        "pins.toml, line 1: bounce_time is in seconds")
    pm = parse_pinmap("bounce_time = 0\n[[seat]]\nbuttons = [2]\nled = 14\n" + TABLE)
    assert pm.bounce_time == 0.0


def test_unreadable_file_is_one_line(tmp_path):
    with pytest.raises(BadPinMap, match=r"cannot read the pin map .*nope\.toml.*No such file"):
        load_pinmap(tmp_path / "nope.toml")


def test_bad_pin_map_is_a_companion_error_and_a_value_error():
    assert issubclass(BadPinMap, CompanionError) and issubclass(BadPinMap, ValueError)


def test_pinmap_built_in_code_is_checked_too():
    with pytest.raises(BadPinMap, match="GPIO 2 is used twice: by seat 1 button 1 and by confirm"):
        PinMap((SeatPins((2,), 3),), confirm=2, undo=4, menu=5, status_green=6, status_red=7)
    with pytest.raises(BadPinMap, match="seat 1 has 0 buttons"):
        PinMap((SeatPins((), 3),), confirm=2, undo=4, menu=5, status_green=6, status_red=7)
    with pytest.raises(BadPinMap, match="there are no seats"):
        PinMap((), confirm=2, undo=4, menu=5, status_green=6, status_red=7)
