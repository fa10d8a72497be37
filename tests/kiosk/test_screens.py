"""Every screen builds at 800x480 and reaches its state from the session's view model."""

from __future__ import annotations

import random
import time

import pytest

from companion.games import Action, games
from companion.session import Session

pytestmark = pytest.mark.kiosk


def _on_screen(widget) -> bool:
    """Is the widget inside the 800x480 window (not pushed off by its neighbours)?"""
    x, y = widget.to_window(widget.x, widget.y)
    return x >= -1 and y >= -1 and x + widget.width <= 801 and y + widget.height <= 481


def test_home_lists_every_game_and_a_touch_opens_its_setup(kiosk_app, touch, find):
    from kiosk.home import GameTile

    home = kiosk_app.screen("home")
    tiles = home.tiles()
    assert [t.game for t in tiles] == list(games())
    assert all(_on_screen(t) and t.height >= 56 for t in tiles)
    yokir = next(t for t in tiles if t.game == "yokir")
    touch(yokir)
    assert kiosk_app.root.current == "setup"
    setup = kiosk_app.screen("setup")
    assert setup.game == "yokir" and setup.players == 3 and setup.caption == "Yokir"
    assert find(home, GameTile)  # still there for next time


def test_setup_collects_players_seats_dealer_and_options(kiosk_app, tap, find):
    from kiosk.setup import BoolControl, ChoiceToggle, IntControl, SeatRow

    kiosk_app.store.player("Zoe")
    kiosk_app.refresh_players()
    kiosk_app.choose_game("yonac")
    setup = kiosk_app.screen("setup")
    assert setup.players == 4 and setup.seated() == ["Zoe", "Player 2", "Player 3", "Player 4"]
    assert setup.dealer_seats == []  # Yonac has no deal to choose
    setup.change_players(-5)
    assert setup.players == 2
    setup.change_players(1)
    rows = find(setup, SeatRow)
    assert [r.name for r in rows] == ["Zoe", "Player 2", "Player 3"]
    setup.set_name(2, "Ann")
    setup.set_name(0, "ann")  # a name seated elsewhere swaps the two seats
    assert setup.seated() == ["ann", "Player 2", "Zoe"]

    jokers = find(setup, BoolControl)[0]
    assert jokers.caption == "Off"
    jokers.state = "down"
    tap(jokers)
    assert setup.values["jokers"] is True and jokers.caption == "On"
    threshold = find(setup, IntControl)[0]
    plus = threshold.children[0]
    tap(plus)
    assert setup.values["threshold"] == 3
    tap(plus)  # 4 is more than the 3 seated: the engine refuses it at the start
    assert not kiosk_app.start_game(setup.seated(), dict(setup.values), setup.dealer)
    assert kiosk_app.root.current == "setup" and "threshold" in kiosk_app.message.lower()

    kiosk_app.choose_game("ahyoheek")
    cycle = find(setup, ChoiceToggle)
    assert [c.choice for c in cycle] == ["example", "summary"]
    assert [c.state for c in cycle] == ["down", "normal"]
    tap(cycle[1])
    assert setup.values["cycle"] == "summary"

    kiosk_app.choose_game("yokir")
    assert setup.dealer_seats == [0, 1, 2]
    setup.set_dealer(1)
    assert [r.dealer for r in find(setup, SeatRow)] == [False, True, False]
    tap(setup.ids.start)
    assert kiosk_app.root.current == "play"
    assert kiosk_app.session.game.options == {"target": 7}
    assert kiosk_app.first_dealer == 1


def test_the_name_popup_seats_a_stored_or_typed_name(kiosk_app, tap, find, pump):
    from kivy.core.window import Window

    from kiosk.setup import NameButton, NamePopup

    for n in ("Ann", "Bea", "Cleo", "Dev"):
        kiosk_app.store.player(n)
    kiosk_app.refresh_players()
    kiosk_app.choose_game("yokir")
    setup = kiosk_app.screen("setup")
    setup.ask_name(1)
    pump()
    popup = find(Window, NamePopup)[0]
    names = find(popup, NameButton)
    assert [b.player for b in names] == ["Ann", "Bea", "Cleo", "Dev"]
    tap(names[3])
    assert setup.seated() == ["Ann", "Dev", "Cleo"]
    setup.ask_name(2)
    pump()
    popup = find(Window, NamePopup)[0]
    popup.ids.typed.text = "  Eve   Smith "
    popup.choose(popup.ids.typed.text)
    pump()
    assert setup.seated() == ["Ann", "Dev", "Eve Smith"] and not find(Window, NamePopup)


def _start(app, game, names, **options):
    app.game_name = game
    assert app.start_game(names, options)
    return app.session


