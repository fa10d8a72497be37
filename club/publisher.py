"""A table's MQTT client (paho-mqtt 2.x, MQTT 5): the outbox drained at QoS 1 in a
persistent session, the live state retained, and a last will that marks the table offline.

One relay thread does all the work against the outbox; paho's network thread only
queues what it hears (acknowledgements, the hub's mark, the hub's status) and sets the
relay's wake event, so no lock is ever held across a paho call.

Delivery (docs/club.md, "Nothing lost, nothing doubled"):
- at most `window` rows are handed to paho at a time, so paho's in-memory queue stays
  small and the outbox, on disk, holds the rest;
- a PUBACK marks a row acknowledged by the broker; the hub's retained mark
  (club/hub/marks/TABLE) says every row up to it is stored at the hub;
- after every (re)connect the rows past the hub's mark are sent again, and so they are
  when the hub is online but its mark has not moved for `resend_after` seconds while
  rows past it were sent (a broker killed before it wrote its queue to disk loses
  messages it had acknowledged: only the hub's mark proves delivery). The hub drops the
  copies by (table, seq).
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from club import topics
from club.outbox import Outbox

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 7 * 24 * 3600  # a table's session outlives a long evening offline
SAVE_EVERY_S = 0.5


def state_of(view: Any, game_id: int) -> dict[str, Any]:
    """A session's view model as the retained live state (what the scoreboard shows)."""
    return {"game_id": game_id, "game": view.game, "title": view.title,
            "players": list(view.players), "scores": list(view.scores), "turn": view.turn,
            "phase": view.phase, "events": view.events, "over": view.over,
            "winners": list(view.winners)}


