"""The play screen: the live camera view with the recognised cards, whose turn, the legal
plays or the rule that limits them, the trick and its winner, the scores, the referee's
last verdict in words, undo / redo / confirm, and a banner when the camera or the mat is
lost.

Everything shown comes from the session's `ViewModel` (`app.view`) and the engine's
legal actions as `app.menu` labels them; this module only lays them out and turns seat
numbers into names. Buttons call the app's verbs (`play_card`, `bid`, `pick`, `deal`,
`count`, `choose`, `undo`, `redo`, `confirm`).

When the camera asks about a card it cannot name (`view.question`), the question takes
the middle of the screen (the camera view, the choices and the verdict step aside): the
card as the camera sees it, and the likely cards as big buttons; one touch answers
(`Session.answer`), "none of these" withdraws the question and the choices come back.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Sequence
from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.screenmanager import Screen

from companion.viewmodel import QuestionView, ViewModel
from kiosk import theme
from kiosk.cardart import game_deck
from kiosk.choices import Choice, Count, Menu
from kiosk.text import brief, escape, name_seats, verdict_words, words_text
from kiosk.widgets import CardChip, HandPager, Para, SeatChip, Tap

log = logging.getLogger(__name__)


def _name(players: Sequence[str], seat: Any) -> str:
    if isinstance(seat, int) and 0 <= seat < len(players):
        return players[seat]
    return "?"


def trick_cards(view: ViewModel) -> tuple[list[tuple[int, str]], int | None, str]:
    """The cards to show in the trick row: (seat, code) pairs, the winning seat (None
    while the trick is open) and why it won. An empty trick shows the last one."""
    if view.trick:
        return [(int(p.get("seat", -1)), str(p.get("card", "?"))) for p in view.trick], None, ""
    last = view.last_trick
    if not isinstance(last, dict) or not last.get("cards"):
        return [], None, ""
    cards = last["cards"]
    seats = last.get("seats") or []
    pairs: list[tuple[int, str]] = []
    for i, c in enumerate(cards):
        if isinstance(c, dict):
            pairs.append((int(c.get("seat", -1)), str(c.get("card", "?"))))
        else:
            pairs.append((int(seats[i]) if i < len(seats) else -1, str(c)))
    winner = last.get("winner")
    return pairs, winner if isinstance(winner, int) else None, str(last.get("why") or "")


def table_cards(view: ViewModel) -> tuple[str, list[tuple[int, str]]]:
    """Cards that lie face up in the middle when there is no trick: Piktas's field,
    Yonac's set. (title, [(seat or -1, code)])."""
    t = view.table or {}
    field_cards = t.get("field")
    if isinstance(field_cards, list) and field_cards:
        codes = [str(c.get("card", "?")) if isinstance(c, dict) else str(c) for c in field_cards]
        return "The field", [(-1, c) for c in codes]
    set_cards = t.get("set")
    if isinstance(set_cards, list) and set_cards and all(isinstance(c, str) for c in set_cards):
        return "The set", [(-1, c) for c in set_cards]
    return "", []


def confirm_words(view: ViewModel | None) -> str:
    """What the confirm button confirms: that the refused move does not count."""
    verdict = view.verdict if view is not None else None
    if verdict is None or not verdict.awaiting:
        return "Confirm a refused move"
    if isinstance(verdict.seat, int) and 0 <= verdict.seat < len(view.players):
        return f"Confirm: {view.players[verdict.seat]}'s move does not count"
    return "Confirm: the move does not count"


