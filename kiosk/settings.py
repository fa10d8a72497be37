"""The settings screen: the camera source, calibration without a mat (tap the table's four
corners on the camera image), teaching a deck (one photo per card), and the pin map test
(every button press shown, every LED lit in turn). The work is the screen's controller's
(`runtime.screens.Settings`: `set_camera_source`, `add_corner`, `save_corners`, `teach_*`,
`start_pin_test`, `light_outputs`), reached through the app's verbs; this screen lays it out."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.properties import BooleanProperty, NumericProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.screenmanager import Screen

from companion.cards import deck_names, get_deck
from kiosk import theme
from kiosk.text import escape
from kiosk.widgets import Para, Toggle

TABS = ("camera", "calibrate", "lens", "teach", "pins")
CAMERA_TABS = ("camera", "calibrate", "lens", "teach")
#: Sources offered with one tap (any other can be typed).
PRESETS = (("Synthetic table", "synthetic"), ("Pi camera", "picamera2"), ("USB camera", "cv:0"),
           ("No camera", "none"))
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")


def teachable_decks() -> list[str]:
    """The decks a photographed deck can stand in for: those with card art (vision.art),
    since a learned deck takes its codes and card size from one of them."""
    try:
        from vision.art import art_decks
    except ImportError:
        return []
    return [d for d in art_decks() if d in deck_names()]


class PresetToggle(Toggle):
    source = StringProperty("")


class DeckToggle(Toggle):
    deck = StringProperty("")


class PartRow(BoxLayout):
    """One button of the panel in the pin test: where it is wired, its keys, presses."""

    name = StringProperty("")
    where = StringProperty("")
    keys = StringProperty("")
    presses = NumericProperty(0)
    output = BooleanProperty(False)


class SettingsScreen(Screen):
    tab = StringProperty("camera")
    teach_deck = StringProperty("")
    needs_camera = BooleanProperty(False)

    def on_kv_post(self, *_: Any) -> None:
        app = App.get_running_app()
        for title, source in PRESETS:
            self.ids.presets.add_widget(PresetToggle(caption=title, source=source))
        app.bind(pin_presses=self._pins, camera_source=self._presets, teach=self._teach)
        self.bind(tab=self._tab)
        self._presets()

    def on_pre_enter(self, *_: Any) -> None:
        self._tab()

    def on_leave(self, *_: Any) -> None:
        app = App.get_running_app()
        if app is None:  # the app is being torn down
            return
        if app.teach:
            app.teach_stop()
        if app.calibration:
            app.calibration_cancel()

    def show_tab(self, tab: str) -> None:
        if tab not in TABS:
            raise ValueError(f"no settings tab {tab!r}; the tabs are {', '.join(TABS)}")
        self.tab = tab

    def _tab(self, *_: Any) -> None:
        app = App.get_running_app()
        self.ids.tabs.current = self.tab
        self.needs_camera = self.tab in CAMERA_TABS
        if self.manager is None or self.manager.current != self.name:
            return
        if self.needs_camera:
            app.start_camera()
        else:
            app.stop_camera()
        if self.tab == "teach" and not self.ids.decks.children:
            # listed on first use: finding the art decks imports OpenCV, not wanted at start-up
            for name in teachable_decks():
                self.ids.decks.add_widget(DeckToggle(caption=get_deck(name).title, deck=name))
        if self.tab == "pins":
            self._pins()
        elif app.pin_test:
            app.stop_pin_test()

    def _presets(self, *_: Any) -> None:
        app = App.get_running_app()
        for toggle in self.ids.presets.children:
            toggle.state = "down" if toggle.source == app.camera_source else "normal"
        self.ids.custom.text = app.camera_source

    def _teach(self, *_: Any) -> None:
        app = App.get_running_app()
        t = app.teach
        if not t:
            self.ids.teach_prompt.text = ("Choose a deck, then lay each card face up in the middle "
                                         "of the table when asked, and tap Capture.")
            return
        if t.get("learning"):
            self.ids.teach_prompt.text = (f"Learning the {t['saved']} photos of {escape(t['deck'])} "
                                          f"cards: this takes a moment.")
            return
        code = t["codes"][t["index"]]
        name = get_deck(t["deck"])[code].name
        self.ids.teach_prompt.text = (f"Card {t['index'] + 1} of {len(t['codes'])}: lay the "
                                      f"[b]{escape(name)}[/b] ({escape(code)}) face up under the camera, "
                                      f"then tap Capture.")

    def _pins(self, *_: Any) -> None:
        app = App.get_running_app()
        box = self.ids.parts
        box.clear_widgets()
        parts = app.panel_parts()
        if not parts:
            box.add_widget(Para(text="No panel: set a pin map (the pins setting, or "
                                     "companion kiosk --pins FILE).", color=theme.TEXT_DIM))
            return
        for name, where, keys in parts:
            box.add_widget(PartRow(name=name, where=where, keys=keys,
                                   presses=app.pin_presses.get(name, 0)))
        for name, where in app.panel_outputs():
            box.add_widget(PartRow(name=name, where=where, output=True))

    def lens_text(self, progress: dict[str, Any]) -> str:
        """The lens calibration's progress in words: views, coverage, error, and what next."""
        if not progress:
            return ("[b]Wide lens?[/b] Print the board (companion camera board -o board.pdf), tap Start, "
                    "then move the board under the camera: into every part of the view, and tilted.")
        error = "-" if progress["error"] is None else f"{progress['error']:.2f} px"
        text = (f"Views [b]{progress['views']}[/b] of {progress['target']} ({progress['minimum']} at "
                f"least) | frame covered [b]{progress['coverage']:.0%}[/b] | error [b]{error}[/b] "
                f"(limit {progress['limit']:g} px)\n{escape(progress['reason'])}")
        if progress["hint"]:
            text += f": {escape(progress['hint'])}"
        if progress["done"]:
            text += "\n[b]Enough views:[/b] tap Finish to keep the calibration."
        return text

    def corner_prompt(self, count: int) -> str:
        """What to tap next on the calibration picture."""
        if count >= 4:
            return "All four corners are tapped. Save keeps them; a fifth tap starts over."
        return f"Tap the table's [b]{CORNER_NAMES[count]}[/b] corner on the picture ({count} of 4)."
