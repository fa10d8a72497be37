"""Screenshots of every kiosk screen, for the README and docs/kiosk.md.

    python -m kiosk.screenshots [OUTDIR] [--update] [--size 800x480] [--source SOURCE]

Without `--update` the PNGs go to OUTDIR (default build/screenshots, which git ignores),
so a run changes no tracked file; `--update` writes them into docs/screenshots/ (`make
screenshots` and `make screenshots UPDATE=1` under a virtual display). It builds the app
with a temporary store and settings, plays real games through real sessions to get there
(nothing on a screenshot is mocked up), drives each screen to a typical state and writes
one PNG per screen, for 3 players (Yokir) and for 14 (Medieval Mastery): home, setup,
play (mid-trick, after a verdict), play-illegal (a revoke the referee caught, waiting for
confirm or undo), history, rules and settings (calibration by tapping the table's
corners). Labels whose text does not fit its box are listed on stderr (kiosk.fit).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

NAMES = ("Ann", "Bea", "Cleo", "Dev")
#: Fourteen names, for the largest table (Medieval Mastery).
NAMES_14 = ("Ann", "Bea", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jules", "Kai",
            "Lena", "Milo", "Nora")
SCREENS = ("home", "setup", "setup-14", "play", "play-14", "play-illegal", "history", "rules",
           "settings")
DEFAULT_OUT = Path("build") / "screenshots"
DOCS_OUT = Path("docs") / "screenshots"


def pump(frames: int = 4) -> None:
    """Run `frames` frames of Kivy's loop (clock, layout, drawing)."""
    from kivy.base import EventLoop

    for _ in range(frames):
        EventLoop.idle()


def save_window(path: Path) -> Path:
    """The window as it is drawn now, as a PNG at exactly `path`."""
    from kivy.core.window import Window
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels
    from PIL import Image

    pump(6)
    Window.dispatch("on_draw")
    w, h = (int(v) for v in Window.size)
    data = glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE)
    image = Image.frombytes("RGB", (w, h), data).transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path)
    return path


def wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Run the loop until `condition()` holds or `seconds` pass (the camera thread's
    first frame takes real time; everything else is clock frames)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return True
        pump(1)
    return condition()


def history_games(store: Any) -> None:
    """A few finished games played by bots through real sessions (for history, ratings)."""
    from companion.session import Session

    rng = random.Random(11)
    for game, names, options in (("ahyoheek", NAMES[:3], {}), ("yokir", NAMES[:3], {"target": 2}),
                                 ("ahyoheek", NAMES, {}), ("yonac", NAMES, {}),
                                 ("medieval-mastery", NAMES_14, {"rounds": 1})):
        session = Session.start(store, game, list(names), **options)
        while not session.view().over:
            session.step_bot(rng)


def mid_yokir_trick(app: Any) -> None:
    """Start Yokir on screen, deal, bid and play into the second trick by touch verbs."""
    app.choose_game("yokir")
    setup = app.screen("setup")
    setup.set_dealer(2)
    app.start_game(setup.seated(), dict(setup.values), setup.dealer)
    pump()
    app.deal()
    pump()
    guard = 0
    while guard < 40 and not (app.view.trick and len(app.view.trick) == 2 and app.view.last_trick):
        guard += 1
        menu = app.menu
        if menu.chance:
            app.deal()
        elif menu.choices:
            bids = [c for c in menu.choices if c.kind == "word"]
            if bids:
                pick = next((c for c in bids if c.label == "accept"), bids[-1])
                app.bid(pick.label)
            else:
                app.play_card(menu.choices[-1].label)
        pump(2)


def mid_medieval_trick(app: Any, names: tuple[str, ...] = NAMES_14) -> None:
    """Medieval Mastery for 14 on screen: dealt, and played into the first trick."""
    app.game_name = "medieval-mastery"
    app.start_game(list(names), {"rounds": 1})
    pump()
    guard = 0
    while guard < 60 and not (app.view.trick and len(app.view.trick) >= 5):
        guard += 1
        menu = app.menu
        if menu.chance:
            app.deal()
        else:
            cards = [c for c in menu.choices if c.kind == "card"]
            if cards:
                app.play_card(cards[0].label)
            elif menu.choices:
                app.choose(len(menu.choices) - 1)
            else:
                break
        pump(2)


def settle(app: Any) -> None:
    """Let a screen change finish (the screens' on_leave runs at its end)."""
    guard = 0
    while app.root.transition.is_active and guard < 200:
        guard += 1
        pump(1)


