"""docs/games/yonac.md documents every Yonac event with an example line shaped like the
ones the engine writes, and its table-mode example message is the engine's own."""

import json
import re
from pathlib import Path

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game
from companion.games import Action, make_game

DOC = Path(__file__).parents[2] / "docs" / "games" / "yonac.md"
GAME = make_game("yonac", 4, threshold=2, jokers=True)


def examples():
    text = DOC.read_text(encoding="utf-8").split("## Events", 1)[1]
    return [json.loads(line.strip()) for line in text.splitlines()
            if re.match(r'^    \{"type"', line)]


def written_fields():
    """The fields of each event kind as bot games write them."""
    fields = {}
    for seed in range(60):
        for event in bot_game(GAME, seed)[1]:
            fields.setdefault(event["type"], set(event))
    return fields


def test_every_action_and_outcome_kind_has_an_example():
    assert {e["type"] for e in examples()} == GAME.action_kinds | GAME.outcome_kinds


def test_examples_have_the_fields_the_engine_writes():
    written = written_fields()
    assert GAME.action_kinds | (GAME.outcome_kinds - {"verdict"}) <= set(written)
    for example in examples():
        if example["type"] in GAME.action_kinds:
            Action.from_json(example)
        if example["type"] in written:
            assert set(example) == written[example["type"]], example["type"]


def test_the_table_message_in_the_docs_is_the_engines():
    doc_line = next(line.strip() for line in DOC.read_text(encoding="utf-8").splitlines()
                    if line.startswith("    turn 2: "))
    state = GAME.new_state()
    state.apply(Action.make("collect", 0, count=1))
    state.apply(Action.make("draw", None, cards=["5H"]))
    state.apply(Action.make("collect", 1, count=1))
    with pytest.raises(IllegalAction) as err:
        state.apply(Action.make("draw", None, cards=["5H"]))
    assert str(err.value) == doc_line
