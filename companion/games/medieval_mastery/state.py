"""Medieval Mastery's game and state: tricks without trumps on the 130-card IDEAL deck, won to lay down
families and communes that score at the end of the round (rules/medieval-mastery.txt).

Reading (RULINGS, docs/games/medieval-mastery.md): the highest card wins a trick, by value
then by suit order (Swords, Cups, Staffs, Pentacles, Wands), whatever the suit led; all
Xenocrats are equal (the first played wins when only Xenocrats are played); a Ruler and its
own nemesis in one trick give the trick to the nemesis, to the nemesis of the highest Ruler
when several pairs meet. After every trick the winner lays out their whole tableau (one
`meld` action, judged by `rules`); rejects and unused trick cards go under the
stock; hands refill to 9, the trick winner first. The round ends when a player has no card
at the start of a trick. Rounds repeat until someone reaches `target` (3125; RULINGS), or,
with the option `rounds` N (N > 0), a game is N rounds.

One state serves full information (bots, tests) and the table: a deal or a refill whose
cards are None keeps them hidden. The state then tracks what the table can know: where each
seen card is, how many unknown cards each hand holds, and the stock as a queue of known
cards, unknown cards and bundles of recycled cards whose order is unknown. A play that is
provably wrong is refused; a revoke is proven later, when the player shows more cards of the
suit they failed to follow than they have drawn unseen since.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import IllegalAction
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State
from companion.games.medieval_mastery import bot, words
from companion.games.medieval_mastery.rules import (
    ALL_CARDS,
    HAND_SIZE,
    HINT_STEPS,
    SUIT_NAMES,
    best_arrangement_within,
    canonical,
    check_arrangement,
    check_group,
    deck_order,
    name,
    names,
    proposals,
    suit,
    trick_winner,
)
from companion.words import CardRef, Seat, Words, each_seat, listed, plain, render, seat_words

_ALL = frozenset(ALL_CARDS)


def _card(text: Any, what: str) -> str:
    if not isinstance(text, str) or text not in _ALL:
        raise IllegalAction(f"{what}: {text!r} is not an IDEAL card code (KS, XW, ...)")
    return text


class MedievalMastery(Game):
    name = "medieval-mastery"
    title = "Medieval Mastery"
    deck = "ideal"
    min_players = 3
    max_players = 14  # 14 hands of 9 leave 4 cards of 130 for the stock
    default_players = 4
    options_spec = (
        Option("rounds", int, 0, "rounds to play; 0 (the default) = play rounds until someone "
               "reaches the target",
               min=0),
        Option("target", int, 3125, "the cumulative score that ends the game (when rounds is 0)",
               min=1),
    )
    action_kinds = frozenset({"deal", "play", "meld", "refill"})
    outcome_kinds = frozenset({"trick", "arrangement", "round", "verdict"})

    def new_state(self) -> MedievalMasteryState:
        return MedievalMasteryState(self)

    def public_action(self, action: Action) -> Action | None:
        """The table sees who deals, every played card and every tableau, but neither the
        hands nor the stock: a deal and a refill lose their cards."""
        if action.kind == "deal":
            return Action.make("deal", None, dealer=action.get("dealer"), hands=None, stock=None)
        if action.kind == "refill":
            return Action.make("refill", None, cards=[[None] * len(c) for c in action["cards"]])
        return action

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Win tricks that pay (useful cards in them, or hand cards to lay down after), throw
        the least useful card otherwise, and lay the best tableau after a trick won. It uses
        no randomness: the same state gives the same move (`bot`)."""
        assert isinstance(state, MedievalMasteryState)
        return bot.choose_action(state, rng)

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for players (`words.event_words`); None for an event this game does not know."""
        return words.event_words(event)


class MedievalMasteryState(State):
    game: MedievalMastery

    def __init__(self, game: MedievalMastery) -> None:
        super().__init__(game)
        n = game.players
        self.phase = "deal"  # deal, play, meld, refill, over
        self.round = 1
        self.dealer = 0
        self.totals = [0] * n
        self.verdicts: list[dict[str, Any]] = []
        self.last_round: dict[str, Any] | None = None
        self._reset_round()

    def _reset_round(self) -> None:
        n = self.game.players
        self.known: list[list[str]] = [[] for _ in range(n)]  # hand cards the table knows
        self.unknown = [0] * n  # hand cards it does not know
        self.pool: set[str] = set()  # cards somewhere hidden: in an unknown hand slot or stock slot
        self.stock: list[str | int | None] = []  # top first: a card, a bundle number, or unknown
        self.bundles: dict[int, list[str]] = {}
        self.next_bundle = 0
        self.open_stock = False
        self.melds: list[list[list[str]]] = [[] for _ in range(n)]
        self.points = [0] * n
        self.trick: list[tuple[int, str]] = []
        self.leader = (self.dealer + 1) % n
        self.trick_no = 0
        self.winner: int | None = None
        self.last_trick: dict[str, Any] | None = None
        self.revokes: list[dict[str, Any]] = []
        self.idle = 0  # tricks in a row after which no card was laid down

    # -- small queries ---------------------------------------------------------
    def hand_size(self, seat: int) -> int:
        return len(self.known[seat]) + self.unknown[seat]

    def laid(self, seat: int) -> list[str]:
        """The cards of a seat's tableau."""
        return [c for g in self.melds[seat] for c in g]

    def trick_cards(self) -> list[str]:
        return [c for _, c in self.trick]

    def _where(self, card: str) -> str:
        """Where the table knows `card` to be, in words (for a card seen twice)."""
        for seat, played in self.trick:
            if played == card:
                return f"already in this trick, played by {seat_words(seat)}"
        for seat in range(self.game.players):
            for g in self.melds[seat]:
                if card in g:
                    return f"laid in {seat_words(seat)}'s {check_group(g).title}"
            if card in self.known[seat]:
                return f"in {seat_words(seat)}'s hand"
        if card in self.stock or any(card in b for b in self.bundles.values()):
            return "in the stock (it went under it after a trick)"
        return "hidden"

    def _refill_order(self) -> list[tuple[int, int]]:
        """(seat, cards to draw) in drawing order, the trick winner first."""
        n = self.game.players
        left = len(self.stock)
        order = []
        for i in range(n):
            seat = ((self.winner or 0) + i) % n
            take = max(0, min(HAND_SIZE - self.hand_size(seat), left))
            left -= take
            order.append((seat, take))
        return order

    # -- whose move -------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        if self.phase in ("deal", "refill"):
            return CHANCE
        if self.phase == "meld":
            assert self.winner is not None
            return self.winner
        return (self.leader + len(self.trick)) % self.game.players

    def _possible(self, seat: int) -> list[str]:
        """Cards the seat may hold: its known cards, and hidden cards if it holds unknown ones."""
        cards = list(self.known[seat])
        if self.unknown[seat]:
            cards += self.pool
        return sorted(cards, key=deck_order)

    def legal_actions(self) -> list[Action]:
        """Plays: every card the seat may legally play (when its hand is hidden, every hidden
        card it may hold). After a trick: not every legal tableau (there are too many) but the
        text's procedure: keep what is laid and lay the Xenocrats won, and that plus every trick
        or hand card that finds a home without rebuilding. `check` accepts any legal tableau;
        `medieval_melds.best_arrangement` proposes the best."""
        seat = self.current_player()
        if seat < 0:
            return []
        if self.phase == "meld":
            before, trick = self.melds[seat], self.trick_cards()
            return [Action.make("meld", seat, groups=groups)
                    for groups in proposals(before, trick, [*trick, *self.known[seat]])]
        cards = self._possible(seat)
        if self.trick:
            led = suit(self.trick[0][1])
            if any(suit(c) == led for c in self.known[seat]):
                cards = [c for c in cards if suit(c) == led]
        return [Action.make("play", seat, card=c) for c in cards]

    def sample_chance(self, rng: random.Random) -> Action:
        """A shuffled deal, or the refill from the top of the stock (hidden cards as None)."""
        if self.phase == "deal":
            deck = list(ALL_CARDS)
            rng.shuffle(deck)
            n = self.game.players
            hands = [sorted(deck[i * HAND_SIZE:(i + 1) * HAND_SIZE], key=deck_order) for i in range(n)]
            return Action.make("deal", None, dealer=self.dealer, hands=hands,
                               stock=deck[n * HAND_SIZE:])
        if self.phase == "refill":
            cards: list[list[str | None]] = [[] for _ in range(self.game.players)]
            pos = 0
            for seat, take in self._refill_order():
                for entry in self.stock[pos:pos + take]:
                    cards[seat].append(entry if isinstance(entry, str) else None)
                pos += take
            return Action.make("refill", None, cards=cards)
        raise IllegalAction(f"there is no deal or draw now: {self.explain()}")

    # -- checks -----------------------------------------------------------------
    def check(self, action: Action) -> None:
        if self.phase == "over":
            raise IllegalAction(f"{action}: the game is over")
        if action.kind not in self.game.action_kinds:
            raise IllegalAction(f"{action}: Medieval Mastery has no {action.kind!r} action "
                                f"(it has {', '.join(sorted(self.game.action_kinds))})")
        if action.kind != self.phase:
            raise IllegalAction(f"{action}: not now: {self.explain()}")
        if action.kind in ("deal", "refill"):
            if action.seat is not None:
                raise IllegalAction(f"{action}: a {action.kind} is a chance action, with no seat")
            if action.kind == "deal":
                self._deal_cards(action)
            else:
                self._draws(action)
        elif action.kind == "play":
            self._check_play(action)
        else:
            self._check_meld(action)

    def _check_seat(self, action: Action) -> int:
        seat = action.seat
        n = self.game.players
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise IllegalAction(f"{action}: the seats are 1 to {n}")
        return seat

    def _check_play(self, action: Action) -> None:
        seat = self._check_seat(action)
        t = self.trick_no
        card = _card(action.get("card"), f"{seat_words(seat)} in trick {t}")
        turn = self.current_player()
        if seat != turn:
            raise IllegalAction(f"{seat_words(seat)} cannot play the {name(card)} in trick {t}: it is "
                                f"{seat_words(turn)}'s turn (out of turn; play goes clockwise)")
        if card not in self.known[seat]:
            if card not in self.pool:
                raise IllegalAction(f"{seat_words(seat)} cannot play the {name(card)} in trick {t}: it is "
                                    f"{self._where(card)} (a card seen twice)")
            if not self.unknown[seat]:
                raise IllegalAction(f"{seat_words(seat)} cannot play the {name(card)} in trick {t}: their "
                                    f"hand is known and does not hold it")
        if self.trick:
            led = suit(self.trick[0][1])
            held = [c for c in self.known[seat] if suit(c) == led]
            if suit(card) != led and held:
                raise IllegalAction(f"{seat_words(seat)} cannot play the {name(card)} in trick {t}: "
                                    f"{SUIT_NAMES[led]} were led and {seat_words(seat)} holds the "
                                    f"{name(held[0])} (follow suit if able)")

    def _check_meld(self, action: Action) -> None:
        seat = self._check_seat(action)
        t = self.trick_no
        if seat != self.winner:
            raise IllegalAction(f"{seat_words(seat)} cannot lay down after trick {t}: "
                                f"{seat_words(self.winner)} "
                                "won it, and only the trick winner lays down")
        groups = action.get("groups")
        if not isinstance(groups, tuple) or not all(isinstance(g, tuple) for g in groups):
            raise IllegalAction(f"{seat_words(seat)} after trick {t}: 'groups' must be a list of card "
                                f"lists, got {groups!r}")
        for g in groups:
            for c in g:
                _card(c, f"{seat_words(seat)}'s tableau after trick {t}")
        hand = self.known[seat] if not self.unknown[seat] else None
        report = check_arrangement(groups, self.laid(seat), self.trick_cards(), hand)
        if not report.legal:
            raise IllegalAction(f"{seat_words(seat)}'s tableau after trick {t} is not legal: "
                                + "; ".join(report.problems))
        hidden = [c for c in report.from_hand if c not in self.known[seat]]
        for c in hidden:
            if c not in self.pool:
                raise IllegalAction(f"{seat_words(seat)} cannot lay the {name(c)} after trick {t}: it is "
                                    f"{self._where(c)} (a card seen twice)")
        if len(hidden) > self.unknown[seat]:
            raise IllegalAction(f"{seat_words(seat)} cannot lay {len(hidden)} cards from hand after trick "
                                f"{t} ({names(hidden)}): their hand holds only "
                                f"{self.unknown[seat]} unseen card{'s' * (self.unknown[seat] != 1)}")

    def _deal_cards(self, action: Action) -> tuple[list[list[str | None]], list[str | None]]:
        """The deal's hands and stock, checked; hidden parts as None."""
        n = self.game.players
        if action.get("dealer") != self.dealer:
            raise IllegalAction(f"{action}: round {self.round} is dealt by {seat_words(self.dealer)}")
        hands, stock = action.get("hands"), action.get("stock")
        size = len(ALL_CARDS) - n * HAND_SIZE
        if hands is None:
            hands = (None,) * n
        if not isinstance(hands, tuple) or len(hands) != n:
            raise IllegalAction(f"deal: 'hands' must list {n} hands (or be null), got {hands!r}")
        out: list[list[str | None]] = []
        for seat, hand in enumerate(hands):
            hand = (None,) * HAND_SIZE if hand is None else hand
            if not isinstance(hand, tuple) or len(hand) != HAND_SIZE:
                raise IllegalAction(f"deal: {seat_words(seat)} must get {HAND_SIZE} cards, got {hand!r}")
            out.append([None if c is None else _card(c, f"deal to {seat_words(seat)}") for c in hand])
        stock = (None,) * size if stock is None else stock
        if not isinstance(stock, tuple) or len(stock) != size:
            raise IllegalAction(f"deal: the stock must hold {size} cards, got "
                                f"{len(stock) if isinstance(stock, tuple) else stock!r}")
        rest = [None if c is None else _card(c, "deal to the stock") for c in stock]
        seen: set[str] = set()
        for c in [c for h in out for c in h] + rest:
            if c is not None:
                if c in seen:
                    raise IllegalAction(f"deal: the {name(c)} is dealt twice (a card seen twice)")
                seen.add(c)
        return out, rest

    def _draws(self, action: Action) -> list[tuple[int, str | None, bool]]:
        """The refill's draws in order as (seat, card or None, whether the table knows it)."""
        n = self.game.players
        given = action.get("cards")
        if not isinstance(given, tuple) or len(given) != n or not all(isinstance(g, tuple)
                                                                     for g in given):
            raise IllegalAction(f"refill: 'cards' must list what each of the {n} seats draws, "
                                f"got {given!r}")
        draws: list[tuple[int, str | None, bool]] = []
        pos = 0
        taken: set[str] = set()
        released: set[str] = set()
        for seat, take in self._refill_order():
            if len(given[seat]) != take:
                raise IllegalAction(f"refill: {seat_words(seat)} draws {take} card{'s' * (take != 1)} "
                                    f"from the stock, not {len(given[seat])}")
            for card in given[seat]:
                entry = self.stock[pos]
                pos += 1
                if card is not None:
                    _card(card, f"refill to {seat_words(seat)}")
                if isinstance(entry, str):
                    if card not in (None, entry):
                        raise IllegalAction(f"refill: {seat_words(seat)} draws the {name(entry)} from the "
                                            f"stock, not the {name(card)}")
                    draws.append((seat, entry, True))
                    continue
                if isinstance(entry, int):
                    released |= set(self.bundles[entry])
                if card is not None and (card in taken or (card not in self.pool
                                                           and card not in released)):
                    raise IllegalAction(f"refill: {seat_words(seat)} cannot draw the {name(card)}: it is "
                                        f"{self._where(card)} (a card seen twice)")
                if card is not None:
                    taken.add(card)
                draws.append((seat, card, card is not None))
        return draws

    # -- applying ---------------------------------------------------------------
    def _apply(self, action: Action) -> list[dict[str, Any]]:
        if action.kind == "deal":
            return self._apply_deal(action)
        if action.kind == "play":
            return self._apply_play(action)
        if action.kind == "meld":
            return self._apply_meld(action)
        return self._apply_refill(action)

    def _apply_deal(self, action: Action) -> list[dict[str, Any]]:
        hands, stock = self._deal_cards(action)
        self._reset_round()
        known = {c for h in hands for c in h if c} | {c for c in stock if c}
        self.pool = set(ALL_CARDS) - known
        for seat, hand in enumerate(hands):
            self.known[seat] = sorted((c for c in hand if c), key=deck_order)
            self.unknown[seat] = sum(1 for c in hand if c is None)
        self.stock = list(stock)
        self.open_stock = all(c is not None for c in stock)
        self.phase = "play"
        self.trick_no = 1
        return []

    def _take_from_hand(self, seat: int, card: str) -> list[dict[str, Any]]:
        """Remove a card the seat shows from its hand; a hidden card may prove a revoke."""
        if card in self.known[seat]:
            self.known[seat].remove(card)
            return []
        self.pool.discard(card)
        self.unknown[seat] -= 1
        return self._shown(seat, card)

    def _shown(self, seat: int, card: str) -> list[dict[str, Any]]:
        out = []
        for r in list(self.revokes):
            if r["seat"] != seat or r["suit"] != suit(card):
                continue
            r["shown"].append(card)
            if len(r["shown"]) > r["draws"]:
                self.revokes.remove(r)
                out.append(self._verdict(r))
        return out

    def _verdict(self, r: dict[str, Any]) -> dict[str, Any]:
        led = SUIT_NAMES[r["suit"]]
        shown = r["shown"]
        if r["draws"] == 0:
            proof = f"yet they have since shown the {name(shown[-1])}, which they held then"
        else:
            proof = (f"yet they have since shown {len(shown)} {led} cards ({names(shown)}) while "
                     f"drawing only {r['draws']} unseen card{'s' * (r['draws'] != 1)}, so at least "
                     "one was in their hand then")
        text = (f"{seat_words(r['seat'], capital=True)} revoked in trick {r['trick']} of round "
                f"{self.round}: {led} were "
                f"led and they played the {name(r['card'])}, {proof} (rule: follow suit if able).")
        verdict = {"type": "verdict", "round": self.round, "seat": r["seat"], "trick": r["trick"],
                   "card": r["card"], "rule": "revoke", "text": text}
        self.verdicts.append(verdict)
        return verdict

    def _apply_play(self, action: Action) -> list[dict[str, Any]]:
        seat, card = action.seat, action["card"]
        assert seat is not None
        out = self._take_from_hand(seat, card)
        if self.trick:
            led = suit(self.trick[0][1])
            if suit(card) != led and self.unknown[seat]:
                self.revokes.append({"seat": seat, "trick": self.trick_no, "suit": led, "card": card,
                                     "draws": 0, "shown": []})
        self.trick.append((seat, card))
        if len(self.trick) < self.game.players:
            return out
        cards = self.trick_cards()
        index, why = trick_winner(cards)
        self.winner = self.trick[index][0]
        self.last_trick = {"trick": self.trick_no, "cards": cards, "seats": [s for s, _ in self.trick],
                           "winner": self.winner, "why": why}
        self.phase = "meld"
        out.append({"type": "trick", "round": self.round, "trick": self.trick_no,
                    "leader": self.leader, "cards": cards, "winner": self.winner, "why": why})
        return out

    def _apply_meld(self, action: Action) -> list[dict[str, Any]]:
        seat = action.seat
        assert seat is not None
        groups = [list(g) for g in action["groups"]]
        trick = self.trick_cards()
        report = check_arrangement(groups, self.laid(seat), trick,
                                   self.known[seat] if not self.unknown[seat] else None)
        out: list[dict[str, Any]] = []
        for c in report.from_hand:
            out += self._take_from_hand(seat, c)
        laid_now = len(report.from_hand) + len(trick) - len(report.unused)
        self.idle = 0 if laid_now else self.idle + 1
        self.melds[seat] = canonical(groups)
        self.points[seat] = report.points
        rejects = sorted(report.rejects, key=deck_order)
        to_stock = [*report.unused, *rejects]
        if len(to_stock) == 1 or (to_stock and self.open_stock):
            self.stock += to_stock
        elif to_stock:
            # "in any order": the table knows which cards went under the stock, not their order.
            self.bundles[self.next_bundle] = list(to_stock)
            self.stock += [self.next_bundle] * len(to_stock)
            self.next_bundle += 1
        tableau = [{"cards": g, "kind": check_group(g).kind, "points": check_group(g).points}
                   for g in self.melds[seat]]
        out.insert(0, {"type": "arrangement", "round": self.round, "trick": self.trick_no,
                       "seat": seat, "groups": tableau, "points": report.points,
                       "from_trick": [c for c in trick if c not in report.unused],
                       "from_hand": list(report.from_hand), "rejects": rejects,
                       "to_stock": to_stock})
        self.trick = []
        if any(take for _, take in self._refill_order()):
            self.phase = "refill"
            return out
        return out + self._next_trick()

    def _apply_refill(self, action: Action) -> list[dict[str, Any]]:
        for seat, card, known in self._draws(action):
            entry = self.stock.pop(0)
            if isinstance(entry, int):
                self._release(entry)
                entry = None
            if known:
                assert card is not None
                self.known[seat].append(card)
                self.known[seat].sort(key=deck_order)
                if entry is None:
                    self.pool.discard(card)
            else:
                self.unknown[seat] += 1
                for r in self.revokes:
                    if r["seat"] == seat:
                        r["draws"] += 1
        return self._next_trick()

    def _release(self, bundle: int) -> None:
        """Drawing from a bundle of unknown order: its cards become hidden cards."""
        self.pool |= set(self.bundles.pop(bundle))
        self.stock = [None if e == bundle else e for e in self.stock]

    def _next_trick(self) -> list[dict[str, Any]]:
        assert self.winner is not None
        self.leader = self.winner
        self.winner = None
        n = self.game.players
        empty = [s for s in range(n) if self.hand_size(s) == 0]
        if empty:
            who = " and ".join(f"{seat_words(s)}" for s in empty)
            return [self._end_round(empty, f"{who} {'has' if len(empty) == 1 else 'have'} no cards "
                                           "left at the start of a trick")]
        if self.idle >= self.stalemate_limit():
            return [self._end_round([], f"stalemate: no card was laid down for {self.idle} tricks "
                                        "in a row, twice round the cards in play")]
        self.phase = "play"
        self.trick_no += 1
        return []

    def stalemate_limit(self) -> int:
        """Tricks in a row without a card laid down that end the round (our ruling): as many
        as it takes to play every card in the hands and the stock twice over."""
        n = self.game.players
        cards = len(self.stock) + sum(self.hand_size(s) for s in range(n))
        return 2 * -(-cards // n)

    def _end_round(self, empty: list[int], why: str) -> dict[str, Any]:
        points = list(self.points)
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        self.points = [0] * self.game.players
        rounds, target = self.game.options["rounds"], self.game.options["target"]
        over = self.round >= rounds if rounds else max(self.totals) >= target
        event = {"type": "round", "round": self.round, "tricks": self.trick_no, "empty": empty,
                 "why": why, "points": points, "totals": list(self.totals), "over": over}
        self.last_round = event
        self.revokes = []
        if over:
            self.phase = "over"
        else:
            self.phase = "deal"
            self.round += 1
            self.dealer = (self.dealer + 1) % self.game.players
        return event

    # -- results and words ------------------------------------------------------
    def scores(self) -> list[int]:
        """Cumulative points: finished rounds plus the tableaux of the round in play."""
        return [t + p for t, p in zip(self.totals, self.points, strict=True)]

    def explain(self) -> str:
        return render(self.explain_words())

    def explain_words(self) -> Words:
        t = self.trick_no
        if self.phase == "over":
            return Words.of(f"The game is over after {self.round} round{'s' * (self.round != 1)}: "
                            f"{{result}}.", result=self._result())
        if self.phase == "deal":
            return Words.of(f"Round {self.round}: {{seat}} deals {HAND_SIZE} cards to each "
                            f"player; the rest is the stock.", seat=Seat(self.dealer))
        if self.phase == "refill":
            return Words.of(f"Trick {t} is over: players refill their hands to {HAND_SIZE} from "
                            f"the stock ({len(self.stock)} cards), {{seat}} first.",
                            seat=Seat(self.winner))
        if self.phase == "meld":
            xs = [c for c in self.trick_cards() if c[0] == "X"]
            must = (Words.of("; the {cards} must start a Religious commune",
                             cards=listed(CardRef(c, name(c)) for c in xs)) if xs else plain(""))
            return Words.of(f"{{Seat}} won trick {t}: they lay down or rebuild their families "
                            f"and communes from the trick and their hand{{must}}.",
                            seat=Seat(self.winner), must=must)
        seat = self.current_player()
        return Words.of(f"Trick {t}: {{seat}} to {'play' if self.trick else 'lead'}; {{limit}}.",
                        seat=Seat(seat), limit=self.limit_as_words())

    def phase_words(self) -> str:
        return {"deal": f"round {self.round}: the deal", "refill": f"trick {self.trick_no}: refill",
                "meld": f"trick {self.trick_no}: laying down", "over": "game over",
                "play": f"round {self.round}, trick {self.trick_no}"}[self.phase]

    def limit_words(self) -> str:
        """While a trick is played: what the seat to act may play."""
        if self.phase != "play":
            return ""
        if not self.trick:
            return "any card from hand may lead"
        led = suit(self.trick[0][1])
        return f"must follow {SUIT_NAMES[led]} if able"

    def result_words(self) -> str:
        return render(self._result())

    def _result(self) -> Words:
        if self.phase != "over":
            return plain("")
        best = max(self.totals)
        who = each_seat((s for s, v in enumerate(self.totals) if v == best), " and ".join)
        return Words.of(f"{{who}} won with {best} points", who=who)

    def view(self) -> dict[str, Any]:
        turn = self.current_player()
        n = self.game.players
        out: dict[str, Any] = {"turn": turn if turn >= 0 else None, "phase": self.phase_words(),
                               "next": self.explain(),
                               "trick": [{"seat": s, "card": c} for s, c in self.trick],
                               "last_trick": self.last_trick}
        if self.phase == "play":
            out["limit"] = self.limit_words()
            if not self.unknown[turn]:
                out["legal"] = [a["card"] for a in self.legal_actions()]
        tableaux = []
        for seat in range(n):
            groups = [{"cards": g, "title": check_group(g).title, "points": check_group(g).points}
                      for g in self.melds[seat]]
            tableaux.append({"groups": groups, "points": self.points[seat]})
        table: dict[str, Any] = {"round": self.round, "dealer": self.dealer, "tableaux": tableaux,
                                 "stock": len(self.stock), "hands": [self.hand_size(s) for s in range(n)],
                                 "totals": list(self.totals), "last_round": self.last_round,
                                 "verdicts": list(self.verdicts)}
        if self.phase == "meld" and turn >= 0:
            # on the screen's thread: a search with a bounded number of steps (under about
            # 10 ms); `hint_exact` False says a better tableau may exist, which
            # `rules.best_arrangement` finds off that thread
            hint = best_arrangement_within(self.laid(turn), self.trick_cards(), self.known[turn],
                                           steps=HINT_STEPS)
            table["hint"], table["hint_exact"] = hint.groups, hint.exact
        out["table"] = table
        return out

    def snapshot(self) -> dict[str, Any]:
        return {"phase": self.phase, "round": self.round, "dealer": self.dealer,
                "totals": list(self.totals), "points": list(self.points),
                "known": [list(h) for h in self.known], "unknown": list(self.unknown),
                "pool": sorted(self.pool, key=deck_order), "stock": list(self.stock),
                "bundles": {str(k): list(v) for k, v in self.bundles.items()},
                "next_bundle": self.next_bundle, "open_stock": self.open_stock,
                "melds": [[list(g) for g in m] for m in self.melds],
                "trick": [[s, c] for s, c in self.trick], "leader": self.leader,
                "trick_no": self.trick_no, "winner": self.winner, "last_trick": self.last_trick,
                "revokes": [dict(r) for r in self.revokes], "verdicts": list(self.verdicts),
                "idle": self.idle,
                "last_round": self.last_round}

