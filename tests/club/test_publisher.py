"""The publisher's relay without a network: a fake paho client and an injected clock decide
when rows past the hub's mark are sent again."""

from __future__ import annotations

import json

import pytest

from club.outbox import Outbox
from club.publisher import TablePublisher
from companion.storage import Store


class FakeInfo:
    def __init__(self, mid: int) -> None:
        self.mid, self.rc = mid, 0


class FakeClient:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def publish(self, topic, payload, qos=0, retain=False):
        self.sent.append((topic, payload))
        return FakeInfo(len(self.sent))


@pytest.fixture
def relay(tmp_path):
    store = Store(tmp_path / "t.db")
    outbox = Outbox.attach(store)
    game = store.create_game("ahyoheek", {}, ["A", "B", "C"])
    for _ in range(5):
        with store.write(game) as tx:
            tx.append("confirm", {}, source="touch")
    now = [100.0]
    pub = TablePublisher(outbox, "table-1", "127.0.0.1", 1, window=10, resend_after=10.0,
                         clock=lambda: now[0])
    fake = FakeClient()
    pub._client = fake
    pub.connected.set()
    pub.hub_online = True
    yield pub, fake, now, outbox
    outbox.close()
    store.close()


def events_sent(fake: FakeClient) -> list[int]:
    return [json.loads(p)["seq"] for t, p in fake.sent if t.endswith("/events")]


def test_rows_past_a_stalled_mark_go_again_only_after_resend_after(relay):
    pub, fake, now, outbox = relay
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5]
    for mid in range(1, 6):
        pub._acks.append((mid, True))
    pub._marks.append(2)  # the hub stored 1 and 2; 3-5 were lost on the way
    pub._relay_once()
    now[0] += 9.9
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5]  # not yet
    now[0] += 0.2
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5, 3, 4, 5]
    pub._relay_once_acks()
    assert outbox.unacked() == 0 and outbox.hub_mark() == 2


def test_no_resend_while_the_hub_is_offline_and_a_reconnect_resends_at_once(relay):
    pub, fake, now, _ = relay
    pub._relay_once()
    pub.hub_online = False
    now[0] += 3600  # an hour without the hub: its broker session queues for it
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5]
    pub._reconnected = True  # the broker restarted: everything past the mark (0) goes again
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5, 1, 2, 3, 4, 5]


def test_the_window_holds_back_rows_until_acks_come(relay):
    pub, fake, _, outbox = relay
    pub.window = 2
    pub._relay_once()
    assert events_sent(fake) == [1, 2]
    pub._acks.append((1, True))
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3]
    pub._acks.append((3, False))  # refused: the row is not acknowledged, and waits for a resend
    pub._relay_once()
    pub._relay_once_acks()
    assert outbox.unacked() == 4


def test_a_hub_mark_that_goes_back_sends_the_rows_after_it_again_at_once(relay):
    pub, fake, _, outbox = relay
    pub._relay_once()
    pub._marks.append(5)
    pub._relay_once()
    assert pub.hub_mark == 5 and events_sent(fake) == [1, 2, 3, 4, 5]
    pub._marks.extend([4, 1])  # a new hub database has only row 1 (the latest mark counts)
    pub._relay_once()
    assert events_sent(fake) == [1, 2, 3, 4, 5, 2, 3, 4, 5]
    pub._relay_once_acks()
    assert outbox.hub_mark() == 1
