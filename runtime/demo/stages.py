"""Per game: which public actions the camera must see, which are touches or buttons, and
what lies face up on the table as the true game goes on (docs/demo.md).

A `Stager` answers three questions about each step of the true game:
- `source(step)`: "camera" (the move is read from cards put on the table), "touch" (the
  players tap it on the screen) or "button" (a seat's button on the panel);
- `show(step, before)`: the cards put down for the camera to read the move from;
- `settle(after)`: the face-up cards once the rules have spoken (a trick gathered, an Ace
  set aside, cards back into the face-down Pile), as {code: zone}.
Zones are looked up in the game's mat by kind and seat (`Zones`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from companion.games import State
from runtime.demo.errors import DemoError
from runtime.demo.layout import Change
from runtime.demo.script import Step

CAMERA, TOUCH, BUTTON = "camera", "touch", "button"


class NoZone(DemoError, LookupError):
    """The game's mat has no zone the demo needs."""


@dataclass(frozen=True)
class ZoneInfo:
    """A zone of the mat as the demo needs it (vision.mats.Zone has more)."""

    name: str
    kind: str
    seat: int | None = None


class Zones:
    """The zones of one mat, found by kind and seat."""

    def __init__(self, zones: Iterable[ZoneInfo]) -> None:
        self.all = tuple(zones)

    def find(self, kind: str, seat: int | None = None) -> str | None:
        for zone in self.all:
            if zone.kind == kind and zone.seat == seat:
                return zone.name
        return None

    def get(self, *kinds: str, seat: int | None = None) -> str:
        """The first zone of one of `kinds` (in order of preference) for `seat`."""
        for kind in kinds:
            name = self.find(kind, seat)
            if name is not None:
                return name
        who = "" if seat is None else f" for seat {seat + 1}"
        have = ", ".join(f"{z.name} ({z.kind}{'' if z.seat is None else f', seat {z.seat + 1}'})"
                         for z in self.all)
        raise NoZone(f"the mat has no {' or '.join(kinds)} zone{who}; its zones: {have}")


class Stager:
    """Base: every public action is a touch and nothing lies on the table."""

    game = ""

    def __init__(self, zones: Zones, players: int) -> None:
        self.zones = zones
        self.players = players

    def source(self, step: Step) -> str:
        """Where the step's public action comes from: CAMERA, TOUCH or BUTTON."""
        return TOUCH

    def show(self, step: Step, before: State) -> Change:
        """The cards a camera move puts on the table (`before`: the true state before it)."""
        return Change()

    def waves(self, step: Step, before: State) -> list[Change]:
        """The cards of a camera move, shown in as many goes as the zone has room for
        (each go may gather the one before)."""
        return [self.show(step, before)]

    def settle(self, after: State) -> dict[str, str]:
        """The face-up cards once the rules have spoken, {code: zone} (`after`: the true
        state after the step)."""
        return {}

    def capacity(self, zone: ZoneInfo) -> int:
        """How many cards `zone` shows side by side (more are stacked on the last)."""
        return 1

    @property
    def uses_camera(self) -> bool:
        """Does the game put cards on the table at all (False: the panel plays it all)?"""
        return True


class YokirStager(Stager):
    """Yokir: the upcard and every card played come from the camera; bids and the face-down
    discard are touches. The first upcard is turned in front of the dealer (their play
    area: that is how the camera learns who deals first), later ones on the upcard spot.
    After a trick its three cards are gathered; the upcard leaves the table when it is
    taken up or turned down."""

    game = "yokir"

    def source(self, step: Step) -> str:
        return CAMERA if step.action.kind in ("deal", "play") else TOUCH

    def show(self, step: Step, before: State) -> Change:
        from companion.games.yokir import YokirState

        assert isinstance(before, YokirState)
        action = step.action
        if action.kind == "deal":
            return Change(place=((action["upcard"], self._upcard_zone(before.hand_no + 1,
                                                                      action["dealer"])),))
        if action.kind == "play":
            return Change(place=((action["card"], self.zones.get("play", seat=action.seat)),))
        return Change()

    def settle(self, after: State) -> dict[str, str]:
        from companion.games.yokir import YokirState

        assert isinstance(after, YokirState)
        out = {card: self.zones.get("play", seat=seat) for seat, card in after.trick}
        if after.upcard is not None and after.upcard_state == "face up" and after.dealer is not None:
            out[after.upcard] = self._upcard_zone(after.hand_no, after.dealer)
        return out

    def _upcard_zone(self, hand: int, dealer: int) -> str:
        if hand == 1:
            return self.zones.get("play", seat=dealer)
        return self.zones.get("pile", "field")


