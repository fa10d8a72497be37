"""Words for the screen: seat numbers as names, and the rules pages as blocks of Kivy markup.

Pure Python (no Kivy), so it is tested without a display. Nothing here decides anything
about a game: it only rewords what the engines and docs/games already say.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.words import render, sentences
from kiosk import theme

_SEATS = re.compile(r"\b([Ss])eats? (\d+(?:(?:, | and | or )\d+)*)\b")
_NUMBER = re.compile(r"\d+")


def name_seats(text: str, players: Sequence[str]) -> str:
    """Engine words name seats by number as people count them ("seat 1 wins" is the
    first seat, "seats 1 and 3"; companion.words); players know their names, so put
    them in. A number that is no seat is left as it was."""
    if not text or not players:
        return text

    def one(m: re.Match[str]) -> str:
        def name(n: re.Match[str]) -> str:
            return players[int(n.group()) - 1]
        numbers = [int(n) for n in _NUMBER.findall(m.group(2))]
        if any(not 1 <= n <= len(players) for n in numbers):
            return m.group()
        return _NUMBER.sub(name, m.group(2))

    return _SEATS.sub(one, text)


def seat_namer(players: Sequence[str]):
    """Names for seat indices (0 = the first seat) in words as data: the players'."""
    def seat_name(index: int) -> str:
        return players[index] if 0 <= index < len(players) else f"seat {index + 1}"
    return seat_name


def words_text(words: Any, players: Sequence[str], text: str = "") -> str:
    """Words as data (companion.words.Words: the view's prompts, its facts) with the
    players' names; `text`, reworded, when a view made without them has none."""
    said = render(words, seat_namer(players)) if words is not None else ""
    return said or name_seats(text, players)


def verdict_words(verdict: Any, players: Sequence[str]) -> str:
    """A verdict's sentences with the players' names: from its words as data when the
    session gives them (companion.words.render), else its text reworded."""
    words = getattr(verdict, "words", ())
    if words:
        return sentences(words, seat_namer(players))
    return name_seats(verdict.text, players)


def escape(text: str) -> str:
    """Text made safe for a Kivy label with markup on."""
    return text.replace("&", "&amp;").replace("[", "&bl;").replace("]", "&br;")


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, cut at a word with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "\u2026"


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z\u00A7(])")
#: Sentences of the engine's "what next" that the buttons already show.
_SHOWN_BY_BUTTONS = re.compile(r"^(Legal|Legal plays|Playable|May play)\b", re.IGNORECASE)


def brief(text: str, limit: int = 110) -> str:
    """The engine's "what next" for the line under the turn: whole sentences only (never
    cut mid-sentence), as many as fit in `limit` characters, leaving out the list of
    legal cards the buttons below already show. The first sentence is kept whatever its
    length (the label wraps it)."""
    sentences = [s for s in _SENTENCE.split(" ".join(text.split())) if s]
    kept: list[str] = []
    for sentence in sentences:
        if kept and _SHOWN_BY_BUTTONS.match(sentence):
            continue
        if kept and len(" ".join([*kept, sentence])) > limit:
            break
        kept.append(sentence)
    return " ".join(kept)


# -- the rules pages (docs/games/*.md) ----------------------------------------------------

# Sections for developers, not players: the rules screen leaves them out.
SKIPPED_SECTIONS = frozenset({"events", "command line", "speed", "the bot",
                              "checked against a brute-force reference",
                              "the best tableau, and how fast"})

# A file of the project, written as code or bare: rules/yokir.txt, `docs/cards.md`, DESIGN.md.
_PATH = r"`?(?:[\w.*-]+/)*[\w.*-]+\.(?:md|txt|py|json)`?|`(?:[\w.-]+/)+[\w.*-]*`"
_PATH_ASIDE = re.compile(rf"\s*\((?:see |in |from )?(?:{_PATH})(?:(?:,| and| or) (?:{_PATH}))*\)")
_PATH_WORD = re.compile(_PATH)
#: What a player calls the files the pages point to.
_FILE_WORDS = (("RULINGS", "the rulings"), ("rules/", "the original rules"),
               ("cards.md", "the card list"), ("events", "the game's record"))


def _file_word(m: re.Match[str]) -> str:
    path = m.group().strip("`")
    return next((word for key, word in _FILE_WORDS if key in path), "the companion's notes")


