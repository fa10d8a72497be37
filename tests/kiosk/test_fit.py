"""The screen players read at 800x480: no label's text is cut (kiosk.fit), the whole hand
is reachable, cards show their pictures, every seat's score shows at 3 and at 14 seats,
and nothing a player reads is under 20 px."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.kiosk

NAMES_14 = ("Ann", "Bea", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jules", "Kai",
            "Lena", "Milo", "Nora")


def _cut(root) -> list[str]:
    from kiosk.fit import overflows

    return [str(o) for o in overflows(root)]


def test_the_fit_check_finds_text_that_is_cut(kiosk_app, pump):
    """A shortened label, a label whose lines run past its height and a button whose
    word is wider than it are all caught; the same words in a big enough box are not."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.label import Label

    from kiosk.fit import overflows
    from kiosk.widgets import Para, Tap, Text

    long = "Legal: the Prentice of Leadership, the Master of Thought and the Student of Art"
    box = BoxLayout(size=(800, 400))
    shortened = Text(text=long, size_hint=(None, None), size=(200, 40))
    too_low = Label(text=long, text_size=(200, None), size_hint=(None, None), size=(200, 40))
    narrow = Tap(text="Architecture", size_hint=(None, None), size=(60, 56))
    fits = Para(text=long, size_hint_x=None, width=700)
    for w in (shortened, too_low, narrow, fits):
        box.add_widget(w)
    box.do_layout()
    pump(2)
    cut = {o.widget for o in overflows(box)}
    assert cut == {shortened, too_low, narrow}


def _start(app, pump, game, names, options):
    app.game_name = game
    assert app.start_game(list(names), options)
    pump()
    while app.menu.chance:
        app.deal()
        pump(2)


def test_fourteen_seats_all_show_with_their_names_and_scores(kiosk_app, pump):
    from kivy.core.window import Window

    from kiosk.widgets import SeatChip

    _start(kiosk_app, pump, "medieval-mastery", NAMES_14, {"rounds": 1})
    pump(3)
    play = kiosk_app.screen("play")
    chips = [c for c in play.ids.scores.children if isinstance(c, SeatChip)]
    assert sorted(c.name for c in chips) == sorted(NAMES_14)
    for chip in chips:
        x, y = chip.to_window(chip.x, chip.y)
        assert x >= 0 and x + chip.width <= Window.width + 1 and y >= 0
        assert y + chip.height <= Window.height + 1, chip.name
        assert chip.width >= 90  # a name in 20 px type and the score
    rows = {round(c.y) for c in chips}
    assert len(rows) == 2
    assert _cut(play.ids.scores) == []


def test_the_whole_hand_is_reachable_by_pages(kiosk_app, pump, touch):
    """A hand wider than the screen turns pages: the page buttons say how many cards
    there are, and every card of the hand shows on some page."""
    from kiosk.widgets import CardButton, HandCard, HandPager

    _start(kiosk_app, pump, "medieval-mastery", NAMES_14[:3], {"rounds": 1})
    pump(3)
    play = kiosk_app.screen("play")
    pager = next(w for w in play.ids.choices.walk() if isinstance(w, HandPager))
    pager.cards = [(c, True, "") for c in ("BP", "VP", "IS", "LS", "WS", "VS", "HC", "WT", "CW",
                                           "BW", "ZW")]
    pager.deck = "ideal"
    pump(3)
    assert pager.pages >= 2 and not pager.ids.more.disabled and pager.span.startswith("Cards 1")
    seen = []
    for _ in range(pager.pages):
        shown = [w for w in pager.ids.row.children if isinstance(w, (CardButton, HandCard))]
        seen.extend(w.code for w in reversed(shown))
        if not pager.ids.more.disabled:
            play.ids.choices_scroll.scroll_to(pager.ids.more, padding=0, animate=False)
            pump(2)
            touch(pager.ids.more)
    assert seen == [c for c, _, _ in pager.cards]


def test_cards_show_their_pictures_with_their_codes(kiosk_app, pump):
    """In the hand and in the trick, a card is its picture (the project's art) and its
    code; the trick names who played each card."""
    from kiosk.widgets import CardButton, CardChip

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    play = kiosk_app.screen("play")
    for _ in range(10):
        if kiosk_app.view.trick:
            break
        menu = kiosk_app.menu
        cards = [c for c in menu.choices if c.kind == "card"]
        if cards and kiosk_app.view.phase.startswith("trick"):
            kiosk_app.play_card(cards[0].label)
        elif menu.choices:
            kiosk_app.bid(next((c for c in menu.choices if c.label == "accept"), menu.choices[-1]).label)
        pump(2)
    pump(3)
    buttons = [w for w in play.ids.choices.walk() if isinstance(w, CardButton)]
    chips = [w for w in play.ids.trick.children if isinstance(w, CardChip)]
    assert buttons and chips
    for w in buttons + chips:
        assert w.face is not None and w.face.size[0] > 50, w.code
    assert {c.owner for c in chips} <= {"Ann", "Bea", "Cleo"}


