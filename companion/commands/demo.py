"""`companion demo`: the product end to end with nothing faked past the camera.

Bots play a seeded game; the synthetic table renders it frame by frame; the real
recognition reads the cards; the session referees them with the engine; the scores come
out and must equal the full-information game's (docs/demo.md). With a display the kiosk
shows the play screen while the demo plays at a watchable pace; headless (or with
--headless) every verdict is printed with a progress bar. A mismatch prints the first
event where recognition and truth parted and exits with status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from companion.commands._args import SEED_HELP, seed
from companion.games import get_game
from companion.outputs import checked_folder
from companion.session import Session
from companion.storage import Store
from companion.words import and_list
from runtime.demo.console import Console, scores_words, step_line
from runtime.demo.director import DemoResult, StepReport
from runtime.demo.errors import DemoMismatch
from runtime.demo.run import DEMO_GAMES, demo_game, run_demo


def run(args: argparse.Namespace) -> int:
    demo_game(args.game)  # an unknown game is a usage error before any window opens
    # the folder is checked before the demo plays, not found unwritable at its end
    record = checked_folder(args.record) if args.record is not None else None
    if args.club:  # club night (issue 21): the table publishes to a club (club/demo_link.py)
        from club.demo_link import run_on_club

        return run_on_club(args, record, run_headless)
    preset = getattr(args, "preset", None)
    as_json = bool(getattr(args, "json", False))
    if not args.headless and not as_json:
        from runtime.demo.kiosk import kiosk_available, run_kiosk

        if kiosk_available():
            return run_kiosk(args.game, args.seed, record=record, preset=preset)
    return run_headless(args.game, args.seed, record=record, preset=preset, as_json=as_json)


def run_headless(game: str, seed: int | None, *, record: Path | None = None,
                 console: Console | None = None, store: Store | None = None,
                 on_session: Callable[[Session], None] | None = None, preset: str | None = None,
                 as_json: bool = False) -> int:
    """Play the demo printing every verdict; 0 when the scores match, 1 when they part.
    `as_json`: count the events that differ from the truth instead of stopping at the
    first, and end with one JSON line (`DemoResult.summary`); 1 when any was wrong or
    the scores differ."""
    spec = demo_game(game)
    seed = spec.seed if seed is None else seed
    out = console or Console()
    title = get_game(spec.name).title
    names: list[str] = []

    def started(session: Session) -> None:
        names.extend(session.players)
        seats = ", ".join(f"seat {i} {n}" for i, n in enumerate(session.players, start=1))
        out.line(f"{title} demo, seed {seed}: bots play ({seats}); the synthetic table renders "
                 f"the cards, the recognition reads them, the referee judges.")
        if on_session is not None:
            on_session(session)

    def step(report: StepReport) -> None:
        text = report.verdict.text if report.verdict else ", ".join(report.words)
        out.line(step_line(report.step.number, report.source, text))

    begun = time.perf_counter()
    try:
        result = run_demo(spec.name, seed, on_step=step, on_progress=out.progress, on_session=started,
                          record=record, store=store, preset=preset, tolerant=as_json)
    except DemoMismatch as exc:
        out.close()
        print(f"DEMO FAILED: {exc}", file=sys.stderr)
        return 1
    out.close()
    good = result.match and result.wrong == 0
    if good:
        out.line(summary(result, names, time.perf_counter() - begun))
    else:
        out.line(f"{result.wrong} events differed from the truth (put right by touch); the scores "
                 f"{'match' if result.match else 'differ from'} the full-information game: "
                 f"{scores_words(names, result.scores)} against {scores_words(names, result.truth)}.")
    for text in result.differences:
        out.line(f"Wrong: {text}")
    if result.questions:
        out.line(f"The camera asked about {result.questions} cards; the players named them on the screen.")
    if record is not None:
        out.line(f"Recorded the annotated frames and events.jsonl in {record}")
    if as_json:
        out.line(json.dumps(result.summary()))
    return 0 if good else 1


def summary(result: DemoResult, names: list[str], seconds: float) -> str:
    """The closing lines: the scores, and what it took."""
    inputs = ", ".join(f"{n} {src}" for src, n in sorted(result.sources.items()))
    frames = (f"; {result.frames} frames rendered and recognised, {result.observations} "
              f"observations" if result.frames else "")
    who = and_list((f"seat {w + 1} ({names[w]})" for w in result.winners), empty="nobody")
    return (f"Scores match the full-information game: {scores_words(names, result.scores)}. "
            f"Winner: {who}.\n{result.events} events ({inputs}){frames}; {seconds:.1f} s.")


def register(cli) -> None:
    games = ", ".join(DEMO_GAMES)
    p = cli.command("demo", "watch a seeded bot game at the synthetic table: camera, recognition, "
                    "referee and scores, checked against the full-information game", run)
    p.add_argument("--game", default="yokir", metavar="GAME",
                   help=f"the game to play: {games} (default yokir)")
    p.add_argument("--seed", type=seed, default=None, metavar="S",
                   help=f"{SEED_HELP}, of the game (default: each game's demo seed)")
    p.add_argument("--headless", action="store_true",
                   help="print the game instead of opening the kiosk (the default without a display)")
    p.add_argument("--preset", default=None, choices=("easy", "typical", "hard"),
                   help="how rough the synthetic table's pictures are (default typical)")
    p.add_argument("--json", action="store_true",
                   help="headless; count events that differ from the truth instead of stopping, and "
                        'end with one JSON line: {"events", "camera", "asked", "wrong", "match"}')
    p.add_argument("--record", default=None, metavar="DIR",
                   help="write annotated frames and the event log (events.jsonl) into DIR")
    # club night (issue 21, docs/club.md): this table publishes to a club's broker
    p.add_argument("--club", default=None, metavar="HOST:PORT",
                   help="publish the game to a club's Mosquitto broker (headless; needs --table)")
    p.add_argument("--table", default=None, metavar="NAME", help="this table's name in the club")
    p.add_argument("--club-password-file", default=None, metavar="FILE",
                   help="this table's broker password (default: $COMPANION_CLUB_PASSWORD)")
