"""The hub's MQTT client: subscribes to every table, stores what it hears, acknowledges a
message only after the commit that stored it, and publishes each table's mark.

Acknowledging after the commit (paho's manual acks) is what makes a hub killed at any
moment lose nothing: a message it had not stored is still unacknowledged, and the broker
keeps it for the hub's persistent session. Each table's mark (the highest seq stored
with every one before it) goes back to the table, retained on club/hub/marks/TABLE,
so a table knows what it may need to send again (club/publisher.py).

Anything that is not a club message (bad JSON, a missing field, a table name that is
not the topic's, a status that is neither online nor offline) is refused: logged with
its reason, counted in `refused`, acknowledged (a broker must not send it again) and
never stored.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from club import topics
from club.errors import BadMessage, ClubError
from club.hubstore import HubStore

log = logging.getLogger(__name__)

SESSION_EXPIRY_S = 7 * 24 * 3600
BATCH = 500


class HubListener:
    """The hub's side of the broker at `host:port`, storing into `store`."""

    def __init__(self, store: HubStore, host: str, port: int, *, user: str = topics.HUB_USER,
                 password: str = "", mark_every: float = 0.2, tls: dict[str, Any] | None = None,
                 on_change: Callable[[], None] | None = None, keepalive: int = 5) -> None:
        self.store = store
        self.host, self.port = host, port
        self.mark_every = mark_every
        self.on_change = on_change
        self.connected = threading.Event()
        self.refused_connection: str | None = None
        self._inbox: queue.Queue[mqtt.MQTTMessage | None] = queue.Queue()
        self._stop = threading.Event()
        self._marks_sent: dict[str, int] = {}
        self._marks_at = 0.0
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="club-hub", protocol=mqtt.MQTTv5)
        c.username_pw_set(user, password)
        if tls is not None:
            c.tls_set(**tls)
        c.will_set(topics.HUB_STATUS, "offline", qos=1, retain=True)
        c.manual_ack_set(True)
        c.reconnect_delay_set(0.1, 2)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = lambda client, userdata, msg: self._inbox.put(msg)
        self._client = c
        self._keepalive = keepalive
        self._thread = threading.Thread(target=self._work, name="club-hub-store", daemon=True)

    def start(self) -> HubListener:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY_S
        self._client.connect_async(self.host, self.port, keepalive=self._keepalive,
                                   clean_start=False, properties=props)
        self._thread.start()
        self._client.loop_start()
        return self

    def stop(self, *, crash: bool = False, timeout: float = 5.0) -> None:
        """Stop listening. `crash=True` drops the link without a word, as a killed hub would:
        whatever it had not acknowledged stays with the broker."""
        self._stop.set()
        self._inbox.put(None)
        self._thread.join(timeout)
        if crash:
            self._client.disconnect(reasoncode=_will_reason())
        else:
            if self.connected.is_set():
                self._client.publish(topics.HUB_STATUS, "offline", qos=1, retain=True)
            self._client.disconnect()
        self._client.loop_stop()

    # -- paho's thread -----------------------------------------------------------------------
    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self.refused_connection = str(reason)
            log.error("hub: the broker at %s:%s refused the connection: %s", self.host, self.port,
                      reason)
            return
        self.refused_connection = None
        client.subscribe([(f"{topics.ROOT}/+/events", 1), (f"{topics.ROOT}/+/state", 1),
                          (f"{topics.ROOT}/+/status", 1)])
        client.publish(topics.HUB_STATUS, "online", qos=1, retain=True)
        self._marks_sent.clear()  # a restarted broker may have lost them: send every mark again
        self.connected.set()
        log.info("hub: connected to %s:%s (session present: %s)", self.host, self.port,
                 flags.session_present)

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("hub: lost the broker (%s); unacknowledged messages wait there", reason)

    # -- the store thread ------------------------------------------------------------------
    def _work(self) -> None:
        while not self._stop.is_set():
            try:
                first = self._inbox.get(timeout=self.mark_every)
            except queue.Empty:
                first = None
            batch = [] if first is None else [first]
            while len(batch) < BATCH:
                try:
                    msg = self._inbox.get_nowait()
                except queue.Empty:
                    break
                if msg is not None:
                    batch.append(msg)
            while True:
                try:
                    self._handle(batch)
                    self._send_marks()
                    break
                except Exception:  # a full disk, a locked file: nothing acknowledged, try again
                    log.exception("hub: storing %d messages failed; trying again", len(batch))
                    if self._stop.wait(0.5):
                        return

    def _handle(self, batch: list[mqtt.MQTTMessage]) -> None:
        events: list[topics.Message] = []
        changed = False
        for msg in batch:
            if msg.topic.startswith(f"{topics.ROOT}/hub/"):
                continue  # the hub's own words, heard back through club/+/status
            try:
                where = topics.topic_table(msg.topic)
                if where is None:
                    raise BadMessage("not a table's topic")
                if where[1] == "events":
                    events.append(topics.parse_event(msg.topic, msg.payload))
                elif where[1] == "state":
                    self.store.set_state(where[0], msg.payload)
                    changed = True
                elif where[1] == "status":
                    self.store.set_status(where[0], msg.payload.decode("utf-8", "replace"))
                    changed = True
                else:
                    raise BadMessage(f"no table topic ends in {where[1]!r}")
            except (BadMessage, ClubError) as exc:
                self.store.refused += 1
                log.warning("hub: refused a message on %r: %s", msg.topic[:120], exc)
        if events:
            stored = self.store.store(events)
            changed = changed or stored.new > 0
            if stored.duplicates:
                log.info("hub: dropped %d copies already stored", stored.duplicates)
        for msg in batch:  # only now, after the commit
            if msg.qos > 0:
                self._client.ack(msg.mid, msg.qos)
        if changed and self.on_change is not None:
            self.on_change()

    def _send_marks(self) -> None:
        now = time.monotonic()
        if now - self._marks_at < self.mark_every or not self.connected.is_set():
            return
        self._marks_at = now
        for tbl, mark in self.store.marks().items():
            if self._marks_sent.get(tbl) != mark:
                self._client.publish(topics.mark_topic(tbl), str(mark), qos=1, retain=True)
                self._marks_sent[tbl] = mark


def _will_reason() -> Any:
    from paho.mqtt.reasoncodes import ReasonCode

    return ReasonCode(PacketTypes.DISCONNECT, "Disconnect with will message")
