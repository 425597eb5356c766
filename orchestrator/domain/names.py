"""What a name and a stored text may contain (docs/input-limits.md).

A name (team, player, event, stage, account, display name) is one line of printable text of bounded
length: a line break in a team name would write a forged record into a TRF-2026 file, and
control characters garble every page and export. Any stored text, names or not, may not hold what the
databases refuse: NUL (PostgreSQL text) and lone surrogates (not encodable as UTF-8).

Both checks are pure functions that return the problem as a sentence, or None.
"""

from __future__ import annotations

import unicodedata

MAX_TEAM_NAME = 60  # TRF record 310 shows 32 characters; the page and the column (120) allow more
MAX_PLAYER_NAME = 100
MAX_EVENT_NAME = 120
MAX_STAGE_NAME = 80
MAX_ACCOUNT_NAME = 80  # game-server account names are far shorter; the column's size
MAX_DISPLAY_NAME = 120

# Unicode categories a name may not contain: controls (C0, DEL, C1: tab, line feed, carriage return...),
# surrogates, line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Zl", "Zp"})
# Bidirectional embeddings, overrides and isolates: they reorder how the text around the name is shown.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def text_problem(value: str) -> str | None:
    """Why the databases cannot store ``value`` (a NUL or a lone surrogate), or None."""
    if "\x00" in value:
        return "contains a NUL character (U+0000)"
    for char in value:
        if "\ud800" <= char <= "\udfff":
            return f"contains a lone surrogate (U+{ord(char):04X}), which is not valid Unicode text"
    return None


def name_problem(value: str, *, what: str, limit: int) -> str | None:
    """Why ``value`` is not an acceptable name (empty, too long, a line break or control character), or None.

    ``what`` names the field in the sentence ("team name"); ``limit`` is its length in characters.
    """
    if not value.strip():
        return f"{what} is empty"
    if len(value) > limit:
        return f"{what} is {len(value)} characters long; at most {limit} are allowed"
    for char in value:
        if char in _BIDI_CONTROLS or unicodedata.category(char) in _REFUSED_CATEGORIES:
            kind = "a line break" if char in "\n\r\v\f\x85\u2028\u2029" else "a control character"
            return f"{what} contains {kind} (U+{ord(char):04X}); a name is one line of text"
    return None
