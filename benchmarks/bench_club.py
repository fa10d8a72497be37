"""Club night under load: 50 simulated tables at 10 events a second each for a minute,
through a real Mosquitto on 127.0.0.1 to a real hub process (`companion club serve`).

Each table writes every event through the companion's own storage (`Store.write` and
`GameWriter.append`, full sync, the outbox filled by the write hook in the same
transaction) and publishes it with its own paho client and relay thread. The events
are plain "accepted" rows with a small payload (the engines are not what is measured
here: a bot move costs 1.5-5 ms of CPU, and 500 of them a second would measure the
engines, not the club). All tables run in this process; the hub runs in its own, so
its CPU is its own.

Measured:
- delivered rate: messages stored at the hub per second of the run;
- latency table -> scoreboard: from the table's commit (the outbox row's time) to the
  moment the scoreboard's event stream (/api/stream, read here as a browser would)
  first reports the hub's mark for that table at or past the row: p50, p95, worst;
- the hub's CPU: its process's user + system time over the run, as a share of one core;
- lost and doubled: the hub's database against every table's own, after the run
  (club.simulate.audit), and the copies the hub dropped.

    python -m benchmarks club               # 50 tables x 10/s x 60 s (the targets)
    python -m benchmarks.bench_club --tables 10 --seconds 10   # a short run
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from benchmarks.common import RESULTS
from club.broker import LocalBroker, free_port, wait_port
from club.hubstore import HubStore
from club.outbox import Outbox
from club.publisher import TablePublisher
from club.simulate import audit, wait_for
from club.table import ClubTable
from club.web import STREAM_EVERY_S
from companion.storage import Store

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Stream(threading.Thread):
    """Reads /api/stream as the scoreboard page does; notes when each mark was first seen."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.seen: list[tuple[float, dict[str, int]]] = []

    def run(self) -> None:
        with urllib.request.urlopen(self.url, timeout=600) as r:
            for line in r:
                if line.startswith(b"data: "):
                    self.seen.append((time.time(), json.loads(line[6:])["marks"]))


