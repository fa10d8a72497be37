"""One table in a club: its companion database, the outbox hooked into it, and the
publisher (`ClubTable`); and the other side's confirmation of a result."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from club import topics
from club.errors import ClubError, NotConfirmable
from club.outbox import Confirmation, Outbox
from club.publisher import TablePublisher
from companion.storage import ENV_VAR, Store

PASSWORD_ENV = "COMPANION_CLUB_PASSWORD"


def read_password(path: str | None, env: str = PASSWORD_ENV) -> str:
    """A password from a file (first line) or the environment; '' when neither is given."""
    if path:
        try:
            lines = Path(path).read_text().splitlines()
            return lines[0].strip() if lines else ""
        except OSError as exc:
            raise ClubError(f"cannot read the password file {path!r}: {exc.strerror}") from None
    return os.environ.get(env, "")


def table_db(table: str) -> Path:
    """Where a club table keeps its games: $COMPANION_DB if set, else club-TABLE.db in the
    user's data directory (a table's own file, apart from the companion's history)."""
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    import platformdirs

    folder = Path(platformdirs.user_data_dir("table-companion"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"club-{table}.db"


@dataclass
class ClubTable:
    """A table's store with its outbox hooked in, and its publisher (not started yet)."""

    name: str
    store: Store
    outbox: Outbox
    publisher: TablePublisher

    @classmethod
    def open(cls, db: str | Path, name: str, broker: str, *, password: str = "",
             **publisher: Any) -> ClubTable:
        name = topics.check_table_name(name)
        host, port = topics.parse_address(broker)
        store = Store(db)
        outbox = Outbox.attach(store)
        return cls(name, store, outbox, TablePublisher(outbox, name, host, port, password=password,
                                                       **publisher))

    def confirm(self, game_id: int, seat: int, source: str = "touch") -> Confirmation:
        return self.outbox.confirm(game_id, seat, source)

    def close(self, *, will: bool = False) -> None:
        self.publisher.stop(will=will)
        self.outbox.close()
        self.store.close()


def other_side(scores: list[float], winners: list[int]) -> int:
    """The seat that confirms in a simulation: the first seat that did not win."""
    for seat in range(len(scores)):
        if seat not in winners:
            return seat
    if not scores:
        raise NotConfirmable("a result with no seats cannot be confirmed")
    return 0
