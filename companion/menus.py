"""Typed menus: what a touch or a panel button can do now, from the engine's state.

The screens and the panel never decide what is legal. This module asks the engine
(`State.legal_actions`) and labels those actions with what the view model already shows:
the codes or words of `ViewModel.legal` when the engine lists them (Yokir's cards and
bids), else the card code an action names, else the engine's own words for the action
(`describe_event`, with the leading "Seat N" dropped because the button already sits
under that seat). A tapped button carries the engine's own `Action` back to the session.

A run of actions that differ only by a whole number (Yonac's "collect 1 to 40 cards")
becomes one `Count` (a stepper and a button) instead of forty buttons. At a chance node
(a deal, a draw), the table can deal on screen: the engine shuffles (`sample_chance`,
see `deal_action`), so every hand is known and the screen shows each seat's exact legal
cards (the open-hand teaching mode). A deal at a real table comes from the camera.

The panel's seat buttons (`panel_action`), the setup screen's options (`options_spec`)
and the first dealer's seats (`dealer_choices`) are read from the engines here too, so
neither `kiosk` nor `hardware` imports `companion.games` (an import-linter contract).

Pure Python: no Kivy, no gpiozero.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.cards import get_deck
from companion.errors import CompanionError
from companion.games import Action, Option, State, describe_event, get_game, make_game
from companion.games.ahyoheek import PICKS
from companion.viewmodel import ViewModel

__all__ = ["MAX_CARD_CHOICES", "PICKS", "Action", "Choice", "Count", "Menu", "Option", "action_words",
           "card_name", "chance_word", "deal_action", "dealer_choices", "deck_codes", "menu_for",
           "names_card", "options_spec", "panel_action", "with_dealer"]

#: More possible cards than this (a hidden hand in a 130-card deck) are not offered as
#: buttons: the camera reads them.
MAX_CARD_CHOICES = 48
#: A run of number choices longer than this becomes a stepper.
MAX_NUMBER_BUTTONS = 6

_LEADING_SEAT = re.compile(r"^Seat \d+('s)?\s+")


@dataclass(frozen=True)
class Choice:
    """One button: `label` (short: "MT", "pen", "accept"), the engine's `action`, the
    seat that makes it, `kind` ("card", "word" or "move") and a longer `detail` (the
    card's name, the engine's words). `action` is None for a secret choice the seat has
    already made: the button is there all the same, so the screen does not give the
    secret away, and pressing it changes nothing."""

    label: str
    action: Action | None
    seat: int | None
    kind: str
    detail: str = ""


@dataclass(frozen=True)
class Count:
    """Pick a number: the legal actions of `kind` for `seat` that differ only in the
    whole-number field `field`, one per value of `values` (in order)."""

    kind: str
    seat: int | None
    field: str
    values: tuple[int, ...]
    actions: tuple[Action, ...]
    label: str  # the engine's words for the kind, without a number: "collect"

    def action(self, value: int) -> Action:
        """The engine's action for `value` (ValueError for a value it does not list)."""
        try:
            return self.actions[self.values.index(value)]
        except ValueError:
            raise ValueError(f"{self.label}: {value} is not one of the legal numbers "
                             f"({self.values[0]} to {self.values[-1]})") from None


@dataclass(frozen=True)
class Menu:
    """Everything a touch can do in one state. `chance`: the word for the chance move
    ("Deal", "Draw", "Refill") when the next move is the deal's or the draw's, else "".
    `note`: why there are no buttons, when there are none although the game goes on."""

    choices: tuple[Choice, ...] = ()
    counts: tuple[Count, ...] = ()
    chance: str = ""
    note: str = ""
    seats: tuple[int, ...] = field(default=())  # the seats that have choices, in order

    def for_seat(self, seat: int | None) -> list[Choice]:
        return [c for c in self.choices if c.seat == seat]

    def find(self, label: str, seat: int | None = None) -> Choice | None:
        """The choice with this label (for `seat`, when given)."""
        for c in self.choices:
            if c.label == label and (seat is None or c.seat == seat):
                return c
        return None


def _codes(state: State) -> frozenset[str]:
    deck = getattr(state.game, "deck", None)
    if not deck:
        return frozenset()
    try:
        return frozenset(get_deck(deck).codes)
    except CompanionError:
        return frozenset()


def card_name(state: State, code: str) -> str:
    """A card's full name in the game's deck ("Master of Thought"), or the code."""
    deck = getattr(state.game, "deck", None)
    try:
        return get_deck(deck).__getitem__(code).name if deck else code
    except (CompanionError, KeyError):
        return code


