"""Piktas at the table: what the camera's observations mean (docs/demo.md, "Piktas").

The camera reads the field and the showdown:

- **the deal**: the three field positions, card by card as the dealer turns them. A void
  dealt into the field is turned first and the card dealt under it next (tucked so that
  it shows): a void opens a position and the next card closes it. The deal passes to the
  dealer's left; in the first round the dealer turns the first field card in front of
  themselves (their show area) before it goes into the field, which tells the Companion
  who deals.
- **a draw**: the position the dealer adds to the field after each cycle.
- **a swap**: a field card taken away and a hand card put into the field by the player
  whose turn it is, in either order (the move is complete when both have been seen).
- **the showdown**: the hand shown face up in the player's show area, a few cards at a
  time when the area is full; the move is complete when all the cards they hold have
  been seen.

A pass, a void put on a field card (the camera cannot see which card it covers) and the
betting are touches. Each move's cards are kept per state (`CardBuffer`) until the move
is complete; the engine judges it whole, with its own reasons.
"""

from __future__ import annotations

from companion.adapters.common import CardBuffer, arrived
from companion.errors import IllegalAction
from companion.games import Action, State
from companion.games.piktas import FIRST_FIELD, PiktasState
from companion.games.piktas.rules import DECK, card_order, is_void
from companion.observation import Observation
from companion.table import register_adapter

GAME = "piktas"

seen = CardBuffer()


def adapt(state: State, obs: Observation) -> Action | None:
    """The Piktas action `obs` stands for in `state`, or None while a move is incomplete or
    when the change is no move."""
    if not isinstance(state, PiktasState):
        raise TypeError(f"the Piktas adapter needs a Piktas state, got {type(state).__name__}")
    if obs.code not in DECK:
        raise IllegalAction(f"{obs.code!r} is not a Piktas card")
    if state.phase == "deal":
        return _deal(state, obs)
    if state.phase == "draw":
        return _draw(state, obs)
    if state.phase == "swap":
        return _swap(state, obs)
    if state.phase == "show":
        return _show(state, obs)
    return None


def positions(cards: list[str]) -> tuple[list[list[str]], list[str]]:
    """Field positions from cards in dealing order (a void opens a position, the next card
    closes it), and the voids still waiting for their card."""
    out: list[list[str]] = []
    open_: list[str] = []
    for code in cards:
        open_.append(code)
        if not is_void(code):
            out.append(open_)
            open_ = []
    return out, open_


def _field_cards(state: PiktasState, obs: Observation) -> list[str] | None:
    """Note a card arriving in the field; the field cards noted for this state so far."""
    if not arrived(obs) or obs.zone_kind != "field" or (obs.kind == "moved" and obs.from_zone == obs.zone):
        return None
    return [code for kind, code in _pairs(seen.add(state, ("field", obs.code))) if kind == "field"]


def _deal(state: PiktasState, obs: Observation) -> Action | None:
    if arrived(obs) and obs.zone_kind == "play" and obs.seat is not None:
        seen.add(state, ("dealer", obs.seat))
        return None
    cards = _field_cards(state, obs)
    if cards is None:
        return None
    field, waiting = positions(cards)
    if len(field) < FIRST_FIELD or waiting:
        return None
    dealer = state.next_dealer()
    if dealer is None:
        shown = [note[1] for note in seen.seen(state) if isinstance(note, tuple) and note[0] == "dealer"]
        if not shown:
            raise IllegalAction("the field is dealt, but nobody has dealt yet in this game: in the "
                                "first round the dealer turns the first field card in front of "
                                "themselves, so the Companion knows who deals")
        dealer = shown[0]
    seen.clear(state)
    return Action.make("deal", None, dealer=dealer, hands=None, field=field[:FIRST_FIELD])


def _draw(state: PiktasState, obs: Observation) -> Action | None:
    if state.where.get(obs.code) == "field":
        return None  # a field card nudged
    cards = _field_cards(state, obs)
    if not cards:
        return None
    field, waiting = positions(cards)
    if not field or waiting:
        return None
    seen.clear(state)
    return Action.make("draw", None, cards=field[0])


def _swap(state: PiktasState, obs: Observation) -> Action | None:
    seat = state.current_player()
    if obs.zone_kind == "field" and obs.kind == "removed":
        if obs.code not in state.takeable():
            return None  # not a card a swap can take: the engine will hear of it if it matters
        notes = seen.add(state, ("take", obs.code))
    elif (arrived(obs) and obs.zone_kind == "field" and not is_void(obs.code)
          and state.where.get(obs.code) != "field"):
        notes = seen.add(state, ("give", obs.code))
    else:
        return None  # a void put on a field card is a touch; other zones are no move here
    take = [c for kind, c in _pairs(notes) if kind == "take"]
    give = [c for kind, c in _pairs(notes) if kind == "give"]
    if not take or not give:
        return None
    seen.clear(state)
    return Action.make("swap", seat, take=take[-1], give=give[-1])


def _show(state: PiktasState, obs: Observation) -> Action | None:
    if not arrived(obs) or obs.zone_kind != "play" or obs.seat is None:
        return None
    seat = state.current_player()
    if obs.seat != seat:
        raise IllegalAction(f"{obs.code} was shown in front of seat {obs.seat}, but it is seat "
                            f"{seat}'s turn to show (the showdown goes clockwise from the "
                            f"dealer's left)")
    cards = [c for kind, c in _pairs(seen.add(state, ("show", obs.code))) if kind == "show"]
    if len(cards) < state.hand_size[seat]:
        return None
    seen.clear(state)
    return Action.make("show", seat, hand=sorted(cards, key=card_order))


def _pairs(notes: list) -> list[tuple[str, str]]:
    return [note for note in notes if isinstance(note, tuple)]


def register() -> None:
    """Make `adapt` the game's table adapter (again, if the registry was reset)."""
    register_adapter(GAME, adapt)


register()
