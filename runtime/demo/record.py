"""`companion demo --record DIR`: what the camera saw, annotated, and the logs.

- `table.mp4`: every frame the recognition read, with the mat's zones outlined, each card
  it found framed (green with its code when identified, orange when not), the
  observations of that frame and the step of the game it belongs to;
- `frame-NNNNN.png`: every `every`-th frame, and every frame that gave an observation, as
  still pictures (a video writer is not on every machine);
- `events.jsonl`: the session's log in the event-log format (`companion replay` reads it);
- `truth.jsonl`: the full-information bot game it was checked against.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.eventlog import dumps
from companion.storage import Store
from vision.mats import MatSpec
from vision.pipeline import FrameResult
from vision.synthetic import SceneTruth

FPS = 10
GREEN = (60, 200, 60)
ORANGE = (0, 150, 255)
WHITE = (255, 255, 255)
ZONE = (200, 200, 120)


class Recorder:
    """Writes annotated frames into `folder` (created if needed)."""

    def __init__(self, folder: Path, mat: MatSpec, *, every: int = 20, video: bool = True) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.mat = mat
        self.every = max(1, every)
        self._want_video = video
        self._video: cv2.VideoWriter | None = None
        self.frames = 0
        self.stills = 0
        self.video_path: Path | None = None

    def frame(self, image: np.ndarray, result: FrameResult, truth: SceneTruth, notes: list[str]) -> None:
        shown = annotate(image, self.mat, result, truth, notes)
        if self._want_video and self._video is None:
            path = self.folder / "table.mp4"
            h, w = shown.shape[:2]
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), FPS, (w, h))
            if writer.isOpened():
                self._video, self.video_path = writer, path
            else:
                self._want_video = False  # no encoder here: the stills are the record
        if self._video is not None:
            self._video.write(shown)
        if self.frames % self.every == 0 or result.observations:
            cv2.imwrite(str(self.folder / f"frame-{self.frames:05d}.png"), shown)
            self.stills += 1
        self.frames += 1

    def close(self) -> None:
        if self._video is not None:
            self._video.release()
            self._video = None


def annotate(image: np.ndarray, mat: MatSpec, result: FrameResult, truth: SceneTruth,
             notes: list[str]) -> np.ndarray:
    """A copy of `image` with the zones, the cards recognised and the frame's observations."""
    out = image.copy()
    if truth.mat_to_frame:
        H = np.array(truth.mat_to_frame, np.float64)
        for zone in mat.zones:
            x, y, w, h = zone.rect_mm
            pts = cv2.perspectiveTransform(np.array([[[x, y]], [[x + w, y]], [[x + w, y + h]], [[x, y + h]]],
                                                    np.float64), H)
            cv2.polylines(out, [np.round(pts).astype(np.int32)], True, ZONE, 1, cv2.LINE_AA)
    for card in result.cards:
        pts = np.round(np.asarray(card.corners_px, np.float64)).astype(np.int32).reshape(-1, 1, 2)
        colour = GREEN if card.code else ORANGE
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        label = card.code or "?"
        x, y = pts.reshape(-1, 2).min(axis=0)
        _text(out, label, (int(x), max(14, int(y) - 6)), colour, 0.6)
    lines = [*notes, *(f"{o.kind} {o.code} in {o.zone}" for o in result.observations)]
    hand = "  (a hand over the table)" if truth.occluded else ""
    lines.append(f"frame {result.index}  t {result.t:.2f} s{hand}")
    for i, line in enumerate(lines):
        _text(out, line, (10, 24 + 22 * i), WHITE, 0.6)
    return out


def _text(image: np.ndarray, text: str, at: tuple[int, int], colour: tuple[int, int, int],
          scale: float) -> None:
    """Text on a dark box, readable on any background."""
    (w, h), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
    x, y = at
    cv2.rectangle(image, (x - 3, y - h - 4), (x + w + 3, y + base + 2), (30, 30, 30), cv2.FILLED)
    cv2.putText(image, text, at, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def write_logs(folder: Path, store: Store, game_id: int, truth: list[dict[str, Any]]) -> None:
    """`events.jsonl` (the session's log, as `companion export` writes it) and `truth.jsonl`."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "events.jsonl").write_text("".join(dumps(e) + "\n" for e in store.export(game_id)),
                                         encoding="utf-8")
    (folder / "truth.jsonl").write_text("".join(dumps(e) + "\n" for e in truth), encoding="utf-8")
