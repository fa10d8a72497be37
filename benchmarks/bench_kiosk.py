"""Kiosk benchmark: cold start to the home screen, and the kiosk's memory on the screens
that cost the most (the budget: start under 5 s, memory under 300 MB in all), for
Yokir and for Medieval Mastery (the largest deck).

    xvfb-run -a -s "-screen 0 1280x800x24" python -m benchmarks kiosk     (part of `make bench`)

The kiosk runs in a child process (Kivy allows one window per process, and memory must be
measured in a process that did nothing else), under the current DISPLAY; without one the
benchmark says so and skips. The child starts the way `companion kiosk` does, with a
throw-away database and settings, and reports, each as RSS and peak RSS (VmHWM) in MB:
  home        the home screen drawn once (with the cold-start time in seconds);
  play_off    a game on the play screen, the camera off ("none");
  play_camera the same game with the synthetic table and card recognition running for
              SECONDS seconds (RSS sampled twice a second: its last and largest value).
Results go to benchmarks/results/kiosk.json.
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

GAME = "yokir"
#: The default game, and the one with the largest deck (IDEAL, 130 cards): the
#: recognizer's templates grow with the deck.
GAMES = (GAME, "medieval-mastery")
SECONDS = 8.0
TIMEOUT_S = 120.0
MARK = "KIOSK-BENCH "  # the child's result lines start with this
ROOT = Path(__file__).resolve().parent.parent


def _status_mb(field: str) -> float:
    """A memory line of /proc/self/status (VmRSS, VmHWM) in MB; 0 where there is none."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def _memory() -> dict[str, float]:
    return {"rss_mb": _status_mb("VmRSS"), "peak_mb": _status_mb("VmHWM")}


def _report(phase: str, **values: Any) -> None:
    print(MARK + json.dumps({"phase": phase, **values}), flush=True)


def child(game: str, seconds: float, data_dir: Path) -> int:
    """Run the kiosk and report each phase on stdout (in the child process)."""
    from kiosk.boot import configure, tune_process

    tune_process()  # as `companion kiosk` does, before numpy, OpenCV and Kivy load

    configure((800, 480))
    from kivy.clock import Clock

    from companion.commands.kiosk import _process_age
    from companion.games import get_game
    from companion.storage import Store
    from kiosk.app import CompanionApp

    store = Store(str(data_dir / "bench.db"))
    app = CompanionApp(store, source="none", panel="none", prefs_path=data_dir / "kiosk.json", seed=1)
    players = [f"P{i + 1}" for i in range(get_game(game).min_players)]
    samples: list[float] = []
    state: dict[str, Any] = {"failed": ""}

    def fail(why: str) -> None:
        state["failed"] = why
        app.stop()

    def home_drawn(_dt: float) -> None:
        started = _process_age(time.monotonic())
        _report("home", cold_start_s=round(started, 2) if started is not None else None, **_memory())
        app.choose_game(game)
        if not app.start_game(players):
            fail(f"the {game} game did not start: {app.message}")
            return
        Clock.schedule_once(play_off, 1.0)

    def play_off(_dt: float) -> None:
        if app.root.current != "play":
            fail(f"the play screen is not shown ({app.root.current})")
            return
        _report("play_off", camera=app.camera_status, **_memory())
        app.camera_source = "synthetic"
        app.restart_camera()
        state["until"] = time.monotonic() + seconds
        Clock.schedule_interval(sample, 0.5)

    def sample(_dt: float) -> bool:
        samples.append(_status_mb("VmRSS"))
        if time.monotonic() < state["until"]:
            return True
        feed = app.feed
        frames = feed.frames if feed is not None else 0
        if not frames:
            fail(f"no camera frame in {seconds:g} s: {app.camera_status}, {app.camera_detail}")
            return False
        _report("play_camera", seconds=seconds, frames=frames, camera=app.camera_status,
                source=feed.config.source if feed is not None else "", max_rss_mb=max(samples),
                threads=len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 0,
                **_memory())
        app.stop()
        return False

    app.bind(on_start=lambda *_: Clock.schedule_once(lambda _dt: Clock.schedule_once(home_drawn, 0), 0))
    try:
        app.run()
    finally:
        store.close()
    if state["failed"]:
        print(f"kiosk benchmark: {state['failed']}", file=sys.stderr)
        return 1
    return 0


def measure(game: str = GAME, seconds: float = SECONDS) -> dict[str, Any]:
    """Run the child once and gather its phases (raises RuntimeError when it fails)."""
    with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as tmp:
        env = {**os.environ, "KIVY_HOME": str(Path(tmp) / "kivy"), "KIVY_NO_ARGS": "1",
               "KIVY_NO_CONSOLELOG": "1", "PYTHONPATH": str(ROOT)}
        cmd = [sys.executable, "-m", "benchmarks.bench_kiosk", "--child", "--game", game,
               "--seconds", str(seconds), "--data", tmp]
        done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    phases = {}
    for line in done.stdout.splitlines():
        if line.startswith(MARK):
            result = json.loads(line[len(MARK):])
            phases[result.pop("phase")] = result
    if done.returncode != 0 or set(phases) != {"home", "play_off", "play_camera"}:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"the kiosk child failed (exit {done.returncode}):\n{tail}")
    return phases


def main() -> None:
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("  skipped: no DISPLAY to open the kiosk on; run it under xvfb-run, as in\n"
              "  xvfb-run -a -s \"-screen 0 1280x800x24\" python -m benchmarks kiosk", flush=True)
        return
    results: dict[str, Any] = {}
    for game in GAMES:
        phases = measure(game)
        home, off, cam = phases["home"], phases["play_off"], phases["play_camera"]
        print(f"  {game}: cold start to home screen {home['cold_start_s']} s", flush=True)
        for name, p in (("home screen", home), ("play, camera off", off), ("play, synthetic camera", cam)):
            print(f"    {name:<24} RSS {p['rss_mb']:6.1f} MB  peak {p['peak_mb']:6.1f} MB", flush=True)
        print(f"    (camera: {cam['frames']} frames of {cam['source']} in {cam['seconds']:g} s, RSS at "
              f"most {cam['max_rss_mb']} MB while it ran, {cam['threads']} threads)", flush=True)
        results[game] = phases
    from benchmarks.common import save

    first = results[GAMES[0]]["home"]
    save("kiosk", {"window": "800x480", "camera_seconds": SECONDS, "budget_mb": 300,
                   "cold_start_s": first["cold_start_s"], "games": results})


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--child", action="store_true", help="run the kiosk and report (used by main())")
    p.add_argument("--game", default=GAME)
    p.add_argument("--seconds", type=float, default=SECONDS)
    p.add_argument("--data", type=Path, help="a directory for the child's database and settings")
    return p.parse_args(argv)


if __name__ == "__main__":
    args = _parse(sys.argv[1:])
    if args.child:
        with tempfile.TemporaryDirectory(prefix="bench-kiosk-") as _tmp:
            sys.exit(child(args.game, args.seconds, args.data or Path(_tmp)))
    main()
