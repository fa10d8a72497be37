"""The table adapters: what a camera observation means in each card game, judged by the
real session (the engine decides; the adapters only translate)."""

from __future__ import annotations

import pytest

from companion import table
from companion.adapters import MODULES, register_all
from companion.adapters import yonac as yonac_adapter
from companion.errors import IllegalAction
from companion.games import Action, make_game
from companion.observation import Observation
from companion.session import Session
from companion.storage import MEMORY, Store


@pytest.fixture(autouse=True)
def registered() -> None:
    register_all()


def obs(kind: str, code: str, zone: str, zone_kind: str, seat: int | None = None,
        from_zone: str | None = None, from_seat: int | None = None) -> Observation:
    return Observation(kind, code, zone, zone_kind, seat=seat, from_zone=from_zone, from_seat=from_seat)


def session(game: str, players: int, **options) -> Session:
    names = ["Ada", "Bo", "Cy", "Dee"][:players]
    return Session.start(Store(MEMORY), game, names, **options)


def test_every_card_game_has_an_adapter() -> None:
    assert set(register_all()) == set(MODULES) == {"yokir", "yonac", "piktas", "medieval-mastery"}
    for game in MODULES:
        assert table.adapter_for(game) is not None


# -- Yokir -------------------------------------------------------------------------------

def test_yokir_upcard_in_front_of_the_dealer_deals_the_hand() -> None:
    s = session("yokir", 3)
    verdict = s.observe(obs("placed", "MT", "play-2", "play", 2))
    assert verdict is not None and verdict.ok
    assert s.history() == [Action.make("deal", None, dealer=2, hands=None, upcard="MT")]


def test_yokir_first_upcard_in_the_field_cannot_say_who_deals() -> None:
    state = make_game("yokir").new_state()
    with pytest.raises(IllegalAction, match="nobody has dealt yet"):
        table.observation_to_action(state, obs("placed", "MT", "upcard", "pile"))


def test_yokir_later_upcards_on_the_upcard_spot_follow_the_rotation() -> None:
    game = make_game("yokir", 3, target=1)
    state = game.new_state()
    state.apply(Action.make("deal", None, dealer=0, hands=None, upcard="MT"))
    for seat in (1, 2, 0):
        state.apply(Action.make("bid", seat, bid="pass"))
    for seat in (1, 2, 0):
        state.apply(Action.make("bid", seat, bid="pass"))  # void hand: seat 1 deals next
    action = table.observation_to_action(state, obs("placed", "IA", "upcard", "pile"))
    assert action == Action.make("deal", None, dealer=1, hands=None, upcard="IA")


def _yokir_in_play() -> Session:
    s = session("yokir", 3)
    s.observe(obs("placed", "MT", "play-2", "play", 2))  # seat 2 deals, seat 0 leads
    s.act(Action.make("bid", 0, bid="accept"))
    s.act(Action.make("discard", 0, card=None))
    return s


def test_yokir_a_card_in_a_play_area_is_that_seats_play() -> None:
    s = _yokir_in_play()
    assert s.observe(obs("placed", "MT", "play-0", "play", 0)).ok  # the upcard, taken up
    assert s.history()[-1] == Action.make("play", 0, card="MT")
    assert s.observe(obs("moved", "MT", "play-0", "play", 0, "play-0", 0)) is None  # nudged
    assert s.observe(obs("removed", "MT", "play-0", "play", 0)) is None
    assert s.observe(obs("placed", "JT", "trick", "trick")) is None  # not a play area


def test_yokir_out_of_turn_is_refused_by_the_engine_with_the_rule() -> None:
    s = _yokir_in_play()
    verdict = s.observe(obs("placed", "SA", "play-1", "play", 1))
    assert verdict is not None and not verdict.ok and verdict.awaiting
    assert "Seat 2 cannot play the Student of Architecture" in verdict.text
    assert "rule: turn order" in verdict.text
    (rejected,) = [e for e in s._store.events(s.game_id) if e.kind == "rejected"]
    assert rejected.observation["code"] == "SA"


# -- Yonac -------------------------------------------------------------------------------

def test_yonac_a_set_is_one_draw_once_every_card_is_shown() -> None:
    s = session("yonac", 3, threshold=3)
    s.act(Action.make("collect", 0, count=3))
    assert s.observe(obs("placed", "KD", "set-0", "play", 0)) is None
    assert s.observe(obs("placed", "2S", "set-0", "play", 0)) is None
    assert s.observe(obs("removed", "KD", "set-0", "play", 0)) is None  # gathered: still shown
    verdict = s.observe(obs("placed", "7H", "set-0", "play", 0))
    assert verdict is not None and verdict.ok
    assert s.history()[-1] == Action.make("draw", None, cards=["2S", "7H", "KD"])  # deck order


