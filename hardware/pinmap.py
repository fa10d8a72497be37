"""The panel's pin map: which GPIO each button, LED and the buzzer is wired to.

A pin map is a TOML file (docs/hardware.md): BCM GPIO numbers, one `[[seat]]` table per
seat (`buttons`: 1 to 3 pins, `led`: one pin) and a `[table]` with the confirm, undo and
menu buttons, the green and red status LEDs and an optional buzzer. Everything is checked
when the map is loaded, so a wiring mistake stops the panel at start-up with one line
that names the file, the line, the part and the bad value, never in the middle of a game.

tomllib gives no line numbers, so `_KeyLines` finds them by scanning the text.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

# BCM GPIO number -> physical pin of the Raspberry Pi 40-pin header (J8).
PHYSICAL: dict[int, int] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19,
    9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35,
    16: 36, 26: 37, 20: 38, 21: 40,
}
DEFAULT_PATH = Path(__file__).with_name("default_pins.toml")
# GPIO 0 and 1 carry the HAT ID EEPROM: the usable pins are 2..27.
VALID_PINS = frozenset(range(2, 28))
MAX_SEAT_BUTTONS = 3
DEFAULT_BOUNCE = 0.05
TABLE_KEYS = ("confirm", "undo", "menu", "status_green", "status_red", "buzzer")
REQUIRED_TABLE_KEYS = TABLE_KEYS[:-1]
SEAT_KEYS = ("buttons", "led")
TOP_KEYS = ("bounce_time", "seat", "table")


class BadPinMap(CompanionError, ValueError):
    """A pin map that cannot be wired: the message names the file, line, part and value."""


@dataclass(frozen=True)
class SeatPins:
    """One seat: its buttons (index 0, 1, 2 = pen, page, beetle in Ahyoheek) and its LED."""

    buttons: tuple[int, ...]
    led: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "buttons", tuple(self.buttons))


@dataclass(frozen=True)
class Part:
    """One wired part. role: "seat" (a seat button), "confirm", "undo", "menu" (buttons),
    "seat_led", "green", "red" (LEDs) or "buzzer"; seat and index for seat parts."""

    name: str
    pin: int
    role: str
    seat: int | None = None
    index: int | None = None

    @property
    def is_button(self) -> bool:
        return self.role in ("seat", "confirm", "undo", "menu")

    @property
    def where(self) -> str:
        """The pin in words, BCM and physical: "GPIO 17 (pin 11)"."""
        return f"GPIO {self.pin} (pin {PHYSICAL.get(self.pin, '?')})"


@dataclass(frozen=True)
class PinMap:
    """The whole panel. Built directly it is checked too (without line numbers)."""

    seats: tuple[SeatPins, ...]
    confirm: int
    undo: int
    menu: int
    status_green: int
    status_red: int
    buzzer: int | None = None
    bounce_time: float = DEFAULT_BOUNCE
    source: str = "pin map"

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        if not self.seats:
            raise BadPinMap(f"{self.source}: there are no seats")
        for i, seat in enumerate(self.seats):
            if not 1 <= len(seat.buttons) <= MAX_SEAT_BUTTONS:
                raise BadPinMap(f"{self.source}: seat {i + 1} has {len(seat.buttons)} buttons; "
                                f"a seat has 1 to {MAX_SEAT_BUTTONS}")
        _check_pins(self.parts(), self.source, lambda part: None)

    def parts(self) -> list[Part]:
        """Every part in panel order: seats (buttons, then LED), table buttons, LEDs, buzzer."""
        return _parts(self.seats, {key: getattr(self, key) for key in TABLE_KEYS})


# table key -> (part name, role)
TABLE_PARTS: dict[str, tuple[str, str]] = {
    "confirm": ("confirm button", "confirm"), "undo": ("undo button", "undo"),
    "menu": ("menu button", "menu"), "status_green": ("green LED", "green"),
    "status_red": ("red LED", "red"), "buzzer": ("buzzer", "buzzer"),
}


def _parts(seats: tuple[SeatPins, ...], table: dict[str, int | None]) -> list[Part]:
    out: list[Part] = []
    for s, seat in enumerate(seats):
        out += [Part(f"seat {s + 1} button {i + 1}", pin, "seat", s, i)
                for i, pin in enumerate(seat.buttons)]
        out.append(Part(f"seat {s + 1} LED", seat.led, "seat_led", s))
    for key, (name, role) in TABLE_PARTS.items():
        if table.get(key) is not None:
            out.append(Part(name, table[key], role))  # type: ignore[arg-type]
    return out


def _key_path(part: Part) -> tuple[Any, ...]:
    """Where a part is written in the TOML file."""
    if part.role == "seat":
        return ("seat", part.seat, "buttons")
    if part.role == "seat_led":
        return ("seat", part.seat, "led")
    return ("table", next(k for k, (_, role) in TABLE_PARTS.items() if role == part.role))


def _check_pins(parts: list[Part], source: str, line_of: Callable[[Part], int | None]) -> None:
    """Every pin is a whole number on the header, used once."""
    def at(part: Part) -> str:
        line = line_of(part)
        return f"{source}, line {line}: " if line else f"{source}: "

    seen: dict[int, Part] = {}
    for part in sorted(parts, key=lambda p: line_of(p) or 0):  # in file order: "twice" is the later
        pin = part.pin
        if isinstance(pin, bool) or not isinstance(pin, int):
            raise BadPinMap(f"{at(part)}{part.name}: a pin is a BCM GPIO number (a whole number "
                            f"2 to 27), got {pin!r}")
        if pin not in VALID_PINS:
            why = ("GPIO 0 and 1 are kept for the HAT ID EEPROM" if pin in (0, 1) else
                   "there is no such GPIO on the 40-pin header")
            raise BadPinMap(f"{at(part)}{part.name}: GPIO {pin} cannot be used: {why} "
                            f"(use BCM numbers 2 to 27, not physical pin numbers)")
        if pin in seen:
            first = seen[pin]
            line = line_of(first)
            where = f" (line {line})" if line else ""
            raise BadPinMap(f"{at(part)}GPIO {pin} is used twice: by {first.name}{where} "
                            f"and by {part.name}")
        seen[pin] = part


# -- line numbers -------------------------------------------------------------------------

_BARE = r"[A-Za-z0-9_-]+"
_QUOTED = r"\"(?:[^\"\\]|\\.)*\"|'[^']*'"
_KEYPART = rf"(?:{_BARE}|{_QUOTED})"
_DOTTED = rf"{_KEYPART}(?:\s*\.\s*{_KEYPART})*"
_HEADER_RE = re.compile(rf"^\s*(\[\[|\[)\s*({_DOTTED})\s*(\]\]|\])")
_KEY_RE = re.compile(rf"^\s*({_DOTTED})\s*=")
_PART_RE = re.compile(_KEYPART)


def _split_key(dotted: str) -> tuple[str, ...]:
    return tuple(p.strip("\"'") for p in _PART_RE.findall(dotted))


class _KeyLines:
    """Line numbers of the tables and keys of a TOML text, by key path: ("table",),
    ("table", "undo"), ("seat", 2) for the third [[seat]], ("seat", 2, "led")."""

    def __init__(self, text: str) -> None:
        self.lines: dict[tuple[Any, ...], int] = {}
        self.last_line = max(1, text.count("\n") + 1)
        counts: dict[tuple[str, ...], int] = {}
        prefix: tuple[Any, ...] = ()
        depth = 0  # open brackets and braces of a value that spans lines
        in_string: str | None = None  # the delimiter of an open multi-line string
        for n, line in enumerate(text.splitlines(), start=1):
            if in_string or depth:
                depth, in_string = self._scan(line, depth, in_string)
                continue
            header = _HEADER_RE.match(line)
            if header:
                path = _split_key(header.group(2))
                if header.group(1) == "[[":
                    index = counts.get(path, 0)
                    counts[path] = index + 1
                    prefix = (*path, index)
                else:
                    prefix = path
                self.lines.setdefault(prefix, n)
                continue
            key = _KEY_RE.match(line)
            if key:
                parts = _split_key(key.group(1))
                for i in range(1, len(parts) + 1):  # a.b.c = 1 also places the table a.b
                    self.lines.setdefault((*prefix, *parts[:i]), n)
                depth, in_string = self._scan(line[key.end():], 0, None)

    @staticmethod
    def _scan(text: str, depth: int, in_string: str | None) -> tuple[int, str | None]:
        """Bracket depth and open multi-line string after `text` (comments skipped)."""
        i = 0
        while i < len(text):
            if in_string:
                end = text.find(in_string, i)
                if end < 0:
                    return depth, in_string
                i, in_string = end + len(in_string), None
                continue
            ch = text[i]
            if text.startswith(('"""', "'''"), i):
                in_string = text[i:i + 3]
                i += 3
                continue
            if ch in "\"'":
                end = i + 1
                while end < len(text) and text[end] != ch:
                    end += 2 if ch == '"' and text[end] == "\\" else 1
                i = end + 1
                continue
            if ch == "#":
                break
            if ch in "[{":
                depth += 1
            elif ch in "]}":
                depth = max(0, depth - 1)
            i += 1
        return depth, None

    def of(self, *path: Any) -> int | None:
        """The line of `path`, or of its nearest enclosing table that has one."""
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return None


