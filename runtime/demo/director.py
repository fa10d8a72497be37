"""The director: a seeded full-information game, played again at the table through the
camera, the touchscreen and the panel, and checked against itself event by event.

For every step of the true game (`Script`), the game's `Stager` says where the move comes
from. A camera move is laid out on the synthetic table (`Layout`), rendered into frames
and read by the real recognition pipeline, whose observations go to the session through
the game's table adapter (`Session.observe`). A touch goes to the session as the players
would tap it (`Session.act(..., source="touch")`), a button press through the mock panel
and the panel controller. After each step the session's accepted events must be the true
public actions with the true outcomes; at the end the scores must be the true scores.
The first difference raises `DemoMismatch`, naming the event; a tolerant director
(`companion demo --json`) counts it instead, puts it right as the players would (undo,
then the true move by touch) and plays on.

When recognition cannot name a card lying still, it asks (`FrameResult.questions`): the
director puts the question to the session (`Session.ask`, the play screen) and the
simulated players answer it with the truth (`Session.answer`), one touch.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from companion.games import Action, State
from companion.games.base import describe_event
from companion.observation import Observation, Question
from companion.session import Session
from companion.storage import Event
from companion.viewmodel import Verdict
from runtime.demo.errors import DemoError, DemoMismatch, DemoStopped
from runtime.demo.layout import Change, Layout
from runtime.demo.script import Script, Step
from runtime.demo.stages import BUTTON, CAMERA, TOUCH, Stager


class Camera(Protocol):
    """The synthetic table and the recognition pipeline behind it (runtime.demo.camera)."""

    frames: int  # frames rendered and recognised so far
    notes: list[str]  # words about the step in play, for a recorded frame's caption

    def look(self, layout: Layout, t: float, *, hand: bool = False, hand_seat: int | None = None,
             hand_over: str | None = None, next_t: float | None = None) -> list[Observation]:
        """Render the table as `layout` lays it out at time `t` (with a hand of `hand_seat`
        reaching over the card `hand_over` when `hand`), run the frame through recognition,
        return the observations it gave. `next_t`: when the next frame will likely be taken
        if the table stays as it is (a camera may render it ahead)."""

    def holds(self, code: str, zone: str | None = None) -> bool:
        """Whether recognition holds `code` as lying on the table (in `zone`, if given)."""

    # and, once the pipeline asks: `questions`, the last frame's questions (may be absent)


class Buttons(Protocol):
    """The panel with the players' fingers on it (runtime.demo.panel)."""

    def press_for(self, action: Action) -> None:
        """Press the button that makes `action`, and let the controller handle it."""


@dataclass(frozen=True)
class Pace:
    """The demo's clock. Frame times are table time (what the tracker reads), not wall time;
    `wait` is real seconds to sleep after each step (0: as fast as possible)."""

    look_frames: int = 3  # frames per camera step: the tracker's stability window
    extra_frames: int = 8  # more frames of a still table, at most, before giving up on a move
    frame_dt: float = 1 / 15  # table seconds between two frames of one look
    wait_dt: float = 0.35  # ... and between those extra frames (a card taken away counts
    #                        as removed once it has been gone a second)
    gap: float = 1.5  # table seconds between two steps (a player's turn)
    hand_every: int = 6  # every Nth camera step, a hand passes over the table first
    settle_frames: int = 12  # frames at most to let recognition forget a card taken away
    wait: float = 0.0


@dataclass
class StepReport:
    """What one step of the game did at the table (for the console and the recorder)."""

    step: Step
    source: str
    events: list[Event]
    verdict: Verdict | None
    words: list[str]


@dataclass
class DemoResult:
    game: str
    seed: int
    scores: list[int | float]
    truth: list[int | float]
    winners: list[int]
    events: int
    frames: int
    observations: int
    seconds: float
    sources: dict[str, int] = field(default_factory=dict)
    camera: int = 0  # accepted events in effect read from the camera
    asked: int = 0  # events for which the players named a card on the screen (camera asked)
    questions: int = 0  # questions the players answered (an answer the rules refuse too)
    wrong: int = 0  # events that differed from the truth (a tolerant director counts them)
    match: bool = True  # the scores are the full-information game's, and it is over
    differences: list[str] = field(default_factory=list)  # what each wrong event was, in words

    def summary(self) -> dict[str, Any]:
        """The line `companion demo --json` ends with."""
        return {"events": self.events, "camera": self.camera, "asked": self.asked,
                "wrong": self.wrong, "match": self.match}


