"""The demo's camera: the synthetic table (`vision.synthetic`) photographing the demo's
`Layout`, and the real recognition pipeline (`vision.pipeline.Recognizer`) reading every
frame. Nothing the session hears comes from the layout: only what recognition reports.

Cards lie in their zone's slots: a grid centred on the zone, cards turned to face the
zone's seat, with gaps between them (touching cards merge into one shape for the
detector, as on a real table); each card lies a little off its slot and turned, as a
hand lays it (JITTER_*, the same for a card every time it lies in a game). A zone that
has more cards than slots stacks the extra ones on its last slot, where only the top one
can be seen.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from companion.observation import Observation, Question
from companion.session import Session
from runtime.demo.layout import Lay, Layout
from runtime.demo.stages import ZoneInfo, Zones
from vision.art import card_size_mm
from vision.mats import MatSpec, Zone, get_mat
from vision.pipeline import FrameResult, Recognizer
from vision.synthetic import HandPass, Placement, Scene, SceneTruth, SyntheticCamera

FRAME_SIZE = (1280, 720)
DEGRADE = "typical"  # perspective, blur, noise, uneven light, a shadow, JPEG: vision's preset
#: `companion demo --preset`: the synthetic table's degradations (vision.synthetic.PRESETS)
PRESETS = {
    "easy": "perspective=0.25,blur=0.15,noise=0.15,light=0.25,shadow=0.2,jpeg=0.2,rotation=0.25,hands=0.25",
    "typical": "typical",
    "hard": "hard",
}
GAP_MM = 10.0  # between neighbouring cards: more than the detector needs to part them
SPREAD_MM = 16.0  # at most this much between cards, however big the zone
INSET_MM = 4.0  # card centres stay this far inside their zone
# A card's own play in place and angle, as if laid by hand: up to this far off its slot's
# centre along each axis, and turned up to this much (docs/demo.md, "The table").
JITTER_MM = 2.5
JITTER_DEG = 3.0


class FrameSink(Protocol):
    """Where the frames go besides recognition: the recorder, the kiosk's camera view."""

    def frame(self, image: np.ndarray, result: FrameResult, truth: SceneTruth,
              notes: list[str]) -> None:
        """One frame as rendered, what recognition made of it, its truth, and the words
        about the move in play."""


def link_recognizer(recognizer: Recognizer, session: Session) -> Callable[[], None]:
    """`recognizer.prior` follows `session.possible()` (set after every change of the log in
    effect, not per frame: possible() reads the whole log), and an answered question
    reaches `recognizer.resolve(key, code)` when the pipeline has it. Returns the unlink."""
    from vision.identify import Prior

    def expect(likely: frozenset[str], placed: dict[str, str]) -> None:
        recognizer.prior = Prior(likely, placed)

    def learn(key: str, code: str) -> None:
        resolve = getattr(recognizer, "resolve", None)
        if callable(resolve):
            resolve(key, code)

    unlinks = (session.watch_possible(expect), session.on_answer(learn))

    def unlink() -> None:
        for undo in unlinks:
            undo()
    return unlink


def mat_zones(game: str, players: int) -> tuple[MatSpec, Zones]:
    """The game's mat and its zones as the stagers look them up."""
    mat = get_mat(game, players)
    return mat, Zones(ZoneInfo(z.name, z.kind, z.seat) for z in mat.zones)


def slot_centers(zone: Zone, card_mm: tuple[float, float], slots: int) -> list[tuple[float, float]]:
    """Centres (mat mm) of `slots` card places in `zone`, nearest the middle first: the grid
    that keeps every centre inside the zone with the widest gaps, centred on the zone."""
    x, y, w, h = zone.rect_mm
    cx, cy = x + w / 2, y + h / 2
    w, h = w - 2 * INSET_MM, h - 2 * INSET_MM  # centres well inside, never on the edge
    turned = round(zone.facing_deg) % 180 == 90
    cw, ch = (card_mm[1], card_mm[0]) if turned else card_mm
    slots = max(1, slots)
    best: tuple[tuple[float, int, int], int, int, float] | None = None
    for cols in range(1, slots + 1):
        rows = math.ceil(slots / cols)
        gap_x = w / (cols - 1) - cw if cols > 1 else math.inf
        gap_y = h / (rows - 1) - ch if rows > 1 else math.inf
        gap = min(gap_x, gap_y)
        # enough room first (up to SPREAD_MM), then the fewest places, then the squarest
        key = (min(gap, SPREAD_MM), -(cols * rows), -abs(cols - rows))
        if best is None or key > best[0]:
            best = (key, cols, rows, gap)
    assert best is not None
    _, cols, rows, gap = best
    step_x = cw + min(gap, SPREAD_MM) if cols > 1 else 0.0
    step_y = ch + min(gap, SPREAD_MM) if rows > 1 else 0.0
    cells = [(cx + (c - (cols - 1) / 2) * step_x, cy + (r - (rows - 1) / 2) * step_y)
             for r in range(rows) for c in range(cols)]
    cells.sort(key=lambda p: (round(math.hypot(p[0] - cx, p[1] - cy), 3), p[1], p[0]))
    return cells[:slots]


def _play(code: str, salt: int) -> tuple[float, float, float]:
    """A card's own small offset and turn (mm, mm, degrees), the same every time it lies."""
    digest = hashlib.blake2b(f"{salt}:{code}".encode(), digest_size=6).digest()
    u = [b / 255.0 * 2 - 1 for b in digest[:3]]
    return u[0] * JITTER_MM, u[1] * JITTER_MM, u[2] * JITTER_DEG


