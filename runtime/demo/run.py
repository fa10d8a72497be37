"""Wiring one demo: the true game, a session in a store, the stager, the camera or the
panel, and the console or the recorder listening (`run_demo`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion.adapters import register_all
from runtime.demo.director import Camera, DemoResult, Director, Pace, StepReport

if TYPE_CHECKING:
    from runtime.demo.camera import FrameSink
from companion.games import get_game, make_game
from companion.session import Session
from companion.storage import MEMORY, Store
from runtime.demo.errors import DemoError
from runtime.demo.script import Script
from runtime.demo.stages import STAGERS, Zones, stager_for
from runtime.table import start_game

NAMES = ("Ada", "Bo", "Cy", "Dee", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kim")


def seat_names(players: int) -> list[str]:
    """A name for each seat: the demo's names, then "Player 12" and on for the largest
    tables the catalog allows (Medieval Mastery seats 14)."""
    return [NAMES[i] if i < len(NAMES) else f"Player {i + 1}" for i in range(players)]


@dataclass(frozen=True)
class DemoGame:
    """A game the demo plays, with its default seed, options and players: chosen so that a
    whole game shows the game's moves (Yokir seed 23 has round-2 bidding) and still ends
    in well under a minute."""

    name: str
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    players: int | None = None


DEMO_GAMES: dict[str, DemoGame] = {g.name: g for g in (
    DemoGame("yokir", 23),
    DemoGame("yonac", 3),
    DemoGame("ahyoheek", 1),
    DemoGame("piktas", 21, players=4),
    # one round, whatever the engine's default: the demo must end in well under a minute
    DemoGame("medieval-mastery", 24, {"rounds": 1}, players=4),
)}


def degradations(preset: str) -> str:
    """The synthetic table's degradations for `companion demo --preset`."""
    from runtime.demo.camera import PRESETS

    if preset not in PRESETS:
        raise DemoError(f"the demo's presets are {', '.join(PRESETS)}, not {preset!r}")
    return PRESETS[preset]


def demo_games() -> tuple[str, ...]:
    """The games `companion demo --game` accepts."""
    return tuple(g for g in DEMO_GAMES if g in STAGERS)


def demo_game(name: str) -> DemoGame:
    key = get_game(name).name
    if key not in DEMO_GAMES or key not in STAGERS:
        raise DemoError(f"the demo plays {', '.join(demo_games())}, not {key}")
    return DEMO_GAMES[key]


def run_demo(game: str = "yokir", seed: int | None = None, *, options: dict[str, Any] | None = None,
             players: int | None = None, store: Store | None = None, pace: Pace | None = None,
             camera: Callable[..., Camera] | None = None,
             on_step: Callable[[StepReport], None] | None = None,
             on_progress: Callable[[int, int], None] | None = None,
             on_session: Callable[[Session], None] | None = None,
             record: Path | None = None, frames: FrameSink | None = None,
             stop: Callable[[], bool] | None = None, preset: str | None = None,
             tolerant: bool = False) -> DemoResult:
    """Play one seeded game through the table and check it against the full-information
    game; DemoMismatch at the first event where they part.

    `options` and `players` default to the demo's choice for the game; `camera(mat, deck,
    seed, capacities=..., sinks=...)` makes the camera (default: the synthetic table and
    the real recognition); `record` is a folder for annotated frames and the event logs;
    `frames` also gets every frame (the kiosk's camera view); `stop()` true ends the demo
    between two moves (DemoStopped). `preset`: the synthetic table's degradations
    (runtime.demo.camera.PRESETS: easy, typical, hard; default typical). `tolerant`:
    count the events that differ from the truth (`DemoResult.wrong`), put each right and
    play on, instead of raising DemoMismatch."""
    register_all()
    spec = demo_game(game)
    seed = spec.seed if seed is None else seed
    engine = make_game(spec.name, players or spec.players, **(spec.options if options is None else options))
    script = Script.of(engine, seed)
    own_store = store is None
    store = store if store is not None else Store(MEMORY)
    session = start_game(store, engine.name, seat_names(engine.players), **engine.options)
    if on_session:
        on_session(session)
    cam: Camera | None = None
    buttons = None
    recorder = None
    try:
        stager = stager_for(engine.name, Zones(()), engine.players)
        if stager.uses_camera:
            from runtime.demo.camera import SyntheticTable, mat_zones

            mat, zones = mat_zones(engine.name, engine.players)
            stager = stager_for(engine.name, zones, engine.players)
            if record is not None:
                from runtime.demo.record import Recorder

                recorder = Recorder(record, mat)
            capacities = {z.name: stager.capacity(z) for z in zones.all}
            make = camera or SyntheticTable
            sinks = [s for s in (recorder, frames) if s is not None]
            extra = {} if preset is None else {"degrade": degradations(preset)}
            cam = make(mat, str(engine.deck), seed, capacities=capacities, sinks=sinks, **extra)
            link = getattr(cam, "link", None)
            if callable(link):
                link(session)
        else:
            from runtime.demo.panel import MockPanel

            buttons = MockPanel(session)
        director = Director(script, session, stager, cam, buttons, pace or Pace(),
                            on_step=on_step, on_progress=on_progress, stop=stop, tolerant=tolerant)
        try:
            return director.run()
        finally:
            if record is not None:
                from runtime.demo.record import write_logs

                write_logs(record, store, session.game_id, script.log)
            if recorder is not None:
                recorder.close()
    finally:
        if buttons is not None:
            buttons.close()
        close = getattr(cam, "close", None)
        if callable(close):
            close()
        if own_store:
            store.close()
