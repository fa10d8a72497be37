"""The labelled real photos in ../shared/realcards, and how recognition is scored on them.

Shared by the real-photo benchmark (`bench_real`) and the end-to-end test. A photo's
truth is a list of boxes (the visible part of each card) with the card's code. A
reported card is *right* when its code is one of the photo's cards and its outline
covers that card's box; *wrong* otherwise (another card's code, or a card where there is
none). Recall counts the boxes named rightly, each once.
"""

from __future__ import annotations

import json
import os
import shutil
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: Where the photos are: $COMPANION_REALCARDS, else ../shared/realcards beside the repository.
DEFAULT_DIR = HERE.parent.parent / "shared" / "realcards"
#: The fixed choice of one whole photo per card that the deck is taught from.
TEACH_FILE = HERE / "real_teach.json"
#: Photos taken in quick succession, almost the same picture: kept on one side of a split.
TWINS = (("IMG_2464", "IMG_2465"), ("IMG_2466", "IMG_2467"), ("IMG_2468", "IMG_2469"),
         ("IMG_2471", "IMG_2472"), ("IMG_2473", "IMG_2474"))


def data_dir() -> Path | None:
    """The real-photo folder, or None when it is not on this machine."""
    env = os.environ.get("COMPANION_REALCARDS", "").strip()
    path = Path(env) if env else DEFAULT_DIR
    return path if (path / "truth_train.json").is_file() else None


@dataclass(frozen=True)
class Box:
    code: str
    box: tuple[int, int, int, int]  # xmin, ymin, xmax, ymax


@dataclass
class Photo:
    file: str
    boxes: list[Box] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return Path(self.file).stem


def photos(folder: Path) -> dict[str, Photo]:
    """Every labelled photo by file name."""
    out: dict[str, Photo] = {}
    for row in json.loads((folder / "truth_train.json").read_text()):
        if row.get("code"):
            out.setdefault(row["file"], Photo(row["file"])).boxes.append(Box(row["code"], tuple(row["box"])))
    return out


def twins_of(stem: str) -> set[str]:
    return {s for pair in TWINS if stem in pair for s in pair} | {stem}


def choose_teaching(folder: Path) -> dict[str, str]:
    """One photo per card, chosen by a fixed rule so that anyone can check it: among
    the phone photos that show that card alone, the one with the largest box."""
    best: dict[str, tuple[int, str]] = {}
    for photo in photos(folder).values():
        if len(photo.boxes) != 1 or not photo.file.startswith("IMG_"):
            continue
        b = photo.boxes[0]
        area = (b.box[2] - b.box[0]) * (b.box[3] - b.box[1])
        if b.code not in best or area > best[b.code][0]:
            best[b.code] = (area, photo.file)
    return {code: file for code, (_, file) in sorted(best.items())}


def teaching(folder: Path) -> dict[str, str]:
    """The teaching choice kept in TEACH_FILE (code -> photo file)."""
    return json.loads(TEACH_FILE.read_text())["photos"]


def teach_folder(folder: Path, choice: dict[str, str], into: Path) -> Path:
    """A folder laid out as `companion deck learn --from` wants it: one photo per card,
    named by its code."""
    into.mkdir(parents=True, exist_ok=True)
    for code, file in choice.items():
        shutil.copyfile(folder / "train" / file, into / f"{code}{Path(file).suffix.lower()}")
    return into


def test_photos(folder: Path, choice: dict[str, str]) -> list[Photo]:
    """Every photo not used for teaching, nor a near twin of one."""
    used = set().union(*(twins_of(Path(f).stem) for f in choice.values()))
    return [p for name, p in sorted(photos(folder).items()) if p.stem not in used]


def _cover(quad: np.ndarray, box: tuple[int, int, int, int]) -> float:
    """The share of the box that the outline's bounding box covers."""
    x0, y0 = quad.min(axis=0)
    x1, y1 = quad.max(axis=0)
    ix = max(0.0, min(x1, box[2]) - max(x0, box[0]))
    iy = max(0.0, min(y1, box[3]) - max(y0, box[1]))
    area = max(1, (box[2] - box[0]) * (box[3] - box[1]))
    return ix * iy / area


@dataclass
class Tally:
    """Counts over many photos."""

    boxes: int = 0
    right: int = 0
    wrong: int = 0
    outlined: int = 0  # boxes covered by some outline, named or not
    wrongs: list[tuple[str, str, str]] = field(default_factory=list)  # (photo, said, was)
    by_code: dict[str, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0]))

    @property
    def precision(self) -> float:
        said = self.right + self.wrong
        return self.right / said if said else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.boxes if self.boxes else 0.0

    def add(self, photo: Photo, cards: list[tuple[str | None, np.ndarray]]) -> None:
        """Score one photo: `cards` are (code or None, corners in photo pixels)."""
        self.boxes += len(photo.boxes)
        named: set[str] = set()
        for b in photo.boxes:
            self.by_code[b.code][1] += 1
            if any(_cover(q, b.box) >= 0.5 for _, q in cards):
                self.outlined += 1
        for code, quad in cards:
            if code is None:
                continue
            truth = next((b for b in photo.boxes if b.code == code), None)
            if truth is not None and code not in named and _cover(quad, truth.box) >= 0.3:
                named.add(code)
                self.right += 1
                self.by_code[code][0] += 1
            else:
                self.wrong += 1
                near = max(photo.boxes, key=lambda b: _cover(quad, b.box), default=None)
                was = near.code if near is not None and _cover(quad, near.box) > 0 else "nothing"
                self.wrongs.append((photo.file, code, was))