# -- loading ------------------------------------------------------------------------------

class _Reader:
    """Reads the parsed TOML into a PinMap, with the line of every problem."""

    def __init__(self, text: str, source: str) -> None:
        self.source = source
        self.where = _KeyLines(text)
        try:
            self.data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            message = str(exc)
            found = re.search(r"\s*\(at line (\d+), column \d+\)$", message)
            line = int(found.group(1)) if found else self.where.last_line
            message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)$", "", message)
            raise BadPinMap(f"{source}, line {line}: not valid TOML: {message}") from None

    def fail(self, path: tuple[Any, ...], message: str) -> BadPinMap:
        line = self.where.of(*path)
        at = f"{self.source}, line {line}" if line else self.source
        return BadPinMap(f"{at}: {message}")

    def line_of(self, part: Part) -> int | None:
        return self.where.of(*_key_path(part))

    def unknown_keys(self, table: dict[str, Any], known: tuple[str, ...], path: tuple[Any, ...],
                     what: str) -> None:
        for key in table:
            if key not in known:
                near = difflib.get_close_matches(key, known, n=1)
                hint = f" (did you mean {near[0]!r}?)" if near else ""
                raise self.fail((*path, key), f"unknown key {key!r} in {what}{hint}; "
                                              f"the keys are {', '.join(known)}")

    def pin(self, value: Any, path: tuple[Any, ...], name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"{name}: a pin is a BCM GPIO number (a whole number 2 to 27), "
                                  f"got {value!r}")
        return value

    def read(self) -> PinMap:
        data = self.data
        self.unknown_keys(data, TOP_KEYS, (), "the pin map")
        seats_raw = data.get("seat")
        if seats_raw is None:
            raise self.fail((), "there are no seats: add a [[seat]] table with buttons and led "
                                "for every seat")
        if not isinstance(seats_raw, list):
            raise self.fail(("seat",), "seats are an array of tables: write [[seat]] (two brackets), "
                                       "once per seat")
        seats: list[SeatPins] = []
        for s, seat in enumerate(seats_raw):
            at = ("seat", s)
            if not isinstance(seat, dict):
                raise self.fail(("seat",), f"seat {s + 1} must be a table with buttons and led, got {seat!r}")
            self.unknown_keys(seat, SEAT_KEYS, at, f"[[seat]] (seat {s + 1})")
            buttons = seat.get("buttons")
            if buttons is None or buttons == []:
                raise self.fail((*at, "buttons"), f"seat {s + 1} has no buttons: give it 1 to "
                                                  f"{MAX_SEAT_BUTTONS}, e.g. buttons = [5, 6, 13]")
            if isinstance(buttons, int) and not isinstance(buttons, bool):
                buttons = [buttons]
            if not isinstance(buttons, list):
                raise self.fail((*at, "buttons"), f"seat {s + 1} buttons: a list of 1 to "
                                                  f"{MAX_SEAT_BUTTONS} pins, got {buttons!r}")
            if len(buttons) > MAX_SEAT_BUTTONS:
                raise self.fail((*at, "buttons"), f"seat {s + 1} has {len(buttons)} buttons {buttons}; "
                                                  f"a seat has at most {MAX_SEAT_BUTTONS}")
            pins = tuple(self.pin(b, (*at, "buttons"), f"seat {s + 1} button {i + 1}")
                         for i, b in enumerate(buttons))
            if "led" not in seat:
                raise self.fail(at, f"seat {s + 1} has no led: add led = <GPIO> to its [[seat]] table")
            led = self.pin(seat["led"], (*at, "led"), f"seat {s + 1} LED")
            seats.append(SeatPins(pins, led))
        if not seats:
            raise self.fail(("seat",), "there are no seats: add a [[seat]] table for every seat")
        _check_pins(_parts(tuple(seats), {}), self.source, self.line_of)
        table = data.get("table")
        if not isinstance(table, dict):
            if table is None:
                raise self.fail((), f"there is no [table] section: it names the "
                                    f"{', '.join(REQUIRED_TABLE_KEYS)} pins (and buzzer, optional)")
            raise self.fail(("table",), "table must be a [table] section")
        self.unknown_keys(table, TABLE_KEYS, ("table",), "[table]")
        values: dict[str, int | None] = {}
        for key in TABLE_KEYS:
            if key in table:
                values[key] = self.pin(table[key], ("table", key), TABLE_PARTS[key][0])
            elif key in REQUIRED_TABLE_KEYS:
                raise self.fail(("table",), f"[table] has no {key}: add {key} = <GPIO>")
            else:
                values[key] = None
        bounce = data.get("bounce_time", DEFAULT_BOUNCE)
        if isinstance(bounce, bool) or not isinstance(bounce, int | float) or not 0 <= bounce <= 1:
            raise self.fail(("bounce_time",), f"bounce_time is in seconds, 0 to 1 (e.g. 0.05), "
                                              f"got {bounce!r}")
        _check_pins(_parts(tuple(seats), values), self.source, self.line_of)
        return PinMap(tuple(seats), bounce_time=float(bounce), source=self.source,
                      **values)  # type: ignore[arg-type]


def parse_pinmap(text: str, source: str = "pin map") -> PinMap:
    """The PinMap in a TOML text; BadPinMap names `source`, the line and the problem."""
    return _Reader(text, source).read()


def load_pinmap(path: str | Path) -> PinMap:
    """The pin map in a TOML file; BadPinMap (one line) when it cannot be read or wired."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise BadPinMap(f"cannot read the pin map {str(path)!r}: {why}") from None
    return parse_pinmap(text, path.name)


def default_pinmap_text() -> str:
    """The text of the built-in pin map (hardware/default_pins.toml)."""
    return DEFAULT_PATH.read_text(encoding="utf-8")


def default_pinmap() -> PinMap:
    """The built-in pin map: 5 seats of 3 buttons and an LED, fitting the 40-pin header."""
    return parse_pinmap(default_pinmap_text(), "default_pins.toml")
