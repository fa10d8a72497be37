"""Widgets shared by the screens: text that wraps, big touch buttons, status badges, seat
and card chips, and the camera view. Their look is in widgets.kv; here are the
properties they expose and the little drawing code kv cannot express.

Widgets only show what they are given (a seat's name and score, a card's code, a mark);
they decide nothing about a game.
"""

from __future__ import annotations

from typing import Any

from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.metrics import dp
from kivy.properties import (
    BooleanProperty,
    ListProperty,
    NumericProperty,
    ObjectProperty,
    StringProperty,
)
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

from kiosk import theme
from kiosk.camera import Shot
from kiosk.cardart import card_texture


class Text(Label):
    """A label that fills its box, wraps, and is never smaller than body text."""


class Para(Label):
    """A paragraph: wraps to its width and grows to its text's height."""


class Glyph(Label):
    """A status glyph in the symbol font."""


class Tap(Button):
    """A big flat touch button. `tint` is its colour at rest."""

    tint = ListProperty(theme.BUTTON)


class Toggle(ToggleButton):
    """A big toggle: a tick in front of the text says it is on (never colour alone)."""

    caption = StringProperty("")


class Badge(BoxLayout):
    """A status mark: colour, glyph and word together (see theme.Mark)."""

    mark = ObjectProperty(theme.INFO, rebind=True)
    word = StringProperty("")  # overrides the mark's own word when set


class SeatChip(BoxLayout):
    """One seat in the score strip: number, name, score, and marks for the seat to act
    (a play triangle) and the winners (a star)."""

    seat = NumericProperty(0)
    name = StringProperty("")
    score = StringProperty("")
    turn = BooleanProperty(False)
    winner = BooleanProperty(False)
    out = BooleanProperty(False)


class CardFace:
    """Mixin: a card's picture (from the project's own art, kiosk.cardart) for its
    `code` in `deck`; `face` is None when the deck has no art (the code shows alone)."""

    def _draw_face(self, *_: Any) -> None:
        self.face = card_texture(self.deck, self.code)


class CardChip(BoxLayout, CardFace):
    """A card on the table (trick, field): its picture, its code, who played it, and a
    star when it wins."""

    code = StringProperty("")
    deck = StringProperty("")
    owner = StringProperty("")
    seat = NumericProperty(-1)
    winner = BooleanProperty(False)
    face = ObjectProperty(None, allownone=True)  # the picture's texture

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(code=self._draw_face, deck=self._draw_face)
        self._draw_face()


class CardButton(Tap, CardFace):
    """A card the seat to act may play: its picture and its code (the name is on the
    picture and in `detail`)."""

    code = StringProperty("")
    detail = StringProperty("")
    deck = StringProperty("")
    face = ObjectProperty(None, allownone=True)  # the picture's texture

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(code=self._draw_face, deck=self._draw_face)
        self._draw_face()


class HandCard(BoxLayout, CardFace):
    """A card of the hand that cannot be played now (shown, not pressed)."""

    code = StringProperty("")
    deck = StringProperty("")
    face = ObjectProperty(None, allownone=True)  # the picture's texture

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(code=self._draw_face, deck=self._draw_face)
        self._draw_face()


#: A card in the hand and in the trick, in dp: the picture 64 x 89 (a 63 x 88 mm card)
#: over its code.
CARD_WIDTH = 64
CARD_HEIGHT = 118