def for_players(line: str) -> str:
    """A line of a rules page without the project's file paths: an aside that only names
    a file goes, and a file named in a sentence becomes words ("the rulings")."""
    line = _PATH_ASIDE.sub("", line)
    return _PATH_WORD.sub(_file_word, line)


@dataclass(frozen=True)
class Block:
    """One paragraph-sized piece of a rules page. kind: "h1", "h2", "h3", "p", "li" (a
    list item; `level` its indent), "row" (a table row written as "Header: cell" pairs)
    or "code". `markup` is Kivy markup."""

    kind: str
    markup: str
    level: int = 0
    number: str = ""  # "3." for a numbered list item, "" for a bullet


def inline(text: str) -> str:
    """Markdown inline marks to Kivy markup: **bold**, *italic*, `code`, [link](url)."""
    out = []
    for i, part in enumerate(re.split(r"(`[^`]*`)", text)):
        if i % 2:
            out.append(f"[font={theme.MONO_FONT}]{escape(part[1:-1])}[/font]")
            continue
        part = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", part)
        part = escape(part)
        part = re.sub(r"\*\*(.+?)\*\*", r"[b]\1[/b]", part)
        part = re.sub(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])", r"[i]\1[/i]", part)
        part = re.sub(r"(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)", r"[i]\1[/i]", part)
        out.append(part)
    return "".join(out)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@dataclass
class _Reader:
    blocks: list[Block] = field(default_factory=list)
    para: list[str] = field(default_factory=list)
    item: tuple[int, str, list[str]] | None = None  # level, number, lines
    header: list[str] | None = None
    skipping: int | None = None  # heading level of a skipped section

    def flush(self) -> None:
        if self.para:
            self.blocks.append(Block("p", inline(" ".join(self.para))))
            self.para = []
        if self.item:
            level, number, lines = self.item
            self.blocks.append(Block("li", inline(" ".join(lines)), level, number))
            self.item = None


def rule_blocks(markdown: str) -> list[Block]:
    """A docs/games page as blocks for the rules screen, for players: no sections for
    developers, no file paths. Tables become one block per row ("Card: Ace of Spades
    AS. What it does: ..."), which reads on a narrow screen."""
    r = _Reader()
    in_code = False
    for raw in markdown.splitlines():
        line = raw.rstrip() if in_code else for_players(raw.rstrip())
        heading = re.match(r"^(#{1,6})\s+(.*)$", line)
        if heading and not in_code:
            level = len(heading.group(1))
            if r.skipping is not None and level > r.skipping:
                continue
            r.flush()
            r.header = None
            r.skipping = level if heading.group(2).strip().lower() in SKIPPED_SECTIONS else None
            if r.skipping is None:
                r.blocks.append(Block(f"h{min(level, 3)}", inline(heading.group(2))))
            continue
        if r.skipping is not None:
            continue
        if line.strip().startswith("```"):
            r.flush()
            in_code = not in_code
            continue
        if in_code or (line.startswith("    ") and not r.item and not r.para):
            r.blocks.append(Block("code", f"[font={theme.MONO_FONT}]{escape(line.strip())}[/font]"))
            continue
        if line.strip().startswith("|"):
            r.flush()
            cells = _cells(line)
            if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
                continue
            if r.header is None:
                r.header = cells
                continue
            pairs = [f"[b]{inline(h)}:[/b] {inline(c)}" if h else inline(c)
                     for h, c in zip(r.header, cells, strict=False) if c]
            r.blocks.append(Block("row", ". ".join(pairs)))
            continue
        r.header = None
        item = re.match(r"^(\s*)([-*+]|\d+[.)])\s+(.*)$", line)
        if item:
            r.flush()
            number = item.group(2) if item.group(2)[0].isdigit() else ""
            r.item = (len(item.group(1)) // 2, number, [item.group(3)])
            continue
        if not line.strip():
            r.flush()
            continue
        if r.item:
            r.item[2].append(line.strip())
        else:
            r.para.append(line.strip())
    r.flush()
    return r.blocks


def docs_dir() -> Path:
    """docs/games of the source tree (the kiosk runs from a checkout, as install-pi makes)."""
    return Path(__file__).resolve().parent.parent / "docs" / "games"


def rules_page(game_name: str, folder: Path | None = None) -> str | None:
    """The text of docs/games/GAME.md, or None when the game has no page yet."""
    path = (folder or docs_dir()) / f"{game_name}.md"
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return None


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def players_span(low: int, high: int) -> str:
    """'3 players', '2 to 5 players'."""
    return plural(low, "player") if low == high else f"{low} to {high} players"
