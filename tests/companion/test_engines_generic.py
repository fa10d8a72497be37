"""One random-playout test over every registered game (OpenSpiel's pattern).

Every player count each game allows is played, up to its maximum (Medieval Mastery 14,
Piktas 11, Yonac 10): 25 seeds at the smallest and the largest table, 5 at the counts in
between (about 6 s in all on the 2-core machine). Games that could run long are given
their options (SHORT), so a change of an engine's defaults does not change these tests.
"""

import json
import random

import pytest

from companion.catalog import CATALOG, game_names
from companion.errors import IllegalAction
from companion.eventlog import bot_game, dumps, parse_lines, replay
from companion.games import CHANCE, TERMINAL, Action, games, make_game

GAMES = sorted(games())
# one round: Medieval Mastery may play to its target by default, Piktas several rounds
SHORT = {"medieval-mastery": {"rounds": 1}, "piktas": {"rounds": 1}}
EDGE_SEEDS = range(25)  # at the smallest and the largest table
MIDDLE_SEEDS = range(5)  # at every count in between
TABLES = [(name, n) for name in GAMES
          for n in range(CATALOG[name].min_players, CATALOG[name].max_players + 1)]


def test_games_are_registered():
    assert tuple(GAMES) == game_names() and "ahyoheek" in GAMES


@pytest.mark.parametrize(("name", "n"), TABLES, ids=[f"{g}-{n}" for g, n in TABLES])
def test_random_playouts_keep_the_invariants(name, n):
    info = CATALOG[name]
    seeds = EDGE_SEEDS if n in (info.min_players, info.max_players) else MIDDLE_SEEDS
    for seed in seeds:
        rng = random.Random(seed)
        game = make_game(name, n, **SHORT.get(name, {}))
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
    game = make_game(name, **SHORT.get(name, {}))
    state, events = bot_game(game, seed=7)
    lines = parse_lines(dumps(e) for e in events)
    result = replay(lines)
    assert result.ended and result.state == state
    assert result.state.scores() == state.scores()


@pytest.mark.parametrize("name", GAMES)
def test_bot_games_are_reproducible(name):
    game = make_game(name, **SHORT.get(name, {}))
    assert bot_game(game, seed=3)[1] == bot_game(game, seed=3)[1]
