"""What the club's two SQLite stores share: a write transaction taken at once."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def immediate(conn: sqlite3.Connection,
              lock: threading.Lock | threading.RLock) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE under `lock` (the writer's lock is taken before anything is read,
    so two writers never both read, then both write); committed on success, rolled
    back on any exception."""
    with lock:
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
