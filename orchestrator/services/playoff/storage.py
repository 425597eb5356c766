"""How the play-off is laid out in tables that know nothing of it, and its default nomination time
(docs/knockout.md).

The Armageddon game is a one-board third match of its duel, in a round of its own numbered above every
match round; a duel's lots are found by their purpose, the domain's wording (docs/lots.md), so that anyone
can recompute them.
"""

from __future__ import annotations

from typing import Literal

ARMAGEDDON_LEG = 3  # the Armageddon game is stored as a one-board third match of the duel
ARMAGEDDON_ROUND_BASE = 1000  # its round number: 1000 + the duel's id (never clashes with match rounds)
NOMINATION_MINUTES = 15  # default time for the captains' nominations after the category lot
LotWhich = Literal["category", "colour"]


def lot_purpose(key: str, which: LotWhich) -> str:
    """The purpose (and lookup key) of a duel's Armageddon lot."""
    return (
        f"Armageddon category, duel {key}" if which == "category" else f"Armageddon colour choice, duel {key}"
    )
