"""`companion deck learn NAME --base DECK --from DIR | --from-camera`: teach the companion
the user's own deck, from one photo per card or card by card at the table."""

from __future__ import annotations

import argparse
import sys

from companion.errors import CompanionError


class LearnUsage(CompanionError, ValueError):
    """`deck learn` without a source of card images, or with both."""


def _print_report(report) -> None:
    n = len(report.learned)
    back = " and its back" if report.back else ""
    photos = f" from {report.photos} photos" if report.photos > n + report.back else ""
    print(f"learned {n} card{'s' * (n != 1)}{back}{photos} into the deck {report.deck!r} ({report.path})")
    if report.missing:
        print(f"missing ({len(report.missing)}): {', '.join(report.missing)}")
    if report.layout:
        r, s = report.layout["rank"], report.layout["suit"]
        print(f"this deck prints the rank at {r[0]:.1f},{r[1]:.1f} mm ({r[2]:.1f} x {r[3]:.1f}) and the "
              f"suit at {s[0]:.1f},{s[1]:.1f} mm ({s[2]:.1f} x {s[3]:.1f}) from the card's corner")
    if report.checked:
        print(f"checked: {report.confirmed} of {report.photos - report.back} teaching photos read back "
              f"as their own card")
    for line in report.alike:
        print(f"warning: {line}")
    if report.complete:
        print(f"the deck is complete: use it as --deck {report.deck}")


def learn(args: argparse.Namespace) -> int:
    from vision import learn as teach

    if bool(args.from_dir) == bool(args.from_camera):
        raise LearnUsage("say where the cards come from: --from DIR (one image per card) or --from-camera")
    sheet = None
    if args.sheet:
        from companion.outputs import checked_output

        sheet = checked_output(args.sheet, args.force)
    teach.register_learned()
    if args.from_dir:
        report = teach.learn_from_dir(args.name, args.base, args.from_dir)
    else:
        from vision.sources import open_source

        def say(text: str) -> None:
            print(text, flush=True)

        codes = [c.strip() for c in args.cards.split(",") if c.strip()] if args.cards else None
        with open_source(args.source) as source:
            report = teach.learn_from_frames(args.name, args.base, source, say=say, codes=codes)
        if not report.learned:
            print("no card was taken before the camera stopped", file=sys.stderr)
    _print_report(report)
    if sheet is not None:
        from companion.outputs import write_atomically

        write_atomically(sheet, teach.contact_sheet(report.deck))
        print(f"wrote the contact sheet {sheet}")
    if report.refused:
        for file, why in report.refused:
            print(f"refused {file}: {why}", file=sys.stderr)
        return 2
    return 0 if report.complete else 1


def register(cli) -> None:
    p = cli.group("deck", "make, print and teach card decks").add_parser(
        "learn", help="teach the companion your own deck from photos or at the table",
        description="Teach the companion your own deck: its templates come from your cards, so a deck "
                    "from any maker is recognised. Exit status 0 when every card of the deck has an "
                    "image, 1 when some are still missing (they are listed; teach them later, the "
                    "deck keeps what it has), 2 when a photo was refused (nothing is taken from it).")
    p.add_argument("name", metavar="NAME", help="the new deck's name (letters, digits, - and _)")
    p.add_argument("--base", default="standard", metavar="DECK",
                   help="the deck whose cards these are: its codes and card size (default standard)")
    p.add_argument("--from", dest="from_dir", metavar="DIR",
                   help="a folder with one image per card, named by code or name (AS.jpg, "
                        "'queen of hearts.png'), more of one card numbered (AS-2.jpg), any size, the "
                        "card alone anywhere in the picture; and back.jpg, the back, so that "
                        "face-down cards are never read. Each photo is checked; one that does not "
                        "show one whole card with its corner index is refused (exit status 2)")
    p.add_argument("--from-camera", action="store_true",
                   help="show the cards one by one to the camera, as the prompts ask")
    p.add_argument("--source", default="picamera2", metavar="SOURCE",
                   help="the camera for --from-camera (default picamera2; cv:0 for a USB camera)")
    p.add_argument("--cards", metavar="CODES", help="with --from-camera: only these cards, comma-separated")
    p.add_argument("--sheet", metavar="FILE.png",
                   help="write a contact sheet of every face learned, rank and suit boxes outlined")
    p.add_argument("--force", action="store_true", help="with --sheet: replace an existing file")
    p.set_defaults(func=learn)