def test_bidding_shows_the_bidders_hand(kiosk_app, pump):
    """Dealt on screen, the seat that bids sees its hand while it bids."""
    from kiosk.play import ChoiceButton
    from kiosk.widgets import HandCard, HandPager

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    pump(3)
    play = kiosk_app.screen("play")
    assert [c for c in kiosk_app.menu.choices if c.kind == "word"], "Yokir starts with bids"
    pager = next(w for w in play.ids.choices.walk() if isinstance(w, HandPager))
    bidder = kiosk_app.view.players[kiosk_app.view.turn]
    assert pager.title == f"{bidder}'s hand"
    hand = kiosk_app.session.state().hands[kiosk_app.view.turn]
    assert [c for c, _, _ in pager.cards] == list(hand)
    assert all(isinstance(w, HandCard) for w in pager.ids.row.children)  # shown, not played
    assert any(isinstance(w, ChoiceButton) for w in play.ids.choices.children)


def test_the_confirm_button_says_what_it_confirms(kiosk_app, pump):
    from companion.games import Action

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    play = kiosk_app.screen("play")
    state = kiosk_app.session.state()
    seat = state.current_player()
    kiosk_app.session.act(Action.make("play", seat, card="XX"), source="vision")
    pump(3)
    assert play.awaiting
    assert play.ids.confirm.text.endswith(f"Confirm: {kiosk_app.view.players[seat]}'s move does not count")


def test_a_long_limit_scrolls_with_the_choices_and_leaves_them_their_room(kiosk_app, pump):
    """What limits the move (a Medieval Mastery meld at five seats runs to four lines on
    800x480) scrolls with the choices: with it above, the list once shrank to 96 px and a
    two-line meld choice of 108 px could not be scrolled into view."""
    _start(kiosk_app, pump, "medieval-mastery", ("Ann", "Bea", "Cleo", "Dev", "Eli"), {})
    play = kiosk_app.screen("play")
    scroll = play.ids.choices_scroll
    play.limit_text = ""
    pump(3)
    room = scroll.height
    play.limit_text = ("Ann won trick 44: they lay down or rebuild their families and communes "
                       "from the trick and their hand; the Xenocrat of Wands must start a "
                       "Religious commune.")
    pump(3)
    assert play.ids.limit.height > 80
    assert scroll in _ancestors(play.ids.limit)
    assert scroll.height == room >= 150


def test_type_is_20_px_or_more_on_every_label_of_the_play_screen(kiosk_app, pump):
    from kivy.uix.label import Label

    from kiosk import theme

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    pump(3)
    small = [(type(w).__name__, w.text[:30], w.font_size) for w in kiosk_app.screen("play").walk()
             if isinstance(w, Label) and w.text.strip() and w.font_size < 20]
    assert small == []
    assert min(theme.TITLE, theme.HEADING, theme.TURN, theme.BUTTON_TEXT, theme.BODY, theme.SMALL) >= 20


# -- whole games, every move a touch on the play screen ---------------------------------

def _visible_touch(app, pump, widget, done, real: bool = True) -> None:
    """Scroll the choices to `widget` if it lies outside the view, check that it is drawn
    there, and press it. `real`: as a finger does, a touch through the window, which lands
    only where the widget is drawn; Kivy's ScrollView holds such a touch until it knows
    the finger is not swiping (scroll_timeout, on its clock) and then hands it to the
    button, so the finger stays down until the ScrollView lets go (4 or 5 frames a touch).
    Otherwise the button's own press and release, one frame."""
    from kivy.tests.common import UnitTestTouch

    play = app.screen("play")
    scroll = play.ids.choices_scroll
    inside = scroll in _ancestors(widget)
    for _ in range(20 if inside else 0):  # the list may still be laying out or bouncing
        if _in_view(widget, scroll):
            break
        scroll.scroll_to(widget, padding=0, animate=False)
        pump(2)
    assert not inside or _in_view(widget, scroll), f"{widget} cannot be scrolled into view"
    assert not widget.disabled and widget.opacity > 0 and widget.get_root_window() is not None
    if real:
        x, y = widget.to_window(*widget.center)
        t = UnitTestTouch(x, y)
        t.touch_down()
        for _ in range(60 if inside else 1):
            pump(1)
            if not scroll._touch:  # handed to the button: the finger is on it
                break
        t.touch_up()
    else:
        widget.dispatch("on_press")
        widget.dispatch("on_release")
    for _ in range(60):
        if done():
            break
        pump(1)
    pump(1)  # the screen shows what the touch did


def _in_view(widget, scroll) -> bool:
    sx, sy = scroll.to_window(*scroll.pos)
    wx, wy = widget.to_window(*widget.center)
    return sx <= wx <= sx + scroll.width and sy <= wy <= sy + scroll.height


def _ancestors(widget):
    w = widget.parent
    while w is not None and w is not w.parent:
        yield w
        w = w.parent