def action_words(state: State, action: Action) -> str:
    """The engine's words for `action`, without the seat ("Calls Thought", "Passes")."""
    try:
        text = describe_event(state.game, action.to_json())
    except Exception:  # an engine's wording bug must not cost the player the button
        text = str(action)
    text = _LEADING_SEAT.sub("", text.strip()).rstrip(".")
    return text[:1].upper() + text[1:]


def _single_value(action: Action) -> object | None:
    return action.data[0][1] if len(action.data) == 1 else None


def _numbers(actions: Sequence[Action]) -> Count | None:
    """The actions as one Count if they are one kind and differ only in one int field."""
    if len(actions) <= MAX_NUMBER_BUTTONS:
        return None
    first = actions[0]
    if len(first.data) != 1 or not isinstance(_single_value(first), int):
        return None
    name = first.data[0][0]
    if any(a.kind != first.kind or a.seat != first.seat or len(a.data) != 1 or a.data[0][0] != name
           or not isinstance(a.data[0][1], int) or isinstance(a.data[0][1], bool) for a in actions):
        return None
    ordered = sorted(actions, key=lambda a: a.data[0][1])
    return Count(first.kind, first.seat, name, tuple(a.data[0][1] for a in ordered), tuple(ordered),
                 first.kind.replace("_", " "))


def _choice(state: State, action: Action, codes: frozenset[str]) -> Choice:
    value = _single_value(action)
    if isinstance(value, str) and value in codes:
        return Choice(value, action, action.seat, "card", card_name(state, value))
    words = action_words(state, action)
    if isinstance(value, str) and len(value) <= 12:
        return Choice(value, action, action.seat, "word", words)
    return Choice(words, action, action.seat, "move", words)


def _secret_choices(state: State, legal: Sequence[Action], codes: frozenset[str],
                    seats: tuple[int, ...]) -> tuple[Choice, ...]:
    """Every seat gets the same buttons in the same order. The engine leaves out the
    pick a seat already made (choosing it again is no move), and a missing button would
    tell the table what that seat picked: it comes back with no action."""
    by_seat: dict[int, list[Choice]] = {s: [] for s in seats}
    for a in legal:
        if a.seat is not None:
            by_seat[a.seat].append(_choice(state, a, codes))
    order = max(by_seat.values(), key=len)  # a seat still to choose has them all
    labels = [c.label for c in order]
    for choices in by_seat.values():
        labels.extend(c.label for c in choices if c.label not in labels)
    out = []
    for seat in seats:
        mine = {c.label: c for c in by_seat[seat]}
        template = {c.label: c for choices in by_seat.values() for c in choices}
        for label in labels:
            c = mine.get(label) or Choice(label, None, seat, template[label].kind, template[label].detail)
            out.append(c)
    return tuple(out)


def chance_word(state: State) -> str:
    """'Deal', 'Draw', 'Refill': the kind of the chance move due now, as a button word."""
    try:
        sample = state.clone().sample_chance(random.Random(0))
    except CompanionError:
        return ""
    return sample.kind.replace("_", " ").capitalize()


def menu_for(view: ViewModel | None, state: State | None) -> Menu:
    """The touch menu of `state` as `view` shows it (both from the same session)."""
    if view is None or state is None or view.over or state.is_terminal():
        return Menu()
    if state.is_chance():
        return Menu(chance=chance_word(state))
    try:
        legal = list(state.legal_actions())
    except CompanionError as exc:
        return Menu(note=str(exc))
    if not legal:
        return Menu(note="Nothing to choose on screen now.")
    codes = _codes(state)
    seats = tuple(sorted({a.seat for a in legal if a.seat is not None}))
    if len(seats) > 1:  # simultaneous choices (Ahyoheek): every seat in play has buttons
        return Menu(_secret_choices(state, legal, codes, seats), seats=seats)
    if view.legal:
        by_value: dict[object, Action] = {}
        for a in legal:
            for _, v in a.data:
                by_value.setdefault(v, a)
        choices = []
        for label in view.legal:
            action = by_value.get(label)
            if action is None:
                continue
            made = _choice(state, action, codes)
            choices.append(Choice(label, action, action.seat, made.kind, made.detail))
        # the engine's labels only when they name every legal action (Piktas lists its hand
        # cards, while its moves are a pass and swaps of a hand card for a field card)
        if choices and len(choices) == len(legal):
            return Menu(tuple(choices), seats=seats)
    choices, counts = [], []
    kinds: dict[str, list[Action]] = {}
    for a in legal:
        kinds.setdefault(a.kind, []).append(a)
    for actions in kinds.values():
        count = _numbers(actions)
        if count is not None:
            counts.append(count)
        else:
            choices.extend(_choice(state, a, codes) for a in actions)
    cards = [c for c in choices if c.kind == "card"]
    note = ""
    if len(cards) > MAX_CARD_CHOICES:
        choices = [c for c in choices if c.kind != "card"]
        note = (f"The hand is hidden: {len(cards)} cards are possible, too many to list. "
                f"The camera reads the card played.")
    return Menu(tuple(choices), tuple(counts), note=note, seats=seats)


