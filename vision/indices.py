"""Cards found by their corner index alone, as a person finds them in a fanned hand.

A card in a fan, a card cut by the edge of the picture, or a card half under a cup
has no whole outline, but its corner index (the rank glyph over the suit pip) is in
plain view. This stage looks for that pair of ink marks directly:

1. Ink is what is clearly darker than the paper around it (the darkest colour channel
   against its local maximum), split into connected marks.
2. Every compact mark is a possible suit pip; every mark at a fitting distance from it
   is a possible rank glyph. The pair fixes the card's scale and which way is down:
   the deck's learned layout (vision.glyphs) says where the rank and the suit sit in
   the corner, so the similarity that carries the learned centres onto the two marks
   places the whole card. The marks inside the rank box ("1" and "0" of a 10) are
   gathered and the placement refined.
3. Pairs whose marks have no glyph's size at that scale are dropped; the rest are read
   with the deck's rank and suit samples (a cheap pass with the mean sample of each
   class first). A card is named only when rank and suit are both plain: there is no
   face to check a partly seen card against.
4. The band between the card's top edge and its index must be paper: printed text on
   an envelope can look like an index, but has more text above it.
5. Read with generic samples (a deck never taught), the index must also sit at a card's
   corner: the card's top and left edges, where the index places them, must show a step
   in brightness (`corner_edges`), both a little or one plainly (a card in a fan may lie
   on a card as white as itself). A glyph-like mark inside a card's picture, or two
   pips of a 9 read as a 4, have paper, not an edge, where that card would end.

Every function is a pure function of an image and a deck's glyphs. The thresholds
come from the real photos in ../shared/realcards (benchmarks/results/real.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from vision.glyphs import (
    GLYPH_PPM,
    SEARCH_MM,
    Glyphs,
    IndexRead,
    _best,
    _corner_view,
    _ink_crop,
    best_of_classes,
    decide,
    redness,
)


@dataclass(frozen=True)
class IndexParams:
    """Thresholds, measured on real photos (benchmarks/results/real.md)."""

    min_score: float = 0.80  # rank and suit correlation, each
    min_margin: float = 0.05  # rank and suit lead over the runner-up, each
    coarse: float = 0.60  # the mean sample of some rank and of some suit must reach this first
    ink_level: float = 0.62  # ink: darker than this share of the local paper
    min_paper: int = 80  # ... where the local paper is at least this bright (0..255)
    quiet: float = 0.50  # at most this share of ink above the index, below the card's edge
    red_above: float = 0.45  # as vision.identify.IdentifyParams
    black_below: float = 0.15
    #: a pair of marks is a rank and a suit when each holds this share of the deck's
    #: sample ink (lower, upper) at the scale the pair gives
    ink_area: tuple[float, float] = (0.3, 1.3)
    max_reads: int = 400  # full reads per image, at most (a bound on the time of a cluttered photo)
    # Generic glyphs of a deck never taught (vision.generic): benchmarks/results/real.md,
    # "Untaught". With no outline and no face to check, generic samples read a 9's pips as
    # a 4 and cables, text and courts' pictures as a JC or a 4D: at 0.80 and a lead of 0.06
    # alone this path made 11 of 13 wrong cards. A stricter score and the corner-edge test
    # (`corner_edges`) leave none of its own on the real photos.
    untaught_score: float = 0.84
    untaught_margin: float = 0.04
    untaught_coarse: float = 0.60
    #: The card's top and left edges where the index places them (`corner_edges`: grey
    #: levels over 1 mm, 0..255): both at least `min_edge`, or one at least `one_edge`.
    #: Off (0) for a taught deck: its own samples read no picture or pip as an index.
    min_edge: float = 0.0
    one_edge: float = 0.0
    untaught_edge: float = 10.0
    untaught_one_edge: float = 40.0

    def untaught(self) -> IndexParams:
        """These parameters with the untaught thresholds in place of the taught ones."""
        return replace(self, min_score=self.untaught_score, min_margin=self.untaught_margin,
                       coarse=self.untaught_coarse, min_edge=self.untaught_edge,
                       one_edge=self.untaught_one_edge)


@dataclass(frozen=True)
class IndexCard:
    """A card named from one corner index. corners: the whole card as it would lie
    (frame pixels, clockwise from its top-left, partly outside the picture perhaps);
    at: the rank glyph's centre (px); scale: px per mm."""

    code: str
    score: float
    margin: float
    corners: np.ndarray
    at: tuple[float, float]
    scale: float
    candidates: tuple[tuple[str, float], ...] = ()
    marks: frozenset[int] = field(default=frozenset(), repr=False, compare=False)  # its ink marks


