"""Yonac, scripted: one test per paragraph of rules/yonac.txt (numbered as the original
document numbers them), then every tie-break, Joker swaps with several Potent Aces around
the table, the Ace of Diamonds chain and the Ace of Clubs drawing a Joker."""

import pytest

from companion.errors import BadOption, IllegalAction
from companion.games import TERMINAL, Action, make_game
from companion.games.yonac import decide_winner, rule_on_clubs_card, rule_on_set


def new(players=3, threshold=2, jokers=True):
    return make_game("yonac", players, threshold=threshold, jokers=jokers).new_state()


def draw(state, cards):
    return state.apply(Action.make("draw", None, cards=list(cards)))


def collect(state, *cards):
    """The seat to act collects exactly these cards; returns the outcome events."""
    out = state.apply(Action.make("collect", state.current_player(), count=len(cards)))
    return out + draw(state, cards)


def add(state, *cards):
    out = state.apply(Action.make("add", state.current_player(), count=len(cards)))
    return out + draw(state, cards)


def play_clubs(state, card):
    out = state.apply(Action.make("play_clubs", state.current_player()))
    return out + draw(state, [card])


def swap(state, joker, target, ace):
    return state.apply(Action.make("swap", state.current_player(), joker=joker, target=target,
                                   ace=ace))


def kinds(out):
    return [e["type"] for e in out]


def of(out, kind):
    return [e for e in out if e["type"] == kind]


# -- § 1 Requirements ---------------------------------------------------------------

def test_s1_standard_deck_with_optional_jokers_and_any_number_of_players():
    assert len(new(jokers=False).pile) == 52 and "JK1" not in new(jokers=False).pile
    assert len(new(jokers=True).pile) == 54
    for n in (2, 5, 10):
        assert make_game("yonac", n).players == n
    for n in (1, 11):
        with pytest.raises(BadOption, match=f"not {n}"):
            make_game("yonac", n)


def test_s1_jokers_off_means_a_joker_shown_is_refused():
    state = new(jokers=False)
    state.apply(Action.make("collect", 0, count=2))
    with pytest.raises(IllegalAction, match=r"Joker \(JK1\).*played without Jokers"):
        draw(state, ["JK1", "2C"])


# -- § 2 Rules: the aim ---------------------------------------------------------------

def test_s2_aim_collect_as_many_cards_as_possible_without_the_ace_of_spades():
    state = new(players=3, threshold=3)
    collect(state, "2C", "3C", "4C")
    collect(state, "5C", "6C", "7C", "8C", "9C")  # seat 1 collects most, safely
    collect(state, "10C")
    out = collect(state, "AS", "JC", "QC", "KC")  # seat 0 picks up the Ace of Spades
    assert out[0]["type"] == "lose" and out[-1]["seat"] == 1
    assert state.scores() == [0, 5, 1]


# -- § 2.1 The Cards ------------------------------------------------------------------

def test_s2_1_cards_other_than_aces_and_jokers_have_no_special_attribute():
    state = new()
    plain = ["2S", "6S", "10S", "3H", "7H", "JH", "4D", "8D", "QD", "5C", "9C", "KC"]  # deck order
    out = collect(state, *reversed(plain))
    assert out == [{"type": "stash", "seat": 0, "cards": plain, "stash": 12}]
    assert state.current_player() == 1


def test_s2_1_potent_means_its_attribute_may_be_used():
    state = new()
    collect(state, "AH", "2C")
    assert state.view()["table"]["players"][0]["potent"] == ["AH"]
    collect(state, "3C")
    collect(state, "4C")
    collect(state, "AS")  # seat 0 uses the Ace of Hearts: it is no longer Potent
    assert state.view()["table"]["players"][0]["potent"] == []
    assert "AH" in state.stash[0]


def test_s2_1_1_the_ace_of_spades_is_always_potent_even_with_a_joker():
    state = new(players=4)
    out = collect(state, "AS", "JK1", "AD")
    assert kinds(out) == ["lose"] and 0 not in state.alive


def test_s2_1_2_the_ace_of_diamonds_is_potent_on_collection_and_not_once_used():
    state = new()
    collect(state, "AD", "2C")
    assert state.legal_actions()[0].kind == "add"
    out = add(state, "3C")
    assert kinds(out) == ["stash"] and out[0]["cards"] == ["AD", "2C", "3C"]
    assert state.current_player() == 1  # no second request for more cards


