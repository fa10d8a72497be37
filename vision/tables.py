"""Tables with a printed pattern (issue 16): a checked cloth seen without a mat.

A red and white gingham cloth has white squares about a quarter of a card wide, touching
the cards' edges: in the grey frame (and in every colour contrast) the white card and
the white squares it touches are one bright blob, and a row of squares may look like a
card. `plain_table` paints the cloth over: its paper-white squares are told from the
cards by their size alone (many squares of one size, each far smaller than a card), and
everything but the cards is set to one flat dark level, so the bright-card detector sees
white cards on a plain dark table.
"""

from __future__ import annotations

import cv2
import numpy as np


def _paper(hsv: np.ndarray, saturation: float, apart: float = 25.0) -> np.ndarray | None:
    """Where the frame (HSV) is paper-white (uint8 0/255): bright, and nearer in colour
    to its least coloured tenth than to its median (a warm lamp tints the paper and the
    cloth's white squares alike), on a table of a strong colour (its median saturation
    at least `saturation`, `apart` more than the least coloured tenth's); None on any
    other table."""
    sat, val = hsv[::3, ::3, 1], hsv[::3, ::3, 2]
    low, table_sat = (float(v) for v in np.percentile(sat, (10, 50)))
    if table_sat < saturation or table_sat - low < apart:
        return None
    paper = hsv[..., 1] < 0.5 * (low + table_sat)
    bright = hsv[..., 2] >= 0.8 * float(np.median(val))
    return (paper & bright).astype(np.uint8) * 255


class Check:
    """A checked cloth's paper-white squares as found in a paper mask of `shape`: their
    side (px), their centres (the squares lying apart from everything else) and the
    lattice they lie on (two vectors, each two sides long: a gingham's white squares lie
    every other square along both of its axes)."""

    def __init__(self, side: float, centres: np.ndarray, a: np.ndarray, b: np.ndarray,
                 shape: tuple[int, int]) -> None:
        self.side, self.centres, self.a, self.b, self.shape = side, centres, a, b, shape
        self._nearest: np.ndarray | None = None

    def nearest(self, points: np.ndarray) -> np.ndarray:
        """Each point's (N x 2 int, x y) nearest square apart, by index into centres."""
        if self._nearest is None:
            # the squares' Voronoi cells: a distance transform labelling each pixel with
            # its nearest seed (a few ms where a search over every pair took 25)
            h, w = self.shape
            at = np.clip(np.rint(self.centres).astype(np.int64), 0, (w - 1, h - 1))
            seeds = np.full((h, w), 255, np.uint8)
            seeds[at[:, 1], at[:, 0]] = 0
            _, labels = cv2.distanceTransformWithLabels(seeds, cv2.DIST_L2, 3,
                                                        labelType=cv2.DIST_LABEL_PIXEL)
            # labels number the seed pixels in scan order, from 1
            index = np.full((h, w), -1, np.int64)
            index[at[:, 1], at[:, 0]] = np.arange(len(at))
            order = index[seeds == 0]
            self._nearest = np.concatenate([[0], order])[labels]
        return self._nearest[points[:, 1], points[:, 0]]

    def on_square(self, points: np.ndarray, margin: float = 1.5) -> np.ndarray:
        """Which pixels (N x 2 int, x y) lie on one of the cloth's white squares (within
        `margin` px of it), the squares under cards too: each point is placed on the
        lattice from its nearest square apart."""
        if len(points) == 0:
            return np.zeros(0, bool)
        near = self.nearest(points)
        basis = np.stack([self.a, self.b], axis=1)  # columns a, b
        uv = (points.astype(np.float32) - self.centres[near]) @ np.linalg.inv(basis).T
        off = np.abs(uv - np.rint(uv))
        half = (0.5 * self.side + margin) / np.array([np.linalg.norm(self.a), np.linalg.norm(self.b)])
        return (off[:, 0] <= half[0]) & (off[:, 1] <= half[1])


