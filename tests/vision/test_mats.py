"""Play mats as data: markers in the corners, zones inside the mat and apart, seats in
order, and markers that OpenCV finds in the drawn mat where the data says."""

from __future__ import annotations

import itertools

import cv2
import numpy as np
import pytest

from companion.errors import BadOption, UnknownGame
from vision.art.mat import render_mat
from vision.mats import MAT_GAMES, QUIET_MM, ZONE_KINDS, get_mat, mat_games, point_zone
from vision.synthetic import Scene, SyntheticCamera

ALL = [(g, n) for g, spec in MAT_GAMES.items() for n in range(spec.min_players, spec.max_players + 1)]


def _overlap(a, b) -> bool:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


@pytest.mark.parametrize(("game", "players"), ALL, ids=[f"{g}-{n}" for g, n in ALL])
def test_zones_lie_inside_the_mat_apart_from_each_other_and_the_markers(game, players):
    mat = get_mat(game, players)
    w, h = mat.size_mm
    assert len(mat.markers) == 4 and len(set(mat.marker_ids)) == 4
    quiet = [(m.corners_mm[0][0] - QUIET_MM, m.corners_mm[0][1] - QUIET_MM, m.size_mm + 2 * QUIET_MM,
              m.size_mm + 2 * QUIET_MM) for m in mat.markers]
    for box in quiet:
        assert box[0] >= 0 and box[1] >= 0 and box[0] + box[2] <= w and box[1] + box[3] <= h
    for zone in mat.zones:
        x, y, zw, zh = zone.rect_mm
        assert zone.kind in ZONE_KINDS
        assert x >= 0 and y >= 0 and x + zw <= w and y + zh <= h, zone.name
        assert not any(_overlap(zone.rect_mm, box) for box in quiet), zone.name
    for a, b in itertools.combinations(mat.zones, 2):
        assert not _overlap(a.rect_mm, b.rect_mm), (a.name, b.name)
    assert len({z.name for z in mat.zones}) == len(mat.zones)
    assert sorted({z.seat for z in mat.zones if z.seat is not None}) == list(range(players))


def test_markers_sit_in_the_corners_clockwise_from_top_left():
    mat = get_mat("yokir")
    w, h = mat.size_mm
    centres = [m.center_mm for m in mat.markers]
    assert centres[0][0] < w / 2 and centres[0][1] < h / 2
    assert centres[1][0] > w / 2 and centres[1][1] < h / 2
    assert centres[2][0] > w / 2 and centres[2][1] > h / 2
    assert centres[3][0] < w / 2 and centres[3][1] > h / 2
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = mat.markers[0].corners_mm
    assert x1 > x0 and y1 == y0 and (x2, y2) == (x1, y1 + x1 - x0) and (x3, y3) == (x0, y2)


def test_each_game_has_its_own_markers_and_the_zones_it_needs():
    ids = [set(get_mat(g).marker_ids) for g in mat_games()]
    assert all(not (a & b) for a, b in itertools.combinations(ids, 2))
    yokir = get_mat("yokir")
    assert [z.name for z in yokir.zones_of("play")] == ["play-0", "play-1", "play-2"]
    assert yokir.zone("trick").kind == "trick" and yokir.zone("upcard").kind == "pile"
    piktas = get_mat("piktas", 6)
    assert piktas.zone("field").kind == "field" and len(piktas.zones_of("play")) == 6
    yonac = get_mat("yonac", 3)
    assert yonac.zone("pile").kind == "pile"
    assert {z.kind for z in yonac.seat_zones(2)} == {"play", "stash"}
    mm = get_mat("medieval-mastery", 5)
    assert mm.zone("trick").kind == "trick" and mm.zone("stock").kind == "pile"
    assert len(mm.zones_of("meld")) == 5


def test_bigger_tables_get_bigger_mats():
    assert get_mat("piktas", 2).size_mm == get_mat("piktas", 6).size_mm
    w2, h2 = get_mat("piktas", 2).size_mm
    w11, h11 = get_mat("piktas", 11).size_mm
    assert w11 * h11 > w2 * h2


def test_seats_go_clockwise_from_the_bottom():
    mat = get_mat("piktas", 4)
    facing = [mat.zone(f"show-{s}").facing_deg for s in range(4)]
    assert facing == [0.0, 90.0, 180.0, 270.0]
    bottom, left, top, right = (mat.zone(f"show-{s}").center_mm for s in range(4))
    w, h = mat.size_mm
    assert bottom[1] > h * 0.7 and left[0] < w * 0.3 and top[1] < h * 0.3 and right[0] > w * 0.7


def test_point_zone_finds_the_zone_under_a_point():
    mat = get_mat("yokir")
    for zone in mat.zones:
        assert point_zone(mat, *zone.center_mm) == zone
    assert point_zone(mat, 1.0, 1.0) is None


def test_opencv_finds_the_markers_of_a_drawn_mat_where_the_data_says():
    for game in mat_games():
        mat = get_mat(game)
        px = 2.0
        image = render_mat(mat, px)
        detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(mat.dictionary))
        corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        assert ids is not None and sorted(ids.ravel().tolist()) == sorted(mat.marker_ids)
        found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
        for marker in mat.markers:
            expected = np.array(marker.corners_mm) * px - 0.5  # pixel centres
            assert np.abs(found[marker.id] - expected).max() < 1.5, (game, marker.id)


def test_opencv_finds_the_markers_in_a_photograph_of_the_mat():
    for game in mat_games():
        mat = get_mat(game, MAT_GAMES[game].max_players)  # the largest mat, the fewest pixels per mm
        camera = SyntheticCamera(mat, game, seed=4, size=(1280, 720), degrade="typical")
        image, _ = camera.render(Scene(mat, game))
        detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(mat.dictionary))
        corners, ids, _ = detector.detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
        assert ids is not None and sorted(ids.ravel().tolist()) == sorted(mat.marker_ids), game
        found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners, strict=True)}
        for marker in mat.markers:
            expected = np.array(camera.mat_to_frame(list(marker.corners_mm)))
            assert np.abs(found[marker.id] - expected).max() < 3.0, (game, marker.id)


def test_the_drawn_mat_has_the_mats_size():
    mat = get_mat("medieval-mastery", 3)
    assert render_mat(mat, 1.0).shape == (500, 700, 3)


@pytest.mark.parametrize(("game", "players", "error", "words"), [
    ("chess", None, UnknownGame, "no mat for game 'chess'"),
    ("pictas", None, UnknownGame, "did you mean piktas?"),
    ("yokir", 4, BadOption, "the Yokir mat seats 3 players, got 4"),
    ("piktas", 1, BadOption, "the Piktas mat seats 2 to 11 players, got 1"),
    ("yonac", "four", BadOption, "players must be a whole number, got 'four'"),
])
def test_bad_games_and_player_counts_are_one_line_errors(game, players, error, words):
    with pytest.raises(error) as err:
        get_mat(game, players)
    assert words in str(err.value) and "\n" not in str(err.value)


def test_game_names_are_forgiving():
    assert get_mat("Medieval Mastery") == get_mat("medieval_mastery") == get_mat("medieval-mastery")