@dataclass(frozen=True)
class _Marks:
    labels: np.ndarray
    area: np.ndarray
    centres: np.ndarray
    size: np.ndarray  # the longer side of each mark's box
    fill: np.ndarray  # area over box area


@dataclass(frozen=True)
class IndexShape:
    """What a deck's corner index looks like, from its samples: where the ink of the
    rank glyph and of the suit pip is centred in the corner (mm), and how much ink they
    hold (mm², the least and the most of any rank or suit, of the softened samples: a
    photo's sharp marks hold about 0.7 of it)."""

    rank: np.ndarray
    suit: np.ndarray
    rank_area: tuple[float, float]
    suit_area: tuple[float, float]


_SHAPES: dict[int, tuple[Glyphs, IndexShape]] = {}


def index_shape(g: Glyphs) -> IndexShape:
    """The deck's index shape (worked out once per Glyphs)."""
    hit = _SHAPES.get(id(g))
    if hit is not None and hit[0] is g:
        return hit[1]

    def measure(samples, box) -> tuple[np.ndarray, tuple[float, float]]:
        centres, areas = [], []
        for stack in samples.values():
            mine = []
            for s in stack:
                ink = s > 0.3 * max(float(s.max()), 1e-6)
                w = np.where(ink, s, 0.0)
                ys, xs = np.indices(s.shape)
                total = max(float(w.sum()), 1e-6)
                centres.append(((xs * w).sum() / total, (ys * w).sum() / total))
                mine.append(float(ink.sum()) / GLYPH_PPM ** 2)
            areas.append(float(np.median(mine)))
        c = np.mean(centres, axis=0) / GLYPH_PPM
        return np.array([box[0] + c[0], box[1] + c[1]]), (min(areas), max(areas))

    rank, rank_area = measure(g.ranks, g.layout.rank)
    suit, suit_area = measure(g.suits, g.layout.suit)
    shape = IndexShape(rank, suit, rank_area, suit_area)
    _SHAPES[id(g)] = (g, shape)
    return shape


def centres_mm(g: Glyphs) -> tuple[np.ndarray, np.ndarray]:
    """Where the ink of the rank glyph and of the suit pip is centred in the corner (mm)."""
    shape = index_shape(g)
    return shape.rank, shape.suit


def ink_marks(bgr: np.ndarray, p: IndexParams = IndexParams()) -> _Marks:
    """The connected marks of ink on paper in a picture."""
    h, w = bgr.shape[:2]
    paper = bgr.min(axis=2) if bgr.ndim == 3 else bgr
    k = max(15, round(min(h, w) / 12)) | 1
    local = cv2.dilate(paper, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    ink = ((paper.astype(np.float32) < p.ink_level * local) & (local > p.min_paper)).astype(np.uint8)
    _, labels, stats, cents = cv2.connectedComponentsWithStats(ink, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA].astype(np.float64)
    bw, bh = stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT]
    return _Marks(labels, area, cents, np.maximum(bw, bh).astype(np.float64),
                  area / np.maximum(bw * bh, 1))


