"""Questions: a card the camera cannot name is asked on the screen, answered by a touch or
a seat button, judged as the camera's observation, logged with its evidence, undone as any."""

from __future__ import annotations

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.adapters import register_all
from companion.cards import get_deck
from companion.games import make_game
from companion.observation import Observation, Question
from companion.session import NoQuestion, Session
from companion.storage import Store
from companion.words import card_name
from hardware.controller import PanelController
from hardware.panel import Panel
from hardware.pinmap import default_pinmap
from runtime.demo.script import Script

SEED = 23
PNG = b"\x89PNG\r\n\x1a\n fake crop"


@pytest.fixture
def store(tmp_path):
    register_all()
    with Store(tmp_path / "companion.db") as store:
        yield store


@pytest.fixture
def yokir(store):
    """A Yokir session brought by touch up to its first card play, and the true game."""
    script = Script.of(make_game("yokir", 3), SEED)
    session = Session.start(store, "yokir", ["Ada", "Bo", "Cy"])
    steps = iter(script.visible)
    for step in steps:
        if step.action.kind == "play":
            return session, step, steps
        session.act(step.public, source="touch")
    raise AssertionError("the seeded game has no card play")


def other_card(code: str) -> str:
    """Another card of the Yokir deck: the camera's close second reading."""
    return next(c for c in get_deck("yokir").codes if c != code)


def question_for(step, candidates, key="card-7", crop=PNG) -> Question:
    seat = step.action.seat
    return Question(key, f"play{seat}", "play", tuple(candidates), seat=seat, t=3.5, frame=41,
                    crop_png=crop)


def test_a_question_is_shown_at_once_and_answered_by_touch(yokir, store):
    session, step, _ = yokir
    card = step.action["card"]
    wrong = other_card(card)
    seen = []
    session.subscribe(seen.append)
    events = len(store.events(session.game_id))
    session.ask(question_for(step, [(wrong, 0.61), (card, 0.58)]))
    # published at once (the screen needs no poll of the session), nothing logged yet
    assert seen and seen[-1].question is not None
    shown = seen[-1].question
    assert shown.key == "card-7" and shown.seat == step.action.seat and shown.crop
    assert shown.candidates == ((wrong, card_name(wrong, "yokir")), (card, card_name(card, "yokir")))
    assert session.question_crop("card-7") == PNG
    assert "crop_png" not in str(seen[-1].to_json())
    assert len(store.events(session.game_id)) == events

    verdict = session.answer("card-7", card, source="touch")
    assert verdict.ok and session.view().question is None
    event = store.events(session.game_id)[-1]
    assert (event.kind, event.source, event.data) == ("accepted", "touch", step.expected())
    assert event.observation["asked"] == {"candidates": [wrong, card], "scores": [0.61, 0.58],
                                          "answer": card, "source": "touch"}
    assert Observation.from_json(event.observation).code == card  # old readers still read it
    with pytest.raises(NoQuestion, match="no question 'card-7'"):
        session.answer("card-7", card)


def test_an_answered_play_is_undone_as_any(yokir, store):
    session, step, _ = yokir
    card = step.action["card"]
    before = session.view()
    session.ask(question_for(step, [(card, 0.7), (other_card(card), 0.66)]))
    session.answer("card-7", card)
    assert session.view().events == before.events + 1
    assert session.undo()
    after = session.view()
    assert after.events == before.events and after.turn == before.turn and after.can_redo
    assert [e.kind for e in store.events(session.game_id)[-2:]] == ["accepted", "undo"]
    assert session.redo() and session.history()[-1].to_json() == step.expected()


def test_a_seat_button_answers_with_its_candidate(yokir, store):
    session, step, _ = yokir
    card = step.action["card"]
    save = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    now = [0.0]
    try:
        with Panel(default_pinmap(), clock=lambda: now[0]) as panel:
            ctrl = PanelController(panel, session, clock=lambda: now[0])
            session.ask(question_for(step, [(other_card(card), 0.6), (card, 0.59)]))
            # a seat that is not the one to play: any seat may answer; button 2 is past the
            # two candidates and is ignored, button 1 is the second candidate
            seat = (step.action.seat + 1) % 3
            pins = panel.pinmap.seats[seat].buttons
            for pin in (pins[2], pins[1]):
                factory.pin(pin).drive_low()
                now[0] += 0.1
                factory.pin(pin).drive_high()
                now[0] += 0.1
                ctrl.poll()
            ctrl.close()
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = save
    event = store.events(session.game_id)[-1]
    assert (event.kind, event.source, event.data) == ("accepted", "panel", step.expected())
    assert event.observation["asked"]["answer"] == card and event.observation["asked"]["source"] == "panel"
    assert session.view().question is None


def test_an_impossible_answer_is_still_ruled_on(yokir, store):
    session, step, steps = yokir
    first = step.action["card"]
    session.ask(question_for(step, [(first, 0.8), (other_card(first), 0.7)]))
    session.answer("card-7", first)
    nxt = next(steps)
    assert nxt.action.kind == "play"  # the seeded game's next move is the next card of the trick
    # the players answer with the card already played: reported as named, the rules refuse it
    session.ask(question_for(nxt, [(first, 0.5), (nxt.action["card"], 0.49)], key="card-8"))
    verdict = session.answer("card-8", first)
    assert not verdict.ok and verdict.awaiting
    event = store.events(session.game_id)[-1]
    assert event.kind == "rejected" and event.observation["code"] == first
    assert event.observation["asked"]["answer"] == first
    assert session.view().question is None


def test_a_question_whose_card_left_is_withdrawn(yokir, store):
    session, step, _ = yokir
    card = step.action["card"]
    session.ask(question_for(step, [(card, 0.6), (other_card(card), 0.55)], key="a"))
    session.ask(question_for(step, [(card, 0.6), (other_card(card), 0.55)], key="b", crop=b""))
    assert session.view().question.key == "a" and session.view().question.waiting == 2
    assert session.withdraw("a") and not session.withdraw("a")
    shown = session.view().question
    assert shown.key == "b" and not shown.crop and shown.waiting == 1
    events = len(store.events(session.game_id))
    assert session.withdraw("b") and session.view().question is None
    assert len(store.events(session.game_id)) == events  # asking and withdrawing log nothing


def test_answer_listeners_hear_the_card(yokir):
    session, step, _ = yokir
    card = step.action["card"]
    heard = []
    session.on_answer(lambda key, code: heard.append((key, code)))
    session.ask(question_for(step, [(card, 0.6), (other_card(card), 0.55)]))
    session.answer("card-7", card)
    assert heard == [("card-7", card)]


def test_the_cameras_note_is_in_the_verdict(yokir, store):
    session, step, _ = yokir
    card = step.action["card"]
    note = f"read as {card}; {other_card(card)} is already played by seat 2"
    obs = Observation("placed", card, f"play{step.action.seat}", "play", step.action.seat, note=note)
    verdict = session.observe(obs)
    assert verdict.ok and f"({note})" in verdict.text
    assert store.events(session.game_id)[-1].observation["note"] == note
