"""The hub in one piece: its database, its broker client and its web server (`Hub`)."""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import uvicorn

from club import topics
from club.hub import HubListener
from club.hubstore import HubStore
from club.web import make_app

log = logging.getLogger(__name__)


@dataclass
class Hub:
    store: HubStore
    listener: HubListener
    server: uvicorn.Server
    http_host: str
    http_port: int
    thread: threading.Thread | None = None

    @classmethod
    def make(cls, db: str | Path, broker: str, http_port: int, *, http_host: str = "127.0.0.1",
             password: str = "", director_password: str | None = None, **listener: Any) -> Hub:
        host, port = topics.parse_address(broker)
        store = HubStore(str(db))
        app = make_app(store, director_password=director_password)
        config = uvicorn.Config(app, host=http_host, port=http_port, log_level="warning",
                                access_log=False, lifespan="off",
                                # open scoreboards (event streams) must not hold a stop for long
                                timeout_graceful_shutdown=1)
        return cls(store, HubListener(store, host, port, password=password, **listener),
                   uvicorn.Server(config), http_host, http_port)

    @property
    def url(self) -> str:
        return f"http://{self.http_host}:{self.http_port}/"

    def start(self, timeout: float = 10.0) -> Hub:
        """Listen to the broker and serve the web pages from a thread (tests, the demo)."""
        self.listener.start()
        self.thread = threading.Thread(target=self.server.run, name="club-hub-http", daemon=True)
        self.thread.start()
        ready = threading.Event()
        for _ in range(int(timeout / 0.02)):
            if self.server.started:
                ready.set()
                break
            if not self.thread.is_alive():
                break
            ready.wait(0.02)
        if not ready.is_set():
            raise OSError(f"the scoreboard did not start on {self.url}")
        return self

    def run(self) -> None:
        """Listen and serve in the foreground until interrupted (`companion club serve`)."""
        self.listener.start()
        try:
            self.server.run()
        finally:
            self.listener.stop()
            self.store.close()

    def stop(self, *, crash: bool = False) -> None:
        self.listener.stop(crash=crash)
        self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(10)
        self.store.close()
