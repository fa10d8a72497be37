"""Golden transcripts: whole seeded Yokir games kept in tests/data/yokir/.

Two separate checks, so a failure says what changed: the rules (replaying a stored log
must reproduce every stored outcome) and the bot or the deal (a fresh game from the same
seed must print the same log). Refresh on purpose with tests/data/yokir/regenerate.py.
"""

import importlib.util
from pathlib import Path

import pytest

from companion.eventlog import read_file, replay

DATA = Path(__file__).parents[1] / "data" / "yokir"
_spec = importlib.util.spec_from_file_location("yokir_regenerate", DATA / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(regenerate)


@pytest.mark.parametrize("seed", regenerate.SEEDS)
def test_the_rules_reproduce_every_stored_outcome(seed):
    lines = read_file(regenerate.path_for(seed))
    result = replay(lines)  # raises BadLog naming the line where the rules now disagree
    assert result.ended and result.state.is_terminal()
    kinds = {event["type"] for _, event in lines}
    assert {"start", "deal", "bid", "trump", "discard", "play", "trick", "hand", "game",
            "end"} <= kinds
    assert "verdict" not in kinds


@pytest.mark.parametrize("seed", regenerate.SEEDS)
def test_a_fresh_game_prints_the_stored_log(seed):
    stored = regenerate.path_for(seed).read_text(encoding="utf-8").splitlines()
    fresh = regenerate.transcript(seed).splitlines()
    first = next((i for i, (a, b) in enumerate(zip(stored, fresh, strict=False)) if a != b), None)
    assert first is None and len(stored) == len(fresh), (
        f"seed {seed} differs from line {first + 1 if first is not None else len(stored) + 1}; "
        f"if the change is deliberate, run tests/data/yokir/regenerate.py")


def test_the_transcripts_cover_round_two_and_the_void_hand():
    events = [e for seed in regenerate.SEEDS for _, e in read_file(regenerate.path_for(seed))]
    assert any(e["type"] == "trump" and e["round"] == 2 for e in events)
    assert any(e["type"] == "turned_down" for e in events)
    assert any(e["type"] == "hand" and e["caller"] is None for e in events)
    assert any(e["type"] == "hand" and e["caller"] is not None and e["tricks"] <= 2 for e in events)
