"""The history screen: finished games with their scores and winners, the players'
ratings per game, and the games left unfinished (which can be taken up again).
Everything comes from the store (`app.finished`, `app.ratings`, `app.unfinished`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from kivy.app import App
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.catalog import CATALOG
from companion.storage import GameRecord, PlayerRating
from kiosk import theme
from kiosk.text import escape, plural
from kiosk.widgets import Para


def when(stamp: str | None) -> str:
    """A stored UTC time stamp ('2026-11-22T14:03:51.123+00:00') in the table's local
    time, to the minute ('2026-11-22 15:03')."""
    if not stamp:
        return ""
    try:
        return datetime.fromisoformat(stamp).astimezone().strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return stamp[:16].replace("T", " ")


def title_of(game: str) -> str:
    info = CATALOG.get(game)
    return info.title if info else game


def finished_line(r: GameRecord) -> str:
    """One finished game in markup: number, game, date, then every score, winners starred."""
    scores = []
    for seat, name in enumerate(r.players):
        score = r.scores[seat] if seat < len(r.scores) else "?"
        star = theme.symbol(theme.STAR) + " " if seat in r.winners else ""
        scores.append(f"{star}{escape(name)} [b]{score}[/b]")
    return (f"[b]#{r.id} {escape(title_of(r.game))}[/b]  [color=#B8C0C8]{when(r.finished)}[/color]\n"
            + "   ".join(scores))


def rating_lines(ratings: list[PlayerRating]) -> list[str]:
    """One line per game: its players by rating, best first."""
    by_game: dict[str, list[PlayerRating]] = {}
    for r in ratings:
        by_game.setdefault(r.game, []).append(r)
    return [f"[b]{escape(title_of(game))}[/b]\n" + "   ".join(
        f"{escape(r.name)} [b]{r.rating:.0f}[/b] ({plural(r.games, 'game')})" for r in rows)
        for game, rows in by_game.items()]


class ResumeRow(BoxLayout):
    """An unfinished game and the button that takes it up again."""

    game_id = NumericProperty(0)
    text = StringProperty("")


class HistoryScreen(Screen):
    """tab: "finished", "ratings" or "unfinished"."""

    tab = StringProperty("finished")

    def on_kv_post(self, *_: Any) -> None:
        app = App.get_running_app()
        app.bind(finished=self.refresh, ratings=self.refresh, unfinished=self.refresh)
        self.bind(tab=self.refresh)

    def refresh(self, *_: Any) -> None:
        app = App.get_running_app()
        box = self.ids.rows
        box.clear_widgets()
        if self.tab == "finished":
            lines = [finished_line(r) for r in app.finished]
            empty = "No finished games yet."
        elif self.tab == "ratings":
            lines = rating_lines(list(app.ratings))
            empty = "No ratings yet: they come with the first finished game."
        else:
            for r in app.unfinished:
                names = ", ".join(r.players)
                box.add_widget(ResumeRow(game_id=r.id, text=(
                    f"[b]#{r.id} {escape(title_of(r.game))}[/b]  [color=#B8C0C8]started "
                    f"{when(r.started)}[/color]\n{escape(names)}")))
            if not app.unfinished:
                box.add_widget(Para(text="No unfinished games.", color=theme.TEXT_DIM))
            return
        for line in lines or [empty]:
            box.add_widget(Para(text=line, color=theme.TEXT if lines else theme.TEXT_DIM))
