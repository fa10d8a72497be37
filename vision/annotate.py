"""Drawing what the pipeline saw onto a frame: card outlines and codes, unknown cards,
hands and other occluders, the mat's zones and its status. For `companion recognize
--annotate`, `companion watch --annotate` and the kiosk's live view."""

from __future__ import annotations

import cv2
import numpy as np

from vision.homography import to_plane
from vision.mats import MatSpec
from vision.pipeline import FrameResult
from vision.zones import zone_outline

KNOWN = (60, 220, 60)  # BGR
UNKNOWN = (0, 165, 255)
OCCLUDER = (60, 60, 230)
ZONE = (200, 200, 200)
TEXT_BG = (20, 20, 20)


def _label(img: np.ndarray, text: str, at: tuple[float, float], colour: tuple[int, int, int],
           scale: float) -> None:
    """Text on a dark box, kept inside the image."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    thick = max(1, round(scale * 2))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    h, w = img.shape[:2]
    x = int(min(max(0, at[0]), w - tw - 4))
    y = int(min(max(th + 4, at[1]), h - base - 2))
    cv2.rectangle(img, (x, y - th - 4), (x + tw + 4, y + base), TEXT_BG, -1)
    cv2.putText(img, text, (x + 2, y - 2), font, scale, colour, thick, cv2.LINE_AA)


def _poly(img: np.ndarray, pts: np.ndarray, colour: tuple[int, int, int], thick: int) -> None:
    cv2.polylines(img, [np.round(np.asarray(pts) * 16).astype(np.int32).reshape(-1, 1, 2)], True, colour,
                  thick, cv2.LINE_AA, shift=4)


def annotate(image: np.ndarray, result: FrameResult, mat: MatSpec | None = None,
             zones: bool = True) -> np.ndarray:
    """A copy of `image` with the frame's findings drawn on it."""
    out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    scale = max(0.4, out.shape[1] / 1600)
    thick = max(1, round(out.shape[1] / 640))
    if zones and mat is not None and result.H is not None:
        Hinv = np.linalg.inv(result.H)
        for zone in mat.zones:
            _poly(out, to_plane(zone_outline(zone), Hinv), ZONE, 1)
    for poly in result.occluders_px:
        _poly(out, poly, OCCLUDER, thick)
    for card in result.cards:
        colour = KNOWN if card.code else UNKNOWN
        _poly(out, card.corners_px, colour, thick + (1 if card.code else 0))
        tl = card.corners_px[0]
        if card.code:
            cv2.circle(out, (round(tl[0]), round(tl[1])), 2 * thick + 1, colour, -1, cv2.LINE_AA)
        text = f"{card.code} {card.confidence:.2f}" if card.code else "?"
        centre = card.corners_px.mean(axis=0)
        _label(out, text, (centre[0] - 20 * scale, centre[1]), colour, scale)
    status = f"frame {result.index}  t {result.t:.2f}s  cards {sum(1 for c in result.cards if c.code)}"
    if result.mat is not None:
        status += f"  mat {result.mat.status}"
    if result.stable:
        status += f"  on the table {len(result.stable)}"
    _label(out, status, (4, 24 * scale + 8), (255, 255, 255), scale)
    return out
