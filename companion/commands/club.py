"""`companion club ...`: club night (issue 21, docs/club.md).

    club serve          the hub: listen to the broker, store, serve the scoreboard
    club confirm        the other side confirms a finished game's result at the table
    club push           send a table's outbox to the broker and wait until the hub has it
    club broker-config  Mosquitto's config, password file and ACL for a club
    club demo           a local Mosquitto, the hub and three simulated tables (make club-demo)

The club needs the `club` extra (paho-mqtt, starlette, uvicorn); without it these
commands say so in one line.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from pathlib import Path

from companion.errors import CompanionError


class ClubMissing(CompanionError, ImportError):
    """The club extra is not installed."""


def _need_club() -> None:
    try:
        import paho.mqtt  # noqa: F401
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise ClubMissing(f"the club commands need the club extra ({exc.name} is missing): "
                          f"pip install 'table-companion[club]'") from None


def _port(text: str) -> int:
    from companion.cli import UsageError

    if not text.isdigit() or not 0 < int(text) < 65536:
        raise UsageError(f"a port is a number from 1 to 65535, got {text!r}")
    return int(text)


def _check_port(host: str, port: int) -> None:
    """A scoreboard port in use is one line, not a server's traceback."""
    import socket

    from club.errors import ClubError

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise ClubError(f"cannot serve the scoreboard on {host}:{port}: {exc.strerror}") from None


def serve(args: argparse.Namespace) -> int:
    _need_club()
    from club.serve import Hub
    from club.table import read_password

    _check_port(args.bind, args.http)
    password = read_password(args.password_file, "COMPANION_HUB_PASSWORD")
    director = read_password(args.director_password_file, "COMPANION_DIRECTOR_PASSWORD") or None
    hub = Hub.make(args.db, args.broker, args.http, http_host=args.bind, password=password,
                   director_password=director)
    print(f"Scoreboard: http://{args.bind}:{args.http}/  (JSON: /api/tables, /api/standings; "
          f"director: /director{'' if director else ', closed: no director password'})", flush=True)
    hub.run()
    return 0


def confirm(args: argparse.Namespace) -> int:
    _need_club()
    from club.outbox import Outbox
    from companion.cli import UsageError
    from companion.storage import Store

    if args.broker and not args.table:
        raise UsageError("companion club confirm: --broker needs --table (the table's broker user)")
    store = Store(args.db, create=False)
    try:
        outbox = Outbox(store.path)
        if args.seat < 1:
            raise UsageError(f"companion club confirm: --seat counts from 1, got {args.seat}")
        done = outbox.confirm(args.game_id, args.seat - 1, source="cli")
        outbox.close()
    finally:
        store.close()
    print(f"Game {done.game_id}: the result is confirmed by seat {done.seat + 1} ({done.player}); "
          f"it goes to the hub as outbox row {done.seq}.")
    if args.broker:
        return push(args)
    return 0


def push(args: argparse.Namespace) -> int:
    _need_club()
    from club.table import ClubTable, read_password

    table = ClubTable.open(args.db, args.table, args.broker, password=read_password(args.password_file))
    try:
        table.publisher.start()
        if table.publisher.wait_delivered(args.timeout):
            print(f"Table {args.table}: every change up to outbox row {table.outbox.last_seq()} is "
                  f"stored at the hub.")
            return 0
        acked = table.outbox.unacked() == 0
        why = table.publisher.refused or ("the broker has them; the hub has not said it stored them"
                                          if acked else "the broker did not acknowledge them")
        print(f"Table {args.table}: not every change reached the hub within {args.timeout:g} s "
              f"({why}); they stay in the outbox.", file=sys.stderr)
        return 1
    finally:
        table.close()