def test_yonac_cards_shown_in_front_of_another_seat_are_refused() -> None:
    s = session("yonac", 3, threshold=3)
    s.act(Action.make("collect", 0, count=2))
    verdict = s.observe(obs("placed", "KD", "set-1", "play", 1))
    assert verdict is not None and not verdict.ok
    assert "in front of seat 1" in verdict.text and "seat 0 is showing" in verdict.text


def test_yonac_a_card_shown_when_none_is_due_is_refused_by_the_engine() -> None:
    s = session("yonac", 3, threshold=3)
    verdict = s.observe(obs("placed", "KD", "set-0", "play", 0))
    assert verdict is not None and not verdict.ok and "no cards are due from the Pile" in verdict.text


def test_yonac_sets_of_two_sessions_do_not_mix() -> None:
    a, b = session("yonac", 3, threshold=3), session("yonac", 3, threshold=3)
    a.act(Action.make("collect", 0, count=2))
    b.act(Action.make("collect", 0, count=2))
    a.observe(obs("placed", "KD", "set-0", "play", 0))
    b.observe(obs("placed", "3C", "set-0", "play", 0))
    assert a.observe(obs("placed", "4C", "set-0", "play", 0)).ok
    assert a.history()[-1] == Action.make("draw", None, cards=["KD", "4C"])
    assert yonac_adapter.deck_order(["JK1", "AS", "XX"]) == ["AS", "JK1", "XX"]


# -- Medieval Mastery ----------------------------------------------------------------------

def test_medieval_mastery_a_card_in_the_trick_is_played_by_the_seat_to_play() -> None:
    s = session("medieval-mastery", 3)
    s.act(Action.make("deal", None, dealer=0, hands=None, stock=None))
    turn = s.view().turn
    assert s.observe(obs("placed", "KS", "trick", "trick")).ok
    assert s.history()[-1] == Action.make("play", turn, card="KS")
    assert s.observe(obs("moved", "KS", "trick", "trick", None, "trick")) is None
    assert s.observe(obs("placed", "QS", "meld-1", "meld", 1)) is None  # a tableau: a touch
    verdict = s.observe(obs("placed", "KS", "trick", "trick"))  # seen again: no new move
    assert verdict is None


# -- Piktas --------------------------------------------------------------------------------

def test_piktas_positions_pair_a_void_with_the_card_dealt_under_it() -> None:
    from companion.adapters.piktas import positions

    assert positions(["O4", "void1", "K3", "M9"]) == ([["O4"], ["void1", "K3"], ["M9"]], [])
    assert positions(["O4", "void2"]) == ([["O4"]], ["void2"])


def test_piktas_deal_swap_and_show_from_the_camera() -> None:
    s = session("piktas", 2)
    # first round: the dealer turns the first field card in front of themselves
    assert s.observe(obs("placed", "O4", "show-1", "play", 1)) is None
    assert s.observe(obs("moved", "O4", "field", "field", None, "show-1", 1)) is None
    assert s.observe(obs("placed", "K3", "field", "field")) is None
    assert s.observe(obs("placed", "M9", "field", "field")).ok
    assert s.history()[-1] == Action.make("deal", None, dealer=1, hands=None,
                                          field=[["O4"], ["K3"], ["M9"]])
    # seat 0 swaps: a field card goes, a hand card comes (either order)
    assert s.observe(obs("placed", "W7", "field", "field")) is None
    assert s.observe(obs("removed", "K3", "field", "field")).ok
    assert s.history()[-1] == Action.make("swap", 0, take="K3", give="W7")


def test_piktas_first_deal_without_a_dealer_is_refused_with_the_remedy() -> None:
    s = session("piktas", 2)
    for code in ("O4", "K3"):
        assert s.observe(obs("placed", code, "field", "field")) is None
    verdict = s.observe(obs("placed", "M9", "field", "field"))
    assert verdict is not None and not verdict.ok and "in front of themselves" in verdict.text


def test_piktas_a_shown_hand_is_one_show_in_deck_order() -> None:
    game = make_game("piktas", 2)
    state = game.new_state()
    state.apply(Action.make("deal", None, dealer=1, hands=None, field=[["O4"], ["K3"], ["M9"]]))
    for cards in (["W1"], ["W2"], ["W3"]):
        state.apply(Action.make("pass", 0))
        state.apply(Action.make("pass", 1))
        state.apply(Action.make("draw", None, cards=cards))
    assert state.phase == "show" and state.current_player() == 0
    hand = ["O7", "M2", "K8", "U1", "U2", "W9"]
    for code in hand[:-1]:
        assert table.observation_to_action(state, obs("placed", code, "show-0", "play", 0)) is None
    action = table.observation_to_action(state, obs("placed", hand[-1], "show-0", "play", 0))
    from companion.games.piktas.rules import card_order

    assert action == Action.make("show", 0, hand=sorted(hand, key=card_order))
    with pytest.raises(IllegalAction, match="turn to show"):
        table.observation_to_action(state, obs("placed", "O9", "show-1", "play", 1))
