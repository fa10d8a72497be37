"""What the club's two SQLite stores share: a write transaction taken at once, under
the store's own lock (companion.storage.immediate, which the table's log uses too)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from companion.storage import immediate as _immediate


@contextmanager
def immediate(conn: sqlite3.Connection,
              lock: threading.Lock | threading.RLock) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE under `lock`; committed on success, rolled back on any exception."""
    with lock, _immediate(conn):
        yield conn
