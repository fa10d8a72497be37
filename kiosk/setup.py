"""The setup screen: how many play, who sits where, who deals first, and the game's
options (house rules, Jokers, Threshold, target score), built from the engine's
`options_spec` so every game gets its options without screen code of its own.

The screen only collects the answers; its controller (`runtime.screens.Setup`, as
`app.controllers.setup`) seats the names and steps the numbers, and `app.start_game` hands
the answers to the engine, which checks them (a bad combination comes back as a message,
in the engine's words).
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import (
    BooleanProperty,
    DictProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.popup import Popup
from kivy.uix.screenmanager import Screen
from kivy.uix.textinput import TextInput

from companion.catalog import game_info
from companion.menus import Option
from kiosk.widgets import Tap, Toggle


class SeatRow(BoxLayout):
    """One seat: its number, who sits there (tap to change), and the dealer mark."""

    seat = NumericProperty(0)
    name = StringProperty("")
    can_deal = BooleanProperty(False)
    dealer = BooleanProperty(False)


class OptionRow(BoxLayout):
    """One option of the game: its name, a control for its type, and its help text."""

    option: Option = ObjectProperty(None, rebind=True)
    value = ObjectProperty(None, allownone=True, rebind=True)
    title = StringProperty("")
    help = StringProperty("")
    kind = StringProperty("")  # "bool", "int", "choice" or "text"

    def build(self) -> None:
        """Put in the control this option's type needs (its look is in setup.kv)."""
        holder = self.ids.control
        holder.clear_widgets()
        control = {"bool": BoolControl, "int": IntControl, "choice": ChoiceControl,
                   "text": TextControl}[self.kind](row=self)
        holder.add_widget(control)
        if self.kind == "choice":
            for choice in self.option.choices:
                control.add_widget(ChoiceToggle(row=self, choice=str(choice),
                                                group=f"option-{self.option.name}"))

    def control(self) -> Any:
        """The control widget (for tests)."""
        return self.ids.control.children[0]


class BoolControl(Toggle):
    """On or off; the caption says which, the tick marks on."""

    row = ObjectProperty(None, rebind=True)


class IntControl(BoxLayout):
    """- value +, kept within the option's bounds by the screen."""

    row = ObjectProperty(None, rebind=True)


class ChoiceControl(BoxLayout):
    """One toggle per allowed value."""

    row = ObjectProperty(None, rebind=True)


class ChoiceToggle(Toggle):
    row = ObjectProperty(None, rebind=True)
    choice = StringProperty("")


class TextControl(TextInput):
    row = ObjectProperty(None, rebind=True)


class NamePopup(Popup):
    """Who sits in a seat: a stored player, or a new name typed in."""

    seat = NumericProperty(0)
    names = ListProperty()
    screen = ObjectProperty(None, rebind=True)

    def on_kv_post(self, *_: Any) -> None:
        for name in self.names:
            self.ids.known.add_widget(NameButton(player=name, popup=self))

    def choose(self, name: str) -> None:
        """Seat `name` (typed or tapped) and close."""
        if name.strip():
            self.screen.set_name(self.seat, name)
            self.dismiss(animation=False)


class SetupScreen(Screen):
    """The answers so far: `players` seated, `names` by seat, `dealer` (-1: the game
    decides), `values` of the options."""

    game = StringProperty("")
    caption = StringProperty("")
    players = NumericProperty(0)
    min_players = NumericProperty(0)
    max_players = NumericProperty(0)
    names = ListProperty()
    dealer = NumericProperty(-1)
    dealer_seats = ListProperty()
    values = DictProperty()

    def prepare(self, game: str) -> None:
        """Fresh answers for `game`: its default number of players, stored names first."""
        info = game_info(game)
        app = App.get_running_app()
        setup = app.controllers.setup
        self.game, self.caption = info.name, info.title
        self.min_players, self.max_players = info.min_players, info.max_players
        self.names = setup.first_names(info.name, list(app.stored_players))
        self.values = setup.defaults(info.name)
        self.dealer = -1
        self.players = info.default_players
        self._build_options(setup.options(info.name))
        self._refresh()

    # -- answers ----------------------------------------------------------------------
    def change_players(self, delta: int) -> None:
        self.players = max(self.min_players, min(self.max_players, self.players + delta))
        self._refresh()

    def set_name(self, seat: int, name: str) -> None:
        """Seat `name` at `seat`; a name already seated elsewhere swaps the two seats."""
        names = App.get_running_app().controllers.setup.seat_name(self.names, seat, name)
        if names is None:
            return
        self.names = names
        self._refresh()

    def set_dealer(self, seat: int) -> None:
        self.dealer = seat if seat != self.dealer else -1
        self._refresh()

    def set_option(self, name: str, value: Any) -> None:
        self.values = {**self.values, name: value}
        for row in self.ids.options.children:
            if isinstance(row, OptionRow) and row.option.name == name:
                row.value = value
        self._refresh()

    def bump_option(self, name: str, direction: int) -> None:
        """+ or - on a whole-number option, kept within its bounds."""
        setup = App.get_running_app().controllers.setup
        self.set_option(name, setup.bumped(self.game, name, self.values.get(name), direction))

    def seated(self) -> list[str]:
        return list(self.names[:self.players])

    def ask_name(self, seat: int) -> None:
        app = App.get_running_app()
        NamePopup(seat=seat, names=list(app.stored_players), screen=self,
                  title=f"Seat {seat + 1}: who sits here?").open()

    # -- building ---------------------------------------------------------------------
    def _build_options(self, spec: tuple[Option, ...]) -> None:
        box = self.ids.options
        box.clear_widgets()
        for option in spec:
            if option.type is bool:
                kind = "bool"
            elif option.type is int:
                kind = "int"
            elif option.choices:
                kind = "choice"
            else:
                kind = "text"
            row = OptionRow(option=option, value=self.values.get(option.name), kind=kind,
                            title=option.name.replace("_", " ").capitalize(), help=option.help)
            box.add_widget(row)
            row.build()

    def _refresh(self) -> None:
        app = App.get_running_app()
        self.dealer_seats = app.dealer_seats(self.game, int(self.players), dict(self.values))
        if self.dealer not in self.dealer_seats:
            self.dealer = -1
        box = self.ids.seats
        box.clear_widgets()
        for seat in range(int(self.players)):
            box.add_widget(SeatRow(seat=seat, name=self.names[seat], can_deal=seat in self.dealer_seats,
                                   dealer=seat == self.dealer))


class NameButton(Tap):
    """A stored player's name in the name popup."""

    player = StringProperty("")
    popup = ObjectProperty(None, rebind=True)