def find_check(paper: np.ndarray, least: int = 30, cover: float = 0.08) -> Check | None:
    """A checked cloth's paper-white squares in a paper mask, or None when it holds no
    such pattern: at least `least` separate, nearly square blobs of one size (area
    within a factor of two of their median), covering at least `cover` of the picture,
    each about two sides from its nearest neighbours along two crossing directions."""
    n, _, stats, centres = cv2.connectedComponentsWithStats(paper, connectivity=4)
    if n < least + 1:
        return None
    w, h, area = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_AREA]
    squarish = (area >= 9) & (area >= 0.6 * w * h) & (np.minimum(w, h) >= 0.6 * np.maximum(w, h))
    if np.count_nonzero(squarish) < least:
        return None
    typical = float(np.median(area[squarish]))
    cells = squarish & (area >= 0.5 * typical) & (area <= 2.0 * typical)
    if np.count_nonzero(cells) < least or area[cells].sum() < cover * paper.size:
        return None
    side = float(np.sqrt(typical))
    pts = centres[1:][cells].astype(np.float32)
    steps = (pts[None, :, :] - pts[:, None, :]).reshape(-1, 2)
    length = np.hypot(steps[:, 0], steps[:, 1])
    steps = steps[(length >= 1.5 * side) & (length <= 2.6 * side)]
    if len(steps) < least:
        return None
    steps[steps[:, 1] < 0] *= -1  # each step once, pointing down (or right)
    angle = np.degrees(np.arctan2(steps[:, 1], steps[:, 0]))  # 0 to 180
    first = float(np.median(angle[(angle < 45) | (angle >= 135)] % 180)) \
        if np.count_nonzero((angle < 45) | (angle >= 135)) else 0.0
    axis = []
    for target in (first, first + 90.0):
        d = np.abs((angle - target + 90.0) % 180.0 - 90.0)
        these = steps[d < 20.0]
        if len(these) < least // 2:
            return None
        # fold each onto the target's direction before taking the median
        ref = np.array([np.cos(np.radians(target)), np.sin(np.radians(target))], np.float32)
        these = these * np.sign(these @ ref)[:, None]
        axis.append(np.median(these, axis=0))
    a, b = axis
    if abs(float(a[0] * b[1] - a[1] * b[0])) < 0.5 * float(np.linalg.norm(a) * np.linalg.norm(b)):
        return None
    return Check(side, pts, a.astype(np.float32), b.astype(np.float32), paper.shape[:2])


def _filled(mask: np.ndarray) -> np.ndarray:
    """The mask with its holes filled (a card's coloured print, a back's pattern inside
    its white border)."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 255, thickness=cv2.FILLED)
    return out


def cards_on_cloth(paper: np.ndarray, check: Check, reach: float = 1.3) -> np.ndarray:
    """The cards in a checked cloth's paper mask (uint8 0/255): the mask with its holes
    filled, less the cloth's squares. An opening by a square `reach` times the squares'
    side removes every square and nearly all a square adds to a card it touches (the
    squares touch each other only at corners, and a card is over three sides wide); of
    what it removes, what lies on the cloth's lattice of white squares goes, and of the
    rest (a tilted card's corners, which the opening cuts too, and the cloth's coloured
    squares filled in a narrow gap between two cards) the pieces of a square's size. A
    blob left smaller than two squares' reach is a square at the picture's edge."""
    filled = _filled(paper)
    k = max(3, round(reach * check.side))
    opened = cv2.morphologyEx(filled, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    rest = cv2.subtract(filled, opened)
    # only what touches a card can be a card's: the squares apart go without a look
    n, labels = cv2.connectedComponents(rest, connectivity=8)
    touching = np.zeros(n, bool)
    touching[labels[cv2.dilate(opened, np.ones((3, 3), np.uint8)) > 0]] = True
    touching[0] = False
    rest[~touching[labels]] = 0
    ys, xs = np.nonzero(rest)
    cloth = check.on_square(np.stack([xs, ys], axis=1))
    rest[ys[cloth], xs[cloth]] = 0
    n, labels, stats, _ = cv2.connectedComponentsWithStats(rest, connectivity=4)
    small = np.zeros(n, bool)
    small[1:] = stats[1:, cv2.CC_STAT_AREA] < 0.6 * check.side * check.side
    out = cv2.bitwise_or(opened, np.where(small[labels], 255, 0).astype(np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(out, connectivity=4)
    tiny = np.zeros(n, bool)
    tiny[1:] = stats[1:, cv2.CC_STAT_AREA] < 2 * k * k
    out[tiny[labels]] = 0
    return out


def plain_table(image: np.ndarray, gray: np.ndarray, saturation: float
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """On a checked cloth: the grey detection image `gray` (the colour frame `image`
    at a smaller size) and the frame itself with everything but the cards set to one
    flat level, half the paper's brightness; in the grey image the cards are no darker
    than three quarters of it (a card is then one bright blob, its dark print and a dark
    back's pattern too, and its edges and those between touching cards still show).
    None on any other table (no pattern of paper squares found)."""
    small = cv2.resize(image, (gray.shape[1], gray.shape[0]), interpolation=cv2.INTER_AREA) \
        if image.shape[:2] != gray.shape[:2] else image
    paper = _paper(cv2.cvtColor(small, cv2.COLOR_BGR2HSV), saturation)
    if paper is None:
        return None
    check = find_check(paper)
    if check is None:
        return None
    cards = cards_on_cloth(paper, check)
    white = float(np.median(gray[paper > 0]))
    out = np.full_like(gray, int(0.5 * white))
    np.copyto(out, np.maximum(gray, np.uint8(0.75 * white)), where=cards > 0)
    if cards.shape != image.shape[:2]:
        cards = cv2.resize(cards, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_LINEAR)
    colour = np.full_like(image, int(0.5 * white))
    np.copyto(colour, image, where=(cards > 127)[..., None])
    return out, colour
