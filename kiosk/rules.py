"""The rules screen: each game's rules as the engine applies them, from docs/games/GAME.md
(the same pages the engines' doc tests hold them to), in large type."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.metrics import sp
from kivy.properties import StringProperty
from kivy.uix.screenmanager import Screen

from companion.catalog import CATALOG
from kiosk import theme
from kiosk.text import Block, escape, rule_blocks, rules_page
from kiosk.widgets import Para, Toggle

_SIZES = {"h1": theme.TITLE, "h2": theme.HEADING, "h3": theme.BUTTON_TEXT}


class GameToggle(Toggle):
    game = StringProperty("")


def block_widget(block: Block) -> Para:
    """One block of a rules page as a paragraph label."""
    if block.kind in _SIZES:
        return Para(text=f"[b]{block.markup}[/b]", font_size=sp(_SIZES[block.kind]),
                    color=theme.SKY if block.kind == "h1" else theme.TEXT)
    if block.kind == "li":
        mark = block.number or "\u2022"
        indent = "    " * (block.level + 1)
        return Para(text=f"{indent}{mark} {block.markup}")
    if block.kind == "row":
        return Para(text=f"    \u25B8 {block.markup}")
    if block.kind == "code":
        return Para(text=block.markup, color=theme.TEXT_DIM)
    return Para(text=block.markup)


class RulesScreen(Screen):
    """`game`: the registry name of the game whose rules are shown."""

    game = StringProperty("")

    def on_kv_post(self, *_: Any) -> None:
        self._shown: str | None = None  # the game whose page is built
        box = self.ids.games
        for name, info in sorted(CATALOG.items()):
            box.add_widget(GameToggle(game=name, caption=info.title))
        self.bind(game=self.show)

    def on_pre_enter(self, *_: Any) -> None:
        self.show()

    def show(self, *_: Any) -> None:
        for toggle in self.ids.games.children:
            toggle.state = "down" if toggle.game == self.game else "normal"
        if self._shown == self.game:
            return
        self._shown = self.game
        box = self.ids.page
        box.clear_widgets()
        text = rules_page(self.game) if self.game else None
        if text is None:
            title = CATALOG[self.game].title if self.game in CATALOG else self.game
            box.add_widget(Para(text=f"[b]{escape(title)}[/b]", font_size=sp(theme.TITLE)))
            box.add_widget(Para(text="There is no rules page for this game yet.",
                                color=theme.TEXT_DIM))
        else:
            for block in rule_blocks(text):
                box.add_widget(block_widget(block))
        self.ids.scroll.scroll_y = 1

    def choose(self, game: str) -> None:
        App.get_running_app().message = ""
        self.game = game
