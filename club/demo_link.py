"""`companion demo --headless --club HOST:PORT --table NAME`: the demo's table publishes to a
club. Its games go to the table's own database (club-NAME.db in the user data directory,
or $COMPANION_DB) with the outbox hooked in; the live state follows the session; at the
end the other side (a simulated player who did not win) confirms the result, and the
demo waits until the hub has stored every change, or says it could not."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from club import topics
from club.table import ClubTable, other_side, read_password, table_db


def run_on_club(args: argparse.Namespace, record: Path | None, run_headless: Callable[..., int]) -> int:
    from companion.cli import UsageError

    if not args.table:
        raise UsageError("companion demo: --club needs --table NAME (the table's broker user)")
    name = topics.check_table_name(args.table)
    topics.parse_address(args.club)
    db = table_db(name)
    table = ClubTable.open(db, name, args.club, password=read_password(args.club_password_file))
    sessions: list[Any] = []

    def on_session(session: Any) -> None:
        sessions.append(session)
        table.publisher.watch(session)
    try:
        table.publisher.start()
        extra = {"preset": args.preset} if getattr(args, "preset", None) else {}
        code = run_headless(args.game, args.seed, record=record, store=table.store, on_session=on_session,
                            **extra)
        if code == 0 and sessions and sessions[0].state().is_terminal():
            state = sessions[0].state()
            done = table.confirm(sessions[0].game_id, other_side(state.scores(), state.winners()),
                                 source="demo")
            print(f"Seat {done.seat} ({done.player}), the other side, confirms the result at the table.")
        if table.publisher.wait_delivered(30.0):
            print(f"Club: table {name} published every change (outbox row {table.outbox.last_seq()}) "
                  f"and the hub stored it; games kept in {db}.")
        else:
            why = table.publisher.refused or "no hub acknowledged them in 30 s"
            print(f"Club: {table.outbox.unacked()} changes wait in table {name}'s outbox ({why}); "
                  f"`companion club push --table {name} --broker {args.club} --db {db}` sends them.")
        return code
    finally:
        table.close()