def table_facts(view: ViewModel) -> str:
    """A line of the game's extras that players look up all the time (dealer, upcard,
    pile, stock), from whichever of these keys the engine's view has."""
    t, players = view.table or {}, view.players
    facts = []
    if isinstance(t.get("dealer"), int):
        facts.append(f"Dealer: {_name(players, t['dealer'])}")
    if t.get("upcard"):
        said = (getattr(view, "facts_words", None) or {}).get("upcard_state")
        state = f" ({words_text(said, players, str(t['upcard_state']))})" if t.get("upcard_state") else ""
        facts.append(f"Upcard: {t['upcard']}{state}")
    if isinstance(t.get("target"), int):
        facts.append(f"Playing to {t['target']}")
    if isinstance(t.get("pile"), int):
        facts.append(f"Pile: {t['pile']} cards")
    if isinstance(t.get("stock"), int):
        facts.append(f"Stock: {t['stock']} cards")
    return " \u00B7 ".join(facts)


class ChoiceButton(Tap):
    """A choice the engine offers, worded by it ("Accepts the upcard", "Passes")."""

    choice: Choice | None = ObjectProperty(None, allownone=True, rebind=True)
    index = NumericProperty(0)
    words = StringProperty("")  # the choice's words as shown: seats named, cut to fit


class PickButton(Tap):
    """One seat's secret pick (Ahyoheek)."""

    seat = NumericProperty(0)
    item = StringProperty("")


class PickRow(BoxLayout):
    """A seat's pick buttons; once it has picked, a tick says so (never what)."""

    seat = NumericProperty(0)
    name = StringProperty("")
    picked = BooleanProperty(False)


class CountRow(BoxLayout):
    """A number to choose (Yonac: how many cards to collect): - n + and the button."""

    count: Count | None = ObjectProperty(None, allownone=True, rebind=True)
    index = NumericProperty(0)
    value = NumericProperty(1)
    low = NumericProperty(1)
    high = NumericProperty(1)

    def bump(self, delta: int) -> None:
        self.value = max(self.low, min(self.high, self.value + delta))


class AnswerButton(Tap):
    """One likely card for the card the camera asks about: the code large, its name."""

    key = StringProperty("")
    code = StringProperty("")
    name = StringProperty("")


def crop_texture(png: bytes) -> Any:
    """The Kivy texture of a question's crop (PNG bytes), or None when it cannot be read."""
    if not png:
        return None
    from kivy.core.image import Image as CoreImage

    try:
        return CoreImage(io.BytesIO(png), ext="png").texture
    except Exception:  # a damaged picture must not take the question with it
        log.exception("the camera's crop of a card cannot be shown")
        return None


