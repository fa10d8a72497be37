"""Medieval Mastery at the table: hands and stock hidden, plays and tableaux seen. What is
provably wrong is refused; a revoke proven later is a verdict; public replays agree."""

import random

import pytest

from companion.errors import IllegalAction
from companion.eventlog import bot_game
from companion.games import Action, make_game, play_out


def public_state(players=3, **options):
    st = make_game("medieval-mastery", players, **options).new_state()
    st.apply(Action.make("deal", None, dealer=0, hands=None, stock=None))
    return st


def play(state, seat, card):
    return state.apply(Action.make("play", seat, card=card))


def meld(state, seat, *groups):
    return state.apply(Action.make("meld", seat, groups=[list(g) for g in groups]))


def hidden_refill(state):
    draw = state.sample_chance(random.Random(0))
    assert all(c is None for cards in draw["cards"] for c in cards)
    return state.apply(draw)


def _replay_public(game, events):
    public = game.new_state()
    outcomes = []
    for event in events:
        if event["type"] in game.action_kinds:
            action = game.public_action(Action.from_json(event))
            outcomes += public.apply(action)
    return public, outcomes


@pytest.mark.parametrize("players", [3, 4, 6])
def test_public_replay_of_bot_games_gives_the_same_outcomes_and_no_verdicts(players):
    for seed in range(6):
        game = make_game("medieval-mastery", players)
        full, events = bot_game(game, seed)
        public, outcomes = _replay_public(game, events)
        assert outcomes == [e for e in events if e["type"] in game.outcome_kinds]
        assert not any(o["type"] == "verdict" for o in outcomes)
        assert public.is_terminal() and public.scores() == full.scores()
        assert public.winners() == full.winners()


def test_public_replay_of_random_games_over_two_rounds():
    for seed in range(4):
        game = make_game("medieval-mastery", 3, rounds=2)
        events = []
        full = play_out(game.new_state(), random.Random(seed), bot=False, on_event=events.append)
        public, outcomes = _replay_public(game, events)
        assert outcomes == [e for e in events if e["type"] in game.outcome_kinds]
        assert public.scores() == full.scores()


def test_the_public_deal_and_refill_hide_the_cards():
    game = make_game("medieval-mastery", 3)
    st = game.new_state()
    deal = st.sample_chance(random.Random(1))
    public = game.public_action(deal)
    assert public == Action.make("deal", None, dealer=0, hands=None, stock=None)
    refill = Action.make("refill", None, cards=[["KS", "QS"], ["AS"], []])
    assert game.public_action(refill) == Action.make("refill", None, cards=[[None, None], [None], []])
    assert game.public_action(Action.make("play", 1, card="KS")) == Action.make("play", 1, card="KS")


def test_a_card_seen_twice_is_refused():
    st = public_state()
    play(st, 1, "MC")
    with pytest.raises(IllegalAction, match=r"seat 3 cannot play the Mason of Cups in trick 1: it is "
                                            r"already in this trick, played by seat 2 \(a card seen "
                                            r"twice\)"):
        play(st, 2, "MC")
    play(st, 2, "EC")
    play(st, 0, "KC")
    meld(st, 0, ["KC", "QC", "EC", "MC"])
    hidden_refill(st)
    with pytest.raises(IllegalAction, match=r"it is laid in seat 1's Royal family of Cups \(a card "
                                            r"seen twice\)"):
        play(st, 0, "QC")


def test_cards_under_the_stock_cannot_be_played_before_they_come_round():
    st = public_state()
    for seat, card in ((1, "MC"), (2, "EC"), (0, "KC")):
        play(st, seat, card)
    out = meld(st, 0)
    assert out[0]["to_stock"] == ["MC", "EC", "KC"]
    hidden_refill(st)
    with pytest.raises(IllegalAction, match="seat 1 cannot play the Ecclesiastic of Cups in trick 2: "
                                            "it is in the stock"):
        play(st, 0, "EC")


def test_out_of_turn_and_illegal_tableaux_are_refused_at_the_table():
    st = public_state()
    with pytest.raises(IllegalAction, match=r"seat 1 cannot play the King of Cups in trick 1: it is "
                                            r"seat 2's turn \(out of turn"):
        play(st, 0, "KC")
    for seat, card in ((1, "MC"), (2, "EC"), (0, "KC")):
        play(st, seat, card)
    with pytest.raises(IllegalAction, match="Jack and Princess of Cups cannot marry: same suit"):
        meld(st, 0, ["JC", "PC"])
    with pytest.raises(IllegalAction, match="cannot lay 10 cards from hand"):
        meld(st, 0, ["XS", "KS", "QS", "PS", "FS", "JS", "ES", "SS", "IS", "AS"])


