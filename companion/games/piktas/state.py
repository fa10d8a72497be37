"""Piktas's game and state: swap cards with a growing field to build the best-scoring pool, 2 to 11 players.

Reading (RULINGS, docs/games/piktas.md): deal 6 to each player and 3 positions to the
field; a void dealt into the field gets the next card dealt under it (the pair is one
position). Three swap cycles follow, each starting left of the dealer: pass, swap a hand
card for an uncovered field card, or place a void from the hand on an uncovered field
card. After each cycle the dealer adds a position; when the field has 6 positions the
players show their hands in turn (after a betting cycle when betting is on). The scorer
is `rules` (`score`); the round goes to the best total, then the tie-breaks. The words are
in `words`, the hints and the bot in `bot`.

One state serves every use: full information (bots), the table (hands hidden: the deal
carries `hands: null` and the hands arrive with the showdown's `show` actions) and open
hand teaching (one seat's hand known). What the table proves wrong at once raises
IllegalAction; a shown hand that proves an earlier breach gives a `verdict` outcome.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import IllegalAction
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State
from companion.games.piktas import bot, words
from companion.games.piktas.bot import Hint, hints
from companion.games.piktas.rules import (
    DECK,
    FIELD_POSITIONS,
    HAND_SIZE,
    Score,
    card_order,
    is_covered,
    is_void,
    position_card,
    score,
)
from companion.games.piktas.words import cards_words
from companion.words import CardRef, Seat, Words, each_seat, listed, plain, render, seat_words

CYCLES = 3  # swap cycles, at 3, 4 and 5 field positions; the 6th position ends the swapping
FIRST_FIELD = 3
ALL_CARDS = tuple(c.code for c in DECK)


# --- the game --------------------------------------------------------------------

class Piktas(Game):
    name = "piktas"
    title = "Piktas"
    deck = "piktas"
    min_players = 2
    max_players = 11
    default_players = 4
    options_spec = (
        Option("rounds", int, 1, "rounds to play; the dealer moves one seat left each round",
               min=1, max=100),
        Option("betting", bool, False, "play for chips: a buy-in each round and a betting cycle "
                                       "(raise, match, fold, stay) before the showdown"),
        Option("buy_in", int, 1, "chips each player puts in the pot at the start of a round",
               min=1, max=1000),
        Option("max_raise", int, 5, "the largest raise, in chips, allowed in one betting turn",
               min=1, max=1000),
    )
    action_kinds = frozenset({"deal", "draw", "pass", "swap", "void", "raise", "match", "fold",
                              "stay", "show"})
    outcome_kinds = frozenset({"buy_in", "score", "round", "verdict"})

    def new_state(self) -> PiktasState:
        return PiktasState(self)

    def public_action(self, action: Action) -> Action | None:
        """The hands are dealt face down; everything else happens face up (swaps and voids
        move visible cards, and the showdown shows the hands)."""
        if action.kind == "deal":
            return Action.make("deal", None, dealer=action.get("dealer"), hands=None,
                               field=action.get("field"))
        return action

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Swap cycles: the move that leaves the best score (see `hints`). Betting: raise
        once with a strong pool, fold a weak one facing a raise, otherwise match or stay."""
        assert isinstance(state, PiktasState)
        return bot.choose_action(state, rng)

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for players (`words.event_words`); None for an event Piktas cannot read."""
        return words.event_words(event)


# --- the state ---------------------------------------------------------------------

class PiktasState(State):
    game: Piktas

    def __init__(self, game: Piktas) -> None:
        super().__init__(game)
        n = game.players
        self.round = 0
        self.dealer: int | None = None
        self.phase = "deal"  # deal, swap, draw, bet, show, over
        self.totals = [0] * n
        self.chips = [0] * n  # betting: each seat's chips won minus chips paid
        self.results: list[dict[str, Any]] = []  # one "round" outcome per round played
        self.verdicts: list[dict[str, Any]] = []
        self._new_round()

    def _new_round(self) -> None:
        n = self.game.players
        self.cycle = 0
        self.turn = 0
        self.acted = 0
        self.field: list[list[str]] = []  # positions, top card first
        self.hands: list[list[str] | None] = [None] * n  # None: hidden
        self.hand_size = [HAND_SIZE] * n
        self.where: dict[str, int | str] = {}  # card -> "field" or the seat known to hold it
        self.taken: list[dict[str, int]] = [{} for _ in range(n)]  # card -> cycle, still held
        self.stock = 0
        self.pot = 0
        self.bet_level = 0
        self.put = [0] * n
        self.to_act: list[int] = []
        self.raisers: set[int] = set()
        self.folded: set[int] = set()
        self.to_show: list[int] = []
        self.shown: dict[int, Score] = {}

    # -- whose move -------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase in ("deal", "draw"):
            return CHANCE
        if self.phase == "swap":
            return self.turn
        if self.phase == "bet":
            return self.to_act[0]
        if self.phase == "show":
            return self.to_show[0]
        return TERMINAL

    def _left_of_dealer(self) -> list[int]:
        n = self.game.players
        assert self.dealer is not None
        return [(self.dealer + 1 + i) % n for i in range(n)]

    def next_dealer(self) -> int | None:
        """The seat that deals the next round (None before the first deal: any seat)."""
        return None if self.dealer is None else (self.dealer + 1) % self.game.players

    # -- what the table shows -----------------------------------------------------
    def takeable(self) -> list[str]:
        """The uncovered field cards, in field order: the cards a swap may take."""
        return [p[0] for p in self.field if not is_void(p[0])]

    def field_cards(self) -> list[str]:
        """Every field card that scores, covered ones included."""
        return [c for c in (position_card(p) for p in self.field) if c]

    def hints(self) -> list[Hint]:
        """Open hand: every move of the seat to act in a swap cycle, best first (see `hints`);
        empty when it is not a swap turn or the seat's hand is hidden."""
        seat = self.current_player()
        if self.phase != "swap" or self.hands[seat] is None:
            return []
        covered = [c for c in (position_card(p) for p in self.field if is_covered(p)) if c]
        return hints(self.hands[seat] or [], self.takeable(), covered)

    def owed(self, seat: int) -> int:
        """Betting: chips the seat must add to match the current bet."""
        return self.bet_level - self.put[seat]

    # -- moves ------------------------------------------------------------------------
    def legal_actions(self) -> list[Action]:
        seat = self.current_player()
        if seat < 0:
            return []
        if self.phase == "swap":
            return self._swap_actions(seat)
        if self.phase == "bet":
            moves = ["match", "fold"] if self.owed(seat) else ["stay", "fold"]
            out = [Action.make(m, seat) for m in moves]
            return out + [Action.make("raise", seat, amount=a)
                          for a in range(1, self.game.options["max_raise"] + 1)]
        hand = self.hands[seat]
        # a hidden hand cannot be listed: `check` judges whatever the table shows
        return [Action.make("show", seat, hand=hand)] if hand is not None else []

    def _swap_actions(self, seat: int) -> list[Action]:
        takeable = self.takeable()
        hand = self.hands[seat]
        if hand is None:  # any card not seen elsewhere could be in a hidden hand
            hand = [c for c in ALL_CARDS if self.where.get(c, seat) == seat]
        out = [Action.make("pass", seat)]
        out += [Action.make("swap", seat, take=t, give=g) for g in hand if not is_void(g)
                for t in takeable]
        out += [Action.make("void", seat, void=v, on=t) for v in hand if is_void(v) for t in takeable]
        return out

    def sample_chance(self, rng: random.Random) -> Action:
        if self.phase == "deal":
            n = self.game.players
            cards = list(ALL_CARDS)
            rng.shuffle(cards)
            hands = [sorted(cards[HAND_SIZE * i:HAND_SIZE * (i + 1)], key=card_order)
                     for i in range(n)]
            stock = cards[HAND_SIZE * n:]
            field = [_deal_position(stock) for _ in range(FIRST_FIELD)]
            dealer = self.next_dealer()
            return Action.make("deal", None, dealer=rng.randrange(n) if dealer is None else dealer,
                               hands=hands, field=field)
        if self.phase == "draw":
            stock = [c for c in ALL_CARDS if c not in self.where and
                     all(c not in h for h in self.hands if h)]
            rng.shuffle(stock)
            return Action.make("draw", None, cards=_deal_position(stock[:self.stock]))
        raise IllegalAction(f"no deal or draw is due: {self.explain()}")

    # -- checks -------------------------------------------------------------------------
    def check(self, action: Action) -> None:
        if self.phase == "over":
            raise IllegalAction(f"{action}: the game is over")
        kind = action.kind
        if kind not in self.game.action_kinds:
            raise IllegalAction(f"{action}: Piktas has no {kind!r} move; the moves are "
                                f"{', '.join(sorted(self.game.action_kinds))}")
        if kind in ("deal", "draw"):
            if self.phase != kind:
                raise IllegalAction(f"{action}: no {kind} is due: {self.explain()}")
            (self._check_deal if kind == "deal" else self._check_draw)(action)
            return
        seat = action.seat
        if not isinstance(seat, int) or not 0 <= seat < self.game.players:
            raise IllegalAction(f"{action}: the seats are 1 to {self.game.players}")
        want = {"pass": "swap", "swap": "swap", "void": "swap", "show": "show"}.get(kind, "bet")
        if self.phase != want:
            raise IllegalAction(f"{seat_words(seat)} cannot {kind} now: {self.explain()}")
        if seat != self.current_player():
            raise IllegalAction(f"{seat_words(seat)} cannot {kind} out of turn: {self._turn_words()} "
                                f"(play goes clockwise from the dealer's left)")
        if kind == "swap":
            self._check_swap(seat, action)
        elif kind == "void":
            self._check_void(seat, action)
        elif kind == "show":
            self._check_show(seat, action)
        elif kind in ("raise", "match", "fold", "stay"):
            self._check_bet(seat, action)

    def _turn_words(self) -> str:
        seat = self.current_player()
        if self.phase == "swap":
            return f"it is {seat_words(seat)}'s turn in cycle {self.cycle} of round {self.round}"
        if self.phase == "bet":
            return f"it is {seat_words(seat)}'s turn to bet"
        return f"it is {seat_words(seat)}'s turn to show"

    def _card(self, code: Any, what: str) -> str:
        if not isinstance(code, str) or code not in DECK:
            near = DECK.closest(str(code)) if isinstance(code, str) else []
            hint = f" (closest: {', '.join(c.code for c in near)})" if near else ""
            raise IllegalAction(f"{what} {code!r} is not a Piktas card{hint}")
        return code

    def _cards(self, codes: Any, what: str) -> list[str]:
        if not isinstance(codes, list | tuple):
            raise IllegalAction(f"{what} must be a list of cards, got {codes!r}")
        return [self._card(c, what) for c in codes]

    def _elsewhere(self, card: str, seat: int | None) -> str | None:
        """Where the table has already seen `card`, if not with `seat`: words, or None."""
        place = self.where.get(card)
        if place is None or place == seat:
            return None
        if place == "field":
            return f"{card} is in the field"
        cycle = self.taken[place].get(card) if isinstance(place, int) else None
        how = f", taken from the field in cycle {cycle}" if cycle else ""
        return f"{card} is held by {seat_words(place)}{how}"

    def _check_position(self, position: Any, stock: int, what: str) -> list[str]:
        cards = self._cards(position, what)
        if not cards:
            raise IllegalAction(f"{what} is empty: a field position holds a card")
        voids = [c for c in cards if is_void(c)]
        if any(is_void(c) for c in cards[len(voids):]) or len(voids) < len(cards) - 1:
            raise IllegalAction(f"{what} {cards_words(cards)}: a position is one card, or voids with "
                                f"the card dealt under them (top first)")
        if len(cards) > stock:
            raise IllegalAction(f"{what} {cards_words(cards)}: only {stock} cards are left to deal")
        if position_card(cards) is None and len(cards) < stock:
            raise IllegalAction(f"{what} {cards_words(cards)}: a void dealt into the field gets the "
                                f"next card dealt under it")
        return cards

    def _check_deal(self, action: Action) -> None:
        n = self.game.players
        dealer = action.get("dealer")
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < n:
            raise IllegalAction(f"{action}: the dealer is a seat from 0 to {n - 1}")
        due = self.next_dealer()
        if due is not None and dealer != due:
            raise IllegalAction(f"{seat_words(dealer)} cannot deal round {self.round + 1}: the deal "
                                f"passes to the dealer's left, {seat_words(due)}")
        seen: set[str] = set()

        def see(card: str, where: str) -> None:
            if card in seen:
                raise IllegalAction(f"the deal shows {card} twice ({where})")
            seen.add(card)

        hands = action.get("hands")
        if hands is not None:
            if not isinstance(hands, list | tuple) or len(hands) != n:
                raise IllegalAction(f"the deal's hands are one list per seat ({n}) or null")
            for s, hand in enumerate(hands):
                if hand is None:
                    continue
                cards = self._cards(hand, f"{seat_words(s)}'s hand")
                if len(cards) != HAND_SIZE:
                    raise IllegalAction(f"{seat_words(s)} is dealt {len(cards)} cards: a hand is "
                                        f"{HAND_SIZE} cards")
                for c in cards:
                    see(c, f"in {seat_words(s)}'s hand")
        field = action.get("field")
        if not isinstance(field, list | tuple) or len(field) != FIRST_FIELD:
            raise IllegalAction(f"the deal puts {FIRST_FIELD} positions in the field, got {field!r}")
        stock = len(ALL_CARDS) - HAND_SIZE * n
        for i, position in enumerate(field, start=1):
            cards = self._check_position(position, stock, f"field position {i}")
            stock -= len(cards)
            for c in cards:
                see(c, "in the field")

    def _check_draw(self, action: Action) -> None:
        cards = self._check_position(action.get("cards"), self.stock,
                                     f"field position {len(self.field) + 1}")
        for c in cards:
            where = self._elsewhere(c, None)
            if where:
                raise IllegalAction(f"the dealer cannot deal {c}: {where} (a card seen twice)")
        if len(set(cards)) != len(cards):
            raise IllegalAction(f"the draw shows a card twice: {cards_words(cards)}")

    def _check_hand_card(self, seat: int, card: str, verb: str) -> None:
        where = self._elsewhere(card, seat)
        if where:
            raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card} in cycle {self.cycle}: {where} "
                                f"(a card seen twice)")
        hand = self.hands[seat]
        if hand is not None and card not in hand:
            raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card} in cycle {self.cycle}: their "
                                f"hand is {cards_words(hand)}")
        if hand is None and self.where.get(card) != seat and \
                len(self.taken[seat]) >= self.hand_size[seat]:
            raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card}: every card in their hand is "
                                f"known ({cards_words(sorted(self.taken[seat]))})")

    def _check_target(self, seat: int, card: str, verb: str) -> None:
        for position in self.field:
            if card in position:
                if is_void(card):
                    raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card} in cycle {self.cycle}: "
                                        f"a void in the field stays there for the round")
                if is_covered(position):
                    raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card} in cycle {self.cycle}: "
                                        f"it is covered by {position[0]}, and a covered card "
                                        f"cannot be exchanged")
                return
        raise IllegalAction(f"{seat_words(seat)} cannot {verb} {card} in cycle {self.cycle}: it is not "
                            f"in the field (uncovered: {cards_words(self.takeable())})")

    def _check_swap(self, seat: int, action: Action) -> None:
        take = self._card(action.get("take"), "the card taken")
        give = self._card(action.get("give"), "the card given")
        self._check_target(seat, take, "take")
        if is_void(give):
            raise IllegalAction(f"{seat_words(seat)} cannot swap {give} into the field: a void is "
                                f"placed on a field card (the 'void' move), not swapped")
        self._check_hand_card(seat, give, "give")

    def _check_void(self, seat: int, action: Action) -> None:
        void = self._card(action.get("void"), "the void")
        on = self._card(action.get("on"), "the card covered")
        if not is_void(void):
            raise IllegalAction(f"{seat_words(seat)} cannot place {void} as a void: it is not a void "
                                f"(swap it instead)")
        self._check_target(seat, on, "cover")
        self._check_hand_card(seat, void, "place")

    def _check_bet(self, seat: int, action: Action) -> None:
        kind, owed = action.kind, self.owed(seat)
        if kind == "stay" and owed:
            raise IllegalAction(f"{seat_words(seat)} cannot stay: the bet was raised, so they match "
                                f"{owed}, raise or fold")
        if kind == "match" and not owed:
            raise IllegalAction(f"{seat_words(seat)} has nothing to match: nobody raised since their "
                                f"last bet (stay, raise or fold)")
        if kind == "raise":
            amount, most = action.get("amount"), self.game.options["max_raise"]
            if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= most:
                raise IllegalAction(f"{seat_words(seat)} raises by {amount!r}: a raise is 1 to {most} "
                                    f"chips")

    def _check_show(self, seat: int, action: Action) -> None:
        cards = self._cards(action.get("hand"), f"{seat_words(seat)}'s hand")
        if len(set(cards)) != len(cards):
            raise IllegalAction(f"{seat_words(seat)} shows a card twice: {cards_words(cards)}")
        hand = self.hands[seat]
        if hand is not None and sorted(cards) != sorted(hand):
            raise IllegalAction(f"{seat_words(seat)} holds {cards_words(hand)}, not {cards_words(cards)}")
        if len(cards) != self.hand_size[seat]:
            raise IllegalAction(f"{seat_words(seat)} shows {len(cards)} cards but holds "
                                f"{self.hand_size[seat]}: every card of the hand is shown")
        for c in cards:
            where = self._elsewhere(c, seat)
            if where:
                raise IllegalAction(f"{seat_words(seat)} cannot show {c}: {where} (a card seen twice)")

    # -- applying -------------------------------------------------------------------------
    def _apply(self, action: Action) -> list[dict[str, Any]]:
        kind = action.kind
        if kind == "deal":
            return self._deal(action)
        if kind == "draw":
            position = list(action["cards"])
            self.field.append(position)
            self.stock -= len(position)
            for c in position:
                self.where[c] = "field"
            return self._after_draw()
        seat = action.seat
        assert seat is not None
        if kind in ("pass", "swap", "void"):
            if kind == "swap":
                self._swap(seat, action["take"], action["give"])
            elif kind == "void":
                self._void(seat, action["void"], action["on"])
            return self._next_turn()
        if kind == "show":
            return self._show(seat, list(action["hand"]))
        return self._bet(seat, kind, action.get("amount"))

    def _deal(self, action: Action) -> list[dict[str, Any]]:
        n = self.game.players
        self._new_round()
        self.round += 1
        self.dealer = action["dealer"]
        self.field = [list(p) for p in action["field"]]
        self.stock = len(ALL_CARDS) - HAND_SIZE * n - sum(len(p) for p in self.field)
        for p in self.field:
            for c in p:
                self.where[c] = "field"
        hands = action.get("hands")
        for s in range(n):
            if hands is not None and hands[s] is not None:
                self.hands[s] = sorted(hands[s], key=card_order)
                for c in hands[s]:
                    self.where[c] = s
        self.phase, self.cycle, self.acted = "swap", 1, 0
        self.turn = self._left_of_dealer()[0]
        if not self.game.options["betting"]:
            return []
        each = self.game.options["buy_in"]
        self.pot = each * n
        self.chips = [c - each for c in self.chips]
        return [{"type": "buy_in", "round": self.round, "each": each, "pot": self.pot}]

    def _swap(self, seat: int, take: str, give: str) -> None:
        for position in self.field:
            if position[0] == take:
                position[0] = give
        hand = self.hands[seat]
        if hand is not None:
            hand.remove(give)
            hand.append(take)
            hand.sort(key=card_order)
        self.taken[seat].pop(give, None)
        self.taken[seat][take] = self.cycle
        self.where[give] = "field"
        self.where[take] = seat

    def _void(self, seat: int, void: str, on: str) -> None:
        for position in self.field:
            if position[0] == on:
                position.insert(0, void)
        hand = self.hands[seat]
        if hand is not None:
            hand.remove(void)
        self.hand_size[seat] -= 1
        self.where[void] = "field"

    def _next_turn(self) -> list[dict[str, Any]]:
        self.acted += 1
        if self.acted < self.game.players:
            self.turn = (self.turn + 1) % self.game.players
            return []
        if len(self.field) < FIELD_POSITIONS and self.stock > 0:
            self.phase = "draw"
            return []
        return self._end_swapping()

    def _after_draw(self) -> list[dict[str, Any]]:
        if len(self.field) >= FIELD_POSITIONS:
            return self._end_swapping()
        self.phase, self.acted = "swap", 0
        self.cycle += 1
        self.turn = self._left_of_dealer()[0]
        return []

    def _end_swapping(self) -> list[dict[str, Any]]:
        if self.game.options["betting"]:
            self.phase = "bet"
            self.to_act = self._left_of_dealer()
            return []
        return self._start_showdown()

    def _bet(self, seat: int, kind: str, amount: int | None) -> list[dict[str, Any]]:
        self.to_act.pop(0)
        if kind == "fold":
            self.folded.add(seat)
        elif kind in ("match", "raise"):
            if kind == "raise":
                assert amount is not None
                self.bet_level += amount
                self.raisers.add(seat)
                order = self._left_of_dealer()
                start = order.index(seat)
                self.to_act = [s for s in order[start + 1:] + order[:start] if s not in self.folded]
            paid = self.owed(seat)
            self.put[seat] += paid
            self.chips[seat] -= paid
            self.pot += paid
        if self.to_act and len(self.folded) < self.game.players - 1:
            return []
        return self._start_showdown()

    def _start_showdown(self) -> list[dict[str, Any]]:
        self.phase = "show"
        self.to_show = [s for s in self._left_of_dealer() if s not in self.folded]
        return []

    def _show(self, seat: int, hand: list[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        missing = sorted((c for c in self.taken[seat] if c not in hand), key=card_order)
        if missing:
            took = ", ".join(f"{c} in cycle {self.taken[seat][c]}" for c in missing)
            verdict = {"type": "verdict", "round": self.round, "seat": seat, "rule": "swap-only",
                       "text": f"{seat_words(seat, capital=True)} took {took} from the field but "
                               f"does not show "
                               f"{'it' if len(missing) == 1 else 'them'}: a card leaves a hand "
                               f"only by a swap with the field."}
            self.verdicts.append(verdict)
            out.append(verdict)
        self.hands[seat] = sorted(hand, key=card_order)
        for c in hand:
            self.where[c] = seat
        result = score(hand, self.field_cards())
        self.shown[seat] = result
        self.to_show.pop(0)
        out.append({"type": "score", "round": self.round, "seat": seat, **result.to_json()})
        if not self.to_show:
            out.append(self._end_round())
        return out

    def _end_round(self) -> dict[str, Any]:
        n = self.game.players
        ranks = {s: r.rank() for s, r in self.shown.items()}
        best = max(ranks.values())
        winners = sorted((s for s, r in ranks.items() if r == best),
                         key=self._left_of_dealer().index)
        for s, r in self.shown.items():
            self.totals[s] += r.total
        event: dict[str, Any] = {"type": "round", "round": self.round,
                                 "totals": [self.shown[s].total if s in self.shown else None
                                            for s in range(n)],
                                 "winners": sorted(winners), "why": _why(ranks, winners),
                                 "scores": list(self.totals)}
        if self.game.options["betting"]:
            share, odd = divmod(self.pot, len(winners))
            for i, w in enumerate(winners):  # an odd chip goes to the first winner clockwise
                self.chips[w] += share + (1 if i < odd else 0)
            event.update(pot=self.pot, chips=list(self.chips))
            self.pot = 0
        self.results.append(event)
        self.phase = "deal" if self.round < self.game.options["rounds"] else "over"
        return event

    # -- results ----------------------------------------------------------------------------
    def scores(self) -> list[int]:
        """Running point totals; with betting, each seat's chips won minus chips paid."""
        return list(self.chips if self.game.options["betting"] else self.totals)

    def explain(self) -> str:
        return render(self.explain_words())

    def explain_words(self) -> Words:
        rounds = self.game.options["rounds"]
        head = f"Round {self.round} of {rounds}"
        if self.phase == "over":
            return Words.of("The game is over: {result}.", result=self._result())
        if self.phase == "deal":
            due = self.next_dealer()
            who: Seat | str = "a dealer" if due is None else Seat(due)
            return Words.of(f"Round {self.round + 1} of {rounds}: {{who}} deals {HAND_SIZE} cards "
                            f"to each player and {FIRST_FIELD} to the field.", who=who)
        if self.phase == "draw":
            return Words.of(f"{head}: the dealer ({{seat}}) adds a card to the field (position "
                            f"{len(self.field) + 1} of {FIELD_POSITIONS}).", seat=Seat(self.dealer))
        seat = Seat(self.current_player())
        if self.phase == "swap":
            takeable = self.takeable()
            cards = listed((CardRef(c, c) for c in takeable), " ".join) if takeable else "nothing"
            return Words.of(f"{head}, cycle {self.cycle} of {CYCLES}: {{seat}} passes, swaps a "
                            f"hand card for an uncovered field card ({{cards}}) or places a void "
                            f"on one.", seat=seat, cards=cards)
        if self.phase == "bet":
            owed = self.owed(seat.index)
            moves = f"matches {owed}, raises or folds" if owed else "stays, raises or folds"
            return Words.of(f"{head}, betting (pot {self.pot}): {{seat}} {moves}.", seat=seat)
        return Words.of(f"{head}, showdown: {{seat}} shows their hand.", seat=seat)

    def phase_words(self) -> str:
        if self.phase == "swap":
            return f"round {self.round}, cycle {self.cycle} of {CYCLES}"
        return {"deal": "deal", "draw": "dealing to the field", "bet": "betting",
                "show": "showdown", "over": "game over"}[self.phase]

    def limit_words(self) -> str:
        """What the seat to act may do, in a few words ("" when nobody acts)."""
        if self.phase == "swap":
            return "pass, swap one hand card for one uncovered field card, or place a void"
        if self.phase == "bet":
            owed = self.owed(self.current_player())
            return f"match {owed} or fold, or raise" if owed else "stay, raise or fold"
        if self.phase == "show":
            return "show every card of the hand"
        return ""

    def result_words(self) -> str:
        return render(self._result())

    def _result(self) -> Words:
        if self.phase != "over":
            return plain("")
        best = max(self.scores())
        what = "chips" if self.game.options["betting"] else "points"
        return Words.of(f"{{won}} won with {best} {what}",
                        won=each_seat(self.winners(), " and ".join))

    def view(self) -> dict[str, Any]:
        turn = self.current_player()
        out: dict[str, Any] = {"turn": turn if turn >= 0 else None, "phase": self.phase_words(),
                               "next": self.explain()}
        hint = None
        limit = self.limit_words()
        if limit:
            out["limit"] = limit
        if self.phase == "swap":
            hand = self.hands[turn]
            if hand is not None:
                out["legal"] = list(hand) if self.takeable() else []
                hint = self.hints()[0].to_json()
        out["table"] = {
            "round": self.round, "rounds": self.game.options["rounds"], "dealer": self.dealer,
            "cycle": self.cycle,
            "field": [{"card": position_card(p), "voids": [c for c in p if is_void(c)],
                       "covered": is_covered(p)} for p in self.field],
            "takeable": self.takeable(),
            "covered": [c for c in (position_card(p) for p in self.field if is_covered(p)) if c],
            "hand_counts": list(self.hand_size), "stock": self.stock,
            "totals": list(self.totals),
            "shown": {str(s): r.to_json() for s, r in sorted(self.shown.items())},
            "folded": sorted(self.folded),
            "last_round": self.results[-1] if self.results else None,
            "verdicts": list(self.verdicts),
            "hint": hint,  # open hand: the best move for the seat to act, when its hand is known
        }
        if self.game.options["betting"]:
            out["table"].update(pot=self.pot, chips=list(self.chips), bet=self.bet_level,
                                put=list(self.put))
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"round": self.round, "dealer": self.dealer, "phase": self.phase,
                "cycle": self.cycle, "turn": self.turn, "acted": self.acted,
                "field": [list(p) for p in self.field],
                "hands": [None if h is None else list(h) for h in self.hands],
                "hand_size": list(self.hand_size), "stock": self.stock,
                "taken": [dict(sorted(t.items())) for t in self.taken],
                "pot": self.pot, "bet_level": self.bet_level, "put": list(self.put),
                "to_act": list(self.to_act), "raisers": sorted(self.raisers),
                "folded": sorted(self.folded), "to_show": list(self.to_show),
                "shown": {str(s): r.to_json() for s, r in sorted(self.shown.items())},
                "totals": list(self.totals), "chips": list(self.chips),
                "results": list(self.results), "verdicts": list(self.verdicts)}


def _deal_position(stock: list[str]) -> list[str]:
    """Deal one field position from the top of `stock`: a card, or voids with the next
    card dealt under them (a void alone when the stock runs out)."""
    position = [stock.pop(0)]
    while is_void(position[-1]) and stock:
        position.append(stock.pop(0))
    return position


def _why(ranks: dict[int, tuple[int, int, int, int]], winners: list[int]) -> str:
    """Why the winners won: the first of total, best unit, best card, top card that parts
    them from the next best seat."""
    best = ranks[winners[0]]
    others = [r for s, r in ranks.items() if s not in winners]
    if not others:
        return (f"all on {best[0]} and equal on every tie-break" if len(ranks) > 1
                else f"the only hand shown, with {best[0]}")
    runner = max(others)
    words = ("the highest total", "the highest scoring unit", "the highest card in a unit",
             "the highest card in the pool")
    for i, (a, b) in enumerate(zip(best, runner, strict=True)):
        if a != b:
            if i == 0:
                return f"{words[0]} ({a} against {b})"
            return f"tied on {best[0]}, broken by {words[i]} ({a} against {b})"
    return "tied"  # unreachable: winners and others differ somewhere
