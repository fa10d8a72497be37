"""Card detection: the outlines of the cards in an image, as quads with sub-pixel corners.

Works on a grayscale "detection image": either the top-down view of the mat (cards are
then rectangles of a known size in pixels) or a downscaled camera frame (the size is then
unknown and `card_scale` estimates it from the cards that stand alone).

Why not one global threshold: light on a table is uneven and glare moves. A card is a
region that is clearly brighter than the table *around it*; `background` estimates the
bare table everywhere (bright things excluded, then filled in from their surroundings),
and `masks` thresholds against it. Touching and overlapping cards form one blob; such
blobs are cut into cards from their right-angled corners, since every visible corner of
a card, with the card's known size, says where the whole card lies.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations

import cv2
import numpy as np

Quad = np.ndarray  # (4, 2) float32 corners, clockwise on screen (image y points down)
ROLL = tuple(np.array([(i + k) % 4 for i in range(4)]) for k in range(4))  # quad[ROLL[k]] starts at k


@dataclass(frozen=True)
class DetectParams:
    """Knobs of the detector; docs/vision.md ("Detection") says why each default is what it is."""

    #: A card pixel is brighter than the table there by this many grey levels at least ...
    min_contrast: float = 28.0
    #: ... and by this fraction of the table's own brightness (bright light, light mats).
    rel_contrast: float = 0.30
    #: A pixel darker than the table by these amounts is a shadow, sleeve or dark object.
    dark_contrast: float = 35.0
    rel_dark: float = 0.35
    #: Background estimate on an image this many times smaller (cheap, smooth).
    bg_cell: int = 8
    #: Smallest visible part of a card worth reporting, as a fraction of its area.
    min_visible: float = 0.30
    #: Tolerated error of side lengths against the card's size (perspective, curl).
    size_tol: float = 0.16
    #: Corners of a blob count as a card's corner within this many degrees of 90.
    angle_tol: float = 22.0
    #: Gradient magnitude (per pixel, Sobel/8) that marks a card edge inside a blob.
    edge_gradient: float = 10.0
    #: Least share of a card's inside, or of a ring just inside its edge, that must be
    #: bright (paper, a back's white border): a printed outline or a glare ring is not a card.
    min_solid: float = 0.4
    #: A dark card's pixels (a Piktas void) are darker than the table by this many grey
    #: levels and below this fraction of its brightness (a shadow keeps over half of it).
    dark_card_contrast: float = 20.0
    dark_card_ratio: float = 0.45
    #: A dark card's outline is taken as the card if no corner is further than this
    #: fraction of a card's width from its exact rectangle (it is fitted, not snapped).
    dark_fit: float = 0.04
    #: With the card's size known, a lone blob's quad is taken as the card only if no
    #: corner is further than this fraction of a card's width from the exact card
    #: rectangle fitted to it; else (a zone outline or glare touching it bends it) the
    #: card is fitted from its corners, as touching cards are.
    whole_fit: float = 0.02
    #: A blob of at most this many card areas holds one card worth reporting (another
    #: card showing beside it would show less than `min_visible`): `_lone_card` fits it.
    lone_area: float = 1.25
    #: ... if every side of the fitted card is backed by an edge over this share of it,
    #: and its sides are the card's within this fraction (a lone card snapped onto its
    #: edges came within 1.3 %; a card and the one under it, 2.8 % too big).
    lone_support: float = 0.75
    lone_size: float = 0.02
    #: A blob not a four-cornered outline (a zone's printed line or label touching the
    #: card) is taken for one card up to this many card areas (the labels: 1.09 at most).
    lone_touched: float = 1.15


@dataclass(frozen=True)
class CardQuad:
    """One card outline. `corners` clockwise with c0->c1 a short side (any side for
    square cards); `seen[i]` says whether corner i was seen (True) or inferred from
    the card's size because something covers it; `support` is the fraction of the
    outline backed by an edge in the image, 0..1."""

    corners: Quad
    support: float = 1.0
    seen: tuple[bool, bool, bool, bool] = (True, True, True, True)
    #: Other places the card may lie, when the image cannot tell (a middle card partly
    #: under its neighbours): the one whose identification is clear is the card's.
    alternatives: tuple[Quad, ...] = ()
    #: Which corners of each alternative were seen, where they differ from `seen`
    #: (aligned with `alternatives`; empty: `seen` for all).
    alternatives_seen: tuple[tuple[bool, bool, bool, bool], ...] = ()
    #: How many of the last alternatives are the card turned (`pipeline._with_turned`).
    turned: int = 0

    @property
    def center(self) -> np.ndarray:
        return np.add.reduce(self.corners, axis=0) / len(self.corners)  # .mean(axis=0) to the bit

    @property
    def complete(self) -> bool:
        return all(self.seen)


@dataclass
class Masks:
    """Per-pixel classification of a detection image (uint8 0/255 each)."""

    bright: np.ndarray  # clearly brighter than the table: cards, skin, glare
    dark: np.ndarray  # clearly darker than the table: shadows, sleeves
    #: The bare table's estimate, bg_cell times smaller (float32); `background` is it at
    #: the image's size, made only when asked for (only dark cards need it: 0.7 ms a frame).
    background_small: np.ndarray = field(repr=False)
    _background: np.ndarray | None = field(default=None, repr=False)

    @property
    def background(self) -> np.ndarray:
        """The bare table's brightness at every pixel (float32)."""
        if self._background is None:
            h, w = self.bright.shape[:2]
            self._background = _up(self.background_small, w, h)
        return self._background


def _odd(n: float) -> int:
    n = max(3, round(n))
    return n if n % 2 else n + 1


