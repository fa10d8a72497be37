"""The numerals of every index and value, drawn as strokes rather than set in a font.

Font digits are near-copies of each other to a camera: at 3 px/mm a bold 3 and 8
correlate at 0.94. These are drawn so each keeps a shape of its own (a flat-topped 3,
a 9 with a straight tail, a 6 with an open hook), which brings the worst pair down to
about 0.75 while staying plain to read.
"""

from __future__ import annotations

import math

from vision.art.canvas import Canvas, Colour, Point

HEIGHT = 1.6  # a digit is drawn in a 1 x 1.6 box


def _arc(cx: float, cy: float, rx: float, ry: float, a0: float, a1: float, n: int = 20) -> list[Point]:
    return [(cx + rx * math.cos(math.radians(a0 + (a1 - a0) * i / n)),
             cy + ry * math.sin(math.radians(a0 + (a1 - a0) * i / n))) for i in range(n + 1)]


DIGITS: dict[str, list[list[Point]]] = {
    "0": [_arc(0.5, 0.8, 0.42, 0.78, 0, 360, 40)],
    "1": [[(0.2, 0.35), (0.55, 0.0), (0.55, 1.6)], [(0.2, 1.6), (0.9, 1.6)]],
    "2": [[*_arc(0.5, 0.45, 0.4, 0.42, 200, 360), (0.9, 0.55), (0.1, 1.6), (0.95, 1.6)]],
    "3": [[(0.1, 0.0), (0.9, 0.0), (0.42, 0.62)], _arc(0.47, 1.1, 0.45, 0.48, -100, 150)],
    "4": [[(0.68, 1.6), (0.68, 0.0), (0.05, 1.1), (0.98, 1.1)]],
    "5": [[(0.9, 0.0), (0.18, 0.0), (0.14, 0.72)], _arc(0.47, 1.1, 0.45, 0.46, -140, 150)],
    "6": [_arc(0.5, 1.12, 0.42, 0.44, 0, 360, 32), _arc(1.15, 1.12, 1.07, 1.1, 180, 250)],
    "7": [[(0.05, 0.0), (0.95, 0.0), (0.35, 1.6)]],
    "8": [_arc(0.5, 0.38, 0.34, 0.36, 0, 360, 28), _arc(0.5, 1.17, 0.44, 0.42, 0, 360, 32)],
    "9": [_arc(0.48, 0.46, 0.42, 0.44, 0, 360, 32), [(0.9, 0.46), (0.9, 1.6)]],
}
GAP = 0.25  # between the digits of a number, in digit widths


def draw_number(canvas: Canvas, text: str, box: tuple[float, float, float, float], colour: Colour,
                weight: float = 0.2) -> None:
    """Draw the digits of `text` as large as fits in `box` (x, y, w, h mm), centred.
    Numbers too wide for the box are narrowed, never shortened. `weight` is the stroke
    width as a fraction of a digit's width."""
    x, y, w, h = box
    n = len(text)
    units = n + GAP * (n - 1)
    scale_y = h / HEIGHT
    scale_x = min(scale_y, w / units)
    left = x + (w - units * scale_x) / 2
    pad = weight / 2
    stroke = weight * min(scale_x, scale_y) * (1.0 if n == 1 else 0.9)
    for k, ch in enumerate(text):
        for line in DIGITS[ch]:
            pts = [(left + (k * (1 + GAP) + pad + px * (1 - 2 * pad)) * scale_x,
                    y + (pad * HEIGHT + py * (1 - 2 * pad)) * scale_y) for px, py in line]
            canvas.line(pts, colour, stroke)
