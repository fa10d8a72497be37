"""The table side without a broker: the outbox fills in the writer's transaction, the
other side confirms, and the hub's store folds and de-duplicates what it is sent."""

from __future__ import annotations

import json
import random

import pytest

from club import topics
from club.errors import BadCorrection, BadMessage, ClubError, NotConfirmable
from club.hubstore import HubStore
from club.outbox import Outbox
from club.table import other_side
from companion.adapters import register_all
from companion.session import Session
from companion.storage import MEMORY, Store


@pytest.fixture
def table(tmp_path):
    register_all()
    store = Store(tmp_path / "t.db")
    outbox = Outbox.attach(store)
    yield store, outbox
    outbox.close()
    store.close()


def play(store: Store, game: str = "ahyoheek", seed: int = 1) -> Session:
    session = Session.start(store, game, ["Ann", "Bob", "Cat"])
    rng = random.Random(seed)
    while not session.state().is_terminal():
        session.step_bot(rng)
    return session


def test_every_event_and_the_result_enter_the_outbox_in_order(table):
    store, outbox = table
    session = play(store)
    rows = outbox.all_bodies()
    events = store.events(session.game_id)
    assert [b["event"]["seq"] for _, b in rows if b["kind"] == "event"] == [e.seq for e in events]
    assert [s for s, _ in rows] == list(range(1, len(rows) + 1))
    result = [b for _, b in rows if b["kind"] == "result"]
    record = store.game(session.game_id)
    assert len(result) == 1 and result[0]["scores"] == list(record.scores)
    assert result[0]["players"] == ["Ann", "Bob", "Cat"]


def test_a_write_that_fails_leaves_no_outbox_row(table):
    store, outbox = table
    game_id = store.create_game("ahyoheek", {}, ["Ann", "Bob", "Cat"])
    with pytest.raises(RuntimeError), store.write(game_id) as tx:
        tx.append("confirm", {}, source="touch")
        raise RuntimeError("power cut")
    assert outbox.all_bodies() == [] and store.events(game_id) == []


def test_a_memory_store_has_no_outbox():
    with pytest.raises(ClubError, match="database file"):
        Outbox(MEMORY)


def test_only_the_other_side_confirms_once_and_an_undo_asks_again(table):
    store, outbox = table
    session = play(store)
    state = session.state()
    winners = state.winners()
    loser = other_side(state.scores(), winners)
    if len(winners) < 3:
        with pytest.raises(NotConfirmable, match="won game"):
            outbox.confirm(session.game_id, winners[0])
    with pytest.raises(NotConfirmable, match="seats 1 to 3, not 8"):
        outbox.confirm(session.game_id, 7)
    confirmation = outbox.confirm(session.game_id, loser)
    assert outbox.confirmed(session.game_id) == loser
    assert outbox.all_bodies()[-1] == (confirmation.seq, outbox.all_bodies()[-1][1])
    assert outbox.all_bodies()[-1][1]["kind"] == "confirm"
    with pytest.raises(NotConfirmable, match="already confirmed"):
        outbox.confirm(session.game_id, loser)
    session.undo()  # the result is withdrawn: its confirmation no longer holds
    assert outbox.all_bodies()[-2][1]["kind"] == "reopen"
    assert outbox.confirmed(session.game_id) is None
    with pytest.raises(NotConfirmable, match="playing"):
        outbox.confirm(session.game_id, loser)


def _message(table: str, seq: int, body: dict) -> topics.Message:
    return topics.parse_event(topics.events_topic(table), topics.encode(table, seq, 1.0, body))


HEAD = {"game_id": 1, "game": "yonac", "players": ["A", "B"]}


