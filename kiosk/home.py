"""The home screen: one big tile per registered game, and the ways to history, rules and
settings. A game in play can be taken up again from here."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from kiosk.widgets import Tap


class GameTile(Tap):
    """A game to pick: its title and how many play it."""

    game = StringProperty("")
    caption = StringProperty("")
    players = StringProperty("")


class HomeScreen(Screen):
    """Pick one of the games (the tiles come from the engines' registry)."""

    def on_pre_enter(self, *_: Any) -> None:
        self.refresh()

    def refresh(self) -> None:
        grid = self.ids.games
        grid.clear_widgets()
        for name, title, players in App.get_running_app().game_titles():
            grid.add_widget(GameTile(game=name, caption=title, players=players))

    def tiles(self) -> list[GameTile]:
        return [w for w in reversed(self.ids.games.children) if isinstance(w, GameTile)]
