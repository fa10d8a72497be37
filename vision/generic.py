"""Generic rank and suit samples: reading a standard deck the user never taught.

A person reads a deck they never saw because letters and suit pips look alike from
maker to maker. The standard deck's templates carry these samples (vision.templates),
so a real deck's corner index is read by its rank glyph and its suit pip even when the
whole corner looks nothing like our drawn art (framed index, other fonts).

The samples are rendered once by `python -m vision.art.make_generic` into
vision/art/generic_index.npz (rank glyphs from a few common fonts, suit pips from our
drawn art and DejaVu's symbols, each in a few sizes), so nothing here needs a font.
The layout is a typical poker-size corner index; the search reach of vision.glyphs and
vision.indices' placement from the marks themselves absorb one maker's offset from it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.glyphs import GLYPH_PPM, Glyphs, IndexLayout, _soft

ASSET = Path(__file__).resolve().parent / "art" / "generic_index.npz"
#: Where a poker-size card (63 x 88 mm) prints its rank and its suit pip (mm, x y w h):
#: boxes of the samples' size (vision.art.make_generic RANK_BOX, SUIT_BOX), the rank
#: centred about 5.3 mm from the long edge and 8.6 mm from the short one, the pip 9.2 mm
#: below it. Real decks put the index within a millimetre or two of this.
LAYOUT = IndexLayout(rank=(1.3, 3.1, 8.0, 11.0), suit=(1.5, 14.0, 7.6, 7.6))
#: Extra blur (Gaussian sigma, mm) of the rendered samples, beyond vision.glyphs.SOFT_MM:
#: they are sharp, a camera's picture of a printed index is not. Measured on the real
#: photos (benchmarks/results/real.md): 0.35 mm put 11 more outlined cards' rank first
#: than none, and lifted every right rank and suit score.
EXTRA_BLUR_MM = 0.35


@dataclass(frozen=True)
class GenericGlyphs(Glyphs):
    """Glyphs that were never learned from this deck: identification and the index
    finder read them with their own, untaught thresholds (IdentifyParams.untaught,
    IndexParams.untaught)."""

    generic: bool = True


def load_samples(path: Path = ASSET) -> dict[str, np.ndarray]:
    """The stored arrays: rank_<r> and suit_<s> (n, h, w) uint8 ink, red, ranks, suits, ppm."""
    with np.load(path) as data:
        return {k: data[k] for k in data.files}


def _ink(stack: np.ndarray, ppm: float) -> np.ndarray:
    """uint8 ink samples at `ppm` as float ink at GLYPH_PPM, blurred as vision.glyphs blurs
    every crop it compares."""
    out = []
    for s in stack.astype(np.float32) / 255.0:
        if abs(ppm - GLYPH_PPM) > 1e-6:
            h, w = s.shape
            k = GLYPH_PPM / ppm
            s = cv2.resize(s, (round(w * k), round(h * k)), interpolation=cv2.INTER_AREA)
        out.append(cv2.GaussianBlur(_soft(s), (0, 0), EXTRA_BLUR_MM * GLYPH_PPM))
    return np.stack(out).astype(np.float32)


@functools.lru_cache(maxsize=4)
def standard_glyphs(size_mm: tuple[float, float] = (63.0, 88.0), deck: str = "standard") -> GenericGlyphs:
    """The generic glyphs of a deck with the standard ranks and suits (cached)."""
    from vision.templates import rank_suit_cards

    data = load_samples()
    ppm = float(data["ppm"])
    cards = rank_suit_cards(deck)
    ranks_used = {r for r, _, _ in cards.values()}
    suits_used = {s for _, s, _ in cards.values()}
    ranks = {str(r): _ink(data[f"rank_{r}"], ppm) for r in data["ranks"] if str(r) in ranks_used}
    suits = {str(s): _ink(data[f"suit_{s}"], ppm) for s in data["suits"] if str(s) in suits_used}
    red = {s: red for (_, s, red) in cards.values()}
    codes = {(r, s): code for code, (r, s, _) in cards.items()}
    return GenericGlyphs(LAYOUT, (float(size_mm[0]), float(size_mm[1])), ranks, suits, red, codes)