def _pairs(m: _Marks, shape: tuple[int, int]) -> list[tuple[int, int]]:
    """(rank mark, suit mark) pairs worth a look: a compact suit mark, and a mark at one
    to three and a half times its size from it."""
    lim = min(shape[:2]) / 5
    ok = (m.area >= 6) & (m.size >= 3) & (m.size <= lim)
    ok[0] = False
    marks = np.nonzero(ok)[0]
    if marks.size < 2:
        return []
    suits = np.nonzero(ok & (m.fill >= 0.3))[0]
    out = []
    cents = m.centres[marks]
    for b in suits:
        d = np.linalg.norm(cents - m.centres[b], axis=1)
        sb = np.sqrt(m.area[b])
        out.extend((int(a), int(b)) for a in marks[(d >= 1.2 * sb) & (d <= 3.5 * sb)])
    return out


def card_from(rank_px: np.ndarray, suit_px: np.ndarray, g: Glyphs) -> tuple[np.ndarray, float]:
    """The whole card (px, clockwise from its top-left) whose rank and suit ink are
    centred on these two points, and its scale (px/mm)."""
    rank_mm, suit_mm = centres_mm(g)
    z = complex(*(suit_px - rank_px)) / complex(*(suit_mm - rank_mm))
    w, h = g.size_mm
    origin = complex(*rank_px)
    pts = [origin + z * (complex(x, y) - complex(*rank_mm)) for x, y in ((0, 0), (w, 0), (w, h), (0, h))]
    return np.array([[c.real, c.imag] for c in pts], np.float32), abs(z)


def _members(m: _Marks, quad: np.ndarray, g: Glyphs, box, grow: float = 0.8) -> list[int]:
    """The marks centred inside a layout box (mm, grown a little) of the card in quad."""
    x, y, bw, bh = box
    w, h = g.size_mm
    H = cv2.getPerspectiveTransform(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32), quad)
    corners = np.array([[x - grow, y - grow], [x + bw + grow, y - grow], [x + bw + grow, y + bh + grow],
                        [x - grow, y + bh + grow]], np.float32)
    poly = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), H)
    lo, hi = poly.reshape(-1, 2).min(axis=0), poly.reshape(-1, 2).max(axis=0)
    c = m.centres
    near = np.nonzero((c[:, 0] >= lo[0]) & (c[:, 0] <= hi[0]) & (c[:, 1] >= lo[1]) & (c[:, 1] <= hi[1]))[0]
    return [int(i) for i in near
            if i > 0 and cv2.pointPolygonTest(poly, (float(c[i, 0]), float(c[i, 1])), False) >= 0]


def place(m: _Marks, a: int, b: int, g: Glyphs):
    """The card placed from rank mark a and suit mark b, refined on every mark inside
    the rank and the suit boxes; None when the boxes share marks or one is empty.
    Returns (quad, scale, rank marks, suit marks)."""
    ca, cb = m.centres[a].copy(), m.centres[b].copy()
    for _ in range(3):
        quad, scale = card_from(ca, cb, g)
        ra = _members(m, quad, g, g.layout.rank)
        sb = _members(m, quad, g, g.layout.suit)
        if not ra or not sb or set(ra) & set(sb):
            return None
        na = np.average(m.centres[ra], axis=0, weights=m.area[ra])
        nb = np.average(m.centres[sb], axis=0, weights=m.area[sb])
        if np.allclose(na, ca, atol=0.25) and np.allclose(nb, cb, atol=0.25):
            break
        ca, cb = na, nb
    quad, scale = card_from(ca, cb, g)
    return quad, scale, tuple(sorted(ra)), tuple(sorted(sb))


