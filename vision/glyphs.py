"""Reading a card's corner index as a person does: its rank glyph and its suit pip.

A deck we never drew can still be read when the companion knows where this maker
prints the rank and the suit in the corner, and what each rank and each suit looks
like. Both are learned from the faces taught (`learn_layout`, `build_glyphs`): in
every face the ink of the top-left corner splits into connected marks, the top mark
(or marks side by side, as in "10") is the rank and the next one down the suit. Each
rank is then matched against every sample of that rank the deck has (every suit, both
corners), each suit against every sample of that suit (every rank), and the colour of
the suit mark (red or black, after white balance) can veto a suit of the other colour.
Samples from several cards make a rank template that ignores the suit beside it, and
the other way round, which whole-corner templates cannot do: QS and KS differ only in
the rank glyph, AC and AS only in the pip.

Every function here is a pure function of images; `read_index` is the one called per
card.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.detect import ROLL

#: Resolution (px/mm) glyphs are compared at: above a table camera's own, so nothing is lost.
GLYPH_PPM = 4.0
#: The part of the card searched for the index when learning the layout (fractions of w, h).
CORNER_FRACTION = (0.34, 0.40)
#: Ink: darker than the paper by this fraction of the paper's brightness, in some channel.
INK_LEVEL = 0.38
#: Search reach (mm) around a glyph box: detection and perspective leave this much error.
SEARCH_MM = 1.8
#: Light blur (mm) of templates and crops alike: a camera's picture is never sharp.
SOFT_MM = 0.25


Box = tuple[float, float, float, float]  # x, y, w, h in mm


@dataclass(frozen=True)
class IndexLayout:
    """Where the rank glyph and the suit pip lie in the card's top-left corner (mm)."""

    rank: Box
    suit: Box

    @property
    def index(self) -> Box:
        """The whole index: both boxes together."""
        x0 = min(self.rank[0], self.suit[0])
        y0 = min(self.rank[1], self.suit[1])
        x1 = max(self.rank[0] + self.rank[2], self.suit[0] + self.suit[2])
        y1 = max(self.rank[1] + self.rank[3], self.suit[1] + self.suit[3])
        return (x0, y0, x1 - x0, y1 - y0)

    def to_json(self) -> dict:
        return {"rank": [round(v, 2) for v in self.rank], "suit": [round(v, 2) for v in self.suit]}

    @classmethod
    def from_json(cls, data: Mapping) -> IndexLayout:
        return cls(tuple(float(v) for v in data["rank"]), tuple(float(v) for v in data["suit"]))


def paper_balanced(bgr: np.ndarray, percentile: float = 90) -> np.ndarray:
    """Colour divided by the image's own paper white, per channel (float32, paper = 1)."""
    f = bgr.astype(np.float32)
    paper = np.percentile(f.reshape(-1, 3), percentile, axis=0)
    return f / np.maximum(paper, 1.0)


def ink_map(bgr: np.ndarray) -> np.ndarray:
    """How much ink lies on each pixel, 0 (paper) to 1 (black): darkness in the darkest
    channel after white balance, so red ink counts as much as black."""
    return np.clip(1.0 - paper_balanced(bgr).min(axis=2), 0.0, 1.0)


def redness(bgr: np.ndarray) -> float:
    """How red a crop's ink is, from how much light the ink takes from each channel
    (after white balance): about 0 for black ink, which darkens every channel alike, and
    towards 1 for red ink, which leaves the red channel nearly as bright as the paper.
    A ratio, so a washed-out picture of red ink still reads red. NaN when the crop has
    too little ink to tell."""
    f = paper_balanced(bgr)
    absorb = np.clip(1.0 - f, 0.0, 1.0)
    strength = absorb.max(axis=2)
    where = strength >= max(0.2, float(np.percentile(strength, 85)))
    if int(where.sum()) < 6:
        return float("nan")
    a = absorb[where].mean(axis=0)  # B, G, R
    return float((a[:2].mean() - a[2]) / max(float(a.max()), 1e-6))