def _a_move(app, find, rng):
    """What a player at the table touches now, among the buttons on screen: the move the
    game's own bot would make (a random game of Medieval Mastery lasts twice as long),
    turning the hand's page to reach its card. (button, True) for a move, (button,
    False) for a page turn."""
    from kiosk.play import ChoiceButton, CountRow, PickButton
    from kiosk.widgets import CardButton, HandPager, Tap

    play = app.screen("play")
    deal = [b for b in play.buttons() if b.text.endswith("on screen")]
    if deal:
        return deal[0], True
    picks = find(play.ids.choices, PickButton)
    if picks:
        return rng.choice(picks), True
    session = app.session
    want = session.game.bot_action(session.state(), rng)
    for card in find(play.ids.choices, CardButton):
        choice = app.menu.find(card.code)
        if choice is not None and choice.action == want:
            return card, True
    for pager in find(play.ids.choices, HandPager):
        codes = [c for c, playable, _ in pager.cards if playable]
        for code in codes:
            choice = app.menu.find(code)
            if choice is not None and choice.action == want:
                first = pager.page * pager.per_page()
                on = [c for c, _, _ in pager.cards].index(code)
                return (pager.ids.more if on >= first else pager.ids.back), False
    for button in find(play.ids.choices, ChoiceButton):
        if button.choice is not None and button.choice.action == want:
            return button, True
    for row in find(play.ids.choices, CountRow):
        if want in row.count.actions:
            row.value = row.count.values[row.count.actions.index(want)]
            label = row.count.label.capitalize()
            return next(b for b in find(row, Tap) if b.text.startswith(label)), True
    # No button makes the bot's move (a menu that leaves moves out; Piktas's did, until
    # companion.menus listed them all): touch something the screen offers, as a player
    # would, so that the game still ends.
    cards = find(play.ids.choices, CardButton)
    if cards:
        return rng.choice(cards), True
    choices = find(play.ids.choices, ChoiceButton)
    if choices:
        return rng.choice(choices), True
    raise AssertionError(f"nothing to touch: {app.view}")


@pytest.mark.parametrize(("game", "players", "options", "most", "real"), [
    ("yokir", 3, {"target": 1}, 120, True),
    ("piktas", 3, {"rounds": 1}, 200, False),
    ("yonac", 2, {"threshold": 2}, 400, False),
    ("medieval-mastery", 5, {"rounds": 1}, 500, False),
])
def test_a_whole_game_by_touch(kiosk_app, pump, find, game, players, options, most, real):
    """Every move of a whole game is a press of a button of the play screen (scrolled to
    and page-turned to as a player would, and checked to be drawn there), every one
    accepted, until the game is over and stored; the screen then says who won. Yokir's
    presses are real touches through the window; the longer games press the buttons
    themselves (a real touch costs 4 or 5 frames in a ScrollView)."""
    import random

    names = ("Ann", "Bea", "Cleo", "Dev", "Eli")[:players]
    kiosk_app.game_name = game
    assert kiosk_app.start_game(list(names), options)
    pump()
    rng = random.Random(11)
    touches = 0
    while not kiosk_app.view.over:
        button, moves = _a_move(kiosk_app, find, rng)
        events = kiosk_app.view.events
        page = getattr(button.parent.parent, "page", None) if not moves else None

        def done(events=events, button=button, page=page, moves=moves) -> bool:
            if moves:
                return kiosk_app.view.events != events
            return getattr(button.parent.parent, "page", None) != page

        _visible_touch(kiosk_app, pump, button, done, real)
        if moves:
            assert kiosk_app.view.events == events + 1, (button, kiosk_app.view.verdict)
            assert kiosk_app.view.verdict.ok, kiosk_app.view.verdict
        touches += 1
        assert touches < most, f"{game} did not end in {most} touches"
    play = kiosk_app.screen("play")
    assert play.turn_mark.word == "Winner"
    assert kiosk_app.store.game(kiosk_app.session.game_id).status == "finished"


def test_the_camera_follows_a_new_game_on_the_play_screen(kiosk_app, pump, monkeypatch):
    """A feed opened for Yokir (the synthetic table lays out Yokir's mat and deck) is
    opened again when Medieval Mastery starts on the play screen, for its table."""
    from types import SimpleNamespace

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    kiosk_app.go("play")
    pump(3)
    restarts = []
    monkeypatch.setattr(kiosk_app, "restart_camera", lambda: restarts.append(kiosk_app.game_name))
    feed = SimpleNamespace(config=SimpleNamespace(game="yokir", players=3))
    monkeypatch.setattr(type(kiosk_app), "feed", property(lambda self: feed))
    kiosk_app.screen("play")._show()
    assert restarts == []  # the feed is this game's
    _start(kiosk_app, pump, "medieval-mastery", NAMES_14[:4], {"rounds": 1})
    pump(3)
    assert restarts and restarts[-1] == "medieval-mastery"
