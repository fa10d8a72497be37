"""The Medieval Mastery engine in full information: a scripted round, rule by rule
(rules/medieval-mastery.txt sections 1-8), rounds and options, the view, words and the bot."""

import random

import pytest

from companion.errors import BadOption, IllegalAction
from companion.eventlog import bot_game
from companion.games import CHANCE, Action, make_game
from companion.games.medieval_mastery.rules import ALL_CARDS, best_arrangement, check_group

HANDS_A = [["KC", "QC", "GS", "GT", "GP", "GW", "YS", "YT", "YP"],
           ["MC", "DS", "DT", "DP", "DW", "LS", "LT", "LP", "LW"],
           ["EC", "HS", "HT", "HP", "HW", "RS", "RT", "RP", "RW"]]
STOCK_TOP = ["AS", "BS", "CS", "OS"]


def deal_action(n, hands, dealer=0, stock_top=()):
    """A full-information deal: the given hands, then `stock_top` and the rest of the deck."""
    dealt = {c for h in hands for c in h} | set(stock_top)
    stock = [*stock_top, *[c for c in ALL_CARDS if c not in dealt]]
    return Action.make("deal", None, dealer=dealer, hands=hands, stock=stock)


def fill_hands(n, fixed):
    """Hands of 9 with the `fixed` cards, padded from the deck in order."""
    used = {c for h in fixed.values() for c in h}
    spare = iter(c for c in ALL_CARDS if c not in used)
    return [[*fixed.get(s, []), *[next(spare) for _ in range(9 - len(fixed.get(s, [])))]]
            for s in range(n)]


def play(state, seat, card):
    return state.apply(Action.make("play", seat, card=card))


def meld(state, seat, *groups):
    return state.apply(Action.make("meld", seat, groups=[list(g) for g in groups]))


def refill(state):
    assert state.is_chance()
    return state.apply(state.sample_chance(random.Random(0)))


@pytest.fixture
def state():
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(deal_action(3, HANDS_A, stock_top=STOCK_TOP))
    return st


def test_deal_nine_each_and_the_rest_is_the_stock(state):
    # 1-2: "Use a well-shuffled pack of IDEAL cards ... Deal 9 cards to each player. Place the
    # remainder face-down as a 'stock pile'."
    assert [state.hand_size(s) for s in range(3)] == [9, 9, 9]
    assert len(state.stock) == 130 - 27
    fresh = make_game("medieval-mastery", 4).new_state()
    deal = fresh.sample_chance(random.Random(5))
    cards = [c for h in deal["hands"] for c in h] + list(deal["stock"])
    assert sorted(cards) == sorted(ALL_CARDS)
    assert deal != make_game("medieval-mastery", 4).new_state().sample_chance(random.Random(6))


def test_left_of_the_dealer_leads_and_the_others_follow_in_turn(state):
    # 3: "The player on the left of the dealer plays from his hand the first card of the
    # first trick. The other players then follow in turn"
    assert state.current_player() == 1
    with pytest.raises(IllegalAction, match=r"seat 3 cannot play the Ecclesiastic of Cups in trick "
                                            r"1: it is seat 2's turn \(out of turn"):
        play(state, 2, "EC")
    play(state, 1, "MC")
    assert state.current_player() == 2


def test_must_follow_suit_if_possible(state):
    # 3: "They must follow suit if possible."
    play(state, 1, "MC")
    assert [a["card"] for a in state.legal_actions()] == ["EC"]
    with pytest.raises(IllegalAction, match=r"seat 3 cannot play the Huntsman of Swords in trick 1: "
                                            r"Cups were led and seat 3 holds the Ecclesiastic of "
                                            r"Cups \(follow suit if able\)"):
        play(state, 2, "HS")
    play(state, 2, "EC")
    # a seat without the suit may play anything
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(deal_action(3, HANDS_A, stock_top=STOCK_TOP))
    play(st, 1, "DS")
    assert len(st.legal_actions()) == 2  # seat 2 follows Swords: HS or RS
    play(st, 2, "HS")
    assert len(st.legal_actions()) == 2  # seat 0: GS or YS


