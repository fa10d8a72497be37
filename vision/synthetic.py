"""The synthetic table: a camera that photographs a printed mat with cards on it, without
a camera. It renders what a Raspberry Pi camera above a card table would see: the mat
in perspective, cards at given places (overlapping as they lie), hands passing over, and
the flaws of a real picture (lens blur, sensor noise, uneven light and a soft shadow,
JPEG artefacts). Every frame comes with its ground truth: where each card's corners are
in the picture and how much of it can be seen.

It stands alone: give it a `Scene` (a mat, a deck, card placements, maybe a hand) and a
time, get a picture and its truth. The `synthetic:GAME` frame source scripts scenes with
it; the demo builds scenes from real game logs; the vision benchmark scores recognition
against the truth, one degradation at a time.

Speed matters (the benchmark renders hundreds of frames): the mat and the cards are drawn
once per camera, cards are composed on the mat only when the placements change, and each
frame costs one perspective warp plus the image flaws.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import cv2
import numpy as np

from companion.cards import get_deck
from companion.errors import BadOption, UnknownCard
from vision.art import card_mask, deck_art, render_back, render_card
from vision.art.mat import render_mat
from vision.calibration import Calibration
from vision.mats import MatSpec, point_zone

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]


# --- what is on the table ---------------------------------------------------------------

@dataclass(frozen=True)
class Placement:
    """A card on the mat: its code, its centre in mat mm, its turn clockwise as seen from
    above (0: upright for the player at the bottom edge, 180: upside down), face up or down."""

    code: str
    center_mm: Point
    angle_deg: float = 0.0
    face_up: bool = True


@dataclass(frozen=True)
class HandPass:
    """A hand reaching in from `entry_mm` (off the mat, where its player sits) to
    `target_mm` and back, from `start_t` for `duration_s` seconds. `skin` is BGR."""

    start_t: float
    duration_s: float
    entry_mm: Point
    target_mm: Point
    skin: tuple[int, int, int] = (128, 160, 206)

    def reach(self, t: float) -> float | None:
        """How far in the hand is at time t (0: at its entry, 1: at the target), or None
        when it is not moving over the table."""
        u = (t - self.start_t) / self.duration_s if self.duration_s > 0 else -1.0
        if not 0.0 <= u <= 1.0:
            return None
        return math.sin(math.pi * u)

    def position(self, t: float) -> Point | None:
        """The centre of the palm at time t in mat mm, or None."""
        r = self.reach(t)
        if r is None:
            return None
        (ex, ey), (tx, ty) = self.entry_mm, self.target_mm
        return ex + (tx - ex) * r, ey + (ty - ey) * r

    @classmethod
    def from_seat(cls, mat: MatSpec, seat: int | None, target_mm: Point, start_t: float,
                  duration_s: float = 0.8) -> HandPass:
        """A hand of the player at `seat` (None: from the nearest edge) reaching `target_mm`."""
        w, h = mat.size_mm
        tx, ty = target_mm
        facing = None
        if seat is not None:
            zones = mat.seat_zones(seat)
            if not zones:
                raise BadOption(f"the {mat.title} mat has no seat {seat}")
            facing = zones[0].facing_deg % 360
        if facing is None:
            gaps = {0.0: h - ty, 90.0: tx, 180.0: ty, 270.0: w - tx}
            facing = min(gaps, key=gaps.__getitem__)
        reach = 0.35 * max(w, h)
        entries = {0.0: (tx, h + reach), 90.0: (-reach, ty), 180.0: (tx, -reach), 270.0: (w + reach, ty)}
        entry = entries[facing]
        return cls(start_t, duration_s, entry, target_mm)


@dataclass(frozen=True)
class Scene:
    """Everything on the table at one moment; later placements lie on top of earlier ones."""

    mat: MatSpec
    deck: str
    placements: tuple[Placement, ...] = ()
    hand: HandPass | None = None


@dataclass(frozen=True)
class TruthCard:
    """Where a card is in the picture. `corners_px` go clockwise from the card's own
    top-left corner, in pixels with (0, 0) at the centre of the top-left pixel (OpenCV's
    convention). `visible_fraction` is the share of the card not hidden by cards on top of
    it, by a hand or by the edge of the picture."""

    code: str
    corners_px: Quad
    visible_fraction: float
    face_up: bool = True
    center_mm: Point = (0.0, 0.0)
    angle_deg: float = 0.0
    zone: str | None = None


@dataclass(frozen=True)
class SceneTruth:
    """The ground truth of a frame: every card (bottom to top), the mat's corners in the
    picture (clockwise from its top-left), whether a hand is over the mat, and the
    homography from mat mm to picture pixels (3 x 3, row by row)."""

    cards: tuple[TruthCard, ...]
    mat_corners_px: Quad
    occluded: bool
    mat_to_frame: tuple[tuple[float, float, float], ...] = ()


# --- the flaws of a real picture ---------------------------------------------------------

@dataclass(frozen=True)
class Degradations:
    """How far a picture is from perfect: each knob is 0 (off) to 1 (strongest).

    Camera knobs, applied to every frame: `perspective` (1: the camera tilted about 22
    degrees off straight down and turned up to 8), `blur` (1: Gaussian sigma 2 px),
    `noise` (1: sensor noise sigma 10 grey levels), `light` (1: light falling off by half
    across the table), `shadow` (1: a soft shadow 45% dark), `jpeg` (1: JPEG quality 30).
    Scene knobs, used by scripted scenes: `rotation` (1: cards turned up to 10 degrees
    off square), `overlap` (1: neighbouring cards overlapping by 40% of a card), `hands`
    (1: a hand with every card played and some passing by; 0: no hands).
    """

    perspective: float = 0.0
    blur: float = 0.0
    noise: float = 0.0
    light: float = 0.0
    shadow: float = 0.0
    jpeg: float = 0.0
    rotation: float = 0.0
    overlap: float = 0.0
    hands: float = 0.0
    # the room (issue 16): each named in ROOM_CONDITIONS, measured on its own
    warm: float = 0.0
    cool: float = 0.0
    printer: float = 0.0
    glare: float = 0.0
    shade: float = 0.0
    defocus: float = 0.0
    lens: str = "pinhole"
    table: str = "wood"
    paper: str = "cream"

    KNOBS: ClassVar[tuple[str, ...]] = ("perspective", "blur", "noise", "light", "shadow", "jpeg",
                                        "rotation", "overlap", "hands")
    CAMERA_KNOBS: ClassVar[tuple[str, ...]] = ("perspective", "blur", "noise", "light", "shadow", "jpeg")
    SCENE_KNOBS: ClassVar[tuple[str, ...]] = ("rotation", "overlap", "hands")
    #: The room's knobs, 0 (off) to 1: `warm` / `cool` (white balance off: 1 is an
    #: uncorrected tungsten lamp, about 2700 K, or shade light, about 8000 K), `printer`
    #: (home-printed cards and mat: less saturation, a darker gamma, paper of `paper` tone),
    #: `glare` (the lamp's reflection on glossy cards: up to three soft spots that clip to
    #: white), `shade` (soft moving shadows of heads and arms, up to 40 % dark), `defocus`
    #: (1: a lens out of focus by a 3 px disc).
    ROOM_KNOBS: ClassVar[tuple[str, ...]] = ("warm", "cool", "printer", "glare", "shade", "defocus")
    #: The room's choices: the lens (LENSES), the table around the mat (TABLES), the paper.
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {
        "lens": ("pinhole", "standard", "wide"),
        "table": ("wood", "light-oak", "white", "grey", "walnut", "cloth"),
        "paper": ("cream", "grey"),
    }

    def __post_init__(self) -> None:
        for name in self.KNOBS + self.ROOM_KNOBS:
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise BadOption(f"degradation {name} must be 0 (off) to 1 (strongest), got {value!r}")
        for name, allowed in self.CHOICES.items():
            if getattr(self, name) not in allowed:
                raise BadOption(f"degradation {name} must be one of {', '.join(allowed)}, "
                                f"got {getattr(self, name)!r}")

    @classmethod
    def preset(cls, name: str) -> Degradations:
        """One of PRESETS (clean, typical, hard, room) or of ROOM_CONDITIONS (lens-wide,
        table-light-oak, warm, ...)."""
        key = name.strip().lower()
        if key in PRESETS:
            return PRESETS[key]
        if key in ROOM_CONDITIONS:
            return ROOM_CONDITIONS[key]
        raise BadOption(f"unknown degradation preset {name!r}: the presets are {', '.join(PRESETS)}, "
                        f"and the room's conditions {', '.join(ROOM_CONDITIONS)}")

    @classmethod
    def parse(cls, text: str) -> Degradations:
        """A preset, knobs, or both: "typical", "blur=0.5,noise=0.2", "clean,hands=1"."""
        result = cls()
        for part in (p.strip() for p in text.split(",")):
            if not part:
                continue
            if "=" not in part:
                result = cls.preset(part)
                continue
            name, _, value = part.partition("=")
            name = name.strip()
            if name in cls.CHOICES:
                result = result.with_(**{name: value.strip().lower()})
            else:
                result = result.with_(**{name: _number(name, value)})
        return result

    def with_(self, **knobs: float | str) -> Degradations:
        """A copy with some knobs (or choices) changed."""
        for name in knobs:
            if name not in self.KNOBS + self.ROOM_KNOBS and name not in self.CHOICES:
                raise BadOption(f"unknown degradation {name!r}: the degradations are "
                                f"{', '.join(self.KNOBS + self.ROOM_KNOBS + tuple(self.CHOICES))}")
        return dataclasses.replace(self, **knobs)

    def only(self, knob: str) -> Degradations:
        """Just this knob, at this strength, everything else off: to measure one flaw."""
        if knob not in self.KNOBS + self.ROOM_KNOBS and knob not in self.CHOICES:
            raise BadOption(f"unknown degradation {knob!r}: the degradations are "
                            f"{', '.join(self.KNOBS + self.ROOM_KNOBS + tuple(self.CHOICES))}")
        return Degradations(**{knob: getattr(self, knob)})

    @property
    def enabled(self) -> tuple[str, ...]:
        """The knobs turned on, and the choices away from their plain default."""
        on = tuple(k for k in self.KNOBS + self.ROOM_KNOBS if getattr(self, k) > 0)
        plain = Degradations()
        return on + tuple(k for k in ("lens", "table") if getattr(self, k) != getattr(plain, k))


def _number(name: str, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise BadOption(f"degradation {name} must be a number from 0 to 1, got {text!r}") from None


PRESETS: dict[str, Degradations] = {
    "clean": Degradations(),
    "typical": Degradations(perspective=0.5, blur=0.35, noise=0.35, light=0.5, shadow=0.4, jpeg=0.4,
                            rotation=0.5, overlap=0.3, hands=0.5),
    "hard": Degradations(perspective=1.0, blur=1.0, noise=1.0, light=1.0, shadow=1.0, jpeg=1.0,
                         rotation=1.0, overlap=1.0, hands=1.0),
    # a real room at its plainest trouble: the typical camera, the standard lens over a
    # light oak kitchen table, a warm lamp, home-printed cards with some glare, people
    # leaning over the table, a lens a little out of focus
    "room": Degradations(perspective=0.5, blur=0.2, noise=0.35, light=0.5, shadow=0.3, jpeg=0.4,
                         rotation=0.5, overlap=0.3, hands=0.5, warm=0.5, printer=0.5, glare=0.5,
                         shade=0.5, defocus=0.3, lens="standard", table="light-oak"),
}

#: Each condition of the room on its own, at full strength (the vision benchmark reports
#: every one apart; docs/vision.md says what each is).
ROOM_CONDITIONS: dict[str, Degradations] = {
    "lens-standard": Degradations(lens="standard"),
    "lens-wide": Degradations(lens="wide"),
    **{f"table-{name}": Degradations(table=name)
       for name in ("light-oak", "white", "grey", "walnut", "cloth")},
    "warm": Degradations(warm=1.0),
    "cool": Degradations(cool=1.0),
    "printer-cream": Degradations(printer=1.0, paper="cream"),
    "printer-grey": Degradations(printer=1.0, paper="grey"),
    "glare": Degradations(glare=1.0),
    "shade": Degradations(shade=1.0),
    "defocus": Degradations(defocus=1.0),
}


# --- the camera --------------------------------------------------------------------------

TABLE_BGR = (52, 84, 122)  # a wooden table around the mat


@dataclass(frozen=True)
class Lens:
    """A camera lens: horizontal field of view of the picture, radial distortion
    (OpenCV's k1, k2 on normalised coordinates: negative k1 is barrel distortion), and
    how much of the picture's width or height the mat fills seen through it."""

    hfov_deg: float
    k1: float
    k2: float
    fill: float

    def matrix(self, size: tuple[int, int]) -> np.ndarray:
        """The camera matrix for a picture of `size`: the focal length puts the edge of
        the picture at half the field of view once the distortion is undone."""
        w, h = size
        r = math.tan(math.radians(self.hfov_deg / 2))
        f = (w / 2) / (r * (1 + self.k1 * r * r + self.k2 * r ** 4))
        return np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1]], np.float64)

    @property
    def distortion(self) -> np.ndarray:
        return np.array([self.k1, self.k2, 0.0, 0.0, 0.0])


