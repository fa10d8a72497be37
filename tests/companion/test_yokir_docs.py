"""docs/games/yokir.md documents every Yokir event, with example lines the engine accepts."""

import json
import re
from pathlib import Path

from companion.eventlog import read_file
from companion.games import Action, make_game

DOC = Path(__file__).parents[2] / "docs" / "games" / "yokir.md"
GOLDEN = Path(__file__).parents[1] / "data" / "yokir" / "seed-18.jsonl"
GAME = make_game("yokir")


def examples():
    text = DOC.read_text(encoding="utf-8").split("## Events", 1)[1]
    return [json.loads(line.strip()) for line in text.splitlines()
            if re.match(r"^    \{\"type\"", line)]


def test_every_action_and_outcome_kind_has_an_example():
    kinds = {e["type"] for e in examples()}
    assert kinds == GAME.action_kinds | GAME.outcome_kinds


def test_examples_have_the_fields_the_engine_writes():
    written = {}
    for _, event in read_file(GOLDEN):
        written.setdefault(event["type"], set(event))
    for example in examples():
        if example["type"] in GAME.action_kinds:
            Action.from_json(example)  # readable as an action
        if example["type"] in written:
            assert set(example) == written[example["type"]], example["type"]