def _worker(first: int, count: int, broker: str, folder: str, rate: float, seconds: float, tables: int,
            ready, go, results) -> None:
    """Tables first+1 .. first+count in one process (each real table is its own Pi: one
    process for all 50 would measure Python's interpreter lock, not the club)."""
    host, port = broker.rsplit(":", 1)
    clubs = []
    for i in range(first + 1, first + count + 1):
        store = Store(Path(folder) / f"table-{i}.db")
        outbox = Outbox.attach(store)
        pub = TablePublisher(outbox, f"table-{i}", host, int(port), password=f"pw-{i}").start()
        clubs.append(ClubTable(f"table-{i}", store, outbox, pub))
    wait_for(lambda: all(c.publisher.connected.is_set() for c in clubs), 60, "every table connected")
    games = [c.store.create_game("yonac", {}, [f"P{i}a", f"P{i}b"]) for i, c in enumerate(clubs, first)]
    ready.put(first)
    start = go.get()
    written = [0] * count

    def load(k: int) -> None:
        club, game = clubs[k], games[k]
        n = 0
        while True:
            at = start + ((first + k) / tables + n) / rate  # tables spread evenly within a tick
            if at - start >= seconds:
                return
            time.sleep(max(0.0, at - time.time()))  # the load's own schedule, not a test wait
            with club.store.write(game) as tx:
                tx.append("accepted", {"type": "bench", "seat": n % 2, "n": n}, source="bench")
            n += 1
            written[k] = n

    cpu0 = time.process_time()
    threads = [threading.Thread(target=load, args=(k,), daemon=True) for k in range(count)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(seconds + 120)
    end = time.time()
    cpu = time.process_time() - cpu0
    drained = True
    try:
        wait_for(lambda: all(c.publisher.hub_mark >= c.outbox.last_seq() for c in clubs), 120, "drained")
    except TimeoutError:
        drained = False
    for c in clubs:
        c.close()
    results.put({"written": sum(written), "end": end, "cpu": cpu, "drained": drained,
                 "drained_at": time.time()})


def run(tables: int, rate: float, seconds: float, folder: Path, workers: int = 5) -> dict:
    users = {"hub": "hub-bench", **{f"table-{i}": f"pw-{i}" for i in range(1, tables + 1)}}
    broker = LocalBroker.make(folder / "broker", users, debug_log=False).start()
    http = free_port()
    env = {**os.environ, "COMPANION_HUB_PASSWORD": "hub-bench"}
    hub = subprocess.Popen([sys.executable, "-m", "companion", "club", "serve", "--broker",
                            broker.address, "--http", str(http), "--db", str(folder / "hub.db")], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_port("127.0.0.1", http, 30)
    stream = Stream(f"http://127.0.0.1:{http}/api/stream")
    stream.start()
    (folder / "tables").mkdir()
    ctx = multiprocessing.get_context("spawn")
    ready, go, results = ctx.Queue(), ctx.Queue(), ctx.Queue()
    workers = max(1, min(workers, tables))
    sizes = [tables // workers + (w < tables % workers) for w in range(workers)]
    procs, first = [], 0
    for size in sizes:
        procs.append(ctx.Process(target=_worker, args=(first, size, broker.address, str(folder / "tables"),
                                                       rate, seconds, tables, ready, go, results)))
        first += size
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=120)
    start = time.time() + 0.5
    hub_cpu0 = cpu_seconds(hub.pid)
    for _ in procs:
        go.put(start)
    reports = [results.get(timeout=seconds + 300) for _ in procs]
    load_end = max(r["end"] for r in reports)
    hub_cpu1 = cpu_seconds(hub.pid)
    for p in procs:
        p.join(30)
    drained_at = max(r["drained_at"] for r in reports)
    names = [f"table-{i}" for i in range(1, tables + 1)]
    stores = [(n, Store(folder / "tables" / f"{n}.db")) for n in names]
    outboxes = {n: Outbox(st.path) for n, st in stores}
    last = {n: outboxes[n].last_seq() for n in names}
    wait_for(lambda: bool(stream.seen) and all(stream.seen[-1][1].get(n, 0) >= last[n] for n in names),
             30, "the stream reporting the last marks")
    latencies = []
    for n in names:
        rows = [(r.seq, r.created) for r in outboxes[n].rows_after(0, 10**9)]
        i = 0
        for seen_at, marks in stream.seen:
            mark = marks.get(n, 0)
            while i < len(rows) and rows[i][0] <= mark:
                latencies.append(seen_at - rows[i][1])
                i += 1
    hub_api = json.load(urllib.request.urlopen(f"http://127.0.0.1:{http}/api/hub", timeout=10))
    hub.terminate()
    hub.wait(30)
    broker.stop()
    hub_store = HubStore(str(folder / "hub.db"))
    clubs = [ClubTable(n, st, outboxes[n], None) for n, st in stores]  # type: ignore[arg-type]
    result = audit(hub_store, clubs)
    total = sum(len(hub_store.message_keys(n)) for n in names)
    for c in clubs:
        c.outbox.close()
        c.store.close()
    hub_store.close()
    lat = sorted(latencies)
    written = sum(r["written"] for r in reports)
    span = load_end - start
    return {
        "tables": tables, "rate_per_table": rate, "seconds": seconds, "table_processes": len(procs),
        "events_written": written, "rows_published": total,
        "written_per_s": round(written / span, 1),
        "delivered_per_s": round(total / (drained_at - start), 1),
        "load_finished_late_s": round(max(0.0, load_end - (start + seconds)), 2),
        "drain_after_load_s": round(drained_at - load_end, 2),
        "drained": all(r["drained"] for r in reports),
        "latency_ms": {"n": len(lat), "p50": round(1000 * statistics.median(lat), 1),
                       "p95": round(1000 * lat[int(0.95 * (len(lat) - 1))], 1),
                       "worst": round(1000 * lat[-1], 1)},
        "hub_cpu_share_of_one_core": round((hub_cpu1 - hub_cpu0) / span, 3),
        "tables_processes_cpu_share": round(sum(r["cpu"] for r in reports) / span, 3),
        "load_average_1min_at_end": round(os.getloadavg()[0], 1),
        "lost": sum(len(v) for v in result.lost.values()),
        "unknown_at_hub": sum(len(v) for v in result.extra.values()),
        "event_counts_differ": len(result.wrong_counts),
        "copies_dropped_by_hub": hub_api["duplicates_dropped"],
        "refused_by_hub": hub_api["refused"],
    }


def report(r: dict, command: str) -> str:
    ok = (r["lost"] == 0 and r["unknown_at_hub"] == 0 and r["event_counts_differ"] == 0
          and r["latency_ms"]["p95"] < 1000)
    target = f"{r['tables'] * r['rate_per_table']:g}/s"
    doubled = r["unknown_at_hub"] + r["event_counts_differ"]
    tables_cpu = r["tables_processes_cpu_share"] * 100
    return f"""# Club night under load

Command: `{command}` on {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},
{time.strftime('%Y-%m-%d')}. {r['tables']} simulated tables, {r['rate_per_table']:g} events/s each,
{r['seconds']:g} s, through Mosquitto on 127.0.0.1 to the hub (`companion club serve`, its own process).
Every event is written through the companion's storage with its outbox row in the same
transaction (full sync) and published at QoS 1 by its table's own paho client; the tables
run in {r['table_processes']} processes (each real table is its own Pi).

| measure | value | target |
|---|---|---|
| events written by the tables | {r['events_written']} ({r['written_per_s']}/s) | {target} |
| messages stored at the hub (events + nothing else) | {r['rows_published']} | every one |
| delivered rate (stored at the hub / (run + drain)) | {r['delivered_per_s']}/s | |
| drain after the load stopped | {r['drain_after_load_s']} s | |
| latency table commit -> scoreboard stream, p50 | {r['latency_ms']['p50']} ms | |
| latency table commit -> scoreboard stream, p95 | {r['latency_ms']['p95']} ms | under 1000 ms |
| latency, worst | {r['latency_ms']['worst']} ms | |
| hub CPU (user + system, share of one core) | {r['hub_cpu_share_of_one_core'] * 100:.1f} % | |
| the tables' {r['table_processes']} processes' CPU (share of one core) | {tables_cpu:.1f} % | |
| load average (1 min) at the end, all of this machine's users | {r['load_average_1min_at_end']} | |
| lost (table rows not at the hub) | {r['lost']} | 0 |
| doubled (hub rows no table wrote, or event counts that differ) | {doubled} | 0 |
| copies the hub dropped by (table, seq) | {r['copies_dropped_by_hub']} | |

Targets met: {"yes" if ok else "NO"}.

The latency is measured where the scoreboard page gets it: the benchmark reads
`/api/stream` as the page's EventSource does (the stream looks for changes every
{STREAM_EVERY_S * 1000:g} ms) and takes, for every row, the first stream message whose mark for that table
covers it, minus the table's commit time (one clock: every process is on this machine).
The raw numbers are in club.json.
"""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--rate", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--out", default=None, help="write club.md and club.json here "
                                                    "(default: benchmarks/results for the full run)")
    args = parser.parse_args(argv if argv is not None else [])
    with tempfile.TemporaryDirectory(prefix="bench-club-") as tmp:
        r = run(args.tables, args.rate, args.seconds, Path(tmp))
    print(json.dumps(r, indent=2))
    full = (args.tables, args.rate, args.seconds) == (50, 10.0, 60.0)
    out = Path(args.out) if args.out else (RESULTS if full else None)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        command = ("python -m benchmarks club" if full
                   else "python -m benchmarks.bench_club " + " ".join(argv or []))
        (out / "club.md").write_text(report(r, command))
        (out / "club.json").write_text(json.dumps(r, indent=2) + "\n")
        print(f"saved {out / 'club.md'}")


if __name__ == "__main__":
    main(sys.argv[1:])
