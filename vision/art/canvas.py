"""A drawing surface measured in millimetres: every card, back and mat is drawn on one.

Drawing happens on a Pillow image `supersample` times larger than the result, which is
reduced with a box filter at the end, so edges are anti-aliased at any resolution and a
card drawn at 3 px/mm looks like a photograph of the printed card, not a jagged copy.
Text uses Pillow's built-in scalable font, so nothing depends on the machine's fonts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

Colour = tuple[int, int, int]  # RGB, as Pillow takes it
Point = tuple[float, float]

WHITE: Colour = (255, 255, 255)
BLACK: Colour = (0, 0, 0)


def default_supersample(px_per_mm: float, target: float = 12.0) -> int:
    """How many times larger to draw so the drawing resolution reaches `target` px/mm (1..4)."""
    return max(1, min(4, math.ceil(target / px_per_mm)))


@lru_cache(maxsize=64)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)


def text_mask(text: str, height_px: float, bold: float = 0.0) -> Image.Image:
    """The ink of `text` as an 8-bit mask cropped to its ink, about `height_px` tall.

    `bold` thickens strokes by that fraction of the font size (the built-in font has no
    bold face)."""
    size = max(8, round(height_px * 1.35))
    font = _font(size)
    stroke = round(size * bold)
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke)
    pad = 2 + stroke
    mask = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(mask).text((pad - left, pad - top), text, fill=255, font=font,
                              stroke_width=stroke, stroke_fill=255)
    box = mask.getbbox()
    return mask.crop(box) if box else mask


class Canvas:
    """An RGB drawing in millimetres (origin top-left, x right, y down).

    The result is `round(w_mm * px_per_mm)` by `round(h_mm * px_per_mm)` pixels; the
    drawing is stretched by a hair on each axis so it fills exactly that many pixels.
    """

    def __init__(self, size_mm: tuple[float, float], px_per_mm: float, background: Colour = WHITE,
                 supersample: int | None = None) -> None:
        w_mm, h_mm = size_mm
        self.size_mm = (float(w_mm), float(h_mm))
        self.px_per_mm = float(px_per_mm)
        self.ss = supersample or default_supersample(px_per_mm)
        self.out_size = (max(1, round(w_mm * px_per_mm)), max(1, round(h_mm * px_per_mm)))
        self.image = Image.new("RGB", (self.out_size[0] * self.ss, self.out_size[1] * self.ss),
                               background)
        self.draw = ImageDraw.Draw(self.image)
        self.sx = self.image.width / w_mm
        self.sy = self.image.height / h_mm

    @classmethod
    def _child(cls, image: Image.Image, size_mm: tuple[float, float], parent: Canvas) -> Canvas:
        canvas = cls.__new__(cls)
        canvas.size_mm = size_mm
        canvas.px_per_mm = parent.px_per_mm
        canvas.ss = parent.ss
        canvas.out_size = (image.width // parent.ss, image.height // parent.ss)
        canvas.image = image
        canvas.draw = ImageDraw.Draw(image)
        canvas.sx = image.width / size_mm[0]
        canvas.sy = image.height / size_mm[1]
        return canvas

    # --- coordinates ---------------------------------------------------------

    def px(self, x: float, y: float) -> tuple[float, float]:
        """A point in millimetres as drawing pixels."""
        return x * self.sx, y * self.sy

    def _box(self, x: float, y: float, w: float, h: float) -> tuple[int, int, int, int]:
        return (round(x * self.sx), round(y * self.sy), round((x + w) * self.sx),
                round((y + h) * self.sy))

    def _width(self, width_mm: float) -> int:
        return max(1, round(width_mm * (self.sx + self.sy) / 2)) if width_mm > 0 else 0

    # --- shapes --------------------------------------------------------------

    def polygon(self, points: Sequence[Point], fill: Colour | None = None,
                outline: Colour | None = None, width: float = 0.0) -> None:
        pts = [self.px(x, y) for x, y in points]
        self.draw.polygon(pts, fill=fill, outline=outline, width=self._width(width) if outline else 1)

    def line(self, points: Sequence[Point], fill: Colour, width: float) -> None:
        """A polyline `width` mm thick with round ends and joints."""
        pts = [self.px(x, y) for x, y in points]
        w = self._width(width)
        self.draw.line(pts, fill=fill, width=w, joint="curve")
        r = w / 2
        if r >= 1:
            for px, py in (pts[0], pts[-1]):
                self.draw.ellipse((px - r, py - r, px + r, py + r), fill=fill)

    def ellipse(self, cx: float, cy: float, rx: float, ry: float, fill: Colour | None = None,
                outline: Colour | None = None, width: float = 0.0) -> None:
        x0, y0 = self.px(cx - rx, cy - ry)
        x1, y1 = self.px(cx + rx, cy + ry)
        self.draw.ellipse((x0, y0, x1, y1), fill=fill, outline=outline,
                          width=self._width(width) if outline else 1)

    def rect(self, x: float, y: float, w: float, h: float, fill: Colour | None = None,
             outline: Colour | None = None, width: float = 0.0, radius: float = 0.0) -> None:
        box = self._box(x, y, w, h)
        box = (box[0], box[1], box[2] - 1, box[3] - 1)
        r = round(radius * self.sx)
        kw = {"fill": fill, "outline": outline, "width": self._width(width) if outline else 1}
        if r > 0:
            self.draw.rounded_rectangle(box, radius=r, **kw)
        else:
            self.draw.rectangle(box, **kw)

    # --- text ----------------------------------------------------------------

    def text(self, text: str, box: tuple[float, float, float, float], fill: Colour,
             bold: float = 0.06, squeeze: float = 0.6, align: str = "center",
             valign: str = "center") -> None:
        """Write one line of `text` as large as fits in `box` (x, y, w, h in mm).

        The ink (not the font's line box) is fitted, so capitals and digits fill the box
        height. Text too wide is narrowed down to `squeeze` times its width before it is
        made smaller. `align` is left, center or right; `valign` top, center or bottom."""
        x0, y0, x1, y1 = self._box(*box)
        bw, bh = x1 - x0, y1 - y0
        if not text or bw < 1 or bh < 1:
            return
        mask = text_mask(text, bh, bold)
        sy = bh / mask.height
        sx = sy
        if mask.width * sx > bw:
            sx = bw / mask.width
            if sx < squeeze * sy:
                sy = sx / squeeze
        w, h = max(1, round(mask.width * sx)), max(1, round(mask.height * sy))
        mask = mask.resize((w, h), Image.Resampling.LANCZOS)
        left = {"left": x0, "right": x1 - w}.get(align, x0 + (bw - w) // 2)
        top = {"top": y0, "bottom": y1 - h}.get(valign, y0 + (bh - h) // 2)
        self.image.paste(fill, (left, top, left + w, top + h), mask)

    # --- patches -------------------------------------------------------------

    def patch(self, box: tuple[float, float, float, float], background: Colour) -> Canvas:
        """A separate canvas at this one's scale, the pixel size of `box` here: draw something
        once, then `paste` it in several places (a corner index at both corners)."""
        x0, y0, x1, y1 = self._box(*box)
        return Canvas._child(Image.new("RGB", (x1 - x0, y1 - y0), background), (box[2], box[3]), self)

    def paste(self, patch: Canvas, x: float, y: float, rotate180: bool = False) -> None:
        """Put a patch with its top-left at (x, y) mm, or, rotated by 180 degrees, with
        its bottom-right at the point opposite (x, y) through the centre of this canvas, so
        the two copies are exactly point-symmetric."""
        image = patch.image
        if rotate180:
            image = image.transpose(Image.Transpose.ROTATE_180)
            left = self.image.width - round(x * self.sx) - image.width
            top = self.image.height - round(y * self.sy) - image.height
        else:
            left, top = round(x * self.sx), round(y * self.sy)
        self.image.paste(image, (left, top))

    def paste_turned(self, patch: Canvas, x: float, y: float, degrees: float) -> None:
        """Put a patch turned clockwise by a multiple of 90 degrees with the top-left of the
        turned patch at (x, y) mm."""
        turns = round(degrees / 90) % 4
        image = patch.image
        if turns:
            image = image.transpose((Image.Transpose.ROTATE_270, Image.Transpose.ROTATE_180,
                                     Image.Transpose.ROTATE_90)[turns - 1])
        self.image.paste(image, (round(x * self.sx), round(y * self.sy)))

    def clip_round(self, radius: float, outside: Colour = WHITE) -> None:
        """Paint everything outside a rounded rectangle the size of the canvas."""
        mask = Image.new("L", self.image.size, 0)
        r = round(radius * self.sx)
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, self.image.width - 1, self.image.height - 1),
                                               radius=r, fill=255)
        self.image = Image.composite(self.image, Image.new("RGB", self.image.size, outside), mask)
        self.draw = ImageDraw.Draw(self.image)

    # --- result --------------------------------------------------------------

    def to_rgb(self) -> Image.Image:
        """The finished drawing at its final size."""
        return self.image.reduce(self.ss) if self.ss > 1 else self.image.copy()

    def to_bgr(self) -> np.ndarray:
        """The finished drawing as an OpenCV image (BGR, uint8, contiguous)."""
        return np.ascontiguousarray(np.asarray(self.to_rgb())[:, :, ::-1])
