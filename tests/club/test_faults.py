"""Faults, each checked by comparing the hub with every table's own database: the broker
killed and restarted mid-evening, a table offline for minutes, the hub restarted; and bad
input: wrong credentials, another table's topic, malformed messages."""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import threading
import urllib.request

import paho.mqtt.client as mqtt
import pytest
from club_support import HUB_PASSWORD, table_password
from paho.mqtt.enums import CallbackAPIVersion

from club import topics
from club.broker import free_port, wait_port
from club.hubstore import HubStore
from club.publisher import TablePublisher
from club.simulate import audit, run_tables, wait_for


def delivered(tables) -> bool:
    return all(t.club.publisher.hub_mark >= t.club.outbox.last_seq() for t in tables)


def stored(hub) -> int:
    return sum(hub.store.marks().values())


def outboxes(tables) -> int:
    return sum(t.club.outbox.last_seq() for t in tables)


def finish(tables, stop, threads, hub):
    stop.set()
    for th in threads:
        th.join(30)
    wait_for(lambda: delivered(tables), 30, "every outbox stored at the hub")
    result = audit(hub.store, [t.club for t in tables])
    assert result.ok, result.words()
    return result


def test_broker_killed_and_restarted_mid_evening(broker, make_hub, make_tables):
    hub = make_hub()
    tables = make_tables(3)
    stop = threading.Event()
    threads = run_tables(tables, stop, rate=100)
    wait_for(lambda: stored(hub) >= 60, 20, "the evening under way")
    broker.kill()
    before = outboxes(tables)
    wait_for(lambda: outboxes(tables) >= before + 60, 20, "tables playing on without the broker")
    assert not any(t.club.publisher.connected.is_set() for t in tables)
    broker.start()
    wait_for(lambda: stored(hub) >= before + 60, 30, "the backlog delivered after the restart")
    finish(tables, stop, threads, hub)
    assert sum(len(t.games_played) for t in tables) >= 1


def test_a_table_offline_for_minutes_then_back(broker, make_hub, make_tables):
    now = [1000.0]
    hub = make_hub()
    (t1, t2) = make_tables(2, clock=lambda: now[0])
    t1.play_game(events=10, confirm=False)
    wait_for(lambda: delivered([t1]), 15, "table 1's first moves at the hub")
    t1.club.publisher.stop(will=True)  # the table's network goes: the broker says it is offline
    wait_for(lambda: {t["table"]: t["status"] for t in hub.store.tables()}.get(t1.name) == "offline",
             10, "table 1 shown offline")
    t1.play_game()  # a whole game offline: the outbox keeps it
    t2.play_game()
    now[0] += 600  # ten minutes pass
    assert t1.club.outbox.last_seq() > t1.club.publisher.hub_mark
    host, port = topics.parse_address(broker.address)
    t1.club.publisher = TablePublisher(t1.club.outbox, t1.name, host, port,
                                       password=table_password(t1.name), resend_after=1.0,
                                       clock=lambda: now[0]).start()
    wait_for(lambda: delivered([t1, t2]), 20, "table 1's backlog at the hub")
    assert {t["table"]: t["status"] for t in hub.store.tables()}[t1.name] == "online"
    result = audit(hub.store, [t1.club, t2.club])
    assert result.ok, result.words()
    assert sum(g["final"] for g in hub.store.results()) == 2


def _hub_process(broker, db, port: int) -> subprocess.Popen:
    env = {**os.environ, "COMPANION_HUB_PASSWORD": HUB_PASSWORD}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "club", "serve", "--broker",
                             broker.address, "--http", str(port), "--db", str(db)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_port("127.0.0.1", port, 30, proc=proc)
    return proc


def _marks(port: int) -> dict[str, int]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/hub", timeout=5) as r:
        return json.load(r)["marks"]


def test_the_hub_killed_and_started_again_mid_evening(broker, make_tables, tmp_path):
    db, port = tmp_path / "hub-process.db", free_port()
    proc = _hub_process(broker, db, port)
    tables = make_tables(3)
    stop = threading.Event()
    threads = run_tables(tables, stop, rate=100)
    try:
        wait_for(lambda: sum(_marks(port).values()) >= 60, 20, "the evening under way")
        proc.send_signal(signal.SIGKILL)  # between any two instructions: commit, ack, mark
        proc.wait(10)
        before = outboxes(tables)
        wait_for(lambda: outboxes(tables) >= before + 60, 20, "tables playing on without the hub")
        proc = _hub_process(broker, db, port)
        stop.set()
        for th in threads:
            th.join(30)
        wait_for(lambda: delivered(tables), 30, "every outbox stored at the hub")
    finally:
        stop.set()
        proc.terminate()
        proc.wait(10)
    hub = HubStore(str(db))
    result = audit(hub, [t.club for t in tables])
    hub.close()
    assert result.ok, result.words()