def dealer_choices(game_name: str, players: int, options: dict[str, object]) -> list[int]:
    """The seats the first deal may name as dealer, when the game lets the table choose
    (more than one seat passes the engine's check); [] otherwise or for bad options."""
    try:
        state = make_game(game_name, players, **options).new_state()
    except CompanionError:
        return []
    if not state.is_chance():
        return []
    try:
        sample = state.sample_chance(random.Random(0))
    except CompanionError:
        return []
    if "dealer" not in dict(sample.data):
        return []
    seats = []
    for seat in range(players):
        try:
            state.check(with_dealer(sample, seat))
        except CompanionError:
            continue
        seats.append(seat)
    return seats if len(seats) > 1 else []


def with_dealer(action: Action, dealer: int) -> Action:
    """`action` (a deal) with its dealer field set to `dealer`."""
    data = dict(action.data)
    data["dealer"] = dealer
    return Action(action.kind, action.seat, tuple(sorted(data.items())))


def deal_action(state: State, rng: random.Random, first_dealer: int | None = None) -> Action | None:
    """The chance move due now, dealt by the engine with `rng` (None when no chance move
    is due). The table's chosen `first_dealer` is used when the engine accepts it."""
    if not state.is_chance():
        return None
    action = state.sample_chance(rng)
    if first_dealer is not None and "dealer" in dict(action.data):
        chosen = with_dealer(action, first_dealer)
        try:
            state.check(chosen)
            return chosen
        except CompanionError:
            pass
    return action


def options_spec(game_name: str) -> tuple[Option, ...]:
    """The options the game `game_name` takes at setup (name, default, bounds, choices)."""
    return tuple(get_game(game_name).options_spec)


#: Data keys that always name cards (the panel's buttons cannot make such moves).
CARD_KEYS = frozenset({"card", "cards"})
_DECK_CODES: dict[str, frozenset[str]] = {}


def deck_codes(game_name: str) -> frozenset[str]:
    """The card codes of the deck `game_name` is played with (empty for none, or for a
    game or deck that is not registered)."""
    if game_name not in _DECK_CODES:
        try:
            deck = get_game(game_name).deck
            _DECK_CODES[game_name] = frozenset(get_deck(deck).codes) if deck else frozenset()
        except CompanionError:
            _DECK_CODES[game_name] = frozenset()
    return _DECK_CODES[game_name]


def names_card(action: Action, codes: frozenset[str]) -> bool:
    """Does the action play, show or name a card? (Then the panel's buttons cannot make it.)"""
    for key, value in action.data:
        if key in CARD_KEYS:
            return True
        values = value if isinstance(value, tuple) else (value,)
        if any(isinstance(v, str) and v in codes for v in values):
            return True
    return False


def panel_action(view: ViewModel, legal: Sequence[Action] | None, seat: int, index: int,
                 buttons: int) -> Action | None:
    """The action button `index` of seat `seat` (which has `buttons` buttons) makes in
    `view`, given the `legal` actions (None: not known), or None when the press means
    nothing. Ahyoheek: buttons 0, 1, 2 pick pen, page, beetle for a seat in play (not the
    pick it already has). Other games: when the seat to act has a few choices that name
    no card (Yokir's accept and pass), button k makes the k-th of them in legal-actions
    order, provided they all fit on the seat's buttons."""
    if view.over:
        return None
    if view.game == "ahyoheek":
        if seat not in view.table.get("in_play", ()) or not 0 <= index < len(PICKS):
            return None
        action = Action.make("pick", seat, pick=PICKS[index])
        if legal is not None and action not in legal:
            return None  # the pick this seat already has: nothing to change
        return action
    if view.turn != seat or not legal:
        return None
    codes = deck_codes(view.game)
    choices = [a for a in legal if a.seat == seat and not names_card(a, codes)]
    if not choices or len(choices) > buttons or not 0 <= index < len(choices):
        return None
    return choices[index]
