"""A real Mosquitto on 127.0.0.1 at a free port, the hub, and simulated tables."""

from __future__ import annotations

import contextlib
import os
import shutil

import pytest
from club_support import DIRECTOR_PASSWORD, HUB_PASSWORD, IN_CI, TABLES, need, table_password

if not IN_CI:
    pytest.importorskip("paho.mqtt", reason="the club extra (paho-mqtt) is not installed")
    pytest.importorskip("starlette", reason="the club extra (starlette) is not installed")

from club.broker import LocalBroker, free_port
from club.serve import Hub
from club.simulate import SimTable


@pytest.fixture
def broker(tmp_path):
    need(shutil.which("mosquitto") is not None or os.path.exists("/usr/sbin/mosquitto"),
         "mosquitto is not installed (make sysdeps installs it)")
    users = {"hub": HUB_PASSWORD, **{f"table-{i}": table_password(f"table-{i}")
                                     for i in range(1, TABLES + 1)}}
    b = LocalBroker.make(tmp_path / "broker", users).start()
    yield b
    b.stop()


@pytest.fixture
def make_hub(tmp_path, broker):
    hubs: list[Hub] = []
    port = free_port()

    def make(**kw) -> Hub:
        hub = Hub.make(tmp_path / "hub.db", broker.address, port, password=HUB_PASSWORD,
                       director_password=DIRECTOR_PASSWORD, **kw).start()
        hubs.append(hub)
        return hub
    yield make
    for hub in hubs:
        if hub.thread is not None and hub.thread.is_alive():
            hub.stop()


@pytest.fixture
def make_tables(tmp_path, broker):
    made: list[SimTable] = []

    def make(n: int, *, start: bool = True, **kw) -> list[SimTable]:
        out = []
        for i in range(len(made), len(made) + n):
            name = f"table-{i + 1}"
            t = SimTable.make(tmp_path / "tables", i, broker.address, table_password(name),
                              resend_after=kw.pop("resend_after", 1.0), **kw)
            made.append(t)
            out.append(t.start() if start else t)
        return out
    (tmp_path / "tables").mkdir()
    yield make
    for t in made:
        with contextlib.suppress(Exception):
            t.club.close()
