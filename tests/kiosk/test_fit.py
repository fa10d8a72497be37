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


def test_every_screen_fits_at_800x480_for_3_and_14_players(kiosk_app, tmp_path):
    """`make screenshots` drives every screen, for Yokir at 3 seats and Medieval Mastery at
    14; at each, every shown label's text fits its box."""
    from kivy.core.window import Window

    from kiosk.screenshots import SCREENS, capture_all

    problems: dict[str, list[str]] = {}

    def check(path):
        problems[path.stem] = _cut(Window)

    paths = capture_all(kiosk_app, tmp_path, check)
    assert [p.stem for p in paths] == list(SCREENS)
    assert {"play", "play-14", "setup-14"} <= set(problems)
    assert {k: v for k, v in problems.items() if v} == {}


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


def test_type_is_20_px_or_more_on_every_label_of_the_play_screen(kiosk_app, pump):
    from kivy.uix.label import Label

    from kiosk import theme

    _start(kiosk_app, pump, "yokir", ("Ann", "Bea", "Cleo"), {})
    pump(3)
    small = [(type(w).__name__, w.text[:30], w.font_size) for w in kiosk_app.screen("play").walk()
             if isinstance(w, Label) and w.text.strip() and w.font_size < 20]
    assert small == []
    assert min(theme.TITLE, theme.HEADING, theme.TURN, theme.BUTTON_TEXT, theme.BODY, theme.SMALL) >= 20