def quiet_above(bgr: np.ndarray, quad: np.ndarray, g: Glyphs) -> float:
    """The share of ink in the band between the card's top edge and its rank glyph: an
    index has plain paper there, a line of printed text has more text."""
    x0 = min(g.layout.rank[0], g.layout.suit[0])
    band = (x0 - 0.6, 0.6, g.layout.rank[0] + g.layout.rank[2] - x0 + 1.2, max(0.6, g.layout.rank[1] - 1.2))
    view = _corner_view_exact(bgr, quad, g.size_mm, band)
    idx = _corner_view_exact(bgr, quad, g.size_mm, g.layout.index)
    paper_v = view.min(axis=2) if view.ndim == 3 else view
    paper_i = idx.min(axis=2) if idx.ndim == 3 else idx
    white = float(np.percentile(paper_i, 90))
    if white <= 0:
        return 1.0
    return float((paper_v < 0.7 * white).mean())


def corner_edges(grey: np.ndarray, quad: np.ndarray, scale: float, length_mm: float = 18.0,
                 reach_mm: float = 2.0) -> tuple[float, float]:
    """How plainly the card placed at `quad` (px, clockwise from its top-left) ends where
    it should near its top-left corner: (top edge, left edge), each the median, over
    points 3 to `length_mm` mm from the corner, of the largest brightness step over 1 mm
    across the edge within `reach_mm` of it (0..255). 0 where the edge leaves the picture."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    h, w = grey.shape[:2]
    along = np.arange(3.0, length_mm, 1.0) * scale
    across = np.arange(-reach_mm - 0.5, reach_mm + 0.5 + 1e-9, 0.5) * scale
    gap = 2  # samples 0.5 mm apart: a step over 1 mm
    out = []
    for end in (q[1], q[3]):
        u = (end - q[0]) / max(np.linalg.norm(end - q[0]), 1e-9)
        n = np.array([-u[1], u[0]])
        if np.dot(centre - q[0], n) < 0:
            n = -n
        pts = q[0] + along[:, None, None] * u + across[None, :, None] * n  # (along, across, 2)
        inside = ((pts >= 0) & (pts < (w - 1, h - 1))).all(axis=(1, 2))
        if not inside.any():
            out.append(0.0)
            continue
        pts = pts[inside].astype(np.float32)
        v = cv2.remap(grey, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR).astype(np.float32)
        out.append(float(np.median(np.abs(v[:, gap:] - v[:, :-gap]).max(axis=1))))
    return out[0], out[1]


def _at_a_corner(edges: tuple[float, float], p: IndexParams) -> bool:
    return min(edges) >= p.min_edge or (p.one_edge > 0 and max(edges) >= p.one_edge)


def _corner_view_exact(bgr: np.ndarray, quad: np.ndarray, size_mm, box) -> np.ndarray:
    from vision.identify import warp_card

    return warp_card(bgr, quad, size_mm, GLYPH_PPM, box)


def _read(bgr: np.ndarray, quad: np.ndarray, g: Glyphs, means, coarse: float) -> IndexRead | None:
    rank_win = _ink_crop(_corner_view(bgr, quad, g.size_mm, g.layout.rank))
    suit_view = _corner_view(bgr, quad, g.size_mm, g.layout.suit)
    suit_win = _ink_crop(suit_view)
    rank_means, suit_means = means
    if max(_best(suit_win, s[None]) for s in suit_means.values()) < coarse:
        return None
    if max(_best(rank_win, s[None]) for s in rank_means.values()) < coarse:
        return None
    ranks = sorted(best_of_classes(rank_win, g.ranks).items(), key=lambda x: -x[1])
    suits = sorted(best_of_classes(suit_win, g.suits).items(), key=lambda x: -x[1])
    k = round(SEARCH_MM * GLYPH_PPM * 0.7)
    return IndexRead(ranks, suits, redness(suit_view[k:-k, k:-k]), 0)


def _inside(pt: np.ndarray, quads: Sequence[np.ndarray]) -> bool:
    p = (float(pt[0]), float(pt[1]))
    return any(cv2.pointPolygonTest(np.asarray(q, np.float32).reshape(-1, 1, 2), p, False) >= 0
               for q in quads)


def find_index_cards(bgr: np.ndarray, g: Glyphs, p: IndexParams = IndexParams(),
                     skip: Sequence[np.ndarray] = ()) -> list[IndexCard]:
    """Every card whose corner index reads plainly, each code once. `skip`: outlines
    (px) of cards already named; an index inside one belongs to that card and is not
    read. Two readings of one spot as different codes: the clearly better stays, else
    neither (`_one_each`)."""
    if bgr.ndim == 2:
        bgr = cv2.cvtColor(bgr, cv2.COLOR_GRAY2BGR)
    if getattr(g, "generic", False):
        p = p.untaught()
        if p.min_score > 1:
            return []  # no reading can pass: skip the work (a threshold set above 1 turns it off)
    m = ink_marks(bgr, p)
    grey = None
    if p.min_edge > 0 or p.one_edge > 0:
        grey = cv2.GaussianBlur(cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY), (0, 0), 1.0)
    shape = index_shape(g)
    means = ({r: s.mean(axis=0) for r, s in g.ranks.items()}, {s: v.mean(axis=0) for s, v in g.suits.items()})
    tried: set[tuple] = set()
    found: list[IndexCard] = []
    reads = 0
    min_card = 30.0 / g.size_mm[1]  # a card under 30 px tall has no readable index
    for a, b in _pairs(m, bgr.shape[:2]):
        if reads >= p.max_reads:
            break
        placed = place(m, a, b, g)
        if placed is None:
            continue
        quad, scale, ra, sb = placed
        if (ra, sb) in tried:
            continue
        tried.add((ra, sb))
        rank_area = m.area[list(ra)].sum() / scale ** 2
        suit_area = m.area[list(sb)].sum() / scale ** 2
        lo, hi = p.ink_area
        if scale < min_card or not (lo * shape.rank_area[0] <= rank_area <= hi * shape.rank_area[1]
                                    and lo * shape.suit_area[0] <= suit_area <= hi * shape.suit_area[1]):
            continue
        at = np.average(m.centres[list(ra)], axis=0, weights=m.area[list(ra)])
        if skip and _inside(at, skip):
            continue
        reads += 1
        read = _read(bgr, quad, g, means, p.coarse)
        if read is None:
            continue
        d = decide(read, g, p.min_score, p.min_margin, p.min_score, p.min_margin, p.red_above, p.black_below)
        if d.code is None or quiet_above(bgr, quad, g) > p.quiet:
            continue
        if grey is not None and not _at_a_corner(corner_edges(grey, quad, scale), p):
            continue
        cands = tuple((g.codes[(r, s)], round(min(rs, ss), 3)) for r, rs in read.ranks[:2]
                      for s, ss in read.suits[:2] if (r, s) in g.codes)
        found.append(IndexCard(d.code, d.score, d.margin, quad, (float(at[0]), float(at[1])), float(scale),
                               tuple(sorted(cands, key=lambda c: -c[1])[:3]), frozenset(ra + sb)))
    return _one_each(found)


def _one_each(found: list[IndexCard], lead: float = 0.05) -> list[IndexCard]:
    """The best reading of each code. Two readings of different codes that share ink
    marks, or lie at one spot, are one index read two ways (the "0" of a 10 over its
    club can read as a 9): the clearly better one (by `lead`) stays, else neither."""
    held: list[IndexCard] = []  # every reading not outdone, a code's repeats included
    lost: set[str] = set()
    for c in sorted(found, key=lambda c: -c.score):
        rivals = [o for o in held if o.code != c.code and (
            o.marks & c.marks or np.hypot(o.at[0] - c.at[0], o.at[1] - c.at[1]) < 6 * min(o.scale, c.scale))]
        close = {o.code for o in rivals if o.score - c.score < lead}
        if close:
            lost |= close | {c.code}
        elif not rivals:
            held.append(c)
    best: dict[str, IndexCard] = {}
    for c in held:
        best.setdefault(c.code, c)
    return [c for code, c in best.items() if code not in lost]