#: Raspberry Pi Camera Module 3 lenses (the 16:9 video modes see the sensor's full width):
#: the standard one sees 66 degrees across with little barrel distortion; the wide one 102
#: degrees (120 diagonally) with strong barrel distortion: 100 px at the edge of a
#: 1280x720 picture, the mat framed smaller from the same height. No lens ("pinhole"):
#: the ideal camera the synthetic table always had.
LENSES: dict[str, Lens | None] = {
    "pinhole": None,
    "standard": Lens(66.0, -0.05, 0.02, 0.88),
    "wide": Lens(102.0, -0.13, 0.025, 0.58),
}

#: Tables around the mat, BGR, and how strong their grain is.
TABLES: dict[str, tuple[tuple[int, int, int], float]] = {
    "wood": (TABLE_BGR, 0.08),
    "light-oak": ((128, 176, 214), 0.07),
    "white": ((226, 229, 231), 0.015),
    "grey": ((146, 148, 150), 0.03),
    "walnut": ((36, 52, 78), 0.10),
    "cloth": ((60, 60, 180), 0.0),  # red and white checked cloth (drawn by _table)
}
#: Paper tones of home printing (BGR multipliers of white).
PAPERS: dict[str, tuple[float, float, float]] = {"cream": (0.80, 0.93, 0.97), "grey": (0.84, 0.85, 0.86)}
#: White balance gains per channel (BGR) at full strength.
WARM_GAIN = (0.62, 0.86, 1.08)
COOL_GAIN = (1.12, 0.97, 0.76)
#: Set-up images are worked out this many rows at a time, so the camera's float
#: temporaries stay a few MB (the kiosk runs it within a memory budget).
BAND_ROWS = 64