class HandPager(BoxLayout):
    """A hand of cards, as many as fit side by side, in pages: "◀ Cards 1-7 of 12 ▶"
    under the row says there are more and turns the page. `cards` holds (code, playable,
    detail) triples; playable cards are CardButtons, the others HandCards."""

    cards = ListProperty()
    deck = StringProperty("")
    title = StringProperty("")
    page = NumericProperty(0)
    pages = NumericProperty(1)
    span = StringProperty("")  # "Cards 1-7 of 12"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(cards=self._reset, width=self._build, page=self._build, deck=self._build)
        self._shown: tuple[Any, ...] = ()
        # card widgets kept for the next hand (building one from its kv rule takes
        # milliseconds; a move changes the hand by one card)
        self._made: dict[tuple[Any, ...], Any] = {}

    def per_page(self) -> int:
        gap = dp(theme.GAP)
        return max(1, int((self.width + gap) // (dp(CARD_WIDTH) + gap)))

    def _reset(self, *_: Any) -> None:
        self.page = 0
        self._build()

    def turn(self, delta: int) -> None:
        """Show the next (1) or the previous (-1) page."""
        self.page = max(0, min(self.pages - 1, self.page + delta))

    def _build(self, *_: Any) -> None:
        per = self.per_page()
        n = len(self.cards)
        self.pages = max(1, -(-n // per))
        if self.page >= self.pages:
            self.page = self.pages - 1
            return
        first = self.page * per
        shown = self.cards[first:first + per]
        self.span = f"Cards {first + 1}\u2013{first + len(shown)} of {n}" if self.pages > 1 else ""
        key = (tuple(tuple(c) for c in shown), self.deck)
        if key == self._shown:
            return
        self._shown = key
        row = self.ids.row
        row.clear_widgets()
        made = {}
        for code, playable, detail in shown:
            key = (code, bool(playable), detail, self.deck)
            widget = self._made.get(key)
            if widget is None:
                cls = CardButton if playable else HandCard
                extra = {"detail": detail} if playable else {}
                widget = cls(code=code, deck=self.deck, **extra)
            made[key] = widget
            row.add_widget(widget)
        self._made = {**{k: w for k, w in self._made.items() if k not in made}, **made}
        if len(self._made) > 64:  # a hand's worth or two; the rest is rebuilt when needed
            self._made = made


def _pixels(image: Any) -> Any:
    """An image's pixels for `Texture.blit_buffer`: the bytes of the recognition process's
    frame (`runtime.vision_process.Pixels`) as they are, an array itself, seen flat, when
    it is contiguous and writable (Kivy takes such a buffer as it is), else a copy as
    bytes. Saves copying every camera frame (640 x 360 x 3, 15 times a second) on the UI
    thread, and numpy for the camera in the kiosk's process."""
    data = getattr(image, "data", None)
    if isinstance(data, bytearray | bytes):
        return data
    flags = getattr(image, "flags", None)
    if flags is not None and flags.c_contiguous and flags.writeable:
        return image.reshape(-1)
    return image.tobytes() if hasattr(image, "tobytes") else bytes(image)


class CameraView(Widget):
    """The live camera image, fitted into the widget (letterboxed, aspect kept), with
    the recognised cards outlined and labelled: a solid outline and the code for a card
    the tracker counts, a dashed outline for one still settling, "?" for one it cannot
    name (the outline style carries the meaning, not its colour alone).

    `corners` (fractions of the image) are drawn as numbered points; with `tappable`
    on, a touch on the image dispatches on_tap(x, y) in image fractions (x right, y down).
    """

    shot: Shot | None = ObjectProperty(None, allownone=True, rebind=True)
    corners = ListProperty()
    tappable = BooleanProperty(False)
    frame_rect = ListProperty([0, 0, 0, 0])  # where the image is drawn: x, y, w, h

    __events__ = ("on_tap",)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._texture: Texture | None = None
        self._labels: dict[str, Texture] = {}
        self.bind(shot=self._redraw, size=self._redraw, pos=self._redraw, corners=self._redraw)

    def _upload(self, shot: Shot) -> Texture:
        w, h = shot.size
        tex = self._texture
        if tex is None or tuple(tex.size) != (w, h):
            tex = Texture.create(size=(w, h), colorfmt="rgb")
            tex.flip_vertical()
            self._texture = tex
        tex.blit_buffer(_pixels(shot.image), colorfmt="rgb", bufferfmt="ubyte")
        return tex

    def _label(self, text: str) -> Texture:
        if text not in self._labels:
            core = CoreLabel(text=text, font_size=theme.BODY, bold=True, color=theme.DARK_TEXT)
            core.refresh()
            self._labels[text] = core.texture
        return self._labels[text]

    def _redraw(self, *_: Any) -> None:
        self.canvas.after.clear()
        shot = self.shot
        if shot is None:
            self.frame_rect = [0, 0, 0, 0]
            return
        tex = self._upload(shot)
        iw, ih = shot.size
        scale = min(self.width / iw, self.height / ih) if iw and ih else 0
        w, h = iw * scale, ih * scale
        x0, y0 = self.x + (self.width - w) / 2, self.y + (self.height - h) / 2
        self.frame_rect = [x0, y0, w, h]

        def to_screen(px: float, py: float) -> tuple[float, float]:
            return x0 + px * scale, y0 + h - py * scale

        with self.canvas.after:
            Color(1, 1, 1, 1)
            Rectangle(texture=tex, pos=(x0, y0), size=(w, h))
            for a in shot.annotations:
                pts = [c for p in a.points for c in to_screen(*p)]
                colour = {"stable": theme.GREEN, "tentative": theme.SKY}.get(a.state, theme.ORANGE)
                Color(*colour)
                if a.state == "tentative":
                    Line(points=pts, close=True, width=1, dash_length=6, dash_offset=4)
                else:
                    Line(points=pts, close=True, width=2.5 if a.state == "stable" else 1.5)
                label = self._label(a.label if a.state != "unknown" else "?")
                lx = min(pts[0::2]) if pts else x0
                ly = max(pts[1::2]) if pts else y0
                Color(*colour)
                Rectangle(pos=(lx, ly), size=(label.width + 8, label.height))
                Color(1, 1, 1, 1)
                Rectangle(texture=label, pos=(lx + 4, ly), size=label.size)
            for i, (fx, fy) in enumerate(self.corners):
                cx, cy = x0 + fx * w, y0 + h - fy * h
                Color(*theme.YELLOW)
                Line(circle=(cx, cy, 14), width=3)
                Line(points=[cx - 20, cy, cx + 20, cy], width=1.5)
                Line(points=[cx, cy - 20, cx, cy + 20], width=1.5)
                label = self._label(str(i + 1))
                # the number goes inwards, so corners near the picture's edge keep it
                lx = cx + 12 if fx < 0.5 else cx - 20 - label.width
                ly = cy - 8 - label.height if fy < 0.5 else cy + 8
                Rectangle(pos=(lx, ly), size=(label.width + 8, label.height))
                Color(1, 1, 1, 1)
                Rectangle(texture=label, pos=(lx + 4, ly), size=label.size)
            if len(self.corners) > 1:
                Color(*theme.YELLOW)
                pts = [c for fx, fy in self.corners for c in (x0 + fx * w, y0 + h - fy * h)]
                Line(points=pts, close=len(self.corners) == 4, width=1.5, dash_length=8, dash_offset=6)

    def on_touch_down(self, touch: Any) -> bool:
        if not self.tappable or not self.collide_point(*touch.pos):
            return super().on_touch_down(touch)
        x0, y0, w, h = self.frame_rect
        if w <= 0 or h <= 0 or not (x0 <= touch.x <= x0 + w and y0 <= touch.y <= y0 + h):
            return super().on_touch_down(touch)
        self.dispatch("on_tap", (touch.x - x0) / w, 1.0 - (touch.y - y0) / h)
        return True

    def on_tap(self, x: float, y: float) -> None:
        """A tap on the image at (x, y), fractions of the image."""
