"""Golden data for every game (tests/data, written by tests/data/regenerate.py).

Three separate checks, so a failure says what changed:
- the rules: replaying a stored log's actions gives, event for event, the stored outcomes
  and end line;
- the bot or the deal: a fresh game from the same seed, players and options prints the
  stored log byte for byte;
- the move generation: perft counts (legal action sequences to a fixed depth from fixed
  deals) equal the stored ones.
If a change is deliberate, run `python tests/data/regenerate.py` and read `git diff tests/data`.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from companion.catalog import game_names
from companion.eventlog import end_event, read_file, replay
from companion.games import Action, make_game

DATA = Path(__file__).resolve().parents[1] / "data"
_spec = importlib.util.spec_from_file_location("golden_regenerate", DATA / "regenerate.py")
regenerate = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = regenerate  # its dataclasses look their module up
_spec.loader.exec_module(regenerate)

GOLDEN = {f"{g.game}/{g.file}": g for g in regenerate.GOLDEN}
HINT = "if the change is deliberate, run python tests/data/regenerate.py and read git diff tests/data"


def _events(golden) -> list[dict]:
    return [event for _, event in read_file(golden.path)]


def test_every_game_has_golden_games_and_perft_counts():
    assert {g.game for g in regenerate.GOLDEN} == set(game_names())
    assert {p.game for p in regenerate.PERFT} == set(game_names())
    stored = {p.relative_to(DATA).as_posix() for p in DATA.glob("*/*.jsonl")}
    assert stored == set(GOLDEN), "a transcript without its entry in regenerate.GOLDEN, or the reverse"


@pytest.mark.parametrize("key", GOLDEN)
def test_the_rules_reproduce_every_stored_outcome_event_for_event(key):
    golden = GOLDEN[key]
    stored = _events(golden)
    start = stored[0]
    assert start["game"] == golden.game and start["seed"] == golden.seed
    assert start["config"] == {"players": golden.players, **golden.options}
    state = make_game(golden.game, **start["config"]).new_state()
    rebuilt = [start]
    for event in stored[1:]:
        if event["type"] in state.game.action_kinds:
            rebuilt += [event, *state.apply(Action.from_json(event))]
    rebuilt.append(end_event(state))
    first = next((i for i, (a, b) in enumerate(zip(stored, rebuilt, strict=False)) if a != b), None)
    assert first is None and len(stored) == len(rebuilt), (
        f"{key}: the rules now give another event at line "
        f"{first + 1 if first is not None else min(len(stored), len(rebuilt)) + 1}; {HINT}")
    assert state.is_terminal()
    assert "verdict" not in {e["type"] for e in stored}
    # the session's replay (what `companion replay` runs) agrees
    assert replay(read_file(golden.path)).ended


@pytest.mark.parametrize("key", GOLDEN)
def test_a_fresh_game_prints_the_stored_log_byte_for_byte(key):
    golden = GOLDEN[key]
    stored = golden.path.read_text(encoding="utf-8").splitlines()
    fresh = golden.transcript().splitlines()
    first = next((i for i, (a, b) in enumerate(zip(stored, fresh, strict=False)) if a != b), None)
    assert first is None and len(stored) == len(fresh), (
        f"{key} differs from line {first + 1 if first is not None else len(stored) + 1}; {HINT}")


def test_the_stored_perft_counts_are_the_engines():
    stored = json.loads((DATA / "perft.json").read_text(encoding="utf-8"))
    assert set(stored) == {p.key() for p in regenerate.PERFT}
    for spec in regenerate.PERFT:
        entry = stored[spec.key()]
        assert (entry["game"], entry["seed"], entry["players"], entry["options"]) == (
            spec.game, spec.seed, spec.players, spec.options)
        assert len(entry["counts"]) == spec.depth
        counts = regenerate.perft(regenerate.dealt(spec), spec.depth, spec.seed)
        assert counts == entry["counts"], f"{spec.key()}: perft {counts} != stored; {HINT}"


def test_perft_counts_every_sequence_once():
    # depth 2 from a fixed deal equals the sum, over the first moves, of the moves after each
    spec = regenerate.PERFT[0]
    state = regenerate.dealt(spec)
    second = 0
    for action in state.legal_actions():
        child = state.clone()
        child.apply(action)
        second += 1 if child.is_chance() else len(child.legal_actions())
    assert regenerate.perft(state, 2, spec.seed) == [len(state.legal_actions()), second]


# --- what the transcripts must show, per game ---------------------------------------

def _all(game: str) -> list[dict]:
    return [e for g in regenerate.GOLDEN if g.game == game for e in _events(g)]


def test_the_yokir_transcripts_cover_round_two_and_the_void_hand():
    events = _all("yokir")
    assert {"start", "deal", "bid", "trump", "discard", "play", "trick", "hand", "game",
            "end"} <= {e["type"] for e in events}
    assert any(e["type"] == "trump" and e["round"] == 2 for e in events)
    assert any(e["type"] == "turned_down" for e in events)
    assert any(e["type"] == "hand" and e["caller"] is None for e in events)
    assert any(e["type"] == "hand" and e["caller"] is not None and e["tricks"] <= 2 for e in events)


@pytest.mark.parametrize(("game", "kinds"), [
    ("yonac", {"collect", "draw", "stash", "aside", "lose", "sudden_death", "saved", "play_clubs", "win"}),
    ("ahyoheek", {"pick", "round", "match"}),
    ("piktas", {"deal", "buy_in", "pass", "swap", "draw", "stay", "show", "score", "round"}),
    ("medieval-mastery", {"deal", "play", "trick", "meld", "arrangement", "refill", "round"}),
])
def test_the_transcripts_show_each_games_moves(game, kinds):
    assert kinds <= {e["type"] for e in _all(game)}