def score_columns(players: int) -> int:
    """Score chips per row: one row up to seven seats, two rows past that (14 seats: 7
    chips of 110 px a row, each name in 20 px type, wrapped when long)."""
    return players if players <= 7 else -(-players // 2)


class PlayScreen(Screen):
    """The game in play, as the latest view model shows it."""

    caption = StringProperty("")
    facts = StringProperty("")
    turn_text = StringProperty("")
    turn_mark = ObjectProperty(theme.TURN_MARK, rebind=True)
    limit_text = StringProperty("")
    verdict_text = StringProperty("")
    verdict_mark = ObjectProperty(theme.INFO, rebind=True)
    trick_text = StringProperty("")
    banner_text = StringProperty("")
    banner_mark = ObjectProperty(theme.WARNING, rebind=True)
    over = BooleanProperty(False)
    awaiting = BooleanProperty(False)
    can_undo = BooleanProperty(False)
    can_redo = BooleanProperty(False)
    trick = ListProperty()  # (seat, code, owner, winner) for the chips, for tests
    confirm_text = StringProperty("Confirm a refused move")
    asking = BooleanProperty(False)  # a card the camera cannot name is on screen

    def on_kv_post(self, *_: Any) -> None:
        app = App.get_running_app()
        # One rebuild per frame at most, in the same frame as the change (-1: before drawing).
        self._refresh = Clock.create_trigger(self._show, -1)
        self._built: dict[str, Any] = {}  # what the lists show now, to rebuild only on change
        app.bind(view=self._refresh, menu=self._refresh, camera_status=self._banner,
                 camera_detail=self._banner, message=self._banner)
        self._show()

    # -- the picture ---------------------------------------------------------------------
    def _show(self, *_: Any) -> None:
        app = App.get_running_app()
        view: ViewModel | None = app.view
        if view is None:
            return
        players = view.players
        phase = f" \u00B7 {escape(view.phase)}" if view.phase else ""
        self.caption = f"[b]{escape(view.title)}[/b]{phase}"
        trump = (view.table or {}).get("trump_name")
        if trump:
            self.caption += f" \u00B7 {escape(str(trump))} trump"
        self.facts = escape(table_facts(view))
        self.over = view.over
        self.can_undo, self.can_redo = view.can_undo, view.can_redo
        verdict = view.verdict
        self.awaiting = bool(verdict and verdict.awaiting)
        self.confirm_text = escape(confirm_words(view))
        menu: Menu = app.menu
        if view.over:
            who = " and ".join(_name(players, w) for w in view.winners) or "Nobody"
            self.turn_mark = theme.WINNER
            self.turn_text = f"{escape(who)} {'win' if len(view.winners) > 1 else 'wins'}"
            self.limit_text = escape(words_text(view.next_words, players, view.next))
        elif view.turn is not None and len(menu.seats) <= 1 and not menu.chance:
            self.turn_mark = theme.TURN_MARK
            self.turn_text = f"{escape(_name(players, view.turn))}'s turn"
            self.limit_text = escape(words_text(view.limit_words, players, view.limit) if view.limit
                                     else brief(words_text(view.next_words, players, view.next)))
        else:
            self.turn_mark = theme.INFO
            self.turn_text = "Everybody" if len(menu.seats) > 1 else (menu.chance or "Next")
            self.limit_text = escape(brief(words_text(view.next_words, players, view.next)))
        if verdict is not None:
            self.verdict_mark = theme.verdict_mark(verdict.ok, verdict.awaiting)
            text = verdict_words(verdict, players)
            if not verdict.ok and verdict.rule and "rule" not in text.lower():
                text += f" (Rule: {verdict.rule}.)"  # a limit: it names no seat
            self.verdict_text = f"[b]{escape(self.verdict_mark.word)}:[/b] {escape(text)}"
        else:
            self.verdict_mark = theme.INFO
            self.verdict_text = escape(words_text(view.next_words, players, view.next))
        self._camera_for(view)
        self._scores(view, len(menu.seats) > 1)
        self._trick(view)
        self._choices(view, menu)
        self._question(view)
        self._banner()

    def _camera_for(self, view: ViewModel) -> None:
        """The camera shows this game's table: a feed opened for another game (or another
        number of players: the synthetic table lays out that game's mat for them) is
        opened again when a new game starts on this screen."""
        app = App.get_running_app()
        config = getattr(getattr(app, "feed", None), "config", None)
        if config is None or self.manager is None or self.manager.current != self.name:
            return
        if (config.game, config.players) not in ((view.game, len(view.players)), (None, None)):
            app.restart_camera()

    def _scores(self, view: ViewModel, simultaneous: bool) -> None:
        """The score strip: the chips are kept and updated (only a new game makes new ones).
        When every seat chooses at once (Ahyoheek), no seat is marked as the one to act."""
        box = self.ids.scores
        chips = list(reversed(box.children))
        if len(chips) != len(view.players):
            box.clear_widgets()
            box.cols = score_columns(len(view.players))
            chips = [SeatChip(seat=seat) for seat in range(len(view.players))]
            for chip in chips:
                box.add_widget(chip)
        out = set((view.table or {}).get("eliminated") or ())
        for seat, (chip, name) in enumerate(zip(chips, view.players, strict=True)):
            chip.name = name
            chip.score = str(view.scores[seat]) if seat < len(view.scores) else ""
            chip.turn = view.turn == seat and not view.over and not simultaneous
            chip.winner = seat in view.winners
            chip.out = seat in out

    def _trick(self, view: ViewModel) -> None:
        """The trick (or the last one, with its winner), else the cards face up in the
        middle (Piktas's field, Yonac's set), as pictures with their codes."""
        pairs, winner, _why = trick_cards(view)
        title = ""
        if not pairs:
            title, pairs = table_cards(view)
        rows = [(seat, code, _name(view.players, seat) if seat >= 0 else "",
                 winner is not None and seat == winner) for seat, code in pairs]
        deck = game_deck(view.game) or ""
        if rows != self.trick:
            box = self.ids.trick
            box.clear_widgets()
            kept = self._built.get("chips", {})
            made = {}
            for row in rows:
                seat, code, owner, won = row
                chip = kept.get((row, deck)) or CardChip(code=code, deck=deck, owner=owner,
                                                         seat=seat, winner=won)
                made[(row, deck)] = chip
                box.add_widget(chip)
            self._built["chips"] = made  # the next trick reuses the chips that stay
            self.trick = rows
            self.ids.trick_scroll.scroll_x = 0
        more = len(rows) > 3
        if winner is not None:
            self.trick_text = (f"Last trick: {theme.symbol(theme.STAR)} "
                               f"{escape(_name(view.players, winner))}")
        elif title:
            self.trick_text = f"{title} ({len(rows)})" if more else title
        else:
            self.trick_text = f"This trick ({len(rows)})" if more else ("This trick" if pairs else "")

    def _choices(self, view: ViewModel, menu: Menu) -> None:
        picked = tuple((view.table or {}).get("picked") or ())
        key = (view.game, view.over, menu, picked, tuple(view.players))
        if self._built.get("choices") == key:
            return
        self._built["choices"] = key
        box = self.ids.choices
        box.clear_widgets()
        app = App.get_running_app()
        if view.over:
            row = BoxLayout(size_hint_y=None, height=dp(theme.TARGET), spacing=dp(theme.GAP))
            row.add_widget(Tap(text="New game", tint=theme.GREEN,
                               on_release=lambda *_: app.choose_game(view.game)))
            row.add_widget(Tap(text="Home", on_release=lambda *_: app.end_game()))
            box.add_widget(row)
            return
        if menu.chance:
            box.add_widget(Tap(text=f"{menu.chance} on screen", tint=theme.GREEN,
                               size_hint_y=None, height=dp(theme.TARGET),
                               on_release=lambda *_: app.deal()))
            box.add_widget(Para(text="The companion shuffles and deals, and every hand is shown "
                                     "on screen (open hands, for learning).",
                                color=theme.TEXT_DIM))
            return
        if len(menu.seats) > 1:
            for seat in menu.seats:
                row = PickRow(seat=seat, name=_name(view.players, seat), picked=seat in picked)
                for choice in menu.for_seat(seat):
                    row.ids.buttons.add_widget(PickButton(seat=seat, item=choice.label))
                box.add_widget(row)
            return
        cards = [c for c in menu.choices if c.kind == "card"]
        deck = game_deck(view.game) or ""
        hand = app.controllers.play.known_hand(view.turn)
        playable = {c.label: c for c in cards}
        shown_after = None  # a hand to look at while choosing (bidding): under the choices
        if hand and (not cards or set(playable) <= set(hand)):
            # the whole hand, the cards the seat may play pressable (open hands: dealt on
            # screen); while bidding, the bidder sees the hand it bids on
            pager = self._hand([(code, code in playable, playable[code].detail
                                 if code in playable else "") for code in hand], deck,
                               "" if cards else escape(f"{_name(view.players, view.turn)}'s hand"))
            if cards:
                box.add_widget(pager)
            else:
                shown_after = pager
        elif cards:
            box.add_widget(self._hand([(c.label, True, c.detail) for c in cards], deck, ""))
        for i, c in enumerate(menu.choices):
            if c.kind != "card":
                words = name_seats(c.detail, view.players)
                box.add_widget(ChoiceButton(choice=c, index=i, words=escape(words)))
        for i, count in enumerate(menu.counts):
            box.add_widget(CountRow(count=count, index=i, low=count.values[0], high=count.values[-1],
                                    value=count.values[0]))
        if menu.note:
            box.add_widget(Para(text=escape(menu.note), color=theme.TEXT_DIM))
        if shown_after is not None:
            box.add_widget(shown_after)
        self.ids.choices_scroll.scroll_y = 1

    def _hand(self, cards: list[tuple[str, bool, str]], deck: str, title: str) -> HandPager:
        """The hand pager, one for the screen's life: it keeps its card widgets, so a move
        rebuilds only the cards that changed."""
        pager = self._built.get("pager")
        if pager is None:
            pager = self._built["pager"] = HandPager()
        if pager.parent is not None:
            pager.parent.remove_widget(pager)
        pager.deck, pager.title = deck, title
        if [tuple(c) for c in pager.cards] != cards:
            pager.cards = cards
        return pager

    def _question(self, view: ViewModel) -> None:
        """The card the camera cannot name: its crop beside one button per likely card."""
        question = None if view.over else view.question
        key = (question, tuple(view.players))
        if self._built.get("question") == key:
            return
        self._built["question"] = key
        box = self.ids.question
        box.clear_widgets()
        self.asking = question is not None
        if question is None:
            return
        left = BoxLayout(orientation="vertical", size_hint_x=0.3, spacing=dp(theme.GAP))
        texture = self._crop(question)
        if texture is not None:
            left.add_widget(Image(texture=texture, fit_mode="contain"))
        else:
            left.add_widget(Para(text="(no picture of the card)", color=theme.TEXT_DIM, halign="center"))
        left.add_widget(Tap(text="None of these", size_hint_y=None, height=dp(theme.TARGET),
                            on_release=lambda *_: self.withdraw(question.key)))
        box.add_widget(left)
        right = BoxLayout(orientation="vertical", spacing=dp(theme.GAP))
        where = (f"in front of {_name(view.players, question.seat)}" if question.seat is not None
                 else f"in {question.zone}")
        more = f" ({question.waiting} cards to name)" if question.waiting > 1 else ""
        right.add_widget(Para(text=f"[b]Which card is this?[/b] The camera sees it {escape(where)} "
                                   f"but cannot name it for sure{more}.", color=theme.TEXT))
        for code, name in question.candidates:
            right.add_widget(AnswerButton(key=question.key, code=code, name=escape(name)))
        right.add_widget(BoxLayout())  # the buttons sit at the top, the rest is space
        box.add_widget(right)

    def _crop(self, question: QuestionView) -> Any:
        if not question.crop:
            return None
        png = App.get_running_app().controllers.play.question_crop(question.key)
        return crop_texture(png) if png is not None else None  # None: answered or withdrawn meanwhile

    def answer(self, key: str, code: str) -> Any:
        """One touch names the card the camera asked about; the referee judges it."""
        # a refusal (answered by a seat button meanwhile, storage trouble) goes to app.message
        return App.get_running_app().answer(key, code)

    def withdraw(self, key: str) -> None:
        """Let the players enter the card by touch instead."""
        App.get_running_app().withdraw(key)

    def _banner(self, *_: Any) -> None:
        app = App.get_running_app()
        view = app.view
        if app.message:
            self.banner_mark = theme.ILLEGAL
            self.banner_text = escape(app.message)
        elif view is not None and view.camera != "ok" and app.camera_status != "off":
            self.banner_mark = theme.camera_mark(view.camera)
            what = "Camera lost" if view.camera == "no camera" else "Mat lost"
            detail = f" ({app.camera_detail})" if app.camera_detail else ""
            self.banner_text = escape(f"{what}: enter plays by touch{detail}")
        else:
            self.banner_text = ""

    # -- for tests and the screenshot tool ---------------------------------------------
    def buttons(self, cls: type | None = None) -> list[Any]:
        """The buttons in the choices area (of class `cls`), in screen order."""
        found: list[Any] = []

        def walk(w: Any) -> None:
            for child in reversed(w.children):
                if isinstance(child, Tap) and (cls is None or isinstance(child, cls)):
                    found.append(child)
                walk(child)
        walk(self.ids.choices)
        return found
