"""Write tests/fixtures/swiss/c046-gacrux.json: small team Swiss events paired round by round by FIDE's
reference implementation of C.04.6 (gacrux, in process), with random results, late entries, absences,
withdrawals and bonus or penalty points (record 299). The unit test
``tests/unit/test_swiss_c046_goldens.py`` pairs each round again with our own engine (``C046Pairer``)
without starting gacrux, so the rules core's tests check our engine against the reference pairings.

    .venv/bin/python scripts/c046_goldens.py      # rewrites the fixture (deterministic: fixed seeds)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orchestrator.domain.swiss import RoundPairing
from tests.support.swiss_compare import gacrux_or_none, paired_event, pairing_json, state_json

OUT = Path(__file__).resolve().parents[1] / "tests/fixtures/swiss/c046-gacrux.json"

# (teams, rounds, seed, late, withdraw, absent, primary, colour model, adjust from): each event small
# enough to pair quickly, together reaching every article of the engine (byes, upfloaters from several
# scoregroups, the last two rounds, game points as the primary score, forfeits, record 299). Bonus and
# penalty points are given only before the last two rounds: earlier, a float after them is read by the
# article rather than as gacrux reads it (docs/swiss.md, "Where we follow the article rather than gacrux").
EVENTS = [
    (7, 5, 1, 3, 4, 2, "mp", "A", 0),
    (9, 7, 2, 0, 5, 3, "mp", "A", 5),
    (10, 6, 3, 2, 0, 4, "gp", "A", 0),
    (11, 9, 4, 4, 6, 2, "mp", "A", 7),
    (12, 7, 5, 3, 5, 0, "mp", "none", 0),
    (13, 8, 6, 0, 0, 0, "gp", "A", 6),
    (8, 7, 7, 0, 0, 0, "mp", "A", 0),
    (15, 9, 8, 5, 7, 3, "mp", "A", 0),
    (6, 5, 9, 0, 3, 0, "mp", "A", 0),
    (17, 7, 10, 3, 4, 2, "mp", "A", 5),
]


def event(spec: tuple[int, int, int, int, int, int, str, str, int]) -> dict[str, Any]:
    """One event paired by gacrux alone (tests/support/swiss_compare.py's ``paired_event``, the events
    the engine tests pair with both engines), with its final state and each round's pairing."""
    size, rounds, seed, late, withdraw, absent, primary, model, adjust = spec
    paired: dict[int, RoundPairing | None] = {}
    state = paired_event(
        size,
        rounds,
        seed,
        gacrux_or_none,
        late=late,
        withdraw=withdraw,
        absent=absent,
        paired=paired,
        primary=primary,
        colour_model=model,
        adjust=adjust,
    )
    pairings = {str(n): None if p is None else pairing_json(p) for n, p in paired.items()}
    return {"spec": list(spec), "state": state_json(state), "pairings": pairings}


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps([event(spec) for spec in EVENTS], indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
