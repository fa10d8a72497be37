"""The tracker: per-frame card detections in, stable table changes (observations) out.

A card counts as placed only after it has been seen in the same place with the same
identity for a few frames in a row; as removed only after its place has been seen
empty for a few frames (a place covered by a hand, an arm or another card is not seen,
so its cards are held); and a card that disappears from one zone and settles in another
is one "moved", not a removal and a placement. Codes are unique within a deck, so a card
whose code is already on the table somewhere that cannot be seen now is that card,
moved.

Positions are in table millimetres (mat millimetres, or the camera's plane scaled by the
cards' own size when there is no mat). Pure: `update` depends only on its arguments and
the tracker's own state, never on a clock.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from companion.observation import Observation


@dataclass(frozen=True)
class Place:
    """Where on the table a point lies: a zone of the mat (or the bare table)."""

    zone: str
    kind: str
    seat: int | None = None


TABLE = Place("table", "table")


@dataclass(frozen=True)
class Detection:
    """One card seen in one frame. code None: a card whose identity is unknown.
    weight: how much this reading counts towards the card's identity (a sharp, clear
    reading more than a blurred, close one). candidates: the likely cards with their
    scores, best first (what the screen offers when the card stays unnamed). note: why
    the reading went the way it did, when the rules' possible cards settled it. fresh:
    False for a reading replayed from an earlier frame (a card lying still keeps its
    cached identity): it shows the card is there, but is no new evidence of what it is."""

    center: tuple[float, float]
    code: str | None = None
    confidence: float = 0.0
    corners: np.ndarray | None = field(default=None, compare=False)  # (4, 2) mm, optional
    weight: float = 1.0
    candidates: tuple[tuple[str, float], ...] = ()
    note: str = ""
    fresh: bool = True


@dataclass(frozen=True)
class TrackParams:
    """Tracker knobs; docs/vision.md ("Tracking") says why each default is what it is."""

    place_frames: int = 3  # frames in a row, same code, still, before "placed"
    still_mm: float = 6.0  # how far a card may drift over those frames and count as still
    remove_frames: int = 4  # frames in a row its place is seen empty before it is missing
    move_window_s: float = 1.0  # how long a missing card may take to reappear as a move
    match_mm: float = 40.0  # furthest a card moves between two frames and stays one track
    forget_frames: int = 3  # frames a never-placed (tentative) track survives seen gone
    #: ... and frames one that was read survives out of sight, covered or not: a dark
    #: card blurred on a dark mat can be found in one frame and taken for an occluder (a
    #: hand) in the next, so a card only ever covered in between is kept (and placed)
    hidden_forget_frames: int = 12
    card_radius_mm: float = 38.0  # a card's reach from its centre, for occlusion tests
    #: A card this much covered by a newer card seen lying on it (a pile) cannot slip out
    #: from under it unseen: a card read elsewhere with its code is not it, moved.
    buried_share: float = 0.75
    #: A new card is placed with the identity that holds this share of the weighted
    #: evidence of every fresh reading while it has lain still ...
    lead_share: float = 0.75
    #: ... and a card still unnamed after lying still this many frames, or this many
    #: seconds (a slow camera: the question must reach the screen within a second) over
    #: at least `place_frames` frames, is asked about.
    ask_frames: int = 8
    ask_seconds: float = 0.6
    #: ... unless a hand is near it: a cover smaller than this (mm², a third of a card)
    #: is not a hand but the part of a blurred card's own blob its outline left out, and
    #: it does not hold a question back (Yonac seed 8 under hard: a 2D lay 3 s unnamed
    #: beside a 970 mm² cover and was never asked).
    hand_mm2: float = 1800.0


ALL = "all"  # `occluded` value: the whole table is hidden (mat lost, camera covered)
HOLD = "hold"  # `occluded` value: what is seen counts, but nothing counts as gone (mat held)


@dataclass
class _Track:
    id: int
    center: np.ndarray
    codes: deque = field(default_factory=lambda: deque(maxlen=8))
    confs: deque = field(default_factory=lambda: deque(maxlen=8))
    positions: deque = field(default_factory=lambda: deque(maxlen=8))
    seen_run: int = 0  # consecutive frames detected
    unseen_run: int = 0  # consecutive frames its place was visible but it was not there
    lost_run: int = 0  # consecutive frames not detected, covered or not
    code: str | None = None  # the stable identity (set once placed)
    place: Place | None = None  # the zone it was placed in or last moved to
    confidence: float = 0.0
    missing_since: float | None = None  # stable card whose place is seen empty
    corners: np.ndarray | None = None  # (4, 2) mm where it was last seen, if known
    #: What it was read as while still, fresh readings only (a reading the pipeline replays
    #: from an earlier frame shows the card is there, not again what it is):
    evidence: dict = field(default_factory=dict)  # code -> weighted readings
    votes: dict = field(default_factory=dict)  # code -> readings
    offered: dict = field(default_factory=dict)  # candidate code -> summed score
    read_run: int = 0  # fresh readings, read or not
    anchor: np.ndarray | None = None  # where it has lain still since its evidence began
    still_run: int = 0  # frames it has lain still at the anchor
    still_since: float = 0.0  # table time of the first of those frames
    asked: bool = False  # a question about it is out
    note: str = ""
    warned: str | None = None  # the other identity its evidence turned to, once warned
    covered: bool = False  # hidden since it was last seen (a hand may have swapped it)
    gapped: bool = False  # its place was seen empty since its evidence began
    born: int = 0  # the update that first saw it
    emptied: int = -1  # the update that first saw its place empty since it was last seen
    seen_t: float = 0.0  # table time it was last seen
    #: hidden by a card laid after its place was seen empty: that card was laid in its
    #: place, not on it, so this card is most likely gone (a trick gathered, the next one
    #: played where it lay)
    replaced: bool = False

    @property
    def stable(self) -> bool:
        return self.code is not None


@dataclass(frozen=True)
class StableCard:
    """A card the tracker currently holds as lying on the table."""

    code: str
    center: tuple[float, float]
    place: Place
    confidence: float
    visible: bool  # read as itself in the latest frame (False: held while covered, unread or missing)


def _covered(under: np.ndarray, over: np.ndarray) -> float:
    """The share of quad `under` that quad `over` covers (both convex, in mm)."""
    area = abs(float(cv2.contourArea(under)))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(under, over)
    return float(inter) / area


class Tracker:
    """Associates detections frame to frame and emits placed / removed / moved."""

    def __init__(self, locate: Callable[[float, float], Place] | None = None,
                 params: TrackParams = TrackParams()) -> None:
        self.locate = locate or (lambda x, y: TABLE)
        self.params = params
        self._tracks: list[_Track] = []
        self._next_id = 1
        self._tick = 0  # updates so far
        self._visible: set[int] = set()  # tracks detected this frame
        self._confirmed: set[int] = set()  # ... and read as their own code
        #: Questions raised by the last update: (track key, where, candidates), and the
        #: keys of questions whose card has gone since (the pipeline turns these into
        #: companion.observation.Question with a picture of the card).
        self.asking: list[tuple[str, Place, tuple[tuple[str, float], ...], np.ndarray]] = []
        self.withdrawn: list[str] = []
        #: Warnings of the last update: a card whose identity changed while it lay still.
        self.warnings: list[str] = []

    # -- public -------------------------------------------------------------

    @property
    def cards(self) -> list[StableCard]:
        """The cards currently held as on the table."""
        return [StableCard(t.code, (float(t.center[0]), float(t.center[1])), t.place, t.confidence,
                           t.id in self._confirmed)
                for t in self._tracks if t.code is not None and t.place is not None]

    @property
    def quiet(self) -> bool:
        """Nothing is pending: every track is a placed card, seen and read as itself in
        the last frame, settled where it was placed, none missing. The same detections
        again would change nothing (the pipeline skips the update on a still table)."""
        n = self.params.place_frames
        return all(tr.stable and tr.id in self._confirmed and tr.missing_since is None
                   and tr.seen_run >= n and tr.unseen_run == 0
                   and self.locate(float(tr.center[0]), float(tr.center[1])) == tr.place
                   for tr in self._tracks)

    def update(self, detections: Sequence[Detection], t: float,
               occluded: Sequence[np.ndarray] | str = (), frame: int | None = None
               ) -> list[Observation]:
        """Take one frame's detections (positions in table mm) and return what changed.

        occluded: polygons ((N, 2) mm) where something covers the table this frame; ALL
        when nothing can be seen (a lost mat, a covered camera); HOLD when the cards seen
        count but an absence proves nothing (the mat's markers are covered, so the view
        may be too).
        """
        p = self.params
        events: list[Observation] = []
        self.asking, self.withdrawn, self.warnings = [], [], []
        self._tick += 1
        hold = False
        if isinstance(occluded, str):
            if occluded not in (ALL, HOLD):
                raise ValueError(f"occluded must be polygons, {ALL!r} or {HOLD!r}, got {occluded!r}")
            hold = occluded == HOLD
        if isinstance(occluded, str) and not hold:
            self._visible, self._confirmed = set(), set()
            for tr in self._tracks:
                tr.seen_run = 0
            self._tracks = [tr for tr in self._tracks if tr.stable]
            return self._expire(t, frame, events)

        matched = self._associate(detections)
        self._visible, self._confirmed = set(), set()
        new_tracks = []
        for det, tr in matched:
            if tr is None:
                tr = _Track(self._next_id, np.asarray(det.center, np.float64), born=self._tick)
                self._next_id += 1
                new_tracks.append(tr)
            tr.center = np.asarray(det.center, np.float64)
            if det.corners is not None:
                tr.corners = np.asarray(det.corners, np.float32).reshape(4, 2)
            tr.positions.append(tr.center)
            tr.codes.append(det.code)
            tr.confs.append(det.confidence)
            self._gather(tr, det, t)
            tr.seen_run += 1
            tr.unseen_run = 0
            tr.lost_run = 0
            tr.missing_since = None
            tr.seen_t = t
            tr.replaced = False
            self._visible.add(tr.id)
            if det.code is not None and det.code == tr.code:
                self._confirmed.add(tr.id)
        self._tracks.extend(new_tracks)

        # (centre, track id) of what is seen now: a newer card can lie on an older one.
        seen = [tr for tr in self._tracks if tr.id in self._visible]
        polys = [] if hold else [np.asarray(poly, np.float32).reshape(-1, 1, 2) for poly in occluded]
        hands = [poly for poly in polys if cv2.contourArea(poly) >= self.params.hand_mm2]
        for tr in self._tracks:
            if tr.id in self._visible:
                tr.covered = False
                continue
            tr.seen_run = 0
            tr.lost_run += 1
            if tr.stable and not tr.covered and not hold:
                # Its own place reads as another card with no hand near: noted, and a
                # warning once the evidence has turned (a card laid exactly on it is the
                # other explanation, so the reading still counts as a new card too).
                self._read_otherwise(tr, detections, polys)
            if hold or self._hidden(tr, polys, seen):
                tr.covered = tr.covered or hold or self._touched(tr, polys)  # a hand was there
                continue  # covered: hold what we know, count nothing
            tr.unseen_run += 1
            if tr.unseen_run == 1:
                tr.emptied = self._tick
            tr.gapped = True
            if tr.stable and tr.missing_since is None and tr.unseen_run >= p.remove_frames:
                tr.missing_since = t
        # A card never placed leaves no trace once it is out of sight for a moment.
        # One that was read, only ever covered since it was last seen, is kept a while
        # longer (an unread shape under a hand is most likely part of the hand).
        gone = [tr for tr in self._tracks if not tr.stable and (
            tr.unseen_run >= p.forget_frames
            or tr.lost_run >= (p.hidden_forget_frames if tr.evidence else p.forget_frames))]
        self.withdrawn = [_key(tr) for tr in gone if tr.asked]
        self._tracks = [tr for tr in self._tracks if tr not in gone]

        for tr in sorted(self._tracks, key=lambda x: x.id):
            # A placed card a hand is touching may be pushed, or its outline merged with
            # the hand's: it moves only once the hand has let go.
            if tr.id in self._visible and self._settled(tr) and not (tr.stable and self._touched(tr, polys)):
                events.extend(self._settle(tr, t, frame))
            elif (tr.id in self._visible and not tr.stable and not tr.asked and self._ask_due(tr, t)
                  and not self._touched(tr, hands)):
                tr.asked = True
                place = self.locate(float(tr.center[0]), float(tr.center[1]))
                offered = sorted(tr.offered.items(), key=lambda kv: -kv[1])[:3]
                n = max(1, tr.read_run)
                self.asking.append((_key(tr), place, tuple((c, round(v / n, 3)) for c, v in offered),
                                    tr.center.copy()))
        return self._expire(t, frame, events)

    def _ask_due(self, tr: _Track, t: float) -> bool:
        """An unnamed card has lain still long enough to ask about it: `ask_frames`
        frames, or `ask_seconds` over at least `place_frames` frames."""
        p = self.params
        return tr.still_run >= p.ask_frames or (
            tr.still_run >= p.place_frames and t - tr.still_since >= p.ask_seconds)

    def _gather(self, tr: _Track, det: Detection, t: float) -> None:
        """Add one frame's reading to the evidence of a card lying still; a card that
        moves starts its evidence afresh. A placed card whose evidence turns clearly to
        another identity while it has not moved is a warning, once."""
        p = self.params
        if tr.anchor is None or float(np.linalg.norm(tr.center - tr.anchor)) > p.still_mm:
            tr.anchor, tr.still_run, tr.still_since = tr.center.copy(), 0, t
            tr.gapped = False
            tr.evidence, tr.votes, tr.offered, tr.read_run = {}, {}, {}, 0
        tr.still_run += 1
        if not det.fresh:
            return  # a replayed reading: the card is still there, and nothing more
        tr.read_run += 1
        if det.code is not None:
            tr.evidence[det.code] = tr.evidence.get(det.code, 0.0) + max(det.weight, 1e-3)
            tr.votes[det.code] = tr.votes.get(det.code, 0) + 1
            if det.note:
                tr.note = det.note
        for code, score in det.candidates:
            tr.offered[code] = tr.offered.get(code, 0.0) + float(score)
        if tr.stable:
            self._check_identity(tr)

    def _read_otherwise(self, tr: _Track, detections: Sequence[Detection], polys: list[np.ndarray]) -> bool:
        """A placed card, not covered since it was seen, whose very place now reads as
        another card, with no hand near: the same card read otherwise (a swap needs a
        hand, which covers it). Its evidence takes the reading; True if there was one.
        Not when its place was seen empty since it was last seen: it was taken away, and
        the card lying there now is another one, laid in its place."""
        if tr.unseen_run > 0 or self._touched(tr, polys):
            return False
        for det in detections:
            if det.fresh and det.code is not None and det.code != tr.code and \
                    float(np.linalg.norm(np.asarray(det.center) - tr.center)) <= self.params.still_mm:
                tr.evidence[det.code] = tr.evidence.get(det.code, 0.0) + max(det.weight, 1e-3)
                tr.votes[det.code] = tr.votes.get(det.code, 0) + 1
                self._check_identity(tr)
                return True
        return False

    def _check_identity(self, tr: _Track) -> None:
        """Warn, once, when a placed card's evidence has turned clearly to another card."""
        p = self.params
        lead, share, votes = self._leader(tr)
        if lead is not None and lead != tr.code and share >= p.lead_share \
                and votes >= 2 * p.place_frames and tr.warned != lead:
            tr.warned = lead
            where = tr.place.zone if tr.place else "the table"
            self.warnings.append(f"the card in {where} was placed as {tr.code} but reads as {lead} "
                                 f"while it has not moved")

    @staticmethod
    def _leader(tr: _Track) -> tuple[str | None, float, int]:
        """The identity with the most weighted evidence, its share of it, its readings
        (fresh readings only: a replayed one adds nothing)."""
        if not tr.evidence:
            return None, 0.0, 0
        lead = max(tr.evidence, key=lambda c: tr.evidence[c])
        return lead, tr.evidence[lead] / sum(tr.evidence.values()), tr.votes[lead]

    def _touched(self, tr: _Track, polys: list[np.ndarray]) -> bool:
        pt = (float(tr.center[0]), float(tr.center[1]))
        return any(cv2.pointPolygonTest(poly, pt, True) > -self.params.card_radius_mm for poly in polys)

    def resolve(self, key: str, code: str) -> bool:
        """A person named the card that was asked about: it lies there as `code` from now
        on (the answer itself reaches the session as an observation; the tracker reports
        nothing for it). False when no such card is on the table any more."""
        for tr in self._tracks:
            if _key(tr) == key:
                twin = next((o for o in self._tracks if o is not tr and o.code == code), None)
                if twin is not None:
                    self._tracks.remove(twin)
                tr.code = code
                tr.place = self.locate(float(tr.center[0]), float(tr.center[1]))
                tr.asked = False
                return True
        return False

    def flush(self, t: float, frame: int | None = None) -> list[Observation]:
        """At the end of a stream: report the missing cards as removed now."""
        events: list[Observation] = []
        for tr in list(self._tracks):
            if tr.missing_since is not None:
                events.append(self._obs("removed", tr, tr.place, t, frame))
                self._tracks.remove(tr)
        return events

    # -- internals ----------------------------------------------------------

    def _associate(self, detections: Sequence[Detection]) -> list[tuple[Detection, _Track | None]]:
        """Greedy nearest-first matching of detections to tracks; a known code that
        contradicts a track's stable identity never matches it."""
        p = self.params
        pairs = []
        for i, det in enumerate(detections):
            c = np.asarray(det.center, np.float64)
            for j, tr in enumerate(self._tracks):
                d = float(np.linalg.norm(c - tr.center))
                if d > p.match_mm:
                    continue
                if tr.stable and det.code is not None and det.code != tr.code:
                    continue
                if tr.missing_since is not None and det.code != tr.code:
                    continue  # a card seen gone comes back only as itself
                if tr.stable and det.code is None and d > 2 * p.still_mm:
                    continue  # an unread shape (a hand, a card passing) does not drag a placed card
                if tr.stable and det.code is None and tr.unseen_run > 0:
                    # its place was seen empty since it was last seen: an unread card there
                    # now may be another one laid in its place (a new track, asked about
                    # if it stays unread), not proof that this card is back
                    continue
                pairs.append((d, i, j))
        pairs.sort()
        det_used: set[int] = set()
        tr_used: set[int] = set()
        out: list[tuple[Detection, _Track | None]] = []
        for _d, i, j in pairs:
            if i in det_used or j in tr_used:
                continue
            det_used.add(i)
            tr_used.add(j)
            out.append((detections[i], self._tracks[j]))
        out.extend((det, None) for i, det in enumerate(detections) if i not in det_used)
        return out

    def _hidden(self, tr: _Track, polys: list[np.ndarray], seen: list[_Track]) -> bool:
        """Is this track's place covered, by an occluder or by a newer card seen on top
        of a quarter of it or more (a card under another may be too little seen to be
        found)?"""
        r = self.params.card_radius_mm
        pt = (float(tr.center[0]), float(tr.center[1]))
        for poly in polys:
            if cv2.pointPolygonTest(poly, pt, True) > -r:
                return True
        for other in seen:
            if other.id <= tr.id:
                continue
            if tr.corners is not None and other.corners is not None:
                over = _covered(tr.corners, other.corners) >= 0.25
            else:
                over = float(np.linalg.norm(other.center - tr.center)) < 0.6 * r
            if over:
                tr.replaced = tr.replaced or (tr.unseen_run > 0 and other.born > tr.emptied)
                return True
        return False

    def _buried(self, tr: _Track, newcomer: _Track) -> bool:
        """Is this unseen placed card lying under a newer card that is seen over most of
        it now, with nothing to say it was ever taken out (no hand over it, its place
        never seen empty since it was last seen)? A card so buried cannot be the card
        `newcomer` that just settled elsewhere."""
        if tr.id in self._visible or tr.covered or tr.unseen_run > 0 or tr.missing_since is not None:
            return False
        r = self.params.card_radius_mm
        for other in self._tracks:
            if other is tr or other is newcomer or other.id <= tr.id or other.id not in self._visible:
                continue
            if tr.corners is not None and other.corners is not None:
                if _covered(tr.corners, other.corners) >= self.params.buried_share:
                    return True
            elif float(np.linalg.norm(other.center - tr.center)) < 0.25 * r:
                return True
        return False

    def _gone(self, tr: _Track, t: float) -> bool:
        """Is this unseen placed card one that was taken away, though never counted as
        missing: its place was seen empty, a card laid there since hides it, and it has
        been out of sight longer than `move_window_s` (a card carried elsewhere within that
        is still a move)? The card with its code that settles now is not it moved."""
        return (tr.id not in self._visible and tr.replaced and tr.unseen_run > 0
                and t - tr.seen_t > self.params.move_window_s)

    def _settled(self, tr: _Track) -> bool:
        """Seen for enough frames in a row, still, and (for a new card) one identity. A
        new card's frames need not be in a row when only covers came between them (its
        place never seen empty): a dark card that flickers between card and occluder."""
        p = self.params
        n = p.place_frames
        run = tr.seen_run if tr.stable or tr.gapped else max(tr.seen_run, tr.still_run)
        if run < n or len(tr.positions) < n:
            return False
        recent = np.array(list(tr.positions)[-n:])
        if float(np.max(np.linalg.norm(recent - recent.mean(axis=0), axis=1))) > p.still_mm:
            return False
        if tr.stable:
            return True
        codes = list(tr.codes)[-n:]
        if codes[0] is not None and all(c == codes[0] for c in codes):
            return True
        # Not n alike in a row: the weighted evidence of every frame it has lain still.
        lead, share, votes = self._leader(tr)
        return lead is not None and votes >= n and share >= p.lead_share

    def _settle(self, tr: _Track, t: float, frame: int | None) -> list[Observation]:
        place = self.locate(float(tr.center[0]), float(tr.center[1]))
        if tr.stable:
            if place != tr.place:  # slid into another zone
                old = tr.place
                tr.place = place
                return [self._obs("moved", tr, place, t, frame, old)]
            return []
        codes = list(tr.codes)
        n = self.params.place_frames
        tail = codes[-n:]
        code = tail[-1] if tail[0] is not None and all(c == tail[0] for c in tail) else self._leader(tr)[0]
        tr.confidence = float(np.mean(list(tr.confs)[-n:]))
        twin = next((o for o in self._tracks if o is not tr and o.code == code), None)
        if twin is not None and twin.id in self._visible:
            return []  # the same card seen twice: one reading is wrong, wait
        tr.code, tr.place = code, place
        if tr.asked:
            tr.asked = False
            self.withdrawn.append(_key(tr))  # named after all: the question is void
        if twin is not None and self._gone(twin, t):
            # Its place was seen empty, then another card was laid there, and it has been
            # out of sight longer than a move takes: it was taken away then (its removal
            # went unseen under the card laid in its place), and this is that card again.
            self._tracks.remove(twin)
            twin = None
        if twin is not None and self._buried(twin, tr):
            # It cannot have left from under a card that still lies on it: what we held
            # there under this code was a misreading, and is forgotten (never reported).
            self._tracks.remove(twin)
            where = twin.place.zone if twin.place else "the table"
            self.warnings.append(f"the card under another in {where} was placed as {code}, "
                                 f"but {code} lies in {place.zone}: that reading was wrong")
            twin = None
        if twin is None:
            return [self._obs("placed", tr, place, t, frame)]
        self._tracks.remove(twin)  # the card we held elsewhere is this one, moved
        if twin.place == place:
            return []
        return [self._obs("moved", tr, place, t, frame, twin.place)]

    def _expire(self, t: float, frame: int | None, events: list[Observation]) -> list[Observation]:
        for tr in list(self._tracks):
            if tr.missing_since is not None and t - tr.missing_since >= self.params.move_window_s:
                events.append(self._obs("removed", tr, tr.place, t, frame))
                self._tracks.remove(tr)
        return events

    @staticmethod
    def _obs(kind: str, tr: _Track, place: Place | None, t: float, frame: int | None,
             old: Place | None = None) -> Observation:
        place = place or TABLE
        return Observation(kind=kind, code=tr.code or "", zone=place.zone, zone_kind=place.kind,
                           seat=place.seat, from_zone=old.zone if old else None,
                           from_seat=old.seat if old else None, t=t, frame=frame,
                           confidence=round(tr.confidence, 3), note=tr.note if kind == "placed" else "")


def _key(tr: _Track) -> str:
    """The stable name of a track, for questions about it."""
    return f"card-{tr.id}"
