"""The demo end to end, for every card game: bots play a short seeded game, the synthetic
table renders it, the real recognition reads the frames, the session referees, and the
session's log and final scores must be the full-information game's. A misread card must
stop the demo loudly at the first event where recognition and truth parted."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from companion.cli import main
from companion.eventlog import bot_game, read_file, replay
from companion.games import Action, make_game
from companion.observation import Observation
from companion.storage import MEMORY, Store
from runtime.demo.camera import SyntheticTable
from runtime.demo.errors import DemoMismatch
from runtime.demo.run import run_demo
from runtime.demo.script import Script

# game, seed, players, options: short games that still use every kind of camera input
SHORT = [
    pytest.param("yokir", 0, 3, {"target": 1}, id="yokir"),  # one hand: the upcard, 15 plays
    pytest.param("yonac", 21, 3, {"threshold": 3}, id="yonac"),  # a Set read in two goes, an add
    pytest.param("ahyoheek", 2, 3, {}, id="ahyoheek"),  # picks on the mock panel
    # deal (void1 dealt to the field beside its card), swaps, draws, the showdown (void2 shown)
    pytest.param("piktas", 0, 3, {}, id="piktas"),
    pytest.param("piktas", 17, 3, {}, id="piktas-void-drawn"),  # void1 drawn to the field
    pytest.param("medieval-mastery", 8, 3, {}, id="medieval-mastery"),  # a whole round of tricks
]


def _public(game_name: str, seed: int, players: int, options: dict[str, Any]) -> tuple[list, list]:
    """The full-information game's public actions (as JSON) and final scores."""
    game = make_game(game_name, players, **options)
    state, log = bot_game(game, seed)
    public = []
    for event in log:
        if event["type"] in game.action_kinds:
            shown = game.public_action(Action.from_json(event))
            if shown is not None:
                public.append(json.loads(json.dumps(shown.to_json())))
    return public, state.scores()


@pytest.mark.parametrize(("game", "seed", "players", "options"), SHORT)
def test_the_demo_referees_the_seeded_game_exactly(game: str, seed: int, players: int,
                                                   options: dict[str, Any]) -> None:
    store = Store(MEMORY)
    result = run_demo(game, seed, players=players, options=options, store=store)
    public, scores = _public(game, seed, players, options)
    assert result.scores == scores == result.truth
    (record,) = store.games()
    assert record.status == "finished" and list(record.scores) == scores
    logged = [{k: v for k, v in e.items() if k not in ("seq", "at", "source")}
              for e in store.export(record.id) if e["type"] in make_game(game, players).action_kinds]
    assert logged == public
    sources = {e.source for e in store.timeline(record.id).done}
    if game == "ahyoheek":
        assert sources == {"panel"} and result.frames == 0
    else:
        assert "vision" in sources and result.frames > 0
        camera = [e for e in store.timeline(record.id).done if e.source == "vision"]
        assert all(e.observation for e in camera)  # each camera move names what was seen


class Misreading(SyntheticTable):
    """The real table and recognition, with one card misread: the first observation of
    `WRONG[0]` reports `WRONG[1]` instead."""

    WRONG: tuple[str, str] = ("", "")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.misread = False

    def look(self, *args: Any, **kwargs: Any) -> list[Observation]:
        out = []
        for obs in super().look(*args, **kwargs):
            if not self.misread and obs.kind == "placed" and obs.code == self.WRONG[0]:
                obs = dataclasses.replace(obs, code=self.WRONG[1])
                self.misread = True
            out.append(obs)
        return out


def _two_plays(game_options: dict[str, Any], seed: int) -> tuple[Any, Any]:
    """Two plays of the first hand, neither of them the upcard: the first, and the next
    one (a card nobody has seen when the first is played)."""
    script = Script.of(make_game("yokir", 3, **game_options), seed)
    upcard = script.steps[0].action["upcard"]
    plays = [s for s in script.steps if s.action.kind == "play" and s.action["card"] != upcard]
    return plays[0], plays[1]


def test_a_misread_card_stops_the_demo_at_the_first_differing_event(monkeypatch) -> None:
    first, later = _two_plays({"target": 1}, 0)
    # The card is read as one played later: a card the referee cannot refuse (nobody has
    # seen it yet), so only the truth can tell.
    monkeypatch.setattr(Misreading, "WRONG", (first.action["card"], later.action["card"]))
    with pytest.raises(DemoMismatch) as caught:
        run_demo("yokir", 0, options={"target": 1}, camera=Misreading)
    exc = caught.value
    assert exc.number == first.number
    assert exc.expected == first.public.to_json()
    assert exc.seen == {"type": "play", "seat": first.action.seat, "card": later.action["card"]}
    text = str(exc)
    assert f"parted at event {first.number} of " in text
    assert first.action["card"] in text and later.action["card"] in text
    assert "from the camera" in text


def test_a_misread_card_the_referee_refuses_is_named_with_the_reason(monkeypatch) -> None:
    first, later = _two_plays({"target": 1}, 0)
    # the later card read as the first one, already played: the referee refuses it
    monkeypatch.setattr(Misreading, "WRONG", (later.action["card"], first.action["card"]))
    with pytest.raises(DemoMismatch) as caught:
        run_demo("yokir", 0, options={"target": 1}, camera=Misreading)
    exc = caught.value
    assert exc.number == later.number and exc.seen is None
    assert "refused" in str(exc) and "already played" in str(exc)


def test_companion_demo_headless_prints_the_game_and_the_matching_scores(capsys) -> None:
    assert main(["demo", "--headless", "--game", "ahyoheek", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "Ahyoheek demo, seed 2" in out
    public, scores = _public("ahyoheek", 2, 3, {})
    assert f"{len(public)}/{len(public)} events" in out
    names = ["Ada", "Bo", "Cy"]
    words = ", ".join(f"seat {i} ({n}) {s}"
                      for i, (n, s) in enumerate(zip(names, scores, strict=True), start=1))
    assert f"Scores match the full-information game: {words}." in out


def test_companion_demo_fails_with_status_1_naming_the_event(monkeypatch, capsys) -> None:
    first, later = _two_plays({}, 23)
    monkeypatch.setattr(Misreading, "WRONG", (first.action["card"], later.action["card"]))
    monkeypatch.setattr("runtime.demo.camera.SyntheticTable", Misreading)
    assert main(["demo", "--headless"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"DEMO FAILED: recognition and truth parted at event {first.number} of ")


def test_record_writes_the_annotated_frames_and_a_log_that_replays(tmp_path) -> None:
    result = run_demo("yokir", 0, options={"target": 1}, record=tmp_path)
    stills = sorted(tmp_path.glob("frame-*.png"))
    assert stills and (tmp_path / "table.mp4").stat().st_size > 0
    again = replay(read_file(tmp_path / "events.jsonl"))
    assert again.ended and again.state.scores() == result.scores
    truth = replay(read_file(tmp_path / "truth.jsonl"))
    assert truth.state.scores() == result.scores