@dataclass
class Look:
    """The last frame the camera took: what it saw (for the recorder and the errors)."""

    result: FrameResult
    truth: SceneTruth


class SyntheticTable:
    """The synthetic camera over the game's mat, read by the real `Recognizer`."""

    def __init__(self, mat: MatSpec, deck: str, seed: int, *, capacities: Mapping[str, int] | None = None,
                 sinks: Sequence[FrameSink] = (), size: tuple[int, int] = FRAME_SIZE,
                 degrade: str = DEGRADE) -> None:
        self.mat = mat
        self.deck = deck
        self.seed = seed
        self.camera = SyntheticCamera(mat, deck, seed, size, degrade)
        self.recognizer = Recognizer(deck, mat)
        self.sinks = tuple(sinks)  # the recorder, the kiosk's camera view
        self.capacities = dict(capacities or {})
        self.card_mm = card_size_mm(deck)
        self._zones = {z.name: z for z in mat.zones}
        self._slots: dict[str, list[tuple[float, float]]] = {}
        self.frames = 0
        self.last: Look | None = None
        self.notes: list[str] = []  # words for the recorder's caption, set by the director
        self.questions: list[Question] = []  # what recognition asked about the last frame
        self.withdrawn: list[str] = []  # ... and the keys of questions it takes back
        # The next frame is rendered on a second thread while this one is recognised.
        self._painter = ThreadPoolExecutor(1, thread_name_prefix="demo-render")
        self._ahead: tuple[tuple[Scene, float], Future[tuple[np.ndarray, SceneTruth]]] | None = None

    # -- the camera protocol of runtime.demo.director ----------------------------------
    def look(self, layout: Layout, t: float, *, hand: bool = False, hand_seat: int | None = None,
             hand_over: str | None = None, next_t: float | None = None) -> list[Observation]:
        placements = tuple(self.placement(lay) for lay in layout)
        passing = None
        if hand:
            over = [p.center_mm for p in placements if p.code == hand_over]
            target = over[0] if over else self._middle()
            # full reach over the card at time t: the hand entered 0.4 s before
            passing = HandPass.from_seat(self.mat, hand_seat, target, t - 0.4, 0.8)
        scene = Scene(self.mat, self.deck, placements, passing)
        image, truth = self._render(scene, t)
        if next_t is not None:  # the table as it is, a moment later: the likely next frame
            later = Scene(self.mat, self.deck, placements)
            self._ahead = ((later, next_t), self._painter.submit(self.camera.render, later, next_t))
        result = self.recognizer.process(image, t, self.frames)
        self.frames += 1
        self.last = Look(result, truth)
        self.questions = list(getattr(result, "questions", None) or ())
        self.withdrawn = list(getattr(result, "withdrawn", None) or ())
        for sink in self.sinks:
            sink.frame(image, result, truth, list(self.notes))
        return list(result.observations)

    def _render(self, scene: Scene, t: float) -> tuple[np.ndarray, SceneTruth]:
        """The frame of `scene` at `t`: the one rendered ahead if it is that one. Renders
        run on the painter thread only, one at a time (the camera caches its mat)."""
        ahead, self._ahead = self._ahead, None
        if ahead is not None:
            key, future = ahead
            if key == (scene, t):
                return future.result()
            future.result()  # a guess that missed: let it finish before the next render
        return self._painter.submit(self.camera.render, scene, t).result()

    def close(self) -> None:
        """Stop the painter thread."""
        self._ahead = None
        self._painter.shutdown(wait=True, cancel_futures=True)

    def link(self, session: Session) -> Callable[[], None]:
        """Let the session teach recognition: the cards the rules expect (the prior, after
        every change of the log) and the players' answers to its questions. Returns the
        unlink."""
        return link_recognizer(self.recognizer, session)

    def truth_of(self, question: Question, layout: Layout) -> str | None:
        """The card of `layout` lying where recognition's card `question.key` lies (its
        track's centre, table mm), within a card's half width; None when none does. The
        demo's players see the table; recognition's track is looked up by its key."""
        tracks = getattr(self.recognizer.tracker, "_tracks", ())  # the truth may peek
        centre = next((tr.center for tr in tracks if f"card-{tr.id}" == question.key), None)
        if centre is None:
            return None
        best, best_mm = None, min(self.card_mm) / 2
        for lay in layout:
            x, y = self.placement(lay).center_mm
            mm = math.hypot(x - float(centre[0]), y - float(centre[1]))
            if mm < best_mm:
                best, best_mm = lay.code, mm
        return best

    def holds(self, code: str, zone: str | None = None) -> bool:
        return any(card.code == code and (zone is None or card.place.zone == zone)
                   for card in self.recognizer.tracker.cards)

    # -- laying out --------------------------------------------------------------------
    def placement(self, lay: Lay) -> Placement:
        """Where and how a card of the layout lies on the mat."""
        zone = self._zones[lay.zone]
        slots = self._slots.get(lay.zone)
        if slots is None:
            slots = slot_centers(zone, self.card_mm, self.capacities.get(lay.zone, 1))
            self._slots[lay.zone] = slots
        cx, cy = slots[min(lay.slot, len(slots) - 1)]
        dx, dy, turn = _play(lay.code, self.seed)
        return Placement(lay.code, (cx + dx, cy + dy), (zone.facing_deg + turn) % 360)

    def _middle(self) -> tuple[float, float]:
        w, h = self.mat.size_mm
        return w / 2, h / 2