class Director:
    """Plays `script` at the table into `session`."""

    def __init__(self, script: Script, session: Session, stager: Stager, camera: Camera | None,
                 buttons: Buttons | None = None, pace: Pace | None = None,
                 on_step: Callable[[StepReport], None] | None = None,
                 on_progress: Callable[[int, int], None] | None = None,
                 stop: Callable[[], bool] | None = None, tolerant: bool = False) -> None:
        self.script = script
        self.tolerant = tolerant
        self.session = session
        self.stager = stager
        self.camera = camera
        self.buttons = buttons
        self.pace = pace or Pace()
        self.on_step = on_step
        self.on_progress = on_progress
        self.stop = stop
        self.layout = Layout()
        self.truth: State = script.game.new_state()
        self.t = 0.0
        self._checked = 0
        self._camera_steps = 0
        self._cleared = False  # cards left the table since the camera last looked
        self._observed: list[tuple[Observation, Verdict | None]] = []
        self.observations = 0
        self.sources: dict[str, int] = {}
        self.wrong = 0
        self.asked = 0  # events for which the camera asked about at least one card
        self.differences: list[str] = []
        self.questions = 0
        self._answered: set[str] = set()  # question keys the players have answered

    # -- the game ----------------------------------------------------------------------
    def run(self) -> DemoResult:
        started = time.perf_counter()
        total = len(self.script)
        if self.on_progress:
            self.on_progress(0, total)
        for step in self.script.steps:
            if self.stop is not None and self.stop():
                raise DemoStopped(f"stopped before event {step.number} of {total}")
            self._play(step)
            if self.on_progress and step.visible:
                self.on_progress(step.number, total)
            if self.pace.wait:
                time.sleep(self.pace.wait)
        match = True
        try:
            self._check_end()
        except DemoMismatch as exc:
            if not self.tolerant:
                raise
            self.differences.append(str(exc))
            match = False
        view = self.session.view()
        done = self.session.events()
        return DemoResult(self.script.game.name, self.script.seed, list(view.scores),
                          list(self.script.scores), list(view.winners), len(done),
                          self.camera.frames if self.camera else 0, self.observations,
                          time.perf_counter() - started, dict(self.sources),
                          camera=sum(e.source == "vision" for e in done),
                          asked=self.asked,
                          questions=self.questions, wrong=self.wrong, match=match,
                          differences=list(self.differences))

    def _play(self, step: Step) -> None:
        """One move of the true game: at the table (when anyone can see it), then checked."""
        self._observed = []
        questions = self.questions
        if step.public is None:  # nobody sees it: nothing to enter, nothing to check
            self.truth.apply(step.action)
            self._settle()
            return
        source = self.stager.source(step)
        if source == CAMERA:
            self._camera_step(step, self.truth)
        elif source == TOUCH:
            self.session.act(step.public, source="touch")
        elif source == BUTTON:
            if self.buttons is None:
                raise DemoError(f"event {step.number} is a button press, and the demo has no panel")
            self.buttons.press_for(step.public)
        else:
            raise DemoError(f"the {self.stager.game} stager gives event {step.number} the unknown "
                            f"source {source!r}")
        self.truth.apply(step.action)
        self.sources[source] = self.sources.get(source, 0) + 1
        if self.questions > questions:  # a move of several cards counts once
            self.asked += 1
        try:
            self._check(step, source)
        except DemoMismatch as exc:
            if not self.tolerant:
                raise
            self.differences.append(str(exc))
            self._put_right(step, source)
        self._settle()

    def _put_right(self, step: Step, source: str) -> None:
        """The players see the referee logged something else than the move: they undo what
        it logged for the move and enter the move by touch. Counted as wrong."""
        self.wrong += 1
        while len(self.session.events()) > self._checked:
            if not self.session.undo(source="touch"):
                break
        self.session.act(step.public, source="touch")
        self._check(step, source)  # still different: the session's state has parted, stop

    def _camera_step(self, step: Step, before: State) -> None:
        if self.camera is None:
            raise DemoError(f"event {step.number} is read by the camera, and the demo has none")
        waves = self.stager.waves(step, before)
        self._camera_steps += 1
        self.camera.notes = [f"event {step.number}: {self._words(step.expected())}"]
        for i, wave in enumerate(waves):
            self.layout.apply(Change(remove=wave.remove))
            self._cleared = self._cleared or bool(wave.remove)
            # a card that left the table and comes back: recognition must see it gone first
            back = [code for code, _ in wave.place if code not in self.layout and self.camera.holds(code)]
            if back:
                self._forget(back)
            elif self._cleared and wave.place:
                self._frame()  # the cards gathered, the table bare for a moment
            self._cleared = False
            self.layout.apply(Change(place=wave.place))
            if self.pace.hand_every and self._camera_steps % self.pace.hand_every == 0 and i == 0:
                self._frame(hand=True, seat=_seat_of(step.action),
                            over=wave.place[0][0] if wave.place else None)
            last = i == len(waves) - 1
            frames = self.pace.look_frames + self.pace.extra_frames
            for n in range(frames):
                later = self._dt(n + 1) if n + 1 < frames else None
                self._frame(dt=self._dt(n), ahead=later)
                if n + 1 >= self.pace.look_frames and self._caught_up(wave, step, last):
                    break
            self.t += self.pace.gap

    def _caught_up(self, wave: Change, step: Step, last: bool) -> bool:
        """The last go: the session has the move. Another: recognition sees the go's cards
        where they now lie, or, for a go that only takes cards away (a Piktas swap's card
        taken from the field), no longer sees them."""
        if last:
            return self._accepted() >= step.number
        assert self.camera is not None
        if wave.place:
            return all(self.camera.holds(code, zone) for code, zone in wave.place)
        return not any(self.camera.holds(code) for code in wave.remove)

    def _forget(self, codes: list[str]) -> None:
        """Show the table without `codes` until recognition no longer holds them."""
        assert self.camera is not None
        for _ in range(self.pace.settle_frames):
            if not any(self.camera.holds(c) for c in codes):
                break
            self._frame()
            self.t += self.pace.gap / 2
        self._cleared = False

    def _dt(self, n: int) -> float:
        """Table seconds before the n-th frame of a look (from 0)."""
        return self.pace.frame_dt if n < self.pace.look_frames else self.pace.wait_dt

    def _frame(self, hand: bool = False, seat: int | None = None, over: str | None = None,
               dt: float | None = None, ahead: float | None = None) -> None:
        assert self.camera is not None
        self.t += self.pace.frame_dt if dt is None else dt
        next_t = None if ahead is None else self.t + ahead
        for obs in self.camera.look(self.layout, self.t, hand=hand, hand_seat=seat, hand_over=over,
                                    next_t=next_t):
            self.observations += 1
            self._observed.append((obs, self.session.observe(obs)))
        for key in getattr(self.camera, "withdrawn", None) or ():
            self.session.withdraw(key)  # the card left, or recognition named it after all
        for question in getattr(self.camera, "questions", None) or ():
            self._ask(question)

    def _ask(self, question: Question) -> None:
        """The camera asks; the screen shows it; the players answer with the truth."""
        if question.key in self._answered:
            return  # answered already: recognition has not heard yet
        self.session.ask(question)
        code = self._truth_of(question)
        if code is None:  # the players see no new card there: the question is stale
            self.session.withdraw(question.key)
            return
        self._answered.add(question.key)
        self.questions += 1
        self._observed.append((question.observation(code), self.session.answer(question.key, code)))

    def _truth_of(self, question: Question) -> str | None:
        """The card a question is about, as the players see it: the one lying where
        recognition's card lies (`camera.truth_of`), else the one card in its zone that
        recognition does not hold yet (or, among several, the one the camera offers);
        None when the players cannot tell which card is meant."""
        assert self.camera is not None
        truth_of = getattr(self.camera, "truth_of", None)
        seen = truth_of(question, self.layout) if callable(truth_of) else None
        if seen is not None:  # the card that lies where recognition's card lies
            return seen
        here = [lay.code for lay in self.layout if lay.zone == question.zone]
        fresh = [code for code in here if not self.camera.holds(code, question.zone)]
        offered = {code for code, _ in question.candidates}
        for pool in (fresh, here):
            if len(pool) == 1:
                return pool[0]
            named = [code for code in pool if code in offered]
            if len(named) == 1:
                return named[0]
        return None

    def _settle(self) -> None:
        """Lay the table out as the rules left it (a trick gathered, an Ace set aside)."""
        if not self.stager.uses_camera:
            return
        want = self.stager.settle(self.truth)
        gone = tuple(lay.code for lay in self.layout if lay.code not in want)
        moved = tuple((code, zone) for code, zone in want.items() if self.layout.where(code) != zone)
        self.layout.apply(Change(gone, moved))
        self._cleared = self._cleared or bool(gone or moved)

    # -- checking ----------------------------------------------------------------------
    def _accepted(self) -> int:
        return len(self.session.events())

    def _check(self, step: Step, source: str) -> None:
        events = self.session.events()
        total = len(self.script)
        new = events[self._checked:]
        expected = _plain(step.expected())
        outcomes = _plain(list(step.outcomes))
        if not new:
            raise DemoMismatch(step.number, total, expected, None, self._why_missing(source),
                               expected_words=self._words(expected))
        first = new[0]
        seen = first.data
        if seen != expected:
            raise DemoMismatch(step.number, total, expected, seen, self._cause(first),
                               expected_words=self._words(expected), seen_words=self._words(seen))
        if list(first.outcomes) != outcomes:
            raise DemoMismatch(step.number, total, {"outcomes": outcomes},
                               {"outcomes": list(first.outcomes)},
                               "same action, different outcomes: the session's state had "
                               "already parted from the truth")
        if len(new) > 1:
            extra = new[1]
            nxt = self._next_visible(step)
            raise DemoMismatch(step.number + 1, total, _plain(nxt.expected()) if nxt else None,
                               extra.data, "logged before its turn: " + self._cause(extra),
                               seen_words=self._words(extra.data))
        self._checked += 1
        if self.on_step:
            self.on_step(StepReport(step, source, new, self.session.view().verdict,
                                    self._outcome_words(step)))

    def _check_end(self) -> None:
        view = self.session.view()
        total = len(self.script)
        if self._accepted() != total:
            raise DemoMismatch(self._accepted() + 1, total, None, self.session.events()[-1].data,
                               "the session logged more events than the game has")
        if list(view.scores) != list(self.script.scores) or not view.over:
            raise DemoMismatch(total, total, {"scores": self.script.scores},
                               {"scores": list(view.scores), "over": view.over},
                               "every event matched, yet the final scores differ")

    def _next_visible(self, step: Step) -> Step | None:
        return next((s for s in self.script.steps[step.index + 1:] if s.visible), None)

    def _why_missing(self, source: str) -> str:
        if source != CAMERA:
            verdict = self.session.view().verdict
            return f"the {source} was refused: {verdict.text}" if verdict and not verdict.ok \
                else f"the {source} was not logged"
        refused = [(o, v) for o, v in self._observed if v is not None and not v.ok]
        if refused:
            obs, verdict = refused[0]
            return f"the camera saw {_obs_words(obs)}, refused: {verdict.text}"
        if self._observed:
            seen = "; ".join(_obs_words(o) for o, _ in self._observed)
            return f"the camera saw only: {seen} (no move yet)"
        on_table = ", ".join(f"{lay.code} in {lay.zone}" for lay in self.layout) or "nothing"
        return f"the camera reported nothing; the table showed {on_table}"

    def _cause(self, event: Event) -> str:
        if event.observation:
            obs = Observation.from_json(event.observation)
            return f"from the camera: {_obs_words(obs)}"
        return f"from the {event.source}"

    def _words(self, action: dict[str, Any]) -> str:
        try:
            return describe_event(self.script.game, action)
        except Exception:  # words are a courtesy here: the JSON says it all
            return ""

    def _outcome_words(self, step: Step) -> list[str]:
        out = []
        for o in step.outcomes:
            try:
                out.append(describe_event(self.script.game, o))
            except Exception:
                out.append(json.dumps(o))
        return out


def _seat_of(action: Action) -> int | None:
    """The seat whose hand reaches over the table for `action` (the dealer for a deal)."""
    if action.seat is not None:
        return action.seat
    dealer = action.get("dealer")
    return dealer if isinstance(dealer, int) else None


def _obs_words(obs: Observation) -> str:
    where = obs.zone if obs.seat is None else f"{obs.zone} (seat {obs.seat + 1})"
    frm = f" from {obs.from_zone}" if obs.kind == "moved" and obs.from_zone else ""
    frame = f", frame {obs.frame}" if obs.frame is not None else ""
    return f"{obs.code} {obs.kind}{frm} in {where} (confidence {obs.confidence:.2f}{frame})"


def _plain(obj: Any) -> Any:
    """As stored: through JSON (tuples become lists)."""
    return json.loads(json.dumps(obj))