def test_s2_1_3_the_ace_of_hearts_is_potent_only_after_the_turn_it_is_collected():
    state = new(players=4)
    collect(state, "AD", "AH")
    out = add(state, "AS")  # same turn: the Ace of Hearts does not protect yet
    assert kinds(out) == ["lose"]
    assert out[0]["cards"] == ["AS", "AH", "AD"]


def test_s2_1_4_the_ace_of_clubs_is_potent_only_after_the_turn_it_is_collected():
    state = new()
    collect(state, "AD", "AC")
    with pytest.raises(IllegalAction, match="cannot play_clubs now"):
        state.apply(Action.make("play_clubs", 0))
    add(state, "2C")
    collect(state, "3C")
    collect(state, "4C")
    assert Action.make("play_clubs", 0) in state.legal_actions()


def test_s2_1_5_jokers_remove_aces_or_swap_for_a_potent_ace():
    state = new()
    collect(state, "AC", "2C")
    out = collect(state, "JK1", "AD")  # with an Ace in the Set: the Ace goes
    assert of(out, "removed")[0]["cards"] == ["AD"]
    collect(state, "JK2")  # with none: it takes seat 0's Potent Ace of Clubs
    assert state.current_player() == 2 and state.legal_actions() == [
        Action.make("swap", 2, joker="JK2", target=0, ace="AC")]


# -- § 2.2 Gameplay ---------------------------------------------------------------------

def test_s2_2_threshold_is_agreed_before_play_and_checked():
    with pytest.raises(BadOption, match="threshold 4 is more than the 3 players"):
        make_game("yonac", 3, threshold=4)
    with pytest.raises(BadOption, match="'threshold' must be at least 2, got 1"):
        make_game("yonac", 3, threshold=1)
    assert new(players=3, threshold=3).phase_words() == "Sudden Death"  # no Elimination phase
    assert new(players=3, threshold=2).phase_words() == "Elimination"


def test_s2_2_the_pile_is_the_whole_deck_and_seat_0_plays_first_then_clockwise():
    state = new(players=3)
    assert len(state.pile) == 54 and state.current_player() == 0
    order = []
    for card in ("2C", "3C", "4C", "5C"):
        order.append(state.current_player())
        collect(state, card)
    assert order == [0, 1, 2, 0]


def test_s2_2_each_turn_collect_or_play_the_ace_of_clubs():
    state = new(players=2)
    assert {a.kind for a in state.legal_actions()} == {"collect"}
    assert [a["count"] for a in state.legal_actions()] == list(range(1, 55))
    collect(state, "AC")
    collect(state, "2C")
    assert {a.kind for a in state.legal_actions()} == {"collect", "play_clubs"}


# -- § 2.2.1 Collecting Cards ------------------------------------------------------------

def test_s2_2_1_cards_in_a_stash_lose_their_potency():
    state = new(players=4)
    collect(state, "AH")
    collect(state, "2C")
    collect(state, "3C")
    collect(state, "6C")
    collect(state, "AS", "4C")  # saved: the Ace of Hearts goes into the Stash
    collect(state, "5C")
    collect(state, "7C")
    collect(state, "8C")
    out = collect(state, "AS")  # the Ace of Hearts in the Stash no longer protects
    assert kinds(out) == ["lose"]


def test_s2_2_1_a_joker_cannot_take_an_ace_from_a_stash():
    state = new(players=3)
    collect(state, "AC")
    collect(state, "2C")
    collect(state, "3C")
    play_clubs(state, "4C")  # the Ace of Clubs is now in seat 0's Stash
    out = collect(state, "JK1")
    assert out == [{"type": "stash", "seat": 1, "cards": ["JK1"], "stash": 2}]


def test_p2_2_1_1_a_set_is_one_or_more_cards_from_the_pile():
    state = new()
    with pytest.raises(IllegalAction, match=r"one or more cards, not 0 \(¶ 2.2.1.1\)"):
        state.apply(Action.make("collect", 0, count=0))
    with pytest.raises(IllegalAction, match="the Pile holds 54"):
        state.apply(Action.make("collect", 0, count=55))
    state.apply(Action.make("collect", 0, count=2))
    with pytest.raises(IllegalAction, match=r"shows 1 card .*but 2 cards were picked up"):
        draw(state, ["2C"])
    out = draw(state, ["2C", "3C"])
    assert out[0]["cards"] == ["2C", "3C"] and not state.pile & {"2C", "3C"}