def test_trick_winner_lays_down_from_the_trick_and_the_hand(state):
    # 4: "On completing the trick the trick-winner has the opportunity to arrange on the table
    # particular combinations of cards, drawn both from the cards won in the trick and from the
    # cards in his hand."
    play(state, 1, "MC")
    play(state, 2, "EC")
    out = play(state, 0, "KC")
    assert out == [{"type": "trick", "round": 1, "trick": 1, "leader": 1, "cards": ["MC", "EC", "KC"],
                    "winner": 0, "why": "King of Cups is the highest card (King, value 25)"}]
    assert state.current_player() == 0 and state.phase == "meld"
    with pytest.raises(IllegalAction, match="seat 2 cannot lay down after trick 1: seat 1 won it"):
        meld(state, 1)
    out = meld(state, 0, ["KC", "QC", "EC", "MC"])
    assert out[0]["type"] == "arrangement" and out[0]["points"] == 2 * (25 + 24 + 20 + 12)
    assert out[0]["from_hand"] == ["QC"] and out[0]["from_trick"] == ["MC", "EC", "KC"]
    assert out[0]["groups"] == [{"cards": ["KC", "QC", "EC", "MC"], "kind": "royal family",
                                 "points": 162}]
    assert state.scores() == [162, 0, 0]
    # 4: "Once laid down in this way, cards are not available for playing in tricks."
    refill(state)
    with pytest.raises(IllegalAction, match=r"seat 1 cannot play the Queen of Cups in trick 2: it "
                                            r"is laid in seat 1's Royal family of Cups"):
        play(state, 0, "QC")


def test_refill_to_nine_starting_with_the_trick_winner(state):
    # 5: "Then, starting with the trick-winner, players take the number of cards they need
    # from the top of the stock pile to restore their hands to 9 cards."
    # 6: "Play restarts with the trick-winner leading the next trick from hand."
    for seat, card in ((1, "MC"), (2, "EC"), (0, "KC")):
        play(state, seat, card)
    meld(state, 0, ["KC", "QC"])
    draw = state.sample_chance(random.Random(0))
    assert draw["cards"] == (("AS", "BS"), ("CS",), ("OS",))
    state.apply(draw)
    assert [state.hand_size(s) for s in range(3)] == [9, 9, 9]
    assert {"AS", "BS"} <= set(state.known[0]) and "CS" in state.known[1]
    assert state.current_player() == 0 and state.trick_no == 2


def test_unused_trick_cards_and_rejects_go_under_the_stock(state):
    # 5: "all rejects and any unused trick-cards are added to the bottom of the stock pile"
    for seat, card in ((1, "MC"), (2, "EC"), (0, "KC")):
        play(state, seat, card)
    out = meld(state, 0, ["KC", "QC"])
    assert out[0]["to_stock"] == ["MC", "EC"] and state.stock[-2:] == ["MC", "EC"]


def test_a_xenocrat_won_must_start_a_religious_commune():
    # 4: "If, however, X is won in a trick then the trick-winner must start a Religious commune"
    hands = fill_hands(3, {0: ["KS"], 1: ["XS"], 2: ["MS"]})
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(deal_action(3, hands))
    for seat, card in ((1, "XS"), (2, "MS"), (0, "KS")):
        play(st, seat, card)
    with pytest.raises(IllegalAction, match="Xenocrat of Swords was won in the trick: it must start "
                                            "a Religious commune"):
        meld(st, 0)
    out = meld(st, 0, ["XS", "KS", "MS"])
    assert out[0]["points"] == 2 * (25 + 12)


def test_illegal_tableau_is_refused_with_the_reason():
    hands = fill_hands(3, {0: ["KS", "JC", "PC"], 1: ["MS"], 2: ["GS"]})
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(deal_action(3, hands))
    for seat, card in ((1, "MS"), (2, "GS"), (0, "KS")):
        play(st, seat, card)
    with pytest.raises(IllegalAction, match=r"seat 1's tableau after trick 1 is not legal: group 1 "
                                            r"\(JC PC\): Jack and Princess of Cups cannot marry: "
                                            r"same suit"):
        meld(st, 0, ["JC", "PC"])
    with pytest.raises(IllegalAction, match="Queen of Cups is neither in the hand"):
        meld(st, 0, ["KS", "QC"])


def test_when_the_stock_runs_low_players_take_what_is_there():
    # 5: "If the stock pile is running low then players just take what is available."
    hands = fill_hands(14, {1: ["KS"], 5: ["ZS", "QS", "AC", "BC", "CC"]})
    st = make_game("medieval-mastery", 14).new_state()
    st.apply(deal_action(14, hands))
    assert len(st.stock) == 4
    for _ in range(14):
        seat = st.current_player()
        mine = {1: "KS", 5: "ZS"}.get(seat)
        play(st, seat, mine or st.legal_actions()[0]["card"])
    assert st.winner == 5  # the Zany beats the King of Swords whatever else was played
    meld(st, 5, ["KS", "QS"], ["AC", "BC", "CC"])
    assert len(st.stock) == 4 + 13
    draw = st.sample_chance(random.Random(0))
    counts = [len(c) for c in draw["cards"]]
    assert counts[5] == 5 and counts[4] == 0 and sum(counts) == 17
    st.apply(draw)
    assert st.hand_size(4) == 8 and len(st.stock) == 0
    assert st.current_player() == 5


