"""Finding English left on a page shown in another language (docs/translations.md, "What is translated").

A word is English when it is a word of the catalogue's English messages (``messages.pot``) that the
language's own translations never use (so "Armageddon", "Buchholz" or "Rating", which the translations
keep, pass) and that is not a word of the event's data: the names of the event, its stages, rounds, teams
and players, the federation codes, the accounts and the staff users, read from the database (the
allow-list comes from the data, never from the pages). Text inside an element marked ``translate="no"``
(HTML's own attribute: hashes, stored audit values, code) is data too and is skipped, and so is an element
whose ``lang`` is another language than the page's (the language switcher names each language in its own
words), and an address (``/events/...``, ``https://...``).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from babel.messages.pofile import read_po

LOCALE = Path(__file__).resolve().parents[2] / "orchestrator" / "locale"
WORD = re.compile(r"[A-Za-z][A-Za-z’'-]*[A-Za-z]|[A-Za-z]")
# Attributes people read (docs/translations.md), and the scripts' texts (data-text-*).
READ_ATTRIBUTES = frozenset({"title", "aria-label", "placeholder", "alt", "label"})
SKIPPED_ELEMENTS = frozenset({"script", "style", "code", "pre", "kbd", "samp", "textarea"})
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def words(text: str) -> Iterator[str]:
    """The words of ``text`` written in ASCII letters, lower case (a word with another letter is not
    English)."""
    for found in WORD.finditer(text):
        start, end = found.span()
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if before.isalpha() or after.isalpha():  # part of a word with a letter beyond ASCII
            continue
        yield found.group(0).lower().strip("-'’")


def _message_words(texts: Iterable[str]) -> set[str]:
    found: set[str] = set()
    for text in texts:
        without_placeholders = re.sub(r"%\([a-z_0-9]+\)[sdifr]|\{\w+\}|%[sd]", " ", text)
        found.update(w for w in words(without_placeholders) if w)
    return found


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _strings(item)


def english_vocabulary() -> set[str]:
    """Every word of the catalogue's English messages."""
    with (LOCALE / "messages.pot").open("rb") as handle:
        catalog = read_po(handle)
    return _message_words(text for message in catalog if message.id for text in _strings(message.id))


def translated_vocabulary(language: str) -> set[str]:
    """Every word the language's translations use (words English shares with it, names it keeps)."""
    with (LOCALE / language / "LC_MESSAGES" / "messages.po").open("rb") as handle:
        catalog = read_po(handle, locale=language)
    return _message_words(
        _without_field(text)
        for message in catalog
        if message.id and message.string
        for text in _strings(message.string)
    )


def _without_field(text: str) -> str:
    """A message without the form field it starts with ("board: choose a board"): the field's name is
    the form's, the same in every language, not a word the language uses."""
    return re.sub(r"^[a-z_]+: ", "", text)


DATA_QUERIES = (
    "SELECT name, slug FROM event",
    "SELECT name, key FROM stage",
    "SELECT name, '' FROM round",
    "SELECT key, round_name FROM duel",
    "SELECT purpose, '' FROM lot",
    "SELECT name, federation FROM team",
    "SELECT name, account FROM player",
    "SELECT username, '' FROM user",
)


def data_vocabulary(database: Path) -> set[str]:
    """The words of the event's own data: names, codes, accounts, users (the allow-list)."""
    found: set[str] = set()
    with sqlite3.connect(database) as connection:
        for query in DATA_QUERIES:
            for row in connection.execute(query):
                for value in row:
                    if value:
                        found.update(words(str(value)))
                        found.update(words(re.sub(r"[_.]", " ", str(value))))
    return found


ADDRESS = re.compile(r"(?:https?://|/)\S*")


class _Text(HTMLParser):
    """The text a reader sees (and reads in attributes), without the parts marked ``translate="no"`` or
    in another language."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pieces: list[str] = []
        self.language = ""  # the page's <html lang>
        self._stack: list[bool] = []  # per open element: its content is skipped

    def _skipping(self) -> bool:
        return bool(self._stack) and self._stack[-1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "html":
            self.language = values.get("lang") or ""
        other_language = tag != "html" and bool(values.get("lang")) and values.get("lang") != self.language
        skip = (
            self._skipping() or tag in SKIPPED_ELEMENTS or values.get("translate") == "no" or other_language
        )
        if not skip:
            for name, value in attrs:
                if value and (name in READ_ATTRIBUTES or name.startswith("data-text-")):
                    self.pieces.append(value)
        if tag not in VOID_ELEMENTS:
            self._stack.append(skip)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID_ELEMENTS:
            self._stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID_ELEMENTS and self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._skipping() and data.strip():
            self.pieces.append(data)


def page_text(html: str) -> list[str]:
    """The pieces of text of a page a reader sees or hears."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    return [" ".join(ADDRESS.sub(" ", piece).split()) for piece in parser.pieces]


@dataclass(frozen=True)
class EnglishFinder:
    english: frozenset[str]  # English words that the language does not use and the data does not hold

    @classmethod
    def for_language(cls, language: str, data: set[str]) -> EnglishFinder:
        return cls(frozenset(english_vocabulary() - translated_vocabulary(language) - data))

    def english_in(self, html: str) -> list[str]:
        """Each piece of text with a word in English, with those words marked ``[word]``."""
        found = []
        for piece in page_text(html):
            hits = [w for w in words(piece) if w in self.english]
            if hits:
                found.append(f"{piece[:160]}  {sorted(set(hits))}")
        return found