def test_p2_2_1_2_no_aces_the_set_goes_to_the_stash_and_play_moves_on():
    state = new()
    out = collect(state, "KS", "QH")
    assert out == [{"type": "stash", "seat": 0, "cards": ["KS", "QH"], "stash": 2}]
    assert state.current_player() == 1 and state.stash[0] == ["KS", "QH"]


def test_p2_2_1_3_ace_of_spades_without_a_potent_ace_of_hearts_loses_all_cards():
    state = new(players=4)
    collect(state, "AC", "2C")
    collect(state, "3C")
    collect(state, "4C")
    collect(state, "5C")
    out = collect(state, "AS", "6C")
    assert out == [{"type": "lose", "seat": 0, "cards": ["AS", "AC", "2C", "6C"], "left": [1, 2, 3]}]
    assert state.stash[0] == [] and state.aside[0] == []
    assert {"AS", "AC", "2C", "6C"} <= state.pile
    assert state.current_player() == 1


def test_p2_2_1_4_ace_of_spades_with_a_potent_ace_of_hearts_is_saved():
    state = new()
    collect(state, "AH", "2C")
    collect(state, "3C")
    collect(state, "4C")
    out = collect(state, "AS", "5C", "AC")
    assert out == [{"type": "saved", "seat": 0, "cards": ["AS", "AC", "5C"]},
                   {"type": "stash", "seat": 0, "cards": ["AH"], "stash": 2}]
    assert state.stash[0] == ["2C", "AH"] and state.aside[0] == []
    assert {"AS", "5C", "AC"} <= state.pile and 0 in state.alive
    assert state.current_player() == 1


def test_p2_2_1_4_an_ace_of_hearts_in_the_same_set_does_not_save():
    state = new(players=4)
    out = collect(state, "AS", "AH")
    assert kinds(out) == ["lose"]


def test_p2_2_1_5_a_joker_removes_the_aces_including_an_impotent_ace_of_diamonds():
    state = new()
    out = collect(state, "JK1", "AC", "AH", "7D")
    assert out == [{"type": "removed", "seat": 0, "cards": ["AH", "AC"]},
                   {"type": "stash", "seat": 0, "cards": ["7D", "JK1"], "stash": 2}]
    assert {"AH", "AC"} <= state.pile
    collect(state, "AD", "2C")
    out = add(state, "JK2")  # the Ace of Diamonds is no longer Potent, but still an Ace
    assert of(out, "removed")[0]["cards"] == ["AD"]
    assert state.stash[1] == ["2C", "JK2"]


def test_p2_2_1_5_with_the_ace_of_spades_the_spades_rules_apply_instead():
    state = new(players=4)
    out = collect(state, "JK1", "AS", "AD")
    assert kinds(out) == ["lose"]


def test_p2_2_1_6_a_joker_with_no_aces_is_swapped_for_a_potent_ace_the_collector_chooses():
    state = new(players=4)
    collect(state, "AH")
    collect(state, "AC")
    collect(state, "2C")
    assert collect(state, "JK1", "5C") == []  # the swap comes first
    assert state.legal_actions() == [Action.make("swap", 3, joker="JK1", target=0, ace="AH"),
                                     Action.make("swap", 3, joker="JK1", target=1, ace="AC")]
    with pytest.raises(IllegalAction, match=r"cannot collect now: .*swap the Joker"):
        state.apply(Action.make("collect", 3, count=1))
    out = swap(state, "JK1", 1, "AC")
    assert out == [{"type": "stash", "seat": 1, "cards": ["JK1"], "stash": 1},
                   {"type": "aside", "seat": 3, "card": "AC"},
                   {"type": "stash", "seat": 3, "cards": ["5C"], "stash": 1}]
    assert state.aside == [["AH"], [], [], ["AC"]]


def test_p2_2_1_6_a_joker_with_no_potent_ace_to_take_goes_to_the_stash():
    state = new()
    out = collect(state, "JK1", "5C")
    assert out == [{"type": "stash", "seat": 0, "cards": ["5C", "JK1"], "stash": 2}]