def broker_config(args: argparse.Namespace) -> int:
    _need_club()
    from club import topics
    from club.broker import write_config
    from club.errors import ClubError

    users: dict[str, str] = {}
    try:
        lines = Path(args.users).read_text().splitlines()
    except OSError as exc:
        raise ClubError(f"cannot read the users file {args.users!r}: {exc.strerror}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        name, sep, password = line.partition(":")
        if not sep or not password:
            raise ClubError(f"{args.users}, line {number}: write NAME:PASSWORD, got {line[:40]!r}")
        if name != topics.HUB_USER:
            topics.check_table_name(name)
        users[name] = password
    if topics.HUB_USER not in users:
        raise ClubError(f"{args.users}: the hub needs a user called {topics.HUB_USER!r}")
    conf = write_config(Path(args.dir), args.port, users, host=args.bind, log_file=False,
                        debug_log=False)
    print(f"Wrote {conf}, {Path(args.dir) / 'passwd'} ({len(users)} users) and "
          f"{Path(args.dir) / 'acl'}.")
    return 0


def demo(args: argparse.Namespace) -> int:
    _need_club()
    from club.broker import LocalBroker, free_port
    from club.serve import Hub
    from club.simulate import SimTable, run_tables

    if args.http:
        _check_port("127.0.0.1", args.http)
    with tempfile.TemporaryDirectory(prefix="club-demo-") as tmp:
        folder = Path(tmp)
        users = {"hub": "hub-demo", **{f"table-{i}": f"demo-{i}" for i in range(1, args.tables + 1)}}
        broker = LocalBroker.make(folder / "broker", users, port=args.broker_port,
                                  debug_log=False).start()
        hub = Hub.make(folder / "hub.db", broker.address, args.http or free_port(),
                       password="hub-demo", director_password="director")
        hub.start()
        (folder / "tables").mkdir()
        tables = [SimTable.make(folder / "tables", i, broker.address, f"demo-{i + 1}").start()
                  for i in range(args.tables)]
        print(f"Mosquitto on {broker.address}; {args.tables} tables playing "
              f"{', '.join(t.game for t in tables)}.")
        print(f"Scoreboard: {hub.url}  (director: {hub.url}director, user director, "
              f"password director)", flush=True)
        stop = threading.Event()
        threads = run_tables(tables, stop, rate=args.rate)
        try:
            stop.wait(args.seconds)  # None: until Ctrl-C
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            for th in threads:
                th.join(10)
            for t in tables:
                t.club.close()
            hub.stop()
            broker.stop()
        print(f"Stopped: {sum(len(t.games_played) for t in tables)} games played.")
    return 0


def register(cli) -> None:
    group = cli.group("club", "club night: many tables, one scoreboard, through a Mosquitto broker")
    db_help = ("the table's database file (default: $COMPANION_DB, else companion.db in the user data "
               "directory)")

    p = group.add_parser("serve", help="the hub: store every table's messages, serve the scoreboard",
                         description="Listen to every table through the broker, store their events "
                                     "and results (de-duplicated), serve the scoreboard and JSON API.")
    p.set_defaults(func=serve)
    p.add_argument("--broker", required=True, metavar="HOST:PORT", help="the Mosquitto broker")
    p.add_argument("--http", required=True, type=_port, metavar="PORT", help="the scoreboard's port")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                   help="the address the scoreboard listens on (0.0.0.0 for the whole network)")
    p.add_argument("--db", default="club-hub.db", metavar="FILE", help="the hub's database (default "
                                                                       "club-hub.db)")
    p.add_argument("--password-file", metavar="FILE",
                   help="the hub user's broker password (default: $COMPANION_HUB_PASSWORD)")
    p.add_argument("--director-password-file", metavar="FILE",
                   help="the director's page password (default: $COMPANION_DIRECTOR_PASSWORD; "
                        "without one the page is closed)")

    def table_args(p: argparse.ArgumentParser, required: bool) -> None:
        p.add_argument("--db", default=None, metavar="FILE", help=db_help)
        p.add_argument("--table", required=required, metavar="NAME", help="this table's name "
                       "(its broker user)")
        p.add_argument("--broker", required=required, metavar="HOST:PORT", help="the Mosquitto broker")
        p.add_argument("--password-file", metavar="FILE",
                       help="this table's broker password (default: $COMPANION_CLUB_PASSWORD)")
        p.add_argument("--timeout", type=float, default=30.0, metavar="S",
                       help="how long to wait for the hub (default 30)")

    p = group.add_parser("confirm", help="the other side confirms a finished game's result",
                         description="Confirm a finished game's result at the table, as the other "
                                     "side (a seat that did not win); with --broker, send it now.")
    p.set_defaults(func=confirm)
    p.add_argument("game_id", type=int, metavar="GAME_ID")
    p.add_argument("--seat", type=int, required=True, metavar="N",
                   help="the confirming seat, counted from 1 as people count seats")
    table_args(p, required=False)

    p = group.add_parser("push", help="send this table's outbox and wait until the hub stores it")
    p.set_defaults(func=push)
    table_args(p, required=True)

    p = group.add_parser("broker-config", help="Mosquitto's config, passwords and ACL for a club",
                         description="Write mosquitto.conf, the password file (hashed with "
                                     "mosquitto_passwd) and the ACL into DIR (docs/club.md).")
    p.set_defaults(func=broker_config)
    p.add_argument("dir", metavar="DIR")
    p.add_argument("--users", required=True, metavar="FILE",
                   help="NAME:PASSWORD lines: 'hub' and one per table")
    p.add_argument("--port", type=_port, default=1883, metavar="PORT", help="default 1883")
    p.add_argument("--bind", default="0.0.0.0", metavar="ADDR", help="default 0.0.0.0")

    p = group.add_parser("demo", help="a local Mosquitto, the hub and simulated tables")
    p.set_defaults(func=demo)
    p.add_argument("--tables", type=int, default=3, choices=range(1, 7), metavar="N",
                   help="simulated tables, 1 to 6 (default 3)")
    p.add_argument("--http", type=_port, default=8421, metavar="PORT", help="default 8421")
    p.add_argument("--broker-port", type=_port, default=None, metavar="PORT",
                   help="default: a free port")
    p.add_argument("--rate", type=float, default=2.0, metavar="N", help="moves a second per table")
    p.add_argument("--seconds", type=float, default=None, metavar="S", help="default: until Ctrl-C")
