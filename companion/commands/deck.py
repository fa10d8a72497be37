"""`companion deck render DECK --out DIR` and `companion deck pdf DECK -o FILE.pdf`: the card
art of a deck as one PNG per card, or as a print-and-play PDF."""

from __future__ import annotations

import argparse

from companion.catalog import GAMES
from companion.outputs import BadOutput, checked_folder, checked_output, write_output

PX_PER_MM_RANGE = (1.0, 40.0)
# Every game's deck has card art; a deck named unlike its game says whose it is.
ART_DECKS = ", ".join(g.deck if g.deck == g.name else f"{g.deck} ({g.name})"
                      for g in sorted(GAMES, key=lambda g: g.name) if g.deck)


def px_per_mm(text: str) -> float:
    """argparse type: a resolution in pixels per millimetre within PX_PER_MM_RANGE."""
    lo, hi = PX_PER_MM_RANGE
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of pixels per mm, got {text!r}") from None
    if not lo <= value <= hi:
        raise argparse.ArgumentTypeError(f"must be {lo:g} to {hi:g} pixels per mm, got {text!r}")
    return value


def render(args: argparse.Namespace) -> int:
    import cv2

    from companion.cards import get_deck
    from vision.art import deck_art, render_card

    art = deck_art(args.deck)
    deck = get_deck(art.deck)
    out = checked_folder(args.out)
    shape = None
    for card in deck:
        image = render_card(art.deck, card.code, args.px_per_mm)
        shape = image.shape
        ok, png = cv2.imencode(".png", image)
        if not ok:
            raise BadOutput(f"cannot encode {card.code} as a PNG")
        write_output(out / f"{card.code}.png", png.tobytes())
    assert shape is not None
    print(f"wrote {len(deck)} cards of the {deck.title} deck to {out}/ as CODE.png, "
          f"{shape[1]} x {shape[0]} px each ({args.px_per_mm:g} px/mm)")
    return 0


def pdf(args: argparse.Namespace) -> int:
    from vision.art import deck_art

    deck_art(args.deck)  # an unknown deck is named first
    output = checked_output(args.output, args.force)  # before the half minute of drawing
    from vision.printing import deck_pdf

    written = deck_pdf(args.deck, output, args.paper, args.px_per_mm)
    print(f"wrote {written.path}: {written.what}, {written.pages} pages")
    return 0


def register(cli) -> None:
    deck = cli.group("deck", "make, print and teach card decks")
    p = deck.add_parser("render", help="draw every card of a deck as CODE.png",
                        description="Draw every card of a deck, one PNG per card named by its code "
                                    "(the same drawings the camera matches against).")
    p.add_argument("deck", metavar="DECK", help=f"a deck with card art: {ART_DECKS}")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="folder to write into (created if missing; CODE.png files there are replaced)")
    p.add_argument("--px-per-mm", type=px_per_mm, default=10.0, metavar="N",
                   help="resolution, 1 to 40 pixels per mm (default 10, about 250 dpi)")
    p.set_defaults(func=render)
    p = deck.add_parser("pdf", help="a print-and-play PDF of a deck at true size",
                        description="Write a print-and-play PDF of a deck: cards at their true size with "
                                    "cutting guides, each sheet followed by its backs (mirrored for "
                                    "double-sided printing).")
    p.add_argument("deck", metavar="DECK", help=f"a deck with card art: {ART_DECKS}")
    p.add_argument("-o", "--output", required=True, metavar="FILE.pdf",
                   help="the PDF to write (an existing file only with --force)")
    p.add_argument("--force", action="store_true", help="replace FILE.pdf if it exists")
    p.add_argument("--paper", choices=("a4", "letter"), default="a4", help="paper size (default a4)")
    p.add_argument("--px-per-mm", type=px_per_mm, default=12.0, metavar="N",
                   help="resolution of the card pictures, 1 to 40 pixels per mm (default 12, about 300 dpi)")
    p.set_defaults(func=pdf)
