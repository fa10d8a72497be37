"""The Yonac bot: always legal, deterministic for a seed, and sensible: it sizes its Set to
the risk of the Ace of Spades, plays the Ace of Clubs when the Pile is small and takes the
Ace that helps most with a Joker."""

import random

from companion.cards import get_deck
from companion.eventlog import bot_game
from companion.games import Action, make_game

PLAIN = [c for c in get_deck("standard").codes if not c.startswith(("A", "JK"))]


def new(players=3, threshold=2, jokers=True):
    return make_game("yonac", players, threshold=threshold, jokers=jokers).new_state()


def collect(state, *cards):
    state.apply(Action.make("collect", state.current_player(), count=len(cards)))
    return state.apply(Action.make("draw", None, cards=list(cards)))


def bot(state, seed=0):
    return state.game.bot_action(state, random.Random(seed))


def test_bot_moves_are_legal_and_games_are_reproducible():
    game = make_game("yonac", 5, threshold=2, jokers=True)
    for seed in range(30):
        state = game.new_state()
        rng = random.Random(seed)
        while not state.is_terminal():
            if state.is_chance():
                action = state.sample_chance(rng)
            else:
                action = game.bot_action(state, rng)
                assert action in state.legal_actions()
            state.apply(action)
        assert bot_game(game, seed)[1] == bot_game(game, seed)[1]


def test_bot_collects_more_when_a_potent_ace_of_hearts_covers_it():
    bare = new(players=3)
    collect(bare, "2C")
    collect(bare, "3C")
    collect(bare, "4C")
    covered = new(players=3)
    collect(covered, "AH")
    collect(covered, "3C")
    collect(covered, "4C")
    assert len(bare.pile) == len(covered.pile)
    for seed in range(10):
        unprotected, protected = bot(bare, seed)["count"], bot(covered, seed)["count"]
        assert 1 <= unprotected < protected <= len(covered.pile)
        assert unprotected <= len(bare.pile) // 4  # a small share of the Pile


def test_bot_takes_one_card_when_leading_in_sudden_death_and_more_when_behind():
    state = new(players=2)  # Sudden Death from the start
    collect(state, *PLAIN[:10])
    collect(state, *PLAIN[10:12])
    assert all(bot(state, seed)["count"] == 1 for seed in range(10))  # seat 0 leads
    collect(state, PLAIN[12])
    assert all(bot(state, seed)["count"] > 1 for seed in range(10))  # seat 1 is 9 behind


def test_bot_adds_one_card_for_the_ace_of_diamonds_unless_protected():
    state = new(players=3)
    collect(state, "AD", "2C")
    assert bot(state) == Action.make("add", 0, count=1)


def test_bot_plays_the_ace_of_clubs_when_the_pile_is_small():
    state = new(players=3, jokers=False)
    collect(state, "AC")
    collect(state, *PLAIN[:40])
    collect(state, *PLAIN[40:44])
    assert len(state.pile) == 7 and bot(state).kind == "collect"
    state = new(players=3, jokers=False)
    collect(state, "AC")
    collect(state, *PLAIN[:40])
    collect(state, *PLAIN[40:45])
    assert len(state.pile) == 6 and bot(state) == Action.make("play_clubs", 0)


def test_bot_swaps_for_the_ace_of_hearts_early_and_the_ace_of_clubs_late():
    state = new(players=4)
    collect(state, "AC")
    collect(state, "AH")
    collect(state, "2C")
    collect(state, "JK1")
    assert bot(state) == Action.make("swap", 3, joker="JK1", target=1, ace="AH")
    state = new(players=4)
    collect(state, "AC")
    collect(state, "AH")
    collect(state, *PLAIN[:44])
    collect(state, "JK1")
    assert len(state.pile) == 7
    assert bot(state) == Action.make("swap", 3, joker="JK1", target=0, ace="AC")


def test_bot_takes_the_leaders_ace_in_sudden_death():
    state = new(players=3, threshold=3)
    collect(state, "AC", *PLAIN[:5])  # seat 0 leads with 6 cards
    collect(state, "AH", PLAIN[5])
    collect(state, "JK1")
    assert bot(state) == Action.make("swap", 2, joker="JK1", target=0, ace="AC")
