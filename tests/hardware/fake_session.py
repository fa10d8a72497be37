"""A tiny in-memory SessionPort over a real engine, for the panel tests.

It keeps the contract of companion.viewmodel.SessionPort: act -> Verdict (a rejected action
leaves the state alone and gives an awaiting verdict), undo drops the last accepted event,
confirm accepts the referee's call, view() is a ViewModel built from `State.view()`, and
subscribers get every published view. It also offers `legal_actions()`, which the panel
uses when a session has it. No storage: the real Session writes SQLite first.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

from companion.errors import IllegalAction
from companion.games.base import Action, Game, State
from companion.viewmodel import Verdict, ViewModel


class FakeSession:
    def __init__(self, game: Game, players: Sequence[str] | None = None) -> None:
        self.game = game
        self.players = tuple(players or (f"P{i}" for i in range(game.players)))
        self.state: State = game.new_state()
        self.log: list[Action] = []
        self.undone: list[Action] = []
        self.verdict: Verdict | None = None
        self.sources: list[str] = []
        self.confirms = 0
        self._subscribers: list[Callable[[ViewModel], Any]] = []

    def _replay(self) -> None:
        self.state = self.game.new_state()
        for action in self.log:
            self.state.apply(action)

    def _publish(self) -> None:
        view = self.view()
        for callback in self._subscribers:
            callback(view)

    def act(self, action: Action, source: str = "touch") -> Verdict:
        self.sources.append(source)
        try:
            self.state.apply(action)
        except IllegalAction as exc:
            self.verdict = Verdict(False, str(exc), action.seat, awaiting=True)
        else:
            self.log.append(action)
            self.undone.clear()
            self.verdict = Verdict(True, f"seat {action.seat} {action.kind}", action.seat)
        self._publish()
        return self.verdict

    def undo(self) -> bool:
        if not self.log:
            self.verdict = None
            self._publish()
            return False
        self.undone.append(self.log.pop())
        self._replay()
        self.verdict = None
        self._publish()
        return True

    def redo(self) -> bool:
        if not self.undone:
            return False
        self.log.append(self.undone.pop())
        self._replay()
        self.verdict = Verdict(True, "redone")
        self._publish()
        return True

    def confirm(self) -> None:
        self.confirms += 1
        if self.verdict is not None and self.verdict.awaiting:
            self.verdict = dataclasses.replace(self.verdict, awaiting=False)
            self._publish()

    def legal_actions(self) -> list[Action]:
        return list(self.state.legal_actions())

    def view(self) -> ViewModel:
        v = self.state.view()
        return ViewModel(game=self.game.name, title=self.game.title, players=self.players,
                         turn=v.get("turn"), phase=v.get("phase", ""), next=v.get("next", ""),
                         table=v.get("table", {}), scores=tuple(self.state.scores()),
                         verdict=self.verdict, over=self.state.is_terminal(),
                         winners=tuple(self.state.winners()), events=len(self.log),
                         can_undo=bool(self.log), can_redo=bool(self.undone))

    def subscribe(self, callback: Callable[[ViewModel], Any]) -> None:
        self._subscribers.append(callback)
