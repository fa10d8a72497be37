"""The play mat as a picture: felt, the zones of the game outlined and labelled to face
their seats, card spots where a card has a fixed place, and the four ArUco markers drawn
cell by cell from OpenCV's own dictionary (so they are exact at any resolution)."""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from vision.art.canvas import WHITE, Canvas, Colour, default_supersample
from vision.mats import QUIET_MM, MatSpec, Zone

FELT: Colour = (34, 96, 62)
ZONE_FILL: Colour = (42, 110, 72)
ZONE_LINE: Colour = (168, 208, 182)
LABEL: Colour = (190, 222, 200)
SPOT: Colour = (120, 170, 138)
LABEL_MM = 6.0

KIND_LABELS = {"play": "PLAY", "field": "FIELD", "trick": "TRICK", "meld": "MELDS", "stash": "STASH",
               "pile": "PILE", "table": "TABLE"}
NAME_LABELS = {"show": "SHOW", "set": "SET", "upcard": "UPCARD", "stock": "STOCK"}


def zone_label(zone: Zone) -> str:
    """What the mat prints in a zone: its role, and its seat."""
    role = zone.name.rsplit("-", 1)[0] if zone.seat is not None else zone.name
    text = NAME_LABELS.get(role) or KIND_LABELS.get(role) or role.upper()
    return f"SEAT {zone.seat + 1} · {text}" if zone.seat is not None else text


def marker_cells(dictionary: int, marker_id: int) -> np.ndarray:
    """The marker's cells, border included, as a square bool array (True = black)."""
    aruco = cv2.aruco.getPredefinedDictionary(dictionary)
    cells = aruco.markerSize + 2
    return cv2.aruco.generateImageMarker(aruco, marker_id, cells, borderBits=1) < 128


def render_mat(mat: MatSpec, px_per_mm: float = 2.0, card_size_mm: tuple[float, float] | None = None
               ) -> np.ndarray:
    """The mat as a BGR image of (round(h * px_per_mm), round(w * px_per_mm)). Card spots
    are drawn at `card_size_mm` (the game's deck size when None). Cached and read-only."""
    if card_size_mm is None:
        from vision.art import card_size_mm as deck_card_size
        card_size_mm = deck_card_size(mat.game)
    return _render_mat(mat, float(px_per_mm), tuple(card_size_mm))


@lru_cache(maxsize=8)
def _render_mat(mat: MatSpec, px_per_mm: float, card: tuple[float, float]) -> np.ndarray:
    canvas = Canvas(mat.size_mm, px_per_mm, background=FELT,
                    supersample=default_supersample(px_per_mm, target=6.0))
    for zone in mat.zones:
        _draw_zone(canvas, zone, card)
    for marker in mat.markers:
        _draw_marker(canvas, mat.dictionary, marker.id, marker.corners_mm[0], marker.size_mm)
    w, h = mat.size_mm
    ids = f"{mat.markers[0].id}-{mat.markers[-1].id}"
    canvas.text(f"TABLE COMPANION · {mat.title.upper()} · {mat.players} PLAYERS · MARKERS {ids}",
                (w * 0.3, h - 10.0, w * 0.4, 4.0), LABEL, bold=0.02)
    image = canvas.to_bgr()
    image.flags.writeable = False
    return image


def _draw_zone(canvas: Canvas, zone: Zone, card: tuple[float, float]) -> None:
    x, y, w, h = zone.rect_mm
    canvas.rect(x, y, w, h, fill=ZONE_FILL, outline=ZONE_LINE, width=0.8, radius=5.0)
    along = h if zone.facing_deg % 180 == 90 else w
    label = canvas.patch((0, 0, along - 12.0, LABEL_MM), ZONE_FILL)
    label.text(zone_label(zone), (0, 0, along - 12.0, LABEL_MM), LABEL, bold=0.03, squeeze=0.8)
    # the label runs along the seat's edge of the zone, upright for that seat
    facing = zone.facing_deg % 360
    inset = 3.0
    if facing == 0:
        canvas.paste_turned(label, x + 6.0, y + h - inset - LABEL_MM, 0)
    elif facing == 180:
        canvas.paste_turned(label, x + 6.0, y + inset, 180)
    elif facing == 90:
        canvas.paste_turned(label, x + inset, y + 6.0, 90)
    else:
        canvas.paste_turned(label, x + w - inset - LABEL_MM, y + 6.0, 270)
    if zone.kind == "field":
        for cx, cy in field_spots(zone, card):
            _spot(canvas, cx, cy, card)
    elif zone.kind == "pile":
        cx, cy = zone.center_mm
        _spot(canvas, cx, cy, card)


def field_spots(zone: Zone, card: tuple[float, float], count: int = 6) -> list[tuple[float, float]]:
    """Centres of the card places of a field: two rows of three."""
    x, y, w, h = zone.rect_mm
    cols, rows = (count + 1) // 2, 2
    return [(x + w * (c + 0.5) / cols, y + h * (r + 0.5) / rows) for r in range(rows) for c in range(cols)]


def _spot(canvas: Canvas, cx: float, cy: float, card: tuple[float, float]) -> None:
    cw, ch = card
    canvas.rect(cx - cw / 2, cy - ch / 2, cw, ch, outline=SPOT, width=0.6, radius=3.0)


def _draw_marker(canvas: Canvas, dictionary: int, marker_id: int, origin: tuple[float, float],
                 size: float) -> None:
    x, y = origin
    canvas.rect(x - QUIET_MM, y - QUIET_MM, size + 2 * QUIET_MM, size + 2 * QUIET_MM, fill=WHITE)
    cells = marker_cells(dictionary, marker_id)
    n = cells.shape[0]
    step = size / n
    for r in range(n):
        for c in range(n):
            if cells[r, c]:
                canvas.rect(x + c * step, y + r * step, step, step, fill=(0, 0, 0))
