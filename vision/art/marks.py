"""Suit marks and ornaments as geometry: every mark is a few filled polygons and stroked
lines in a unit square (-0.5..0.5, y down), so one definition draws it at any size and
any rotation. Pillow's font has no suit symbols, so even ♠ ♥ ♦ ♣ Ψ are drawn here.

A "hole" shape is painted in the paper colour after the fills: the steps of a pyramid,
the writing on a scroll.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from vision.art.canvas import Canvas, Colour, Point


@dataclass(frozen=True)
class Shape:
    """A filled polygon (width 0) or a stroked polyline (width > 0), in unit coordinates."""

    points: tuple[Point, ...]
    width: float = 0.0
    hole: bool = False


def _poly(points: Sequence[Point], hole: bool = False) -> Shape:
    return Shape(tuple(points), 0.0, hole)


def _stroke(points: Sequence[Point], width: float, hole: bool = False) -> Shape:
    return Shape(tuple(points), width, hole)


def circle(cx: float, cy: float, r: float, n: int = 40) -> list[Point]:
    return [(cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n))
            for i in range(n)]


def arc(cx: float, cy: float, r: float, a0: float, a1: float, n: int = 24) -> list[Point]:
    """Points on a circle from angle a0 to a1 (degrees, clockwise on screen from +x)."""
    return [(cx + r * math.cos(math.radians(a0 + (a1 - a0) * i / n)),
             cy + r * math.sin(math.radians(a0 + (a1 - a0) * i / n))) for i in range(n + 1)]


def _ellipse(cx: float, cy: float, rx: float, ry: float, angle: float = 0.0, n: int = 32) -> list[Point]:
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + x * c - y * s, cy + x * s + y * c))
    return pts


def _star(points: int, outer: float, inner: float, start: float = -90.0) -> list[Point]:
    pts = []
    for i in range(points * 2):
        r = outer if i % 2 == 0 else inner
        a = math.radians(start + 180.0 * i / points)
        pts.append((r * math.cos(a), r * math.sin(a)))
    return pts


def _crescent(r0: float, c1: Point, r1: float, n: int = 120) -> list[Point]:
    """The part of the circle (0, 0, r0) outside the circle (c1, r1) as one polygon."""
    outer = [(r0 * math.cos(2 * math.pi * i / n), r0 * math.sin(2 * math.pi * i / n)) for i in range(n)]
    inner = [(c1[0] + r1 * math.cos(2 * math.pi * i / n), c1[1] + r1 * math.sin(2 * math.pi * i / n))
             for i in range(n)]
    out_keep = [math.dist(p, c1) > r1 for p in outer]
    in_keep = [math.hypot(*p) < r0 for p in inner]

    def run(points: list[Point], keep: list[bool]) -> list[Point]:
        start = next(i for i in range(n) if keep[i] and not keep[i - 1])
        return [points[(start + k) % n] for k in range(n) if keep[(start + k) % n]]

    a, b = run(outer, out_keep), run(inner, in_keep)
    if math.dist(a[-1], b[-1]) < math.dist(a[-1], b[0]):
        b = b[::-1]
    return a + b


# --- Yokir: pyramid, crown, notes and brush, scroll ------------------------------------

def _pyramid() -> list[Shape]:
    def half(y: float) -> float:
        return 0.48 * (y + 0.40) / 0.78

    steps = [_stroke([(-half(y), y), (half(y), y)], 0.045, hole=True) for y in (-0.08, 0.14)]
    return [_poly([(0.0, -0.40), (0.48, 0.38), (-0.48, 0.38)]), *steps,
            _stroke([(0.0, -0.40), (0.13, 0.38)], 0.04, hole=True),
            _poly([(-0.5, 0.42), (0.5, 0.42), (0.5, 0.48), (-0.5, 0.48)])]


def _crown() -> list[Shape]:
    # Pharaoh's double crown: the red crown's low front and high back rim around the
    # bulb of the white crown, with the red crown's coil in front.
    body = [(-0.40, 0.46), (0.40, 0.46), (0.40, -0.14), (0.23, -0.14), (0.21, -0.30), (0.13, -0.43),
            (0.0, -0.50), (-0.13, -0.43), (-0.21, -0.30), (-0.23, -0.08), (-0.40, 0.04)]
    coil = [(-0.30, 0.02), (-0.42, -0.10), (-0.47, -0.22), *arc(-0.41, -0.27, 0.07, 150, 470, 12)]
    return [_poly(body), _stroke(coil, 0.055),
            _stroke([(-0.21, -0.14), (0.21, -0.14)], 0.045, hole=True),
            _stroke([(-0.34, 0.33), (0.34, 0.33)], 0.045, hole=True)]


def _notes_and_brush() -> list[Shape]:
    heads = [_poly(_ellipse(-0.30, 0.30, 0.13, 0.09, -22)), _poly(_ellipse(0.02, 0.20, 0.13, 0.09, -22))]
    stems = [_stroke([(-0.185, 0.27), (-0.185, -0.30)], 0.05), _stroke([(0.135, 0.17), (0.135, -0.40)], 0.05)]
    beam = _poly([(-0.21, -0.30), (0.16, -0.42), (0.16, -0.30), (-0.21, -0.18)])
    handle = _stroke([(0.46, -0.46), (0.34, 0.06)], 0.06)
    ferrule = _stroke([(0.335, 0.08), (0.31, 0.20)], 0.10)
    bristles = _poly([(0.25, 0.20), (0.37, 0.22), (0.33, 0.36), (0.26, 0.48), (0.24, 0.34)])
    return [*heads, *stems, beam, handle, ferrule, bristles]


def _scroll() -> list[Shape]:
    body = _poly([(-0.30, -0.34), (0.30, -0.34), (0.30, 0.34), (-0.30, 0.34)])
    rolls = [_stroke([(-0.38, y), (0.38, y)], 0.13) for y in (-0.38, 0.38)]
    ends = [_poly(circle(x, y, 0.035, 12), hole=True) for x in (-0.38, 0.38) for y in (-0.38, 0.38)]
    writing = [_stroke([(-0.20, y), (x1, y)], 0.04, hole=True)
               for y, x1 in ((-0.18, 0.20), (-0.06, 0.12), (0.06, 0.20), (0.18, 0.04))]
    return [body, *rolls, *ends, *writing]


# --- Piktas: triangle, drop, stem, sunburst, crescent; the void's star -----------------

def _triangle() -> list[Shape]:
    return [_poly([(0.0, -0.44), (0.48, 0.40), (-0.48, 0.40)])]


def _drop() -> list[Shape]:
    # A droplet drawn as a thick outline around a pale middle, with a highlight inside: a
    # solid drop is a blob like the triangle of Stone to a camera; a ring is not.
    r, cy = 0.30, 0.15
    tangent_y = cy - r * 0.5
    outline = [(0.0, -0.47), (r * 0.866, tangent_y), *arc(0.0, cy, r, -30, 210, 30), (-r * 0.866, tangent_y),
               (0.0, -0.47)]
    return [_stroke(outline, 0.13), _poly(circle(0.0, cy + 0.02, 0.10, 20))]


def _stem() -> list[Shape]:
    top = (0.0, -0.06)
    fronds = [_stroke([top, (0.42 * math.cos(math.radians(a)), top[1] + 0.40 * math.sin(math.radians(a)))],
                      0.05) for a in range(-155, -20, 22)]
    leaf = _poly([(0.0, 0.46), (-0.20, 0.30), (-0.24, 0.18), (-0.05, 0.32)])
    return [_stroke([(0.0, 0.47), top], 0.08), *fronds, leaf]


def _sunburst() -> list[Shape]:
    rays = []
    for i in range(12):
        a = math.radians(i * 30)
        da = math.radians(9)
        rays.append(_poly([(0.27 * math.cos(a - da), 0.27 * math.sin(a - da)),
                           (0.49 * math.cos(a), 0.49 * math.sin(a)),
                           (0.27 * math.cos(a + da), 0.27 * math.sin(a + da))]))
    return [_poly(circle(0.0, 0.0, 0.23)), *rays]


def _crescent_mark() -> list[Shape]:
    return [_poly(_crescent(0.45, (0.20, -0.10), 0.37))]


def _star4() -> list[Shape]:
    return [_poly(_star(4, 0.5, 0.12, start=-90.0))]


# --- standard and IDEAL: spade, heart, club, diamond, wand; the joker's stars ---------

def _heart() -> list[Shape]:
    return [_poly(circle(-0.21, -0.17, 0.25)), _poly(circle(0.21, -0.17, 0.25)),
            _poly([(-0.445, -0.10), (0.445, -0.10), (0.0, 0.46)])]


def _spade() -> list[Shape]:
    # A vein down the middle keeps the spade apart from the club and the diamond when small.
    return [_poly(circle(-0.20, 0.10, 0.23)), _poly(circle(0.20, 0.10, 0.23)),
            _poly([(-0.425, 0.04), (0.425, 0.04), (0.0, -0.48)]),
            _poly([(0.0, 0.10), (0.15, 0.47), (-0.15, 0.47)]),
            _stroke([(0.0, -0.22), (0.0, 0.22)], 0.09, hole=True)]


def _club() -> list[Shape]:
    # Three round leaves that stand apart, so the club does not melt into a spade when small.
    return [_poly(circle(0.0, -0.25, 0.2)), _poly(circle(-0.26, 0.09, 0.2)),
            _poly(circle(0.26, 0.09, 0.2)), _poly(circle(0.0, 0.0, 0.09)),
            _poly([(0.0, 0.05), (0.09, 0.47), (-0.09, 0.47)])]


def _diamond() -> list[Shape]:
    return [_poly([(0.0, -0.5), (0.36, 0.0), (0.0, 0.5), (-0.36, 0.0)])]


def _wand() -> list[Shape]:
    # Ψ: two prongs joined by a curve below them, around a central shaft.
    curve = [(0.34 * math.cos(math.radians(a)), -0.12 + 0.30 * math.sin(math.radians(a)))
             for a in range(180, -1, -12)]
    cup = [(-0.34, -0.46), *curve, (0.34, -0.46)]
    return [_stroke([(0.0, -0.48), (0.0, 0.46)], 0.09), _stroke(cup, 0.08),
            _stroke([(-0.16, 0.42), (0.16, 0.42)], 0.08)]


def _star5() -> list[Shape]:
    return [_poly(_star(5, 0.5, 0.2))]


def _star5_ring() -> list[Shape]:
    return [_stroke([*circle(0.0, 0.0, 0.44, 48), (0.44, 0.0)], 0.07), _poly(_star(5, 0.34, 0.14))]


MARKS: dict[str, Callable[[], list[Shape]]] = {
    "pyramid": _pyramid, "crown": _crown, "notes and brush": _notes_and_brush, "scroll": _scroll,
    "triangle": _triangle, "drop": _drop, "stem": _stem, "sunburst": _sunburst,
    "crescent": _crescent_mark, "star4": _star4,
    "spade": _spade, "heart": _heart, "club": _club, "diamond": _diamond, "wand": _wand,
    "star5": _star5, "star5 ring": _star5_ring,
}
_CACHE: dict[str, list[Shape]] = {}


def mark_shapes(name: str) -> list[Shape]:
    """The shapes of a mark by name (see MARKS)."""
    if name not in _CACHE:
        _CACHE[name] = MARKS[name]()
    return _CACHE[name]


def draw_mark(canvas: Canvas, name: str, cx: float, cy: float, size: float, fill: Colour,
              paper: Colour, angle: float = 0.0, outline: Colour | None = None,
              outline_width: float = 0.0) -> None:
    """Draw mark `name` centred at (cx, cy) mm, `size` mm across, turned `angle` degrees
    clockwise. `paper` paints the holes; `outline` rings the whole mark (for pale colours)."""
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))

    def place(points: Sequence[Point]) -> list[Point]:
        return [(cx + size * (x * c - y * s), cy + size * (x * s + y * c)) for x, y in points]

    shapes = mark_shapes(name)
    passes = [(outline, outline_width * 2)] if outline and outline_width > 0 else []
    passes.append((fill, 0.0))
    for colour, grow in passes:
        for shape in shapes:
            if shape.hole:
                continue
            pts = place(shape.points)
            if shape.width > 0:
                canvas.line(pts, colour, shape.width * size + grow)
            else:
                canvas.polygon(pts, fill=colour, outline=colour if grow else None, width=grow)
    for shape in shapes:
        if shape.hole:
            pts = place(shape.points)
            if shape.width > 0:
                canvas.line(pts, paper, shape.width * size)
            else:
                canvas.polygon(pts, fill=paper)
