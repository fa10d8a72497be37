"""Yonac: collect as many cards as you can without picking up the Ace of Spades.

Reading (rules/yonac.txt, RULINGS, docs/games/yonac.md). A turn is either a collected Set
or the Ace of Clubs played. A Set is judged paragraph by paragraph (§ 2.2.1): the Ace of
Spades first (loss, or saved by a Potent Ace of Hearts), then Jokers (with Aces in the Set
they send the Aces back to the Pile; with none they must be swapped for other players'
Potent Aces, the collector choosing), then a Potent Ace of Diamonds (add cards, judge
again with it no longer Potent), then the Aces of Clubs and Hearts are set aside and the
rest goes to the Stash. Elimination runs until `threshold` players are left, then Sudden
Death: the next loss ends the game and the most cards win, ties broken as § 2.2.5 says.

Drawing is a chance action whose cards are the ones shown face up, so the same actions
serve bots (full information) and the table (cards as the camera saw them). The Ace of
Spades never leaves the Pile while the game goes on, so the Pile never runs dry and every
game ends.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from companion.cards import get_deck
from companion.catalog import game_info
from companion.errors import BadOption, IllegalAction
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State
from companion.words import and_list
from companion.words import card_name as _card_name
from companion.words import in_deck_order as _in_deck_order

DECK = get_deck("standard")
ACES = ("AS", "AH", "AD", "AC")
JOKERS = ("JK1", "JK2")
KEPT_ACES = ("AH", "AC")  # the Aces a player sets aside; Potent from the end of that turn

# The paragraphs of rules/yonac.txt, numbered as the original document numbers them.
P_ORDER = "§ 2.2"
P_STASH = "§ 2.2.1"
P_SET = "¶ 2.2.1.1"
P_NO_ACES = "¶ 2.2.1.2"
P_SPADES = "¶ 2.2.1.3"
P_SAVED = "¶ 2.2.1.4"
P_JOKER_ACES = "¶ 2.2.1.5"
P_JOKER_SWAP = "¶ 2.2.1.6"
P_DIAMONDS = "¶ 2.2.1.7"
P_CLUBS_ASIDE = "¶ 2.2.1.8"
P_HEARTS_ASIDE = "¶ 2.2.1.9"
P_REST = "§ 2.2.1, last sentence"
P_PLAY_CLUBS = "§ 2.2.2"
P_CLUBS_DRAW = "¶ 2.2.2.1"
P_CLUBS_NOT_ACE = "¶ 2.2.2.2"
P_CLUBS_SPADES = "¶ 2.2.2.3"
P_CLUBS_JOKER = "¶ 2.2.2.4"
P_CLUBS_HEARTS = "¶ 2.2.2.5"
P_CLUBS_DIAMONDS = "¶ 2.2.2.6"
P_ELIMINATION = "§ 2.2.3"
P_SUDDEN_DEATH = "§ 2.2.4"

# Steps of a turn.
TURN, DRAW, ADD, SWAP, OVER = "turn", "draw", "add", "swap", "over"
COLLECT, CLUBS = "collect", "clubs"

# How a game was won ("by" of the win event), in words.
WON_BY = {
    "spades_with_clubs": "picked up the Ace of Spades with the Ace of Clubs",
    "most_cards": "has the most cards",
    "tie_ace_of_hearts": "holds the Ace of Hearts",
    "tie_ace_of_clubs": "holds the Ace of Clubs",
    "tie_ace_of_diamonds": "holds the Ace of Diamonds",
    "tie_last_turn": "had a turn most recently",
    "tie_turn_order": "is last in turn order (no tied player has had a turn)",
}
TIE_ACES = (("AH", "tie_ace_of_hearts"), ("AC", "tie_ace_of_clubs"), ("AD", "tie_ace_of_diamonds"))


def in_deck_order(cards: Iterable[str]) -> list[str]:
    """The cards sorted as the deck lists them, so outcomes do not depend on the order seen."""
    return _in_deck_order(cards, "standard")


def card_name(code: str) -> str:
    """"the Ace of Spades", "the Joker"."""
    return _card_name(code, "standard", article=True)


def card_list(cards: Sequence[str]) -> str:
    """Codes for the screen: "5C, 7H"."""
    return ", ".join(cards)


def _cards_word(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


@dataclass(frozen=True)
class Ruling:
    """What the rules make of the cards shown: the result, the paragraph that decides it and
    where each card goes. Results: "keep" (aside and stash), "lose", "saved" (by the Ace of
    Hearts), "removed" (Aces sent back by a Joker), "swap" (a Joker must be swapped first),
    "more" (the Ace of Diamonds asks for more cards), "win" (Ace of Spades with the Ace of
    Clubs)."""

    result: str
    rule: str
    stash: tuple[str, ...] = ()
    aside: tuple[str, ...] = ()
    pile: tuple[str, ...] = ()


def _check_cards(cards: Sequence[str]) -> list[str]:
    unknown = [c for c in cards if c not in DECK]
    if unknown:
        raise IllegalAction(f"{unknown[0]!r} is not a card code of the standard deck")
    if len(set(cards)) != len(cards):
        twice = next(c for c in cards if list(cards).count(c) > 1)
        raise IllegalAction(f"{card_name(twice)} ({twice}) is shown twice: there is only one")
    return in_deck_order(cards)


def rule_on_set(cards: Sequence[str], *, potent_hearts: bool = False, diamonds_potent: bool = True,
                potent_jokers: Collection[str] | None = None, can_swap: bool = False) -> Ruling:
    """Judge a collected Set (§ 2.2.1), paragraph by paragraph.

    potent_hearts: the collector has a Potent Ace of Hearts set aside on an earlier turn.
    diamonds_potent: False once the Ace of Diamonds has added cards (¶ 2.2.1.7).
    potent_jokers: the Jokers of the Set still Potent (None: every Joker in it, as drawn).
    can_swap: another player holds a Potent Ace a Joker could be swapped for.
    """
    cards = _check_cards(cards)
    if not cards:
        raise IllegalAction(f"a Set has one or more cards ({P_SET})")
    if potent_hearts and "AH" in cards:
        raise IllegalAction("the Ace of Hearts (AH) cannot be both set aside and in the Set")
    jokers = [c for c in cards if c in JOKERS]
    potent = jokers if potent_jokers is None else [j for j in jokers if j in potent_jokers]
    aces = [c for c in cards if c in ACES]
    if "AS" in cards:
        if potent_hearts:
            return Ruling("saved", P_SAVED, stash=("AH",), pile=tuple(cards))
        return Ruling("lose", P_SPADES, pile=tuple(cards))
    if potent and aces:
        return Ruling("removed", P_JOKER_ACES, pile=tuple(aces),
                      stash=tuple(c for c in cards if c not in aces))
    if potent and can_swap:
        return Ruling("swap", P_JOKER_SWAP)
    if "AD" in cards and diamonds_potent:
        return Ruling("more", P_DIAMONDS)
    aside = tuple(c for c in cards if c in KEPT_ACES)
    stash = tuple(c for c in cards if c not in aside)
    if aside:
        rule = " and ".join(sorted(P_CLUBS_ASIDE if a == "AC" else P_HEARTS_ASIDE for a in aside))
    elif jokers:
        rule = P_JOKER_SWAP  # Jokers with nothing to swap lose their Potency
    elif aces:
        rule = P_REST
    else:
        rule = P_NO_ACES
    return Ruling("keep", rule, stash=stash, aside=aside)


def rule_on_clubs_card(card: str, *, can_swap: bool = False) -> Ruling:
    """Judge the card picked up after playing the Ace of Clubs (§ 2.2.2).
    can_swap: another player holds a Potent Ace a drawn Joker could be swapped for."""
    if card not in DECK:
        raise IllegalAction(f"{card!r} is not a card code of the standard deck")
    if card == "AS":
        return Ruling("win", P_CLUBS_SPADES)
    if card in JOKERS:
        # RULINGS: a Joker that cannot be swapped counts as "not an Ace".
        return Ruling("swap", P_CLUBS_JOKER) if can_swap else Ruling("keep", P_CLUBS_JOKER,
                                                                       stash=(card,))
    if card == "AD":
        return Ruling("more", P_CLUBS_DIAMONDS, stash=("AD",))
    if card in KEPT_ACES:
        # Only the Ace of Hearts can come up here: the Ace of Clubs is the one just played.
        return Ruling("keep", P_CLUBS_HEARTS, aside=(card,))
    return Ruling("keep", P_CLUBS_NOT_ACE, stash=(card,))


ASIDE_WORDS = {
    "AH": "Set the Ace of Hearts aside: it protects you from the next Ace of Spades.",
    "AC": "Set the Ace of Clubs aside: on a later turn you may play it instead of collecting.",
}


def advice(ruling: Ruling, *, clubs: bool = False) -> str:
    """What the player must do with the cards shown, in plain words (second person).
    clubs: the card was picked up with the Ace of Clubs."""
    r = ruling.result
    if r == "lose":
        return ("You picked up the Ace of Spades with no Potent Ace of Hearts. You are out: "
                "shuffle your stash back into the Pile, with the Set and any Aces set aside.")
    if r == "saved":
        return ("Your Ace of Hearts saves you from the Ace of Spades: put the Ace of Hearts into "
                "your Stash and shuffle the Set back into the Pile.")
    if r == "win":
        return "You picked up the Ace of Spades with the Ace of Clubs: you win the game!"
    if r == "swap":
        return ("Swap the Joker for another player's Potent Ace: put the Joker into their Stash "
                "and take the Ace.")
    if r == "more" and clubs:
        return "Put the Ace of Diamonds into your Stash and pick up one more card from the Pile."
    if r == "more":
        return ("Draw more: the Ace of Diamonds asks for another card. Pick up one or more cards "
                "from the Pile and add them to the Set.")
    parts: list[str] = []
    if r == "removed":
        parts.append(f"The Joker removes the Aces: shuffle "
                     f"{and_list([card_name(a) for a in ruling.pile])} back into the Pile.")
    elif any(c in JOKERS for c in ruling.stash) and ruling.rule in (P_JOKER_SWAP, P_CLUBS_JOKER):
        parts.append("No other player has a Potent Ace, so the Joker cannot be swapped.")
    parts += [ASIDE_WORDS[a] for a in ruling.aside]
    if ruling.stash:
        parts.append(f"Put {card_list(ruling.stash)} into your Stash.")
    return " ".join(parts)


def decide_winner(remaining: Sequence[int], counts: Sequence[int], held: Sequence[Collection[str]],
                  last_turn: Sequence[int | None]) -> tuple[int, str, list[int]]:
    """The winner among the players left at the end of Sudden Death (§ 2.2.5): the most cards
    (Stash and Aces set aside); ties go to the holder of the Ace of Hearts, then of the Ace of
    Clubs, then of the Ace of Diamonds (Potent or not), then to the tied player whose turn came
    most recently, and if none of them has had a turn, to the one last in turn order.
    Returns (seat, how, tied seats or [])."""
    best = max(counts[s] for s in remaining)
    tied = [s for s in remaining if counts[s] == best]
    if len(tied) == 1:
        return tied[0], "most_cards", []
    for ace, how in TIE_ACES:
        holders = [s for s in tied if ace in held[s]]
        if holders:
            return holders[0], how, tied
    played = [s for s in tied if last_turn[s] is not None]
    if played:
        return max(played, key=lambda s: last_turn[s] or 0), "tie_last_turn", tied
    return max(tied), "tie_turn_order", tied


class Yonac(Game):
    name = "yonac"  # title, deck and players: companion/catalog.py
    options_spec = (
        Option("threshold", int, 2,
               "players left when Sudden Death begins, 2 up to the number of players "
               "(2 plays to the last player standing)", min=2, max=game_info("yonac").max_players),
        Option("jokers", bool, False, "play with the two Jokers"),
    )
    action_kinds = frozenset({"collect", "add", "draw", "play_clubs", "swap"})
    outcome_kinds = frozenset({"stash", "aside", "removed", "saved", "lose", "sudden_death", "win",
                               "verdict"})

    def __init__(self, players: int | None = None, **options: Any) -> None:
        super().__init__(players, **options)
        threshold = self.options["threshold"]
        if threshold > self.players:
            raise BadOption(f"Yonac threshold {threshold} is more than the {self.players} players: "
                            f"the Threshold is how many players are left when Sudden Death begins, "
                            f"2 to {self.players}")

    def new_state(self) -> YonacState:
        return YonacState(self)

    def public_action(self, action: Action) -> Action | None:
        """Every Yonac action is public: the count collected is seen as the Set is shown, the
        Set and the card drawn with the Ace of Clubs are shown face up, and swaps and the
        Ace of Clubs are played in the open. The Pile stays face down, but what is in it is
        known by elimination, so the engine needs nothing more."""
        return action

    # -- the bot ---------------------------------------------------------------
    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Collect a share of the Pile sized to the risk (more when a Potent Ace of Hearts
        covers it, one card when leading in Sudden Death), add one card for the Ace of
        Diamonds unless protected, play the Ace of Clubs when the Pile is small enough for a
        real chance at the Ace of Spades, and swap a Joker for the Ace that helps most."""
        assert isinstance(state, YonacState)
        seat = state.current_player()
        if state.step == SWAP:
            return min(state.legal_actions(), key=lambda a: _swap_preference(state, a))
        if state.step == ADD:
            count = bot_count(state, seat, rng) if "AH" in state.aside[seat] else 1
            return Action.make("add", seat, count=count)
        if "AC" in state.aside[seat] and bot_plays_clubs(state, seat):
            return Action.make("play_clubs", seat)
        return Action.make("collect", seat, count=bot_count(state, seat, rng))

    # -- words -----------------------------------------------------------------
    def describe(self, event: dict[str, Any]) -> str | None:
        kind = event.get("type")
        seat = event.get("seat")
        cards = event.get("cards") or []
        if kind == "collect":
            return f"Seat {seat} collects {_cards_word(event['count'])} from the Pile."
        if kind == "add":
            return (f"Seat {seat} adds {_cards_word(event['count'])} to the Set "
                    f"(the Ace of Diamonds asks for more).")
        if kind == "draw":
            return "Shown face up: " + ", ".join(DECK[c].name if c in DECK else str(c)
                                                 for c in cards) + "."
        if kind == "play_clubs":
            return f"Seat {seat} plays the Ace of Clubs and picks up one card."
        if kind == "swap":
            return (f"Seat {seat} swaps the Joker ({event['joker']}) for seat {event['target']}'s "
                    f"{DECK[event['ace']].name}; the Joker goes into seat {event['target']}'s Stash.")
        if kind == "stash":
            verb = "goes" if len(cards) == 1 else "go"
            return (f"{card_list(cards)} {verb} into seat {seat}'s Stash "
                    f"({_cards_word(event['stash'])} there now).")
        if kind == "aside":
            what = ("it protects them from the next Ace of Spades" if event["card"] == "AH"
                    else "they may play it on a later turn")
            return f"Seat {seat} sets the {DECK[event['card']].name} aside: {what}."
        if kind == "removed":
            return (f"The Joker removes {and_list([card_name(c) for c in cards])} from seat {seat}'s "
                    f"Set: back into the Pile.")
        if kind == "saved":
            return (f"Seat {seat}'s Ace of Hearts saves them from the Ace of Spades: the Set "
                    f"({card_list(cards)}) goes back into the Pile.")
        if kind == "lose":
            left = event["left"]
            still = (f"seat {left[0]} is" if len(left) == 1
                     else f"seats {', '.join(map(str, left))} are") + " still in"
            return (f"Seat {seat} picked up the Ace of Spades and is out: "
                    f"{_cards_word(len(cards))} go back into the Pile; {still}.")
        if kind == "sudden_death":
            return sudden_death_words(event["seats"])
        if kind == "win":
            return f"Seat {seat} wins: {win_words(event)}."
        if kind == "verdict":
            return f"Referee, seat {seat} ({event['rule']}): {event['text']}"
        return None