def test_the_hub_drops_copies_and_folds_results_in_seq_order_whatever_the_arrival(tmp_path):
    hub = HubStore(str(tmp_path / "hub.db"))
    result = _message("t1", 3, {"kind": "result", **HEAD, "scores": [3, 5], "winners": [1], "at": "x"})
    reopen = _message("t1", 4, {"kind": "reopen", **HEAD, "at": "y"})
    event = _message("t1", 1, {"kind": "event", **HEAD, "event": {"seq": 1, "kind": "accepted"}})
    assert hub.store([reopen, event]).new == 2
    assert hub.marks() == {"t1": 1}
    stored = hub.store([result, event])  # an old copy and a late one
    assert (stored.new, stored.duplicates) == (1, 1)
    (game,) = hub.results()
    assert game["status"] == "playing" and game["events"] == 1  # the reopen (seq 4) came after
    assert hub.marks() == {"t1": 1}  # seq 2 is still missing
    confirm = _message("t1", 6, {"kind": "confirm", **HEAD, "seat": 0, "scores": [1, 9], "winners": [1]})
    again = _message("t1", 5, {"kind": "result", **HEAD, "scores": [1, 9], "winners": [1], "at": "z"})
    hub.store([confirm, again, _message("t1", 2, {"kind": "event", **HEAD,
                                                   "event": {"seq": 2, "kind": "accepted"}})])
    (game,) = hub.results()
    assert (game["scores"], game["confirmed_by"], game["final"]) == ([1, 9], 0, True)
    assert hub.marks() == {"t1": 6}
    assert hub.standings()["players"][0] == {"player": "B", "games": 1, "wins": 1}


def test_a_correction_is_an_event_with_a_reason_and_makes_a_result_final(tmp_path):
    hub = HubStore(str(tmp_path / "hub.db"))
    hub.store([_message("t1", 1, {"kind": "result", **HEAD, "scores": [3, 5], "winners": [1], "at": "x"})])
    assert hub.standings()["final_results"] == 0  # nobody confirmed it yet
    with pytest.raises(BadCorrection, match="reason"):
        hub.correct("t1", 1, [5, 3], [0], "  ")
    with pytest.raises(BadCorrection, match="2 players"):
        hub.correct("t1", 1, [5], [0], "miscount")
    with pytest.raises(BadCorrection, match="no game 9"):
        hub.correct("t1", 9, [5, 3], [0], "miscount")
    hub.correct("t1", 1, [5, 3], [0], "seat 0's last trick was not counted")
    (game,) = hub.results()
    assert game["scores"] == [5, 3] and game["winners"] == [0] and game["final"]
    assert game["correction"]["reason"] == "seat 0's last trick was not counted"
    assert hub.standings()["players"][0]["player"] == "A"


@pytest.mark.parametrize(("topic", "payload", "why"), [
    ("club/t1/events", b"\xff\xfe", "not JSON"),
    ("club/t1/events", b"[1, 2]", "JSON object"),
    ("club/t1/events", topics.encode("t2", 1, 1.0, {"kind": "event", **HEAD, "event": {}}), "table 't2'"),
    ("club/t1/events", topics.encode("t1", 0, 1.0, {"kind": "event", **HEAD}), "'seq'"),
    ("club/t1/events", topics.encode("t1", 1, 1.0, {"kind": "gossip", **HEAD}), "'kind'"),
    ("club/t1/events", topics.encode("t1", 1, 1.0, {"kind": "result", **HEAD, "scores": [1],
                                                    "winners": []}), "1 scores for 2 players"),
    ("club/t1/events", topics.encode("t1", 1, 1.0, {"kind": "result", **HEAD, "scores": [1, "x"],
                                                    "winners": []}), "list of numbers"),
    ("club/t1/events", topics.encode("t1", 1, 1.0, {"kind": "confirm", **HEAD, "seat": 5}), "seat 5"),
    ("club/hub/events", b"{}", "table's events topic"),
    ("club/t1/events", b"{" + b" " * topics.MAX_PAYLOAD + b"}", "byte limit"),
])
def test_malformed_messages_are_refused_with_their_reason(topic, payload, why):
    with pytest.raises(BadMessage, match=why):
        topics.parse_event(topic, payload)


def test_a_live_state_that_is_not_one_is_refused(tmp_path):
    hub = HubStore(str(tmp_path / "hub.db"))
    with pytest.raises(BadMessage):
        hub.set_state("t1", b"not json")
    with pytest.raises(BadMessage):
        hub.set_state("t1", json.dumps({"game": "yonac"}).encode())
    with pytest.raises(BadMessage):
        hub.set_status("t1", "sleeping")
    assert hub.tables() == []


@pytest.mark.parametrize("name", ["", "Table 1", "hub", "x" * 33, "t/1", "t+"])
def test_a_table_name_must_be_a_plain_broker_user(name):
    with pytest.raises(ClubError):
        topics.check_table_name(name)
