"""The kiosk's memory with the camera on, for every game: the UI process and the vision
process (recognition runs in its own process) reported apart and together (issue 19:
under 250 MB).

    xvfb-run -a -s "-screen 0 1280x800x24" python -m benchmarks memory     (part of `make bench`)

For each game a child process starts the kiosk as `companion kiosk` does (800x480, the
synthetic camera of that game at 15 frames/s, card recognition in its own process),
starts a game on the play screen and samples both processes twice a second for SECONDS
seconds. Reported per process, in MB: RSS (resident pages, shared libraries counted in
each process) and PSS (proportional: a page shared by the two processes counts half in
each, so the two PSS add up to what the pair really holds), at the end and at the most;
and the PSS of anonymous memory (the heap, arrays, Python objects: the process's own,
which unlike the libraries' share does not change with what else runs on the machine;
another process mapping cv2 took 7 MB off the vision process's PSS). The pair's total is
given all three ways. Ahyoheek has no cards: its camera stays off.

Results: benchmarks/results/memory.json and memory.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SECONDS = 12.0
#: Libraries worth knowing whether the UI process loaded.
HEAVY = frozenset({"cv2", "numpy", "vision", "PIL", "kivy", "gpiozero", "fpdf"})
BUDGET_MB = 250.0
TIMEOUT_S = 180.0
ROOT = Path(__file__).resolve().parent.parent


#: smaps_rollup's lines reported, by the names they get.
_ROLLUP = {"Rss": "rss_mb", "Pss": "pss_mb", "Pss_Anon": "anon_mb"}


def process_mb(pid: int | str = "self") -> dict[str, float]:
    """RSS, PSS and the PSS of anonymous memory of a process in MB (Linux; zeros where
    it cannot be read)."""
    values = dict.fromkeys(_ROLLUP.values(), 0.0)
    try:
        with open(f"/proc/{pid}/smaps_rollup", encoding="ascii") as f:
            for line in f:
                key, _, rest = line.partition(":")
                if key in _ROLLUP:
                    values[_ROLLUP[key]] = round(int(rest.split()[0]) / 1024, 1)
    except (OSError, ValueError):
        pass
    return values


def child(game: str, seconds: float, data_dir: Path, out: Path) -> int:
    from runtime.memory import tune_process

    tune_process()
    from kiosk.boot import configure

    configure((800, 480))
    from kivy.clock import Clock

    from companion.catalog import game_info
    from companion.storage import Store
    from kiosk.app import CompanionApp

    store = Store(str(data_dir / "bench.db"))
    app = CompanionApp(store, source="synthetic", panel="none", prefs_path=data_dir / "kiosk.json", seed=1)
    players = [f"P{i + 1}" for i in range(game_info(game).min_players)]
    result: dict[str, Any] = {"game": game, "error": "", "samples": []}
    state: dict[str, float] = {}

    def started(_dt: float) -> None:
        app.choose_game(game)
        if not app.start_game(players):
            result["error"] = f"the game did not start: {app.message}"
            app.stop()
            return
        state["give_up"] = time.monotonic() + 120
        Clock.schedule_interval(wait_for_camera, 0.2)

    def wait_for_camera(_dt: float) -> bool:
        """Sampling starts with the first frame (the vision process has built its templates)."""
        feed = app.feed
        if feed is not None and not feed.frames and time.monotonic() < state["give_up"]:
            return True
        state["until"] = time.monotonic() + seconds
        Clock.schedule_interval(sample, 0.5)
        return False

    def sample(_dt: float) -> bool:
        feed = app.feed
        pid = getattr(feed, "pid", None)
        ui = process_mb()
        vision = process_mb(pid) if pid else dict.fromkeys(_ROLLUP.values(), 0.0)
        result["samples"].append({"ui": ui, "vision": vision})
        if time.monotonic() < state["until"]:
            return True
        result.update(camera=app.camera_status, detail=app.camera_detail,
                      modules=sorted({m.split(".")[0] for m in sys.modules if m.split(".")[0] in HEAVY}),
                      frames=feed.frames if feed is not None else 0,
                      source=feed.config.source if feed is not None else "", vision_pid=pid)
        app.stop()
        return False

    app.bind(on_start=lambda *_: Clock.schedule_once(started, 0))
    try:
        app.run()
    finally:
        store.close()
        out.write_text(json.dumps(result))
    return 1 if result["error"] else 0


def measure(game: str, seconds: float = SECONDS) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-memory-") as tmp:
        out = Path(tmp) / "memory.json"
        env = {**os.environ, "KIVY_HOME": str(Path(tmp) / "kivy"), "KIVY_NO_ARGS": "1",
               "KIVY_NO_CONSOLELOG": "1", "PYTHONPATH": str(ROOT), "COMPANION_DATA_DIR": tmp}
        cmd = [sys.executable, "-m", "benchmarks.bench_memory", "--child", "--game", game,
               "--seconds", str(seconds), "--data", tmp, "--out", str(out)]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
        if done.returncode != 0 or not out.is_file():
            tail = "\n".join(done.stderr.strip().splitlines()[-15:])
            raise RuntimeError(f"the kiosk child failed for {game} (exit {done.returncode}):\n{tail}")
        raw = json.loads(out.read_text())
    samples = raw.pop("samples")
    last = samples[-1]
    summary: dict[str, Any] = {**raw}
    for part in ("ui", "vision"):
        summary[part] = {**last[part], "max_rss_mb": max(s[part]["rss_mb"] for s in samples),
                         "max_pss_mb": max(s[part]["pss_mb"] for s in samples)}
    summary["together"] = {
        "rss_mb": round(last["ui"]["rss_mb"] + last["vision"]["rss_mb"], 1),
        "pss_mb": round(last["ui"]["pss_mb"] + last["vision"]["pss_mb"], 1),
        "anon_mb": round(last["ui"].get("anon_mb", 0.0) + last["vision"].get("anon_mb", 0.0), 1),
        "max_pss_mb": round(max(s["ui"]["pss_mb"] + s["vision"]["pss_mb"] for s in samples), 1)}
    return summary


def main(seconds: float = SECONDS) -> None:
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("  skipped: no DISPLAY to open the kiosk on; run it under xvfb-run, as in\n"
              "  xvfb-run -a -s \"-screen 0 1280x800x24\" python -m benchmarks memory", flush=True)
        return
    from companion.catalog import game_names

    games = {}
    load_before = os.getloadavg()
    for game in game_names():
        m = measure(game, seconds)
        games[game] = m
        print(f"  {game}: camera {m['camera']} ({m['frames']} frames)", flush=True)
        for part in ("ui", "vision"):
            p = m[part]
            print(f"    {part:<8} RSS {p['rss_mb']:6.1f} MB (most {p['max_rss_mb']:6.1f})  PSS "
                  f"{p['pss_mb']:6.1f} MB (most {p['max_pss_mb']:6.1f})  anonymous {p['anon_mb']:6.1f} MB",
                  flush=True)
        t = m["together"]
        print(f"    together RSS {t['rss_mb']:6.1f} MB  PSS {t['pss_mb']:6.1f} MB "
              f"(most {t['max_pss_mb']:6.1f})  anonymous {t['anon_mb']:6.1f} MB; budget {BUDGET_MB:g} MB",
              flush=True)
    from benchmarks.common import RESULTS, save

    save("memory", {"window": "800x480", "camera_seconds": seconds, "budget_mb": BUDGET_MB,
                    "load_before": [round(v, 2) for v in load_before], "games": games})
    lines = ["# Kiosk memory with the camera on (`python -m benchmarks memory`)", "",
             f"Each game on the play screen, the synthetic camera at 15 frames/s, recognition in its own "
             f"process, sampled twice a second for {seconds:g} s. MB at the end of the run (and the most "
             f"seen). RSS counts shared libraries in each process; PSS shares them out, so the pair's PSS "
             f"is what the two hold together; anon is the PSS of their anonymous memory (their own, "
             f"whatever else runs: the libraries' share of PSS falls as other processes map them). "
             f"Budget: {BUDGET_MB:g} MB (PSS together). Load average before: "
             f"{', '.join(f'{v:.2f}' for v in load_before)}.", "",
             "| game | camera | UI RSS | UI PSS | UI anon | vision RSS | vision PSS | vision anon | "
             "together RSS | together PSS (most) | together anon |", "|---" * 11 + "|"]
    for game, m in games.items():
        ui, vi, t = m["ui"], m["vision"], m["together"]
        lines.append(f"| {game} | {m['camera']} | {ui['rss_mb']} | {ui['pss_mb']} | {ui['anon_mb']} | "
                     f"{vi['rss_mb']} | {vi['pss_mb']} | {vi['anon_mb']} | {t['rss_mb']} | {t['pss_mb']} "
                     f"({t['max_pss_mb']}) | {t['anon_mb']} |")
    (RESULTS / "memory.md").write_text("\n".join(lines) + "\n")
    print(f"saved {RESULTS / 'memory.md'}")


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--child", action="store_true")
    p.add_argument("--game", default="yokir")
    p.add_argument("--seconds", type=float, default=SECONDS)
    p.add_argument("--data", type=Path)
    p.add_argument("--out", type=Path)
    return p.parse_args(argv)


if __name__ == "__main__":
    args = _parse(sys.argv[1:])
    if args.child:
        sys.exit(child(args.game, args.seconds, args.data, args.out))
    main(args.seconds)