def glyph_boxes(face: np.ndarray, size_mm: tuple[float, float]) -> tuple[Box, Box] | None:
    """The rank glyph's and the suit pip's boxes (mm) in one upright face's top-left
    corner, or None when the corner shows no such pair of marks."""
    w, h = size_mm
    ppm = face.shape[1] / w
    cw, ch = int(CORNER_FRACTION[0] * w * ppm), int(CORNER_FRACTION[1] * h * ppm)
    ink = ink_map(face[:ch, :cw]) > INK_LEVEL
    edge = max(1, int(0.7 * ppm))
    ink[:edge, :] = False  # the card's own edge and shadow
    ink[:, :edge] = False
    n, _labels, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    marks = []
    min_area = (0.6 * ppm) ** 2
    for i in range(1, n):
        x, y, bw, bh, area = stats[i]
        if area < min_area:
            continue
        if x + bw >= cw - 1 or y + bh >= ch - 1:
            continue  # runs out of the corner: the face's picture or a big pip
        if bw > 0.6 * cw:
            continue
        marks.append((x, y, x + bw, y + bh))
    if len(marks) < 2:
        return None
    marks.sort(key=lambda m: (m[1], m[0]))
    top = marks[0]
    rank = [top]
    for m in marks[1:]:
        overlap = min(m[3], top[3]) - max(m[1], top[1])
        if overlap > 0.5 * min(m[3] - m[1], top[3] - top[1]):
            rank.append(m)  # side by side with the top mark: "10"
    rx0, ry0 = min(m[0] for m in rank), min(m[1] for m in rank)
    rx1, ry1 = max(m[2] for m in rank), max(m[3] for m in rank)
    below = [m for m in marks if m not in rank and m[1] >= ry1 - 1 and m[0] < rx1 + ppm]
    if not below:
        return None
    s = min(below, key=lambda m: m[1])
    rank_box = (rx0 / ppm, ry0 / ppm, (rx1 - rx0) / ppm, (ry1 - ry0) / ppm)
    suit_box = (s[0] / ppm, s[1] / ppm, (s[2] - s[0]) / ppm, (s[3] - s[1]) / ppm)
    return rank_box, suit_box


def learn_layout(faces: Mapping[str, np.ndarray], size_mm: tuple[float, float],
                 min_cards: int = 4) -> IndexLayout | None:
    """Where this deck prints rank and suit: a box that holds the rank glyph of nearly
    every face (and one for the suit pip), from the faces' own marks. None when fewer
    than `min_cards` faces show a clear rank-and-suit index."""
    found = [b for b in (glyph_boxes(f, size_mm) for f in faces.values()) if b is not None]
    if len(found) < min_cards:
        return None

    def union(boxes: list[Box]) -> Box:
        a = np.array([(x, y, x + w, y + h) for x, y, w, h in boxes])
        x0, y0 = np.percentile(a[:, 0], 10), np.percentile(a[:, 1], 10)
        x1, y1 = np.percentile(a[:, 2], 90), np.percentile(a[:, 3], 90)
        pad = 0.4
        return (max(0.0, x0 - pad), max(0.0, y0 - pad), x1 - x0 + 2 * pad, y1 - y0 + 2 * pad)

    rank, suit = union([b[0] for b in found]), union([b[1] for b in found])
    if suit[1] < rank[1] + 0.5 * rank[3]:
        return None
    return IndexLayout(rank, suit)


def _soft(img: np.ndarray) -> np.ndarray:
    return cv2.GaussianBlur(img, (0, 0), SOFT_MM * GLYPH_PPM)


