"""One random-playout test over every registered game (OpenSpiel's pattern)."""

import json
import random

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game, dumps, parse_lines, replay
from companion.games import CHANCE, TERMINAL, Action, games, make_game

GAMES = sorted(games())
SEEDS = range(25)


def test_games_are_registered():
    assert "ahyoheek" in GAMES


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("players", ["min", "max"])
def test_random_playouts_keep_the_invariants(name, players):
    cls = games()[name]
    n = cls.min_players if players == "min" else min(cls.max_players, 6)
    for seed in SEEDS:
        rng = random.Random(seed)
        game = make_game(name, n)
        state = game.new_state()
        for _ in range(20_000):
            player = state.current_player()
            if player == TERMINAL:
                break
            if player == CHANCE:
                action = state.sample_chance(rng)
            else:
                legal = state.legal_actions()
                assert legal, f"{name} seed {seed}: no legal action for seat {player}"
                assert all(isinstance(a, Action) for a in legal)
                action = rng.choice(list(legal))
                assert action in legal
            state.apply(action)
        assert state.is_terminal(), f"{name} seed {seed} did not end"
        # scores are final: nothing more can be applied
        assert state.legal_actions() == [] or len(state.legal_actions()) == 0
        final = list(state.scores())
        with pytest.raises(IllegalAction):
            state.apply(action)
        assert state.scores() == final and state.winners()
        # JSON round trip gives an equal state
        text = json.dumps(state.to_json())
        again = game.state_from_json(json.loads(text))
        assert again == state and again.scores() == final
        json.dumps(state.snapshot())
        assert isinstance(state.explain(), str) and state.explain()


@pytest.mark.parametrize("name", GAMES)
def test_bot_games_replay_from_their_log(name):
    game = make_game(name)
    state, events = bot_game(game, seed=7)
    lines = parse_lines(dumps(e) for e in events)
    result = replay(lines)
    assert result.ended and result.state == state
    assert result.state.scores() == state.scores()


@pytest.mark.parametrize("name", GAMES)
def test_bot_games_are_reproducible(name):
    game = make_game(name)
    assert bot_game(game, seed=3)[1] == bot_game(game, seed=3)[1]
