"""The demo's questions and its JSON summary: a card the camera cannot name is asked on
the screen and the simulated players answer it with the truth; `--json` ends with one
line that counts the events, the camera's, the asked ones and the wrong ones."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from companion.cli import main
from companion.games import make_game
from companion.observation import Observation, Question
from companion.session import Session
from companion.storage import MEMORY, Store
from runtime.demo.camera import SyntheticTable
from runtime.demo.run import run_demo
from runtime.demo.script import Script

OPTIONS = {"target": 1}  # one hand of Yokir: the upcard and 15 plays


def _plays(seed: int = 0) -> list[Any]:
    script = Script.of(make_game("yokir", 3, **OPTIONS), seed)
    upcard = script.steps[0].action["upcard"]
    return [s for s in script.steps if s.action.kind == "play" and s.action["card"] != upcard]


class Unsure(SyntheticTable):
    """The real table and recognition, except: the first time `CARD` is read the camera is
    unsure (it asks about the card and a close second, the second read higher, and reports
    nothing), and the first time `WRONG[0]` is read it is reported as `WRONG[1]`."""

    CARD = ""
    SECOND = ""
    WRONG: tuple[str, str] = ("", "")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.asked: list[Question] = []
        self.misread = False

    def look(self, *args: Any, **kwargs: Any) -> list[Observation]:
        out = []
        for obs in super().look(*args, **kwargs):
            if not self.asked and obs.kind == "placed" and obs.code == self.CARD:
                question = Question("test-1", obs.zone, obs.zone_kind,
                                    ((self.SECOND, 0.62), (self.CARD, 0.6)), seat=obs.seat,
                                    t=obs.t, frame=obs.frame, crop_png=b"png")
                self.asked.append(question)
                self.questions = [question]
                continue
            if not self.misread and obs.kind == "placed" and obs.code == self.WRONG[0]:
                obs = dataclasses.replace(obs, code=self.WRONG[1])
                self.misread = True
            out.append(obs)
        return out


def test_questions_are_answered_with_the_truth_and_misreads_counted(monkeypatch) -> None:
    plays = _plays()
    first, second, later = plays[0], plays[1], plays[4]
    monkeypatch.setattr(Unsure, "CARD", first.action["card"])
    monkeypatch.setattr(Unsure, "SECOND", second.action["card"])  # read higher, and wrong
    # a card read as one played later: nobody has seen it yet, so the referee cannot refuse
    # it; a tolerant demo counts it, puts it right by touch and plays on
    monkeypatch.setattr(Unsure, "WRONG", (second.action["card"], later.action["card"]))
    with Store(MEMORY) as store:
        result = run_demo("yokir", 0, options=OPTIONS, camera=Unsure, store=store, tolerant=True)
        game_id = store.games()[-1].id
        events = [e for e in store.events(game_id) if e.kind == "accepted"]
        done = Session.resume(store, game_id).events()
    assert (result.asked, result.questions, result.wrong, result.match) == (1, 1, 1, True)
    assert result.scores == result.truth
    asked = [e for e in events if "asked" in (e.observation or {})]
    assert len(asked) == 1 and asked[0].data == first.public.to_json() and asked[0].source == "touch"
    assert asked[0].observation["asked"] == {
        "candidates": [second.action["card"], first.action["card"]], "scores": [0.62, 0.6],
        "answer": first.action["card"], "source": "touch"}
    misread = [e for e in events if e.data.get("card") == later.action["card"]]
    assert misread[0].source == "vision" and misread[0].data["seat"] == second.action.seat  # undone
    assert result.summary() == {"events": len(done), "camera": sum(e.source == "vision" for e in done),
                                "asked": 1, "wrong": 1, "match": True}


def test_demo_json_ends_with_the_summary_line(capsys) -> None:
    # Ahyoheek: every pick a button press, nothing for the camera (and fast)
    assert main(["demo", "--json", "--game", "ahyoheek", "--seed", "2"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    summary = json.loads(lines[-1])
    assert list(summary) == ["events", "camera", "asked", "wrong", "match"]
    picks = sum(1 for line in lines if " button " in line)
    assert summary == {"events": picks, "camera": 0, "asked": 0, "wrong": 0, "match": True}
    assert picks > 0


def test_the_players_name_the_card_lying_where_recognition_asks() -> None:
    from runtime.demo.camera import mat_zones
    from runtime.demo.layout import Change, Layout

    mat, zones = mat_zones("yokir", 3)
    table = SyntheticTable(mat, "yokir", 0, degrade="clean")
    try:
        layout = Layout()
        layout.apply(Change(place=(("MT", zones.get("play", seat=0)), ("IA", zones.get("play", seat=2)))))
        for i in range(4):
            table.look(layout, 1.0 + i / 15)
        tracks = {tr.code: f"card-{tr.id}" for tr in table.recognizer.tracker._tracks}
        assert set(tracks) == {"MT", "IA"}
        for code, key in tracks.items():
            question = Question(key, "somewhere", "play", (("KS", 0.5), ("QS", 0.49)))
            assert table.truth_of(question, layout) == code
        assert table.truth_of(Question("card-999", "x", "play", ()), layout) is None
    finally:
        table.close()