def _crop_mm(face: np.ndarray, size_mm: tuple[float, float], box: Box, pad: float = 0.0) -> np.ndarray:
    """Part `box` (mm, grown by `pad`) of an upright face at GLYPH_PPM, as ink (float32)."""
    w, h = size_mm
    canvas = cv2.resize(face, (round(w * GLYPH_PPM), round(h * GLYPH_PPM)), interpolation=cv2.INTER_AREA)
    x, y, bw, bh = box
    x0, y0 = round((x - pad) * GLYPH_PPM), round((y - pad) * GLYPH_PPM)
    x1, y1 = round((x + bw + pad) * GLYPH_PPM), round((y + bh + pad) * GLYPH_PPM)
    return canvas[max(0, y0):y1, max(0, x0):x1].copy()


@dataclass(frozen=True)
class Glyphs:
    """A deck's rank and suit samples. `ranks[r]` and `suits[s]`: (n, h, w) float32 ink
    samples; `red[s]`: whether suit s is printed red; `codes[(r, s)]`: the card."""

    layout: IndexLayout
    size_mm: tuple[float, float]
    ranks: Mapping[str, np.ndarray] = field(repr=False)
    suits: Mapping[str, np.ndarray] = field(repr=False)
    red: Mapping[str, bool] = field(repr=False)
    codes: Mapping[tuple[str, str], str] = field(repr=False)


def _ink_crop(bgr: np.ndarray) -> np.ndarray:
    return _soft(ink_map(bgr))


def build_glyphs(faces: Mapping[str, Sequence[np.ndarray]], cards: Mapping[str, tuple[str, str, bool]],
                 size_mm: tuple[float, float], layout: IndexLayout) -> Glyphs:
    """Rank and suit samples from upright faces (one or more per code). `cards[code]` =
    (rank, suit, is red) for every card that has a rank and a suit; faces of other
    codes are left out."""
    ranks: dict[str, list[np.ndarray]] = {}
    suits: dict[str, list[np.ndarray]] = {}
    red: dict[str, bool] = {}
    codes: dict[tuple[str, str], str] = {}
    for code, (r, s, is_red) in cards.items():
        codes[(r, s)] = code
        red[s] = is_red
        for turned in (t for face in faces.get(code, ()) for t in (face, cv2.rotate(face, cv2.ROTATE_180))):
            ranks.setdefault(r, []).append(_ink_crop(_crop_mm(turned, size_mm, layout.rank)))
            suits.setdefault(s, []).append(_ink_crop(_crop_mm(turned, size_mm, layout.suit)))
    return Glyphs(layout, size_mm, {k: np.stack(v) for k, v in ranks.items()},
                  {k: np.stack(v) for k, v in suits.items()}, red, codes)


@dataclass(frozen=True)
class IndexRead:
    """What a card's corner indices say. rank/suit: (name, score) best first, every
    class; red: the suit mark's redness (NaN: not enough ink). corner: the quad corner
    whose index read best (the card's top-left, or its bottom-right turned)."""

    ranks: list[tuple[str, float]]
    suits: list[tuple[str, float]]
    red: float
    corner: int

    @property
    def rank_margin(self) -> float:
        return self.ranks[0][1] - self.ranks[1][1] if len(self.ranks) > 1 else self.ranks[0][1]

    @property
    def suit_margin(self) -> float:
        return self.suits[0][1] - self.suits[1][1] if len(self.suits) > 1 else self.suits[0][1]


@dataclass(frozen=True)
class _Stack:
    """One class mapping's samples of one shape as a matrix: `flat` (h*w, K) float32,
    each column zero-mean and of unit length; `owner[i]`: the class of column i."""

    shape: tuple[int, int]
    flat: np.ndarray
    owner: np.ndarray


#: The stacks of the class mappings matched lately, by id (the mapping kept, so that its
#: id is not reused while it is here).
_STACKS: dict[int, tuple[Mapping[str, np.ndarray], list[str], list[_Stack]]] = {}


