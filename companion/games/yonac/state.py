"""Yonac's game and state: turns of collected Sets and the Ace of Clubs, judged paragraph
by paragraph (`rules`), elimination and Sudden Death. Drawing is a chance action whose
cards are the ones shown face up, so the same actions serve bots (full information) and
the table (cards as the camera saw them). The words are in `words`, the bot in `bot`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from companion.catalog import game_info
from companion.errors import BadOption, IllegalAction
from companion.games.base import CHANCE, TERMINAL, Action, Game, Option, State
from companion.games.yonac import bot, words
from companion.games.yonac.rules import (
    ACES,
    ADD,
    CLUBS,
    COLLECT,
    DECK,
    DRAW,
    JOKERS,
    OVER,
    P_CLUBS_DRAW,
    P_CLUBS_JOKER,
    P_DIAMONDS,
    P_ELIMINATION,
    P_JOKER_SWAP,
    P_ORDER,
    P_PLAY_CLUBS,
    P_SET,
    P_STASH,
    SWAP,
    TURN,
    Ruling,
    advice,
    card_list,
    card_name,
    cards_word,
    decide_winner,
    in_deck_order,
    rule_on_clubs_card,
    rule_on_set,
)
from companion.games.yonac.words import sudden_death_words, win_words
from companion.words import CardRef, Seat, Words, listed, plain, render, seat_words


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

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Collect a share of the Pile sized to the risk, add one card for the Ace of
        Diamonds unless protected, play the Ace of Clubs when the Pile is small enough, and
        swap a Joker for the Ace that helps most (`bot`)."""
        assert isinstance(state, YonacState)
        return bot.choose_action(state, rng)

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for players (`words.event_words`); None for an event this game does not know."""
        return words.event_words(event)


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
        self.todo: list[Words] = []  # what the table must do with the cards just judged

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
                return f"already in {seat_words(s)}'s Stash"
            if card in self.aside[s]:
                return f"set aside by {seat_words(s)}"
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
            who = (f"{seat_words(seat)} is out ({P_ELIMINATION})" if seat in range(self.game.players)
                   and seat not in self.alive
                   else f"it is {seat_words(self.seat)}'s turn, not {seat_words(seat)}'s ({P_ORDER})")
            raise IllegalAction(f"turn {turn}: {action.kind} by {seat_words(seat)}: {who}")
        allowed = {TURN: ("collect", "play_clubs"), ADD: ("add",), SWAP: ("swap",)}[self.step]
        if action.kind not in allowed:
            raise IllegalAction(f"turn {turn}: {seat_words(seat)} cannot {action.kind} now: {self._prompt()}")
        if action.kind in ("collect", "add"):
            self._check_count(action)
        elif action.kind == "play_clubs":
            if "AC" not in self.aside[seat]:
                where = self.where("AC") or "in the Pile"
                raise IllegalAction(f"turn {turn}: {seat_words(seat)} has no Potent Ace of Clubs set aside "
                                    f"to play: the Ace of Clubs is {where} ({P_PLAY_CLUBS})")
        else:
            self._check_swap(action)

    def _check_count(self, action: Action) -> None:
        count, turn, seat = action.get("count"), self.turn_number(), action.seat
        rule = P_DIAMONDS if action.kind == "add" else P_SET
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise IllegalAction(f"turn {turn}: {seat_words(seat)} must {action.kind} one or more cards, "
                                f"not {count!r} ({rule})")
        if count > len(self.pile):
            raise IllegalAction(f"turn {turn}: {seat_words(seat)} cannot {action.kind} {count} cards: the "
                                f"Pile holds {len(self.pile)} ({rule})")

    def _check_swap(self, action: Action) -> None:
        turn, seat = self.turn_number(), action.seat
        joker, target, ace = action.get("joker"), action.get("target"), action.get("ace")
        rule = P_CLUBS_JOKER if self.mode == CLUBS else P_JOKER_SWAP
        if joker not in self.set or joker not in self.potent_jokers:
            raise IllegalAction(f"turn {turn}: {seat_words(seat)} cannot swap {joker!r}: it is not a Potent "
                                f"Joker of this Set; swap {card_list(sorted(self.potent_jokers))} "
                                f"({rule})")
        if (target, ace) not in self.swappable():
            offers = "; ".join(f"{seat_words(t)}'s {DECK[a].name}" for t, a in self.swappable())
            raise IllegalAction(f"turn {turn}: {seat_words(seat)} cannot take {ace!r} from "
                                f"{seat_words(target)}: "
                                f"it is not another player's Potent Ace; the choice is {offers} "
                                f"({rule})")

    def _check_draw(self, action: Action) -> None:
        turn, seat = self.turn_number(), self.seat
        cards = action.get("cards")
        shown = f"turn {turn}: {seat_words(seat)}'s " + ("card" if self.mode == CLUBS else "Set")
        if action.seat is not None:
            raise IllegalAction(f"{shown}: a draw comes from the Pile and has no seat, got "
                                f"{seat_words(action.seat)}")
        if not isinstance(cards, tuple) or not all(isinstance(c, str) for c in cards):
            raise IllegalAction(f"{shown}: a draw needs a list of card codes, got {cards!r}")
        if len(cards) != self.need:
            rule = P_CLUBS_DRAW if self.mode == CLUBS else P_DIAMONDS if self.set else P_SET
            picked = "was" if self.need == 1 else "were"
            raise IllegalAction(f"{shown} shows {cards_word(len(cards))} ({card_list(cards)}), "
                                f"but {cards_word(self.need)} {picked} picked up ({rule})")
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
        self.todo = [Words.of("{Seat}: {advice}", seat=Seat(s), advice=advice(ruling))]
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
        self.todo = [Words.of("{Seat}: {advice}", seat=Seat(s),
                              advice=advice(ruling, clubs=True))]
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
        return render(self._result())

    def _result(self) -> Words:
        if self.result is None:
            return plain("")
        return Words.of("{seat} wins: {why}", seat=Seat(self.winner), why=win_words(self.result))

    # -- words and the screen ------------------------------------------------------
    def _prompt(self) -> Words:
        """What the seat to act (or the Pile) must do next."""
        s = Seat(self.seat)
        if self.step == OVER:
            return Words.of("The game is over: {result}.", result=self._result())
        if self.step == TURN:
            clubs = ", or play your Ace of Clubs" if "AC" in self.aside[s.index] else ""
            return Words.of(f"{{Seat}}'s turn: collect one or more cards from the Pile "
                            f"({len(self.pile)} left){clubs}.", seat=s)
        if self.step == ADD:
            return Words.of("{Seat}: {advice}", seat=s, advice=advice(Ruling("more", P_DIAMONDS)))
        if self.step == SWAP:
            offers = listed(Words.of("{seat}'s {ace}", seat=Seat(t), ace=CardRef(a, DECK[a].name))
                            for t, a in self.swappable())
            return Words.of(f"{{Seat}}: swap the Joker for another player's Potent Ace, you "
                            f"choose: {{offers}}. The Joker goes into that player's Stash and "
                            f"their Ace takes its place "
                            f"{'as the card you picked up' if self.mode == CLUBS else 'in your Set'}.",
                            seat=s, offers=offers)
        if self.mode == CLUBS:
            return Words.of("{Seat}: pick up one card from the Pile and show it face up.", seat=s)
        what = "more " if self.set else ""
        return Words.of(f"{{Seat}}: show the {self.need} {what}card{'s' if self.need > 1 else ''} "
                        f"picked up, face up.", seat=s)

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
        return render(self.explain_words())

    def explain_words(self) -> Words:
        return listed([*self.todo, self._prompt()], " ".join)

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
                "todo": [render(w) for w in self.todo],
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
                "todo": [render(w) for w in self.todo]}