class TablePublisher:
    """Publishes one table's outbox to the broker at `host:port` as user `table`."""

    def __init__(self, outbox: Outbox, table: str, host: str, port: int, *, password: str = "",
                 window: int = 100, resend_after: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, tls: dict[str, Any] | None = None,
                 keepalive: int = 5) -> None:
        self.outbox = outbox
        self.table = topics.check_table_name(table)
        self.host, self.port = host, port
        self.window = window
        self.resend_after = resend_after
        self.clock = clock
        self.connected = threading.Event()
        self.refused: str | None = None  # why the broker refused us, when it did
        self.hub_online = False
        self.hub_mark = outbox.hub_mark()
        self._acks: collections.deque[tuple[int, bool]] = collections.deque()
        self._marks: collections.deque[int] = collections.deque()
        self._reconnected = False
        self._stop = threading.Event()
        self._state: dict[str, Any] | None = None
        self._state_dirty = False
        self._sent_upto = self.hub_mark
        self._inflight: dict[int, int] = {}
        self._progress_at = clock()
        self._acked: list[int] = []
        self._saved_at = 0.0
        self._saved_mark = self.hub_mark
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"table-{table}",
                        protocol=mqtt.MQTTv5)
        c.username_pw_set(table, password)
        if tls is not None:
            c.tls_set(**tls)
        c.will_set(topics.status_topic(table), "offline", qos=1, retain=True)
        c.max_inflight_messages_set(window)
        c.reconnect_delay_set(0.1, 2)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        self._client = c
        self._keepalive = keepalive
        self._thread = threading.Thread(target=self._relay, name=f"club-relay-{table}", daemon=True)

    # -- life ---------------------------------------------------------------------------
    def start(self) -> TablePublisher:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive,
                                   clean_start=False, properties=props)
        self._client.loop_start()
        self._thread.start()
        return self

    def stop(self, *, will: bool = False, timeout: float = 5.0) -> None:
        """Stop publishing. `will=True` drops the link as a crash would (the broker then
        publishes the last will); otherwise the table says "offline" and disconnects."""
        self._stop.set()
        self.outbox.wake.set()
        self._thread.join(timeout)
        try:
            self._relay_once_acks()
        except Exception:
            log.exception("table %s: could not save the last acknowledgements", self.table)
        if will:
            self._client.disconnect(reasoncode=_will_reason())
        else:
            if self.connected.is_set():
                self._client.publish(topics.status_topic(self.table), "offline", qos=1, retain=True)
            self._client.disconnect()
        self._client.loop_stop()

    def publish_state(self, state: dict[str, Any]) -> None:
        """The table's live state, retained: the latest one is sent when connected."""
        self._state = state
        self._state_dirty = True
        self.outbox.wake.set()

    def watch(self, session: Any) -> Callable[[], None]:
        """Publish `session`'s view model as the live state after every change."""
        self.publish_state(state_of(session.view(), session.game_id))
        return session.subscribe(lambda view: self.publish_state(state_of(view, session.game_id)))

    def wait_delivered(self, timeout: float, *, to_hub: bool = True) -> bool:
        """Block until every outbox row is stored at the hub (or acknowledged by the broker
        with `to_hub=False`); False when `timeout` seconds pass first."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.refused is not None:  # the broker said no: waiting will not change it
                return False
            if to_hub and self.hub_mark >= self.outbox.last_seq():
                return True
            if not to_hub and self.outbox.unacked() == 0:
                return True
            self.outbox.wake.set()
            self._stop.wait(0.02)
        return False

    # -- paho's thread: note and wake ---------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self.refused = str(reason)
            log.error("table %s: the broker at %s:%s refused the connection: %s",
                      self.table, self.host, self.port, reason)
            return
        self.refused = None
        client.subscribe([(topics.mark_topic(self.table), 1), (topics.HUB_STATUS, 1)])
        client.publish(topics.status_topic(self.table), "online", qos=1, retain=True)
        self._reconnected = True
        self._state_dirty = self._state is not None
        self.connected.set()
        self.outbox.wake.set()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("table %s: lost the broker (%s); the outbox keeps every change", self.table,
                        reason)

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any,
                    properties: Any) -> None:
        ok = not reason.is_failure
        if not ok:
            log.error("table %s: the broker refused message %s: %s", self.table, mid, reason)
        self._acks.append((mid, ok))
        self.outbox.wake.set()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == topics.HUB_STATUS:
            self.hub_online = msg.payload == b"online"
            return
        try:
            self._marks.append(int(msg.payload))
        except ValueError:
            log.warning("table %s: the hub's mark %r is not a number", self.table, msg.payload[:40])
        self.outbox.wake.set()

    # -- the relay thread ------------------------------------------------------------------
    def _relay(self) -> None:
        while not self._stop.is_set():
            self.outbox.wake.wait(0.05)
            self.outbox.wake.clear()
            added = self.outbox.added.is_set()
            self.outbox.added.clear()
            try:
                sent = self._relay_once()
                # the hook wakes us inside the writer's transaction: its row shows a moment
                # later, once the commit is on disk; look again soon rather than in 50 ms
                for _ in range(25):
                    if sent or not added or self._stop.is_set():
                        break
                    self._stop.wait(0.002)
                    sent = self._publish_rows()
            except Exception:
                log.exception("table %s: the relay failed; it tries again", self.table)
                self._stop.wait(0.5)

    def _relay_once(self) -> int:
        """Acks, marks, resends, live state, then new rows; returns the rows published."""
        self._take_acks()
        if self._marks:
            mark = [self._marks.popleft() for _ in range(len(self._marks))][-1]  # the latest
            if mark < self.hub_mark:
                # a new hub database, or a broker that restored an older retained mark: what
                # the hub may not hold goes again (the hub drops what it does hold)
                log.warning("table %s: the hub's mark went back from %s to %s; sending from %s",
                            self.table, self.hub_mark, mark, mark + 1)
                self._sent_upto = min(self._sent_upto, mark)
            if mark != self.hub_mark:
                self.hub_mark = mark
                self._progress_at = self.clock()
        self._save()
        if not self.connected.is_set():
            return 0
        if self._reconnected:  # paho resends its own in-flight; the rest go again from the mark
            self._reconnected = False
            self._inflight.clear()
            self._rewind("reconnected")
        elif (self.hub_online and self.hub_mark < self._sent_upto
              and self.clock() - self._progress_at > self.resend_after):
            self._rewind(f"the hub's mark stayed at {self.hub_mark} for {self.resend_after:g} s")
        if self._state_dirty and self._state is not None:
            self._state_dirty = False
            self._client.publish(topics.state_topic(self.table),
                                 json.dumps(self._state, separators=(",", ":")), qos=1, retain=True)
        return self._publish_rows()

    def _publish_rows(self) -> int:
        room = self.window - len(self._inflight)
        if room <= 0 or not self.connected.is_set():
            return 0
        sent = 0
        for row in self.outbox.rows_after(self._sent_upto, room):
            info = self._client.publish(topics.events_topic(self.table),
                                        topics.encode(self.table, row.seq, row.created, row.body), qos=1)
            if info.rc != mqtt.MQTT_ERR_SUCCESS:
                log.info("table %s: row %s waits for the broker (%s)", self.table, row.seq, info.rc)
                break
            self._inflight[info.mid] = row.seq
            self._sent_upto = row.seq
            sent += 1
        return sent

    def _take_acks(self) -> None:
        while self._acks:
            mid, ok = self._acks.popleft()
            seq = self._inflight.pop(mid, None)
            if seq is not None and ok:
                self._acked.append(seq)

    def _relay_once_acks(self) -> None:
        """Save every acknowledgement heard so far, now (on stop)."""
        self._take_acks()
        self._save(now=True)

    def _save(self, *, now: bool = False) -> None:
        # Acks and the hub's mark are written in batches, at most every SAVE_EVERY_S: each
        # write is a transaction that waits for the session's writer, and losing one only
        # means a row is sent again.
        if not now and time.monotonic() - self._saved_at < SAVE_EVERY_S:
            return
        self._saved_at = time.monotonic()
        if self._acked:
            acked, self._acked = self._acked, []
            self.outbox.mark_acked(acked)
        if self.hub_mark != self._saved_mark:
            self._saved_mark = self.hub_mark
            self.outbox.set_hub_mark(self.hub_mark)

    def _rewind(self, why: str) -> None:
        if self._sent_upto > self.hub_mark:
            log.info("table %s: sending rows %s to %s again (%s)", self.table, self.hub_mark + 1,
                     self._sent_upto, why)
        self._sent_upto = self.hub_mark
        self._progress_at = self.clock()


def _will_reason() -> Any:
    from paho.mqtt.reasoncodes import ReasonCode

    return ReasonCode(PacketTypes.DISCONNECT, "Disconnect with will message")
