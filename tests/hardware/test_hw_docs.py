"""docs/hardware.md agrees with the code: the wiring table is the default pin map, the
keyboard table is the default key map, and the error examples are the real messages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hardware.keyboard import DEFAULT_KEYS
from hardware.panel import ButtonEvent
from hardware.pinmap import PHYSICAL, BadPinMap, default_pinmap, parse_pinmap

DOC = (Path(__file__).parents[2] / "docs" / "hardware.md").read_text(encoding="utf-8")


def table_rows(first_header: str) -> list[list[str]]:
    lines = DOC[DOC.index(f"| {first_header} |"):].splitlines()
    rows = []
    for line in lines[2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_the_wiring_table_is_the_default_pin_map():
    rows = table_rows("part")
    parts = default_pinmap().parts()
    assert [r[0] for r in rows] == [p.name for p in parts]
    for row, part in zip(rows, parts, strict=True):
        assert (int(row[1]), int(row[2])) == (part.pin, PHYSICAL[part.pin]), row
        resistor = "330 Ω" if part.role in ("seat_led", "green", "red") else "none"
        assert row[4] == resistor, row


def test_the_keyboard_table_is_the_default_key_map():
    for seat, *keys in table_rows("seat"):  # seats and buttons count from 1 on paper
        for index, key in enumerate(keys):
            assert DEFAULT_KEYS[key] == ButtonEvent("seat", int(seat) - 1, index)


@pytest.mark.parametrize("example", re.findall(r"companion: error: (pins\.toml, line .*)", DOC))
def test_the_error_examples_are_real(example):
    table = "\n[table]\nconfirm = 12\nundo = 16\nmenu = 20\nstatus_green = 8\nstatus_red = 7\n"
    texts = ["[[seat]]\nbuttons = [2, 3, 4]\nled = 14\n\n[[seat]]\nbuttons = [17, 14]\nled = 15\n",
             "[[seat]]\nbuttons = [2, 99]\nled = 14\n",
             "[[seat]]\nbuttons = [2]\nled = 15\n[[seat]]\nled = 14\n",
             "[[seat]]\nbuttons = [2]\nledd = 14\n"]
    messages = []
    for text in texts:
        with pytest.raises(BadPinMap) as exc:
            parse_pinmap(text + table, "pins.toml")
        messages.append(str(exc.value))
    assert example in messages
