"""`companion demo`: a seeded bot game played again at the synthetic table, read by the
real recognition, refereed by the session and checked against the full-information game
(docs/demo.md).

    script.py    the truth: the bot game's steps, full and public
    stages.py    per game: where each move comes from, what lies face up on the table
    layout.py    the face-up cards by zone and slot
    camera.py    the synthetic camera and the real Recognizer behind it
    panel.py     the players' fingers on a gpiozero mock panel
    director.py  plays the truth at the table, move by move, and checks every event
    run.py       wires one demo together (`run_demo`)
    console.py   the headless output; record.py: --record; kiosk.py: the play screen
"""

from runtime.demo.director import DemoResult, Pace
from runtime.demo.errors import DemoError, DemoMismatch, DemoStopped
from runtime.demo.run import DEMO_GAMES, demo_games, run_demo

__all__ = ["DEMO_GAMES", "DemoError", "DemoMismatch", "DemoResult", "DemoStopped", "Pace",
           "demo_games", "run_demo"]