def test_p2_2_1_6_the_swap_is_compulsory_and_only_takes_another_players_potent_ace():
    state = new(players=3)
    collect(state, "AH")
    collect(state, "AC")
    collect(state, "2C")
    out = collect(state, "JK1")  # seat 0 holds the Ace of Hearts; its own cannot be taken
    assert out == [] and state.legal_actions() == [Action.make("swap", 0, joker="JK1", target=1,
                                                               ace="AC")]
    with pytest.raises(IllegalAction, match="not another player's Potent Ace"):
        swap(state, "JK1", 0, "AH")
    with pytest.raises(IllegalAction, match="not a Potent Joker of this Set"):
        swap(state, "JK2", 1, "AC")


def test_p2_2_1_7_a_potent_ace_of_diamonds_asks_for_more_then_the_set_is_judged_again():
    state = new()
    assert collect(state, "AD", "9S") == []
    assert state.current_player() == 0 and state.step == "add"
    assert "Draw more: the Ace of Diamonds asks for another card" in state.view()["next"]
    out = add(state, "AH", "10S")
    assert out == [{"type": "aside", "seat": 0, "card": "AH"},
                   {"type": "stash", "seat": 0, "cards": ["9S", "10S", "AD"], "stash": 3}]


def test_p2_2_1_8_the_ace_of_clubs_is_set_aside_and_potent():
    state = new()
    out = collect(state, "AC", "2D")
    assert out == [{"type": "aside", "seat": 0, "card": "AC"},
                   {"type": "stash", "seat": 0, "cards": ["2D"], "stash": 1}]
    assert state.aside[0] == ["AC"] and state.card_count(0) == 2


def test_p2_2_1_9_the_ace_of_hearts_is_set_aside_and_protects_later():
    state = new()
    out = collect(state, "AH", "2D")
    assert out[0] == {"type": "aside", "seat": 0, "card": "AH"}
    assert "Set the Ace of Hearts aside: it protects you from the next Ace of Spades" in \
        state.view()["next"]


def test_s2_2_1_last_sentence_the_rest_goes_to_the_stash_and_the_turn_ends():
    state = new()
    collect(state, "AD", "AC", "4H")
    out = add(state, "5H")
    assert out == [{"type": "aside", "seat": 0, "card": "AC"},
                   {"type": "stash", "seat": 0, "cards": ["4H", "5H", "AD"], "stash": 3}]
    assert state.current_player() == 1


# -- § 2.2.2 Playing the Ace of Clubs -----------------------------------------------------

def ace_of_clubs_ready(players=3, **sets):
    """Seat 1 collects the Ace of Clubs, then each other seat collects its Set (`seat1=[...]`,
    default one plain card); it is seat 1's turn again, with a Potent Ace of Clubs."""
    state = new(players=players)
    collect(state, "AC")
    for seat, plain in zip(range(1, players), ("2C", "3C", "4C", "5C"), strict=False):
        collect(state, *sets.get(f"seat{seat}", [plain]))
    assert state.current_player() == 0 and state.aside[0] == ["AC"]
    return state


def test_s2_2_2_only_a_potent_ace_of_clubs_may_be_played_and_then_it_is_spent():
    state = new()
    with pytest.raises(IllegalAction, match=r"no Potent Ace of Clubs .*: the Ace of Clubs is in the Pile"):
        state.apply(Action.make("play_clubs", 0))
    state = ace_of_clubs_ready()
    play_clubs(state, "KD")
    collect(state, "KH")
    collect(state, "KS")
    with pytest.raises(IllegalAction, match=r"the Ace of Clubs is already in seat 1's Stash \(§ 2.2.2\)"):
        state.apply(Action.make("play_clubs", 0))


def test_p2_2_2_1_the_ace_of_clubs_goes_to_the_stash_then_one_card_is_drawn():
    state = ace_of_clubs_ready()
    out = state.apply(Action.make("play_clubs", 0))
    assert out == [{"type": "stash", "seat": 0, "cards": ["AC"], "stash": 1}]
    assert state.need == 1
    with pytest.raises(IllegalAction, match="shows 2 cards"):
        draw(state, ["2D", "3D"])


def test_p2_2_2_2_not_an_ace_goes_to_the_stash():
    state = ace_of_clubs_ready()
    out = play_clubs(state, "QS")
    assert out[-1] == {"type": "stash", "seat": 0, "cards": ["QS"], "stash": 2}
    assert state.current_player() == 1


