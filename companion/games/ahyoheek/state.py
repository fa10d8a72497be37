"""Ahyoheek's game and state: secret picks, revealed when everyone has picked, rounds
until someone holds three of one item, then sudden death among the tied. The rules are
in `rules`, the words in `words`, the bot in `bot`.
"""

from __future__ import annotations

import random
from typing import Any

from companion.errors import IllegalAction
from companion.games.ahyoheek import bot, words
from companion.games.ahyoheek.rules import GOAL, PICKS, round_scores, round_winners
from companion.games.base import TERMINAL, Action, Game, Option, State
from companion.words import Seat, Words, each_seat, plain, render, seat_words, seats_words


class Ahyoheek(Game):
    name = "ahyoheek"  # title, deck and players: companion/catalog.py
    options_spec = (
        Option("cycle", str, "example",
               "which item beats which: 'example' = beetle beats pen beats page beats beetle "
               "(the worked example), 'summary' = pen beats beetle beats page beats pen",
               choices=("example", "summary")),
    )
    action_kinds = frozenset({"pick"})
    outcome_kinds = frozenset({"round", "sudden_death", "match"})

    def new_state(self) -> AhyoheekState:
        return AhyoheekState(self)

    def bot_action(self, state: State, rng: random.Random) -> Action:
        """Beat what the others picked most often so far, with a one-in-three surprise (`bot`)."""
        assert isinstance(state, AhyoheekState)
        return bot.choose_action(state, rng)

    def event_words(self, event: dict[str, Any]) -> Words | None:
        """Words for players (`words.event_words`); None for an event this game does not know."""
        return words.event_words(event)


class AhyoheekState(State):
    game: Ahyoheek

    def __init__(self, game: Ahyoheek) -> None:
        super().__init__(game)
        n = game.players
        self.holdings: list[dict[str, int]] = [dict.fromkeys(PICKS, 0) for _ in range(n)]
        self.in_play: list[int] = list(range(n))
        self.picks: dict[int, str] = {}
        self.rounds: list[list[str | None]] = []
        self.sudden_death = False
        self.winner: int | None = None

    def current_player(self) -> int:
        if self.winner is not None:
            return TERMINAL
        return next(s for s in self.in_play if s not in self.picks)

    def legal_actions(self) -> list[Action]:
        if self.winner is not None:
            return []
        return [Action.make("pick", seat, pick=p) for seat in self.in_play for p in PICKS
                if self.picks.get(seat) != p]

    def sample_chance(self, rng: random.Random) -> Action:
        raise IllegalAction("Ahyoheek has no chance moves: every move is a player's pick")

    def check(self, action: Action) -> None:
        if self.winner is not None:
            raise IllegalAction(f"{action}: the match is over ({seat_words(self.winner)} won)")
        if action.kind != "pick":
            raise IllegalAction(f"{action}: the only move in Ahyoheek is 'pick'")
        seat, pick = action.seat, action.get("pick")
        if pick not in PICKS:
            raise IllegalAction(f"{seat_words(seat)} picks {pick!r}: a pick is pen, page or beetle")
        if seat not in self.in_play:
            why = (f"only {seats_words(self.in_play)} play the sudden death"
                   if self.sudden_death else f"the seats are 1 to {self.game.players}")
            raise IllegalAction(f"{seat_words(seat)} cannot pick: {why}")
        if self.picks.get(seat) == pick:
            raise IllegalAction(f"{seat_words(seat)} has already made that pick")

    def _apply(self, action: Action) -> list[dict[str, Any]]:
        self.picks[action.seat] = action["pick"]  # a re-pick replaces the old one
        if len(self.picks) < len(self.in_play):
            return []
        return self._reveal()

    def _reveal(self) -> list[dict[str, Any]]:
        n = self.game.players
        picks: list[str | None] = [self.picks.get(s) for s in range(n)]
        scores = round_scores(picks, self.game.options["cycle"])
        winners = round_winners(picks, scores)
        self.rounds.append(picks)
        self.picks = {}
        out: list[dict[str, Any]] = [{"type": "round", "round": len(self.rounds), "picks": picks,
                                      "scores": scores, "winners": winners,
                                      "sudden_death": self.sudden_death}]
        if self.sudden_death:
            if len(winners) == 1:
                self.winner = winners[0]
                out.append({"type": "match", "winner": self.winner,
                            "why": "won the sudden-death round alone"})
            return out
        for w in winners:
            self.holdings[w][picks[w]] += 1  # type: ignore[index]
        done = [s for s in range(n) if max(self.holdings[s].values()) >= GOAL]
        if not done:
            return out
        most = max(sum(self.holdings[s].values()) for s in done)
        tied = [s for s in done if sum(self.holdings[s].values()) == most]
        if len(tied) == 1:
            self.winner = tied[0]
            item = max(PICKS, key=lambda p: self.holdings[self.winner][p])  # type: ignore[index]
            why = f"holds three {item}s" if len(done) == 1 else \
                f"holds three {item}s and the most items ({most})"
            out.append({"type": "match", "winner": self.winner, "why": why})
        else:
            self.sudden_death = True
            self.in_play = tied
            out.append({"type": "sudden_death", "seats": tied})
        return out

    def scores(self) -> list[int]:
        """Items held by each seat."""
        return [sum(h.values()) for h in self.holdings]

    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def phase_words(self) -> str:
        return ("sudden death" if self.sudden_death else "round") + f" {len(self.rounds) + 1}"

    def result_words(self) -> str:
        return render(self._result())

    def _result(self) -> Words:
        return plain("") if self.winner is None else Words.of("{seat} wins", seat=Seat(self.winner))

    def explain(self) -> str:
        return render(self.explain_words())

    def explain_words(self) -> Words:
        if self.winner is not None:
            return Words.of("The match is over: {result}.", result=self._result())
        waiting = [s for s in self.in_play if s not in self.picks]
        lead = "Sudden death. " if self.sudden_death else ""
        return Words.of(f"{lead}Round {len(self.rounds) + 1}: waiting for {{waiting}} to pick "
                        f"pen, page or beetle.", waiting=each_seat(waiting))

    def view(self) -> dict[str, Any]:
        """Picks stay secret until the reveal: the view says who has picked, not what."""
        last = self.rounds[-1] if self.rounds else None
        return {"turn": None if self.winner is not None else self.current_player(),
                "phase": self.phase_words(),
                "next": self.explain(),
                "table": {"picked": sorted(self.picks), "in_play": list(self.in_play),
                          "holdings": [dict(h) for h in self.holdings], "last_round": last}}

    def snapshot(self) -> dict[str, Any]:
        return {"holdings": [dict(h) for h in self.holdings], "in_play": list(self.in_play),
                "picks": {str(k): v for k, v in sorted(self.picks.items())},
                "rounds": [list(r) for r in self.rounds], "sudden_death": self.sudden_death,
                "winner": self.winner}