def _client(broker, user: str, password: str) -> tuple[mqtt.Client, list]:
    heard: list = []
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"raw-{user}", protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.on_connect = lambda cl, u, flags, reason, props: heard.append(("connect", reason.is_failure))
    c.on_publish = lambda cl, u, mid, reason, props: heard.append(("puback", mid, reason.is_failure))
    host, port = topics.parse_address(broker.address)
    c.connect_async(host, port)
    c.loop_start()
    return c, heard


def test_wrong_credentials_are_refused_and_logged(broker, make_hub, make_tables):
    hub = make_hub()
    (t1,) = make_tables(1, start=False)
    host, port = topics.parse_address(broker.address)
    t1.club.publisher = TablePublisher(t1.club.outbox, t1.name, host, port, password="wrong")
    t1.start()
    t1.play_game(events=5, confirm=False)
    wait_for(lambda: t1.club.publisher.refused is not None, 10, "the broker refusing the table")
    assert "not authori" in t1.club.publisher.refused.lower()
    wait_for(lambda: "not authorised" in broker.log(), 5, "the refusal in Mosquitto's log")
    assert hub.store.message_keys(t1.name) == [] and t1.club.outbox.unacked() > 0  # kept at the table


def test_a_table_cannot_publish_on_another_tables_topic(broker, make_hub, make_tables):
    hub = make_hub()
    (t1, t2) = make_tables(2, start=False)
    client, heard = _client(broker, t1.name, table_password(t1.name))
    wait_for(lambda: ("connect", False) in heard, 10, "table 1 connected")
    forged = topics.encode(t2.name, 1, 1.0, {"kind": "result", "game_id": 1, "game": "yonac",
                                             "players": ["A", "B"], "scores": [9, 0], "winners": [0]})
    denied = client.publish(topics.events_topic(t2.name), forged, qos=1).mid
    wait_for(lambda: ("puback", denied, True) in heard, 10, "the broker refusing the forged message")
    wait_for(lambda: "Denied PUBLISH" in broker.log(), 5, "the refusal in Mosquitto's log")
    # a control message on table 1's own topic arrives, so the forged one would have too
    own = topics.encode(t1.name, 1, 1.0, {"kind": "event", "game_id": 1, "game": "yonac",
                                          "players": ["A", "B"], "event": {"seq": 1, "kind": "accepted"}})
    client.publish(topics.events_topic(t1.name), own, qos=1)
    wait_for(lambda: hub.store.message_keys(t1.name) == [1], 10, "table 1's own message stored")
    assert hub.store.message_keys(t2.name) == []
    client.loop_stop()
    client.disconnect()


def test_malformed_messages_are_refused_logged_and_not_stored(make_hub, make_tables, broker, caplog):
    caplog.set_level(logging.WARNING, logger="club.hub")
    hub = make_hub()
    (t1,) = make_tables(1, start=False)
    client, heard = _client(broker, t1.name, table_password(t1.name))
    wait_for(lambda: ("connect", False) in heard, 10, "table 1 connected")
    bad = [
        (topics.events_topic(t1.name), b"{not json"),
        (topics.events_topic(t1.name), json.dumps({"v": 1, "table": "table-9", "seq": 1}).encode()),
        (topics.events_topic(t1.name), topics.encode(t1.name, 2, 1.0, {"kind": "result", "game_id": 1,
                                                                       "game": "yonac", "players": ["A"],
                                                                       "scores": ["lots"]})),
        (topics.state_topic(t1.name), b"[]"),
        (topics.status_topic(t1.name), b"dancing"),
    ]
    for topic, payload in bad:
        client.publish(topic, payload, qos=1)
    wait_for(lambda: hub.store.refused >= len(bad), 10, "the hub refusing every malformed message")
    assert hub.store.message_keys(t1.name) == [] and hub.store.tables() == []
    assert caplog.text.count("refused a message") >= len(bad)
    client.loop_stop()
    client.disconnect()


@pytest.fixture(autouse=True)
def _quiet_paho(caplog):
    caplog.set_level(logging.ERROR, logger="club.publisher")
