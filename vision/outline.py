"""Card outlines in a photo of a table without a mat, at any scale.

Without a mat nothing says how big a card is in the picture: one card may fill a third
of it, or twenty may lie small. So the scale comes from the cards themselves. A card is
paper: bright in every colour channel at once (carpet, wood and cloth are not), with
straight sides in the card's aspect ratio. The photo's "paper image" (the darkest of the
three channels, where paper stays bright and coloured surfaces drop) is cut at a ladder
of levels, since no single level suits every light; every region at every level whose
outline is a convex quadrilateral of the card's shape is a candidate, and the
candidates that agree best with the image's edges win. Cards lying side by side, which
merge into one region at a low level, separate at a higher one, where the thin shadow
between them falls below the cut.

The whole cards found fix the scale (pixels per millimetre, their median), and the
blobs no level could split (cards overlapping in a fan, a card half under another) are
then cut into cards from their corners by `vision.detect.find_cards`, which needs that
scale. Each stage is a plain function of the image.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.detect import ROLL, CardQuad, order_quad, refine_quad, signed_area, snap_quad


@dataclass(frozen=True)
class OutlineParams:
    """Knobs of the outline finder; docs/vision.md ("Without a mat") says why."""

    #: The photo is searched at most this wide (long side), for speed.
    work_px: int = 640
    #: Levels of the paper image tried: this many, evenly between its median and its
    #: brightest (the 99.5th percentile), so a small card on a light carpet gets levels too.
    levels: int = 12
    #: Smallest card worth finding: its short side in pixels of the work image.
    min_short_px: float = 14.0
    #: A region is a card when it fills this much of its fitted quad ...
    min_fill: float = 0.90
    #: ... the quad's long side over its short side is within this of the card's ...
    aspect_tol: float = 0.25
    #: ... and opposite sides differ by at most this fraction (perspective).
    side_tol: float = 0.22
    #: Share of the outline that must lie on an edge of the image.
    min_support: float = 0.45
    #: The paper image just inside the outline is brighter than just outside by this
    #: many grey levels at least (median against median) ...
    min_contrast: float = 12.0
    #: ... and even: its inter-quartile range is at most this (a card's white border).
    max_spread: float = 40.0
    #: Two candidates overlapping more than this (intersection over union) are one card.
    same_iou: float = 0.5


def paper_image(bgr: np.ndarray) -> np.ndarray:
    """Bright where the image is bright in every channel (paper), dark on coloured or
    dark surfaces: the minimum of B, G and R, lightly smoothed."""
    if bgr.ndim != 3:
        return bgr
    return cv2.GaussianBlur(bgr.min(axis=2), (3, 3), 0)


def _quad_of(contour: np.ndarray) -> np.ndarray | None:
    """A contour's four corners: its convex hull as a quadrilateral, or the smallest
    rectangle round it; None when the hull is a triangle or less."""
    hull = cv2.convexHull(contour)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.035, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2)
        if len(approx) == 4:
            return approx.astype(np.float32)
        if len(approx) < 4:
            return None
    # Specks of the table stuck to the outline (carpet) leave more than four corners:
    # the smallest rectangle round it, which the fill test then judges.
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float32)


def _shape_ok(quad: np.ndarray, aspect: float, p: OutlineParams) -> bool:
    sides = np.linalg.norm(quad - quad[ROLL[1]], axis=1)
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    short, long_ = min(a, b), max(a, b)
    if short < p.min_short_px:
        return False
    if abs(sides[0] - sides[2]) > p.side_tol * a or abs(sides[1] - sides[3]) > p.side_tol * b:
        return False
    if abs(long_ / short - aspect) > p.aspect_tol * aspect:
        return False
    # corners near right angles (a tilted phone keeps them within ~25 degrees)
    for i in range(4):
        u, v = quad[i - 1] - quad[i], quad[(i + 1) % 4] - quad[i]
        cos = abs(float(u @ v)) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-6)
        if cos > 0.42:
            return False
    return True


def edge_support(grad: np.ndarray, quad: np.ndarray, threshold: float = 12.0) -> float:
    """The share of points along the quad's sides (away from its rounded corners) where
    the gradient magnitude within a pixel or two of the side is at least `threshold`."""
    q = np.asarray(quad, np.float64)
    t = np.linspace(0.1, 0.9, 16)
    hits, total = 0, 0
    h, w = grad.shape
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        pts = a + t[:, None] * (b - a)
        best = np.zeros(len(t), np.float32)
        side = b - a
        n = np.array([side[1], -side[0]]) / max(float(np.linalg.norm(side)), 1e-6)
        for off in (-1.5, -0.5, 0.5, 1.5):
            pp = pts + off * n
            xi = np.clip(np.rint(pp[:, 0]).astype(int), 0, w - 1)
            yi = np.clip(np.rint(pp[:, 1]).astype(int), 0, h - 1)
            best = np.maximum(best, grad[yi, xi])
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        hits += int(((best >= threshold) & inside).sum())
        total += len(t)
    return hits / total


def side_edges(gx: np.ndarray, gy: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """How strongly each side of a quad lies on an edge of the image: per side, the
    median along it (away from the corners) of the gradient across the side, the
    strongest within a pixel of it. `gx`, `gy`: the image's gradients. A side cutting
    across a card, where the fit took a corner's print for the card's edge, is weaker
    there than the card's own side."""
    q = np.asarray(quad, np.float64)
    t = np.linspace(0.1, 0.9, 24)
    offs = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    out = np.zeros(4)
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        side = b - a
        n = np.array([side[1], -side[0]]) / max(float(np.linalg.norm(side)), 1e-6)
        pts = a + t[:, None] * side
        pp = (pts[None, :, :] + offs[:, None, None] * n).astype(np.float32)
        vx = cv2.remap(gx, pp[..., 0], pp[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        vy = cv2.remap(gy, pp[..., 0], pp[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out[i] = float(np.median(np.abs(vx * n[0] + vy * n[1]).max(axis=0)))
    return out


def paper_contrast(paper: np.ndarray, quad: np.ndarray) -> tuple[float, float, float]:
    """How the card's white border stands out: (the paper image's median just inside the
    quad's sides minus its median just outside, the spread (inter-quartile range) just
    inside, the median just inside). A card is a bright, even band inside its outline; a patch of carpet or a
    shadow's edge is neither."""
    q = np.asarray(quad, np.float64)
    sides = np.linalg.norm(q - q[ROLL[1]], axis=1)
    d = max(1.5, 0.04 * float(min(sides)))
    t = np.linspace(0.12, 0.88, 16)
    centre = q.mean(axis=0)
    h, w = paper.shape
    inner, outer = [], []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        pts = a + t[:, None] * (b - a)
        side = b - a
        n = np.array([side[1], -side[0]]) / max(float(np.linalg.norm(side)), 1e-6)
        if (centre - a) @ n > 0:
            n = -n  # outward
        for sign, bucket in ((-1, inner), (1, outer)):
            pp = np.rint(pts + sign * d * n).astype(int)
            ok = (pp[:, 0] >= 0) & (pp[:, 0] < w) & (pp[:, 1] >= 0) & (pp[:, 1] < h)
            bucket.extend(paper[pp[ok, 1], pp[ok, 0]].tolist())
    if len(inner) < 16:
        return 0.0, 255.0, 0.0
    inner_a = np.asarray(inner, np.float32)
    outer_med = float(np.median(outer)) if outer else 0.0  # a card filling the photo
    q1, q3 = np.percentile(inner_a, (25, 75))
    inner_med = float(np.median(inner_a))
    return inner_med - outer_med, float(q3 - q1), inner_med


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    union = abs(signed_area(a)) + abs(signed_area(b)) - inter
    return float(inter / union) if union > 0 else 0.0


@dataclass(frozen=True)
class _Candidate:
    quad: np.ndarray
    score: float
    paper: float = 0.0  # the paper image's median just inside the outline


def candidates(paper: np.ndarray, grad: np.ndarray, aspect: float,
               p: OutlineParams = OutlineParams()) -> list[_Candidate]:
    """Every card-shaped region at every level of the paper image."""
    square = abs(aspect - 1.0) < 0.05
    min_area = p.min_short_px ** 2 * aspect
    lo, hi = np.quantile(paper, (0.5, 0.995))
    levels = sorted({int(v) for v in np.linspace(lo, hi, p.levels + 2)[1:-1]})
    kernels = [np.ones((3, 3), np.uint8), cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))]
    masks = []
    for level in levels:
        mask = (paper > level).astype(np.uint8)
        # A light, textured table (carpet) touches the card in specks: a wider opening
        # cuts them off, at the price of the card's rounded corners.
        masks += [cv2.morphologyEx(mask, cv2.MORPH_OPEN, k) for k in kernels]
    edges = cv2.Canny(cv2.GaussianBlur(paper, (3, 3), 0), 30, 90)
    masks.append(cv2.dilate(edges, np.ones((3, 3), np.uint8)))
    out: list[_Candidate] = []
    for mask in masks:
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        for c in contours:
            area = cv2.contourArea(c)
            if area < min_area:
                continue
            quad = _quad_of(c)
            if quad is None:
                continue
            quad = order_quad(refine_quad(order_quad(quad, square), c), square)
            qa = abs(signed_area(quad))
            if qa <= 0 or area / qa < p.min_fill or not _shape_ok(quad, aspect, p):
                continue
            support = edge_support(grad, quad)
            if support < p.min_support:
                continue
            contrast, spread, inside = paper_contrast(paper, quad)
            if contrast < p.min_contrast or spread > p.max_spread:
                continue
            out.append(_Candidate(quad, support + 0.5 * min(1.0, area / qa), inside))
    return out


def _suppress(cands: list[_Candidate], same_iou: float) -> list[np.ndarray]:
    """The best candidate of each group of overlapping ones, then one of each pair that
    lie one inside the other: cards of one deck are one size, so a region around a card
    (a patch of carpet, two cards side by side) is not a card when the card inside has
    as white a border; otherwise the small one is a picture's frame printed on the card
    and goes."""
    kept: list[_Candidate] = []
    for c in sorted(cands, key=lambda c: -c.score):
        if all(_iou(c.quad, k.quad) <= same_iou for k in kept):
            kept.append(c)
    drop: set[int] = set()
    areas = [abs(signed_area(c.quad)) for c in kept]
    for i, outer in enumerate(kept):
        for j, inner in enumerate(kept):
            if i == j or areas[j] >= 0.7 * areas[i] or not _contains(outer.quad, inner.quad):
                continue
            if areas[j] < 0.05 * areas[i]:
                continue  # a mark far smaller than a card: identification has the last word
            if inner.paper >= outer.paper - 10:
                drop.add(i)
            else:
                drop.add(j)
    return [c.quad for i, c in enumerate(kept) if i not in drop]


def _contains(outer: np.ndarray, inner: np.ndarray) -> bool:
    inter, _ = cv2.intersectConvexConvex(outer.astype(np.float32), inner.astype(np.float32))
    return inter >= 0.8 * abs(signed_area(inner))


def find_outlines(image: np.ndarray, aspect: float, p: OutlineParams = OutlineParams()) -> list[CardQuad]:
    """The whole cards in a photo (BGR or grey), as quads in the photo's pixels, ordered
    as `vision.detect.order_quad` orders them, sides settled on the image's edges."""
    if image.ndim not in (2, 3):
        raise ValueError(f"find_outlines needs a BGR or grey image, got shape {image.shape}")
    square = abs(aspect - 1.0) < 0.05
    h, w = image.shape[:2]
    f = min(1.0, p.work_px / max(h, w))
    small = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA) if f < 1 else image
    paper = paper_image(small)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    grad = cv2.magnitude(gx, gy) / 4.0
    quads = _suppress(candidates(paper, grad, aspect, p), p.same_iou)
    full = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    out = []
    for q in quads:
        big = (q + 0.5) / f - 0.5
        reach = max(2.0, 0.03 * float(np.linalg.norm(big[1] - big[0])))
        snapped = snap_quad(full, big, reach, polarity=1)
        out.append(CardQuad(order_quad(snapped, square), support=1.0))
    return out


def scale_px_per_mm(cards: list[CardQuad], size_mm: tuple[float, float]) -> float | None:
    """Pixels per millimetre agreed by the whole cards found: their median, or None."""
    if not cards:
        return None
    per = []
    for c in cards:
        sides = np.linalg.norm(c.corners - c.corners[ROLL[1]], axis=1)
        per.append((sides[0] + sides[2]) / (2 * min(size_mm)))
        per.append((sides[1] + sides[3]) / (2 * max(size_mm)))
    return float(np.median(per))