def test_play_shows_turn_choices_trick_scores_and_verdict(kiosk_app, pump, tap, find):
    from kiosk.play import ChoiceButton
    from kiosk.widgets import CardButton, CardChip, SeatChip

    session = _start(kiosk_app, "yokir", ["Ann", "Bea", "Cleo"])
    pump()
    play = kiosk_app.screen("play")
    assert kiosk_app.menu.chance == "Deal" and play.turn_text == "Deal"
    deal = play.buttons()[0]
    assert deal.text == "Deal on screen"
    tap(deal)
    view = kiosk_app.view
    assert view.events == 1 and view.turn is not None
    assert play.turn_text == f"{view.players[view.turn]}'s turn"
    bids = find(play.ids.choices, ChoiceButton)
    assert [b.text for b in bids] == ["Accepts the upcard", "Passes"]
    chips = find(play.ids.scores, SeatChip)
    assert [c.name for c in chips] == ["Ann", "Bea", "Cleo"]
    assert [c.turn for c in chips] == [s == view.turn for s in range(3)]
    assert play.verdict_mark.word == "Accepted" and "deals" in play.verdict_text

    tap(bids[0])  # accept: the caller takes the upcard up and discards
    assert kiosk_app.view.phase == "discard"
    cards = find(play.ids.choices, CardButton)
    assert len(cards) == 6 and all(c.code in kiosk_app.view.legal for c in cards)
    tap(cards[0])
    # the first trick: every seat plays the first legal card offered
    for _ in range(3):
        before = kiosk_app.view.trick
        tap(find(play.ids.choices, CardButton)[0])
        assert len(kiosk_app.view.trick) in (len(before) + 1, 0)
    view = kiosk_app.view
    assert not view.trick and view.last_trick["winner"] in (0, 1, 2)
    winner = view.players[view.last_trick["winner"]]
    chips = find(play.ids.trick, CardChip)
    assert len(chips) == 3 and [c.owner for c in chips if c.winner] == [winner]
    assert play.trick_text.endswith(winner)
    assert "wins" in play.verdict_text and "Seat" not in play.verdict_text  # names, not numbers
    assert play.can_undo and not play.can_redo
    assert [c.score for c in find(play.ids.scores, SeatChip)] == ["0", "0", "0"]
    assert session.view() == kiosk_app.view


def test_an_illegal_input_waits_for_confirm_or_undo(kiosk_app, pump, tap):
    session = _start(kiosk_app, "ahyoheek", ["Ann", "Bea"])
    pump()
    play = kiosk_app.screen("play")
    assert play.turn_text == "Everybody" and not play.awaiting
    session.act(Action.make("pick", 5, pick="pen"), source="panel")  # no such seat
    pump()
    assert play.awaiting and not play.ids.confirm.disabled
    assert play.verdict_mark.word == "Confirm or undo" and play.verdict_mark.glyph == "\u2717"
    tap(play.ids.confirm)
    assert not play.awaiting and play.ids.confirm.disabled
    assert play.verdict_mark.word == "Noted"  # the call stands, acknowledged


def test_undo_and_redo_buttons_follow_the_log(kiosk_app, pump, tap, find):
    from kiosk.play import PickButton

    _start(kiosk_app, "ahyoheek", ["Ann", "Bea", "Cleo"])
    pump()
    play = kiosk_app.screen("play")
    assert play.ids.undo.disabled and play.ids.redo.disabled
    page = next(b for b in find(play.ids.choices, PickButton) if b.seat == 1 and b.item == "page")
    tap(page)
    assert kiosk_app.view.table["picked"] == [1] and not play.ids.undo.disabled
    assert "page" not in play.verdict_text, "a pick stays secret until the reveal"
    rows = {b.seat: [] for b in find(play.ids.choices, PickButton)}
    for b in find(play.ids.choices, PickButton):
        rows[b.seat].append(b.item)
    assert all(items == ["pen", "page", "beetle"] for items in rows.values()), "nor do the buttons"
    page = next(b for b in find(play.ids.choices, PickButton) if b.seat == 1 and b.item == "page")
    tap(page)  # the same pick again: nothing happens, nothing shows
    assert kiosk_app.view.events == 1 and kiosk_app.message == ""
    tap(play.ids.undo)
    assert kiosk_app.view.table["picked"] == [] and not play.ids.redo.disabled
    tap(play.ids.redo)
    assert kiosk_app.view.table["picked"] == [1]


