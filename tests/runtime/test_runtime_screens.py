"""The per-screen controllers (runtime.screens), driven without Kivy on a bare Table."""

from __future__ import annotations

import pytest

from companion.catalog import CATALOG, game_names
from companion.observation import Question
from companion.storage import Store
from runtime.screens import Controllers, Home, Setup, step_for
from runtime.table import Table, TableError
from tests.runtime.conftest import Clock


@pytest.fixture
def ctl(table):
    return Controllers(table)


def test_home_lists_every_game_and_resumes_a_stored_one(ctl):
    assert Home.games() == [(g, CATALOG[g].title, CATALOG[g].min_players, CATALOG[g].max_players)
                            for g in game_names()]
    assert not ctl.home.in_play()
    session = ctl.setup.start("yokir", ["Ann", "Bea", "Cleo"])
    ctl.play.end()
    assert not ctl.home.in_play() and ctl.table.session is None
    resumed = ctl.home.resume(session.game_id)
    assert ctl.home.in_play() and resumed.game_id == session.game_id
    assert list(resumed.players) == ["Ann", "Bea", "Cleo"]


def test_setup_seats_names_swaps_them_and_steps_numbers_within_bounds(ctl):
    names = Setup.first_names("medieval-mastery", ["Ann", "Player 5"])
    assert len(names) == CATALOG["medieval-mastery"].max_players
    assert names[:2] == ["Ann", "Player 5"] and names[2:5] == ["Player 3", "Player 4", "Player 6"]
    assert Setup.seat_name(names, 2, "  ann ") == ["Player 3", "Player 5", "ann", *names[3:]]
    assert Setup.seat_name(names, 0, "Dee")[0] == "Dee"
    assert Setup.seat_name(names, 0, "   ") is None
    yokir = {o.name: o for o in Setup.options("yokir")}
    assert Setup.defaults("yokir")["target"] == yokir["target"].default
    assert Setup.bumped("yokir", "target", 7, 1) == 8
    assert Setup.bumped("yokir", "target", None, 1) == yokir["target"].default + 1
    assert Setup.bumped("yokir", "target", 1, -1) == 1 and Setup.bumped("yokir", "target", 99, 1) == 99
    target = {o.name: o for o in Setup.options("medieval-mastery")}["target"]
    assert step_for(target) == 100 and Setup.bumped("medieval-mastery", "target", 3125, -1) == 3025
    assert ctl.setup.dealer_seats("yokir", 3, {}) == [0, 1, 2]
    assert ctl.setup.dealer_seats("yonac", 3, {}) == []
    assert ctl.setup.stored_players() == []
    ctl.setup.start("yokir", ["Ann", "Bea", "Cleo"])
    assert sorted(ctl.setup.stored_players()) == ["Ann", "Bea", "Cleo"]


def test_play_inputs_do_nothing_without_a_game(ctl):
    assert ctl.play.undo() is False and ctl.play.redo() is False
    assert ctl.play.answer("k", "MT") is None and ctl.play.question_crop("k") is None
    assert ctl.play.known_hand(0) == []
    ctl.play.confirm()
    ctl.play.withdraw("k")
    with pytest.raises(TableError, match="not among the cards offered"):
        ctl.play.play_card("MT")


def test_play_deals_shows_the_known_hand_plays_and_takes_back(ctl):
    session = ctl.setup.start("yokir", ["Ann", "Bea", "Cleo"], {"target": 2}, dealer=1)
    assert ctl.play.known_hand(0) == []  # nothing dealt yet
    ctl.play.deal()
    view = ctl.table.view
    while not any(c.kind == "card" for c in ctl.table.menu.choices):
        ctl.play.bid(ctl.table.menu.choices[-1].label)  # everyone passes the upcard or a suit
        view = ctl.table.view
    hand = ctl.play.known_hand(view.turn)
    assert hand == list(session.state().hands[view.turn]) and len(hand) >= 5
    card = next(c.label for c in ctl.table.menu.choices if c.kind == "card")
    events = ctl.table.view.events
    ctl.play.play_card(card)
    assert ctl.table.view.events == events + 1 and card not in ctl.play.known_hand(view.turn)
    assert ctl.play.undo() and ctl.table.view.events == events and card in ctl.play.known_hand(view.turn)
    assert ctl.play.redo() and ctl.table.view.events == events + 1
    assert ctl.play.known_hand(99) == []


def test_play_shows_and_withdraws_a_question_of_the_camera(ctl):
    session = ctl.setup.start("yokir", ["Ann", "Bea", "Cleo"])
    session.ask(Question("card-1", "play-0", "play", (("MT", 0.6), ("MS", 0.3)), seat=0, crop_png=b"png"))
    assert ctl.play.question_crop("card-1") == b"png"
    ctl.play.withdraw("card-1")
    assert session.questions() == [] and ctl.play.question_crop("card-1") is None


def test_history_loads_finished_and_unfinished_games(ctl):
    assert ctl.history.load() == ([], [], [])
    session = ctl.setup.start("yonac", ["Ann", "Bea"])
    finished, unfinished, ratings = ctl.history.load()
    assert [g.id for g in unfinished] == [session.game_id] and finished == [] and ratings == []


def test_settings_corners_calibration_words_and_no_panel(ctl):
    ctl.settings.add_corner(0.1, 0.2)
    ctl.settings.add_corner(0.9, 0.2)
    with pytest.raises(TableError, match="2 of 4"):
        ctl.settings.save_corners()
    ctl.settings.clear_corners()
    assert ctl.table.corners == []
    ctl.settings.save_corners()  # none: the mat is found by its markers
    assert ctl.table.prefs.corners == ()
    assert ctl.settings.calibration_words() == ""
    with pytest.raises(TableError, match="No camera to calibrate"):
        ctl.settings.calibration_start()
    assert ctl.settings.panel_parts() == [] and ctl.settings.panel_outputs() == []
    assert ctl.settings.light_outputs() is False and ctl.settings.next_light() is False
    with pytest.raises(TableError, match="No panel"):
        ctl.settings.start_pin_test()
    with pytest.raises(TableError, match="Name a camera source"):
        ctl.settings.set_camera_source("  ")
    ctl.settings.set_camera_source("cv:1")
    assert ctl.table.camera_source == "cv:1" and ctl.table.prefs.camera == "cv:1"


def test_settings_lights_each_output_in_turn_until_the_end_or_the_test_stops(tmp_path, monkeypatch):
    monkeypatch.setenv("COMPANION_DATA_DIR", str(tmp_path))
    store = Store(tmp_path / "g.db")
    table = Table(store, source="none", prefs_path=tmp_path / "k.json", panel="keyboard", clock=Clock())
    settings = Controllers(table).settings
    try:
        outputs = [name for name, _ in settings.panel_outputs()]
        assert outputs and settings.light_outputs(step=0.5)
        lit = [table.pin_test.lit]
        while settings.next_light():
            lit.append(table.pin_test.lit)
        assert lit == outputs and table.pin_test.lit == ""
        assert settings.next_light() is False
        assert settings.light_outputs(step=0.5) and settings.next_light()
        settings.stop_pin_test()
        assert table.pin_test is None and settings.next_light() is False
    finally:
        table.close()
        store.close()
