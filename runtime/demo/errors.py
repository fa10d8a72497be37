"""The demo's errors."""

from __future__ import annotations

import json
from typing import Any

from companion.errors import CompanionError


class DemoError(CompanionError, RuntimeError):
    """The demo cannot run (a game it cannot stage, a mat without the zones it needs)."""


class DemoStopped(DemoError):
    """The demo was asked to stop before the game ended (its window was closed)."""


class DemoMismatch(DemoError):
    """What the session logged from the camera, the touches and the buttons is not the
    true game: raised at the first event where they part, naming it."""

    def __init__(self, number: int, total: int, expected: dict[str, Any] | None,
                 seen: dict[str, Any] | None, detail: str = "", *, expected_words: str = "",
                 seen_words: str = "") -> None:
        self.number = number
        self.total = total
        self.expected = expected
        self.seen = seen
        self.detail = detail
        want = (f"{expected_words} {_json(expected)}" if expected_words else _json(expected)) \
            if expected is not None else "the end of the game"
        got = (f"{seen_words} {_json(seen)}" if seen_words else _json(seen)) \
            if seen is not None else "nothing"
        text = (f"recognition and truth parted at event {number} of {total}: expected {want}, "
                f"the session logged {got}")
        super().__init__(text + (f" ({detail})" if detail else ""))


def _json(obj: Any) -> str:
    return json.dumps(obj, separators=(", ", ": "), ensure_ascii=False)