def test_p2_2_2_3_the_ace_of_spades_wins_outright_even_in_elimination_with_fewer_cards():
    state = new(players=4)
    collect(state, "AC", "2C")
    collect(state, "JS", "QS", "KS", "2S", "3S", "4S")  # seat 1 has more cards
    collect(state, "5S", "6S")
    collect(state, "7S", "8S")
    assert state.phase_words() == "Elimination"
    out = play_clubs(state, "AS")
    assert out[-1] == {"type": "win", "seat": 0, "by": "spades_with_clubs",
                       "cards": {"0": 2, "1": 6, "2": 2, "3": 2}, "tied": []}
    assert state.current_player() == TERMINAL and state.winners() == [0]


def test_p2_2_2_4_a_joker_is_swapped_and_the_ace_judged_as_the_card_picked_up():
    state = ace_of_clubs_ready(players=3, seat1=["AH", "2H"])  # seat 1 holds a Potent Ace of Hearts
    out = play_clubs(state, "JK2")
    assert kinds(out) == ["stash"] and state.legal_actions() == [
        Action.make("swap", 0, joker="JK2", target=1, ace="AH")]
    out = swap(state, "JK2", 1, "AH")
    assert out == [{"type": "stash", "seat": 1, "cards": ["JK2"], "stash": 2},
                   {"type": "aside", "seat": 0, "card": "AH"}]
    assert state.current_player() == 1


def test_p2_2_2_4_a_joker_with_nothing_to_swap_counts_as_not_an_ace():
    state = ace_of_clubs_ready()
    out = play_clubs(state, "JK1")
    assert out[-1] == {"type": "stash", "seat": 0, "cards": ["JK1"], "stash": 2}
    assert state.current_player() == 1


def test_p2_2_2_5_the_ace_of_hearts_is_set_aside():
    state = ace_of_clubs_ready()
    out = play_clubs(state, "AH")
    assert out[-1] == {"type": "aside", "seat": 0, "card": "AH"} and state.aside[0] == ["AH"]


def test_p2_2_2_6_the_ace_of_diamonds_goes_to_the_stash_and_one_more_card_is_judged():
    state = ace_of_clubs_ready()
    out = play_clubs(state, "AD")
    assert out[-1] == {"type": "stash", "seat": 0, "cards": ["AD"], "stash": 2}
    assert state.is_chance() and state.need == 1
    out = draw(state, ["AS"])  # judged as the card picked up with the Ace of Clubs: a win
    assert out[-1]["type"] == "win" and out[-1]["by"] == "spades_with_clubs"


# -- § 2.2.3 Elimination and § 2.2.4 Sudden Death -----------------------------------------

def test_s2_2_3_losers_are_eliminated_until_the_threshold_then_sudden_death():
    state = new(players=4, threshold=2)
    collect(state, "2C")
    out = collect(state, "AS")
    assert kinds(out) == ["lose"] and state.phase_words() == "Elimination"
    assert state.current_player() == 2
    collect(state, "3C")
    collect(state, "4C")
    collect(state, "5C")  # seat 1 is skipped
    assert state.current_player() == 2
    out = collect(state, "AS")
    assert out[-1] == {"type": "sudden_death", "seats": [0, 3]}
    assert state.phase_words() == "Sudden Death" and not state.is_terminal()
    with pytest.raises(IllegalAction, match="seat 3 is out"):
        state.apply(Action.make("collect", 2, count=1))
    assert state.view()["table"]["eliminated"] == [1, 2]


def test_s2_2_4_the_next_loss_ends_the_game_and_the_others_count_stash_and_aside():
    state = new(players=3, threshold=3)
    collect(state, "2C", "3C")
    collect(state, "AH", "AC")  # two Aces set aside count as cards
    collect(state, "4C")
    out = collect(state, "AS", "5C")  # seat 0 loses
    assert out[0]["type"] == "lose"
    assert out[1] == {"type": "win", "seat": 1, "by": "most_cards", "cards": {"1": 2, "2": 1},
                      "tied": []}
    assert state.scores() == [0, 2, 1] and state.winners() == [1]
    with pytest.raises(IllegalAction, match="the game is over: seat 2 wins: has the most cards \\(2\\)"):
        state.apply(Action.make("collect", 1, count=1))


# -- § 2.2.5 Winning -------------------------------------------------------------------------

def test_s2_2_5_two_ways_to_win_survive_with_most_cards_or_spades_with_clubs():
    state = new(players=2)
    collect(state, "2C", "3C", "4C")
    out = collect(state, "AS")
    assert out[-1]["seat"] == 0 and out[-1]["by"] == "most_cards"
    state = ace_of_clubs_ready(players=2)
    out = play_clubs(state, "AS")
    assert out[-1]["seat"] == 0 and out[-1]["by"] == "spades_with_clubs"


