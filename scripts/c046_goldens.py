"""Write tests/fixtures/swiss/c046-gacrux.json: small team Swiss events paired round by round by FIDE's
reference implementation of C.04.6 (gacrux, in process), with random results, late entries, absences,
withdrawals and bonus or penalty points (record 299). The unit test
``tests/unit/test_swiss_c046_goldens.py`` pairs each round again with our own engine (``C046Pairer``)
without starting gacrux, so the rules core's tests check our engine against the reference pairings.

    .venv/bin/python scripts/c046_goldens.py      # rewrites the fixture (deterministic: fixed seeds)
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.domain.swiss import (
    ScoreAdjustment,
    SwissPairingError,
    SwissState,
    add_late_entry,
    mark_absent,
    start_state,
    withdraw_team,
)
from tests.support.swiss_compare import field, play

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


def team_json(team: Any) -> dict[str, Any]:
    return {
        "name": team.name,
        "ratings": list(team.ratings),
        "joined": team.joined,
        "withdrawn": team.withdrawn,
        "absent": sorted(team.absent),
    }


def state_json(state: SwissState) -> dict[str, Any]:
    return {
        "teams": [team_json(t) for t in state.teams],
        "boards": state.boards,
        "rounds": state.rounds,
        "initial_colour": state.initial_colour,
        "primary": state.primary,
        "colour_model": state.colour_model,
        "adjustments": [[a.team, a.round, a.mp, a.gp, a.pairing] for a in state.adjustments],
        "matches": [[m.round, m.team_a, m.team_b, m.gp_a, m.gp_b, m.forfeit.value] for m in state.matches],
    }


def event(spec: tuple[int, int, int, int, int, int, str, str, int]) -> dict[str, Any]:
    size, rounds, seed, late, withdraw, absent, primary, model, adjust = spec
    gacrux = GacruxPairer()
    rng = random.Random(seed)
    teams = field(size, rng)
    state = start_state(teams, boards=4, rounds=rounds, initial_colour=rng.choice("WB"))
    state = replace(state, primary=primary, colour_model=model)
    pairings: dict[str, Any] = {}
    for round_no in range(1, rounds + 1):
        if adjust and round_no > adjust:
            team = rng.choice(teams).name
            extra = ScoreAdjustment(team, round_no - 1, rng.choice((-1, 1)), rng.choice((-2, 1)))
            state = replace(state, adjustments=(*state.adjustments, extra))
        if round_no == absent:
            state = mark_absent(state, teams[-1].name, round_no=absent)
        if round_no == late:
            state = add_late_entry(state, replace(field(1, rng)[0], name="Late entry", joined=late))
        if round_no == withdraw:
            state = withdraw_team(state, teams[0].name, from_round=withdraw)
        try:
            pairing = gacrux.pair_round(state, round_no)
        except SwissPairingError:
            pairings[str(round_no)] = None  # gacrux finds no legal pairing: the round is refused
            break
        pairings[str(round_no)] = {
            "pairs": [[p.board, p.first, p.second] for p in pairing.pairings],
            "bye": pairing.bye,
            "not_paired": list(pairing.not_paired),
        }
        state = play(state, pairing, rng)
    return {"spec": list(spec), "state": state_json(state), "pairings": pairings}


def main() -> None:
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps([event(spec) for spec in EVENTS], indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
