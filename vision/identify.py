"""Identification: which card is inside a quad, by template matching.

The card is warped from the camera frame straight to canonical millimetres, so its size
and perspective no longer matter. Then, in three passes of rising cost:

1. coarse: the grey index at both index corners, every way the card can lie (two for
   oblong cards, four for square ones), at half resolution and every small shift,
   against every card at once (one matrix product of normalised pixels), to keep a
   shortlist;
2. exact: normalised correlation (`cv2.matchTemplate`'s TM_CCOEFF_NORMED, computed for
   the whole shortlist at once from the templates' spectra: `match_many`) of the
   shortlisted cards' index templates over a small search window that absorbs the
   residual misalignment, with the templates blurred as much as this card's picture is
   (the level that fits the likeliest card best). The best correlation is the confidence;
3. colour: grey shapes alone barely tell the 5 of spades from the 5 of clubs, or a suit
   printed in red from one in green. The close contenders meet pairwise on the pixels
   where their two templates differ, in colour, after white-balancing the crop to its own
   paper: the crop is projected on the difference of the two templates. The winner's
   worst projection (0 = halfway, 0.5 = exactly the winner) is the margin.

The face, at low resolution, says which way up a card with point-symmetric indices
lies. The answer is "unknown" rather than a guess when the correlation is weak or the
margin small (cards with identical art, such as a deck's two jokers drawn alike, are not
contenders of each other), and when the best match is the deck's back: a face-down card
competes as its back, so it is never mistaken for the card whose index looks most like
the back's pattern.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np
from numpy.lib.stride_tricks import as_strided

from vision.detect import ROLL, short_long, signed_area
from vision.templates import (
    FACE_PPM,
    INDEX_PPM,
    LEVEL_EDGES_MM,
    MARGIN_MM,
    PAIR_INSET_MM,
    Templates,
    flat,
    halve,
    is_back,
    paper_white,
    white_balance,
)

#: (x, y) of a template's best place in its search window.
Loc = tuple[int, int]


@dataclass(frozen=True)
class IdentifyParams:
    """Decision thresholds; chosen from the measurements in docs/vision.md."""

    min_score: float = 0.70  # weakest index correlation accepted
    min_margin: float = 0.10  # weakest colour-pairwise margin accepted (0..0.5)
    shortlist: int = 4  # candidates kept from the coarse pass for the exact pass
    contenders: int = 4  # at most this many meet pairwise ...
    contender_gap: float = 0.15  # ... those within this correlation of the best
    # ... and colour overturns the grey ranking only within this correlation: an ace of
    # diamonds with one corner in view (grey 0.84) was overturned by the joker (0.73).
    colour_overturn: float = 0.10
    # ... and only if its face is not this much worse: a blurred QS upside down (grey
    # 0.876) was overturned by 2C (0.779) on its index's colours, its face 0.28 against
    # the QS's own (hard Yonac demo, seed 8).
    overturn_face: float = 0.15
    # The quad's sides moved onto the card's own edges in the frame before reading
    # (`fit_to_edges`): the hard demos' unread cards lay 3 to 8 px off their quads.
    fit_edges: bool = True
    # Decks with rank and suit samples (vision.glyphs): measured on real photos,
    # benchmarks/results/real.md ("Operating point").
    glyph_rank: float = 0.50  # weakest rank-glyph correlation accepted
    glyph_rank_margin: float = 0.10  # its least lead over the next rank
    glyph_suit: float = 0.50  # weakest suit-pip correlation accepted
    glyph_suit_margin: float = 0.03  # its least lead over the next suit of the right colour
    red_above: float = 0.45  # a suit mark this red or more is red ...
    black_below: float = 0.15  # ... this little red or less is black
    glyph_face: float = 0.40  # a whole card read by its index must also look like that card
    glyph_partial: float = 0.72  # a partly hidden card: its rank and suit both this clear
    glyph_face_lead: float = 0.10  # rank or suit unclear: the faces settle it with this lead
    prior_gap: float = 0.10  # a likely card this close behind one already in play is taken
    # A deck never taught (vision.generic: rank glyphs from common fonts, generic pips): a
    # font matches a maker's letters less well, so its own thresholds, measured on real
    # photos of a deck the samples never saw (benchmarks/results/real.md, "Untaught").
    # Leads: 0.04 and 0.01 named no outlined card wrongly there (the sweep's zero-wrong
    # region); a wrong black suit led by at most 0.008, so 0.01 is close to the edge and
    # the colour veto and the rank do the rest.
    untaught_rank: float = 0.65
    untaught_rank_margin: float = 0.04
    untaught_suit: float = 0.65
    untaught_suit_margin: float = 0.01
    # No face check: our drawn faces are not this maker's (courts differ everywhere), and
    # the stricter rank threshold already named no label or paper in the real photos.
    untaught_face: float = -1.0
    # Our own drawn standard deck, blurred past reading its glyphs (the generic samples
    # read them as noise) but its whole corner still plainly first: named by the corner
    # when its face agrees and clearly beats the runner-up's face (a blurred ace's big
    # pip, a court's picture). Measured on the demo's hard Yonac games: the cards left
    # unread scored 0.85 to 0.95 with a lead of 0.14 to 0.19, faces 0.91 against 0.27.
    drawn_corner: float = 0.80
    drawn_corner_lead: float = 0.10
    drawn_face: float = 0.60
    drawn_face_lead: float = 0.30
    # A card whose corner reads too faintly (blur, glare) but whose likely cards are
    # offered (`Identity.candidates`): their whole colour faces meet pairwise, each as
    # blurred as the card's edge (`by_face`). Taken when the winner's worst pairwise
    # margin reaches face_pair_margin (a corner hidden: face_pair_partial) and its face
    # correlates at least face_pair_face. Measured on the demo's hard games (Yonac seeds
    # 1-8, Medieval Mastery 1-5; 1,253 and 924 readings): at these settings no card was
    # named wrongly; a faint face (< 0.6: mostly hidden cards) went wrong from 0.1 on.
    face_pair_margin: float = 0.15
    face_pair_partial: float = 0.25
    face_pair_face: float = 0.60
    # ... and when the whole corner already ranks the same card first (score 0.75, lead
    # 0.05) and its face correlates 0.75, the faces need only lean its way (0.03): the
    # corner's code of dashes tells KS from KC where the blurred pips barely do. Among
    # the same readings, every card that passed this was right; the wrong ones had a
    # corner under 0.75 or a face under 0.4.
    face_agree_margin: float = 0.03
    face_agree_corner: float = 0.75
    face_agree_lead: float = 0.05
    face_agree_face: float = 0.75
    face_corner_gap: float = 0.05  # otherwise the winner's corner is at most this far behind the first
    #: ... and for a card partly hidden at most this far: without a mat, the middle one of
    #: three IDEAL cards lying side by side (its outline 5 px into its neighbour) was named
    #: WS, a US, by a face of the corner's third (0.049 behind its first); the right
    #: namings of partly hidden cards there were all the corner's first.
    face_partial_gap: float = 0.03
    #: ... and never for a card whose best corner correlates under this: the faces name a
    #: card only among what its corner leaves likely. A quad fitted askew (a lone IDEAL
    #: card without a mat, its outline bitten by its corner's print) read 0.31 at its
    #: corners and its skewed face was named YW, a TW: 4 wrong readings of 109 in a room
    #: bench cell. The faces' right answers in the demos had corners of 0.8 and more.
    face_min_corner: float = 0.5
    #: ... and where the card is small in the picture (its short side under
    #: face_open_px) and its corner cannot choose between its first two (within
    #: face_open_lead), the faces alone must settle it by face_open_margin: a face a few
    #: dozen pixels wide tells little. Without a mat, IDEAL cards 44 to 67 px wide (the
    #: wide lens; one fitted 10 px off) were named by their faces with corner leads of
    #: 0.007 to 0.026 and margins of 0.27 to 0.34: 3 wrong readings in the room bench. The
    #: right ones with so faint a lead had margins of 0.38 and more, but one (0.33).
    face_open_px: float = 70.0
    face_open_lead: float = 0.03
    face_open_margin: float = 0.35
    #: ... as it must, whatever the corner's lead, for a card partly hidden under
    #: face_tiny_px: the room bench's wide lens without a mat (cards 43 px wide) named
    #: a partly hidden 2C as 2S (corner lead 0.03) and as 3H, by face margins of 0.27 and
    #: 0.28. (For whole cards too, it cost the mat path 2 of 62 right readings through
    #: the wide lens at 1280x720.)
    face_tiny_px: float = 50.0
    #: A drawn deck's card named by its corner must match that card's face at this at
    #: least (the grey face, as identified). Faces of right namings in the room bench:
    #: 0.43 and more without a mat, 0.32 and more on it under every flaw at full
    #: strength; a quad across two IDEAL cards read WS by its corner at -0.13, and an
    #: IDEAL card under full flaws on the mat NW at 0.24.
    corner_face: float = 0.25
    #: A card under face_tiny_px named by its corner is not named when some other card's
    #: face (grey, best way up) beats its own by more than this: its index is a handful
    #: of pixels, its face still shows the pips' layout. Without a mat, the room-wide
    #: lens uncorrected, a partly hidden 9H 43 px wide was read 6C by its corner (0.74,
    #: margin 0.12); 17 faces beat 6C's, 9S's by 0.34. Tiny right namings in the room
    #: bench's room rows (all four decks, 680): at most 0.08 behind.
    face_rival_gap: float = 0.2
    #: ... as it is, by its corner or its rank and suit alone, too: without a mat, the
    #: wide lens uncorrected, a partly hidden 2C 45 px wide cut 8 px too long read 4S by
    #: its rank and suit (margin 0.04); 4S's face was 0.30 behind, 2C's 0.02.
    #: A card named by its face among what its corner leaves likely, its corner itself
    #: under min_score, is not named when another card's face beats its own by more than
    #: face_weak_gap: the corner's few likely cards may not hold the card at all. Without
    #: a mat, IDEAL, the room: a partly hidden UP cut 4 px askew read TP (corner 0.51,
    #: face margin 0.29), TP's face 0.11 behind UP's. The 42 right face namings without a
    #: mat (every room condition, the standard and IDEAL decks) were at most 0.036 behind.
    face_weak_gap: float = 0.07

    def untaught(self) -> IdentifyParams:
        """These parameters with the untaught thresholds in place of the taught ones."""
        return replace(self, glyph_rank=self.untaught_rank, glyph_rank_margin=self.untaught_rank_margin,
                       glyph_suit=self.untaught_suit, glyph_suit_margin=self.untaught_suit_margin,
                       glyph_face=self.untaught_face)


@dataclass(frozen=True)
class Identity:
    """The answer for one quad.

    code: the card, or None for unknown. score: its index correlation (the confidence,
    0..1). margin: its colour-pairwise margin over the closest other card (0..0.5).
    rotation: the card's top-left is quad corner `rotation`; `corners` are the quad's
    corners from the card's top-left, clockwise. best: the best candidate even when
    unknown (for diagnostics). face: the face correlation in that orientation.
    """

    code: str | None
    score: float
    margin: float
    rotation: int
    corners: np.ndarray
    best: str
    face: float = float("nan")
    level: int = 0  # the blur level of the templates it was matched at
    note: str = ""  # how the rules' knowledge settled it ("read as QS; KS is in trick 2")
    candidates: tuple[tuple[str, float], ...] = ()  # the likely cards, best first (to ask a person)

    @property
    def known(self) -> bool:
        return self.code is not None


def card_homography(quad: np.ndarray, size_mm: tuple[float, float], ppm: float,
                    box_mm: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """The homography from a canonical image (the card upright at `ppm` px/mm, or only
    the part `box_mm` = (x, y, w, h) of it) to the frame, for a quad whose corner 0 is
    the card's top-left and which runs clockwise."""
    w, h = size_mm
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32) * ppm
    H = cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32).reshape(4, 2))
    if box_mm is not None:
        T = np.array([[1, 0, box_mm[0] * ppm], [0, 1, box_mm[1] * ppm], [0, 0, 1]])
        H = H @ T
    return H


