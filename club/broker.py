"""Mosquitto for a club: its config, the per-table password file and the ACL, and a local
broker process (`LocalBroker`) for `make club-demo`, the tests and the benchmark.

The same files serve a real hub (club/deploy/ has the systemd unit that runs them):
`companion club broker-config DIR --table NAME ...` writes them. Passwords are hashed by
Mosquitto's own `mosquitto_passwd`; each table's user is its name, so the ACL's
`pattern` lines let a table write its own topics only.
"""

from __future__ import annotations

import getpass
import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from club import topics
from club.errors import BrokerError

ACL = f"""# Table Companion club ACL (docs/club.md). %u is the connecting user: a table's name.
# A table writes only its own topics and reads only the hub's words to it.
pattern write {topics.ROOT}/%u/events
pattern write {topics.ROOT}/%u/state
pattern write {topics.ROOT}/%u/status
pattern read {topics.ROOT}/hub/marks/%u
pattern read {topics.ROOT}/hub/status

# The hub reads every table and writes its marks and its status.
user {topics.HUB_USER}
topic read {topics.ROOT}/+/events
topic read {topics.ROOT}/+/state
topic read {topics.ROOT}/+/status
topic write {topics.ROOT}/hub/#
"""


def mosquitto_conf(folder: Path, port: int, *, host: str = "127.0.0.1", tls: dict[str, str] | None = None,
                   log_file: bool = True, debug_log: bool = True, run_as: str | None = None) -> str:
    """The broker's config for a club whose password file and ACL are in `folder`. `run_as`:
    the user a broker started as root runs as (default Mosquitto's own `mosquitto`)."""
    lines = [
        "# Table Companion club broker (docs/club.md); written by `companion club broker-config`.",
        *([f"user {run_as}"] if run_as else []),
        "per_listener_settings false",
        "allow_anonymous false",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl'}",
        # a table's or the hub's session and queued messages survive a broker restart
        "persistence true",
        f"persistence_location {folder / 'data'}/",
        "autosave_interval 30",
        # a hub away for minutes at 500 messages/s: keep them all (default 1000 would drop)
        "max_queued_messages 1000000",
        "max_inflight_messages 200",
        "set_tcp_nodelay true",
        "connection_messages true",
        "log_timestamp true",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "log_type information",
        # a denied PUBLISH is logged at debug level in Mosquitto 2.0 (so is every message)
        *(["log_type debug"] if debug_log else []),
        f"log_dest file {folder / 'mosquitto.log'}" if log_file else "log_dest stderr",
        f"listener {port} {host}",
    ]
    if tls:
        lines += [f"certfile {tls['certfile']}", f"keyfile {tls['keyfile']}"]
        if tls.get("cafile"):
            lines.append(f"cafile {tls['cafile']}")
    return "\n".join(lines) + "\n"


def mosquitto_passwd() -> str:
    path = shutil.which("mosquitto_passwd")
    if path is None:
        raise BrokerError("mosquitto_passwd is not installed: apt-get install mosquitto")
    return path


def write_passwords(path: Path, users: dict[str, str]) -> None:
    """A Mosquitto password file holding `users` (name -> password), hashed by mosquitto_passwd."""
    path.write_text("".join(f"{u}:{p}\n" for u, p in users.items()))
    path.chmod(0o600)
    done = subprocess.run([mosquitto_passwd(), "-U", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        raise BrokerError(f"mosquitto_passwd could not hash {path}: {done.stderr.strip()}")


def write_config(folder: Path, port: int, users: dict[str, str], *, host: str = "127.0.0.1",
                 log_file: bool = True, debug_log: bool = True, run_as: str | None = None) -> Path:
    """Password file, ACL and mosquitto.conf in `folder`; returns the config's path."""
    for name in users:
        if name != topics.HUB_USER:
            topics.check_table_name(name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data").mkdir(exist_ok=True)
    write_passwords(folder / "passwd", users)
    (folder / "acl").write_text(ACL)
    conf = folder / "mosquitto.conf"
    conf.write_text(mosquitto_conf(folder, port, host=host, log_file=log_file, debug_log=debug_log,
                                   run_as=run_as))
    return conf


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_port(host: str, port: int, timeout: float, *, proc: subprocess.Popen | None = None) -> None:
    """Return once `host:port` accepts a connection; BrokerError after `timeout` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise BrokerError(f"{Path(str(proc.args[0])).name} exited with status {proc.returncode} "
                              f"before listening on {host}:{port}")
        try:
            with socket.create_connection((host, port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise BrokerError(f"nothing listens on {host}:{port} after {timeout:g} s")


@dataclass
class LocalBroker:
    """A mosquitto process on 127.0.0.1 with a club's config in `folder`."""

    folder: Path
    port: int
    users: dict[str, str]
    proc: subprocess.Popen | None = None

    @classmethod
    def make(cls, folder: Path, users: dict[str, str], port: int | None = None, *,
             debug_log: bool = True) -> LocalBroker:
        """A broker for this user's own use: its files stay in `folder`, owned by whoever runs
        it (as root too: it does not switch to the `mosquitto` user)."""
        port = port or free_port()
        write_config(folder, port, users, debug_log=debug_log, run_as=getpass.getuser())
        return cls(folder, port, users)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.path.exists(exe):
            raise BrokerError("mosquitto is not installed: apt-get install mosquitto")
        self.proc = subprocess.Popen([exe, "-c", str(self.folder / "mosquitto.conf")],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_port("127.0.0.1", self.port, timeout, proc=self.proc)
        return self

    def kill(self) -> None:
        """SIGKILL: the broker dies without writing anything more to disk."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        path = self.folder / "mosquitto.log"
        return path.read_text(errors="replace") if path.exists() else ""
