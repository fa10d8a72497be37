"""Hypothesis properties of Yokir: one winner per trick, points per hand as the rules say,
the game always ends with a single leader at 7 or more."""

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from companion.eventlog import bot_game
from companion.games import make_game
from companion.games.yokir import CODES, SUITS, effective_suit, legal_plays, sage, trick_winner

tricks = st.lists(st.sampled_from(CODES), min_size=3, max_size=3, unique=True)
trumps = st.sampled_from(SUITS)

# The reference order, written independently of card_power: trump ranks high to low.
TRUMP_ORDER = ["I", "SAGE", "M", "R", "J", "P", "S"]
PLAIN_ORDER = ["M", "R", "J", "P", "S", "I"]


def beats(a: str, b: str, led_suit: str, trump: str) -> bool:
    """True when card a beats card b in a trick led in led_suit (reference model)."""
    def rank(card):
        if card == sage(trump):
            return (2, -TRUMP_ORDER.index("SAGE"))
        if card[1] == trump:
            return (2, -TRUMP_ORDER.index(card[0]))
        if card[1] == led_suit:
            return (1, -PLAIN_ORDER.index(card[0]))
        return (0, 0)
    return rank(a) > rank(b)


@given(tricks, trumps)
def test_exactly_one_card_beats_all_the_others(cards, trump):
    led_suit = effective_suit(cards[0], trump)
    unbeaten = [i for i, c in enumerate(cards)
                if all(beats(c, d, led_suit, trump) for j, d in enumerate(cards) if j != i)]
    assert len(unbeaten) == 1
    winner, why = trick_winner(cards, trump)
    assert winner == unbeaten[0] and why


@given(tricks, trumps)
def test_the_winner_does_not_depend_on_the_followers_order(cards, trump):
    swapped = [cards[0], cards[2], cards[1]]
    assert cards[trick_winner(cards, trump)[0]] == swapped[trick_winner(swapped, trump)[0]]


@given(st.lists(st.sampled_from(CODES), min_size=1, max_size=5, unique=True),
       st.sampled_from(CODES), trumps)
def test_legal_plays_follow_the_effective_suit(hand, led, trump):
    assume(led not in hand)
    legal = legal_plays(hand, led, trump)
    led_suit = effective_suit(led, trump)
    can_follow = [c for c in hand if effective_suit(c, trump) == led_suit]
    assert legal == (can_follow or hand)
    assert set(legal) <= set(hand) and legal


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=10**6), st.booleans())
def test_hands_score_as_the_rules_say_and_the_game_ends(seed, bots):
    game = make_game("yokir")
    state, events = bot_game(game, seed, bot=bots)
    assert state.is_terminal()
    scores = [0, 0, 0]
    caller_tricks = {}
    for e in events:
        if e["type"] == "trick":
            assert sum(e["tricks"]) == e["trick"]
            if e["trick"] == 5:
                caller_tricks = e["tricks"]
        if e["type"] == "hand":
            caller = e["caller"]
            if caller is None:
                assert e["points"] == [0, 0, 0]
            else:
                taken = caller_tricks[caller]
                assert e["tricks"] == taken
                others = [s for s in range(3) if s != caller]
                if taken <= 2:
                    assert e["points"][caller] == 0 and all(e["points"][s] == 1 for s in others)
                else:
                    assert e["points"][caller] == (2 if taken == 5 else 1)
                    assert all(e["points"][s] == 0 for s in others)
            scores = [a + b for a, b in zip(scores, e["points"], strict=True)]
            assert e["scores"] == scores
    final = state.scores()
    assert final == scores
    (winner,) = state.winners()
    assert final[winner] >= 7 and all(final[s] < final[winner] for s in range(3) if s != winner)
    assert events[-2] == {"type": "game", "winner": winner, "scores": final,
                          "why": events[-2]["why"]}


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=10**6))
def test_the_bot_is_deterministic_given_the_rng(seed):
    game = make_game("yokir")
    state = game.new_state()
    rng = random.Random(seed)
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        again = random.Random(seed)
        action = game.bot_action(state, rng)
        assert game.bot_action(state, again) == action and action in state.legal_actions()
        state.apply(action)