def warp_card(image: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float], ppm: float,
              box_mm: tuple[float, float, float, float] | None = None) -> np.ndarray:
    """The card inside `quad` (corner 0 = its top-left) as an upright canonical image at
    `ppm` px/mm, or only the part `box_mm` of it."""
    w, h = (box_mm[2], box_mm[3]) if box_mm is not None else size_mm
    out = (max(1, round(w * ppm)), max(1, round(h * ppm)))
    H = card_homography(quad, size_mm, ppm, box_mm)
    return cv2.warpPerspective(image, H, out, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def rotations(square: bool) -> tuple[int, ...]:
    """The quarter turns a detected quad can be from upright: oblong quads start on a
    short side, so only 0 and 2 are possible for them."""
    return (0, 1, 2, 3) if square else (0, 2)


@dataclass
class _Corner:
    """The index region at one quad corner, warped upright, with its search margin."""

    colour: np.ndarray  # BGRA (a colour frame's) or grey
    grey: np.ndarray
    coarse: np.ndarray  # (2N,) best coarse correlation with every tl and br template
    terms: _Terms | None = None  # for matching templates in `grey`, once needed


def _match_cached(corners: Sequence[_Corner], t: Templates, keys: Sequence[list[tuple[str, int, int]]]
                  ) -> list[list[tuple[float, tuple[int, int]]]]:
    """`match_many` of the index templates (kind, level, card) `keys[i]` in corner i's
    grey window, each template's spectrum computed once and kept with the templates; all
    corners in one batch (the corners of a quad are windows of one size)."""
    for corner in corners:
        if corner.terms is None:
            corner.terms = _Terms.of(corner.grey)
    parts = [_spectra_of(t, k, corner.grey.shape) for corner, k in zip(corners, keys, strict=True)]
    return _best_matches([c.terms for c in corners], [p[0] for p in parts], [p[1] for p in parts],
                         parts[0][2])


#: Index template spectra kept per deck, the ones matched most lately (each about 20 KB:
#: all of an IDEAL deck's 786 would be 16 MB, and the kiosk's two processes are within
#: 10 MB of their 250 MB budget in a Medieval Mastery game).
SPECTRA_KEPT = 192


def _spectra_of(t: Templates, keys: list[tuple], shape: tuple[int, ...]
                ) -> tuple[list[np.ndarray], list[float], tuple[int, int]]:
    """The cached `template_spectra` of index templates (kind, level, card): their
    spectra, lengths and (h, w)."""
    kept = t.cache.setdefault("spectra", OrderedDict())
    parts = []
    for key in keys:
        if key in kept:
            kept.move_to_end(key)
        else:
            one = (t.index_tl if key[0] == "tl" else t.index_br)[key[1], key[2]]
            spectrum, norm, tshape = template_spectra(one[None], shape)
            kept[key] = (spectrum[0], float(norm[0]), tshape, tuple(shape[:2]))
            if len(kept) > SPECTRA_KEPT:
                kept.popitem(last=False)
        parts.append(kept[key])
    if any(p[3] != tuple(shape[:2]) for p in parts):
        raise ValueError(f"templates cached for another image size than {shape[:2]}")
    return [p[0] for p in parts], [p[1] for p in parts], parts[0][2]


def _corners(frame: np.ndarray, quad: np.ndarray, t: Templates, wanted: set[int]) -> dict[int, _Corner]:
    """The index regions at the quad corners `wanted`, each with its coarse correlation
    with every card's index."""
    x, y, w, h = t.index_box_mm
    box = (x - MARGIN_MM, y - MARGIN_MM, w + 2 * MARGIN_MM, h + 2 * MARGIN_MM)
    order = sorted(wanted)
    # OpenCV warps 4 channels much faster than 3 (vectorised), to the same values
    source = cv2.cvtColor(frame, cv2.COLOR_BGR2BGRA) if frame.ndim == 3 else frame
    colours, greys, windows = [], [], []
    for k in order:
        colour = warp_card(source, quad[ROLL[k]], t.size_mm, INDEX_PPM, box)
        grey = colour
        if colour.ndim == 3:  # kept in BGRA: the colour pass converts only its crops
            grey = cv2.cvtColor(colour, cv2.COLOR_BGRA2GRAY)
        colours.append(colour)
        greys.append(grey)
        windows.append(halve(grey))
    # every corner against every card in one matrix product
    best = window_correlations(np.stack(windows), _coarse_factors(t), t.coarse_shape).max(axis=1)
    return {k: _Corner(colours[i], greys[i], best[i]) for i, k in enumerate(order)}


def _window_sums(image: np.ndarray, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The sum and the sum of squares (float64: exact for 8-bit pixels) of every `shape`
    window of a grey image: two (H - h + 1, W - w + 1)."""
    h, w = shape
    s1, s2 = cv2.integral2(np.ascontiguousarray(image), sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
    return (s1[h:, w:] - s1[:-h, w:] - s1[h:, :-w] + s1[:-h, :-w],
            s2[h:, w:] - s2[:-h, w:] - s2[h:, :-w] + s2[:-h, :-w])


#: `_coarse_factors` leaves out directions along which no coarse template reaches this far.
_COARSE_RANK_TOL = 1e-6


def _coarse_factors(t: Templates) -> tuple[np.ndarray, np.ndarray, np.ndarray] | np.ndarray:
    """The coarse templates (h*w, 2N) as a product basis (h*w, r) @ mix (r, 2N), with the
    basis's column sums, when they
    span fewer dimensions than there are templates (cached with the templates). A drawn
    deck's two corners are the same picture turned, so its 2N templates span about N
    dimensions, and windows @ basis @ mix costs half of windows @ templates. Each
    template is off by at most _COARSE_RANK_TOL (a correlation moves by no more); a deck
    whose templates fill their dimensions keeps the plain matrix."""
    key = ("coarse",)
    if key not in t.cache:
        c = t.coarse.astype(np.float64)
        u, sv, vt = np.linalg.svd(c, full_matrices=False)
        # what each template loses when only the first r directions are kept, for every r
        tail = np.sqrt(np.cumsum(((sv[:, None] * vt) ** 2)[::-1], axis=0)[::-1])  # [r, j]: without 0..r-1
        fits = [r for r in range(1, len(sv)) if tail[r].max() <= _COARSE_RANK_TOL]
        r = fits[0] if fits else len(sv)
        if r * (c.shape[0] + c.shape[1]) < 0.8 * c.shape[0] * c.shape[1]:
            basis = u[:, :r].astype(np.float32)
            t.cache[key] = (basis, (sv[:r, None] * vt[:r]).astype(np.float32), basis.sum(axis=0))
        else:
            t.cache[key] = t.coarse
    return t.cache[key]


def window_correlations(images: np.ndarray, flat_templates: np.ndarray | tuple[np.ndarray, ...],
                        shape: tuple[int, int]) -> np.ndarray:
    """The normalised correlation of every `shape` window of each image in the stack
    (B, H, W) with every template, the columns of `flat_templates` (h*w, M) of zero mean
    and unit length (templates.flat), or of their product (basis, mix[, basis column sums]):
    (B, windows, M).
    The windows are not centred one by one: against a zero-mean template a raw window
    correlates as its centred self, less its mean times the template's (rounding-sized)
    sum; only the window's spread is needed, from running sums. A flat window correlates 0."""
    n = shape[0] * shape[1]
    b = images.shape[0]
    # every window, cast to float32 while copied out of a strided view: one pass, no index
    # array (a gather by a 200 KB index was 7 % of identify's instructions)
    # (the view as sliding_window_view makes it, without its checks: a tenth of this call)
    sb, sy, sx = images.strides
    view = (b, images.shape[1] - shape[0] + 1, images.shape[2] - shape[1] + 1, *shape), (sb, sy, sx, sy, sx)
    # (on a contiguous stack, the view made directly: as_strided's wrapping was 4 us of it)
    windows = np.ndarray(view[0], images.dtype, images, 0, view[1]) if images.flags.c_contiguous \
        else as_strided(images, *view, writeable=False)
    rows = np.empty(windows.shape, np.float32)
    np.copyto(rows, windows)
    rows = rows.reshape(-1, n)
    basis, mix, *sums = flat_templates if isinstance(flat_templates, tuple) else (None, flat_templates)
    s1, s2 = [np.concatenate([x.ravel() for x in part])
              for part in zip(*(_window_sums(image, shape) for image in images), strict=True)]
    spread = s2 - s1 * s1 / n
    flat = spread < 0.5  # integer pixels: any window not flat spreads at least 1 - 1/n
    scale = np.where(flat, 0.0, 1.0 / np.sqrt(np.where(flat, 1.0, spread))).astype(np.float32)[:, None]
    mean = (s1 / n).astype(np.float32)[:, None]
    if basis is None:
        out = (rows @ mix - mean * mix.sum(axis=0)) * scale
    else:  # the windows' mean and scale taken out before the last (widest) product
        out = ((rows @ basis - mean * (sums[0] if sums else basis.sum(axis=0))) * scale) @ mix
    return out.reshape(b, -1, out.shape[-1])


def match_many(image: np.ndarray, templates: np.ndarray) -> list[tuple[float, tuple[int, int]]]:
    """For each template of the stack (K, h, w): its best normalised correlation in the
    grey image and where, (x, y) of the window's top-left, as `cv2.matchTemplate` with
    TM_CCOEFF_NORMED and `cv2.minMaxLoc` give them (to float rounding)."""
    if templates.shape[1] > image.shape[0] or templates.shape[2] > image.shape[1]:
        raise ValueError(f"templates of {templates.shape[1]}x{templates.shape[2]} do not fit in an image "
                         f"of {image.shape[0]}x{image.shape[1]}")
    spectra, norms, tshape = template_spectra(templates, image.shape)
    return _best_matches([_Terms.of(image)], [spectra], [norms.tolist()], tshape)[0]


def template_spectra(templates: np.ndarray, shape: tuple[int, ...]
                     ) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """What `_best_matches` needs of a stack of templates (K, h, w) to match them in
    images of `shape`: the conjugate spectra of the zero-mean templates (K, H', W'//2 + 1)
    at the image's transform size (`_dft_size`), their lengths (K,), and their (h, w)."""
    k, h, w = templates.shape
    t0 = templates.reshape(k, -1).astype(np.float64)
    t0 -= t0.mean(axis=1, keepdims=True)
    norms = np.sqrt((t0 * t0).sum(axis=1))
    spectra = np.stack([_half_spectrum(x, _dft_size(shape)) for x in t0.reshape(k, h, w).astype(np.float32)])
    spectra[:, 0, 0] = 0.0  # zero mean: exactly no constant term
    return np.conj(spectra), norms, (h, w)


def _dft_size(shape: tuple[int, ...]) -> tuple[int, int]:
    """The transform size for images of `shape`: at least as large (so a template inside
    the image never wraps round), of small prime factors (OpenCV's transform is several
    times faster on them)."""
    return cv2.getOptimalDFTSize(shape[0]), cv2.getOptimalDFTSize(shape[1])


def _half_spectrum(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The spectrum (complex64) of a float32 image zero-padded to `size`, its columns up to
    the middle (a real image's spectrum is symmetric: the rest says nothing new)."""
    padded = cv2.copyMakeBorder(image, 0, size[0] - image.shape[0], 0, size[1] - image.shape[1],
                                cv2.BORDER_CONSTANT, value=0)
    full = cv2.dft(padded, flags=cv2.DFT_COMPLEX_OUTPUT)
    return full.view(np.complex64)[:, :size[1] // 2 + 1, 0]


class _Terms:
    """What matching needs of an image, once for all the templates matched in it: its
    spectrum (less its mean, which a zero-mean template does not see and which would
    only cost precision) and its running sums (for each window's spread)."""

    def __init__(self, image: np.ndarray) -> None:
        if image.ndim != 2:
            raise ValueError(f"matching needs a grey image, got shape {image.shape}")
        self.image = image
        self.s1, self.s2 = cv2.integral2(np.ascontiguousarray(image), sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
        f = image.astype(np.float32)
        f -= np.float32(self.s1[-1, -1] / image.size)
        self.spectrum = _half_spectrum(f, _dft_size(image.shape))
        self._spread: dict[tuple[int, int], np.ndarray] = {}

    @classmethod
    def of(cls, image: np.ndarray) -> _Terms:
        return cls(image)

    def sums(self, shape: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """`_window_sums` of the image."""
        h, w = shape
        s1, s2 = self.s1, self.s2
        return (s1[h:, w:] - s1[:-h, w:] - s1[h:, :-w] + s1[:-h, :-w],
                s2[h:, w:] - s2[:-h, w:] - s2[h:, :-w] + s2[:-h, :-w])

    def spread(self, shape: tuple[int, int]) -> np.ndarray:
        """The length of every `shape` window less its mean (float64)."""
        if shape not in self._spread:
            s1, s2 = self.sums(shape)
            self._spread[shape] = np.sqrt(np.maximum(s2 - s1 * s1 / (shape[0] * shape[1]), 0.0))
        return self._spread[shape]


@functools.lru_cache(maxsize=16)
def _inverse_parts(shape: tuple[int, int], out: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The two matrices that take a product spectrum (H, W // 2 + 1) straight to the first
    `out` rows and columns of its inverse real transform: only the shifts that keep the
    template inside the image are wanted, a small corner of the whole inverse."""
    (h, w), (ry, rx) = shape, out
    rows = np.exp(2j * np.pi * np.outer(np.arange(ry), np.arange(h)) / h) / h
    half = w // 2 + 1
    weight = np.full(half, 2.0)
    weight[0] = 1.0
    if w % 2 == 0:
        weight[-1] = 1.0
    cols = weight[:, None] * np.exp(2j * np.pi * np.outer(np.arange(half), np.arange(rx)) / w) / w
    return rows.astype(np.complex64), cols.astype(np.complex64)


def _best_matches(terms: Sequence[_Terms], spectra: Sequence[Sequence[np.ndarray]],
                  norms: Sequence[Sequence[float]], tshape: tuple[int, int]
                  ) -> list[list[tuple[float, tuple[int, int]]]]:
    """Normalised correlation (TM_CCOEFF_NORMED) of each template at every shift that keeps
    it inside the image, by the image's and the templates' spectra (cross-correlation is
    a product of spectra), and the best of each: (score, (x, y)). `spectra[i]` and
    `norms[i]` are the templates matched in image i (`terms[i]`); the images are all of
    one size, so every template of every image goes through the same two matrix products
    (one batch costs little more than one image's)."""
    ih, iw = terms[0].image.shape
    h, w = tshape
    ry, rx = ih - h + 1, iw - w + 1
    if ry < 1 or rx < 1:
        raise ValueError(f"templates of {h}x{w} do not fit in an image of {ih}x{iw}")
    if any(tm.image.shape != (ih, iw) for tm in terms):
        raise ValueError(f"images to match in one batch must all be {ih}x{iw}")
    rows, cols = _inverse_parts(_dft_size((ih, iw)), (ry, rx))
    counts = [len(s) for s in spectra]
    k = sum(counts)
    fh, fw = terms[0].spectrum.shape
    product = np.empty((k, fh, fw), np.complex64)
    den = np.empty((k, ry, rx))
    i = 0
    for tm, spectra_i, norms_i in zip(terms, spectra, norms, strict=True):
        # each template's denominator in one broadcast (the same products as one by one)
        np.multiply(tm.spread((h, w)), np.array(norms_i)[:, None, None], out=den[i:i + len(norms_i)])
        for spectrum in spectra_i:
            np.multiply(tm.spectrum, spectrum, out=product[i])
            i += 1
    # two matrix products for the whole stack: over the columns, then over the rows
    part = (product.reshape(k * fh, fw) @ cols).reshape(k, fh, rx)
    num = (rows @ part.transpose(1, 0, 2).reshape(fh, k * rx)).real.reshape(ry, k, rx).transpose(1, 0, 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = num / den
        if not (np.abs(r) < 1.0).all():
            # OpenCV's own rule where rounding takes the quotient past 1 (or the window is flat)
            r = np.where(np.abs(num) < den, r, np.where(np.abs(num) < den * 1.125, np.sign(num), 0.0))
    flat = r.reshape(k, -1)
    best = flat.argmax(axis=1).tolist()
    found = [(float(flat[i, j]), (j % rx, j // rx)) for i, j in enumerate(best)]
    out, i = [], 0
    for n in counts:
        out.append(found[i:i + n])
        i += n
    return out


def pair_margin(query: np.ndarray, a: np.ndarray, b: np.ndarray, min_pixels: int = 12,
                differ: float = 0.15) -> float | None:
    """Where the query lies between templates a and b, on the pixels where they differ
    (by more than `differ` in some channel): +0.5 exactly a, -0.5 exactly b, 0 halfway.
    All three are white-balanced colour crops of the same size. None when a and b do not
    differ in at least `min_pixels` pixels."""
    where, mid, d = _pair(a, b, min_pixels, differ)
    if where is None:
        return None
    return float(((query.reshape(-1)[where] - mid) * d).sum() / (d * d).sum())


def _pair(a: np.ndarray, b: np.ndarray, min_pixels: int, differ: float = 0.15):
    diff = (a - b).reshape(-1, 3)
    differs = np.abs(diff).max(axis=1) > differ
    if int(differs.sum()) < min_pixels:
        return None, None, None
    where = (np.flatnonzero(differs)[:, None] * 3 + np.arange(3)).ravel()
    return where, (a.reshape(-1)[where] + b.reshape(-1)[where]) / 2, diff.reshape(-1)[where]


def _balanced_at(pixels: np.ndarray, paper: np.ndarray, where: np.ndarray) -> np.ndarray:
    """`white_balance(crop).reshape(-1)[where]` for the flat pixels of a colour crop and
    its `paper_white`, `where` running over whole pixels (three channels each, as `_pair`
    gives it): only the values wanted are divided, the same quotients."""
    return (pixels[where].astype(np.float32).reshape(-1, 3) / paper).reshape(-1)


def _pair_cached(t: Templates, level: int, kind: str, a: int, b: int):
    """Where templates a and b differ (each pixel's three channels), their midpoint and
    difference there, and the difference's squared length (cached). The places are kept
    in the smallest unsigned type that holds them (16 bits for every deck's index
    templates, against numpy's 64): the same values picked, 10 bytes a place instead of 16."""
    key = (level, kind, a, b)
    if key not in t.pairs:
        stack = (t.colour_tl if kind == "tl" else t.colour_br)[level]
        where, mid, d = _pair(white_balance(stack[a]), white_balance(stack[b]), 12)
        if where is not None:
            where = where.astype(np.min_scalar_type(stack[a].size - 1))
        t.pairs[key] = where, mid, d, None if d is None else (d * d).sum()
    return t.pairs[key]


def identify(frame: np.ndarray, quad: np.ndarray, t: Templates,
             seen: Sequence[bool] = (True, True, True, True),
             params: IdentifyParams = IdentifyParams(), prior: Prior | None = None,
             grey: np.ndarray | None = None) -> Identity:
    """Identify the card inside `quad` (frame pixels, clockwise, as from vision.detect)
    in a BGR frame (a grey frame works, without the colour pass). `grey`: the BGR frame
    as cv2.COLOR_BGR2GRAY makes it, when the caller has it (else it is made here).

    seen[i]: whether quad corner i is visible; an index under another card or a hand is
    left out instead of dragging the score down.
    """
    if frame.ndim not in (2, 3):
        raise ValueError(f"identify needs a BGR or grey frame, got shape {frame.shape}")
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    if grey is None or frame.ndim == 2:
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame  # once for both reads
    ppm, steps = _edge_steps(grey, quad, t.size_mm)
    if params.fit_edges:
        quad = fit_to_edges(quad, _farther(grey, quad, t.size_mm, steps))
    rots = rotations(t.square)
    corners = _corners(frame, quad, t, set(rots))
    views = _FaceViews(frame, quad, t, grey)

    def visible(r: int) -> list[tuple[int, str]]:
        """(quad corner, which template) of the indices visible in rotation r."""
        pairs = [(r, "tl"), ((r + 2) % 4, "br")]
        shown = [p for p in pairs if seen[p[0]]]
        return shown or pairs

    # 1. coarse: every card, every rotation.
    n_cards = len(t)

    def coarse_of() -> np.ndarray:
        out = np.empty((len(rots), n_cards), np.float32)
        for i, r in enumerate(rots):
            parts = [corners[k].coarse[:n_cards] if kind == "tl" else corners[k].coarse[n_cards:]
                     for k, kind in visible(r)]
            out[i] = parts[0] if len(parts) == 1 else (parts[0] + parts[1]) / 2  # as np.mean adds them
        return out

    coarse = coarse_of()
    if not all(seen):
        # An index corner called hidden (the detector inferred it: a card lies against that
        # side) that plainly shows the card the corners in view lead with is in view: it
        # is read too. A glare spot can wash out the one index called seen.
        lead = int(coarse.max(axis=0).argmax())
        r0 = rots[int(coarse[:, lead].argmax())]
        shown = list(seen)
        for k, kind in ((r0, "tl"), ((r0 + 2) % 4, "br")):
            own = corners[k].coarse[:n_cards] if kind == "tl" else corners[k].coarse[n_cards:]
            if not seen[k] and int(own.argmax()) == lead and float(own[lead]) >= params.min_score:
                shown[k] = True
        if shown != list(seen):
            seen = tuple(shown)
            coarse = coarse_of()
    best_rot = coarse.argmax(axis=0)
    per_card = coarse.max(axis=0)
    n = min(params.shortlist, n_cards)
    shortlist = np.argpartition(-per_card, n - 1)[:n]

    def match(requests: list[tuple[int, int]]) -> list[tuple[float, int, list[tuple[int, str, Loc]]]]:
        """For each (card, level): its mean correlation over the visible indices in its
        best rotation, the rotation, and where each index matched (one `match_many` per
        quad corner for all of them)."""
        asked: dict[int, list[tuple[str, int, int]]] = {}
        for j, level in requests:
            for k, kind in visible(rots[best_rot[j]]):
                asked.setdefault(k, []).append((kind, level, j))
        order = list(asked)
        matched = _match_cached([corners[k] for k in order], t, [asked[k] for k in order])
        found = {k: iter(m) for k, m in zip(order, matched, strict=True)}
        out = []
        for j, _level in requests:
            r = rots[best_rot[j]]
            scores, where = [], []
            for k, kind in visible(r):
                s, loc = next(found[k])
                scores.append(s)
                where.append((k, kind, loc))
            out.append((_mean(scores), r, where))
        return out

    # 2. exact: templates as blurred as the card's own edge is (or, when its edge cannot be
    # seen, the blur level that fits the likeliest card best), then matchTemplate over the
    # search window for every card of the shortlist, each in its best rotation.
    top = int(shortlist[np.argmax(per_card[shortlist])])
    blur = _blur_of(ppm, steps)  # a step's spread does not change as its side moves
    others = [int(j) for j in shortlist if int(j) != top]
    if blur is not None:
        # as np.searchsorted finds it (blur is finite), without making an array of the edges
        level = min(bisect.bisect_left(LEVEL_EDGES_MM, blur), t.levels - 1)
        exact = dict(zip([top, *others], match([(j, level) for j in (top, *others)]), strict=True))
    else:
        by_level = match([(top, lv) for lv in range(t.levels)])
        level = int(np.argmax([m[0] for m in by_level]))
        exact = {top: by_level[level]}
        exact.update(zip(others, match([(j, level) for j in others]), strict=True))
    ranked = sorted(exact, key=lambda j: -exact[j][0])
    best = ranked[0]

    # 3. colour: the close contenders meet pairwise.
    rivals = [j for j in ranked[1:] if t.codes[j] not in t.same[t.codes[best]]]
    close = [j for j in rivals if exact[j][0] >= exact[best][0] - params.contender_gap]
    pool = [best, *close[:params.contenders - 1]]
    if len(pool) == 1 and rivals:
        pool.append(rivals[0])
    margin = 0.5
    if frame.ndim == 3 and len(pool) > 1:
        crops: dict[tuple[int, str, tuple[int, int]], tuple[np.ndarray, np.ndarray]] = {}
        met: dict[tuple[int, int], float] = {}  # the champion's margin meets its last rival again

        def versus(a: int, b: int) -> float:
            if (a, b) not in met:
                met[a, b] = _versus(a, b)
            return met[a, b]

        def _versus(a: int, b: int) -> float:
            values = []
            for k, kind, loc in exact[a][2]:
                key = (k, kind, loc)
                if key not in crops:
                    th, tw = t.index_shape
                    # BGR from the BGRA window's crop (a copy of a BGR view of it was 13 us)
                    crop = cv2.cvtColor(corners[k].colour[loc[1]:loc[1] + th, loc[0]:loc[0] + tw],
                                        cv2.COLOR_BGRA2BGR)
                    crops[key] = crop.reshape(-1), paper_white(crop)
                where, mid, d, dd = _pair_cached(t, level, kind, a, b)
                if where is not None:
                    query = _balanced_at(*crops[key], where)
                    values.append(float(((query - mid) * d).sum() / dd))
            return _mean(values) if values else 0.5

        champion = best
        for j in pool[1:]:
            if versus(champion, j) < 0 and versus(j, champion) > 0 and \
                    exact[j][0] >= exact[champion][0] - params.colour_overturn and \
                    _best_face(frame, quad, t, j, views) >= _best_face(frame, quad, t, champion, views) - \
                    params.overturn_face:
                champion = j
        best = champion
        margin = min(versus(best, j) for j in pool if j != best)
    elif len(pool) > 1:

        def versus(a: int, b: int) -> float:
            return (exact[a][0] - exact[b][0]) * 2.5  # grey only: scaled gap

        margin = versus(best, pool[1])
    note = ""
    if prior is not None and len(pool) > 1 and t.glyphs is None:
        best, margin, note = _prior_pick(best, margin, pool, exact, versus, t, prior, params)

    score, r_best, _ = exact[best]
    # Which way up: rotations whose coarse index score is as good, settled by the face.
    i_best = rots.index(r_best)
    candidates = [r for i, r in enumerate(rots) if coarse[i, best] >= coarse[i_best, best] - 0.02]
    faces = {r: views.score(best, r) for r in candidates}
    rotation = max(candidates, key=lambda r: faces[r])
    # a drawn deck's card named by its corner must also look a little like that card: a
    # quad fitted across two cards can match a corner (its face -0.13), a card never has
    known = score >= params.min_score and margin >= params.min_margin and not is_back(t.codes[best]) \
        and (t.glyphs is not None or faces[rotation] >= params.corner_face)
    generic = getattr(t.glyphs, "generic", False)
    if t.glyphs is not None and not is_back(t.codes[best]) and not (
            known and (generic or t.codes[best] not in t.glyphs.codes.values())):
        # A card with a rank and a suit is read by them; a joker clearly matched as a
        # whole corner (it has neither) keeps that answer, as does any card clearly
        # matched as a drawn corner when the glyphs are generic (our own printed deck).
        corner_read = tuple((t.codes[j], round(exact[j][0], 3)) for j in ranked if not is_back(t.codes[j]))
        named = by_glyphs(frame, quad, t, seen, params, level, prior, corner_read[:3], views)
        if named.code is None and generic and margin > 0:
            plain = _plain_corner(frame, quad, t, best, ranked, exact, params, views)
            if plain is not None:
                face, rotation = plain
                return Identity(code=t.codes[best], score=score, margin=float(margin), rotation=rotation,
                                corners=quad[ROLL[rotation]], best=t.codes[best], face=face, level=level,
                                candidates=corner_read[:3])
        if named.code is None:
            picked = by_face(frame, quad, t, corner_read, seen, params, prior, views)
            if picked is not None:
                code, pair, rotation, face = picked
                weak = dict(corner_read).get(code, 0.0) < params.min_score
                return _unless_face_behind(replace(named, code=code, margin=pair, rotation=rotation,
                                                   corners=quad[ROLL[rotation]], best=code, face=face),
                                           t, views, quad, params, weak)
        return _unless_face_behind(named, t, views, quad, params)
    offered = tuple((t.codes[j], round(exact[j][0], 3)) for j in pool if not is_back(t.codes[j]))[:3]
    if not known and not is_back(t.codes[best]):
        picked = by_face(frame, quad, t, offered, seen, params, prior, views)
        if picked is not None:
            code, pair, rotation, face = picked
            score = float(exact[t.codes.index(code)][0])
            return _unless_face_behind(Identity(code=code, score=score, margin=pair, rotation=rotation,
                                                corners=quad[ROLL[rotation]], best=code, face=face,
                                                level=level, candidates=offered),
                                       t, views, quad, params, score < params.min_score)
    if known and short_long(quad)[0] < params.face_tiny_px and \
            _face_behind(t, views, best) > params.face_rival_gap:
        known = False
    return Identity(code=t.codes[best] if known else None, score=score, margin=float(margin),
                    rotation=rotation, corners=quad[ROLL[rotation]], best=t.codes[best],
                    face=faces[rotation], level=level, note=note if known else "", candidates=offered)


def _unless_face_behind(named: Identity, t: Templates, views: _FaceViews, quad: np.ndarray,
                        params: IdentifyParams, weak: bool = False) -> Identity:
    """`named`, or it unnamed when another card's face plainly beats its own: for a card
    under face_tiny_px by face_rival_gap, for one named by its face on a weak corner
    (`weak`) by face_weak_gap (see IdentifyParams)."""
    if named.code is None or is_back(named.code) or named.code not in t.codes or t.face is None:
        return named
    tiny = short_long(quad)[0] < params.face_tiny_px
    if not (tiny or weak):
        return named
    gap = min(params.face_rival_gap if tiny else np.inf, params.face_weak_gap if weak else np.inf)
    if _face_behind(t, views, t.codes.index(named.code)) > gap:
        return replace(named, code=None, note="")
    return named


def _face_behind(t: Templates, views: _FaceViews, j: int) -> float:
    """How far card j's grey face (best way up) is behind the best face of any card of
    the deck, backs left out: every face at every shift in one matrix product (the
    faces' flat columns are kept with the templates once a card this small is read)."""
    key = ("faces",)
    if key not in t.cache:
        t.cache[key] = np.ascontiguousarray(flat(t.face).T)
    rots = rotations(t.square)
    corr = window_correlations(np.stack([views.grey(r) for r in rots]), t.cache[key], t.face.shape[1:])
    best = corr.max(axis=(0, 1))
    best[[i for i, code in enumerate(t.codes) if is_back(code)]] = -np.inf
    return float(best.max() - best[j])


#: The blur (Gaussian sigma, mm) assumed for a card whose edge shows no clear step.
UNSEEN_BLUR_MM = 0.8
#: Beyond this blur of its edge (mm) a card's face decides nothing.
FACE_MAX_BLUR_MM = 2.0


def by_face(frame: np.ndarray, quad: np.ndarray, t: Templates, corner: Sequence[tuple[str, float]],
            seen: Sequence[bool], params: IdentifyParams, prior: Prior | None = None,
            views: _FaceViews | None = None) -> tuple[str, float, int, float] | None:
    """(card, margin, rotation, face) of the likely card whose whole face in colour is
    plainly nearest the card in view, else None. `corner`: the likely cards and their
    whole-corner correlations, best first (the first three meet).

    The corners of KS and KC, or of 5H and 6H, blurred past reading, differ in a few
    pixels; their faces differ in every pip and picture. So the faces meet pairwise as
    the indices do (`pair_margin`): the templates blurred as much as the card's edge is,
    both sides white-balanced to their own paper, on the pixels where the two differ.
    Which way up comes first, from the best grey face correlation of any candidate (an
    upside-down heart looks more like a diamond than like a heart), and the winner must
    also have the best grey face: where the two disagree the card is too blurred to tell.
    A card already in play (`prior`) needs twice the margin."""
    if t.face_colour is None or frame.ndim != 3 or not corner or corner[0][1] < params.face_min_corner:
        return None
    idx: list[int] = []
    for code, _ in corner[:3]:
        if code in t.codes and not is_back(code) and not any(t.codes[j] in t.same[code] for j in idx):
            idx.append(t.codes.index(code))
    if len(idx) < 2:
        return None
    views = views or _FaceViews(frame, quad, t)
    grey = {(j, r): views.score(j, r) for j in idx for r in rotations(t.square)}
    rotation = max(grey, key=lambda jr: grey[jr])[1]
    k = round(PAIR_INSET_MM * FACE_PPM)
    h, w = t.face_colour.shape[1:3]
    view = white_balance(views.colour(rotation)[k:k + h, k:k + w])
    blur = edge_blur_mm(frame, quad, t.size_mm)
    sigma = UNSEEN_BLUR_MM if blur is None else blur
    if sigma > FACE_MAX_BLUR_MM:
        return None  # blurred so much that every face looks like every other
    # a step measured perfectly sharp (no spread: a razor-sharp picture) asks for no blur,
    # which cv2.GaussianBlur refuses (an assertion, not a blur of nothing)
    faces = {j: white_balance(cv2.GaussianBlur(t.face_colour[j], (0, 0), sigma * FACE_PPM)
                              if sigma * FACE_PPM >= 0.05 else t.face_colour[j]) for j in idx}

    def versus(a: int, b: int) -> float:
        return pair_margin(view, faces[a], faces[b], 20, 0.08) or 0.0

    champion = idx[0]
    for j in idx[1:]:
        if versus(champion, j) < 0:
            champion = j
    margin = min(versus(champion, j) for j in idx if j != champion)
    code = t.codes[champion]
    own = grey[champion, rotation]
    if own < max(grey[j, rotation] for j in idx):
        return None  # the colour faces and the grey ones disagree: too blurred to tell
    lead = corner[0][1] - corner[1][1] if len(corner) > 1 else 0.0
    if (code == corner[0][0] and corner[0][1] >= params.face_agree_corner and lead >= params.face_agree_lead
            and own >= params.face_agree_face):
        need = params.face_agree_margin
    elif dict(corner)[code] < corner[0][1] - (params.face_corner_gap if all(seen)
                                                else params.face_partial_gap):
        return None  # the faces name a card its corner barely ranks: too blurred to tell
    else:
        need = params.face_pair_margin if all(seen) else params.face_pair_partial
    short = short_long(quad)[0]
    tiny = short < params.face_tiny_px and not all(seen)
    if (lead < params.face_open_lead and short < params.face_open_px) or tiny:
        need = max(need, params.face_open_margin)
    if prior is not None and code not in prior.likely:
        need *= 2
    if margin < need or own < params.face_pair_face:
        return None
    return code, margin, rotation, own


def _plain_corner(frame: np.ndarray, quad: np.ndarray, t: Templates, best: int, ranked: list[int],
                  exact: dict, params: IdentifyParams, views: _FaceViews | None = None
                  ) -> tuple[float, int] | None:
    """(face, rotation) when the whole corner names card `best` plainly and its face
    agrees, clearly ahead of the runner-up's face (see IdentifyParams.drawn_*); else None."""
    score = exact[best][0]
    rival = next((j for j in ranked if j != best and t.codes[j] not in t.same[t.codes[best]]), None)
    if rival is None or score < params.drawn_corner or score - exact[rival][0] < params.drawn_corner_lead:
        return None
    views = views or _FaceViews(frame, quad, t)
    face, rotation = max(((views.score(best, r), r) for r in (0, 2)), key=lambda x: x[0])
    other = max(views.score(rival, r) for r in (0, 2))
    if face < params.drawn_face or face - other < params.drawn_face_lead:
        return None
    return face, rotation


def _prior_pick(best: int, margin: float, pool: list[int], exact: dict, versus, t: Templates,
                prior: Prior, params: IdentifyParams) -> tuple[int, float, str]:
    """The whole-corner answer with the rules' knowledge (see `Prior`): (card, its
    margin, the note for the log)."""
    code = t.codes[best]
    likely = [j for j in pool if j != best and t.codes[j] in prior.likely]
    if code in prior.likely:
        if margin >= params.min_margin:
            return best, margin, ""
        # Unclear only against cards already in play: the possible one is taken.
        against = min((versus(best, j) for j in likely), default=0.5)
        if against >= params.min_margin and margin > 0:
            gone = [t.codes[j] for j in pool if j != best and j not in likely]
            return best, against, f"read as {code}; {gone[0]} is {prior.where(gone[0])}" if gone else ""
        return best, margin, ""
    # Read as a card already in play: a likely card close behind it is taken instead.
    close = [j for j in likely if exact[j][0] >= exact[best][0] - params.prior_gap
             and exact[j][0] >= params.min_score]
    if len(close) == 1:
        j = close[0]
        others = [k for k in likely if k != j]
        lead = min((versus(j, k) for k in others), default=0.5)
        if lead >= params.min_margin:
            return j, lead, f"read as {t.codes[j]}; {code} is {prior.where(code)}"
    if margin >= 2 * params.min_margin:
        return best, margin, ""
    return best, min(margin, params.min_margin - 1e-6), ""


@dataclass(frozen=True)
class Prior:
    """What the rules say may appear next, as plain codes (vision imports no game):
    `likely`, the cards not yet seen; `placed`, where each card already in play lies,
    in words for a person ("in trick 2"). A card outside `likely` is still read, but
    only with a clearly higher lead; when it and a likely card are close, the likely
    one is taken and the identity's note says why."""

    likely: frozenset[str]
    placed: Mapping[str, str] = field(default_factory=dict)

    def where(self, code: str) -> str:
        return self.placed.get(code, "already in play")


def by_glyphs(frame: np.ndarray, quad: np.ndarray, t: Templates, seen: Sequence[bool],
              params: IdentifyParams, level: int, prior: Prior | None = None,
              corner_read: tuple[tuple[str, float], ...] = (), views: _FaceViews | None = None) -> Identity:
    """The card named by its rank glyph and suit pip read apart (vision.glyphs).

    Rank and suit must each be clearly ahead. When one of them is not, and the whole
    card is in view, the faces of the close candidates settle it (QS and KS differ in
    a corner glyph, but their pictures differ everywhere). A whole card read by its
    index must also look like that card's face: a white label or a patch of paper can
    look like an ace's corner, but not like its face. With a prior, see `Prior`.

    `corner_read`: the likeliest cards by their whole index corner, best first, offered
    to a person (`Identity.candidates`) when rank and suit read too faintly to offer any
    (a blurred card's ornate court or ace: the whole corner still ranks it first where
    the glyphs read as noise)."""
    from vision.glyphs import decide, read_index

    g = t.glyphs
    if getattr(g, "generic", False):
        params = params.untaught()
    read = read_index(frame, quad, g, seen)
    d = decide(read, g, params.glyph_rank, params.glyph_rank_margin, params.glyph_suit,
               params.glyph_suit_margin, params.red_above, params.black_below)
    whole = all(seen)
    suits = [s for s in read.suits if not d.vetoed or g.red.get(s[0], False) == d.red_suit]
    cands = []  # (code, score) of every rank and suit combination that reads plainly enough
    for rank, rs in read.ranks[:2]:
        for suit, ss in suits[:2]:
            code = g.codes.get((rank, suit))
            if code is not None and rs >= params.glyph_rank and ss >= params.glyph_suit:
                cands.append((code, min(rs, ss)))
    cands.sort(key=lambda c: -c[1])
    faces: dict[str, tuple[float, int]] = {}
    views = views or _FaceViews(frame, quad, t)

    def face_of(code: str) -> tuple[float, int]:
        if code not in faces:
            j = t.codes.index(code)
            faces[code] = max(((views.score(j, r), r) for r in (0, 2)), key=lambda x: x[0])
        return faces[code]

    code, note = d.code, ""
    if code is None and whole and len(cands) > 1:
        ranked = sorted(cands, key=lambda c: -face_of(c[0])[0])
        lead = face_of(ranked[0][0])[0] - face_of(ranked[1][0])[0]
        if lead >= params.glyph_face_lead:
            code = ranked[0][0]
    elif code is None and whole and len(cands) == 1 and d.best == cands[0][0] and not d.rank_unclear:
        code = None  # one suit of the colour left and still not clear: no guess
    if prior is not None:
        code, note = _with_prior(code, d, cands, prior, params, whole, face_of)
    best = code or d.best or (cands[0][0] if cands else t.card_codes[0])
    face, rotation = face_of(best) if best in t.codes else (float("nan"), d.corner)
    if code is not None and whole and face < params.glyph_face:
        code, note = None, ""
    if code is not None and not whole and (d.score < params.glyph_partial
                                           or d.margin < 2 * params.glyph_suit_margin):
        code, note = None, ""  # part of the card hidden: no face to check, so the index must be plain
    return Identity(code=code, score=d.score, margin=d.margin, rotation=rotation,
                    corners=quad[ROLL[rotation]], best=best, face=face, level=level, note=note,
                    candidates=tuple((c, round(s, 3)) for c, s in cands[:3]) or corner_read)


def _with_prior(code, d, cands, prior: Prior, params: IdentifyParams, whole: bool, face_of):
    """The identity with the rules' knowledge of which cards can still appear."""
    likely = [c for c in cands if c[0] in prior.likely]
    if code is not None and code in prior.likely:
        return code, ""
    if code is not None:
        # Read as a card already in play: a likely card close behind it is taken instead;
        # else the card is kept only with twice the usual lead (the referee then rules on it).
        close = [c for c in likely if c[1] >= cands[0][1] - params.prior_gap] if cands else []
        if len(close) == 1 and (not whole or face_of(close[0][0])[0] >= params.glyph_face):
            return close[0][0], f"read as {close[0][0]}; {code} is {prior.where(code)}"
        if d.margin >= 2 * max(params.glyph_rank_margin, params.glyph_suit_margin):
            return code, ""
        return None, ""
    # Not clear on its own: if exactly one of the plain readings can still appear, take it.
    if len(likely) == 1 and len(cands) > 1 and (not whole or face_of(likely[0][0])[0] >= params.glyph_face):
        others = [c for c, _ in cands if c != likely[0][0]]
        return likely[0][0], f"read as {likely[0][0]}; {', '.join(others)} {_is_are(others)} " \
                             f"{prior.where(others[0]) if len(others) == 1 else 'already in play'}"
    return None, ""


def _is_are(items: list) -> str:
    return "is" if len(items) == 1 else "are"


def _edge_steps(frame: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float],
                min_contrast: float = 30.0, reach_mm: float = 2.5
                ) -> tuple[float, list[tuple[int, float, float]]]:
    """The brightness step across each side of the card where it lies on something
    darker: pixels per mm, and for each side with a clear step (side index, the step's
    spread as a Gaussian sigma in pixels, where it is steepest, outwards of the side in
    pixels, NaN when steepest at the profile's end), from the median profile along the
    side, read within 2.5 mm of the edge, where every card is still its white margin."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    q = np.asarray(quad, np.float64).reshape(4, 2)
    # plain floats for the handful of numbers: numpy's call overhead on 4-element arrays
    # cost more than the profiles themselves (the same values, to the last bit)
    side = q[ROLL[1]] - q
    dx, dy = side[:, 0].tolist(), side[:, 1].tolist()
    sides = [math.sqrt(a * a + b * b) for a, b in zip(dx, dy, strict=True)]
    lengths = (size_mm[0], size_mm[1], size_mm[0], size_mm[1])
    per_mm = sorted(s / m for s, m in zip(sides, lengths, strict=True))
    ppm = (per_mm[1] + per_mm[2]) / 2
    reach = min(max(reach_mm * ppm, 3.0), 4 * reach_mm)
    out = -1.0 if signed_area(q) < 0 else 1.0
    steps = np.arange(-reach, reach + 1e-9, 0.5)
    mids = ((steps[:-1] + steps[1:]) / 2).tolist()
    # all four sides' profiles in one remap (four remaps and four medians cost 3 times more)
    n = np.array([[b / max(s, 1e-6) * out, -a / max(s, 1e-6) * out]
                  for a, b, s in zip(dx, dy, sides, strict=True)])
    pts = (q[:, None, None, :] + _ALONG * side[:, None, None, :]
           + steps[None, None, :, None] * n[:, None, None, :])
    pts = pts.reshape(-1, len(steps), 2).astype(np.float32)
    across = cv2.remap(gray, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # the median of the 12 samples at each step: the mean of the 6th and 7th in order
    ordered = np.sort(across.reshape(4, len(_ALONG.ravel()), len(steps)), axis=1).astype(np.float32)
    profiles = ((ordered[:, 5] + ordered[:, 6]) / 2).tolist()
    found = []
    for i, prof in enumerate(profiles):
        # every value below is a multiple of 0.5 under 256: exact in any order of adding
        d = [a - b for a, b in itertools.pairwise(prof)]  # positive where it gets darker going out
        k = max(range(len(d)), key=d.__getitem__)
        lo, hi = max(0, k - 6), min(len(d), k + 7)
        if prof[lo] - prof[min(hi, len(prof) - 1)] < min_contrast:
            continue
        w = [max(v, 0.0) for v in d[lo:hi]]
        total = sum(w)
        if total <= 0:
            continue
        mu = _np_sum([a * b for a, b in zip(w, mids[lo:hi], strict=True)]) / total
        spread = _np_sum([a * ((b - mu) * (b - mu)) for a, b in zip(w, mids[lo:hi], strict=True)])
        sigma = math.sqrt(spread / total)
        # the edge is where the step is steepest (a parabola through the peak): the
        # centroid above leans towards the print beside a heavily blurred edge
        edge = float("nan")  # steepest at the profile's end: the edge may lie beyond it
        if 0 < k < len(d) - 1:
            edge = mids[k]
            curve = d[k - 1] - 2 * d[k] + d[k + 1]
            if curve < 0:
                edge += 0.25 * (d[k - 1] - d[k + 1]) / curve
        found.append((i, sigma, edge))
    return ppm, found


#: Where along each side (as a fraction of it) `_edge_steps` reads its profiles.
_ALONG = np.linspace(0.2, 0.8, 12)[None, :, None, None]


def _np_sum(values: list[float]) -> float:
    """The sum of a short list of floats added in the order numpy's `sum` adds a float64
    array of that length (pairwise, eight running sums from 8 elements on), so a plain
    Python loop gives the same bits as the numpy expression it replaces."""
    n = len(values)
    if n < 8:
        total = 0.0
        for v in values:
            total += v
        return total
    if n > 128:
        return float(np.sum(np.asarray(values, np.float64)))
    r = list(values[:8])
    i = 8
    while i + 8 <= n:
        for j in range(8):
            r[j] += values[i + j]
        i += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for v in values[i:]:
        total += v
    return total


def _mean(values: list[float]) -> float:
    """The mean of a short list of floats, to the bit as `np.mean` gives it (a plain loop:
    numpy's call costs more than the adding on a handful of values)."""
    return _np_sum(values) / len(values)


def _median(values: list[float]) -> float:
    """The median of a non-empty list of floats, to the bit as `np.median` gives it."""
    v = sorted(values)
    m = len(v) // 2
    return v[m] if len(v) % 2 else (v[m - 1] + v[m]) / 2


def _farther(frame: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float],
             steps: list[tuple[int, float, float]]) -> list[tuple[int, float, float]]:
    """`steps` with each side whose step was steepest at the profile's end read again
    twice as far out and in: the quad may lie further off than 2.5 mm (in the hard demos,
    cards at the mat's far edge came 6 to 10 px off, the homography from blurred markers
    being off there)."""
    ends = {i for i, _, edge in steps if not math.isfinite(edge)}
    if not ends:
        return steps
    _, wide = _edge_steps(frame, quad, size_mm, reach_mm=5.0)
    again = {i: (i, sigma, edge) for i, sigma, edge in wide if i in ends}
    return [again.get(i, (i, sigma, edge)) for i, sigma, edge in steps]


def edge_blur_mm(frame: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float],
                 min_contrast: float = 30.0) -> float | None:
    """How blurred the card's picture is: the Gaussian sigma (mm) of its outline where it
    lies on something darker, from the spread of the brightness step across its sides.
    None when no side shows a clear step (a white card on a white table, or on other
    cards all round)."""
    ppm, found = _edge_steps(frame, quad, size_mm, min_contrast)
    return _blur_of(ppm, found)


def _blur_of(ppm: float, found: list[tuple[int, float, float]]) -> float | None:
    return _median([sigma for _, sigma, _ in found]) / ppm if found else None


#: A step measured with more spread than this (pixels) is one the profile cannot place:
#: the profile reads only 3 px either side of its steepest point, so a Gaussian blur of
#: 2 px measures 1.58, 2.5 px 1.68 and 5.5 px 1.83, and past about 2 px the steepest
#: point wanders with the print beside the edge (by 3 px at 5.5 px of blur).
_FLAT_STEP_PX = 1.6


def fit_to_edges(quad: np.ndarray, found: list[tuple[int, float, float]],
                 least_px: float = 0.3) -> np.ndarray:
    """The quad with each side that shows a clear step (`_edge_steps`) moved onto the
    middle of that step, and its corners where the moved sides meet. A detector's quad
    lies where its mask ended, outside a blurred card's real edge by up to a sigma, and
    it is found in a smaller picture than the frame: in the hard demos the cards left
    unread had corners 3 to 8 px off, the ones read 1.2 px. Sides without a step (on
    other cards, under a hand) stay where they are."""
    moves = [0.0] * 4
    for i, sigma, mu in found:
        # a step spread past the profile's reach is too flat to place (its steepest point
        # wanders with the print beside it): that side stays
        moves[i] = mu if sigma <= _FLAT_STEP_PX and math.isfinite(mu) else 0.0
    if not any(abs(m) >= least_px for m in moves):
        return np.asarray(quad, np.float32).reshape(4, 2)
    q = np.asarray(quad, np.float64).reshape(4, 2)
    out = -1.0 if signed_area(q) < 0 else 1.0
    # plain floats for the four sides (numpy's call overhead on 2-element arrays cost more
    # than the arithmetic), in the order the array expressions did it: the same bits
    pts = q.tolist()
    sides = [(pts[(k + 1) % 4][0] - pts[k][0], pts[(k + 1) % 4][1] - pts[k][1]) for k in range(4)]
    base = []  # a point of each moved side
    for (x, y), (sx, sy), m in zip(pts, sides, moves, strict=True):
        length = max(math.sqrt(sx * sx + sy * sy), 1e-6)
        base.append((x + m * (sy / length * out), y + m * (-sx / length * out)))
    # corner k is where side k-1 (ending at k) meets side k
    corners = [_meet(base[k - 1], sides[k - 1], base[k], sides[k]) for k in range(4)]
    if any(c is None for c in corners):
        return np.asarray(quad, np.float32).reshape(4, 2)
    return np.array(corners, np.float32)


def _meet(p1: tuple[float, float], d1: tuple[float, float], p2: tuple[float, float],
          d2: tuple[float, float]) -> tuple[float, float] | None:
    """`vision.detect.intersect` in plain floats: where the lines p1 + t d1 and p2 + s d2
    meet; None if nearly parallel."""
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-6:
        return None
    t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / den
    return p1[0] + t * d1[0], p1[1] + t * d1[1]


def _best_face(frame: np.ndarray, quad: np.ndarray, t: Templates, j: int,
               views: _FaceViews | None = None) -> float:
    """Card j's face score the best way up (of the two a card lies, four if square)."""
    views = views or _FaceViews(frame, quad, t)
    return max(views.score(j, r) for r in rotations(t.square))


def face_score(frame: np.ndarray, quad: np.ndarray, t: Templates, j: int, rotation: int,
               views: _FaceViews | None = None) -> float:
    """Correlation of the card's whole face (low resolution, grey) with card j's face,
    taking quad corner `rotation` as the card's top-left. `views`: the card's face views
    already warped for this frame and quad, shared by the calls of one identification."""
    return (views or _FaceViews(frame, quad, t)).score(j, rotation)


class _FaceViews:
    """The card inside a quad at FACE_PPM, each way up, warped once for all the cards it
    is compared with: in colour (`by_face`) and in grey, lightly blurred (`face_score`).
    Half a turn round is the same picture read backwards, so the ways up r and r + 2 come
    from one warp one pixel larger (when the card is whole pixels at FACE_PPM): the same
    points of the frame, up to rounding in the last bits of their coordinates.

    `grey_frame`: the frame in grey, when the caller has it: the grey faces are then
    warped from it, at a third of the cost of warping the colour frame (a 3-channel
    linear warp is several times slower than a 1-channel one) and converting; a pixel
    differs from the converted colour warp by at most a grey level's rounding."""

    def __init__(self, frame: np.ndarray, quad: np.ndarray, t: Templates,
                 grey_frame: np.ndarray | None = None) -> None:
        self.frame, self.quad, self.t = frame, np.asarray(quad, np.float32).reshape(4, 2), t
        self.grey_frame = frame if frame.ndim == 2 else grey_frame
        self._colour: dict[int, np.ndarray] = {}
        self._grey_raw: dict[int, np.ndarray] = {}  # warped from grey_frame, not yet blurred
        self._grey: dict[int, np.ndarray] = {}

    def _warp(self, image: np.ndarray, rotation: int, into: dict[int, np.ndarray]) -> np.ndarray:
        """The face of `image` with quad corner `rotation` at its top-left, kept in `into`
        with the face half a turn round when both come from one warp."""
        if rotation not in into:
            w, h = (v * FACE_PPM for v in self.t.size_mm)
            base = rotation % 2
            if abs(w - round(w)) < 1e-9 and abs(h - round(h)) < 1e-9:
                w, h = round(w), round(h)
                H = card_homography(self.quad[ROLL[base]], self.t.size_mm, FACE_PPM)
                both = cv2.warpPerspective(image, H, (w + 1, h + 1),
                                           flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                           borderMode=cv2.BORDER_REPLICATE)
                into[base] = both[:h, :w]
                into[base + 2] = cv2.flip(both[1:, 1:], -1)  # both[h:0:-1, w:0:-1]
            else:
                into[rotation] = warp_card(image, self.quad[ROLL[rotation]], self.t.size_mm, FACE_PPM)
        return into[rotation]

    def colour(self, rotation: int) -> np.ndarray:
        """The face (BGR, or grey for a grey frame), quad corner `rotation` at its top-left."""
        return self._warp(self.frame, rotation, self._colour)

    def grey(self, rotation: int) -> np.ndarray:
        """The face in grey, blurred as the face templates are, quad corner `rotation` at its top-left."""
        if rotation not in self._grey:
            if self.grey_frame is not None:
                face = self._warp(self.grey_frame, rotation, self._grey_raw)
            else:
                face = cv2.cvtColor(self.colour(rotation), cv2.COLOR_BGR2GRAY)
            self._grey[rotation] = cv2.GaussianBlur(face, (3, 3), 0)
        return self._grey[rotation]

    def score(self, j: int, rotation: int) -> float:
        r = cv2.matchTemplate(self.grey(rotation), self.t.face[j], cv2.TM_CCOEFF_NORMED)
        v = cv2.minMaxLoc(r)[1]
        return float(v) if math.isfinite(v) else 0.0