def _stacks(classes: Mapping[str, np.ndarray]) -> tuple[list[str], list[_Stack]]:
    """The class names and their samples stacked by shape, made once per mapping."""
    held = _STACKS.get(id(classes))
    if held is not None and held[0] is classes:
        return held[1], held[2]
    names = list(classes)
    by_shape: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}
    for i, name in enumerate(names):
        for s in classes[name]:
            by_shape.setdefault((int(s.shape[0]), int(s.shape[1])), []).append((i, s))
    stacks = []
    for shape, items in by_shape.items():
        t = np.stack([s.reshape(-1) for _, s in items]).astype(np.float64)
        t -= t.mean(axis=1, keepdims=True)
        length = np.sqrt((t * t).sum(axis=1, keepdims=True))
        t = np.divide(t, length, out=np.zeros_like(t), where=length > 0)
        stacks.append(_Stack(shape, np.ascontiguousarray(t.T, np.float32), np.array([i for i, _ in items])))
    if len(_STACKS) >= 8:
        _STACKS.pop(next(iter(_STACKS)))
    _STACKS[id(classes)] = (classes, names, stacks)
    return names, stacks


def best_of_classes(window: np.ndarray, classes: Mapping[str, np.ndarray]) -> dict[str, float]:
    """For each class: the best normalised correlation (as cv2.matchTemplate's
    TM_CCOEFF_NORMED, to float rounding) of any of its samples anywhere in the window,
    -1 where a sample does not fit. Every sample of every class at every place in one
    matrix product: one matchTemplate per sample cost 25 us each, 500 a corner."""
    names, stacks = _stacks(classes)
    best = np.full(len(names), -1.0)
    win = np.ascontiguousarray(window, np.float32)
    for st in stacks:
        th, tw = st.shape
        if win.shape[0] < th or win.shape[1] < tw:
            continue
        rows = np.lib.stride_tricks.sliding_window_view(win, st.shape).reshape(-1, th * tw)
        s1, s2 = cv2.integral2(win, sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
        sums = (s1[th:, tw:] - s1[:-th, tw:] - s1[th:, :-tw] + s1[:-th, :-tw]).reshape(-1)
        squares = (s2[th:, tw:] - s2[:-th, tw:] - s2[th:, :-tw] + s2[:-th, :-tw]).reshape(-1)
        spread = np.sqrt(np.maximum(squares - sums * sums / (th * tw), 0.0))
        # a flat window correlates 0, as OpenCV has it
        scale = np.divide(1.0, spread, out=np.zeros_like(spread), where=spread > 1e-9).astype(np.float32)
        r = np.clip((rows @ st.flat) * scale[:, None], -1.0, 1.0).max(axis=0)
        np.maximum.at(best, st.owner, r)
    return dict(zip(names, best.tolist(), strict=True))


def _best(window: np.ndarray, samples: np.ndarray) -> float:
    """The best normalised correlation of any sample anywhere in the window."""
    best = -1.0
    th, tw = samples.shape[1:]
    if window.shape[0] < th or window.shape[1] < tw:
        return best
    for s in samples:
        r = cv2.matchTemplate(window, s, cv2.TM_CCOEFF_NORMED)
        v = float(r.max())
        if np.isfinite(v) and v > best:
            best = v
    return best


def _corner_view(frame: np.ndarray, quad: np.ndarray, size_mm: tuple[float, float], box: Box) -> np.ndarray:
    """Part `box` (mm, grown by the search reach) of the card whose top-left is quad
    corner 0, warped upright at GLYPH_PPM."""
    from vision.identify import warp_card

    x, y, w, h = box
    grown = (x - SEARCH_MM, y - SEARCH_MM, w + 2 * SEARCH_MM, h + 2 * SEARCH_MM)
    return warp_card(frame, quad, size_mm, GLYPH_PPM, grown)


def read_index(frame: np.ndarray, quad: np.ndarray, g: Glyphs,
               seen: Sequence[bool] = (True, True, True, True)) -> IndexRead:
    """Read rank and suit at both index corners of the card in `quad` (frame pixels,
    clockwise, c0->c1 a short side): corner 0 and corner 2 are its top-left and
    bottom-right in one order or the other. Each class scores its best sample at its
    best place; the two corners' scores are averaged (only the visible ones)."""
    quad = np.asarray(quad, np.float32).reshape(4, 2)
    corners = [k for k in (0, 2) if seen[k]] or [0, 2]
    rank_scores: dict[str, list[float]] = {r: [] for r in g.ranks}
    suit_scores: dict[str, list[float]] = {s: [] for s in g.suits}
    reds, strength = [], []
    for k in corners:
        q = quad[ROLL[k]]
        rank_win = _ink_crop(_corner_view(frame, q, g.size_mm, g.layout.rank))
        suit_view = _corner_view(frame, q, g.size_mm, g.layout.suit)
        suit_win = _ink_crop(suit_view)
        total = 0.0
        for r, v in best_of_classes(rank_win, g.ranks).items():
            rank_scores[r].append(v)
            total = max(total, v)
        for s, v in best_of_classes(suit_win, g.suits).items():
            suit_scores[s].append(v)
        strength.append(total)
        m = round(SEARCH_MM * GLYPH_PPM * 0.7)
        reds.append(redness(suit_view[m:-m, m:-m]))
    ranks = sorted(((r, float(np.mean(v))) for r, v in rank_scores.items()), key=lambda x: -x[1])
    suits = sorted(((s, float(np.mean(v))) for s, v in suit_scores.items()), key=lambda x: -x[1])
    red = float(np.nanmedian(reds)) if not all(np.isnan(reds)) else float("nan")
    return IndexRead(ranks, suits, red, corners[int(np.argmax(strength))])


@dataclass(frozen=True)
class GlyphDecision:
    """A card named from its index: code None when rank or suit is not clear.
    score: the weaker of the rank's and the suit's correlation; margin: the weaker of
    their leads over the runner-up; why: what was not clear (for diagnostics)."""

    code: str | None
    best: str | None
    score: float
    margin: float
    corner: int
    why: str = ""
    vetoed: bool = False  # the suit mark's colour ruled out the other colour's suits ...
    red_suit: bool = False  # ... leaving the red ones (True) or the black ones
    rank_unclear: bool = False


def decide(read: IndexRead, g: Glyphs, min_rank: float, rank_margin: float, min_suit: float,
           suit_margin: float, red_above: float, black_below: float) -> GlyphDecision:
    """Rank and suit each must be clearly ahead; a suit mark clearly red (or clearly
    black) rules out the suits of the other colour before the suits are compared."""
    suits = read.suits
    vetoed = not np.isnan(read.red) and (read.red >= red_above or read.red <= black_below)
    if vetoed:
        kept = [s for s in suits if g.red.get(s[0], False) == (read.red >= red_above)]
        vetoed = bool(kept)
        suits = kept or suits
    rank, rs = read.ranks[0]
    suit, ss = suits[0]
    rm = rs - read.ranks[1][1] if len(read.ranks) > 1 else rs
    sm = ss - suits[1][1] if len(suits) > 1 else ss
    best = g.codes.get((rank, suit))
    why = []
    if rs < min_rank or rm < rank_margin:
        why.append(f"rank {rank} at {rs:.2f}, {rm:.2f} ahead")
    if ss < min_suit or sm < suit_margin:
        why.append(f"suit {suit} at {ss:.2f}, {sm:.2f} ahead")
    if best is None:
        why.append(f"no card has rank {rank} and suit {suit}")
    code = None if why else best
    return GlyphDecision(code, best, min(rs, ss), min(rm, sm), read.corner, "; ".join(why), vetoed,
                         bool(vetoed and read.red >= red_above), rs < min_rank or rm < rank_margin)
