"""The referee at the table: one game in play, its log in storage, its picture on screen.

A `Session` takes inputs (an action from a touch or a button, an observation from the
camera), asks the game's engine about them, appends every input to the game's log in
storage (accepted or rejected, with the reason) and only after that commit publishes a
new `ViewModel` to its subscribers. The state is the replay of the log in effect
(`companion.storage.Timeline`), so a killed process resumes exactly where the last
commit left it (docs/session.md).

Calls may come from several threads (the panel's, the camera's, the UI's): one lock
serialises them, and subscribers are called in order, inside it, after the commit; they
should hand the view model over to their own thread and return. Several processes may
share the database: every write first catches up with events other writers committed,
inside the same transaction, so the engine always judges against the real log.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from typing import Any

from companion import table
from companion.errors import BadLog, CompanionError, IllegalAction
from companion.games import Action, Game, State, get_game, make_game
from companion.games.base import describe_event, event_words
from companion.observation import Observation, Question
from companion.storage import Event, GameRecord, GameWriter, NotPlaying, Store, Timeline
from companion.viewmodel import QuestionView, Verdict, ViewModel
from companion.words import Seat, Words, plain, render

log = logging.getLogger(__name__)

Subscriber = Callable[[ViewModel], None]
CAMERA_STATES = ("ok", "no camera", "mat lost")
AWAITING_NEXT = "Confirm the referee's call, or undo the last move."
AnswerListener = Callable[[str, str], None]
PossibleListener = Callable[[frozenset[str], dict[str, str]], None]


class NoQuestion(CompanionError, KeyError):
    """An answer or a withdrawal names a question that is not pending."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class Session:
    """One game in play (implements `companion.viewmodel.SessionPort`).
    Make one with `Session.start` or `Session.resume`."""

    def __init__(self, store: Store, record: GameRecord, game: Game) -> None:
        if game.players != len(record.players):
            raise BadLog(f"game {record.id}: {len(record.players)} players are seated but its "
                         f"config says {game.players}")
        self._store = store
        self.game_id = record.id
        self.game = game
        self.players = record.players
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._timeline = Timeline()
        self._state: State = game.new_state()
        self._verdict: Verdict | None = None
        self._camera = "ok"
        self._stale = False
        self._caught_up = False
        # cards the camera cannot name, by key, oldest first: shown, not logged until answered
        self._questions: dict[str, Question] = {}
        self._answer_listeners: list[AnswerListener] = []
        self._view = self._build_view()

    # -- making one ----------------------------------------------------------------------
    @classmethod
    def start(cls, store: Store, game_name: str, players: Sequence[str], **options: Any) -> Session:
        """A new game of `game_name` between `players` (names, by seat) with its options."""
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise TypeError(f"players must be a list of names, got {players!r}")
        game = make_game(game_name, len(players), **options)
        game_id = store.create_game(game.name, game.config(), players)
        return cls(store, store.game(game_id), game)

    @classmethod
    def resume(cls, store: Store, game_id: int) -> Session:
        """The stored game `game_id`, exactly as its last committed event left it."""
        record = store.game(game_id)
        if record.damage:
            raise BadLog(f"game {game_id} cannot be resumed: {record.damage}")
        try:
            game = get_game(record.game)(**record.config)
        except CompanionError as exc:
            raise BadLog(f"game {game_id} cannot be resumed: {exc}") from None
        session = cls(store, record, game)
        with session._lock:
            session._fold(store.events(game_id))
            session._view = session._build_view()
        return session

    # -- reading -------------------------------------------------------------------------
    def view(self) -> ViewModel:
        """The current picture (frozen: safe to hand to another thread)."""
        return self._view

    def state(self) -> State:
        """A copy of the game's state after the log in effect."""
        with self._lock:
            return self._state.clone()

    def legal_actions(self) -> list[Action]:
        """The legal actions of the seat to act now (cheaper than `state().legal_actions()`)."""
        with self._lock:
            return list(self._state.legal_actions())

    def history(self) -> list[Action]:
        """The actions in effect, in order: the log minus everything undone."""
        with self._lock:
            return [Action.from_json(e.data) for e in self._timeline.done]

    def events(self) -> list[Event]:
        """The accepted events in effect, as stored (seq, time, source, outcomes)."""
        with self._lock:
            return list(self._timeline.done)

    def possible(self) -> tuple[frozenset[str], dict[str, str]]:
        """What the camera should expect next (companion.possible): the cards of the
        game's deck not yet seen in play, and where each seen one is, in words."""
        from companion.cards import get_deck
        from companion.possible import possible

        if self.game.deck is None:  # Ahyoheek: picks on buttons, no cards
            return frozenset(), {}
        with self._lock:
            actions = [e.data for e in self._timeline.done]
        return possible(actions, get_deck(self.game.deck).codes, self.game.name)

    def watch_possible(self, callback: PossibleListener) -> Callable[[], None]:
        """Call `callback(*self.possible())` now and after every change of the log in
        effect (vision's prior: `recognizer.prior = Prior(likely, placed)`), not on other
        publications (a question, the camera status). possible() reads the whole log (about
        8 ms after 240 Yokir events), so this is cheaper than asking before every frame.
        Returns an unsubscribe."""
        last: list[Any] = [None, -1, None]  # the verdict, events and can_redo last seen

        def changed(view: ViewModel) -> None:
            if view.verdict is not last[0] or [view.events, view.can_redo] != last[1:]:
                last[:] = [view.verdict, view.events, view.can_redo]
                callback(*self.possible())
        with self._lock:
            changed(self._view)
        return self.subscribe(changed)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(view_model)` after every committed change; returns an unsubscribe."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock, suppress(ValueError):
                self._subscribers.remove(callback)
        return unsubscribe

    # -- inputs --------------------------------------------------------------------------
    def act(self, action: Action, source: str = "touch", *,
            observation: Observation | None = None) -> Verdict:
        """Judge `action`: accepted, it is stored, committed, then applied on screen;
        rejected, it is stored with the reason and the verdict awaits acknowledgement."""
        if not isinstance(action, Action):
            raise TypeError(f"act() takes an Action, got {action!r}")
        return self._judge(action, source, None if observation is None else observation.to_json())

    def _judge(self, action: Action, source: str, obs: dict[str, Any] | None) -> Verdict:
        _check_source(source)
        with self._lock:
            with self._writing() as tx:
                try:
                    self._state.check(action)
                except CompanionError as exc:  # IllegalAction, or an unknown card in the action
                    event = tx.append("rejected", self._rejection(action), source=source,
                                      reason=str(exc), observation=obs)
                else:
                    outcomes = self._state.apply(action)
                    event = tx.append("accepted", action.to_json(), source=source, outcomes=outcomes,
                                      observation=obs)
                    if self._state.is_terminal():
                        tx.finish(self._state.scores(), self._state.winners())
            self._settle(event)
            assert self._verdict is not None
            return self._verdict

    def observe(self, observation: Observation, source: str = "vision") -> Verdict | None:
        """Turn a camera observation into an action through the game's table adapter and
        judge it. None when the adapter says the change is no move; an observation with no
        adapter, or one the adapter cannot read, is logged as rejected with the reason."""
        if not isinstance(observation, Observation):
            raise TypeError(f"observe() takes an Observation, got {observation!r}")
        return self._observe(observation, source, None)

    def _observe(self, observation: Observation, source: str,
                 asked: dict[str, Any] | None) -> Verdict | None:
        """observe(), with the evidence of an answered question kept in the log."""
        _check_source(source)
        obs = observation.to_json()
        if asked is not None:
            obs["asked"] = asked
        with self._lock:
            try:
                action = table.observation_to_action(self._state, observation)
            except CompanionError as exc:
                with self._writing() as tx:
                    event = tx.append("rejected", self._rejection(None), source=source,
                                      reason=str(exc), observation=obs)
                self._settle(event)
                return self._verdict
            if action is None:
                return None
            return self._judge(action, source, obs)

    # -- questions: cards the camera cannot name -------------------------------------------
    def ask(self, question: Question) -> None:
        """Ask the players to name a card the camera sees but cannot name: it is pending
        (in the view model's `question`, oldest first) until answered or withdrawn. Asking
        again with the same key replaces the question. Nothing is logged until the answer."""
        if not isinstance(question, Question):
            raise TypeError(f"ask() takes a Question, got {question!r}")
        with self._lock:
            if self._questions.get(question.key) == question:
                return
            self._questions[question.key] = question
            self._refresh()  # published now: the screen shows it with the next frame

    def questions(self) -> list[Question]:
        """The pending questions, oldest first."""
        with self._lock:
            return list(self._questions.values())

    def question_crop(self, key: str) -> bytes:
        """The camera's picture of a pending question's card (PNG bytes, may be empty)."""
        with self._lock:
            return self._pending(key).crop_png

    def answer(self, key: str, code: str, source: str = "touch") -> Verdict | None:
        """The players name the card of question `key`: it goes to the referee as the
        camera's observation of `code` where the card lies (`Session.observe`), and the
        logged event's observation keeps the evidence under "asked" (the candidates, their
        scores, the answer and who gave it). A card the rules forbid is ruled on as any."""
        _check_source(source)
        if not isinstance(code, str) or not code.strip():
            raise ValueError(f"an answer is a card's code, got {code!r}")
        with self._lock:
            question = self._pending(key)
            asked = {"candidates": [c for c, _ in question.candidates],
                     "scores": [round(float(s), 3) for _, s in question.candidates],
                     "answer": code, "source": source}
            del self._questions[key]
            try:
                verdict = self._observe(question.observation(code), source, asked)
            except BaseException:
                self._questions[key] = question  # nothing was stored: still to be answered
                raise
            if verdict is None:  # the adapter saw no move in it: the question is gone all the same
                self._refresh()
            listeners = list(self._answer_listeners)
        for listener in listeners:
            try:
                listener(key, code)
            except Exception:
                log.exception("an answer listener failed on game %s", self.game_id)
        return verdict

    def withdraw(self, key: str) -> bool:
        """Drop a pending question (its card left the table); False when none has `key`."""
        with self._lock:
            if self._questions.pop(key, None) is None:
                return False
            self._refresh()
            return True

    def on_answer(self, callback: AnswerListener) -> Callable[[], None]:
        """Call `callback(key, code)` after every answered question (vision learns the
        card: `Recognizer.resolve`); returns an unsubscribe."""
        with self._lock:
            self._answer_listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock, suppress(ValueError):
                self._answer_listeners.remove(callback)
        return unsubscribe

    def _pending(self, key: str) -> Question:
        try:
            return self._questions[key]
        except (KeyError, TypeError):
            raise NoQuestion(f"no question {key!r} is pending in game {self.game_id}") from None

    def undo(self, source: str = "touch") -> bool:
        """Take back the last accepted event in effect (False at the start of the game).
        Undoing the move that ended the game reopens it and withdraws its result."""
        _check_source(source)
        with self._lock:
            with self._writing() as tx:
                if not self._timeline.done:
                    event = None
                else:
                    target = self._timeline.done[-1]
                    if self._state.is_terminal():
                        tx.reopen()
                    event = tx.append("undo", {"target": target.seq, "action": target.data},
                                      source=source)
                    self._replay(self._timeline.done[:-1])
            if event is None:
                self._publish_if_caught_up()
                return False
            self._settle(event)
            return True

    def redo(self, source: str = "touch") -> bool:
        """Re-apply the last undone event (False when none is left, or a new one came since)."""
        _check_source(source)
        with self._lock:
            with self._writing() as tx:
                if not self._timeline.undone:
                    event = None
                else:
                    target = self._timeline.undone[-1]
                    self._apply_stored(target)
                    event = tx.append("redo", {"target": target.seq, "action": target.data},
                                      source=source)
                    if self._state.is_terminal():
                        tx.finish(self._state.scores(), self._state.winners())
            if event is None:
                self._publish_if_caught_up()
                return False
            self._settle(event)
            return True

    def confirm(self, source: str = "touch") -> None:
        """Accept the referee's call on an awaiting verdict (nothing to do otherwise)."""
        _check_source(source)
        with self._lock:
            with self._writing() as tx:
                awaiting = self._timeline.awaiting
                event = None if awaiting is None else tx.append(
                    "confirm", {"target": awaiting.seq}, source=source)
            if event is None:
                self._publish_if_caught_up()
                return
            self._settle(event)

    def abandon(self, reason: str, source: str = "touch") -> None:
        """End the game without a result, with the reason (`Store.abandon`): an 'abandon'
        event; the game then takes no more moves."""
        _check_source(source)
        with self._lock:
            with self._writing() as tx:
                event = tx.abandon(reason, source)
            self._settle(event)

    def step_bot(self, rng: random.Random, source: str = "bot") -> Verdict:
        """One move by the engine itself: the deal or draw at a chance node, else the
        bot's move for the seat to act (full-information play: demos and tests). With the
        same `rng`, a whole game of steps is the game `eventlog.bot_game` logs."""
        with self._lock:
            self.sync()
            state = self._state
            if state.is_terminal():
                raise IllegalAction(f"game {self.game_id} is over: there is no move for a bot")
            action = state.sample_chance(rng) if state.is_chance() else self.game.bot_action(state, rng)
            return self.act(action, source)

    def sync(self) -> bool:
        """Pick up events another process committed to this game; True if there were any."""
        with self._lock:
            if self._stale:
                self._reload()
                return True
            events = self._store.events(self.game_id, after=self._timeline.last_seq)
            if not events:
                return False
            self._fold(events)
            self._refresh()
            return True

    def set_camera(self, status: str) -> None:
        """What the camera can see ("ok", "no camera", "mat lost"): shown, not logged."""
        if status not in CAMERA_STATES:
            raise ValueError(f"camera status must be one of {', '.join(CAMERA_STATES)}, "
                             f"got {status!r}")
        with self._lock:
            if status != self._camera:
                self._camera = status
                self._refresh()

    # -- inside ----------------------------------------------------------------------------
    @contextmanager
    def _writing(self) -> Iterator[GameWriter]:
        """A write transaction that starts by catching up with other writers. If anything
        fails, the memory may hold a move that was never committed: rebuild it from disk."""
        if self._stale:
            self._reload()
        self._caught_up = False
        try:
            with self._store.write(self.game_id) as tx:
                new = tx.events_after(self._timeline.last_seq)
                if new:
                    self._fold(new)
                    self._caught_up = True
                if self._timeline.abandoned is not None:
                    raise NotPlaying(f"game {self.game_id} was abandoned "
                                     f"({self._timeline.abandoned.reason}): it takes no more moves")
                yield tx
        except BaseException:
            self._stale = True
            with suppress(Exception):
                self._reload()
            raise

    def _reload(self) -> None:
        self._timeline = Timeline()
        self._state = self.game.new_state()
        self._verdict = None
        self._fold(self._store.events(self.game_id))
        self._stale = False
        shown = self._view
        self._view = self._build_view()
        if self._view != shown:  # another writer moved on meanwhile: show it
            self._refresh()

    def _fold(self, events: Sequence[Event]) -> None:
        """Bring timeline, state and verdict up to date with committed events."""
        rebuild = False
        for event in events:
            try:
                self._timeline.add(event)
            except BadLog as exc:
                raise BadLog(f"game {self.game_id}: {exc}") from None
            if event.kind in ("accepted", "redo") and not rebuild:
                self._apply_stored(self._timeline.done[-1])
            elif event.kind == "undo":
                rebuild = True
            self._verdict = self._verdict_of(event)
        if rebuild:
            self._replay(self._timeline.done)

    def _settle(self, event: Event) -> None:
        """Our own event is committed: record it and show it."""
        self._timeline.add(event)
        self._verdict = self._verdict_of(event)
        self._refresh()

    def _publish_if_caught_up(self) -> None:
        if self._caught_up:
            self._refresh()

    def _apply_stored(self, event: Event) -> None:
        try:
            self._state.apply(Action.from_json(event.data))
        except CompanionError as exc:
            raise BadLog(f"game {self.game_id}, event {event.seq}: the rules reject the stored "
                         f"{event.data.get('type')!r}: {exc}") from None

    def _replay(self, events: Sequence[Event]) -> None:
        """The state after `events` from the start (a state cannot run backwards)."""
        self._state = self.game.new_state()
        for event in events:
            self._apply_stored(event)

    def _rejection(self, action: Action | None) -> dict[str, Any]:
        data: dict[str, Any] = {} if action is None else {"action": action.to_json()}
        limit = self._engine_view().get("limit")
        if limit:
            data["rule"] = limit
        return data

    def _describe(self, event: dict[str, Any]) -> str:
        # Called after the commit: an engine's wording bug must not cost the memory its
        # consistency with the log, so it falls back to plain words (and is logged).
        try:
            return describe_event(self.game, event)
        except Exception:
            log.exception("%s cannot describe %r", self.game.name, event)
            return ", ".join(f"{k} {v}" for k, v in event.items())

    def _words(self, action_json: dict[str, Any]) -> str:
        """The action as the table may see it (hidden parts stay hidden)."""
        action = Action.from_json(action_json)
        try:
            public = self.game.public_action(action)
        except Exception:
            log.exception("%s cannot make %s public", self.game.name, action)
            public = None
        if public is None:
            who = "The dealer" if action.seat is None else f"Seat {action.seat + 1}"
            return f"{who}: {action.kind}"
        return self._describe(public.to_json())

    def _event_words(self, event: dict[str, Any]) -> Words | None:
        # As _describe: a wording bug must not stop the table (the verdict keeps its text).
        try:
            return event_words(self.game, event)
        except Exception:
            log.exception("%s cannot word %r", self.game.name, event)
            return None

    def _action_words(self, action_json: dict[str, Any]) -> Words | None:
        """As `_words`, as data (`companion.words.Words`)."""
        action = Action.from_json(action_json)
        try:
            public = self.game.public_action(action)
        except Exception:
            public = None
        if public is None:
            if action.seat is None:
                return plain(f"The dealer: {action.kind}")
            return Words.of("{Seat}: {kind}", seat=Seat(action.seat), kind=action.kind)
        return self._event_words(public.to_json())

    def _verdict_of(self, event: Event) -> Verdict | None:
        if event.kind == "accepted":
            note = (event.observation or {}).get("note")
            words = self._words(event.data)
            if note and isinstance(note, str):  # how the rules settled the camera's reading
                words = f"{words.rstrip('.')} ({note})"
            text = " ".join(_sentence(s) for s in [words]
                            + [self._describe(o) for o in event.outcomes])
            data = [self._action_words(event.data), *map(self._event_words, event.outcomes)]
            if note and isinstance(note, str):
                data.insert(1, plain(f"({note})"))
            return Verdict(True, text, seat=event.data.get("seat"),
                           words=tuple(w for w in data if w is not None))
        if event.kind in ("undo", "redo"):
            word = "Undone" if event.kind == "undo" else "Redone"
            action = event.data.get("action", {})
            done = self._action_words(action)
            return Verdict(True, _sentence(f"{word}: {self._words(action)}"), seat=action.get("seat"),
                           words=() if done is None else (Words.of(f"{word}: {{w}}", w=done),))
        if event.kind == "abandon":
            return Verdict(True, _sentence(f"Abandoned: {event.reason}"))
        if event.kind == "rejected":
            action = event.data.get("action") or {}
            seat = action.get("seat", (event.observation or {}).get("seat"))
            return Verdict(False, _sentence(event.reason or "Rejected"), seat=seat,
                           rule=event.data.get("rule"), awaiting=True)
        # confirm: the call stands, nobody needs to answer it any more
        return None if self._verdict is None else replace(self._verdict, awaiting=False)

    def _engine_view(self) -> dict[str, Any]:
        # As with _describe: a bug in an engine's picture must not freeze the table, so the
        # screen falls back to the plain picture every state has (and the bug is logged).
        try:
            return self._state.view()
        except Exception:
            log.exception("%s cannot draw its view of game %s", self.game.name, self.game_id)
        try:
            return State.view(self._state)
        except Exception:
            turn = self._state.current_player()
            return {"turn": turn if turn >= 0 else None}

    def _build_view(self) -> ViewModel:
        state, verdict = self._state, self._verdict
        v = self._engine_view()
        turn = v.get("turn")
        awaiting = bool(verdict and verdict.awaiting)
        next_text, limit_text = AWAITING_NEXT if awaiting else v.get("next", ""), v.get("limit") or ""
        table_facts = dict(v.get("table") or {})
        return ViewModel(
            game=self.game.name, title=self.game.title, players=self.players,
            turn=turn if isinstance(turn, int) and turn >= 0 else None,
            phase=v.get("phase", ""), next=next_text, limit=limit_text,
            next_words=plain(AWAITING_NEXT) if awaiting else self._as_words(
                state.explain_words, next_text, "next"),
            limit_words=self._as_words(state.limit_as_words, limit_text, "limit"),
            facts_words=self._facts_words(table_facts), legal=tuple(v.get("legal") or ()),
            trick=tuple(v.get("trick") or ()), last_trick=v.get("last_trick"),
            scores=tuple(state.scores()), verdict=verdict,
            over=state.is_terminal() or self._timeline.abandoned is not None,
            winners=tuple(state.winners()), events=len(self._timeline.done),
            can_undo=bool(self._timeline.done) and self._timeline.abandoned is None,
            can_redo=bool(self._timeline.undone) and self._timeline.abandoned is None,
            table=table_facts, camera=self._camera, question=self._question_view())

    def _as_words(self, make: Callable[[], Words], text: str, what: str) -> Words:
        """The engine's words as data for the view's `text` (see `_checked`)."""
        try:
            return self._checked(make(), text, what)
        except Exception:
            log.exception("%s cannot word its %s as data in game %s", self.game.name, what,
                          self.game_id)
        return plain(text)

    def _checked(self, words: Words, text: str, what: str) -> Words:
        """`words` if they say `text`, else (an engine bug, logged) the text itself as
        words: a screen may always show the data instead of the text."""
        if render(words) == text:
            return words
        log.error("%s's %s words %r do not say %r", self.game.name, what, words, text)
        return plain(text)

    def _facts_words(self, table_facts: dict[str, Any]) -> dict[str, Words]:
        """The engine's table facts as data, each checked against the table's text."""
        try:
            facts = self._state.facts_words()
            return {k: self._checked(w, table_facts[k], k) for k, w in facts.items()
                    if isinstance(table_facts.get(k), str)}
        except Exception:
            log.exception("%s cannot word its table as data in game %s", self.game.name,
                          self.game_id)
            return {}

    def _question_view(self) -> QuestionView | None:
        """The oldest pending question as the screen shows it."""
        if not self._questions:
            return None
        q = next(iter(self._questions.values()))
        return QuestionView(q.key, q.zone, q.seat, tuple((c, self._card_words(c)) for c, _ in q.candidates),
                            crop=bool(q.crop_png), waiting=len(self._questions))

    def _card_words(self, code: str) -> str:
        from companion.words import card_name

        try:
            return card_name(code, str(self.game.deck)) if self.game.deck else code
        except (KeyError, CompanionError):
            return code

    def _refresh(self) -> None:
        self._view = self._build_view()
        for callback in list(self._subscribers):
            try:
                callback(self._view)
            except Exception:
                # the change is committed whatever a screen does with it
                log.exception("a session subscriber failed on game %s", self.game_id)

    def __repr__(self) -> str:
        return (f"Session(game {self.game_id}: {self.game.name}, {', '.join(self.players)}; "
                f"{len(self._timeline.done)} events)")


def _check_source(source: str) -> None:
    if not isinstance(source, str) or not source.strip() or len(source) > 20:
        raise ValueError(f"an input's source is a short name (touch, panel, vision, bot, cli), "
                         f"got {source!r}")


def _sentence(text: str) -> str:
    """Engine messages are clauses ("seat 1 must follow Thought"); the screen shows sentences."""
    text = text.strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "!", "?")) else text + "."