def _play_with_checks(game, seed):
    """A bot game that checks, before every trick, that every player still holds a card."""
    st = game.new_state()
    rng = random.Random(seed)
    rounds = []
    while not st.is_terminal():
        if st.phase == "play" and not st.trick:
            assert all(st.hand_size(s) for s in range(game.players))
        action = st.sample_chance(rng) if st.is_chance() else game.bot_action(st, rng)
        for event in st.apply(action):
            if event["type"] == "round":
                rounds.append((event, [[list(g) for g in m] for m in st.melds],
                               [st.hand_size(s) for s in range(game.players)]))
    return st, rounds


@pytest.mark.parametrize("players, seed", [(3, 1), (4, 2), (5, 3)])
def test_the_round_ends_when_a_player_has_no_cards_and_scores_the_tableaux(players, seed):
    # 7: "Play continues in this way until one or more players has no cards left in his hand
    # at the beginning of a trick. ... For each card in an ordinary family or commune, add up
    # its face value ... All cards in a Royal family or Religious commune have their face value
    # doubled. The winner is the person with the most points."
    st, rounds = _play_with_checks(make_game("medieval-mastery", players, rounds=1), seed)
    ((event, melds, hands),) = rounds
    assert event["empty"] and all(hands[s] == 0 for s in event["empty"])
    assert [s for s in range(players) if hands[s] == 0] == event["empty"]
    assert event["points"] == [sum(check_group(g).points for g in m) for m in melds]
    assert st.scores() == event["totals"] == event["points"]
    assert st.winners() == [s for s, p in enumerate(event["points"]) if p == max(event["points"])]


def test_rounds_repeat_with_the_deal_passing_clockwise():
    # 8: "The game may be repeated over a fixed number of rounds"
    game = make_game("medieval-mastery", 3, rounds=2)
    st, events = bot_game(game, seed=4)
    rounds = [e for e in events if e["type"] == "round"]
    deals = [e for e in events if e["type"] == "deal"]
    assert [r["round"] for r in rounds] == [1, 2] and [r["over"] for r in rounds] == [False, True]
    assert [d["dealer"] for d in deals] == [0, 1]
    first_play = events[events.index(deals[1]) + 1]
    assert first_play["type"] == "play" and first_play["seat"] == 2
    assert rounds[1]["totals"] == [a + b for a, b in zip(rounds[0]["points"], rounds[1]["points"],
                                                         strict=True)]
    assert st.scores() == rounds[1]["totals"]


def test_rounds_zero_plays_to_the_target():
    # 8: "or until one person has reached a pre-defined cumulative score."
    game = make_game("medieval-mastery", 3, rounds=0, target=2000)
    st, events = bot_game(game, seed=2)
    rounds = [e for e in events if e["type"] == "round"]
    assert len(rounds) >= 2
    for r in rounds:
        assert r["over"] == (max(r["totals"]) >= 2000)
    assert max(st.scores()) >= 2000


def test_options_and_players_are_checked():
    # RULINGS: rounds repeat to the target by default; a fixed number of rounds is an option
    assert make_game("medieval-mastery").config() == {"players": 4, "rounds": 0, "target": 3125}
    with pytest.raises(BadOption, match="3 to 14 players, not 2"):
        make_game("medieval-mastery", 2)
    with pytest.raises(BadOption, match="'rounds' must be at least 0"):
        make_game("medieval-mastery", 3, rounds=-1)
    with pytest.raises(BadOption, match="'target' must be at least 1"):
        make_game("medieval-mastery", 3, target=0)


