"""The `synthetic:GAME` source: a scripted table, photographed by the synthetic camera.

No game engine is involved: random cards of the game's deck are dealt one by one into
the zones of the game's mat, now and then one is taken away or moved to another zone,
and (as the `hands` degradation asks) a hand reaches in to do it or just passes over.
Everything follows from the seed, so a run can be replayed frame for frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from companion.cards import get_deck
from companion.errors import BadOption
from vision.art import card_size_mm
from vision.art.mat import field_spots
from vision.mats import MatSpec, Zone, get_mat
from vision.sources.base import FrameSource
from vision.synthetic import Degradations, HandPass, Placement, Scene, SceneTruth, SyntheticCamera

Point = tuple[float, float]


@dataclass
class _OnTable:
    placement: Placement
    zone: Zone
    slot: int


class TableScript:
    """Scenes, one per frame, of cards coming and going on a mat.

    At most `max_cards` lie on the table. `degrade` sets how square the cards lie
    (rotation), how closely they are packed (overlap) and how often hands appear (hands).
    """

    def __init__(self, mat: MatSpec, deck: str, seed: int = 0, degrade: Degradations | None = None,
                 fps: float = 30.0, max_cards: int = 12) -> None:
        self.mat = mat
        self.deck = get_deck(deck).name
        self.degrade = degrade or Degradations()
        self.fps = fps
        self.max_cards = max_cards
        self._rng = np.random.default_rng([int(seed), 7])
        self._card = card_size_mm(self.deck)
        self._slots = {z.name: self._zone_slots(z) for z in mat.zones}
        self._seat_facings = sorted({z.facing_deg for z in mat.zones if z.seat is not None}) or [0.0]
        codes = list(get_deck(self.deck).codes)
        self._rng.shuffle(codes)
        self._pool = codes
        self._table: list[_OnTable] = []

    # --- layout ---

    def _zone_slots(self, zone: Zone) -> list[Point]:
        """Where cards go in a zone, in the order they fill it."""
        x, y, w, h = zone.rect_mm
        cw, ch = self._card
        if zone.kind == "field":
            return field_spots(zone, self._card)
        if zone.kind == "stash" or zone.name == "stock":
            cx, cy = zone.center_mm
            return [(cx + 1.5 * i, cy - 1.0 * i) for i in range(10)]  # a stack
        if zone.name == "upcard":
            return [zone.center_mm]
        across_x = zone.facing_deg % 180 == 0
        fw, fh = (cw, ch) if across_x else (ch, cw)  # the card's footprint on the mat
        overlap = self.degrade.overlap
        step_along = (cw * (1 - 0.4 * overlap) + 4.0 * (1 - overlap))
        along, across = (w, h) if across_x else (h, w)
        foot_along, foot_across = (fw, fh) if across_x else (fh, fw)
        cols = max(1, int((along - foot_along) // step_along) + 1)
        rows = max(1, int((across - foot_across) // (foot_across + 4.0)) + 1)
        slots = []
        for r in range(rows):
            for c in range(cols):
                a = along / 2 + (c - (cols - 1) / 2) * step_along
                b = across / 2 + (r - (rows - 1) / 2) * (foot_across + 4.0)
                slots.append((x + a, y + b) if across_x else (x + b, y + a))
        return slots

    def _free_slot(self, zone: Zone) -> int | None:
        taken = {o.slot for o in self._table if o.zone.name == zone.name}
        free = [i for i in range(len(self._slots[zone.name])) if i not in taken]
        return free[0] if free else None

    def _place(self, code: str, zone: Zone, slot: int) -> Placement:
        # a seat's cards face it; cards in shared zones face whoever put them there
        base = zone.facing_deg if zone.seat is not None else float(self._rng.choice(self._seat_facings))
        angle = base + float(self._rng.uniform(-10, 10)) * self.degrade.rotation
        face_up = not (zone.kind in ("stash",) or zone.name in ("stock", "pile"))
        cx, cy = self._slots[zone.name][slot]
        return Placement(code, (cx, cy), angle % 360, face_up)

    # --- the script ---

    def _plan(self) -> tuple[str, _OnTable | None, Zone | None, int | None]:
        """The next change: ("deal" | "move" | "remove" | "pass", card, zone, slot)."""
        rng = self._rng
        n = len(self._table)
        roll = float(rng.uniform())
        if self.degrade.hands > 0 and roll < 0.12 * self.degrade.hands:
            return "pass", None, None, None
        action = "deal" if n < 3 or (n < self.max_cards and roll < 0.7) else \
            ("move" if roll < 0.82 else "remove")
        if action == "remove":
            return "remove", self._table[int(rng.integers(n))], None, None
        open_zones = [z for z in self.mat.zones if self._free_slot(z) is not None]
        if not open_zones or (action == "deal" and not self._pool):
            return "remove", self._table[int(rng.integers(n))], None, None
        zone = open_zones[int(rng.integers(len(open_zones)))]
        slot = self._free_slot(zone)
        if action == "move":
            return "move", self._table[int(rng.integers(n))], zone, slot
        return "deal", None, zone, slot

    def _apply(self, action: str, card: _OnTable | None, zone: Zone | None, slot: int | None) -> None:
        if action == "deal" and zone is not None and slot is not None:
            code = self._pool.pop()
            self._table.append(_OnTable(self._place(code, zone, slot), zone, slot))
        elif action == "remove" and card is not None:
            self._table.remove(card)
            self._pool.insert(0, card.placement.code)
        elif action == "move" and card is not None and zone is not None:
            free = self._free_slot(zone)  # the card may have left a slot of this zone
            if free is None:
                return
            self._table.remove(card)
            self._table.append(_OnTable(self._place(card.placement.code, zone, free), zone, free))

    def scenes(self) -> Iterator[Scene]:
        """One scene per frame, without end."""
        rng = self._rng
        frame = 0
        next_event = 0
        pending: tuple[int, tuple] | None = None
        hand: HandPass | None = None
        while True:
            t = frame / self.fps
            if frame == next_event:
                plan = self._plan()
                action, card, zone, _ = plan
                with_hand = action == "pass" or float(rng.uniform()) < self.degrade.hands
                gap = int(rng.integers(4, 12))
                if with_hand:
                    target = zone.center_mm if zone is not None else (
                        card.placement.center_mm if card is not None else self._random_point())
                    seat = zone.seat if zone is not None else (card.zone.seat if card is not None else None)
                    length = int(rng.integers(15, 25))
                    hand = HandPass.from_seat(self.mat, seat, target, t, length / self.fps)
                    pending = (frame + length // 2, plan)
                    next_event = frame + length + gap
                else:
                    self._apply(*plan)
                    next_event = frame + gap
            if pending is not None and frame == pending[0]:
                self._apply(*pending[1])
                pending = None
            current = hand if hand is not None and hand.reach(t) is not None else None
            yield Scene(self.mat, self.deck, tuple(o.placement for o in self._table), current)
            frame += 1

    def _random_point(self) -> Point:
        w, h = self.mat.size_mm
        return float(self._rng.uniform(0.2, 0.8)) * w, float(self._rng.uniform(0.2, 0.8)) * h


class SyntheticSource(FrameSource):
    """`synthetic:GAME`: the scripted table of a game, photographed; frames carry truth.

    Options: seed (0), frames (300; 0 for no end), fps (30), degrade (a preset or knobs,
    "typical"), players (the game's usual), width and height (1280 x 720), and any
    degradation knob by name (blur=0.5).
    """

    def __init__(self, game: str, seed: int = 0, frames: int = 300, fps: float = 30.0,
                 degrade: Degradations | str = "typical", players: int | None = None,
                 width: int = 1280, height: int = 720, **knobs: float) -> None:
        super().__init__()
        self.name = f"synthetic:{game}"
        if frames < 0 or fps <= 0:
            raise BadOption(f"{self.name}: frames must be 0 (no end) or more and fps above 0, got "
                            f"frames={frames}, fps={fps}")
        degradations = Degradations.parse(degrade) if isinstance(degrade, str) else degrade
        if knobs:
            degradations = degradations.with_(**knobs)
        self.mat = get_mat(game, players)
        self.degrade = degradations
        self.camera = SyntheticCamera(self.mat, self.mat.game, seed, (width, height), degradations)
        self.script = TableScript(self.mat, self.mat.game, seed, degradations, fps)
        self._scenes = self.script.scenes()
        self._frames = frames
        self._fps = fps
        self.scene: Scene | None = None

    def _read(self) -> tuple[np.ndarray, float, SceneTruth] | None:
        if self._frames and self._index >= self._frames:
            return None
        t = self._index / self._fps
        self.scene = next(self._scenes)
        image, truth = self.camera.render(self.scene, t)
        return image, t, truth


__all__ = ["SyntheticSource", "TableScript"]
