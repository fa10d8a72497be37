"""Teaching the companion a deck whose faces differ from the project's art: one photo per
card, then `vision.learn` makes the templates (deck "my-DECK", read instead of DECK).

`DeckTeaching` is the state of one teaching run, with no toolkit: the table asks for each
card in turn, `capture(image)` writes the camera's full frame as that card's photo, and
`finish()` learns the photos off the caller's thread. The outcome comes back through
`done(outcome)` on the learning thread; the table hands it to its UI thread.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.cards import get_deck
from companion.errors import CompanionError


@dataclass(frozen=True)
class Learned:
    """What a teaching run ended with: the words for the screen, whether a deck was
    learned, the contact sheet's path ("" when none), the deck and the learned name."""

    text: str
    ok: bool
    sheet: str
    deck: str
    name: str


class DeckTeaching:
    """One run: `deck` is taught as "my-DECK", its photos kept in `folder`."""

    def __init__(self, deck: str, folder: Path) -> None:
        self.codes = list(get_deck(deck).codes)  # CompanionError for a deck that does not exist
        self.deck = deck
        self.name = f"my-{deck}"
        self.folder = Path(folder) / self.name
        self.index = 0
        self.saved = 0
        self.learning = False
        self.ended = False

    def state(self) -> dict[str, Any]:
        """The run as the settings screen reads it."""
        return {"deck": self.deck, "name": self.name, "codes": list(self.codes), "index": self.index,
                "folder": str(self.folder), "saved": self.saved, "learning": self.learning}

    @property
    def code(self) -> str:
        """The card asked for now."""
        return self.codes[self.index]

    def capture(self, image: Any) -> None:
        """Save `image` (a BGR frame) as the photo of the card asked for (OSError when it
        cannot be written)."""
        import cv2

        path = self.folder / f"{self.code}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        if not cv2.imwrite(str(path), image):
            raise OSError(f"cannot write {path}")
        self.saved += 1

    def skip(self) -> bool:
        """On to the next card; False when that was the last one (the run should end)."""
        if self.index + 1 >= len(self.codes):
            return False
        self.index += 1
        return True

    def finish(self, done: Callable[[Learned], None], *, background: bool = True) -> bool:
        """Learn the photos taken (on a thread unless `background` is False) and call
        `done` with the outcome; False, and no call, when no photo was taken."""
        self.ended = True
        if not self.saved:
            return False
        self.learning = True
        if background:
            threading.Thread(target=lambda: done(self.learn()), name="teach a deck", daemon=True).start()
        else:
            done(self.learn())
        return True

    def learn(self) -> Learned:
        """Build the learned deck from the photos, and its contact sheet."""
        try:
            from vision import learn

            report = learn.learn_from_dir(self.name, self.deck, self.folder)
            text = (f"Learned {len(report.learned)} cards as {report.deck}"
                    + (f"; {len(report.missing)} still missing" if report.missing else "")
                    + (f"; {len(report.refused)} photos refused" if report.refused else "")
                    + "".join(f"; {a}" for a in report.alike[:2]))
            return Learned(text, True, _write_sheet(learn, report.deck), self.deck, self.name)
        except (ImportError, CompanionError, OSError) as exc:
            return Learned(f"Nothing learned: {exc}", False, "", self.deck, self.name)


def _write_sheet(learn: Any, deck: str) -> str:
    """The contact sheet of what was learned, for the teaching screen to show (a new name
    each time: a screen may keep images by name)."""
    from companion.outputs import write_atomically

    folder = learn.decks_dir() / deck
    for old in folder.glob("sheet-*.png"):
        old.unlink(missing_ok=True)
    path = folder / f"sheet-{time.time_ns()}.png"
    write_atomically(path, learn.contact_sheet(deck))
    return str(path)
