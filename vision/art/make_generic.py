"""Render the generic rank and suit samples of the standard deck (vision/art/generic_index.npz).

    python -m vision.art.make_generic            (writes the asset next to this file)
    python -m vision.art.make_generic --sheet F  (also a PNG contact sheet to look at)

A deck the user never taught is read as a person reads one: the letters and the suit
pips look alike from maker to maker. The rank glyphs ("A", "K", ..., "10", ..., "2") are
drawn from a few common bold serif and sans-serif fonts (DejaVu and Liberation, regular
and condensed), each a little taller or shorter and wider or narrower; the suit pips
come from our own drawn standard art (vision.art.marks, the spade with and without its
vein) and from the suit symbols of DejaVu and Liberation, each a little wider or narrower. Rendered
once here so the Pi and CI need no fonts: vision.generic only loads the arrays.

Every sample is ink (0 paper .. 255 ink) at `PPM` px/mm, the glyph centred in a box of
the generic layout's size (vision.generic.LAYOUT). The fonts are looked for under
/usr/share/fonts/truetype; a missing one is left out (the script says which).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

HERE = Path(__file__).resolve().parent
ASSET = HERE / "generic_index.npz"
FONT_DIR = Path("/usr/share/fonts/truetype")
#: Resolution of the stored samples (px/mm): vision.glyphs.GLYPH_PPM.
PPM = 4.0
#: Drawn this many times finer, then reduced with area averaging (anti-aliased edges).
SUPER = 6
RANKS = ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
SUITS = ("S", "H", "D", "C")
RED = {"S": False, "H": True, "D": True, "C": False}
#: Bold and book faces of two families, serif and sans, regular and narrow: card makers
#: print the index in a bold or semi-bold face, often condensed.
FONTS = (
    "dejavu/DejaVuSerif-Bold.ttf",
    "dejavu/DejaVuSerifCondensed-Bold.ttf",
    "dejavu/DejaVuSans-Bold.ttf",
    "dejavu/DejaVuSansCondensed-Bold.ttf",
    "liberation/LiberationSerif-Bold.ttf",
    "liberation/LiberationSerif-Regular.ttf",
    "liberation/LiberationSans-Bold.ttf",
    "liberation/LiberationSansNarrow-Bold.ttf",
)
#: Sample boxes (mm, w x h): the glyph centred in them, with paper around it.
RANK_BOX = (8.0, 11.0)
SUIT_BOX = (7.6, 7.6)
#: Rank glyph heights (mm) and widths (a share of the font's own width at that height;
#: never wider than RANK_MAX_W): a poker-size index is 7 to 10 mm tall.
RANK_HEIGHTS = (7.8, 9.2)
RANK_WIDTHS = (0.8, 1.0)
RANK_MAX_W = 7.0
#: Card makers fit "10" into about the column of one letter (its digits narrow and close):
#: it is also drawn at these widths (a share of its height).
TEN_WIDTHS = (0.62, 0.70)
#: Suit pip heights (mm) and widths (share of the mark's own width).
SUIT_HEIGHTS = (5.6, 6.6)
SUIT_WIDTHS = (0.9, 1.1)
SUIT_MAX_W = 7.2
#: Fonts whose filled suit symbols (four designs) join our drawn pips.
SUIT_FONTS = ("dejavu/DejaVuSans.ttf", "dejavu/DejaVuSansMono.ttf", "liberation/LiberationSans-Regular.ttf",
              "liberation/LiberationMono-Regular.ttf")
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
MARK_NAMES = {"S": "spade", "H": "heart", "D": "diamond", "C": "club"}


def _tight(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 40)
    return mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]


def text_ink(font_file: Path, text: str, px: int = 240) -> np.ndarray:
    """The ink of `text` in one font, cropped to its ink (uint8)."""
    font = ImageFont.truetype(str(font_file), px)
    left, top, right, bottom = font.getbbox(text)
    img = Image.new("L", (right - left + 20, bottom - top + 20), 0)
    ImageDraw.Draw(img).text((10 - left, 10 - top), text, fill=255, font=font)
    return _tight(np.asarray(img))


def mark_ink(name: str, vein: bool = True, px: int = 240) -> np.ndarray:
    """One of our drawn suit marks (vision.art.marks), cropped to its ink (uint8)."""
    from vision.art.canvas import Canvas
    from vision.art.marks import draw_mark

    canvas = Canvas((1.2, 1.2), px, supersample=1)
    draw_mark(canvas, name, 0.6, 0.6, 1.0, (0, 0, 0), (255, 255, 255) if vein else (0, 0, 0))
    return _tight(255 - cv2.cvtColor(canvas.to_bgr(), cv2.COLOR_BGR2GRAY))


def place(ink: np.ndarray, box_mm: tuple[float, float], glyph_mm: tuple[float, float]) -> np.ndarray:
    """The ink resized to glyph_mm (w, h) and centred in a box of box_mm, at PPM (uint8)."""
    bw, bh = (round(v * PPM * SUPER) for v in box_mm)
    gw, gh = (max(1, round(v * PPM * SUPER)) for v in glyph_mm)
    big = np.zeros((bh, bw), np.uint8)
    glyph = cv2.resize(ink, (gw, gh), interpolation=cv2.INTER_AREA)
    x0, y0 = (bw - gw) // 2, (bh - gh) // 2
    big[y0:y0 + gh, x0:x0 + gw] = glyph
    return cv2.resize(big, (round(box_mm[0] * PPM), round(box_mm[1] * PPM)), interpolation=cv2.INTER_AREA)


def _variants(ink: np.ndarray, box: tuple[float, float], heights, widths, max_w: float) -> list[np.ndarray]:
    out = []
    aspect = ink.shape[1] / ink.shape[0]
    for h in heights:
        for k in widths:
            out.append(place(ink, box, (min(max_w, h * aspect * k), h)))
    return out


def render() -> tuple[dict[str, np.ndarray], list[str]]:
    """Every sample, as the arrays the asset stores, and the fonts used."""
    fonts = [FONT_DIR / f for f in FONTS if (FONT_DIR / f).is_file()]
    missing = [f for f in FONTS if not (FONT_DIR / f).is_file()]
    if missing:
        print(f"fonts not found, left out: {', '.join(missing)}", file=sys.stderr)
    if not fonts:
        raise SystemExit(f"no fonts under {FONT_DIR}: cannot render the generic rank glyphs")
    arrays: dict[str, np.ndarray] = {}
    for r in RANKS:
        samples = []
        for f in fonts:
            ink = text_ink(f, r)
            samples += _variants(ink, RANK_BOX, RANK_HEIGHTS, RANK_WIDTHS, RANK_MAX_W)
            if r == "10":
                samples += [place(ink, RANK_BOX, (k * h, h)) for h in RANK_HEIGHTS for k in TEN_WIDTHS]
        arrays[f"rank_{r}"] = np.stack(samples)
    symbol_fonts = [FONT_DIR / f for f in SUIT_FONTS if (FONT_DIR / f).is_file()]
    for s in SUITS:
        inks = [mark_ink(MARK_NAMES[s])]
        if s == "S":
            inks.append(mark_ink("spade", vein=False))
        inks += [text_ink(f, SUIT_CHARS[s]) for f in symbol_fonts]
        samples = []
        for ink in inks:
            samples += _variants(ink, SUIT_BOX, SUIT_HEIGHTS, SUIT_WIDTHS, SUIT_MAX_W)
        arrays[f"suit_{s}"] = np.stack(samples)
    arrays["red"] = np.array([RED[s] for s in SUITS])
    arrays["suits"] = np.array(SUITS)
    arrays["ranks"] = np.array(RANKS)
    arrays["ppm"] = np.array(PPM)
    return arrays, [f.name for f in fonts]


def sheet(arrays: dict[str, np.ndarray]) -> np.ndarray:
    """All samples side by side, one row per class (paper white, ink black)."""
    rows = [arrays[k] for k in arrays if k.startswith(("rank_", "suit_"))]
    lines = [np.hstack(list(r)) for r in rows]
    w = max(x.shape[1] for x in lines)
    return 255 - np.vstack([np.pad(x, ((1, 1), (0, w - x.shape[1]))) for x in lines])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m vision.art.make_generic")
    ap.add_argument("--out", default=str(ASSET))
    ap.add_argument("--sheet", help="also write a PNG of every sample")
    args = ap.parse_args(argv)
    arrays, fonts = render()
    np.savez_compressed(args.out, fonts=np.array(fonts), **arrays)
    n = sum(v.shape[0] for k, v in arrays.items() if k.startswith(("rank_", "suit_")))
    kb = Path(args.out).stat().st_size // 1024
    print(f"wrote {args.out}: {n} samples from {len(fonts)} fonts, {kb} KB")
    if args.sheet:
        cv2.imwrite(args.sheet, sheet(arrays))


if __name__ == "__main__":
    main(sys.argv[1:])