def test_a_revoke_shown_before_any_draw_is_a_verdict():
    st = public_state()
    play(st, 1, "MC")
    play(st, 2, "KS")  # Cups led: seat 2 plays a Sword (the table cannot tell yet)
    out = play(st, 0, "GS")
    assert out[-1]["winner"] == 2
    out = meld(st, 2, ["KS", "QC"])  # ... and shows the Queen of Cups from hand
    verdicts = [o for o in out if o["type"] == "verdict"]
    assert verdicts == [{
        "type": "verdict", "round": 1, "seat": 2, "trick": 1, "card": "KS", "rule": "revoke",
        "text": "Seat 3 revoked in trick 1 of round 1: Cups were led and they played the King of "
                "Swords, yet they have since shown the Queen of Cups, which they held then (rule: "
                "follow suit if able)."}]
    assert st.view()["table"]["verdicts"] == verdicts


def test_a_suit_card_drawn_after_the_revoke_proves_nothing_until_there_are_too_many():
    st = public_state()
    for seat, card in ((1, "MC"), (2, "GS"), (0, "KC")):
        play(st, seat, card)
    meld(st, 0)
    hidden_refill(st)  # seat 2 draws one unseen card
    for seat, card in ((0, "DS"), (1, "LS")):
        play(st, seat, card)
    out = play(st, 2, "KS")
    assert out[-1]["winner"] == 2 and not any(o["type"] == "verdict" for o in out)
    # one Cups card could be the card drawn since; two cannot both be
    out = meld(st, 2, ["KS", "QC", "JC"])
    (verdict,) = [o for o in out if o["type"] == "verdict"]
    assert verdict["seat"] == 2 and verdict["trick"] == 1 and verdict["card"] == "GS"
    assert ("shown 2 Cups cards (Queen of Cups and Jack of Cups) while drawing only 1 unseen card"
            in verdict["text"])


def test_one_suit_card_after_a_draw_is_no_verdict():
    st = public_state()
    for seat, card in ((1, "MC"), (2, "GS"), (0, "KC")):
        play(st, seat, card)
    meld(st, 0)
    hidden_refill(st)
    for seat, card in ((0, "DC"), (1, "LC")):
        play(st, seat, card)
    out = play(st, 2, "EC")
    assert not any(o["type"] == "verdict" for o in out)


def test_an_open_hand_is_held_to_follow_suit_at_once():
    # Teaching mode: seat 1's hand is visible, the others are hidden.
    hand = ["MC", "DS", "DT", "DP", "DW", "LS", "LT", "LP", "LW"]
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(Action.make("deal", None, dealer=0, hands=[None, hand, None], stock=None))
    assert sorted(a["card"] for a in st.legal_actions()) == sorted(hand)
    play(st, 1, "DS")
    play(st, 2, "ES")
    play(st, 0, "KS")
    meld(st, 0)
    st.apply(Action.make("refill", None, cards=[[None], ["AS"], [None]]))  # seat 1 shows its draw
    assert st.hand_size(1) == 9 and st.unknown[1] == 0
    play(st, 0, "EC")
    with pytest.raises(IllegalAction, match="Cups were led and seat 2 holds the Mason of Cups"):
        play(st, 1, "DT")
    with pytest.raises(IllegalAction, match="their hand is known and does not hold it"):
        play(st, 1, "IC")


@pytest.mark.parametrize("rounds", [1, 0])
def test_a_stalemate_ends_the_round(rounds):
    # Our ruling: when no card is laid down for twice round the cards in play, the round ends;
    # the game goes on to the next round unless it was the last (rounds 1) or the target is met.
    st = public_state(rounds=rounds)
    limit = st.stalemate_limit()
    assert limit == 2 * 44
    for trick in range(1, limit + 1):
        for _ in range(3):
            seat = st.current_player()
            card = next(a["card"] for a in st.legal_actions() if a["card"][0] not in "XA")
            play(st, seat, card)
        out = meld(st, st.current_player())
        out += hidden_refill(st)
        if trick < limit:
            assert not any(o["type"] == "round" for o in out)
    assert out[-1]["type"] == "round" and out[-1]["empty"] == []
    assert out[-1]["why"] == "stalemate: no card was laid down for 88 tricks in a row, twice round " \
                             "the cards in play"
    assert out[-1]["over"] == (rounds == 1) and st.is_terminal() == (rounds == 1)
    if rounds == 0:
        assert st.is_chance() and st.round == 2  # nobody scored: the next round is dealt