def a_revoke(app: Any) -> bool:
    """The camera reports a card the seat to act may not play (it must follow suit): the
    referee rejects it and waits for confirm or undo. True if one was found."""
    from companion.menus import Action

    state = app.session.state()
    seat = state.current_player()
    legal = {a.get("card") for a in state.legal_actions()}
    hand = (state.hands[seat] or []) if hasattr(state, "hands") else []
    wrong = [c for c in hand if c not in legal]
    if not wrong:
        return False
    app.session.act(Action.make("play", seat, card=wrong[0]), source="vision")
    pump(3)
    return True


def capture_all(app: Any, outdir: Path,
                after: Callable[[Path], None] | None = None) -> list[Path]:
    """Drive `app` (built and started) through every screen and write the PNGs;
    `after(path)` runs with each screen still drawn (the fit check)."""
    outdir = Path(outdir)
    written: list[Path] = []

    def shot(name: str) -> Path:
        path = save_window(outdir / f"{name}.png")
        if after is not None:
            after(path)
        return path

    history_games(app.store)
    app.refresh_players()
    app.go_home()
    written.append(shot("home"))

    app.choose_game("yonac")
    setup = app.screen("setup")
    setup.change_players(1)
    setup.set_option("jokers", True)
    written.append(shot("setup"))

    app.choose_game("medieval-mastery")
    setup = app.screen("setup")
    setup.change_players(14)
    for seat, name in enumerate(NAMES_14):
        setup.set_name(seat, name)
    written.append(shot("setup-14"))

    mid_yokir_trick(app)
    if app.camera_source != "none":
        wait_for(lambda: app.shot is not None and len(app.shot.annotations) > 0, 20.0)
    written.append(shot("play"))
    yokir = app.session

    mid_medieval_trick(app)
    if app.camera_source != "none":
        wait_for(lambda: app.shot is not None, 20.0)
    written.append(shot("play-14"))

    app.end_game()
    app.resume_game(yokir.game_id)
    pump()
    tries = 0
    while not a_revoke(app) and tries < 10:
        tries += 1
        menu = app.menu
        if menu.chance:
            app.deal()
        elif menu.choices:
            app.act(menu.choices[0].action)
        pump(2)
    written.append(shot("play-illegal"))
    app.undo()
    pump(2)

    app.open_history()
    written.append(shot("history"))

    app.open_rules("yokir")
    written.append(shot("rules"))

    app.open_settings()
    settings = app.screen("settings")
    settings.show_tab("calibrate")
    if app.camera_source != "none":
        wait_for(lambda: app.shot is not None, 10.0)
    for x, y in ((0.08, 0.1), (0.93, 0.08), (0.95, 0.9), (0.06, 0.92)):
        app.add_corner(x, y)
    written.append(shot("settings"))
    settings.show_tab("camera")
    app.go_home()
    settle(app)
    return written


def _size(text: str) -> tuple[int, int]:
    w, h = (int(v) for v in text.lower().split("x"))
    return w, h


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kiosk.screenshots",
                                     description="Screenshots of every kiosk screen.")
    parser.add_argument("outdir", type=Path, nargs="?", default=None,
                        help=f"where the PNGs go (default {DEFAULT_OUT}; {DOCS_OUT} with --update)")
    parser.add_argument("--update", action="store_true",
                        help=f"write them into {DOCS_OUT}, the pictures the docs show")
    parser.add_argument("--size", type=_size, default=(800, 480), metavar="WxH")
    parser.add_argument("--source", default="synthetic",
                        help="camera source for the play and settings screens (default synthetic)")
    args = parser.parse_args(argv)
    if args.update and args.outdir is not None:
        parser.error("give an OUTDIR or --update, not both")
    outdir = DOCS_OUT if args.update else (args.outdir or DEFAULT_OUT)
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("kiosk.screenshots: no display; run it under xvfb-run (make screenshots does)",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="kiosk-screenshots-") as tmp:
        os.environ["KIVY_HOME"] = str(Path(tmp) / "kivy")
        os.environ["COMPANION_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
        from kiosk.boot import configure

        configure(args.size)
        from kivy.base import EventLoop
        from kivy.core.window import Window

        from companion.storage import Store
        from kiosk.app import CompanionApp
        from kiosk.fit import overflows

        store = Store(Path(tmp) / "companion.db")
        app = CompanionApp(store, source=args.source, panel="keyboard", seed=5,
                           prefs_path=Path(tmp) / "data" / "kiosk.json")
        app._run_prepare()
        EventLoop.start()
        cut = 0
        try:
            pump()

            def check(path: Path) -> None:
                nonlocal cut
                for problem in overflows(Window):
                    cut += 1
                    print(f"{path.name}: text cut: {problem}", file=sys.stderr)

            for path in capture_all(app, outdir, check):
                print(path)
        finally:
            app.stop()
            store.close()
    if cut:
        print(f"kiosk.screenshots: {cut} labels do not fit their boxes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
