"""Zones: which part of the game's mat a card lies in.

A card belongs to the zone under its centre (a card straddling two zones is where most
players would say it is: where its middle is). Outside every zone, or with no mat at
all, it lies on the bare "table". The zones themselves are the mat's (`vision.mats`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from vision.mats import MatSpec, Zone, point_zone
from vision.track import TABLE, Place


def place_of(zone: Zone | None) -> Place:
    """A mat zone as the tracker's Place (None: the bare table)."""
    return TABLE if zone is None else Place(zone.name, zone.kind, zone.seat)


def zone_at(mat: MatSpec | None, x_mm: float, y_mm: float) -> Place:
    """The zone under a point of the mat, or the table."""
    return TABLE if mat is None else place_of(point_zone(mat, x_mm, y_mm))


def card_zone(mat: MatSpec | None, corners_mm: np.ndarray) -> Place:
    """The zone of a card given its corners in mat millimetres: the zone of its centre."""
    cx, cy = np.asarray(corners_mm, np.float64).reshape(4, 2).mean(axis=0)
    return zone_at(mat, float(cx), float(cy))


def locator(mat: MatSpec | None) -> Callable[[float, float], Place]:
    """A `locate(x_mm, y_mm) -> Place` function for the tracker."""
    return lambda x, y: zone_at(mat, x, y)


def zone_outline(zone: Zone) -> np.ndarray:
    """A zone's outline as (4, 2) mm corners, clockwise from its top-left (to draw it)."""
    x, y, w, h = zone.rect_mm
    return np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]], np.float64)