def test_bad_deals_and_refills_are_refused(state):
    st = make_game("medieval-mastery", 3).new_state()
    hands = [list(h) for h in HANDS_A]
    hands[1][0] = "KC"
    stock = list(deal_action(3, HANDS_A)["stock"])
    with pytest.raises(IllegalAction, match="the King of Cups is dealt twice"):
        st.apply(Action.make("deal", None, dealer=0, hands=hands, stock=stock))
    with pytest.raises(IllegalAction, match="round 1 is dealt by seat 1"):
        st.apply(deal_action(3, HANDS_A, dealer=2))
    with pytest.raises(IllegalAction, match="seat 1 must get 9 cards"):
        st.apply(Action.make("deal", None, dealer=0, hands=[HANDS_A[0][:8], None, None], stock=None))
    for seat, card in ((1, "MC"), (2, "EC"), (0, "KC")):
        play(state, seat, card)
    meld(state, 0)
    with pytest.raises(IllegalAction, match="seat 1 draws 1 card from the stock, not 2"):
        state.apply(Action.make("refill", None, cards=[["AS", "BS"], ["CS"], ["OS"]]))
    with pytest.raises(IllegalAction, match="seat 1 draws the Apothecary of Swords from the stock, "
                                            "not the Blacksmith of Swords"):
        state.apply(Action.make("refill", None, cards=[["BS"], ["AS"], ["CS"]]))
    with pytest.raises(IllegalAction, match="not now"):
        play(state, 0, "QC")


# --- view, words, bot ---------------------------------------------------------------

def test_view_shows_turn_legal_plays_trick_and_tableaux(state):
    view = state.view()
    assert view["turn"] == 1 and view["phase"] == "round 1, trick 1"
    assert view["limit"] == "any card from hand may lead"
    assert sorted(view["legal"]) == sorted(HANDS_A[1])
    assert view["table"]["stock"] == 103 and view["table"]["hands"] == [9, 9, 9]
    play(state, 1, "MC")
    view = state.view()
    assert view["turn"] == 2 and view["legal"] == ["EC"] and view["limit"] == "must follow Cups if able"
    assert view["trick"] == [{"seat": 1, "card": "MC"}]
    play(state, 2, "EC")
    play(state, 0, "KC")
    view = state.view()
    assert view["phase"] == "trick 1: laying down" and view["turn"] == 0
    assert view["last_trick"]["winner"] == 0 and view["last_trick"]["cards"] == ["MC", "EC", "KC"]
    assert view["table"]["hint"] == [["KC", "QC", "EC", "MC"]]
    meld(state, 0, ["KC", "QC", "EC", "MC"])
    tableau = state.view()["table"]["tableaux"][0]
    assert tableau == {"groups": [{"cards": ["KC", "QC", "EC", "MC"], "title": "Royal family of Cups",
                                   "points": 162}], "points": 162}
    assert state.view()["turn"] is None and "refill" in state.view()["next"]


def test_every_event_has_words():
    game = make_game("medieval-mastery", 3)
    _, events = bot_game(game, seed=1)
    kinds = set()
    for event in events[1:-1]:
        words = game.describe(event)
        assert isinstance(words, str) and words, event
        kinds.add(event["type"])
    assert kinds >= {"deal", "play", "trick", "meld", "arrangement", "refill", "round"}
    assert game.describe({"type": "play", "seat": 1, "card": "MC"}) == "Seat 2 plays the Mason of Cups (MC)."
    assert game.describe({"type": "trick", "round": 1, "trick": 3, "leader": 1, "cards": [],
                          "winner": 2, "why": "Zany of Cups beats King of Cups"}) == \
        "Seat 3 wins trick 3: Zany of Cups beats King of Cups."


def test_bot_wins_a_useful_trick_with_its_cheapest_winning_card_then_lays_the_best(state):
    game = state.game
    play(state, 1, "MC")
    play(state, 2, "EC")
    # last to play, holding King and Queen of Cups: the Queen is enough to win
    action = game.bot_action(state, random.Random(0))
    assert action == Action.make("play", 0, card="QC")
    state.apply(action)
    action = game.bot_action(state, random.Random(0))
    assert action["groups"] == tuple(map(tuple, best_arrangement([], ["MC", "EC", "QC"], state.known[0])))
    assert state.apply(action)[0]["points"] == 162


def test_bot_throws_its_least_useful_card_when_it_cannot_win():
    hands = fill_hands(3, {0: ["KS", "QS", "MC", "GC"], 1: ["EC"], 2: ["FC"]})
    st = make_game("medieval-mastery", 3).new_state()
    st.apply(deal_action(3, hands))
    play(st, 1, "EC")
    play(st, 2, "FC")
    assert st.game.bot_action(st, random.Random(0)) == Action.make("play", 0, card="GC")


def test_bot_games_are_legal_and_reproducible():
    game = make_game("medieval-mastery", 5)
    assert bot_game(game, seed=11)[1] == bot_game(game, seed=11)[1]
    st, _ = bot_game(game, seed=11)
    assert st.is_terminal() and st.current_player() != CHANCE
