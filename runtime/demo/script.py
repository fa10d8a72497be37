"""The truth the demo is checked against: a seeded full-information bot game, step by step.

`Script.of(game, seed)` plays the game with `companion.eventlog.bot_game` and keeps, for
every action, the full action (what the synthetic table lays out), the public action
(what the table shows, and so what the session must log) and the outcomes the rules gave.
Replaying the public actions gives the same outcomes and scores (`Game.public_action`), so
the session fed from the camera and the touchscreen must log exactly these steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from companion.eventlog import bot_game
from companion.games import Action, Game, State


@dataclass(frozen=True)
class Step:
    """One action of the true game. `number` counts the visible actions from 1: it is the
    number of the accepted event the session must log for it (0 for an invisible one)."""

    index: int  # position among all the game's actions, from 0
    number: int
    action: Action
    public: Action | None
    outcomes: tuple[dict[str, Any], ...] = ()

    @property
    def visible(self) -> bool:
        return self.public is not None

    def expected(self) -> dict[str, Any]:
        """The accepted event the session must log: the public action's JSON."""
        assert self.public is not None
        return self.public.to_json()


@dataclass
class Script:
    """A whole seeded bot game as steps, with its final scores and winners."""

    game: Game
    seed: int
    steps: list[Step]
    scores: list[int | float]
    winners: list[int]
    log: list[dict[str, Any]] = field(repr=False)
    final: State = field(repr=False)

    @classmethod
    def of(cls, game: Game, seed: int) -> Script:
        state, log = bot_game(game, seed)
        steps: list[Step] = []
        number = 0
        for event in log:
            kind = event["type"]
            if kind in game.action_kinds:
                action = Action.from_json(event)
                public = game.public_action(action)
                if public is not None:
                    number += 1
                steps.append(Step(len(steps), number if public is not None else 0, action, public))
            elif kind in game.outcome_kinds:
                last = steps[-1]
                steps[-1] = Step(last.index, last.number, last.action, last.public,
                                 (*last.outcomes, event))
        return cls(game, seed, steps, state.scores(), state.winners(), log, state)

    @property
    def visible(self) -> list[Step]:
        """The steps the session must log, in order."""
        return [s for s in self.steps if s.visible]

    def __len__(self) -> int:
        return len(self.visible)