class SyntheticCamera:
    """A fixed camera above one mat, photographing scenes with one deck's cards.

    The pose (tilt, turn, framing), the light and the shadow are drawn from `seed` once;
    the noise of each frame from `seed` and the frame's time, so a frame depends only on
    (seed, scene, t) and rendering is reproducible in any order.
    """

    def __init__(self, mat: MatSpec, deck: str, seed: int = 0, size: tuple[int, int] = (1280, 720),
                 degrade: Degradations | str = "typical", bare: bool = False) -> None:
        self.mat = mat
        #: The cards lie on the bare table, no mat printed under them (the mat's size and
        #: place only say where the scene's cards are): what `companion recognize` sees
        #: without a mat.
        self.bare = bare
        self.deck = deck_art(deck).deck
        self._deck = get_deck(self.deck)
        self.seed = int(seed)
        self.size = _check_size(size)
        self.degrade = Degradations.parse(degrade) if isinstance(degrade, str) else degrade
        rng = np.random.default_rng([self.seed, 1])
        room = np.random.default_rng([self.seed, 3])  # the room's draws leave the others as they were
        self.lens = LENSES[self.degrade.lens]
        #: mat mm -> pixels of the ideal (undistorted) picture; with no lens, the picture's own
        self.homography = _pose(mat.size_mm, self.size, self.degrade.perspective, rng,
                                self.lens.fill if self.lens else 0.92)
        self.camera_matrix = self.lens.matrix(self.size) if self.lens else None
        self.px_per_mm = _mat_scale(self.homography, mat.size_mm)
        self._mat_image = self._printed(render_mat(mat, self.px_per_mm))
        self._card_size = deck_art(self.deck).size_mm
        mm_from_px = np.array([[1 / self.px_per_mm, 0, 0.5 / self.px_per_mm],
                               [0, 1 / self.px_per_mm, 0.5 / self.px_per_mm], [0, 0, 1]])
        self._mat_px_to_frame = self.homography @ mm_from_px
        # the warp is the same every frame: its pixel maps are worked out once, in the
        # fixed-point form OpenCV remaps fastest
        self._map1, self._map2 = _remap_maps(np.linalg.inv(self._mat_px_to_frame), self.size,
                                             self._undistort if self.lens else None)
        self._background = _table(self.size, rng, self.degrade.table)
        self._gain = _lighting(self.size, self.degrade, rng)
        self._noise = _noise_fields(self.size, self.degrade.noise, rng)
        self._heads = _heads(self.degrade.shade, mat.size_mm, room)
        self._composed_key: tuple[Placement, ...] | None = None
        self._composed: np.ndarray | None = None
        self._composed_cards: np.ndarray | None = None
        self._glare = _glare(self.size, self.degrade.glare, room, self.mat_to_frame, mat.size_mm,
                             _mat_scale(self.homography, mat.size_mm) / 1.25)
        w, h = mat.size_mm
        self._mat_corners = self.mat_to_frame([(0.0, 0.0), (w, 0.0), (w, h), (0.0, h)])
        inv = np.linalg.inv(self.homography)
        fw, fh = self.size
        frame_corners = np.array([(-0.5, -0.5), (fw - 0.5, -0.5), (fw - 0.5, fh - 0.5), (-0.5, fh - 0.5)])
        if self.lens:
            frame_corners = self._undistort(frame_corners)
        self._frame_in_mm = _project(inv, frame_corners)

    # --- public ---

    def render(self, scene: Scene, t: float = 0.0) -> tuple[np.ndarray, SceneTruth]:
        """The picture of `scene` at time `t` (seconds) and its ground truth."""
        if scene.mat != self.mat:
            raise BadOption(f"this camera looks at the {self.mat.title} mat, the scene is on the "
                            f"{scene.mat.title} mat")
        for p in scene.placements:
            if p.code not in self._deck:
                self._deck.parse(p.code)  # names the closest cards
                raise UnknownCard(f"{p.code!r} is a card name, not a code, in the {self._deck.title} deck")
        top_down = self._compose(scene.placements)
        frame = self._background.copy()
        cards = None  # where the cards lie in the frame (0-255), when glare or a bare table asks
        if self._composed_cards is not None:
            cards = cv2.remap(self._composed_cards, self._map1, self._map2, cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT)
        if self.bare:  # only the cards, over the table
            if cards is not None and cards.any():
                drawn = cv2.remap(top_down, self._map1, self._map2, cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT)
                alpha3 = cv2.merge([cards, cards, cards])
                frame = cv2.add(cv2.multiply(drawn, alpha3, scale=1 / 255),
                                cv2.multiply(frame, cv2.bitwise_not(alpha3), scale=1 / 255))
        else:
            cv2.remap(top_down, self._map1, self._map2, cv2.INTER_LINEAR, dst=frame,
                      borderMode=cv2.BORDER_TRANSPARENT)
        if self._glare is not None and cards is not None:
            shine = cv2.multiply(self._glare, cards, scale=1 / 255)
            frame = cv2.add(frame, cv2.merge([shine, shine, shine]))
        if self._heads:
            self._draw_shade(frame, t)
        hand = _hand_shapes(scene.hand, t) if scene.hand else None
        if hand:
            self._draw_hand(frame, hand, scene.hand.skin)  # type: ignore[union-attr]
        frame = self._flaws(frame, t)
        return frame, self._truth(scene, hand)

    def mat_to_frame(self, points_mm: list[Point] | np.ndarray) -> list[Point]:
        """Mat millimetres to picture pixels (through the lens, if there is one)."""
        ideal = _project(self.homography, points_mm)
        return self._distort(np.array(ideal)) if self.lens and ideal else ideal

    def calibration(self) -> Calibration | None:
        """What a perfect `companion camera calibrate` would store for this camera's lens
        (None without a lens): frame sources straighten frames with it."""
        if self.lens is None or self.camera_matrix is None:
            return None
        return Calibration(f"synthetic-{self.degrade.lens}", self.size, self.camera_matrix.copy(),
                           self.lens.distortion, 0.0, 0, 1.0)

    # --- the lens ---

    def _distort(self, ideal_px: np.ndarray) -> list[Point]:
        """Pixels of the ideal picture to pixels of the picture through the lens."""
        assert self.lens is not None and self.camera_matrix is not None
        k = self.camera_matrix
        f, cx, cy = k[0, 0], k[0, 2], k[1, 2]
        x = (ideal_px[:, 0] - cx) / f
        y = (ideal_px[:, 1] - cy) / f
        r2 = x * x + y * y
        g = 1 + self.lens.k1 * r2 + self.lens.k2 * r2 * r2
        return [(float(a), float(b)) for a, b in zip(x * g * f + cx, y * g * f + cy, strict=True)]

    def _undistort(self, frame_px: np.ndarray) -> np.ndarray:
        """Pixels of the picture through the lens to pixels of the ideal picture."""
        assert self.lens is not None and self.camera_matrix is not None
        k = self.camera_matrix
        f, cx, cy = k[0, 0], k[0, 2], k[1, 2]
        pts = np.asarray(frame_px, np.float64).reshape(-1, 2)
        xd, yd = (pts[:, 0] - cx) / f, (pts[:, 1] - cy) / f
        x, y = xd.copy(), yd.copy()
        for _ in range(30):  # fixed point of x = xd / g(r(x)): converges fast for these lenses
            r2 = x * x + y * y
            g = 1 + self.lens.k1 * r2 + self.lens.k2 * r2 * r2
            x, y = xd / g, yd / g
        return np.stack([x * f + cx, y * f + cy], axis=1)

    # --- home printing ---

    def _printed(self, image: np.ndarray) -> np.ndarray:
        """Art as a home printer puts it on paper: less saturated, darker in the middle
        tones, the white of the paper's own tone."""
        d = self.degrade.printer
        if d <= 0:
            return image
        img = image.astype(np.float32) / 255.0
        grey = img.mean(axis=2, keepdims=True)
        img = grey + (1 - 0.35 * d) * (img - grey)
        img = np.power(np.clip(img, 0, 1), 1 + 0.3 * d)
        tone = 1 - d * (1 - np.array(PAPERS[self.degrade.paper], np.float32))
        out = np.clip(img * tone * 255 + 0.5, 0, 255).astype(np.uint8)
        out.flags.writeable = False
        return out

    # --- the room's shadows ---

    def _draw_shade(self, frame: np.ndarray, t: float) -> None:
        """Soft shadows of the players' heads and arms, swaying slowly."""
        fw, fh = self.size
        q = 8
        small = np.zeros((fh // q + 1, fw // q + 1), np.uint8)
        for (cx, cy, rx, ry, angle, phase) in self._heads:
            sway = 25.0 * math.sin(0.7 * t + phase)
            pts = [(cx + sway + rx * math.cos(a) * math.cos(angle) - ry * math.sin(a) * math.sin(angle),
                    cy + rx * math.cos(a) * math.sin(angle) + ry * math.sin(a) * math.cos(angle))
                   for a in np.linspace(0, 2 * math.pi, 20, endpoint=False)]
            poly = np.array(self.mat_to_frame(pts)) / q
            cv2.fillPoly(small, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        small = cv2.GaussianBlur(small, (0, 0), 60.0 / q)
        shade = cv2.resize(small, (fw, fh), interpolation=cv2.INTER_LINEAR)
        dark = 255 - (shade.astype(np.float32) * 0.4 * self.degrade.shade).astype(np.uint8)
        cv2.multiply(frame, cv2.merge([dark, dark, dark]), dst=frame, scale=1 / 255)

    # --- composing the mat ---

    def _compose(self, placements: tuple[Placement, ...]) -> np.ndarray:
        if placements == self._composed_key and self._composed is not None:
            return self._composed
        canvas = self._mat_image.copy()
        cards = np.zeros(canvas.shape[:2], np.uint8) if self._glare is not None or self.bare else None
        for p in placements:
            self._paste(canvas, p, cards)
        self._composed_key, self._composed, self._composed_cards = placements, canvas, cards
        return canvas

    def _paste(self, canvas: np.ndarray, p: Placement, cards: np.ndarray | None = None) -> None:
        s = self.px_per_mm
        image = render_card(self.deck, p.code, s) if p.face_up else render_back(self.deck, s)
        image = self._printed(image)
        mask = card_mask(self.deck, s)
        ih, iw = mask.shape
        cw, ch = self._card_size
        sx, sy = cw / iw, ch / ih  # mm per card pixel
        th = math.radians(p.angle_deg)
        c, si = math.cos(th), math.sin(th)
        cx, cy = p.center_mm
        # card pixel (u, v) -> card mm about its centre -> turned -> mat mm -> mat pixel
        a = np.array([[c * sx * s, -si * sy * s, 0.0], [si * sx * s, c * sy * s, 0.0]])
        lx, ly = 0.5 * sx - cw / 2, 0.5 * sy - ch / 2
        a[0, 2] = (cx + lx * c - ly * si) * s - 0.5
        a[1, 2] = (cy + lx * si + ly * c) * s - 0.5
        corners = np.array([[0, 0, 1], [iw, 0, 1], [iw, ih, 1], [0, ih, 1]], float) @ a.T
        x0 = max(0, math.floor(corners[:, 0].min()) - 1)
        y0 = max(0, math.floor(corners[:, 1].min()) - 1)
        x1 = min(canvas.shape[1], math.ceil(corners[:, 0].max()) + 2)
        y1 = min(canvas.shape[0], math.ceil(corners[:, 1].max()) + 2)
        if x1 <= x0 or y1 <= y0:
            return
        a[:, 2] -= (x0, y0)
        size = (x1 - x0, y1 - y0)
        face = cv2.warpAffine(image, a, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        alpha = cv2.warpAffine(mask, a, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        alpha3 = cv2.merge([alpha, alpha, alpha])
        roi = canvas[y0:y1, x0:x1]
        roi[:] = cv2.add(cv2.multiply(face, alpha3, scale=1 / 255),
                         cv2.multiply(roi, cv2.bitwise_not(alpha3), scale=1 / 255))
        if cards is not None:
            sub = cards[y0:y1, x0:x1]
            sub[:] = cv2.max(sub, alpha)

    # --- hands ---

    def _draw_hand(self, frame: np.ndarray, shapes: list[np.ndarray], skin: tuple[int, int, int]) -> None:
        fw, fh = self.size
        # the shadow: the same shapes, offset away from the light, soft, on the table
        q = 4
        small = np.zeros((fh // q + 1, fw // q + 1), np.uint8)
        for shape in shapes:
            pts = np.array(self.mat_to_frame([(x + 18.0, y + 24.0) for x, y in shape])) / q
            cv2.fillPoly(small, [np.round(pts * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
        small = cv2.GaussianBlur(small, (0, 0), 14.0 / q * 2)
        shade = cv2.resize(small, (fw, fh), interpolation=cv2.INTER_LINEAR)
        dark = cv2.merge([255 - (shade * 0.45).astype(np.uint8)] * 3)
        cv2.multiply(frame, dark, dst=frame, scale=1 / 255)
        outline = tuple(int(v * 0.7) for v in skin)
        for shape in shapes:
            pts = np.array(self.mat_to_frame([tuple(p) for p in shape]))
            pts = np.round(pts * 16).astype(np.int32)
            cv2.fillPoly(frame, [pts], skin, cv2.LINE_AA, shift=4)
            cv2.polylines(frame, [pts], True, outline, 2, cv2.LINE_AA, shift=4)

    # --- flaws ---

    def _flaws(self, frame: np.ndarray, t: float) -> np.ndarray:
        d = self.degrade
        if self._gain is not None:
            cv2.multiply(frame, self._gain, dst=frame, scale=1 / 200)
        if d.warm > 0 or d.cool > 0:
            gain = [1 + d.warm * (w - 1) + d.cool * (c - 1)
                    for w, c in zip(WARM_GAIN, COOL_GAIN, strict=True)]
            frame = cv2.transform(frame, np.diag(gain).astype(np.float32))
        if d.defocus > 0:
            r = 0.5 + 2.5 * d.defocus
            n = 2 * math.ceil(r) + 1
            ys, xs = np.mgrid[0:n, 0:n] - n // 2
            disc = np.clip(r + 0.5 - np.hypot(xs, ys), 0, 1).astype(np.float32)  # centred, anti-aliased
            frame = cv2.filter2D(frame, -1, disc / disc.sum())
        if d.blur > 0:
            frame = cv2.GaussianBlur(frame, (0, 0), 0.4 + 1.6 * d.blur)
        if self._noise is not None:
            rng = np.random.default_rng([self.seed, 2, round(t * 1000)])
            field = self._noise[int(rng.integers(len(self._noise)))]
            fh, fw = frame.shape[:2]
            dy, dx = int(rng.integers(field.shape[0] - fh + 1)), int(rng.integers(field.shape[1] - fw + 1))
            frame = cv2.add(frame, field[dy:dy + fh, dx:dx + fw], dtype=cv2.CV_8U)
        if d.jpeg > 0:
            _, data = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, round(95 - 65 * d.jpeg)])
            frame = cv2.imdecode(data, cv2.IMREAD_COLOR)
        return frame

    # --- truth ---

    def _truth(self, scene: Scene, hand: list[np.ndarray] | None) -> SceneTruth:
        quads = [_card_quad(p, self._card_size) for p in scene.placements]
        cards = []
        for i, (p, quad) in enumerate(zip(scene.placements, quads, strict=True)):
            covers = quads[i + 1:] + (hand or [])
            visible = _visible_fraction(quad, covers, self._frame_in_mm)
            zone = point_zone(self.mat, *p.center_mm)
            cards.append(TruthCard(p.code, tuple(self.mat_to_frame(quad)), visible, p.face_up,
                                   p.center_mm, p.angle_deg, zone.name if zone else None))
        occluded = bool(hand) and any(_overlaps_mat(shape, self.mat.size_mm) for shape in hand or [])
        return SceneTruth(tuple(cards), tuple(self._mat_corners), occluded,  # type: ignore[arg-type]
                          tuple(tuple(float(v) for v in row) for row in self.homography))


# --- geometry helpers --------------------------------------------------------------------

def _check_size(size: tuple[int, int]) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise BadOption(f"frame size must be (width, height) in pixels, got {size!r}") from None
    if not (16 <= w <= 8192 and 16 <= h <= 8192):
        raise BadOption(f"frame size must be 16 to 8192 pixels a side, got {w}x{h}")
    return w, h


def _project(h: np.ndarray, points: list[Point] | np.ndarray) -> list[Point]:
    pts = np.asarray(points, np.float64).reshape(-1, 1, 2)
    out = cv2.perspectiveTransform(pts, h).reshape(-1, 2)
    return [(float(x), float(y)) for x, y in out]


def _pose(mat_size: tuple[float, float], frame: tuple[int, int], perspective: float,
          rng: np.random.Generator, fill: float = 0.92) -> np.ndarray:
    """The homography from mat mm to frame pixels of a pinhole camera above the mat,
    tilted and turned by `perspective`, with the mat framed to fill most of the picture."""
    w, h = mat_size
    fw, fh = frame
    corners = np.array([[-w / 2, -h / 2, 0], [w / 2, -h / 2, 0], [w / 2, h / 2, 0], [-w / 2, h / 2, 0]])
    tilt = math.radians(22.0 * perspective * rng.uniform(0.6, 1.0))
    axis = rng.uniform(0, 2 * math.pi)
    roll = math.radians(8.0 * perspective * rng.uniform(-1.0, 1.0))
    ax, ay = math.cos(axis), math.sin(axis)
    rot, _ = cv2.Rodrigues(np.array([ax * tilt, ay * tilt, 0.0]))
    rz, _ = cv2.Rodrigues(np.array([0.0, 0.0, roll]))
    distance = 1.3 * max(w, h)
    cam = corners @ (rz @ rot).T + np.array([0, 0, distance])
    proj = cam[:, :2] / cam[:, 2:3]
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    fill = fill - 0.1 * perspective * rng.uniform(0, 1)
    scale = fill * min(fw / (hi[0] - lo[0]), fh / (hi[1] - lo[1]))
    slack = np.array([fw, fh]) - scale * (hi - lo)
    offset = slack / 2 + perspective * rng.uniform(-0.4, 0.4, 2) * slack
    dst = (proj - lo) * scale + offset - 0.5
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
    return cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)).astype(np.float64)


def _mat_scale(h: np.ndarray, mat_size: tuple[float, float]) -> float:
    """A resolution for drawing the mat top-down: a little finer than the camera sees its
    nearest part, so the warp never magnifies."""
    w, hh = mat_size
    pts = np.array(_project(h, [(0, 0), (w, 0), (w, hh), (0, hh)]))
    edges = [np.linalg.norm(pts[i] - pts[(i + 1) % 4]) / (w if i % 2 == 0 else hh) for i in range(4)]
    return float(np.clip(round(max(edges) * 1.25, 2), 1.0, 6.0))


def _bands(rows: int) -> list[tuple[int, int]]:
    """Row ranges of at most BAND_ROWS rows covering `rows`."""
    return [(y0, min(rows, y0 + BAND_ROWS)) for y0 in range(0, rows, BAND_ROWS)]


def _remap_maps(frame_to_source: np.ndarray, size: tuple[int, int],
                undistort: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """cv2.remap's fixed-point maps (CV_16SC2 and its fractions) of a perspective warp
    (after undoing the lens, if `undistort` is given), worked out a band of rows at a
    time: the float maps of a whole frame would take 7 MB each at once (15 MB for
    1280x720) only to be thrown away."""
    fw, fh = size
    map1 = np.empty((fh, fw, 2), np.int16)
    map2 = np.empty((fh, fw), np.uint16)
    xs = np.arange(fw, dtype=np.float32)
    for y0, y1 in _bands(fh):
        grid = np.stack(np.meshgrid(xs, np.arange(y0, y1, dtype=np.float32)), -1).reshape(-1, 1, 2)
        if undistort is not None:
            grid = undistort(grid).astype(np.float32).reshape(-1, 1, 2)
        source = cv2.perspectiveTransform(grid, frame_to_source).reshape(y1 - y0, fw, 2)
        map1[y0:y1], map2[y0:y1] = cv2.convertMaps(source[..., 0], source[..., 1], cv2.CV_16SC2)
    return map1, map2


def _table(size: tuple[int, int], rng: np.random.Generator, kind: str = "wood") -> np.ndarray:
    """The table around the mat (TABLES): wood grain along the picture, or a checked cloth."""
    w, h = size
    grain = cv2.resize(rng.normal(0, 1, (max(2, h // 40), max(2, w // 4))).astype(np.float32), (w, h),
                       interpolation=cv2.INTER_CUBIC)
    colour, strength = TABLES[kind]
    base = np.array(colour, np.float32)
    image = np.empty((h, w, 3), np.uint8)
    for y0, y1 in _bands(h):  # by bands: no whole-frame float images
        image[y0:y1] = np.clip(base[None, None, :] * (1 + strength * grain[y0:y1, :, None]), 0, 255)
    if kind == "cloth":  # gingham: red where both stripes cross, pink where one does, white else
        check = max(4, w // 48)
        ys, xs = np.mgrid[0:h, 0:w]
        stripes = ((xs // check) % 2).astype(np.uint8) + ((ys // check) % 2).astype(np.uint8)
        palette = np.array([(236, 238, 240), (150, 150, 222), (60, 60, 180)], np.uint8)
        image = palette[stripes]
    return image


def _glare(size: tuple[int, int], strength: float, rng: np.random.Generator,
           to_frame: Callable[[list[Point]], list[Point]], mat_size: tuple[float, float],
           px_per_mm: float) -> np.ndarray | None:
    """Where the lamp shines back off glossy cards (uint8, added to the cards' pixels):
    five soft spots 15 to 35 mm across, fixed with the camera and the lamps, the first
    near the mat's middle (a lamp above the table, seen by a camera beside it)."""
    if strength <= 0:
        return None
    w, h = size
    q = 4
    small = np.zeros((h // q + 1, w // q + 1), np.float32)
    ys, xs = np.mgrid[0:small.shape[0], 0:small.shape[1]].astype(np.float32)
    mw, mh = mat_size
    for k in range(5):
        u, v = (rng.uniform(0.4, 0.6, 2) if k == 0 else rng.uniform(0.1, 0.9, 2))
        (cx, cy), = to_frame([(u * mw, v * mh)])
        rx, ry = rng.uniform(15.0, 35.0, 2) * px_per_mm / q
        cx, cy = cx / q, cy / q
        small += np.exp(-(((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2) ** 1.5)
    spots = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    return np.clip(spots * 220 * strength, 0, 255).astype(np.uint8)


def _heads(strength: float, mat_size: tuple[float, float], rng: np.random.Generator
           ) -> list[tuple[float, float, float, float, float, float]]:
    """Shadows of two heads and an arm near the mat's edges: (x, y, radius x, radius y,
    turn, phase of sway) in mat mm."""
    if strength <= 0:
        return []
    w, h = mat_size
    out = []
    for rx, ry in ((110.0, 90.0), (100.0, 85.0), (260.0, 45.0)):
        edge = int(rng.integers(4))
        u = rng.uniform(0.2, 0.8)
        x, y = [(u * w, 0.0), (w, u * h), (u * w, h), (0.0, u * h)][edge]
        angle = (0.0, math.pi / 2, 0.0, math.pi / 2)[edge] + rng.uniform(-0.4, 0.4)
        out.append((x, y, rx, ry, angle, float(rng.uniform(0, 2 * math.pi))))
    return out


def _lighting(size: tuple[int, int], d: Degradations, rng: np.random.Generator) -> np.ndarray | None:
    """A gain image (200 = unchanged) for uneven light and a soft static shadow."""
    if d.light <= 0 and d.shadow <= 0:
        return None
    w, h = size
    angle = rng.uniform(0, 2 * math.pi)
    if d.shadow > 0:
        cx, cy = rng.uniform(-0.3, 0.3, 2)
        rx, ry = rng.uniform(0.15, 0.3, 2)
    g = np.empty((h, w), np.uint8)
    for y0, y1 in _bands(h):  # by bands: a whole frame would take a dozen float images
        ys, xs = np.mgrid[y0:y1, 0:w].astype(np.float32)
        xs, ys = xs / w - 0.5, ys / h - 0.5
        ramp = (xs * math.cos(angle) + ys * math.sin(angle)) + 0.5
        gain = 1.0 + d.light * (0.2 - 0.5 * np.clip(ramp, 0, 1) - 0.25 * (xs ** 2 + ys ** 2))
        if d.shadow > 0:
            blob = np.exp(-(((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2))
            gain *= 1.0 - 0.45 * d.shadow * blob
        g[y0:y1] = np.clip(gain * 200, 0, 255)
    return cv2.merge([g, g, g])


def _noise_fields(size: tuple[int, int], strength: float,
                  rng: np.random.Generator) -> list[np.ndarray] | None:
    """Two fields of sensor noise a little larger than a frame; each frame takes a window.
    Kept as int8 (the noise is clipped to +-127) and drawn a band of rows at a time: the
    same numbers as one draw of the whole field, without its 24 MB of float64."""
    if strength <= 0:
        return None
    w, h = size
    fields = []
    for _ in range(2):
        field = np.empty((h + 32, w + 32, 3), np.int8)
        for y0, y1 in _bands(h + 32):
            field[y0:y1] = np.clip(rng.normal(0, 10.0 * strength, (y1 - y0, w + 32, 3)), -127, 127)
        fields.append(field)
    return fields


def _card_quad(p: Placement, card: tuple[float, float]) -> Quad:
    """The card's corners in mat mm, clockwise from its own top-left."""
    cw, ch = card
    th = math.radians(p.angle_deg)
    c, s = math.cos(th), math.sin(th)
    cx, cy = p.center_mm
    return tuple((cx + x * c - y * s, cy + x * s + y * c)  # type: ignore[return-value]
                 for x, y in ((-cw / 2, -ch / 2), (cw / 2, -ch / 2), (cw / 2, ch / 2), (-cw / 2, ch / 2)))


def _visible_fraction(quad: Quad, covers: list, frame_mm: list[Point], px_per_mm: float = 2.0) -> float:
    """The share of a card not covered by `covers` (polygons in mm) and inside the frame."""
    pts = np.array(quad)
    x0, y0 = pts.min(axis=0) - 1
    x1, y1 = pts.max(axis=0) + 1
    w, h = math.ceil((x1 - x0) * px_per_mm), math.ceil((y1 - y0) * px_per_mm)

    def raster(poly: np.ndarray | list) -> np.ndarray:
        return np.round((np.asarray(poly, np.float64) - (x0, y0)) * px_per_mm * 16).astype(np.int32)

    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [raster(quad)], 255, shift=4)
    total = cv2.countNonZero(mask)
    if total == 0:
        return 0.0
    inside = np.zeros_like(mask)
    cv2.fillPoly(inside, [raster(frame_mm)], 255, shift=4)
    mask &= inside
    for poly in covers:
        cv2.fillPoly(mask, [raster(poly)], 0, shift=4)
    return round(cv2.countNonZero(mask) / total, 4)


def _hand_shapes(hand: HandPass, t: float) -> list[np.ndarray] | None:
    """The arm, palm and fingers of a hand at time t as polygons in mat mm."""
    pos = hand.position(t)
    if pos is None:
        return None
    p = np.array(pos)
    e = np.array(hand.entry_mm)
    d = p - e
    length = float(np.linalg.norm(d))
    if length < 1e-6:
        return None
    d /= length
    n = np.array([-d[1], d[0]])
    wrist = p - d * 40
    arm = np.array([e + n * 42, wrist + n * 36, wrist - n * 36, e - n * 42])
    angles = np.linspace(0, 2 * math.pi, 24, endpoint=False)
    palm = np.array([p + d * 46 * math.cos(a) + n * 40 * math.sin(a) for a in angles])
    shapes = [arm, palm]
    for offset, reach in ((-25, 38), (-8, 48), (9, 46), (25, 36)):
        base = p + d * 30 + n * offset
        tip = base + d * reach
        shapes.append(np.array([base + n * 7.5, tip + n * 6, tip + d * 6, tip - n * 6, base - n * 7.5]))
    thumb_base = p + n * 34 - d * 5
    thumb_tip = thumb_base + (d * 0.6 + n * 0.8) * 40
    shapes.append(np.array([thumb_base + d * 9, thumb_tip + d * 6, thumb_tip - d * 6, thumb_base - d * 9]))
    return shapes


def _overlaps_mat(shape: np.ndarray, mat_size: tuple[float, float]) -> bool:
    w, h = mat_size
    xs, ys = shape[:, 0], shape[:, 1]
    return bool(xs.max() >= 0 and xs.min() <= w and ys.max() >= 0 and ys.min() <= h)
