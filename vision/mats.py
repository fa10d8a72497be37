"""Play mats as data: for each game, the mat's size, its four ArUco markers and its zones,
all in millimetres (origin at the mat's top-left corner, x right, y down).

The zones, sizes and marker ids of each game's mat are data in `companion.catalog`
(pure, no game engine); this module lays them out. The printed mat (`vision.printing`),
the synthetic table (`vision.synthetic`) and the recognition (which maps every frame to
mat millimetres through the markers, then asks `point_zone` where a card lies) all read
the one definition here.

Seats go clockwise as seen from above, starting with seat 0 at the bottom edge: on the
mat image that is bottom, then left, top, right. A zone that belongs to a seat faces that
seat (`facing_deg`: 0 for the bottom edge, 90 left, 180 top, 270 right), which is how its
cards and its label are turned.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import cv2

from companion.catalog import CATALOG, GameInfo, MatInfo, game_key, mat_game_names
from companion.errors import BadOption, UnknownGame

ZONE_KINDS = ("play", "field", "trick", "meld", "stash", "pile", "table")

DICTIONARY = cv2.aruco.DICT_4X4_50
MARKER_MM = 48.0  # side of a marker, its black border included
MARKER_MARGIN_MM = 12.0  # from the mat's edge to a marker
QUIET_MM = 6.0  # white around a marker, which the detector needs
EDGE_MM = 12.0  # from the mat's edge to the seats' zones
GAP_MM = 8.0  # between zones
CORNER_MM = MARKER_MARGIN_MM + MARKER_MM + QUIET_MM  # zones keep out of the corner squares

Point = tuple[float, float]
Rect = tuple[float, float, float, float]


@dataclass(frozen=True)
class Marker:
    """An ArUco marker: its id and its four corners in mm, clockwise from top-left (the
    order OpenCV's detector reports them in)."""

    id: int
    corners_mm: tuple[Point, Point, Point, Point]

    @property
    def size_mm(self) -> float:
        return self.corners_mm[1][0] - self.corners_mm[0][0]

    @property
    def center_mm(self) -> Point:
        xs, ys = zip(*self.corners_mm, strict=True)
        return sum(xs) / 4, sum(ys) / 4


@dataclass(frozen=True)
class Zone:
    """A named area of the mat. `kind` is one of ZONE_KINDS (as in companion.observation);
    `seat` is the seat it belongs to, or None for shared zones; `rect_mm` is (x, y, w, h);
    `facing_deg` is the direction its seat looks from (0: from the bottom edge)."""

    name: str
    kind: str
    seat: int | None
    rect_mm: Rect
    facing_deg: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in ZONE_KINDS:
            raise ValueError(f"zone kind must be one of {', '.join(ZONE_KINDS)}, got {self.kind!r}")

    def contains(self, x_mm: float, y_mm: float) -> bool:
        x, y, w, h = self.rect_mm
        return x <= x_mm <= x + w and y <= y_mm <= y + h

    @property
    def center_mm(self) -> Point:
        x, y, w, h = self.rect_mm
        return x + w / 2, y + h / 2

    @property
    def area_mm2(self) -> float:
        return self.rect_mm[2] * self.rect_mm[3]


@dataclass(frozen=True)
class MatSpec:
    """One game's mat for a number of players."""

    game: str
    size_mm: tuple[float, float]
    dictionary: int
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    players: int = 0
    title: str = ""

    def zone(self, name: str) -> Zone:
        """The zone called `name`; KeyError naming the zones otherwise."""
        for zone in self.zones:
            if zone.name == name:
                return zone
        raise KeyError(f"no zone {name!r} on the {self.title or self.game} mat; zones: "
                       f"{', '.join(z.name for z in self.zones)}")

    def seat_zones(self, seat: int) -> tuple[Zone, ...]:
        return tuple(z for z in self.zones if z.seat == seat)

    def zones_of(self, kind: str) -> tuple[Zone, ...]:
        return tuple(z for z in self.zones if z.kind == kind)

    @property
    def marker_ids(self) -> tuple[int, ...]:
        return tuple(m.id for m in self.markers)


def point_zone(mat: MatSpec, x_mm: float, y_mm: float) -> Zone | None:
    """The zone a point of the mat lies in (the smallest, should zones nest), or None."""
    inside = [z for z in mat.zones if z.contains(x_mm, y_mm)]
    return min(inside, key=lambda z: z.area_mm2) if inside else None


# --- layout ----------------------------------------------------------------------------

EDGES = ("bottom", "left", "top", "right")  # clockwise from seat 0's edge
FACING = {"bottom": 0.0, "left": 90.0, "top": 180.0, "right": 270.0}


@dataclass(frozen=True)
class Segment:
    """One zone of a seat's block: its name prefix, kind and length along the mat's edge."""

    name: str
    kind: str
    length: float


def _markers(size: tuple[float, float], first_id: int) -> tuple[Marker, ...]:
    w, h = size
    m, s = MARKER_MARGIN_MM, MARKER_MM
    origins = ((m, m), (w - m - s, m), (w - m - s, h - m - s), (m, h - m - s))  # TL, TR, BR, BL
    return tuple(Marker(first_id + i, ((x, y), (x + s, y), (x + s, y + s), (x, y + s)))
                 for i, (x, y) in enumerate(origins))


def _edge_span(edge: str, size: tuple[float, float], depth: float) -> tuple[float, float]:
    """The stretch of an edge that seats may use (clear of the corners and of the bands
    of the neighbouring edges)."""
    w, h = size
    if edge in ("bottom", "top"):
        return CORNER_MM + GAP_MM, w - CORNER_MM - GAP_MM
    start = max(CORNER_MM, EDGE_MM + depth) + GAP_MM
    return start, h - start


def _capacity(edge: str, size: tuple[float, float], length: float, depth: float) -> int:
    a, b = _edge_span(edge, size, depth)
    return max(0, int((b - a + GAP_MM) // (length + GAP_MM)))


def _allocate(n: int, size: tuple[float, float], length: float, depth: float) -> dict[str, int] | None:
    """How many seats go on each edge, or None if `n` do not fit."""
    cap = {e: _capacity(e, size, length, depth) for e in EDGES}
    patterns = {2: ("bottom", "top"), 3: ("bottom", "left", "right"), 4: EDGES}
    if n in patterns and all(cap[e] >= 1 for e in patterns[n]):
        return {e: int(e in patterns[n]) for e in EDGES}
    counts = dict.fromkeys(EDGES, 0)
    order = ("bottom", "top", "left", "right")
    placed = 0
    while placed < n:
        progress = False
        for e in order:
            if placed < n and counts[e] < cap[e]:
                counts[e] += 1
                placed += 1
                progress = True
        if not progress:
            return None
    return counts


def _seat_zones(n: int, size: tuple[float, float], segments: tuple[Segment, ...], depth: float,
                counts: dict[str, int]) -> list[Zone]:
    """Each seat's block of zones, laid along the edges, seats numbered clockwise from the
    bottom. A block's segments run from its seat's left to its right."""
    w, h = size
    length = sum(s.length for s in segments) + GAP_MM * (len(segments) - 1)
    zones: list[Zone] = []
    seat = 0
    for edge in EDGES:
        k = counts[edge]
        if not k:
            continue
        a, b = _edge_span(edge, size, depth)
        centres = [a + (b - a) * (i + 0.5) / k for i in range(k)]
        # clockwise: along the bottom right to left, up the left, along the top left to
        # right, down the right
        if edge in ("bottom", "left"):
            centres.reverse()
        for c in centres:
            start = c - length / 2
            # the seat's left is image-left at the bottom, image-top on the left edge,
            # image-right at the top and image-bottom on the right edge
            forward = edge in ("bottom", "left")
            pos = start if forward else start + length
            for seg in segments:
                lo = pos if forward else pos - seg.length
                pos = pos + seg.length + GAP_MM if forward else pos - seg.length - GAP_MM
                if edge == "bottom":
                    rect = (lo, h - EDGE_MM - depth, seg.length, depth)
                elif edge == "top":
                    rect = (lo, EDGE_MM, seg.length, depth)
                elif edge == "left":
                    rect = (EDGE_MM, lo, depth, seg.length)
                else:
                    rect = (w - EDGE_MM - depth, lo, depth, seg.length)
                zones.append(Zone(f"{seg.name}-{seat}", seg.kind, seat, rect, FACING[edge]))
            seat += 1
    assert seat == n
    return zones


def _inner(size: tuple[float, float], depth: float) -> Rect:
    """The middle of the mat, inside every edge's band."""
    w, h = size
    m = EDGE_MM + depth + GAP_MM
    return m, m, w - 2 * m, h - 2 * m


def _row(inner: Rect, items: list[tuple[str, str, float, float]]) -> list[Zone] | None:
    """Shared zones side by side, centred in `inner`, or None if they do not fit."""
    x, y, w, h = inner
    total = sum(i[2] for i in items) + GAP_MM * (len(items) - 1)
    if total > w or max(i[3] for i in items) > h:
        return None
    left = x + (w - total) / 2
    zones = []
    for name, kind, zw, zh in items:
        zones.append(Zone(name, kind, None, (left, y + (h - zh) / 2, zw, zh)))
        left += zw + GAP_MM
    return zones


def _ring_mat(n: int, sizes: tuple[tuple[float, float], ...], segments: tuple[Segment, ...],
              depth: float, middle: list[tuple[str, str, float, float]]
              ) -> tuple[tuple[float, float], list[Zone]]:
    """The smallest of `sizes` that seats `n` players around the middle zones."""
    length = sum(s.length for s in segments) + GAP_MM * (len(segments) - 1)
    for size in sizes:
        counts = _allocate(n, size, length, depth)
        shared = _row(_inner(size, depth), middle) if counts else None
        if counts and shared is not None:
            return size, _seat_zones(n, size, segments, depth, counts) + shared
    raise AssertionError(f"no mat size seats {n} players")  # the player ranges below prevent this


# --- the games -------------------------------------------------------------------------
# Each game's zones, sizes and marker ids are data in companion/catalog.py; the layouts
# below turn them into rectangles.

def _segments(mat: MatInfo) -> tuple[Segment, ...]:
    return tuple(Segment(z.name, z.kind, z.length_mm) for z in mat.seat)


def _ring(mat: MatInfo, players: int) -> tuple[tuple[float, float], list[Zone]]:
    """Seats' blocks round the edges, the shared zones in a row in the middle."""
    middle = [(z.name, z.kind, z.width_mm, z.height_mm) for z in mat.shared]
    return _ring_mat(players, mat.sizes_mm, _segments(mat), mat.depth_mm, middle)


def _yokir(mat: MatInfo, players: int) -> tuple[tuple[float, float], list[Zone]]:
    """Three seats round the trick (the first shared zone); the second shared zone (the
    upcard) at the top, where no one sits."""
    size = mat.sizes_mm[0]
    depth = mat.depth_mm
    seats = _seat_zones(players, size, _segments(mat), depth,
                        {"bottom": 1, "left": 1, "top": 0, "right": 1})
    centre, top = mat.shared
    trick = _row(_inner(size, depth), [(centre.name, centre.kind, centre.width_mm, centre.height_mm)])
    assert trick is not None
    upcard = Zone(top.name, top.kind, None, (size[0] / 2 - top.width_mm / 2, EDGE_MM, top.width_mm,
                                            top.height_mm))
    return size, [*seats, *trick, upcard]


LAYOUTS: dict[str, Callable[[MatInfo, int], tuple[tuple[float, float], list[Zone]]]] = {
    "ring": _ring,
    "yokir": _yokir,
}


@dataclass(frozen=True)
class MatGame:
    """How to build one game's mat: the catalog's facts (the mat's player range may be
    narrower than the game's only where the catalog says so)."""

    name: str
    title: str
    min_players: int
    max_players: int
    default_players: int
    first_marker: int
    build: Callable[[int], tuple[tuple[float, float], list[Zone]]]


def _mat_game(info: GameInfo) -> MatGame:
    assert info.mat is not None and info.mat_players is not None
    mat, layout = info.mat, LAYOUTS[info.mat.layout]
    low, high = info.mat_players
    return MatGame(info.name, info.title, low, high, info.default_players, mat.first_marker,
                   lambda players: layout(mat, players))


# Each game's markers have their own ids, so the camera can tell which mat it sees.
MAT_GAMES: dict[str, MatGame] = {n: _mat_game(CATALOG[n]) for n in mat_game_names()}


def mat_games() -> tuple[str, ...]:
    """The games that have a mat."""
    return tuple(MAT_GAMES)


def mat_game(game: str) -> MatGame:
    """A game's mat builder by name (any case; spaces or underscores for hyphens)."""
    key = game_key(game)
    if key not in MAT_GAMES:
        near = difflib.get_close_matches(key, list(MAT_GAMES), n=1)
        hint = f"; did you mean {near[0]}?" if near else ""
        raise UnknownGame(f"no mat for game {game!r}: the mats are {', '.join(MAT_GAMES)}{hint}")
    return MAT_GAMES[key]


def get_mat(game: str, players: int | None = None) -> MatSpec:
    """The mat of `game` for `players` players (the game's usual number if None)."""
    spec = mat_game(game)
    if players is None:
        players = spec.default_players
    if isinstance(players, bool) or not isinstance(players, int):
        raise BadOption(f"players must be a whole number, got {players!r}")
    if not spec.min_players <= players <= spec.max_players:
        span = (f"{spec.min_players}" if spec.min_players == spec.max_players
                else f"{spec.min_players} to {spec.max_players}")
        more = ("" if players < spec.min_players or CATALOG[spec.name].max_players <= spec.max_players
                else f" (the game allows up to {CATALOG[spec.name].max_players}: play without the "
                     "mat, tapping the table corners on the screen)")
        raise BadOption(f"the {spec.title} mat seats {span} players, got {players}{more}")
    return _build(spec.name, players)


@lru_cache(maxsize=64)
def _build(game: str, players: int) -> MatSpec:
    spec = MAT_GAMES[game]
    size, zones = spec.build(players)
    return MatSpec(spec.name, size, DICTIONARY, _markers(size, spec.first_marker), tuple(zones),
                   players, spec.title)
