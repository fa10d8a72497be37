"""Cards of a known size laid on a picture's edges.

Without a mat, cards overlapping one another are cut from the outline of their blob,
and where a card is mostly covered the cut can miss it by a third of its width (the
room bench: 40 of 43 cards missed through the wide lens were cut 5 to 24 px off, and
every one of them read right at its true outline). Once the cards' size is known, a
card is a rectangle of that size whose sides lie on the picture's edges: each unread
cut is searched for such rectangles nearby, and the likeliest are read.
"""

from __future__ import annotations

import itertools
import math

import cv2
import numpy as np


def edge_field(gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The grey picture's gradient (x, y), float32, after a light blur (sensor noise
    would otherwise make every rectangle's sides look equally edged)."""
    g = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    return cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)


def rectangle(centre: tuple[float, float], angle: float, size: tuple[float, float]) -> np.ndarray:
    """The corners (4, 2) of a `size` (first side, second side) rectangle centred on
    `centre`, its first side turned `angle` radians from the x axis, clockwise on the
    picture (y down) from the corner before the first side."""
    u = np.array([math.cos(angle), math.sin(angle)])
    v = np.array([-math.sin(angle), math.cos(angle)])
    a, b = size[0] / 2, size[1] / 2
    c = np.asarray(centre, np.float64)
    return np.array([c - a * u - b * v, c + a * u - b * v, c + a * u + b * v, c - a * u + b * v])


def fit_rectangles(gx: np.ndarray, gy: np.ndarray, centre: tuple[float, float], angle: float,
                   size: tuple[float, float], reach: float, step: float = 2.0,
                   turns: tuple[float, ...] = (-4.0, -2.0, 0.0, 2.0, 4.0), keep: int = 3,
                   points: int = 12, quarters: tuple[float, ...] = (0.0, math.pi / 2),
                   stretches: tuple[tuple[float, float], ...] = ((1.0, 1.0),)
                   ) -> list[tuple[float, np.ndarray]]:
    """Rectangles of `size` whose centres lie within `reach` px of `centre` and whose
    first side is turned `angle` (or a quarter more, the card the other way round)
    plus each of `turns` degrees, scored by how strongly the picture changes across
    their sides: the mean over each side's `points` of the gradient across it, the
    weakest side left out (one side of a covered card lies under the card on top).
    `quarters`: the turns tried besides `angle` (0 alone: the card as `angle` lies).
    `stretches`: factors on the two sides tried (a tilted camera without a flattened
    view shortens a card along the tilt: a landscape IDEAL card 89 px long where its
    scale said 97).
    `gx`, `gy` may hold several pictures' gradients (h, w, k; `edge_field` of the
    pictures stacked): a side's change across it is then their sum.
    The best `keep`, (score, corners), best first, none centred within a quarter of the
    short side of a better one."""
    h, w = gx.shape[:2]
    offs = np.arange(-reach, reach + 1e-9, step)
    grid_x = (centre[0] + offs[None, :]).astype(np.float32) * np.ones((len(offs), 1), np.float32)
    grid_y = (centre[1] + offs[:, None]).astype(np.float32) * np.ones((1, len(offs)), np.float32)
    t = (np.arange(points) + 0.5) / points * 0.8 + 0.1  # the middle 80 % of each side
    inside = offs[None, :] ** 2 + offs[:, None] ** 2 <= reach * reach
    found: list[tuple[float, float, float, float, tuple[float, float]]] = []
    for quarter, turn, (ks, kl) in itertools.product(quarters, turns, stretches):
        a = angle + quarter + math.radians(turn)
        here = (size[0] * ks, size[1] * kl)
        corners = rectangle((0.0, 0.0), a, here)
        d = np.roll(corners, -1, axis=0) - corners  # (side, xy)
        n = np.stack([d[:, 1], -d[:, 0]], axis=1) / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-9)[:, None]
        o = corners[:, None, :] + t[None, :, None] * d[:, None, :]  # (side, point, xy)
        # every side's every point over the grid of centres, in one remap: (side, point, row, col)
        mx = (grid_x[None, None] + o[..., 0, None, None].astype(np.float32)).reshape(-1, len(offs))
        my = (grid_y[None, None] + o[..., 1, None, None].astype(np.float32)).reshape(-1, len(offs))
        sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        shape = (4, len(t), len(offs), len(offs), *gx.shape[2:])
        nx = n[:, 0].astype(np.float32).reshape((4, 1, 1, 1) + (1,) * (gx.ndim - 2))
        ny = n[:, 1].astype(np.float32).reshape((4, 1, 1, 1) + (1,) * (gx.ndim - 2))
        across = np.abs(sx.reshape(shape) * nx + sy.reshape(shape) * ny)
        if gx.ndim == 3:  # several pictures' gradients: their changes across the side add
            # (channel by channel: numpy's sum over a last axis of 2 cost 12 times as much)
            summed = across[..., 0].copy()
            for i in range(1, across.shape[-1]):
                summed += across[..., i]
            across = summed
        sides = across.mean(axis=1)
        stack = np.sort(sides, axis=0)
        score = stack[1:].sum(axis=0)  # the weakest side left out
        score = np.where(inside, score, -1.0)
        for k in np.argsort(score, axis=None)[::-1][: 4 * keep]:
            r, c = divmod(int(k), len(offs))
            if score[r, c] <= 0:
                break
            found.append((float(score[r, c]), float(grid_x[r, c]), float(grid_y[r, c]), a, here))
    found.sort(key=lambda f: -f[0])
    best: list[tuple[float, np.ndarray]] = []
    centres: list[tuple[float, float]] = []
    near = min(size) / 4
    for score, x, y, a, here in found:
        if x < 0 or y < 0 or x >= w or y >= h:
            continue
        if any(math.hypot(x - cx, y - cy) < near for cx, cy in centres):
            continue
        best.append((score, rectangle((x, y), a, here)))
        centres.append((x, y))
        if len(best) == keep:
            break
    return best


