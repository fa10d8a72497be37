"""`companion recognize IMAGE...` and `companion watch SOURCE`: the cards in still images,
and what happens on the table live, from any frame source."""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from companion.cards import get_deck
from companion.errors import CompanionError
from companion.outputs import BadOutput, checked_folder, write_output


class BadImage(CompanionError, ValueError):
    """An image file that is missing or cannot be read."""


def _deck(name: str) -> str:
    """A deck name, learned decks included, resolved and checked."""
    from vision.learn import register_learned

    register_learned()
    return get_deck(name).name


def _out_path(folder: Path, stem: str, used: set[Path]) -> Path:
    path = folder / f"{stem}.png"
    n = 2
    while path in used:
        path = folder / f"{stem}-{n}.png"
        n += 1
    used.add(path)
    return path


def _annotate_dir(text: str | None) -> Path | None:
    return None if text is None else checked_folder(text)


def _write(path: Path, image) -> None:
    import cv2

    ok, png = cv2.imencode(".png", image)
    if not ok:
        raise BadOutput(f"cannot encode the annotated image {path}")
    write_output(path, png.tobytes())


def recognize(args: argparse.Namespace) -> int:
    from vision.annotate import annotate
    from vision.imageio import BadImageFile, read_image
    from vision.mats import get_mat
    from vision.pipeline import Recognizer
    from vision.templates import deck_templates

    for name in args.images:
        if not Path(name).is_file():
            raise BadImage(f"no such image: {name!r}")
    folder = _annotate_dir(args.annotate)  # before the templates are drawn
    deck = _deck(args.deck)
    mat = get_mat(args.game) if args.game else None
    templates = deck_templates(deck)
    used: set[Path] = set()
    for name in args.images:
        try:
            image = read_image(name)
        except BadImageFile as exc:  # worded as `watch file:` words it
            why = str(exc).removeprefix(f"{name}: ")
            raise BadImage(f"cannot read {name!r} as an image: {why}") from None
        result = Recognizer(deck, mat, templates=templates).see(image)
        known = [c for c in result.cards if c.code]
        unknown = [c for c in result.cards if not c.code]
        if args.json:
            print(json.dumps({"image": name, "cards": [c.to_json() for c in known],
                              "unknown": [c.to_json() for c in unknown]}))
        else:
            print(f"{name}: {len(known)} card{'s' * (len(known) != 1)}"
                  + (f", {len(unknown)} unknown" if unknown else ""))
            for c in known + unknown:
                corners = " ".join(f"({x:.0f},{y:.0f})" for x, y in c.corners_px)
                label = f"{c.code:<6} {c.confidence:4.2f}" if c.code else f"{'?':<6} {'':4}"
                print(f"  {label}  {corners}")
        if folder is not None:
            _write(_out_path(folder, Path(name).stem, used), annotate(image, result, mat))
        sys.stdout.flush()
    return 0


_ZONE_SEAT = re.compile(r"\bseat (\d+)\b")


def zone_words(zone: str | None) -> str:
    """A zone's name as people count seats: the mat's "seat 0 play" is "seat 1 play"."""
    return _ZONE_SEAT.sub(lambda m: f"seat {int(m.group(1)) + 1}", zone or "")


def _describe(o) -> str:
    where = zone_words(o.zone)
    if o.kind == "moved":
        where = f"{zone_words(o.from_zone)} -> {where}"
    frame = o.frame if o.frame is not None else "-"
    return f"{o.t:8.2f}s  frame {frame:>5}  {o.kind:<7} {o.code:<8} {where}  {o.confidence:.2f}"


def watch(args: argparse.Namespace) -> int:
    from vision.annotate import annotate
    from vision.mats import get_mat
    from vision.pipeline import Recognizer
    from vision.sources import lazy_frames, open_source

    mat = get_mat(args.game, args.players)
    deck = _deck(args.deck or mat.game)
    if args.frames is not None and args.frames < 1:
        raise BadImage(f"--frames must be 1 or more, got {args.frames}")
    recognizer = Recognizer(deck, None if args.no_mat else mat)
    folder = _annotate_dir(args.annotate)
    status = None
    count, t, start = 0, 0.0, time.perf_counter()

    def emit(observations) -> None:
        for o in observations:
            print(json.dumps(o.to_json()) if args.json else _describe(o))
        if observations:
            sys.stdout.flush()

    with open_source(args.source) as source:
        # a Pi camera's lores stream: the mat and the cards are found in it, and the main
        # stream is copied only when a card needs identifying
        for frame in lazy_frames(source):
            result = recognizer.process(frame.main, frame.t, frame.index, lores=frame.lores)
            t = frame.t
            count += 1
            if result.mat is not None and result.mat.status != status:
                status = result.mat.status
                print(f"{frame.t:8.2f}s  mat {status}", file=sys.stderr)
            emit(result.observations)
            if folder is not None:
                _write(folder / f"frame_{frame.index:06d}.png", annotate(frame.main(), result, mat))
            if args.frames is not None and count >= args.frames:
                break
    emit(recognizer.finish(t))
    took = time.perf_counter() - start
    on_table = ", ".join(c.code for c in recognizer.tracker.cards) or "nothing"
    print(f"{count} frames in {took:.1f} s ({count / took if took else 0:.1f} frames/s); "
          f"on the table: {on_table}", file=sys.stderr)
    return 0


def register(cli) -> None:
    p = cli.command("recognize", "find and identify the cards in still images", recognize)
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (photos or saved frames)")
    p.add_argument("--deck", required=True, metavar="DECK",
                   help="the deck on the table: a deck or game name, or a deck taught with `deck learn`")
    p.add_argument("--game", metavar="GAME",
                   help="the images show this game's printed mat: use its markers (default: no mat; "
                        "the cards give the scale)")
    p.add_argument("--json", action="store_true",
                   help='one line per image: {"image", "cards": [{"code", "corners", "confidence"}], '
                        '"unknown": [{"corners"}]}, corners in pixels clockwise from the card\'s top-left')
    p.add_argument("--annotate", metavar="DIR",
                   help="also write each image with the cards drawn on it to DIR")

    w = cli.command("watch", "print what happens on the table, live, from a camera or other frame source",
                    watch)
    w.add_argument("source", metavar="SOURCE",
                   help="picamera2, cv:N, file:PATH, dir:PATH or synthetic:GAME (options after ?, as "
                        "synthetic:yokir?degrade=hard&frames=300)")
    w.add_argument("--game", required=True, metavar="GAME",
                   help="the game whose mat and deck are on the table")
    w.add_argument("--players", type=int, metavar="N",
                   help="number of players (the game's usual if left out)")
    w.add_argument("--deck", metavar="DECK", help="the deck, if not the game's own (a learned deck, say)")
    w.add_argument("--no-mat", action="store_true", help="there is no printed mat: find the cards directly")
    w.add_argument("--json", action="store_true", help="print observations as JSON lines (docs/events.md)")
    w.add_argument("--frames", type=int, metavar="N", help="stop after N frames")
    w.add_argument("--annotate", metavar="DIR", help="write every frame with the cards drawn on it to DIR")