def tie_game(seat0, seat1):
    """Three players, Sudden Death from the start: seats 1 and 2 collect these Sets, then
    seat 3 picks up the Ace of Spades. Returns the win event."""
    state = new(players=3, threshold=3)
    collect(state, *seat0)
    if state.step == "add":
        add(state, "KS")
    collect(state, *seat1)
    return collect(state, "AS")[-1]


def test_s2_2_5_tie_goes_to_the_ace_of_hearts():
    win = tie_game(["AH", "2C"], ["3C", "4C"])
    assert win == {"type": "win", "seat": 0, "by": "tie_ace_of_hearts", "cards": {"0": 2, "1": 2},
                   "tied": [0, 1]}


def test_s2_2_5_tie_then_goes_to_the_ace_of_clubs():
    win = tie_game(["2C", "3C"], ["AC", "4C"])
    assert (win["seat"], win["by"]) == (1, "tie_ace_of_clubs")


def test_s2_2_5_tie_then_goes_to_the_ace_of_diamonds():
    win = tie_game(["AD", "2C"], ["3C", "4C", "5C"])  # seat 0 adds KS: 3 cards each
    assert (win["seat"], win["by"]) == (0, "tie_ace_of_diamonds")


def test_s2_2_5_tie_aces_count_even_when_no_longer_potent():
    state = new(players=3, threshold=3)
    collect(state, "AH", "2C")
    collect(state, "3C")
    collect(state, "4C")
    collect(state, "AS")  # seat 0 is saved: the Ace of Hearts goes into the Stash
    collect(state, "5C")  # seat 1 has 2 cards, like seat 0, and played more recently
    win = collect(state, "AS")[-1]
    assert (win["seat"], win["by"], win["tied"]) == (0, "tie_ace_of_hearts", [0, 1])


def test_s2_2_5_tie_with_no_aces_goes_to_the_player_who_had_a_turn_last():
    win = tie_game(["2C"], ["3C"])
    assert (win["seat"], win["by"], win["tied"]) == (1, "tie_last_turn", [0, 1])


def test_s2_2_5_tie_with_no_turns_goes_to_the_player_last_in_the_queue():
    state = new(players=3, threshold=3)
    win = collect(state, "AS")[-1]
    assert win == {"type": "win", "seat": 2, "by": "tie_turn_order", "cards": {"1": 0, "2": 0},
                   "tied": [1, 2]}


def test_decide_winner_covers_each_rule_in_order():
    held = [set(), {"AD"}, {"AC"}, {"AH"}, set()]
    last = [3, 5, None, 1, None]
    assert decide_winner([0, 1], [4, 3, 0, 0, 0], held, last) == (0, "most_cards", [])
    assert decide_winner([1, 2, 3], [0, 2, 2, 2, 0], held, last) == (3, "tie_ace_of_hearts",
                                                                     [1, 2, 3])
    assert decide_winner([1, 2], [0, 2, 2, 0, 0], held, last)[:2] == (2, "tie_ace_of_clubs")
    assert decide_winner([0, 1], [2, 2, 0, 0, 0], held, last)[:2] == (1, "tie_ace_of_diamonds")
    # a tied player who has had a turn beats one who has not
    assert decide_winner([0, 4], [1, 0, 0, 0, 1], held, last)[:2] == (0, "tie_last_turn")
    assert decide_winner([2, 4], [0, 0, 0, 0, 0], [set()] * 5, last)[:2] == (4, "tie_turn_order")


# -- Jokers with several Potent Aces around the table ----------------------------------------

def test_two_jokers_swap_for_two_of_three_potent_aces_around_the_table():
    state = new(players=4)
    collect(state, "AH", "2C")  # seat 0: Ace of Hearts
    collect(state, "AC", "3C")  # seat 1: Ace of Clubs
    collect(state, "4C")
    collect(state, "JK1", "JK2", "5C")  # seat 3
    offers = {(a["joker"], a["target"], a["ace"]) for a in state.legal_actions()}
    assert offers == {(j, t, a) for j in ("JK1", "JK2") for t, a in ((0, "AH"), (1, "AC"))}
    assert swap(state, "JK2", 0, "AH") == [{"type": "stash", "seat": 0, "cards": ["JK2"],
                                            "stash": 2}]
    assert state.legal_actions() == [Action.make("swap", 3, joker="JK1", target=1, ace="AC")]
    out = swap(state, "JK1", 1, "AC")
    assert kinds(out) == ["stash", "aside", "aside", "stash"]
    assert state.aside == [[], [], [], ["AH", "AC"]]
    assert state.stash[0] == ["2C", "JK2"] and state.stash[1] == ["3C", "JK1"]
    assert state.stash[3] == ["5C"] and state.current_player() == 0