class YonacStager(Stager):
    """Yonac: the cards picked up are shown face up in front of the collector, two at a
    time as the Set area holds two, then gathered; the camera reads each one. The count
    collected or added, the Ace of Clubs played and a Joker's swap are touches. Aces set
    aside lie face up in the seat's Stash zone; Stashes and the Pile are face down."""

    game = "yonac"
    SHOWN = 2  # cards side by side in a Set area

    def source(self, step: Step) -> str:
        return CAMERA if step.action.kind == "draw" else TOUCH

    def show(self, step: Step, before: State) -> Change:
        waves = self.waves(step, before)
        return waves[0] if waves else Change()

    def waves(self, step: Step, before: State) -> list[Change]:
        from companion.games.yonac import YonacState

        assert isinstance(before, YonacState)
        if step.action.kind != "draw":
            return [Change()]
        zone = self.zones.get("play", seat=before.seat)
        cards = list(step.action["cards"])
        out: list[Change] = []
        shown: tuple[str, ...] = ()
        for i in range(0, len(cards), self.SHOWN):
            batch = tuple(cards[i:i + self.SHOWN])
            out.append(Change(remove=shown, place=tuple((code, zone) for code in batch)))
            shown = batch
        return out

    def settle(self, after: State) -> dict[str, str]:
        from companion.games.yonac import YonacState

        assert isinstance(after, YonacState)
        return {ace: self.zones.get("stash", seat=seat)
                for seat in after.alive for ace in after.aside[seat]}

    def capacity(self, zone: ZoneInfo) -> int:
        return self.SHOWN if zone.kind == "play" else 1


class AhyoheekStager(Stager):
    """Ahyoheek: no cards; every pick is a press of the seat's button (pen, page, beetle)."""

    game = "ahyoheek"

    def source(self, step: Step) -> str:
        return BUTTON

    @property
    def uses_camera(self) -> bool:
        return False


class MedievalMasteryStager(Stager):
    """Medieval Mastery: every card played goes into the shared trick area, in turn, and
    the camera reads it; the deal and the refills (face down) and the trick winner's
    tableau (confirmed on the screen) are touches. Tableaux grow to dozens of cards, more
    than a meld zone shows, so the synthetic table does not draw them: the camera's part
    is the tricks. A trick's cards leave the table once its winner has laid down."""

    game = "medieval-mastery"

    def source(self, step: Step) -> str:
        return CAMERA if step.action.kind == "play" else TOUCH

    def show(self, step: Step, before: State) -> Change:
        if step.action.kind != "play":
            return Change()
        return Change(place=((step.action["card"], self.zones.get("trick")),))

    def capacity(self, zone: ZoneInfo) -> int:
        return self.players if zone.kind == "trick" else 1

    def settle(self, after: State) -> dict[str, str]:
        from companion.games.medieval_mastery import MedievalMasteryState

        assert isinstance(after, MedievalMasteryState)
        zone = self.zones.get("trick")
        return {card: zone for card in after.trick_cards()}


class PiktasStager(Stager):
    """Piktas: the field and the showdown come from the camera. The dealer turns the field
    cards one by one (in the first round the first one in front of themselves, so the
    camera sees who deals; a void before the card dealt under it, which lies beside it so
    both show), adds a position after each cycle, and a swap takes a field card away
    before the hand card goes into its place. At the showdown each hand is shown two cards
    at a time in its show area. Passes, voids put on a field card and bets are touches."""

    game = "piktas"
    SHOWN = 2  # cards side by side in a show area

    def source(self, step: Step) -> str:
        return CAMERA if step.action.kind in ("deal", "draw", "swap", "show") else TOUCH

    def show(self, step: Step, before: State) -> Change:
        waves = self.waves(step, before)
        return waves[0] if waves else Change()

    def waves(self, step: Step, before: State) -> list[Change]:
        from companion.games.piktas import PiktasState

        assert isinstance(before, PiktasState)
        action = step.action
        field = self.zones.get("field")
        if action.kind in ("deal", "draw"):
            positions = action["field"] if action.kind == "deal" else [action["cards"]]
            cards = [code for position in positions for code in position]
            out = [Change(place=((code, field),)) for code in cards]
            if action.kind == "deal" and before.dealer is None and cards:
                out.insert(0, Change(place=((cards[0], self.zones.get("play", seat=action["dealer"])),)))
            return out
        if action.kind == "swap":
            return [Change(remove=(action["take"],)), Change(place=((action["give"], field),))]
        if action.kind == "show":
            zone = self.zones.get("play", seat=action.seat)
            hand = list(action["hand"])
            out, shown = [], ()
            for i in range(0, len(hand), self.SHOWN):
                batch = tuple(hand[i:i + self.SHOWN])
                out.append(Change(remove=shown, place=tuple((code, zone) for code in batch)))
                shown = batch
            return out
        return [Change()]

    def settle(self, after: State) -> dict[str, str]:
        from companion.games.piktas import PiktasState

        assert isinstance(after, PiktasState)
        zone = self.zones.get("field")
        return {code: zone for position in after.field for code in position}

    def capacity(self, zone: ZoneInfo) -> int:
        if zone.kind == "field":
            return 8  # six positions and the two voids
        return self.SHOWN if zone.kind == "play" else 1


STAGERS: dict[str, type[Stager]] = {
    "yokir": YokirStager,
    "yonac": YonacStager,
    "ahyoheek": AhyoheekStager,
    "medieval-mastery": MedievalMasteryStager,
    "piktas": PiktasStager,
}


def stager_for(game: str, zones: Zones, players: int) -> Stager:
    try:
        return STAGERS[game](zones, players)
    except KeyError:
        raise DemoError(f"the demo cannot stage {game}: it knows "
                        f"{', '.join(sorted(STAGERS))}") from None
