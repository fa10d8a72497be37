"""Yokir's game and state: the deal, the two bidding rounds, the discard, the tricks and
the hands' points, in full information, at the table (hands unknown: plays are checked
against what can be seen, and a revoke is reported when it is proven) and open-hand
teaching. The rules themselves are in `rules`, the words in `words`, the bot in `bot`.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import IllegalAction
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State
from companion.games.yokir import bot, words
from companion.games.yokir.rules import (
    CODES,
    DECK,
    HAND_SIZE,
    PLAYERS,
    SUITS,
    TARGET,
    TRICKS,
    card_name,
    effective_suit,
    explain_plays,
    game_winner,
    hand_points,
    legal_plays,
    oracle,
    sage,
    sort_cards,
    suit_name,
    title,
    trick_winner,
)
from companion.words import CardRef, Seat, Words, as_template, plain, render, seat_words, seats_words

# What `explain_plays` is given for the seat's words, to become the seat's reference.
_SEAT_MARK = "\x00seat\x00"


def _is_seat(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < PLAYERS



# --- the game -------------------------------------------------------------------

class Yokir(Game):
    name = "yokir"  # title, deck and players: companion/catalog.py
    options_spec = (
        Option("target", int, TARGET, "points that end the game (7 in the rules; lower it for a "
                                      "short teaching game)", min=1, max=99),
    )
    action_kinds = frozenset({"deal", "bid", "discard", "play"})
    outcome_kinds = frozenset({"trump", "turned_down", "trick", "hand", "game", "verdict"})

    def new_state(self) -> YokirState:
        return YokirState(self)

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Bid on hand strength, discard to shorten a suit, win tricks cheaply (`bot`)."""
        assert isinstance(state, YokirState)
        return bot.choose_action(state, rng)

    def public_action(self, action: Action) -> Action | None:
        """The table sees the dealer and the upcard but not the hands, and sees that the
        caller discards but not what."""
        if action.kind == "deal":
            return Action.make("deal", None, dealer=action.get("dealer"), hands=None,
                               upcard=action.get("upcard"))
        if action.kind == "discard":
            return Action.make("discard", action.seat, card=None)
        return action

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for players (`words.event_words`); None (the generic words) for an event
        this game does not know or cannot read, so wording never fails."""
        return words.event_words(event, self.options["target"])


_FIELDS = {"deal": {"dealer", "hands", "upcard"}, "bid": {"bid"}, "discard": {"card"},
           "play": {"card"}}
_PHASE_OF = {"deal": ("deal",), "bid": ("bid1", "bid2"), "discard": ("discard",), "play": ("play",)}


# --- the state ------------------------------------------------------------------

class YokirState(State):
    """A game of Yokir in play. A hand that is None is unknown (table mode): plays from it
    are checked against what the table has shown, not against the hand."""

    game: Yokir

    def __init__(self, game: Yokir) -> None:
        super().__init__(game)
        self.points = [0] * PLAYERS
        self.hand_no = 0  # hands dealt so far; the current hand's number once dealt
        self.first_dealer: int | None = None
        self.dealer: int | None = None
        self.phase = "deal"  # deal, bid1, bid2, discard, play, over
        self.winner: int | None = None
        self.verdicts: list[dict[str, Any]] = []
        self.last_trick: dict[str, Any] | None = None
        self.last_hand: dict[str, Any] | None = None
        self._new_hand()

    def _new_hand(self) -> None:
        self.hands: list[list[str] | None] = [None] * PLAYERS
        self.upcard: str | None = None
        # "face up", "taken up by seat 1", "turned down" (as data: see `upcard_state`)
        self.upcard_words: Words | None = None
        self.upcard_holder: int | None = None  # the caller who took it up, until it leaves
        self.bids: list[str] = []  # this round's bids, from left of the dealer
        self.caller: int | None = None
        self.trump: str | None = None
        self.out_of_play: dict[str, str] = {}  # card -> why nobody may play it this hand
        self.played: dict[str, tuple[int, int]] = {}  # card -> (seat, trick)
        self.trick: list[tuple[int, str]] = []
        self.leader: int | None = None
        self.tricks_won = [0] * PLAYERS
        self.shown_out: list[dict[str, int]] = [{} for _ in range(PLAYERS)]  # suit -> trick

    # -- whose move ---------------------------------------------------------------
    @property
    def trick_no(self) -> int:
        return sum(self.tricks_won) + 1

    def next_dealer(self) -> int | None:
        """The seat that deals the next hand (None before the first deal names one)."""
        if self.first_dealer is None:
            return None
        return (self.first_dealer + self.hand_no) % PLAYERS

    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase == "deal":
            return CHANCE
        assert self.dealer is not None
        if self.phase in ("bid1", "bid2"):
            return (self.dealer + 1 + len(self.bids)) % PLAYERS
        if self.phase == "discard":
            assert self.caller is not None
            return self.caller
        assert self.leader is not None
        return (self.leader + len(self.trick)) % PLAYERS

    @property
    def led(self) -> str | None:
        return self.trick[0][1] if self.trick else None

    def possible_cards(self, seat: int) -> list[str]:
        """The cards `seat` may still hold: its hand when known, else every card that is
        not played, not out of play and not known to be elsewhere."""
        hand = self.hands[seat]
        if hand is not None:
            return list(hand)
        return [c for c in CODES if self._owner_problem(seat, c) is None]

    def legal_cards(self, seat: int) -> list[str] | None:
        """The exact legal plays of `seat` now when its hand is known, else None."""
        hand = self.hands[seat]
        if hand is None or self.trump is None:
            return None
        return legal_plays(hand, self.led, self.trump)

    def legal_actions(self) -> list[Action]:
        seat = self.current_player()
        if self.phase == "bid1":
            return [Action.make("bid", seat, bid=b) for b in ("accept", "pass")]
        if self.phase == "bid2":
            assert self.upcard is not None
            return [Action.make("bid", seat, bid="pass")] + [
                Action.make("bid", seat, bid=s) for s in SUITS if s != self.upcard[1]]
        if self.phase == "discard":
            hidden = [Action.make("discard", seat, card=None)] if self.hands[seat] is None else []
            return hidden + [Action.make("discard", seat, card=c) for c in self.possible_cards(seat)]
        if self.phase == "play":
            cards = self.legal_cards(seat)
            if cards is None:
                cards = self.possible_cards(seat)
            return [Action.make("play", seat, card=c) for c in cards]
        return []

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase != "deal":
            raise IllegalAction(f"there is nothing to deal now: {self.explain()}")
        cards = list(CODES)
        rng.shuffle(cards)
        hands = [sort_cards(cards[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(PLAYERS)]
        dealer = self.next_dealer()
        if dealer is None:
            dealer = rng.randrange(PLAYERS)
        return Action.make("deal", None, dealer=dealer, hands=hands, upcard=cards[PLAYERS * HAND_SIZE])

    # -- checking -------------------------------------------------------------------
    def check(self, action: Action) -> None:
        if self.phase == "over":
            raise IllegalAction(f"{self._cannot(action)}: the game is over ({self.result_words()})")
        if action.kind not in _FIELDS:
            raise IllegalAction(f"{action}: Yokir has no {action.kind!r} move; the moves are "
                                "deal, bid, discard and play")
        extra = sorted({k for k, _ in action.data} - _FIELDS[action.kind])
        if extra:
            raise IllegalAction(f"{action}: a {action.kind} has no field {extra[0]!r} (its fields: "
                                f"{', '.join(sorted(_FIELDS[action.kind]))})")
        if action.kind == "deal":
            if action.seat is not None:
                raise IllegalAction(f"{action}: a deal is a chance move, its seat must be null")
        elif not _is_seat(action.seat):
            raise IllegalAction(f"{action}: the seats are 1, 2 and 3, not {action.seat!r}")
        if self.phase not in _PHASE_OF[action.kind]:
            raise IllegalAction(f"{self._cannot(action)} now: {self.explain()}")
        if action.kind != "deal" and action.seat != self.current_player():
            raise IllegalAction(self._out_of_turn(action))
        {"deal": self._check_deal, "bid": self._check_bid, "discard": self._check_discard,
         "play": self._check_play}[action.kind](action)

    def _cannot(self, action: Action) -> str:
        """The refused action in words: "seat 2 cannot play the Master of Thought"."""
        if action.kind == "deal":
            return "no deal is possible"
        card = action.get("card")
        if action.kind == "bid":
            return f"{seat_words(action.seat)} cannot bid {action.get('bid')!r}"
        shown = title(card, self.trump) if isinstance(card, str) and card in DECK else "a card"
        return f"{seat_words(action.seat)} cannot {action.kind} {shown}"

    def _out_of_turn(self, action: Action) -> str:
        turn = self.current_player()
        if action.kind == "play":
            card = action.get("card")
            what = f"play {title(card, self.trump)}" if card in DECK else "play"
            why = ("the seat left of the dealer leads the first trick" if self.trick_no == 1
                   else "the winner of the last trick leads") if not self.trick else \
                "play goes clockwise from the leader"
            return (f"{seat_words(action.seat)} cannot {what} in trick {self.trick_no}: it is "
                    f"{seat_words(turn)}'s turn ({why}; rule: turn order)")
        if action.kind == "bid":
            return (f"{seat_words(action.seat)} cannot bid now: it is {seat_words(turn)}'s turn "
                    f"(bidding goes "
                    f"clockwise from the left of the dealer; rule: turn order)")
        return f"{seat_words(action.seat)} cannot discard: {seat_words(turn)} called trump and discards"

    def _check_deal(self, action: Action) -> None:
        dealer, hands, upcard = action.get("dealer"), action.get("hands"), action.get("upcard")
        expected = self.next_dealer()
        if dealer is None:
            if expected is None:
                raise IllegalAction("the first deal must say who deals (dealer 0, 1 or 2)")
        elif not _is_seat(dealer):
            raise IllegalAction(f"the dealer must be seat 1, 2 or 3, not {seat_words(dealer)}")
        elif expected is not None and dealer != expected:
            raise IllegalAction(f"hand {self.hand_no + 1} is dealt by {seat_words(expected)}, not "
                                f"{seat_words(dealer)} (the deal moves one seat clockwise after every hand)")
        if not isinstance(upcard, str) or upcard not in DECK:
            raise IllegalAction(f"the upcard {upcard!r} is not a Yokir card code (see CARDS.md)")
        if hands is None:
            return
        if not isinstance(hands, tuple) or len(hands) != PLAYERS:
            raise IllegalAction(f"a deal's hands are three lists of five cards (or null), got "
                                f"{hands!r}")
        seen = {upcard: "the upcard"}
        for seat, hand in enumerate(hands):
            if hand is None:
                continue
            if not isinstance(hand, tuple) or len(hand) != HAND_SIZE:
                raise IllegalAction(f"{seat_words(seat)}'s hand must be five cards (or null), got {hand!r}")
            for card in hand:
                if not isinstance(card, str) or card not in DECK:
                    raise IllegalAction(f"{seat_words(seat)}'s hand holds {card!r}, not a Yokir card code")
                if card in seen:
                    raise IllegalAction(f"the {card_name(card)} is dealt twice: to {seat_words(seat)} and "
                                        f"{seen[card]} (a card is in the deck once)")
                seen[card] = f"{seat_words(seat)}"

    def _check_bid(self, action: Action) -> None:
        bid, seat = action.get("bid"), action.seat
        assert self.upcard is not None
        if self.phase == "bid1":
            if bid not in ("accept", "pass"):
                raise IllegalAction(f"{seat_words(seat)} bids {bid!r}: in round 1 a bid is 'accept' (take "
                                    f"up the {card_name(self.upcard)}) or 'pass'")
            return
        others = [s for s in SUITS if s != self.upcard[1]]
        if bid == self.upcard[1]:
            raise IllegalAction(f"{seat_words(seat)} cannot call {suit_name(bid)} in round 2: the upcard "
                                f"of that suit was turned down; name "
                                f"{', '.join(suit_name(s) for s in others)} or pass")
        if bid != "pass" and bid not in others:
            raise IllegalAction(f"{seat_words(seat)} bids {bid!r}: in round 2 a bid is 'pass' or a suit "
                                f"letter ({', '.join(others)})")

    def _check_discard(self, action: Action) -> None:
        card, seat = action.get("card"), action.seat
        hand = self.hands[seat]
        if card is None:
            if hand is not None:
                raise IllegalAction(f"{seat_words(seat)}'s hand is known: say which card they discard "
                                    f"(one of {' '.join(hand)})")
            return
        self._check_card(seat, card, "discard")

    def _check_play(self, action: Action) -> None:
        seat, card = action.seat, action.get("card")
        self._check_card(seat, card, "play")
        hand = self.hands[seat]
        assert self.trump is not None
        if hand is not None and self.led is not None:
            allowed = legal_plays(hand, self.led, self.trump)
            if card not in allowed:
                led_suit = suit_name(effective_suit(self.led, self.trump))
                raise IllegalAction(
                    f"{seat_words(seat)} cannot play {title(card, self.trump)} in trick {self.trick_no}: "
                    f"they must follow {led_suit} and hold {words.cards_words(allowed, self.trump)} "
                    f"(rule: follow suit)")

    def _check_card(self, seat: int, card: Any, verb: str) -> None:
        where = f" in trick {self.trick_no}" if verb == "play" else ""
        if not isinstance(card, str) or card not in DECK:
            raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card!r}{where}: not a Yokir card code")
        problem = self._owner_problem(seat, card)
        if problem:
            raise IllegalAction(f"{seat_words(seat)} cannot {verb} {title(card, self.trump)}{where}: "
                                f"{problem}")

    def _owner_problem(self, seat: int, card: str) -> str | None:
        """Why `seat` provably cannot hold `card` now, or None when it may."""
        if card in self.played:
            by, trick = self.played[card]
            return (f"{seat_words(by)} already played it in trick {trick} of this hand "
                    f"(rule: each card is in the deck once)")
        if card in self.out_of_play:
            return f"{self.out_of_play[card]} (rule: a card that belongs to no one)"
        hand = self.hands[seat]
        if hand is not None:
            if card not in hand:
                return (f"it is not in {seat_words(seat)}'s hand ({' '.join(hand)}) (rule: play from "
                        f"your hand)")
            return None
        for other, cards in enumerate(self.hands):
            if other != seat and cards is not None and card in cards:
                return f"it is in {seat_words(other)}'s hand (rule: a card that belongs to someone else)"
        if card == self.upcard and self.upcard_holder not in (None, seat):
            return (f"it is the upcard, taken up by {seat_words(self.upcard_holder)} "
                    f"(rule: a card that belongs to someone else)")
        return None

    # -- applying --------------------------------------------------------------------
    def _apply(self, action: Action) -> list[dict[str, Any]]:
        if action.kind == "deal":
            return self._deal(action)
        seat = action.seat
        assert seat is not None
        if action.kind == "bid":
            return self._bid(seat, action["bid"])
        if action.kind == "discard":
            return self._discard(seat, action.get("card"))
        return self._play(seat, action["card"])

    def _deal(self, action: Action) -> list[dict[str, Any]]:
        self._new_hand()
        dealer = action.get("dealer")
        if dealer is None:
            dealer = self.next_dealer()
        if self.first_dealer is None:
            self.first_dealer = dealer
        self.dealer = dealer
        self.hand_no += 1
        hands = action.get("hands")
        if hands is not None:
            self.hands = [None if h is None else sort_cards(h) for h in hands]
        self.upcard = action["upcard"]
        self.upcard_words = plain("face up")
        self.phase = "bid1"
        return []

    def _bid(self, seat: int, bid: str) -> list[dict[str, Any]]:
        assert self.upcard is not None
        if bid != "pass":
            self.caller = seat
            self.trump = self.upcard[1] if bid == "accept" else bid
            event = {"type": "trump", "hand": self.hand_no, "caller": seat, "suit": self.trump,
                     "round": 1 if self.phase == "bid1" else 2, "oracle": oracle(self.trump),
                     "sage": sage(self.trump)}
            if bid == "accept":
                self.upcard_holder = seat
                self.upcard_words = Words.of("taken up by {seat}", seat=Seat(seat))
                hand = self.hands[seat]
                if hand is not None:
                    self.hands[seat] = sort_cards([*hand, self.upcard])
                self.phase = "discard"
            else:
                self._start_play()
            self.bids = []
            return [event]
        self.bids.append(bid)
        if len(self.bids) < PLAYERS:
            return []
        self.bids = []
        if self.phase == "bid1":
            self.phase = "bid2"
            self.upcard_words = plain("turned down")
            self.out_of_play[self.upcard] = "it is the upcard, turned down when all passed in round 1"
            return [{"type": "turned_down", "hand": self.hand_no, "card": self.upcard}]
        return self._end_hand(void=True)

    def _discard(self, seat: int, card: str | None) -> list[dict[str, Any]]:
        if card is not None:
            hand = self.hands[seat]
            if hand is not None:
                hand.remove(card)
            self.out_of_play[card] = f"{seat_words(seat)} discarded it face down"
            if card == self.upcard:
                self.upcard_holder = None
        self._start_play()
        return []

    def _start_play(self) -> None:
        assert self.dealer is not None
        self.phase = "play"
        self.leader = (self.dealer + 1) % PLAYERS

    def _play(self, seat: int, card: str) -> list[dict[str, Any]]:
        assert self.trump is not None
        trick = self.trick_no
        out: list[dict[str, Any]] = []
        suit = effective_suit(card, self.trump)
        failed_in = self.shown_out[seat].pop(suit, None)
        if failed_in is not None:
            out.append(self._revoke(seat, card, failed_in))
        if self.led is not None:
            led_suit = effective_suit(self.led, self.trump)
            if suit != led_suit:
                self.shown_out[seat].setdefault(led_suit, trick)
        hand = self.hands[seat]
        if hand is not None:
            hand.remove(card)
        if card == self.upcard:
            self.upcard_holder = None
        self.played[card] = (seat, trick)
        self.trick.append((seat, card))
        if len(self.trick) < PLAYERS:
            return out
        best, why = trick_winner([c for _, c in self.trick], self.trump)
        winner = self.trick[best][0]
        self.tricks_won[winner] += 1
        cards = [{"seat": s, "card": c} for s, c in self.trick]
        self.last_trick = {"cards": cards, "winner": winner, "why": why}
        out.append({"type": "trick", "hand": self.hand_no, "trick": trick, "cards": cards,
                    "winner": winner, "card": self.trick[best][1], "why": why,
                    "tricks": list(self.tricks_won)})
        self.trick = []
        self.leader = winner
        if trick == TRICKS:
            out += self._end_hand(void=False)
        return out

    def _revoke(self, seat: int, card: str, failed_in: int) -> dict[str, Any]:
        assert self.trump is not None
        suit = effective_suit(card, self.trump)
        counts = f", which counts as {suit_name(suit)}" if card == sage(self.trump) else ""
        text = (f"{seat_words(seat, capital=True)} revoked in trick {failed_in}: they did not follow "
                f"{suit_name(suit)} there, yet they held {title(card, self.trump)}{counts}, shown "
                f"in trick {self.trick_no} (rule: follow suit if able).")
        verdict = {"type": "verdict", "hand": self.hand_no, "seat": seat, "trick": failed_in,
                   "card": card, "rule": "revoke", "text": text}
        self.verdicts.append(verdict)
        return verdict

    def _end_hand(self, *, void: bool) -> list[dict[str, Any]]:
        if void:
            points = [0] * PLAYERS
            why = "everybody passed twice, the hand is void and nobody scores"
            event: dict[str, Any] = {"type": "hand", "hand": self.hand_no, "dealer": self.dealer,
                                     "caller": None, "trump": None, "tricks": None}
        else:
            assert self.caller is not None
            taken = self.tricks_won[self.caller]
            points = hand_points(self.caller, taken)
            others = [s for s in range(PLAYERS) if s != self.caller]
            plural = "trick" if taken == 1 else "tricks"
            gain = (f"{seats_words(others)} score 1 each" if taken <= 2 else
                    f"{seat_words(self.caller)} scores {points[self.caller]}")
            assert self.trump is not None
            why = (f"{seat_words(self.caller)} called {suit_name(self.trump)} and took {taken} {plural}, "
                   f"so {gain}")
            event = {"type": "hand", "hand": self.hand_no, "dealer": self.dealer,
                     "caller": self.caller, "trump": self.trump, "tricks": taken}
        self.points = [p + q for p, q in zip(self.points, points, strict=True)]
        event.update(points=points, scores=list(self.points), why=why)
        self.last_hand = event
        out = [event]
        winner = game_winner(self.points, self.game.options["target"])
        if winner is not None:
            self.phase = "over"
            self.winner = winner
            target = self.game.options["target"]
            out.append({"type": "game", "winner": winner, "scores": list(self.points),
                        "why": f"{self.points[winner]} points, alone at the top with {target} or more"})
        else:
            self.phase = "deal"
        self._new_hand()
        return out

    # -- results and words -------------------------------------------------------------
    def scores(self) -> list[int]:
        return list(self.points)

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    @property
    def upcard_state(self) -> str | None:
        """What became of the upcard, in words: "face up", "taken up by seat 1", "turned down"."""
        return None if self.upcard_words is None else render(self.upcard_words)

    def facts_words(self) -> dict[str, Words]:
        return {} if self.upcard_words is None else {"upcard_state": self.upcard_words}

    def result_words(self) -> str:
        return render(self._result())

    def _result(self) -> Words:
        if self.winner is None:
            return plain("")
        return Words.of("{seat} won with {points} points", seat=Seat(self.winner),
                        points=self.points[self.winner])

    def phase_words(self) -> str:
        return {"deal": "deal", "bid1": "bidding, round 1", "bid2": "bidding, round 2",
                "discard": "discard", "play": f"trick {self.trick_no} of {TRICKS}",
                "over": "game over"}[self.phase]

    def limit_words(self) -> str:
        """The rule that limits the seat to act, in a few words ("must follow Thought")."""
        if self.phase == "bid2":
            assert self.upcard is not None
            return f"may not name {suit_name(self.upcard[1])}, the turned-down suit"
        if self.phase != "play" or self.led is None:
            return ""
        assert self.trump is not None
        suit = suit_name(effective_suit(self.led, self.trump))
        hand = self.hands[self.current_player()]
        if hand is not None and not any(effective_suit(c, self.trump) == effective_suit(
                self.led, self.trump) for c in hand):
            return f"no {suit} in hand: any card"
        return f"must follow {suit} if able"

    def explain(self) -> str:
        return render(self.explain_words())

    def explain_words(self) -> Words:
        if self.phase == "over":
            return Words.of("The game is over: {result}.", result=self._result())
        if self.phase == "deal":
            dealer = self.next_dealer()
            who: Seat | str = Seat(dealer) if dealer is not None else "a dealer chosen at random"
            return Words.of(f"Hand {self.hand_no + 1}: {{who}} deals five cards to each player "
                            f"and turns up the top card of the rest.", who=who)
        seat = Seat(self.current_player())
        assert self.upcard is not None
        up = words.card(self.upcard)
        if self.phase == "bid1":
            return Words.of(f"Bidding round 1: {{seat}} accepts the {{up}} (making "
                            f"{suit_name(self.upcard[1])} trump, taking it up and discarding "
                            f"one) or passes.", seat=seat, up=up)
        if self.phase == "bid2":
            names = ", ".join(suit_name(s) for s in SUITS if s != self.upcard[1])
            return Words.of(f"Bidding round 2: the {{up}} is turned down; {{seat}} names {names} "
                            f"as trump, or passes.", seat=seat, up=up)
        if self.phase == "discard":
            return Words.of("{Seat} took up the {up} and discards one card face down.",
                            seat=seat, up=up)
        assert self.trump is not None
        head = Words.of(f"Trick {self.trick_no} of {TRICKS}, {suit_name(self.trump)} trump: "
                        f"{{seat}} to play.", seat=seat)
        hand = self.hands[seat.index]
        if hand is not None:
            legal = legal_plays(hand, self.led, self.trump)
            why = Words(as_template(explain_plays(hand, self.led, self.trump, _SEAT_MARK),
                                    Seat=_SEAT_MARK), (("seat", seat),))
            cards = {f"c{i}": CardRef(c, title(c, self.trump)) for i, c in enumerate(legal)}
            listed = Words(", ".join(f"{{{k}}}" for k in cards), tuple(cards.items()))
            return Words.of("{head} {why} Legal: {legal}.", head=head, why=why, legal=listed)
        if self.led is None:
            return Words.of("{head} {Seat} leads any card.", head=head, seat=seat)
        suit = suit_name(effective_suit(self.led, self.trump))
        return Words.of(f"{{head}} {{Seat}} must follow {suit} if able.", head=head, seat=seat)

    def view(self) -> dict[str, Any]:
        turn = self.current_player()
        view: dict[str, Any] = {"turn": turn if turn >= 0 else None, "phase": self.phase_words(),
                                "next": self.explain()}
        limit = self.limit_words()
        if limit:
            view["limit"] = limit
        if self.phase in ("bid1", "bid2"):
            view["legal"] = [a["bid"] for a in self.legal_actions()]
        elif self.phase == "discard" and self.hands[turn] is not None:
            view["legal"] = self.possible_cards(turn)
        elif self.phase == "play" and self.hands[turn] is not None:
            view["legal"] = self.legal_cards(turn)
        view["trick"] = [{"seat": s, "card": c} for s, c in self.trick]
        view["last_trick"] = self.last_trick
        view["table"] = {
            "hand": self.hand_no, "dealer": self.dealer if self.phase != "deal" else self.next_dealer(),
            "upcard": self.upcard, "upcard_state": self.upcard_state, "trump": self.trump,
            "trump_name": suit_name(self.trump) if self.trump else None, "caller": self.caller,
            "oracle": oracle(self.trump) if self.trump else None,
            "sage": sage(self.trump) if self.trump else None,
            "tricks": list(self.tricks_won), "scores": list(self.points),
            "target": self.game.options["target"],
            "hands_known": [h is not None for h in self.hands],
            "shown_out": [sorted(d) for d in self.shown_out],
            "last_hand": self.last_hand, "verdicts": list(self.verdicts)}
        return view

    def snapshot(self) -> dict[str, Any]:
        return {"points": list(self.points), "hand_no": self.hand_no,
                "first_dealer": self.first_dealer, "dealer": self.dealer, "phase": self.phase,
                "winner": self.winner, "hands": [None if h is None else list(h) for h in self.hands],
                "upcard": self.upcard, "upcard_state": self.upcard_state,
                "upcard_holder": self.upcard_holder, "bids": list(self.bids),
                "caller": self.caller, "trump": self.trump, "out_of_play": dict(self.out_of_play),
                "played": {c: list(v) for c, v in self.played.items()},
                "trick": [list(p) for p in self.trick], "leader": self.leader,
                "tricks_won": list(self.tricks_won), "shown_out": [dict(d) for d in self.shown_out],
                "verdicts": list(self.verdicts), "last_trick": self.last_trick,
                "last_hand": self.last_hand}
