"""The kiosk's look: colours, type sizes and status marks, in one place.

Colours come from the Okabe-Ito palette, which stays distinct for the common forms of
colour blindness; even so, colour is never the only carrier of meaning: every status has
a shape (drawn with a glyph of the DejaVu Sans font that Kivy ships) and a word, and
seats always show their number and name next to their colour.

Type is large because the screen is read from across a table: nothing a player needs is
smaller than `BODY` (20 px on the 800x480 display, where 1 sp = 1 px); no size here
is under it.

Plain Python (no Kivy import), so kv files read it with ``#:import theme kiosk.theme``
and tests can check it without a display.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

RGBA = tuple[float, float, float, float]


def rgba(hex_colour: str, alpha: float = 1.0) -> RGBA:
    """'#RRGGBB' as Kivy's (r, g, b, a) floats."""
    h = hex_colour.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"a colour is #RRGGBB, got {hex_colour!r}")
    r, g, b = (int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))
    return (r, g, b, alpha)


# Okabe-Ito
ORANGE = rgba("#E69F00")
SKY = rgba("#56B4E9")
GREEN = rgba("#009E73")  # bluish green
YELLOW = rgba("#F0E442")
BLUE = rgba("#0072B2")
VERMILLION = rgba("#D55E00")
PURPLE = rgba("#CC79A7")

# Surfaces: a dark room-friendly theme with high-contrast text.
BACKGROUND = rgba("#121417")
PANEL = rgba("#1F242B")
PANEL_HIGH = rgba("#2C333C")
BUTTON = rgba("#34404D")
BUTTON_DOWN = rgba("#4D5E70")
BUTTON_DISABLED = rgba("#23282F")
TEXT = rgba("#F4F4F4")
TEXT_DIM = rgba("#B8C0C8")
TEXT_DIM_HEX = "B8C0C8"  # the same, for Kivy markup ([color=...])
TEXT_DISABLED = rgba("#6C757F")
DARK_TEXT = rgba("#101010")  # on yellow, orange and sky

# Type sizes (sp). BODY is the smallest size for anything a player must read.
TITLE = 30
HEADING = 26
TURN = 30
BUTTON_TEXT = 22
BODY = 20
SMALL = 20  # secondary details (help text under an option): as large as body text now
ICON = 26

# Touch targets (dp): the official 7" display is 800x480 at about 130 dpi, so 56 dp is
# about 11 mm, comfortably above the 9 mm usually asked of a finger target.
TARGET = 56
HEADER = 56
GAP = 8

# Fonts: Roboto (Kivy's default) for words; DejaVu Sans, also shipped with Kivy, for the
# status glyphs, which Roboto lacks.
SYMBOL_FONT = "DejaVuSans"
MONO_FONT = "RobotoMono-Regular"

# Glyphs
TICK = "\u2713"  # ✓
CROSS = "\u2717"  # ✗
TRIANGLE = "\u25B2"  # ▲
PLAY = "\u25B6"  # ▶
STAR = "\u2605"  # ★
DOT = "\u25CF"  # ●
SQUARE = "\u25A0"  # ■
DIAMOND = "\u25C6"  # ◆
UNDO = "\u21B6"  # ↶
REDO = "\u21B7"  # ↷
HOME = "\u2302"  # ⌂
BACK = "\u25C0"  # ◀
GEAR = "\u2699"  # ⚙
MINUS = "\u2212"  # −
PLUS = "+"
QUESTION = "?"


@dataclass(frozen=True)
class Mark:
    """How one status looks: a colour, a glyph and a word, always shown together."""

    colour: RGBA
    glyph: str
    word: str
    text_colour: RGBA = TEXT


# Verdicts and statuses. The glyph shapes differ (tick, cross, triangle, dot), so the
# marks read the same to somebody who cannot tell green from vermillion.
ACCEPTED = Mark(GREEN, TICK, "Accepted")
ILLEGAL = Mark(VERMILLION, CROSS, "Illegal")
AWAITING = Mark(VERMILLION, CROSS, "Confirm or undo")
NOTED = Mark(ORANGE, TRIANGLE, "Noted", DARK_TEXT)  # a rejection already acknowledged
INFO = Mark(SKY, DOT, "Next", DARK_TEXT)
WARNING = Mark(ORANGE, TRIANGLE, "Warning", DARK_TEXT)
WINNER = Mark(YELLOW, STAR, "Winner", DARK_TEXT)
TURN_MARK = Mark(SKY, PLAY, "To play", DARK_TEXT)

CAMERA_MARKS: dict[str, Mark] = {
    "ok": Mark(GREEN, DOT, "Camera"),
    "starting": Mark(SKY, DOT, "Camera starting", DARK_TEXT),
    "no camera": Mark(ORANGE, TRIANGLE, "No camera", DARK_TEXT),
    "mat lost": Mark(ORANGE, TRIANGLE, "Mat lost", DARK_TEXT),
    "off": Mark(PANEL_HIGH, SQUARE, "Camera off"),
}

# Seat colours: distinct under colour blindness, and always paired with the seat's number.
SEAT_COLOURS: tuple[RGBA, ...] = (SKY, ORANGE, GREEN, PURPLE, YELLOW, BLUE, VERMILLION)


def seat_colour(seat: int) -> RGBA:
    """The colour of a seat (cycling after seven: the number and name tell them apart)."""
    return SEAT_COLOURS[seat % len(SEAT_COLOURS)]


def seat_text_colour(seat: int) -> RGBA:
    """Text colour that reads on the seat's colour."""
    return TEXT if seat_colour(seat) in (GREEN, BLUE, VERMILLION) else DARK_TEXT


def camera_mark(status: str) -> Mark:
    """The mark for a camera status; an unknown status reads as a warning with its words."""
    return CAMERA_MARKS.get(status, Mark(ORANGE, TRIANGLE, status.capitalize(), DARK_TEXT))


def verdict_mark(ok: bool, awaiting: bool) -> Mark:
    """The mark of a referee's verdict."""
    if ok:
        return ACCEPTED
    return AWAITING if awaiting else NOTED


def symbol(glyph: str) -> str:
    """A glyph in Kivy markup, in the symbol font (for labels with markup on)."""
    return f"[font={SYMBOL_FONT}]{glyph}[/font]"


def kivy_data_font(name: str) -> str:
    """The path of a font Kivy ships (for checks that it exists)."""
    import importlib.util

    spec = importlib.util.find_spec("kivy")
    if spec is None or spec.origin is None:
        raise FileNotFoundError("Kivy is not installed")
    return str(Path(spec.origin).parent / "data" / "fonts" / f"{name}.ttf")