def sudden_death_words(seats: Sequence[int]) -> str:
    return (f"Sudden Death: seats {and_list([str(s) for s in seats])} are left; the next player to "
            f"lose ends the game ({P_SUDDEN_DEATH}).")


def win_words(event: dict[str, Any]) -> str:
    """Why the winner won, from a win event."""
    how, counts, tied = event["by"], event["cards"], event["tied"]
    if how == "spades_with_clubs":
        return WON_BY[how]
    mine = counts[str(event["seat"])]
    if how == "most_cards":
        return f"{WON_BY[how]} ({mine})" if len(counts) > 1 else f"the last player left ({_cards_word(mine)})"
    return (f"seats {and_list([str(s) for s in tied])} tie on {_cards_word(mine)}; "
            f"seat {event['seat']} {WON_BY[how]}")


def bot_count(state: YonacState, seat: int, rng: random.Random) -> int:
    """How many cards the bot collects: a share of the Pile sized to the risk of the Ace of
    Spades (k cards out of P hold it with chance k/P), bolder with a Potent Ace of Hearts; in
    Sudden Death one card when leading, enough to catch up when behind."""
    pile = len(state.pile)
    protected = "AH" in state.aside[seat]
    if state.sudden_death:
        lead = state.card_count(seat) - max(state.card_count(s) for s in state.alive if s != seat)
        if lead > 0 and not protected:
            return 1
        target = max(1 - lead, round(0.35 * pile)) if protected else min(1 - lead, max(1, pile // 4))
    else:
        target = round((0.35 if protected else 0.15) * pile)
    target += rng.choice((-1, 0, 0, 1))
    return max(1, min(pile, target))


def bot_plays_clubs(state: YonacState, seat: int) -> bool:
    """Play the Ace of Clubs when the Pile is small (at least a one-in-six chance of the Ace of
    Spades), or, in Sudden Death while not leading, when it is a one-in-twelve chance."""
    pile = len(state.pile)
    if pile <= 6:
        return True
    if state.sudden_death:
        lead = state.card_count(seat) - max(state.card_count(s) for s in state.alive if s != seat)
        return lead <= 0 and pile <= 12
    return False


def _swap_preference(state: YonacState, action: Action) -> tuple[int, int, int, str]:
    """In Sudden Death, the Ace of the player with the most cards (weaken the leader: their
    loss would end the game); otherwise the Ace of Clubs when the Pile is small (a real chance
    to win with it), else the Ace of Hearts. Then by seat and Joker, to be deterministic."""
    target, ace = action["target"], action["ace"]
    leader_first = -state.card_count(target) if state.sudden_death else 0
    wanted = "AC" if len(state.pile) <= 8 else "AH"
    return (leader_first, 0 if ace == wanted else 1, target, action["joker"])


class YonacState(State):
    """One game of Yonac. Seat 0 plays first; turns go clockwise among the players left."""

    game: Yonac

    def __init__(self, game: Yonac) -> None:
        super().__init__(game)
        n = game.players
        self.pile: set[str] = {c for c in DECK.codes if game.options["jokers"] or c not in JOKERS}
        self.stash: list[list[str]] = [[] for _ in range(n)]
        self.aside: list[list[str]] = [[] for _ in range(n)]  # Potent Aces set aside
        self.alive: list[int] = list(range(n))
        self.sudden_death = game.options["threshold"] >= n
        self.seat = 0  # whose turn it is
        self.step = TURN
        self.mode = COLLECT  # what this turn does: collect a Set or play the Ace of Clubs
        self.need = 0  # cards the pending draw must show
        self.set: list[str] = []  # the cards face up in front of the player this turn
        self.potent_jokers: set[str] = set()
        self.diamonds_potent = True
        self.turns = 0  # turns begun so far
        self.last_turn: list[int | None] = [None] * n
        self.winner: int | None = None
        self.result: dict[str, Any] | None = None  # the win event
        self.todo: list[str] = []  # what the table must do with the cards just judged, in words

    # -- reading the state -----------------------------------------------------
    def current_player(self) -> int:
        if self.step == OVER:
            return TERMINAL
        return CHANCE if self.step == DRAW else self.seat

    def card_count(self, seat: int) -> int:
        """Cards that count for `seat` at the end: the Stash and the Aces set aside."""
        return len(self.stash[seat]) + len(self.aside[seat])

    def swappable(self) -> list[tuple[int, str]]:
        """(seat, Ace) for every Potent Ace another player holds: what a Joker can take."""
        return [(s, a) for s in self.alive if s != self.seat for a in in_deck_order(self.aside[s])]

    def phase_words(self) -> str:
        return "Sudden Death" if self.sudden_death else "Elimination"

    def turn_number(self) -> int:
        """The turn in play, or the one about to begin."""
        return self.turns + (1 if self.step == TURN else 0)

    def where(self, card: str) -> str | None:
        """Where a card is when it is not in the Pile, in words; None when it is in the Pile."""
        if card in self.pile:
            return None
        if card in JOKERS and not self.game.options["jokers"]:
            return "not in play: this game is played without Jokers (option jokers is off)"
        if card in self.set:
            return "already in this Set"
        for s in range(self.game.players):
            if card in self.stash[s]:
                return f"already in seat {s}'s Stash"
            if card in self.aside[s]:
                return f"set aside by seat {s}"
        raise AssertionError(f"{card} is nowhere")  # every card is in exactly one place

    # -- moves -----------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        pile = len(self.pile)
        if self.step == TURN:
            moves = [Action.make("collect", self.seat, count=k) for k in range(1, pile + 1)]
            if "AC" in self.aside[self.seat]:
                moves.append(Action.make("play_clubs", self.seat))
            return moves
        if self.step == ADD:
            return [Action.make("add", self.seat, count=k) for k in range(1, pile + 1)]
        if self.step == SWAP:
            return [Action.make("swap", self.seat, joker=j, target=t, ace=a)
                    for j in in_deck_order(self.potent_jokers & set(self.set))
                    for t, a in self.swappable()]
        return []

    def sample_chance(self, rng: random.Random) -> Action:
        if self.step != DRAW:
            raise IllegalAction(f"no card is due from the Pile now: {self.explain()}")
        return Action.make("draw", None, cards=in_deck_order(rng.sample(in_deck_order(self.pile),
                                                                        self.need)))

    def check(self, action: Action) -> None:
        turn = self.turn_number()
        if self.step == OVER:
            raise IllegalAction(f"{action}: the game is over: {self.result_words()}")
        if action.kind not in self.game.action_kinds:
            raise IllegalAction(f"{action}: Yonac has no action {action.kind!r}; its actions are "
                                f"{', '.join(sorted(self.game.action_kinds))}")
        if self.step == DRAW:
            if action.kind != "draw":
                raise IllegalAction(f"turn {turn}: {action} comes too early: {self._prompt()}")
            self._check_draw(action)
            return
        if action.kind == "draw":
            raise IllegalAction(f"turn {turn}: no cards are due from the Pile now: {self._prompt()}")
        seat = action.seat
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise IllegalAction(f"turn {turn}: a {action.kind} needs the seat number that makes it, "
                                f"got {seat!r}")
        if seat != self.seat:
            who = (f"seat {seat} is out ({P_ELIMINATION})" if seat in range(self.game.players)
                   and seat not in self.alive
                   else f"it is seat {self.seat}'s turn, not seat {seat}'s ({P_ORDER})")
            raise IllegalAction(f"turn {turn}: {action.kind} by seat {seat}: {who}")
        allowed = {TURN: ("collect", "play_clubs"), ADD: ("add",), SWAP: ("swap",)}[self.step]
        if action.kind not in allowed:
            raise IllegalAction(f"turn {turn}: seat {seat} cannot {action.kind} now: {self._prompt()}")
        if action.kind in ("collect", "add"):
            self._check_count(action)
        elif action.kind == "play_clubs":
            if "AC" not in self.aside[seat]:
                where = self.where("AC") or "in the Pile"
                raise IllegalAction(f"turn {turn}: seat {seat} has no Potent Ace of Clubs set aside "
                                    f"to play: the Ace of Clubs is {where} ({P_PLAY_CLUBS})")
        else:
            self._check_swap(action)

    def _check_count(self, action: Action) -> None:
        count, turn, seat = action.get("count"), self.turn_number(), action.seat
        rule = P_DIAMONDS if action.kind == "add" else P_SET
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise IllegalAction(f"turn {turn}: seat {seat} must {action.kind} one or more cards, "
                                f"not {count!r} ({rule})")
        if count > len(self.pile):
            raise IllegalAction(f"turn {turn}: seat {seat} cannot {action.kind} {count} cards: the "
                                f"Pile holds {len(self.pile)} ({rule})")

    def _check_swap(self, action: Action) -> None:
        turn, seat = self.turn_number(), action.seat
        joker, target, ace = action.get("joker"), action.get("target"), action.get("ace")
        rule = P_CLUBS_JOKER if self.mode == CLUBS else P_JOKER_SWAP
        if joker not in self.set or joker not in self.potent_jokers:
            raise IllegalAction(f"turn {turn}: seat {seat} cannot swap {joker!r}: it is not a Potent "
                                f"Joker of this Set; swap {card_list(sorted(self.potent_jokers))} "
                                f"({rule})")
        if (target, ace) not in self.swappable():
            offers = "; ".join(f"seat {t}'s {DECK[a].name}" for t, a in self.swappable())
            raise IllegalAction(f"turn {turn}: seat {seat} cannot take {ace!r} from seat {target!r}: "
                                f"it is not another player's Potent Ace; the choice is {offers} "
                                f"({rule})")

    def _check_draw(self, action: Action) -> None:
        turn, seat = self.turn_number(), self.seat
        cards = action.get("cards")
        shown = f"turn {turn}: seat {seat}'s " + ("card" if self.mode == CLUBS else "Set")
        if action.seat is not None:
            raise IllegalAction(f"{shown}: a draw comes from the Pile and has no seat, got seat "
                                f"{action.seat}")
        if not isinstance(cards, tuple) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction(f"{shown}: a draw needs a list of card codes, got {cards!r}")
        if len(cards) != self.need:
            rule = P_CLUBS_DRAW if self.mode == CLUBS else P_DIAMONDS if self.set else P_SET
            picked = "was" if self.need == 1 else "were"
            raise IllegalAction(f"{shown} shows {_cards_word(len(cards))} ({card_list(cards)}), "
                                f"but {_cards_word(self.need)} {picked} picked up ({rule})")
        for card in cards:
            if card not in DECK:
                near = ", ".join(f"{c.name} ({c.code})" for c in DECK.closest(card))
                raise IllegalAction(f"{shown} shows {card!r}, which is not a card of the standard "
                                    f"deck" + (f"; closest: {near}" if near else ""))
            if cards.count(card) > 1:
                raise IllegalAction(f"{shown} shows {card_name(card)} ({card}) twice: there is "
                                    f"only one")
            where = self.where(card)
            if where:
                raise IllegalAction(f"{shown} shows {card_name(card)} ({card}), but it is {where}: "
                                    f"it cannot come from the Pile ({P_STASH})")

    # -- applying ----------------------------------------------------------------
    def _apply(self, action: Action) -> list[dict[str, Any]]:
        kind = action.kind
        if kind == "collect":
            self._begin_turn(COLLECT, action["count"])
            return []
        if kind == "play_clubs":
            self._begin_turn(CLUBS, 1)
            self.aside[self.seat].remove("AC")
            return [self._to_stash(self.seat, ["AC"])]
        if kind == "add":
            self.step, self.need, self.todo = DRAW, action["count"], []
            return []
        if kind == "draw":
            return self._draw(list(action["cards"]))
        return self._swap(action["joker"], action["target"], action["ace"])

    def _begin_turn(self, mode: str, need: int) -> None:
        self.turns += 1
        self.last_turn[self.seat] = self.turns
        self.mode, self.step, self.need, self.todo = mode, DRAW, need, []

    def _draw(self, cards: list[str]) -> list[dict[str, Any]]:
        self.pile.difference_update(cards)
        self.potent_jokers.update(c for c in cards if c in JOKERS)  # a drawn Joker is Potent
        if self.mode == CLUBS:
            self.set = in_deck_order(cards)
            return self._judge_clubs_card()
        self.set = in_deck_order(self.set + cards)
        return self._judge_set()

    def _swap(self, joker: str, target: int, ace: str) -> list[dict[str, Any]]:
        self.set.remove(joker)
        self.potent_jokers.discard(joker)
        self.aside[target].remove(ace)
        out = [self._to_stash(target, [joker])]
        if self.mode == CLUBS:
            self.set = [ace]  # judged as if it was the card picked up (¶ 2.2.2.4)
            return out + self._judge_clubs_card()
        self.set = in_deck_order([*self.set, ace])
        if self.potent_jokers & set(self.set) and self.swappable():
            return out  # another Joker to swap
        self.potent_jokers.clear()  # after the swaps the Jokers lose their Potency (¶ 2.2.1.6)
        return out + self._judge_set()

    def _judge_set(self) -> list[dict[str, Any]]:
        s = self.seat
        ruling = rule_on_set(self.set, potent_hearts="AH" in self.aside[s],
                             diamonds_potent=self.diamonds_potent, potent_jokers=self.potent_jokers,
                             can_swap=bool(self.swappable()))
        if ruling.result == "swap":
            self.step = SWAP
            return []
        if ruling.result == "more":
            self.diamonds_potent = False
            self.step = ADD
            return []
        self.todo = [f"Seat {s}: {advice(ruling)}"]
        if ruling.result == "lose":
            return self._lose(s)
        out: list[dict[str, Any]] = []
        if ruling.result == "saved":  # the Ace of Hearts goes to the Stash below
            self.aside[s].remove("AH")
            self.pile.update(self.set)
            out.append({"type": "saved", "seat": s, "cards": list(self.set)})
        elif ruling.result == "removed":
            self.pile.update(ruling.pile)
            out.append({"type": "removed", "seat": s, "cards": list(ruling.pile)})
        out += self._keep(s, ruling)
        self._end_turn()
        return out

    def _judge_clubs_card(self) -> list[dict[str, Any]]:
        s = self.seat
        ruling = rule_on_clubs_card(self.set[0], can_swap=bool(self.swappable()))
        if ruling.result == "swap":
            self.step = SWAP
            return []
        self.todo = [f"Seat {s}: {advice(ruling, clubs=True)}"]
        if ruling.result == "win":
            return [self._finish(s, "spades_with_clubs")]
        out = self._keep(s, ruling)
        if ruling.result == "more":
            self.set, self.step, self.need = [], DRAW, 1
            return out
        self._end_turn()
        return out

    def _keep(self, seat: int, ruling: Ruling) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for ace in ruling.aside:
            self.aside[seat].append(ace)
            out.append({"type": "aside", "seat": seat, "card": ace})
        if ruling.stash:
            out.append(self._to_stash(seat, list(ruling.stash)))
        return out

    def _to_stash(self, seat: int, cards: list[str]) -> dict[str, Any]:
        self.stash[seat].extend(cards)
        return {"type": "stash", "seat": seat, "cards": cards, "stash": len(self.stash[seat])}

    def _lose(self, seat: int) -> list[dict[str, Any]]:
        """The loser's Stash, Aces set aside and Set go back into the Pile (¶ 2.2.1.3)."""
        cards = in_deck_order(self.stash[seat] + self.aside[seat] + self.set)
        self.pile.update(cards)
        self.stash[seat], self.aside[seat], self.set = [], [], []
        self.alive.remove(seat)
        out: list[dict[str, Any]] = [{"type": "lose", "seat": seat, "cards": cards,
                                      "left": list(self.alive)}]
        if self.sudden_death:
            out.append(self._finish(*decide_winner(self.alive, self._counts(), self._held(),
                                                   self.last_turn)))
            return out
        if len(self.alive) == self.game.options["threshold"]:
            self.sudden_death = True
            out.append({"type": "sudden_death", "seats": list(self.alive)})
            self.todo.append(sudden_death_words(self.alive))
        self._end_turn()
        return out

    def _finish(self, winner: int, how: str, tied: Sequence[int] = ()) -> dict[str, Any]:
        self.winner, self.step = winner, OVER
        self.result = {"type": "win", "seat": winner, "by": how,
                       "cards": {str(s): self.card_count(s) for s in self.alive}, "tied": list(tied)}
        return dict(self.result)

    def _end_turn(self) -> None:
        self.set, self.mode, self.diamonds_potent, self.step = [], COLLECT, True, TURN
        self.potent_jokers.clear()
        later = [s for s in self.alive if s > self.seat]
        self.seat = later[0] if later else self.alive[0]

    def _counts(self) -> list[int]:
        return [self.card_count(s) for s in range(self.game.players)]

    def _held(self) -> list[set[str]]:
        return [set(self.stash[s]) | set(self.aside[s]) for s in range(self.game.players)]

    # -- results -----------------------------------------------------------------
    def scores(self) -> list[int]:
        """Cards each seat holds (Stash and Aces set aside); 0 for a player who is out."""
        return self._counts()

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def result_words(self) -> str:
        if self.result is None:
            return ""
        return f"seat {self.winner} wins: {win_words(self.result)}"

    # -- words and the screen ------------------------------------------------------
    def _prompt(self) -> str:
        """What the seat to act (or the Pile) must do next."""
        s = self.seat
        if self.step == OVER:
            return f"The game is over: {self.result_words()}."
        if self.step == TURN:
            clubs = ", or play your Ace of Clubs" if "AC" in self.aside[s] else ""
            return (f"Seat {s}'s turn: collect one or more cards from the Pile "
                    f"({len(self.pile)} left){clubs}.")
        if self.step == ADD:
            return f"Seat {s}: {advice(Ruling('more', P_DIAMONDS))}"
        if self.step == SWAP:
            offers = and_list([f"seat {t}'s {DECK[a].name}" for t, a in self.swappable()])
            return (f"Seat {s}: swap the Joker for another player's Potent Ace, you choose: "
                    f"{offers}. The Joker goes into that player's Stash and their Ace takes its "
                    f"place {'as the card you picked up' if self.mode == CLUBS else 'in your Set'}.")
        if self.mode == CLUBS:
            return f"Seat {s}: pick up one card from the Pile and show it face up."
        what = "more " if self.set else ""
        return f"Seat {s}: show the {self.need} {what}card{'s' if self.need > 1 else ''} picked up, face up."

    def limit_words(self) -> str:
        if self.step == OVER:
            return ""
        if self.step == ADD:
            return f"{P_DIAMONDS}: the Ace of Diamonds asks for more cards"
        if self.step == SWAP:
            return (f"{P_CLUBS_JOKER if self.mode == CLUBS else P_JOKER_SWAP}: the Joker must be "
                    f"swapped for another player's Potent Ace")
        return ""

    def explain(self) -> str:
        return " ".join([*self.todo, self._prompt()])

    def view(self) -> dict[str, Any]:
        """The kiosk's picture: phase, whose turn, what to do in words, and per player the
        cards held, the Stash count and the Potent Aces; the Pile's size and which Aces are
        in it (known by elimination)."""
        turn = self.current_player()
        return {
            "turn": turn if turn >= 0 else None,
            "phase": self.phase_words(),
            "next": self.explain(),
            "limit": self.limit_words(),
            "table": {
                "turn_number": self.turn_number(),
                "threshold": self.game.options["threshold"],
                "pile": len(self.pile),
                "pile_aces": [a for a in ACES if a in self.pile],
                "set": list(self.set),
                "todo": list(self.todo),
                "players": [{"seat": s, "out": s not in self.alive, "stash": len(self.stash[s]),
                             "potent": in_deck_order(self.aside[s]), "cards": self.card_count(s),
                             "had_turn": self.last_turn[s] is not None}
                            for s in range(self.game.players)],
                "eliminated": [s for s in range(self.game.players) if s not in self.alive],
                "winner": self.winner,
            },
        }

    def snapshot(self) -> dict[str, Any]:
        return {"pile": in_deck_order(self.pile), "stash": [list(s) for s in self.stash],
                "aside": [list(a) for a in self.aside], "alive": list(self.alive),
                "sudden_death": self.sudden_death, "seat": self.seat, "step": self.step,
                "mode": self.mode, "need": self.need, "set": list(self.set),
                "potent_jokers": in_deck_order(self.potent_jokers),
                "diamonds_potent": self.diamonds_potent, "turns": self.turns,
                "last_turn": list(self.last_turn), "winner": self.winner, "result": self.result,
                "todo": list(self.todo)}