def test_camera_and_mat_lost_banners(kiosk_app, pump):
    session = _start(kiosk_app, "yokir", ["Ann", "Bea", "Cleo"])
    pump()
    play = kiosk_app.screen("play")
    assert play.banner_text == ""  # camera deliberately off: no alarm, the badge says so
    kiosk_app.camera_status, kiosk_app.camera_detail = "ok", "reading cards"
    session.set_camera("no camera")
    pump()
    assert play.banner_text.startswith("Camera lost") and play.banner_mark.glyph == "\u25B2"
    session.set_camera("mat lost")
    pump()
    assert play.banner_text.startswith("Mat lost")
    session.set_camera("ok")
    pump()
    assert play.banner_text == ""
    kiosk_app.message = "database is locked"
    pump()
    assert play.banner_text == "database is locked" and play.banner_mark.word == "Illegal"


def test_history_lists_finished_games_ratings_and_resumes(kiosk_app, pump, tap, find):
    from kiosk.history import ResumeRow
    from kiosk.widgets import Para, Tap

    rng = random.Random(4)
    finished = Session.start(kiosk_app.store, "ahyoheek", ["Ann", "Bea"])
    while not finished.view().over:
        finished.step_bot(rng)
    open_game = Session.start(kiosk_app.store, "yokir", ["Ann", "Bea", "Cleo"])
    open_game.step_bot(rng)
    kiosk_app.open_history()
    pump()
    history = kiosk_app.screen("history")
    rows = find(history.ids.rows, Para)
    assert len(rows) == 1 and "Ahyoheek" in rows[0].text
    winner = finished.view().players[finished.view().winners[0]]
    assert f"\u2605[/font] {winner}" in rows[0].text
    history.tab = "ratings"
    pump()
    ratings = find(history.ids.rows, Para)
    assert len(ratings) == 1 and "Ann" in ratings[0].text and "(1 game)" in ratings[0].text
    history.tab = "unfinished"
    pump()
    resume = find(history.ids.rows, ResumeRow)
    assert [r.game_id for r in resume] == [open_game.game_id]
    tap(find(resume[0], Tap)[0])
    assert kiosk_app.root.current == "play" and kiosk_app.session.game_id == open_game.game_id
    assert kiosk_app.view.events == 1 and kiosk_app.game_name == "yokir"


@pytest.mark.parametrize("game", sorted(games()))
def test_rules_show_each_games_page(kiosk_app, pump, find, game):
    from kiosk.text import rules_page
    from kiosk.widgets import Para

    kiosk_app.open_rules(game)
    pump()
    rules = kiosk_app.screen("rules")
    paras = find(rules.ids.page, Para)
    page = rules_page(game)
    if page is None:
        assert "no rules page" in paras[1].text
    else:
        assert len(paras) > 5 and games()[game].title in paras[0].text
    toggles = [t for t in rules.ids.games.children if t.state == "down"]
    assert [t.game for t in toggles] == [game]


def test_settings_tabs_and_camera_source(kiosk_app, pump, tap, find):
    from kiosk.prefs import load
    from kiosk.settings import PresetToggle

    kiosk_app.open_settings()
    pump()
    settings = kiosk_app.screen("settings")
    for tab in ("calibrate", "teach", "pins", "camera"):
        settings.show_tab(tab)
        pump()
        assert settings.ids.tabs.current == tab
    none = next(p for p in find(settings, PresetToggle) if p.source == "none")
    tap(none)
    assert kiosk_app.camera_source == "none" and kiosk_app.camera_status == "off"
    assert load(kiosk_app.prefs_path).camera == "none"


def test_pin_test_shows_presses_and_lights_each_led(kiosk_app, pump):
    from kivy.core.window import Keyboard, Window

    kiosk_app.open_settings()
    settings = kiosk_app.screen("settings")
    settings.show_tab("pins")
    pump()
    parts = [name for name, _, _ in kiosk_app.panel_parts()]
    assert "confirm button" in parts and "seat 1 button 1" in parts
    kiosk_app.start_pin_test()
    for key in ("q", "enter"):
        code = Keyboard.keycodes[key]
        Window.dispatch("on_key_down", code, 0, None, [])
        Window.dispatch("on_key_up", code, 0)
    end = time.monotonic() + 3  # the panel is polled 30 times a second: let that much time pass
    while len(kiosk_app.pin_presses) < 2 and time.monotonic() < end:
        pump(1)
    assert kiosk_app.pin_presses == {"seat 1 button 1": 1, "confirm button": 1}
    outputs = [name for name, _ in kiosk_app.panel_outputs()]
    kiosk_app.light_outputs(step=0)
    lit = []
    for _ in range(len(outputs) + 3):
        lit.append(kiosk_app.lit_part)
        pump(1)
    assert [p for p in dict.fromkeys(lit) if p] == outputs
    assert kiosk_app.lit_part == "" and not any(kiosk_app.panel.lit().values())
    kiosk_app.stop_pin_test()
    assert not kiosk_app.pin_test
