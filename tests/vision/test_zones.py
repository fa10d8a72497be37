"""Zones: a card belongs to the zone under its centre, else to the bare table."""

from __future__ import annotations

import numpy as np
import pytest

from vision.mats import get_mat, mat_games
from vision.track import TABLE, Detection, Tracker
from vision.zones import card_zone, locator, place_of, zone_at, zone_outline


@pytest.mark.parametrize("game", mat_games())
def test_every_zone_claims_its_own_centre(game):
    mat = get_mat(game)
    for zone in mat.zones:
        place = zone_at(mat, *zone.center_mm)
        assert (place.zone, place.kind, place.seat) == (zone.name, zone.kind, zone.seat)


def test_a_card_straddling_two_zones_is_where_its_centre_is():
    mat = get_mat("yonac", 4)
    zone = mat.zone("set-0")
    x, y, w, _ = zone.rect_mm
    card = np.array([[x + w - 20, y + 10], [x + w + 43, y + 10], [x + w + 43, y + 98], [x + w - 20, y + 98]])
    assert card_zone(mat, card).zone != "set-0"  # centre beyond the right edge
    card[:, 0] -= 40
    assert card_zone(mat, card) == place_of(zone)


def test_outside_every_zone_and_without_a_mat_is_the_table():
    mat = get_mat("yokir")
    assert zone_at(mat, 1.0, 1.0) == TABLE
    assert zone_at(None, 100.0, 100.0) == TABLE


def test_the_tracker_reports_the_mat_zone_and_seat():
    mat = get_mat("piktas", 4)
    zone = mat.zones_of("field")[0]
    tracker = Tracker(locator(mat))
    events = []
    for f in range(5):
        events += tracker.update([Detection(zone.center_mm, "raven", 0.9)], f / 30, frame=f)
    assert [(e.kind, e.zone, e.zone_kind, e.seat) for e in events] == [("placed", zone.name, "field", None)]


def test_a_zone_outline_runs_clockwise_from_its_top_left():
    zone = get_mat("yokir").zone("trick")
    outline = zone_outline(zone)
    x, y, w, h = zone.rect_mm
    assert outline[0].tolist() == [x, y] and outline[2].tolist() == [x + w, y + h]