def _background_small(gray: np.ndarray, card_px: float | None, params: DetectParams) -> np.ndarray:
    """`background`, bg_cell times smaller (before it is scaled up to the image)."""
    if gray.ndim != 2:
        raise ValueError(f"background needs a grayscale image, got shape {gray.shape}")
    h, w = gray.shape
    cell = max(1, params.bg_cell)
    sw, sh = max(4, w // cell), max(4, h // cell)
    # Averaging whole cells (the last few pixels of a row left out) would take OpenCV's
    # fast path (1.7 -> 0.4 ms for a 950x700 view), but the slightly different table level
    # moved a blurred card's corners enough for a wrong reading (standard deck, hard, seed
    # 2, frame 272: QC read as 8D): kept as it was.
    small = cv2.resize(gray, (sw, sh), interpolation=cv2.INTER_AREA).astype(np.float32)
    card_small = (card_px if card_px else min(w, h) / 6.0) / cell
    se = cv2.getStructuringElement(cv2.MORPH_RECT, (_odd(1.3 * card_small),) * 2)
    bg = cv2.dilate(cv2.erode(small, se), se)
    bg = cv2.blur(bg, (_odd(card_small),) * 2)
    k = (_odd(2.5 * card_small),) * 2
    for _ in range(2):
        keep = (small <= bg + np.maximum(params.min_contrast, params.rel_contrast * bg)
                ).astype(np.float32)
        num = cv2.blur(small * keep, k)
        den = cv2.blur(keep, k)
        covered = den > 0.05
        # the fallback is worked out only where some cell needs it (its median was a
        # tenth of this function, for nothing when every cell has table nearby)
        fallback = 0.0 if covered.all() else \
            float(np.median(small[keep > 0])) if keep.any() else float(np.median(small))
        bg = np.where(covered, num / np.maximum(den, 1e-6), fallback).astype(np.float32)
    return bg


def background(gray: np.ndarray, card_px: float | None = None, params: DetectParams = DetectParams()
               ) -> np.ndarray:
    """The bare table's brightness at every pixel (float32), with bright objects removed.

    A grey opening removes objects smaller than about a card, then two rounds of
    normalised convolution re-estimate the table from the pixels that are not
    clearly brighter, so large clusters of cards are filled in from their edges.
    """
    h, w = gray.shape[:2]
    return _up(_background_small(gray, card_px, params), w, h)


def _up(small: np.ndarray, w: int, h: int) -> np.ndarray:
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def masks(gray: np.ndarray, card_px: float | None = None, params: DetectParams = DetectParams()
          ) -> Masks:
    """Classify pixels against the local table brightness: bright, dark or table."""
    small = _background_small(gray, card_px, params)
    h, w = gray.shape
    # The thresholds are worked out on the small background and scaled up with it: the
    # arithmetic over every pixel of the image cost more than the rest of the masks.
    above = np.maximum(small + params.min_contrast, (1.0 + params.rel_contrast) * small)
    below = np.minimum(small - params.dark_contrast, (1.0 - params.rel_dark) * small)
    kernel = np.ones((3, 3), np.uint8)
    # The 8-bit pixels compared with the float thresholds as they are (numpy takes each to
    # float32 on the way: cv2.compare of a float32 copy, to the pixel), into 0/255 masks,
    # and the dark threshold scaled up into the bright one's array: a float image is a
    # block of 2.7 MB (950x700) made and dropped every frame, which the recognition
    # process's malloc (runtime.memory: blocks of 1 MB and more mapped apart) maps and
    # unmaps each time (its page faults: about 0.6 ms a block).
    up = _up(above, w, h)
    bright = _mask_u8(np.greater(gray, up))
    cv2.resize(below, (w, h), dst=up, interpolation=cv2.INTER_LINEAR)  # as _up, into `up`
    dark = _mask_u8(np.less(gray, up))
    bright_u8 = cv2.morphologyEx(bright, cv2.MORPH_OPEN, kernel)
    dark_u8 = cv2.morphologyEx(dark, cv2.MORPH_OPEN, kernel)
    return Masks(bright_u8, dark_u8, small)


def _mask_u8(where: np.ndarray) -> np.ndarray:
    """A boolean array as a 0/255 uint8 mask, in its own memory (as cv2.compare gives it)."""
    mask = where.view(np.uint8)
    mask *= 255
    return mask


# --- geometry helpers ---------------------------------------------------------

def signed_area(poly: np.ndarray) -> float:
    """Shoelace area; positive for clockwise-on-screen polygons (y down)."""
    return float(cv2.contourArea(np.asarray(poly, np.float32).reshape(-1, 1, 2), oriented=True))


def order_quad(quad: np.ndarray, square: bool = False) -> Quad:
    """Corners clockwise on screen, starting so that c0->c1 is a short side (a non-square
    card) and, of the two such starts, c0 is nearer the image's top-left."""
    q = np.asarray(quad, dtype=np.float32).reshape(4, 2)
    if signed_area(q) < 0:
        q = q[::-1]
    starts: Sequence[int] = range(4)
    if not square:
        # the four sides' lengths at once: np.linalg.norm of each side (float32) is the
        # same root of the same two squares added, at a quarter of the calls
        d = q[ROLL[1]] - q
        sq = d * d
        n = np.sqrt(sq[:, 0] + sq[:, 1])
        starts = (0, 2) if n[0] + n[2] <= n[1] + n[3] else (1, 3)
    corner = (q[:, 0] + q[:, 1]).tolist()
    best = min(starts, key=corner.__getitem__)
    return q[ROLL[best]]


def short_long(quad: np.ndarray) -> tuple[float, float]:
    """A quad's short and long side in pixels, each the mean of its two opposite sides."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    d = q - q[ROLL[1]]  # as np.roll(q, -1, axis=0), at a fraction of its cost
    sides = np.hypot(d[:, 0], d[:, 1]).tolist()
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    return (a, b) if a <= b else (b, a)


#: The outline of a mask runs through the centres of its edge pixels, half a pixel inside
#: the edge: lines fitted to it are moved out by this much.
EDGE_BIAS = 0.5


def grow(quad: np.ndarray, by: float) -> np.ndarray:
    """The quad with every side moved outward by `by` pixels."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    sign = -1.0 if signed_area(q) < 0 else 1.0
    # plain floats, the same operations as on numpy's 2-vectors (a fifth of the cost)
    pts = q.tolist()
    lines = []
    for i in range(4):
        (x0, y0), (x1, y1) = pts[i], pts[(i + 1) % 4]
        dx, dy = x1 - x0, y1 - y0
        length = math.sqrt(dx * dx + dy * dy) or 1.0
        dx, dy = dx / length, dy / length
        lines.append((x0 + dy * sign * by, y0 + -dx * sign * by, dx, dy))
    out = []
    for i in range(4):
        px, py, ux, uy = lines[i - 1]
        qx, qy, vx, vy = lines[i]
        den = ux * vy - uy * vx  # as `intersect`
        if abs(den) < 1e-6:
            out.append(pts[i])
            continue
        t = ((qx - px) * vy - (qy - py) * vx) / den
        out.append((px + t * ux, py + t * uy))
    return np.array(out, np.float32)


def _len(v: np.ndarray) -> float:
    """The length of a 2-vector (float64), as np.linalg.norm gives it, at a quarter of its cost."""
    x, y = float(v[0]), float(v[1])
    return math.sqrt(x * x + y * y)


def intersect(p1: np.ndarray, d1: np.ndarray, p2: np.ndarray, d2: np.ndarray) -> np.ndarray | None:
    """Where the lines p1 + t d1 and p2 + s d2 meet; None if nearly parallel."""
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-6:
        return None
    t = ((p2[0] - p1[0]) * d2[1] - (p2[1] - p1[1]) * d2[0]) / den
    return p1 + t * d1


def _fit_line(points: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """A robust line through points: (point, unit direction), or None if too few.
    Least squares across the line (as cv2.fitLine's DIST_L2), then again without the
    points far off it; in closed form, since most lines here have a few dozen points and
    a call's overhead was most of their cost."""
    if len(points) < 3:
        return None
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    for _ in range(2):  # least squares, then again without the points far off the line
        mean = np.add.reduce(pts, axis=0) / len(pts)  # pts.mean(axis=0) to the bit, without its wrapping
        d = pts - mean
        sxx, syy, sxy = float(d[:, 0] @ d[:, 0]), float(d[:, 1] @ d[:, 1]), float(d[:, 0] @ d[:, 1])
        angle = 0.5 * math.atan2(2.0 * sxy, sxx - syy)
        vx, vy = math.cos(angle), math.sin(angle)
        off = np.abs(d[:, 0] * vy - d[:, 1] * vx)
        keep = off <= max(1.0, 2.5 * float(np.partition(off, len(off) // 2)[len(off) // 2]))
        if keep.all() or keep.sum() < 3:
            break
        pts = pts[keep]
    return mean, np.array([vx, vy])


def _fit_lines(points: np.ndarray, mask: np.ndarray) -> list[tuple[np.ndarray, np.ndarray] | None]:
    """`_fit_line` for several point sets at once: the points of row k of `points`
    (K, M, 2) where `mask` (K, M) holds, None for a row of fewer than 3. A quad's four
    sides are fitted in one pass of array operations instead of four. It is not used
    for one set alone: `_fit_line` is twice as fast there (refine_quad's few hundred
    outline points a side: 260 against 540 us a quad)."""
    pts = np.asarray(points, np.float64)
    mask = np.asarray(mask, bool)
    enough = mask.sum(axis=1) >= 3
    rows = np.arange(len(pts))
    for again in (False, True):  # least squares, then again without the points far off the line
        w = mask.astype(np.float64)
        mean = (pts * w[..., None]).sum(axis=1) / np.maximum(w.sum(axis=1), 1.0)[:, None]
        d = pts - mean[:, None, :]
        dx, dy = d[..., 0] * w, d[..., 1] * w
        sxy, spread = (dx * d[..., 1]).sum(axis=1), (dx * d[..., 0] - dy * d[..., 1]).sum(axis=1)
        angle = 0.5 * np.arctan2(2.0 * sxy, spread)
        v = np.stack([np.cos(angle), np.sin(angle)], axis=1)
        if again:
            break
        off = np.abs(d[..., 0] * v[:, 1, None] - d[..., 1] * v[:, 0, None])
        count = mask.sum(axis=1)
        median = np.sort(np.where(mask, off, np.inf), axis=1)[rows, count // 2]
        keep = mask & (off <= np.maximum(1.0, 2.5 * median)[:, None])
        kept = keep.sum(axis=1)
        mask = np.where(((kept == count) | (kept < 3))[:, None], mask, keep)
    return [(mean[k], v[k]) if enough[k] else None for k in range(len(pts))]


def refine_quad(quad: np.ndarray, contour: np.ndarray) -> np.ndarray:
    """Sub-pixel corners: fit a line to the outline points along each side (away from
    the rounded corners) and intersect neighbouring lines."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    pts = contour.reshape(-1, 2).astype(np.float64)
    side = q[ROLL[1]] - q
    length = np.hypot(side[:, 0], side[:, 1])
    if float(length.min()) < 4:
        return q.astype(np.float32)
    u = side / length[:, None]
    rel = pts[None, :, :] - q[:, None, :]  # (side, point, xy)
    along = rel[..., 0] * u[:, 0, None] + rel[..., 1] * u[:, 1, None]
    across = np.abs(rel[..., 1] * u[:, 0, None] - rel[..., 0] * u[:, 1, None])
    band = np.maximum(1.5, 0.05 * length)[:, None]
    sel = (along > 0.15 * length[:, None]) & (along < 0.85 * length[:, None]) & (across < band)
    lines = [_fit_line(pts[sel[i]]) or (q[i], u[i]) for i in range(4)]
    out = []
    for i in range(4):
        p = intersect(*lines[i - 1], *lines[i])
        out.append(q[i] if p is None or _len(p - q[i]) > 0.2 * _len(q[i] - q[i - 1])
                   else p)
    return np.array(out, np.float32)


def snap_quad(gray: np.ndarray, quad: np.ndarray, reach: float, polarity: int = 0,
              samples: int = 10) -> np.ndarray:
    """Move each side of a quad onto the strongest edge within `reach` pixels across it
    and return the corners where the snapped sides meet (sub-pixel).

    polarity +1 takes only edges with the inside brighter than the outside (a light
    card on a darker table or shadow), -1 only darker inside, 0 either. A side with
    too few clear edge points keeps its place.
    """
    q = np.asarray(quad, np.float64).reshape(4, 2)
    ccw = signed_area(q) < 0
    steps = np.arange(-reach, reach + 1e-9, 0.5)
    t = _snap_t(samples)
    side = q[ROLL[1]] - q
    length = np.hypot(side[:, 0], side[:, 1])
    length[length == 0] = 1.0
    u = side / length[:, None]
    n = u[:, ::-1] * _TURN * (-1 if ccw else 1)  # outward: (u1, -u0), flipped when counter-clockwise
    base = q[:, None, :] + t[None, :, None] * side[:, None, :]  # (side, sample, xy)
    pts = (base[:, :, None, :] + steps[None, None, :, None] * n[:, None, None, :]).astype(np.float32)
    pts = pts.reshape(4 * samples, len(steps), 2)
    prof = grey_at(gray, pts[..., 0], pts[..., 1]).reshape(4, samples, len(steps))
    deriv = np.diff(prof, axis=2)  # outward derivative: negative when inside is brighter
    score = -deriv * polarity if polarity else np.abs(deriv)
    k = score.argmax(axis=2)
    peak = score.max(axis=2)  # the value at k
    strong = peak > np.maximum(6.0, 0.3 * score.max(axis=(1, 2)))[:, None]
    offs = (steps[k] + steps[k + 1]) / 2
    edges = base + offs[..., None] * n[:, None, :]
    fits = _fit_lines(edges, strong)
    lines = [fits[i] if strong[i].sum() >= max(3, samples // 3) and fits[i] is not None else (q[i], u[i])
             for i in range(4)]
    out = []
    for i in range(4):
        p = intersect(*lines[i - 1], *lines[i])
        out.append(q[i] if p is None or _len(p - q[i]) > 2 * reach + 1 else p)
    return np.array(out, np.float32)


def grey_at(gray: np.ndarray, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """`gray` at the points (xs, ys) (float32 arrays of one shape), bilinear and replicated
    past its edges, as float32. Only the pixels the points reach are made float (the
    whole image was most of `snap_quad`'s cost): a crop reaching 2 px past them, or to
    the image's edge where they leave it, interpolates and replicates exactly as the
    whole image does, and moving float32 points by whole numbers is exact."""
    h, w = gray.shape[:2]
    lx, hx, ly, hy = float(xs.min()), float(xs.max()), float(ys.min()), float(ys.max())
    x0, y0 = max(0, math.floor(lx) - 2), max(0, math.floor(ly) - 2)
    x1, y1 = min(w, math.ceil(hx) + 3), min(h, math.ceil(hy) + 3)
    if x1 - x0 < 2 or y1 - y0 < 2:
        x0, y0, x1, y1 = 0, 0, w, h
    g = gray[y0:y1, x0:x1].astype(np.float32)
    return cv2.remap(g, np.ascontiguousarray(xs - np.float32(x0)), np.ascontiguousarray(ys - np.float32(y0)),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


#: (1, -1): a direction (u0, u1) read backwards and so multiplied is (u1, -u0), turned a quarter.
_TURN = np.array([1.0, -1.0])


@functools.lru_cache(maxsize=8)
def _snap_t(samples: int) -> np.ndarray:
    """Where along a side `snap_quad` samples it (kept: np.linspace was a tenth of its cost)."""
    t = np.linspace(0.15, 0.85, samples)
    t.flags.writeable = False
    return t


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Nearest-pixel values at points (outside the image reads as 0): one remap, which
    rounds as np.rint does, at a third of the cost of numpy's rounding, bounds and
    gather for the few dozen points asked each time."""
    p = np.asarray(pts, np.float32)
    shape = p.shape[:-1]
    flat = p.reshape(1, -1, 2) if p.ndim == 2 else p.reshape(-1, p.shape[-2], 2)
    out = cv2.remap(img, np.ascontiguousarray(flat[..., 0]), np.ascontiguousarray(flat[..., 1]),
                    cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return out.reshape(shape)


_GRID_S, _GRID_R = (g[..., None] for g in np.meshgrid(np.linspace(0.08, 0.92, 9), np.linspace(0.08, 0.92, 9)))
_SIDE_T = np.linspace(0.12, 0.88, 12)[None, :, None]


_RING_T = np.concatenate([np.linspace(0.04, 0.96, 12)])


def _solid(mask: np.ndarray, quad: np.ndarray) -> float:
    """How much of the quad is in the mask where a card would be: the share of its inside
    (a grid of points) or, if more, of a ring just inside its edge (a card back's white
    border around a dark middle). A printed outline or a ring of glare has neither."""
    q = np.asarray(quad, np.float64)
    a, b, _c, d = q
    inset = 0.04
    ba, da = b - a, d - a
    along = np.array([ba, ba, da, da])[:, None, :]  # (np.stack's values, without its wrapping)
    across = np.array([inset * da, (1 - inset) * da, inset * ba, (1 - inset) * ba])[:, None, :]
    ring = a + _RING_T[None, :, None] * along + across  # the ring's four sides
    grid = a + _GRID_S * ba + _GRID_R * da  # as _inside_fraction
    # one remap for the grid and the ring (each point is read alone: the same values)
    values = _sample(mask, np.concatenate([grid.reshape(-1, 2), ring.reshape(-1, 2)]))
    n = _GRID_S.size
    return max(np.count_nonzero(values[:n]) / n, np.count_nonzero(values[n:]) / (values.size - n))


def _overlap(contour: np.ndarray, quad: np.ndarray) -> float:
    """Intersection over union of a blob's outline and a quad: a blob that is a card and
    something touching it (printed text, a glare) is not that card alone."""
    pts = np.vstack([contour.reshape(-1, 2), np.asarray(quad).reshape(-1, 2)])
    x0, y0 = np.floor(pts.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int) + 2
    a = np.zeros((y1 - y0, x1 - x0), np.uint8)
    b = np.zeros_like(a)
    cv2.drawContours(a, [contour.reshape(-1, 1, 2) - (x0, y0)], -1, 1, thickness=cv2.FILLED)
    cv2.fillConvexPoly(b, np.rint(np.asarray(quad) - (x0, y0)).astype(np.int32), 1)
    union = int(np.count_nonzero(a | b))
    return int(np.count_nonzero(a & b)) / union if union else 0.0


def _inside_fraction(filled: np.ndarray, quad: np.ndarray) -> float:
    """Fraction of a grid of points inside the quad (inset 8%) that lie on the blob."""
    a, b, _c, d = quad
    pts = a + _GRID_S * (b - a) + _GRID_R * (d - a)
    return _share(_sample(filled, pts))


def _share(values: np.ndarray) -> float:
    """The share of non-zero values (np.mean of a bool array, at a fraction of its cost)."""
    return np.count_nonzero(values) / values.size


def _side_support(filled: np.ndarray, grad: _Grad | None, quad: np.ndarray,
                  min_grad: float, inner: np.ndarray | None = None) -> np.ndarray:
    """For each side, the fraction of points on it backed by the blob's boundary or by
    an image edge across the side. `inner`: what counts as the card just inside the side
    (default `filled`; outside, `filled` must end)."""
    q = np.asarray(quad, np.float64)
    sides = q[ROLL[1]] - q
    sq = sides * sides  # np.linalg.norm of each side: the same root of the same sum, fewer calls
    lengths = np.maximum(np.sqrt(sq[:, :1] + sq[:, 1:]), 1e-6)
    u = sides / lengths
    n = (u[:, ::-1] * _TURN)[:, None, :]  # (u1, -u0): outward for clockwise-on-screen
    pts = q[:, None, :] + _SIDE_T * sides[:, None, :]
    if inner is None:  # both sides of the edge in one remap (each point is read alone)
        both = _sample(filled, np.concatenate([pts - 2.0 * n, pts + 2.0 * n])) > 0
        ok = both[:4] & ~both[4:]
    else:
        ok = (_sample(inner, pts - 2.0 * n) > 0) & ~(_sample(filled, pts + 2.0 * n) > 0)
    if grad is not None:
        local = pts - np.asarray(grad.origin, np.float64)
        across = np.abs(_sample(grad.gx, local) * n[..., 0] + _sample(grad.gy, local) * n[..., 1])
        ok |= across > min_grad
    return ok.sum(axis=1) / ok.shape[1]


# --- the detector ---------------------------------------------------------------

@dataclass(frozen=True)
class _Hyp:
    quad: np.ndarray  # (4, 2) float64 clockwise; quad[0] is the measured corner
    score: float


def _corner_hypotheses(contour: np.ndarray, filled: np.ndarray, grad, size: tuple[float, float],
                       params: DetectParams) -> list[_Hyp]:
    """One card hypothesis per right-angled convex corner of a blob's outline."""
    cw, ch = size
    pts = contour.reshape(-1, 2)
    n = len(pts)
    if n < 8:
        return []
    eps = max(1.0, 0.03 * cw)
    approx = cv2.approxPolyDP(contour, eps, True).reshape(-1, 2)
    if len(approx) < 3:
        return []
    # where each vertex first comes in the outline (all at once: a scan of the outline per
    # vertex was a tenth of this function)
    vidx = ((pts[None, :, 0] == approx[:, None, 0]) & (pts[None, :, 1] == approx[:, None, 1])
            ).argmax(axis=1).tolist()
    orient = 1.0 if signed_area(pts) >= 0 else -1.0
    min_edge = 0.18 * cw
    edges = []  # (start index, end index, length) of the long straight runs, in order
    m = len(vidx)
    for k in range(m):
        i0, i1 = vidx[k], vidx[(k + 1) % m]
        length = float(_len(pts[i1] - pts[i0]))
        if length >= min_edge:
            edges.append((i0, i1, length))
    if len(edges) < 2:
        return []

    def run(i0: int, i1: int) -> np.ndarray:
        return pts[i0:i1 + 1] if i1 >= i0 else np.vstack([pts[i0:], pts[:i1 + 1]])

    def trimmed_line(i0: int, i1: int):
        seg = run(i0, i1)
        k = max(1, int(0.12 * len(seg)))
        return _fit_line(seg[k:len(seg) - k] if len(seg) > 2 * k + 3 else seg)

    lines = [trimmed_line(i0, i1) for i0, i1, _ in edges]
    hyps = []
    cos_tol = math.sin(math.radians(params.angle_tol))
    for k in range(len(edges)):
        e_a, e_b = edges[k - 1], edges[k]
        la, lb = lines[k - 1], lines[k]
        if la is None or lb is None:
            continue
        gap = (e_b[0] - e_a[1]) % n  # outline points between the two straight runs
        if gap > 0.35 * cw * 1.6 + 4:
            continue
        da = pts[e_a[1]] - pts[e_a[0]]
        db = pts[e_b[1]] - pts[e_b[0]]
        da = da / (_len(da) or 1)
        db = db / (_len(db) or 1)
        if abs(float(da @ db)) > cos_tol or orient * float(da[0] * db[1] - da[1] * db[0]) <= 0:
            continue
        corner = intersect(la[0], la[1], lb[0], lb[1])
        if corner is None:
            continue
        # Directions away from the corner along both edges, squared up to 90 degrees.
        u, v = -da, db
        ang_u = math.atan2(u[1], u[0])
        v_back = np.array([v[1], -v[0]]) * -orient  # v turned back by 90 degrees
        ang_v = math.atan2(v_back[1], v_back[0])
        mean = ang_u + math.atan2(math.sin(ang_v - ang_u), math.cos(ang_v - ang_u)) / 2
        u = np.array([math.cos(mean), math.sin(mean)])
        v = np.array([-u[1], u[0]]) * -orient
        corner = corner - EDGE_BIAS * (u + v)  # outline points are pixel centres inside the edge
        best = None
        for lu, lv in ((cw, ch), (ch, cw)) if abs(ch - cw) > 1e-6 else ((cw, ch),):
            quad = np.array([corner, corner + v * lv, corner + v * lv + u * lu, corner + u * lu])
            if signed_area(quad) < 0:
                quad = quad[[0, 3, 2, 1]]
            inside = _inside_fraction(filled, quad)
            if inside < 0.85:
                continue
            sides = _side_support(filled, grad, quad, params.edge_gradient)
            support = float(np.add.reduce(sides)) / len(sides)  # .mean() to the bit
            # A straight run longer than the side it would be is a second card beside it.
            fits = (e_a[2] <= lu * (1 + params.size_tol)) + (e_b[2] <= lv * (1 + params.size_tol))
            score = support + 0.1 * fits
            if best is None or score > best.score:
                best = _Hyp(quad, score)
        if best is not None:
            hyps.append(best)
    return hyps


def _similarity(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares rotation, uniform scale and shift taking src points to dst (2x3)."""
    mu_s, mu_d = src.mean(0), dst.mean(0)
    s, d = src - mu_s, dst - mu_d
    a = float((s * d).sum())
    b = float((s[:, 0] * d[:, 1] - s[:, 1] * d[:, 0]).sum())
    norm = float((s * s).sum()) or 1.0
    ca, sa = a / norm, b / norm
    m = np.array([[ca, -sa], [sa, ca]])
    return np.hstack([m, (mu_d - m @ mu_s)[:, None]])


def _merge(hyps: list[_Hyp], size: tuple[float, float], square: bool, max_off: float,
           support: Callable[[np.ndarray], float] | None = None) -> list[CardQuad]:
    """Group hypotheses that describe the same card (centres within 15 % of a card's
    width, sides turned alike) and combine the corners they saw. The result keeps the
    card's known size: a combination that would stretch it by more than 5 % (corners of
    two different cards taken for one) falls back to the best hypothesis alone. A seen
    corner further than `max_off` pixels from the rectangle fitted to the others is not
    the card's (a zone outline or a glare touching it there): it is dropped and inferred."""
    cw = size[0]
    order = sorted(range(len(hyps)), key=lambda i: -hyps[i].score)
    used = [False] * len(hyps)
    centres = [np.add.reduce(h.quad, axis=0) / 4 for h in hyps]  # .mean(axis=0) to the bit
    out = []
    for i in order:
        if used[i]:
            continue
        rep = hyps[i].quad
        center = centres[i]
        direction = rep[1] - rep[0]
        measured: list[list[np.ndarray]] = [[], [], [], []]
        for j in order:
            if used[j]:
                continue
            q = hyps[j].quad
            if _len(centres[j] - center) > 0.15 * cw or not _parallel(direction, q[1] - q[0], 8.0):
                continue
            k = int(np.argmin(np.linalg.norm(rep - q[0], axis=1)))
            if _len(rep[k] - q[0]) > 0.15 * cw:
                continue
            used[j] = True
            measured[k].append(q[0])
        seen = tuple(bool(m) for m in measured)
        idx = [k for k in range(4) if seen[k]]
        corners = rep.copy()
        if len(idx) >= 2:
            for k in idx:
                corners[k] = np.mean(measured[k], axis=0)
            ideal = order_ideal(rep, size)
            idx, fitted = _consistent_corners(ideal, corners, idx, max_off, support)
            seen = tuple(k in idx for k in range(4))
            for k in range(4):
                if not seen[k]:
                    corners[k] = fitted[k]
            if not _quad_ok(corners, size, max(size) / min(size), 0.05):
                corners, seen = rep.copy(), (True, False, False, False)
        out.append(CardQuad(corners.astype(np.float32), min(1.0, hyps[i].score), seen))  # type: ignore[arg-type]
    return out


def _rigid(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Least-squares rotation and shift (no scale: the card's size is known) taking src
    points to dst (2x3)."""
    mu_s, mu_d = src.mean(0), dst.mean(0)
    s, d = src - mu_s, dst - mu_d
    angle = math.atan2(float((s[:, 0] * d[:, 1] - s[:, 1] * d[:, 0]).sum()), float((s * d).sum()))
    m = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    return np.hstack([m, (mu_d - m @ mu_s)[:, None]])


def _consistent_corners(ideal: np.ndarray, corners: np.ndarray, idx: list[int], max_off: float,
                        support: Callable[[np.ndarray], float] | None = None) -> tuple[list[int], np.ndarray]:
    """The largest set of seen corners (at least two) that the card's exact rectangle
    fits within `max_off` pixels, of those the fit best backed by the image (`support`
    of the fitted corners, 0..1; else the smallest error); and the rectangle's four
    corners so fitted. A corner bent by something touching the card (a printed label, a
    zone's outline) is left out, to be inferred from the others."""
    best: tuple[tuple[int, float, float], list[int], np.ndarray] | None = None
    for n in range(len(idx), 1, -1):
        for subset in combinations(idx, n):
            sub = list(subset)
            t = _rigid(ideal[sub], corners[sub])
            fitted = ideal @ t[:, :2].T + t[:, 2]
            err = float(np.linalg.norm(fitted[sub] - corners[sub], axis=1).max())
            backed = support(fitted) if support is not None and err <= max_off else 0.0
            key = (n if err <= max_off else 0, round(backed, 3), -err)
            if best is None or key > best[0]:
                best = (key, sub, fitted)
        if best is not None and best[0][0] > 0:
            break
    assert best is not None
    return best[1], best[2]


def _parallel(a: np.ndarray, b: np.ndarray, degrees: float) -> bool:
    """Do two directions agree (modulo quarter turns, as a rectangle's sides do)?"""
    turn = abs(math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], float(a @ b)))) % 90
    return min(turn, 90 - turn) <= degrees


def order_ideal(quad: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """The exact card rectangle with the same corner order as `quad` (side lengths taken
    from which of quad's sides is the short one), in a local frame."""
    cw, ch = size
    s01 = np.linalg.norm(quad[1] - quad[0])
    s12 = np.linalg.norm(quad[2] - quad[1])
    a, b = (cw, ch) if s01 <= s12 else (ch, cw)
    return np.array([[0, 0], [a, 0], [a, b], [0, b]], np.float64)


def _quad_ok(quad: np.ndarray, size: tuple[float, float] | None, aspect: float, tol: float) -> bool:
    """Sides pairwise equal, the right aspect, and the right size when it is known."""
    d = quad - quad[ROLL[1]]
    sq = d * d
    sides = np.sqrt(sq[:, 0] + sq[:, 1])  # np.linalg.norm(d, axis=1): the same values
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    if min(a, b) < 6:
        return False
    # Opposite sides: a tilted camera makes them differ by a few per cent at most.
    if abs(sides[0] - sides[2]) > 0.08 * a or abs(sides[1] - sides[3]) > 0.08 * b:
        return False
    short, long_ = min(a, b), max(a, b)
    if abs(long_ / short - aspect) > 1.5 * tol * aspect:
        return False
    if size is not None:
        cw, ch = min(size), max(size)
        return abs(short - cw) <= tol * cw and abs(long_ - ch) <= tol * ch
    return True


class BlobMemo:
    """The cards found in each blob of the previous frame. A blob of the same place and
    area is the same cards lying still: their quads are reused instead of fitted again
    (most of the table does not change from one frame to the next)."""

    def __init__(self, tolerance_px: float = 1.0, area_tolerance: float = 0.01) -> None:
        self.tolerance = tolerance_px
        self.area_tolerance = area_tolerance
        self._last: list[tuple[np.ndarray, float, list[CardQuad]]] = []
        self._next: list[tuple[np.ndarray, float, list[CardQuad]]] = []
        self.hits = 0

    def recall(self, box: np.ndarray, area: float) -> list[CardQuad] | None:
        found = self.match(box, area)
        if found is None:
            return None
        self.hits += 1
        self._next.append((box, area, found[2]))
        return found[2]

    def match(self, box: np.ndarray, area: float) -> tuple[np.ndarray, float, list[CardQuad]] | None:
        """The previous frame's blob at this box (±`tolerance` px) with this area
        (±`area_tolerance`), if any; nothing is recorded."""
        for b, a, cards in self._last:
            if np.abs(b - box).max() <= self.tolerance and abs(a - area) <= self.area_tolerance * a:
                return b, a, cards
        return None

    def keep(self, box: np.ndarray, area: float, cards: list[CardQuad]) -> None:
        self._next.append((box, area, cards))

    def next_frame(self) -> None:
        self._last, self._next = self._next, []

    def last_blobs(self) -> list[tuple[np.ndarray, float, list[CardQuad]]]:
        """The previous frame's blobs: (bounding box x, y, w, h; area; their cards)."""
        return list(self._last)

    def set_last_blobs(self, blobs: list[tuple[np.ndarray, float, list[CardQuad]]]) -> None:
        """Hold these as the previous frame's blobs (a search of only the changed parts
        of a view leaves the memo as a search of the whole view would have)."""
        self._last = list(blobs)


def find_cards(gray: np.ndarray, aspect: float,
               card_px: tuple[float, float] | Callable[[float, float], tuple[float, float]] | None = None,
               params: DetectParams = DetectParams(), found: Masks | None = None,
               memo: BlobMemo | None = None, dark: bool = True,
               boxes: list[tuple[float, float, float, float]] | None = None) -> list[CardQuad]:
    """The cards in a grayscale detection image.

    aspect: the card's long side over its short side (88/63 poker, 1.0 Piktas).
    card_px: the card's (short, long) size in this image's pixels, if known, or a
    function giving it at a point (x, y) of the image (a tilted camera without a mat sees
    near cards larger than far ones: each blob is then cut at the size where it lies); then
    touching and partly covered cards are found too. Without it only whole, separate
    cards are found (use `card_scale` on them, then call again with the size).
    found: the image's masks, if already made. memo: reuse the cards of blobs unchanged
    since the previous call (for video). dark: look for whole dark cards too (a deck
    with dark faces or backs, `has_dark_cards`). boxes: if given, the box (x0, y0, x1,
    y1) of every blob of `found.bright` is appended to it, small ones too.
    """
    if gray.ndim != 2 or gray.dtype != np.uint8:
        raise ValueError(f"find_cards needs a uint8 grayscale image, got {gray.dtype} {gray.shape}")
    size_at = card_px if callable(card_px) else None
    if size_at is not None:
        h, w = gray.shape[:2]
        card_px = size_at(w / 2, h / 2)
    size = (min(card_px), max(card_px)) if card_px else None
    square = abs(aspect - 1.0) < 0.05
    found = found or masks(gray, size[0] if size else None, params)
    contours, _ = cv2.findContours(found.bright, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if boxes is not None:
        for c in contours:
            x, y, w, h = cv2.boundingRect(c)
            boxes.append((float(x), float(y), float(x + w), float(y + h)))
    min_area = params.min_visible * size[0] * size[1] if size else max(150.0, 0.001 * gray.size)
    if size_at is not None:  # the smallest a card is anywhere in the image
        min_area = min([min_area] + [params.min_visible * float(np.prod(size_at(x, y)))
                                     for x in (0.0, float(w)) for y in (0.0, float(h))])
    dark_found = _dark_cards(gray, found, size, aspect, square, params) if size and dark else []
    big = [(c, cv2.contourArea(c)) for c in contours]
    big = [(c, a) for c, a in big if a >= min_area]
    filled = None
    cards: list[CardQuad] = []
    for contour, blob_area in big:
        box = np.array(cv2.boundingRect(contour), np.float64)
        if memo is not None:
            reused = memo.recall(box, blob_area)
            if reused is not None:
                cards += reused
                continue
        if filled is None:
            filled = np.zeros_like(found.bright)
            cv2.drawContours(filled, [c for c, _ in big], -1, 255, thickness=cv2.FILLED)
        here = size
        if size_at is not None:
            local = size_at(box[0] + box[2] / 2, box[1] + box[3] / 2)
            here = (min(local), max(local))
        in_blob = _cards_in_blob(gray, contour, box, filled, found, here, aspect, square, params)
        if memo is not None:
            memo.keep(box, blob_area, in_blob)
        cards += in_blob
    if memo is not None:
        memo.next_frame()
    return _dedupe(cards + dark_found, size)


def has_dark_cards(faces: np.ndarray, level: int = 60, share: float = 0.3) -> bool:
    """Can a deck lie as a dark card (`_dark_cards`)? Some face or back picture (grey,
    as in Templates.face) is at least `share` pixels darker than `level`: a Piktas void,
    a dark back. The search costs a fifth of a frame's detection, for nothing with the
    others (standard: 7 %, IDEAL: 5 % at most)."""
    return any(float(np.mean(np.asarray(f) < level)) >= share for f in faces)


def _dark_cards(gray: np.ndarray, found: Masks, size: tuple[float, float], aspect: float, square: bool,
                params: DetectParams) -> list[CardQuad]:
    """Whole cards much darker than the table (a dark full-bleed face, such as a Piktas
    void): only lone ones of the card's size, since shadows and sleeves are dark too.

    A black card on a dark mat is too close to the table for the dark mask (a dark-green
    mat is only some 45 levels above it), and its own print (stars) breaks it up: the
    card's pixels are taken relative to the table (`dark_card_*`) and closed over the
    print. Those are only the card's seed: they lie well inside a blurred card's edge
    and its light print near the edge (a void's index stars) bites its corners, so the
    card's outline is then found at the level halfway between the card and the table
    around it (`_dark_card`).
    """
    bg = found.background
    g = gray.astype(np.float32)
    # cv2.multiply by a scalar works in double precision: so does this, at half its cost
    level = np.minimum(bg - np.float32(params.dark_card_contrast),
                       np.multiply(bg, float(params.dark_card_ratio), dtype=np.float64).astype(np.float32))
    deep = cv2.compare(g, level, cv2.CMP_LT)
    k = _odd(0.06 * size[0])
    deep = cv2.morphologyEx(deep, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    deep = cv2.morphologyEx(deep, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(deep, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    card_area = size[0] * size[1]
    out = []
    for contour in contours:
        # a blurred card's seed: down to half its area (Piktas demo, hard, seeds 2 and 4: 0.78)
        if not 0.45 * card_area <= cv2.contourArea(contour) <= 1.25 * card_area:
            continue
        card = _dark_card(gray, contour, size, aspect, square, params)
        if card is not None:
            out.append(card)
    return out


def _dark_card(gray: np.ndarray, seed: np.ndarray, size: tuple[float, float], aspect: float, square: bool,
               params: DetectParams) -> CardQuad | None:
    """The dark card around one seed of dark pixels (`_dark_cards`), or None.

    The table's level is the median of a ring just outside the seed's hull, the card's
    that of the seed; the pixels within a few of the hull and darker than the middle of
    the two are the card (a blurred edge crosses the middle where the card ends). Its
    outline's sides, fitted as lines away from the corners, must make the card's exact
    rectangle, the card's inside and each side backed: where the outline runs along the
    side, or where the card's own print, lighter or darker than the table, reaches the
    side from inside (a void's index stars, blurred, bite into its dark pixels at two
    corners). A dark patch of another shape or size (a disc, a sleeve, a square with a
    corner missing) leaves the table showing inside the rectangle: it is none."""
    cw = size[0]
    hull = cv2.convexHull(seed)
    x, y, w, h = cv2.boundingRect(hull)
    m = round(0.15 * cw) + 2
    x0, y0 = max(0, x - m), max(0, y - m)
    crop = gray[y0:y + h + m, x0:x + w + m]
    origin = np.array([x0, y0])
    filled = np.zeros(crop.shape, np.uint8)
    cv2.fillConvexPoly(filled, hull.reshape(-1, 2) - origin, 255)
    near = cv2.dilate(filled, np.ones((_odd(0.1 * cw),) * 2, np.uint8))  # the card's edge lies within
    ring = cv2.dilate(filled, np.ones((_odd(0.25 * cw),) * 2, np.uint8)) & ~near
    if not ring.any():
        return None
    inside = np.zeros_like(filled)
    cv2.drawContours(inside, [seed - origin], -1, 255, thickness=cv2.FILLED)
    table = float(np.median(crop[ring > 0]))
    dark = float(np.median(crop[inside > 0]))
    if table - dark < params.dark_card_contrast:
        return None
    card = cv2.compare(crop, (table + dark) / 2, cv2.CMP_LT) & near
    k = _odd(0.06 * cw)
    card = cv2.morphologyEx(card, cv2.MORPH_CLOSE, np.ones((k, k), np.uint8))
    card = cv2.morphologyEx(card, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(card, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    if not contours:
        return None
    outline = max(contours, key=cv2.contourArea)
    hull = cv2.convexHull(outline)
    if not 0.85 * size[0] * size[1] <= cv2.contourArea(hull) <= 1.2 * size[0] * size[1]:
        return None
    rect = order_quad(cv2.boxPoints(cv2.minAreaRect(hull)), square)
    quad = grow(refine_quad(rect, outline), EDGE_BIAS)  # in the crop's pixels
    if not _quad_ok(quad, size, aspect, params.size_tol / 2) \
            or _rect_error(quad, size) > params.dark_fit * cw:
        return None
    smooth = cv2.blur(crop, (3, 3)).astype(np.float32)
    printed = cv2.compare(np.abs(smooth - np.float32(table)), 0.25 * (table - dark), cv2.CMP_GT) | card
    sides = _side_support(card, None, quad, params.edge_gradient, inner=printed)
    if _inside_fraction(card, quad) < 0.85 or float(sides.min()) < 0.7 or float(sides.mean()) < 0.8:
        return None
    return CardQuad(order_quad(quad + origin.astype(np.float32), square))


def _cards_in_blob(gray: np.ndarray, contour: np.ndarray, box: np.ndarray, filled: np.ndarray,
                   found: Masks, size: tuple[float, float] | None, aspect: float, square: bool,
                   params: DetectParams) -> list[CardQuad]:
    """The cards making up one blob: a whole card, or cards from the blob's corners."""
    # A card is convex: its hull ignores where dark print reaches its edge.
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    approx = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
    quad = None
    if len(approx) == 4:
        quad = grow(refine_quad(order_quad(approx, square), contour), EDGE_BIAS)
        if area >= 0.93 * abs(signed_area(quad)) and _quad_ok(quad, size, aspect, params.size_tol) \
                and _solid(found.bright, quad) >= params.min_solid and _overlap(hull, quad) >= 0.96:
            if size is None or _rect_error(quad, size) <= params.whole_fit * size[0]:
                return [CardQuad(order_quad(quad, square))]
        else:
            quad = None
    if size is None:
        return _whole_by_rect(hull, area, contour, found, aspect, square, params) if len(approx) > 4 else []
    x, y, w, h = (int(v) for v in box)
    x0, y0 = max(0, x - 2), max(0, y - 2)
    crop = gray[y0:y + h + 2, x0:x + w + 2]
    grad = _Grad(cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3) / 8.0,
                 cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3) / 8.0, (x0, y0))
    if area <= (params.lone_area if quad is not None else params.lone_touched) * size[0] * size[1]:
        lone = _lone_card(gray, hull, quad, filled, grad, found, size, square, params)
        if lone is not None:
            return [lone]
    out = []
    def support(quad: np.ndarray) -> float:
        return float(_side_support(filled, grad, quad, params.edge_gradient).mean())

    for card in _merge(_corner_hypotheses(contour, filled, grad, size, params), size, square,
                       params.whole_fit * size[0], support):
        if card.support >= 0.5 and _solid(found.bright, card.corners) >= params.min_solid:
            out.append(CardQuad(order_quad(card.corners, square), card.support, _reorder_seen(card, square)))
    out = [_snapped(gray, card, size, square, params) for card in out]
    out += _middle_cards(contour, (x0, y0), out, filled, grad, found, size, square, params)
    return [_plain_corners(card, out, grad, params) for card in out]


def _whole_by_rect(hull: np.ndarray, area: float, contour: np.ndarray, found: Masks, aspect: float,
                   square: bool, params: DetectParams, fill: float = 0.93) -> list[CardQuad]:
    """At an unknown scale, a whole card whose outline is no clean four-cornered polygon
    (a coloured index or a corner's print cut out of the paper mask, so the hull has a
    corner clipped): the rectangle fitted to the outline when the hull fills `fill` of it
    (and of the fitted quad) and it has the card's shape. A small IDEAL card on light
    oak in the saturation image (35 px wide at detection size): five corners, its
    rectangle filled 0.95."""
    rect = order_quad(cv2.boxPoints(cv2.minAreaRect(hull)), square)
    if area < fill * abs(signed_area(rect)):
        return []
    quad = grow(refine_quad(rect, contour), EDGE_BIAS)
    if not _quad_ok(quad, None, aspect, params.size_tol) or _solid(found.bright, quad) < params.min_solid \
            or _overlap(hull, quad) < fill:
        return []
    return [CardQuad(order_quad(quad, square))]


def _lone_card(gray: np.ndarray, hull: np.ndarray, quad: np.ndarray | None, filled: np.ndarray,
               grad: _Grad, found: Masks, size: tuple[float, float], square: bool,
               params: DetectParams) -> CardQuad | None:
    """The one card of a blob too small to hold a second card worth reporting, when its
    sides snapped onto the card's own edges make its exact rectangle, else None (the blob
    goes to the corner hypotheses).

    `quad`: the blob's own four-cornered outline when it is one (it failed only the exact
    rectangle test: it lies where the mask ended, a few pixels outside a blurred card's
    edge, and not quite square), else None: a zone's printed line or label touches the
    card, and the blob's smallest enclosing rectangle, pushed out by it, is snapped from
    twice as far. The corner hypotheses come to the same quad within a pixel or so at
    several times the cost; in a cold frame of 12 cards on a Yonac mat half the lone
    cards took them. The fit must be the card's size within `lone_size` and backed by an
    edge along every side. A card lying on another a few pixels off makes such a blob
    too: its sides may snap to the under card's edges where they show, so a blob that
    is no clean four-cornered outline is taken only if all four of the fit's corners are
    in plain view (`_plain_corners`), which the under card's corners are not."""
    cw = size[0]
    reach = max(2.0, 0.05 * cw)
    if quad is None:
        start = order_quad(cv2.boxPoints(cv2.minAreaRect(hull)), square)
        reach *= 2
    else:
        start = np.asarray(quad, np.float32)
    snapped = snap_quad(gray, start, reach, polarity=1)
    aspect = max(size) / min(size)
    if float(np.abs(snapped - start).max()) > 1.5 * reach \
            or not _quad_ok(snapped, size, aspect, params.lone_size) \
            or _rect_error(snapped, size) > params.whole_fit * cw \
            or _solid(found.bright, snapped) < params.min_solid \
            or float(_side_support(filled, grad, snapped, params.edge_gradient).min()) < params.lone_support:
        return None
    card = CardQuad(order_quad(snapped, square))
    if quad is not None:
        return card
    # a card lying over another and offset from it makes a blob that is no label's: its
    # sides may have snapped to the other card's edges where it shows, and the corners
    # there are then no card's own
    seen = _plain_corners(CardQuad(card.corners, 1.0, (False,) * 4), [], grad, params)
    return seen if seen.complete else None


#: Where along each side from a corner its edge is checked, as fractions of the side.
_CORNER_T = np.linspace(0.04, 0.30, 10)[:, None]
#: ... and how far across the side it is looked for, as fractions of `reach`.
_CORNER_OFF = np.linspace(-1.0, 1.0, 5)[:, None, None]


def _plain_corners(card: CardQuad, cards: list[CardQuad], grad: _Grad, params: DetectParams,
                   share: float = 0.85) -> CardQuad:
    """The card with each corner that was inferred but lies in plain view marked seen.

    A corner is inferred when the blob's outline gave no clean corner there: a blurred
    card's rounded corners, a zone's printed outline or a glint bending its blob. It is
    in plain view when the card's own edge runs along both sides next to it (the image
    darkens outwards across the side at `share` of the points over the first 30 % of
    each side) and no other card of the blob holds it (but for one lying within a
    third of a card of it: the same card fitted otherwise, which `_dedupe` drops).
    Something lying over the corner, a card or a hand, hides those edges. Measured in
    the hard demos: most whole, lone, blurred cards came out with two corners
    "unseen", so their index was read at the wrong corners and they were asked."""
    if card.complete:
        return card
    q = np.asarray(card.corners, np.float64)
    seen = list(card.seen)
    origin = np.asarray(grad.origin, np.float64)
    short = min(_len(q[1] - q[0]), _len(q[2] - q[1]))
    reach = max(1.0, 0.04 * short)
    middle = q.mean(axis=0)
    asked, sets = [], []
    for k in range(4):
        if seen[k]:
            continue
        p = q[k]
        if any(c is not card and _len(c.center - card.center) > 0.33 * short
               and cv2.pointPolygonTest(c.corners.reshape(-1, 1, 2).astype(np.float32),
                                        (float(p[0]), float(p[1])), True) > -2.0 for c in cards):
            continue
        asked.append(k)
        for j in (k - 1, (k + 1) % 4):  # the neighbours: the two sides meeting at k
            d = q[j] - p
            length = _len(d) or 1.0
            u = d / length
            # outward normal: the side from k to j turned away from the card's middle
            n = np.array([u[1], -u[0]])
            if float((middle - p) @ n) > 0:
                n = -n
            # the edge may lie a few pixels off a side fitted from the other corners
            sets.append((p + _CORNER_T * d - origin + _CORNER_OFF * reach * n, n))
    if sets:  # every side of every corner asked about, sampled at once
        pts = np.stack([pts for pts, _ in sets])
        normals = np.array([n for _, n in sets])[:, None, None, :]
        across = _sample(grad.gx, pts) * normals[..., 0] + _sample(grad.gy, pts) * normals[..., 1]
        across = across.min(axis=1)
        backed = np.count_nonzero(across < -0.5 * params.edge_gradient, axis=1) / across.shape[1] >= share
        for i, k in enumerate(asked):
            seen[k] = bool(backed[2 * i] and backed[2 * i + 1])
    if seen == list(card.seen):
        return card
    return CardQuad(card.corners, card.support, tuple(seen), card.alternatives)  # type: ignore[arg-type]


def _snapped(gray: np.ndarray, card: CardQuad, size: tuple[float, float], square: bool,
             params: DetectParams) -> CardQuad:
    """A card fitted from its blob's corners (the blob was not one whole card: a zone's
    printed outline or a label touching it bends it, or other cards touch it): its sides
    moved onto the card's own edges nearby, where the card is brighter than what lies
    around it (a side against another white card has no such edge and stays), if the
    result is still the card's exact rectangle. Measured in the demos: a 6 of diamonds
    against its zone's outline (Yonac) and a K3 beside another card under a steep view
    (Piktas, hard) came 4 to 6 px off and went unread."""
    cw = size[0]
    reach = max(2.0, 0.05 * cw)
    snapped = snap_quad(gray, card.corners, reach, polarity=1)
    moved = float(np.abs(snapped - card.corners).max())
    aspect = max(size) / min(size)
    if moved < 0.3 or moved > 1.5 * reach or not _quad_ok(snapped, size, aspect, params.size_tol / 2) \
            or _rect_error(snapped, size) > params.whole_fit * cw:
        return card
    return CardQuad(order_quad(snapped, square), card.support, card.seen, card.alternatives)


def _middle_cards(contour: np.ndarray, origin: tuple[int, int], cards: list[CardQuad],
                  filled: np.ndarray, grad: _Grad, found: Masks, size: tuple[float, float], square: bool,
                  params: DetectParams) -> list[CardQuad]:
    """Cards of a blob that show none of their corners as the blob's corners: the middle
    card of a row of touching or overlapping cards, whose corners lie on the blob's
    straight outline or under its neighbours. What the blob holds beyond the cards found
    from corners, if a card's length long, is such a card: laid across it at the card's
    width, against one side or the other (the other side under a neighbour) or centred,
    whichever the image's edges back best."""
    cw, ch = size
    h, w = grad.gx.shape
    mask = np.zeros((h, w), np.uint8)
    cv2.drawContours(mask, [contour.reshape(-1, 1, 2) - np.array(origin)], -1, 255, thickness=cv2.FILLED)
    for c in cards:
        cv2.fillConvexPoly(mask, np.rint(c.corners - np.array(origin)).astype(np.int32), 0)
    k = _odd(0.08 * cw)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    rests, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    out: list[CardQuad] = []
    for rest in rests:
        if cv2.contourArea(rest) < 0.45 * cw * ch:
            continue
        box = cv2.boxPoints(cv2.minAreaRect(rest)).astype(np.float64) + np.array(origin)
        sides = np.linalg.norm(box - box[ROLL[1]], axis=1)
        i = 0 if sides[0] <= sides[1] else 1  # box[i] -> box[i + 1] is a short side
        short, long_ = sides[i], sides[i + 1]
        # a printed label or a neighbour's sliver may cling to it: up to 40 % more
        if not (1 - params.size_tol) * ch <= long_ <= 1.4 * ch or not 0.45 * cw <= short <= 1.4 * cw:
            continue
        u = (box[i + 1] - box[i]) / short  # across the card
        v = (box[(i + 2) % 4] - box[i + 1]) / long_  # along it
        def plain(t: tuple[float, float, np.ndarray, np.ndarray]) -> bool:
            # Its ends lie on the blob's outline; its long sides often only on other white
            # cards, a faint edge or none: the ends must be plain, the sides need not be.
            backed, _, quad, per_side = t
            return (min(per_side[0], per_side[2]) >= 0.4 and max(per_side[0], per_side[2]) >= 0.6
                    and backed >= 0.3 and _solid(found.bright, quad) >= params.min_solid)

        picked = None  # (best, the places of its framing whose ends are plain, best first)
        framings = _squared_by_ends(rest.reshape(-1, 2) + np.array(origin), u, v,
                                    (box.mean(axis=0), short, long_))
        for fu, fv, middle, f_short, f_long in framings:
            across, along = (f_short - cw) / 2, (f_long - ch) / 2
            tried: list[tuple[float, float, np.ndarray, np.ndarray]] = []  # (support, across, quad, per side)
            # centred first: where the edges tell nothing (white on white), the middle is likeliest
            for a, b in sorted({(a, b) for a in (0.0, across, -across) for b in (0.0, along, -along)},
                               key=lambda s: (abs(s[0]) + abs(s[1]), s)):
                c = middle + a * fu + b * fv
                du, dv = fu * cw / 2, fv * ch / 2
                quad = order_quad(np.array([c - du - dv, c + du - dv, c + du + dv, c - du + dv]), square)
                per_side = _side_support(filled, grad, quad, params.edge_gradient)
                tried.append((float(per_side.mean()), a, quad, per_side))
            # the best backed of the places whose ends are plain (stable: centred first on
            # ties); a place better backed along its long sides but with an end unbacked is none
            ranked = sorted(tried, key=lambda t: -t[0])
            ranked = [t for t in ranked if plain(t)] if plain(ranked[0]) else []
            if ranked and (picked is None or ranked[0][0] > picked[0][0]):
                picked = (ranked[0], ranked)
        if picked is None:
            continue
        best, ranked = picked
        # partly under its neighbours, it may lie further to either side: those places too
        others = [t[2].astype(np.float32) for t in ranked[1:]
                  if abs(t[1] - best[1]) > 1.0 and t[0] >= best[0] - 0.25]
        covered = [c.corners for c in cards]
        quad = best[2]
        seen = tuple(not any(cv2.pointPolygonTest(q.reshape(-1, 1, 2).astype(np.float32),
                                                  (float(p[0]), float(p[1])), True) > 1.0 for q in covered)
                     for p in quad)
        out.append(CardQuad(quad.astype(np.float32), min(1.0, best[0]), seen,  # type: ignore[arg-type]
                            tuple(others[:2])))
    return out


def _squared_by_ends(points: np.ndarray, u: np.ndarray, v: np.ndarray, rect: tuple[np.ndarray, float, float]
                     ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, float, float]]:
    """The rest of a blob turned by its ends: its long sides are its neighbours' edges,
    but its ends are the card's own, on the blob's outline. Each straight end gives the
    card's direction across (u) and along (v), then its middle and extent along both:
    one framing per end, the straighter first (a label may cling to an end, and a
    printed label's straight edge runs with the mat, not with the card, so both are
    tried). `rect`: the minimum rectangle's (middle, short side, long side), the only
    framing when neither end is straight."""
    pts = points.astype(np.float64)
    along = pts @ v
    ends = []
    for end in (along.min(), along.max()):
        near = pts[np.abs(along - end) <= 2.0]
        line = _fit_line(near) if len(near) >= 8 else None
        if line is None:
            continue
        d = line[1] / (np.linalg.norm(line[1]) or 1.0)
        off = np.abs((near - line[0]) @ np.array([-d[1], d[0]]))
        if abs(float(d @ u)) >= math.cos(math.radians(8)):
            ends.append((float(np.median(off)), d))
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray, float, float]] = []
    for _, d in sorted(ends, key=lambda e: e[0]):
        nu = d * (1.0 if float(d @ u) > 0 else -1.0)
        if out and float(nu @ out[0][0]) > math.cos(math.radians(0.5)):
            continue  # both ends agree: one framing
        nv = np.array([-nu[1], nu[0]])
        nv = nv * (1.0 if float(nv @ v) > 0 else -1.0)
        a, b = pts @ nu, pts @ nv
        middle = nu * (a.min() + a.max()) / 2 + nv * (b.min() + b.max()) / 2
        out.append((nu, nv, middle, float(np.ptp(a)), float(np.ptp(b))))
    return out or [(u, v, *rect)]


def _rect_error(quad: np.ndarray, size: tuple[float, float]) -> float:
    """How far (pixels) the quad's furthest corner is from the exact card rectangle of
    `size` best fitted to it (rotation, shift and scale)."""
    # plain floats for the four corners: order_ideal, _similarity and the corners' errors
    # as numpy arrays were a dozen calls on 2x4 numbers (70 us, 15 quads a cold frame).
    # The same sums in the same order as numpy adds them (_sum8: eight values pairwise),
    # but for the fitted corners, whose two products numpy's BLAS may fuse: the error
    # can differ in its last bits, which only a threshold exactly there could tell.
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = np.asarray(quad, np.float64).reshape(4, 2).tolist()
    cw, ch = size
    s01 = math.sqrt((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0))
    s12 = math.sqrt((x2 - x1) * (x2 - x1) + (y2 - y1) * (y2 - y1))
    a, b = (cw, ch) if s01 <= s12 else (ch, cw)
    ideal = ((0.0, 0.0), (a, 0.0), (a, b), (0.0, b))
    mx, my = (((x0 + x1) + x2) + x3) / 4, (((y0 + y1) + y2) + y3) / 4
    ha, hb = (((0.0 + a) + a) + 0.0) / 4, (((0.0 + 0.0) + b) + b) / 4
    src = [(ix - ha, iy - hb) for ix, iy in ideal]
    dst = [(x0 - mx, y0 - my), (x1 - mx, y1 - my), (x2 - mx, y2 - my), (x3 - mx, y3 - my)]
    along = _sum8([v for (sx, sy), (dx, dy) in zip(src, dst, strict=True) for v in (sx * dx, sy * dy)])
    turn = 0.0
    for (sx, sy), (dx, dy) in zip(src, dst, strict=True):
        turn += sx * dy - sy * dx
    norm = _sum8([v for sx, sy in src for v in (sx * sx, sy * sy)]) or 1.0
    ca, sa = along / norm, turn / norm
    tx, ty = mx - (ca * ha - sa * hb), my - (sa * ha + ca * hb)
    errors = []
    for (ix, iy), (qx, qy) in zip(ideal, ((x0, y0), (x1, y1), (x2, y2), (x3, y3)), strict=True):
        ex, ey = ix * ca - iy * sa + tx - qx, ix * sa + iy * ca + ty - qy
        errors.append(math.sqrt(ex * ex + ey * ey))
    return math.nan if any(math.isnan(e) for e in errors) else max(errors)


def _sum8(v: list[float]) -> float:
    """Eight floats added as numpy's sum adds an array of eight (pairwise)."""
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]))


@dataclass(frozen=True)
class _Grad:
    """The image gradient over a crop whose top-left is `origin` in the image."""

    gx: np.ndarray
    gy: np.ndarray
    origin: tuple[int, int]


def _reorder_seen(card: CardQuad, square: bool) -> tuple[bool, bool, bool, bool]:
    """`seen` flags following the corners through `order_quad`."""
    ordered = order_quad(card.corners, square)
    flags = []
    for p in ordered:
        k = int(np.argmin(np.linalg.norm(card.corners - p, axis=1)))
        flags.append(card.seen[k])
    return tuple(flags)  # type: ignore[return-value]


def _dedupe(cards: list[CardQuad], size: tuple[float, float] | None) -> list[CardQuad]:
    """Drop a card whose centre lies within a third of a card of a better one."""
    if len(cards) < 2:
        return cards
    ranked = sorted(cards, key=lambda c: (-sum(c.seen), -c.support))
    centres = np.array([c.center for c in ranked], np.float64)
    keep: list[int] = []
    for i, c in enumerate(ranked):
        reach = 0.33 * (size[0] if size else float(np.linalg.norm(c.corners[1] - c.corners[0])))
        if not keep or float(np.min(np.hypot(*(centres[keep] - centres[i]).T))) > reach:
            keep.append(i)
    return [ranked[i] for i in keep]


def card_scale(cards: list[CardQuad], size_mm: tuple[float, float]) -> float | None:
    """Pixels per millimetre from whole cards (the median over them), or None."""
    whole = [c for c in cards if c.complete]
    if not whole:
        return None
    short_mm, long_mm = min(size_mm), max(size_mm)
    per = []
    for c in whole:
        sides = np.linalg.norm(c.corners - c.corners[ROLL[1]], axis=1)
        per.append((sides[0] + sides[2]) / (2 * short_mm))
        per.append((sides[1] + sides[3]) / (2 * long_mm))
    return float(np.median(per))


def occluders(found: Masks, cards: list[CardQuad], min_area: float) -> np.ndarray:
    """Where something that is neither table nor card lies over the table (a hand, an
    arm, a sleeve's shadow): bright or dark regions not explained by the cards found.
    Returns a uint8 0/255 mask of the detection image."""
    other = cv2.bitwise_or(found.bright, found.dark)
    if cards:
        covered = np.zeros_like(other)
        for c in cards:
            cv2.fillConvexPoly(covered, np.rint(c.corners).astype(np.int32), 255)
        covered = cv2.dilate(covered, np.ones((5, 5), np.uint8))
        other = cv2.bitwise_and(other, cv2.bitwise_not(covered))
    contours, _ = cv2.findContours(other, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(other)
    big = [c for c in contours if cv2.contourArea(c) >= min_area]
    if big:
        cv2.drawContours(out, big, -1, 255, thickness=cv2.FILLED)
    return out