def test_a_second_joker_with_no_ace_left_to_take_loses_potency_and_stays():
    state = new(players=3)
    collect(state, "AH")
    collect(state, "2C")
    collect(state, "JK1", "JK2", "5C")  # seat 2: one Potent Ace for two Jokers
    out = swap(state, "JK1", 0, "AH")
    assert kinds(out) == ["stash", "aside", "stash"]
    assert out[-1]["cards"] == ["5C", "JK2"] and state.aside[2] == ["AH"]
    # the Ace of Hearts taken by the swap protects seat 2 on a later turn
    collect(state, "3C")
    collect(state, "4C")
    assert kinds(collect(state, "AS")) == ["saved", "stash"]


# -- the Ace of Diamonds chain ------------------------------------------------------------------

@pytest.mark.parametrize(("more", "expected"), [
    (["2H"], ["stash"]),
    (["AH", "2H"], ["aside", "stash"]),
    (["AC"], ["aside", "stash"]),
    (["AS"], ["lose"]),
    (["JK1", "2H"], ["removed", "stash"]),
])
def test_ace_of_diamonds_chain_judges_the_new_set_with_it_no_longer_potent(more, expected):
    state = new(players=4)
    collect(state, "AD", "9C")
    assert kinds(add(state, *more)) == expected
    assert state.current_player() == 1


def test_ace_of_diamonds_chain_with_a_potent_ace_of_hearts_and_the_ace_of_spades():
    state = new(players=2)
    collect(state, "AH")
    collect(state, "2C")
    collect(state, "AD", "3C")
    out = add(state, "AS")
    assert out == [{"type": "saved", "seat": 0, "cards": ["AS", "AD", "3C"]},
                   {"type": "stash", "seat": 0, "cards": ["AH"], "stash": 1}]


def test_ace_of_diamonds_chain_with_a_joker_removes_the_ace_even_with_aces_to_take():
    state = new(players=3)
    collect(state, "AC")  # seat 0 holds a Potent Ace the Joker might have taken
    collect(state, "AD", "9C")
    out = add(state, "JK1")
    assert kinds(out) == ["removed", "stash"] and state.aside[0] == ["AC"]


def test_ace_of_clubs_then_ace_of_diamonds_then_a_joker_swapped_for_an_ace_of_hearts():
    state = ace_of_clubs_ready(players=3, seat1=["AH"])
    out = play_clubs(state, "AD")
    assert kinds(out) == ["stash", "stash"]
    assert draw(state, ["JK1"]) == []
    out = swap(state, "JK1", 1, "AH")
    assert kinds(out) == ["stash", "aside"]
    assert state.stash[0] == ["AC", "AD"] and state.aside[0] == ["AH"]
    assert state.stash[1] == ["JK1"]


# -- the pure rulings used by the command line ----------------------------------------------------

def test_rule_on_set_names_the_paragraph():
    assert rule_on_set(["2C"]).rule == "¶ 2.2.1.2"
    assert rule_on_set(["AS"]).rule == "¶ 2.2.1.3"
    assert rule_on_set(["AS"], potent_hearts=True).rule == "¶ 2.2.1.4"
    assert rule_on_set(["JK1", "AC"]).rule == "¶ 2.2.1.5"
    assert rule_on_set(["JK1"], can_swap=True).rule == "¶ 2.2.1.6"
    assert rule_on_set(["AD"]).rule == "¶ 2.2.1.7"
    assert rule_on_set(["AC"]).rule == "¶ 2.2.1.8"
    assert rule_on_set(["AH"]).rule == "¶ 2.2.1.9"
    assert rule_on_clubs_card("AS").result == "win"
    with pytest.raises(IllegalAction, match="one or more cards"):
        rule_on_set([])
    with pytest.raises(IllegalAction, match="'XX' is not a card code"):
        rule_on_set(["XX"])
