"""Does every word on screen fit its box? A check for tests and the screenshot tool.

A Kivy label draws its text into a texture and clips what does not fit (or shortens it
with an ellipsis, or stops at `max_lines`). Comparing `texture_size` with `size` misses
all three, so each shown label's text is laid out again here with the label's own font,
wrapped at the label's text width but never shortened nor limited in lines, and that
size is compared with the label's box: a label whose text needs more room is cut.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: Rounding slack, px.
SLACK = 1.5


@dataclass(frozen=True)
class Overflow:
    """A label whose text does not fit: what it says and how much room it needs."""

    widget: Any
    text: str
    needed: tuple[float, float]
    size: tuple[float, float]

    def __str__(self) -> str:
        kind = type(self.widget).__name__
        nw, nh = self.needed
        w, h = self.size
        return f"{kind} {self.text[:60]!r} needs {nw:.0f}x{nh:.0f} px, has {w:.0f}x{h:.0f}"


def widgets(root: Any) -> Iterator[Any]:
    """`root` and every widget under it."""
    yield root
    for child in list(root.children):
        yield from widgets(child)


def _hidden(widget: Any) -> bool:
    w: Any = widget
    while w is not None:
        if getattr(w, "opacity", 1) <= 0:
            return True
        parent = getattr(w, "parent", None)
        w = parent if parent is not w else None
    return False


def needed_size(label: Any) -> tuple[float, float]:
    """The room `label`'s text takes in its font, wrapped at its text width (if it has
    one), with nothing shortened or left out."""
    from kivy.core.text import Label as CoreLabel
    from kivy.core.text.markup import MarkupLabel

    width = label.text_size[0]
    cls = MarkupLabel if label.markup else CoreLabel
    core = cls(text=label.text, text_size=(width, None), font_size=label.font_size,
               font_name=label.font_name, bold=label.bold, italic=label.italic,
               halign=label.halign, valign="top", padding=label.padding,
               line_height=label.line_height, strip=label.strip,
               font_context=label.font_context, font_family=label.font_family,
               base_direction=label.base_direction)
    core.refresh()
    w, h = core.content_size if hasattr(core, "content_size") else core.texture.size
    if width is not None:
        # A word longer than the line is not broken by Kivy: it sticks out on the right.
        for word in label.text.split():
            one = cls(text=word, font_size=label.font_size, font_name=label.font_name,
                      bold=label.bold, italic=label.italic, font_context=label.font_context,
                      font_family=label.font_family)
            one.refresh()
            w = max(w, one.content_width + label.padding[0] + label.padding[2]) \
                if hasattr(one, "content_width") else w
        w = max(w if w > width else 0, 0)
    return float(w), float(h)


def overflows(root: Any) -> list[Overflow]:
    """Every shown label under `root` whose text needs more room than its box has."""
    from kivy.uix.label import Label

    found = []
    for w in widgets(root):
        if not isinstance(w, Label) or not w.text.strip() or _hidden(w):
            continue
        nw, nh = needed_size(w)
        box_w = w.text_size[0] if w.text_size[0] is not None else w.width
        box_h = w.height
        if nw > box_w + SLACK or nh > box_h + SLACK:
            found.append(Overflow(w, w.text, (nw, nh), (box_w, box_h)))
    return found