def sides_fitted(gx: np.ndarray, gy: np.ndarray, corners: np.ndarray, reach: float, points: int = 16,
                 least: float = 0.5) -> np.ndarray:
    """`corners` (a quad, 4x2) with each side laid on the edge along it: at each of
    `points` places on the side's middle 80 %, the outermost offset within `reach` px
    along its normal where the picture changes at least half as much across it as it
    most does there; a line fitted through those places (those more than a pixel and a
    half from their median offset left out); the corners where the lines meet. A
    rectangle cannot lie on a card the camera sees tilted, a trapezoid: four lines can.
    A side whose edge is under `least` of the strongest side's stays where it was (under
    another card, a hand)."""
    q = np.asarray(corners, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    offs = np.arange(-reach, reach + 1e-9, 0.5)
    t = (np.arange(points) + 0.5) / points * 0.8 + 0.1
    lines, strength = [], []
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        d = b - a
        n = np.array([d[1], -d[0]]) / max(float(np.hypot(*d)), 1e-9)
        if float(n @ (a - centre)) < 0:
            n = -n
        pts = (a + t[:, None] * d)[None] + offs[:, None, None] * n  # (offset, place, xy)
        mx, my = pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32)
        sx = cv2.remap(gx, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        sy = cv2.remap(gy, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        across = np.abs(sx * n[0] + sy * n[1])
        if across.ndim == 3:
            across = across.sum(axis=-1)
        # per place, the outermost offset changing at least half as much as the most
        # (the outer flank of the outermost edge, a pixel or so beyond its middle: where
        # the edge's middle was taken instead, no card more was read): a card's paper
        # ends at its outermost edge; its print lies inside
        strong = across >= 0.5 * across.max(axis=0, keepdims=True)
        best = len(offs) - 1 - strong[::-1].argmax(axis=0)
        found = offs[best]
        strength.append(float(across.max(axis=0).mean()))
        keep = np.abs(found - np.median(found)) <= 1.5
        if keep.sum() < 3:
            lines.append((a, d))
            continue
        # the offset along the side as a line through the kept places: offset = c0 + c1 * t
        c1, c0 = np.polyfit(t[keep], found[keep], 1) if np.ptp(t[keep]) > 0 else (0.0, float(found[keep][0]))
        p0 = a + c0 * n
        p1 = a + d + (c0 + c1) * n
        lines.append((p0, p1 - p0))
    top = max(strength) or 1.0
    out = []
    for k in range(4):
        (p, d), (r, e) = (lines[k - 1] if strength[k - 1] >= least * top else (q[k - 1], q[k] - q[k - 1])), \
            (lines[k] if strength[k] >= least * top else (q[k], q[(k + 1) % 4] - q[k]))
        m = np.array([[d[0], -e[0]], [d[1], -e[1]]])
        if abs(np.linalg.det(m)) < 1e-9:
            return q.astype(np.float32)
        s = np.linalg.solve(m, r - p)
        out.append(p + s[0] * d)
    return np.array(out, np.float32)


def refined(gx: np.ndarray, gy: np.ndarray, corners: np.ndarray, step: float) -> np.ndarray:
    """`corners` (a rectangle found at `step` px) moved to the best-scoring place of its
    size within two steps of it, at a third of the step and within a degree and a half."""
    c = corners.mean(axis=0)
    d = corners[1] - corners[0]
    angle = math.atan2(d[1], d[0])
    size = (float(np.linalg.norm(d)), float(np.linalg.norm(corners[2] - corners[1])))
    best = fit_rectangles(gx, gy, (float(c[0]), float(c[1])), angle, size, 2 * step, step / 3,
                          turns=(-1.5, -0.75, 0.0, 0.75, 1.5), keep=1, quarters=(0.0,))
    return best[0][1] if best else corners


def nudges(corners: np.ndarray, step: float, turn: float = 1.0, stretch: float = 0.03) -> list[np.ndarray]:
    """`corners` (a rectangle, 4x2) moved a little every way: `step` px along x and y,
    turned `turn` degrees either way about its centre, and each pair of sides pushed
    apart or together by `stretch` of their length."""
    c = corners.mean(axis=0)
    out = [corners + d for d in (np.array([step, 0.0]), np.array([-step, 0.0]),
                                 np.array([0.0, step]), np.array([0.0, -step]))]
    for sign in (1.0, -1.0):
        a = math.radians(sign * turn)
        R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        out.append((corners - c) @ R.T + c)
    u = corners[1] - corners[0]
    v = corners[3] - corners[0]
    for axis, pair in ((u, ((0, 3), (1, 2))), (v, ((0, 1), (3, 2)))):
        for sign in (1.0, -1.0):
            moved = corners.copy()
            push = 0.5 * sign * stretch * axis
            for i in pair[0]:
                moved[i] -= push
            for i in pair[1]:
                moved[i] += push
            out.append(moved)
    return out


def shifted(corners: np.ndarray, by: float) -> list[np.ndarray]:
    """`corners` (a rectangle, 4x2) moved `by` px along each of its sides' directions,
    either way, and along both diagonals of those: eight rectangles, its own shape, on
    a ring around it (`nudges` moves it less, and turns and stretches it too)."""
    u = corners[1] - corners[0]
    v = corners[3] - corners[0]
    u = u / max(float(np.linalg.norm(u)), 1e-9)
    v = v / max(float(np.linalg.norm(v)), 1e-9)
    return [corners + by * (a * u + b * v) for a, b in itertools.product((-1, 0, 1), repeat=2) if a or b]
