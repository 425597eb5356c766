"""Our C.04.6 engine against the pairings of FIDE's reference implementation (gacrux), without starting it:
``tests/fixtures/swiss/c046-gacrux.json`` holds ten small events (written by ``scripts/c046_goldens.py``)
paired round by round by gacrux, with the results each round got. Each round is paired again here from
the rounds before it and must be gacrux's pairing exactly: the same pairs, the same colours (art. 4), the
same board order and the same bye (art. 3.4), or refused when gacrux refuses it (art. 3.3.3).

The events cover late entries, an absence, a withdrawal, forfeits, bonus and penalty points (record 299),
game points as the primary score (art. 1.2.1), no colour preferences (colour model ``none``) and the last
two rounds (arts. 2.3.4 and 2.3.7)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from orchestrator.domain.scoring import MatchForfeit
from orchestrator.domain.swiss import SwissPairingError, SwissState
from orchestrator.domain.swiss.c046 import C046Pairer
from tests.support.swiss_compare import pairing_from_json, state_from_json

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures/swiss/c046-gacrux.json"
EVENTS: list[dict[str, Any]] = json.loads(FIXTURE.read_text())


def before(state: SwissState, round_no: int) -> SwissState:
    """The state as it stood before ``round_no`` was paired: the rounds before it, the points adjusted
    before it (record 299 of round r counts from round r + 1), the teams that had entered by then."""
    return replace(
        state,
        teams=tuple(t for t in state.teams if t.joined <= round_no),
        matches=tuple(m for m in state.matches if m.round < round_no),
        adjustments=tuple(a for a in state.adjustments if a.round < round_no),
    )


CASES = [
    pytest.param(event, int(rnd), id=f"{event['spec'][0]}-teams-seed-{event['spec'][2]}-round-{rnd}")
    for event in EVENTS
    for rnd in event["pairings"]
]


@pytest.mark.parametrize(("event", "round_no"), CASES)
def test_each_round_is_the_round_gacrux_paired(event: dict[str, Any], round_no: int) -> None:
    state = before(state_from_json(event["state"]), round_no)
    published = event["pairings"][str(round_no)]
    if published is None:
        with pytest.raises(SwissPairingError, match=r"art\. 3\.3\.3"):
            C046Pairer().pair_round(state, round_no)
    else:
        assert C046Pairer().pair_round(state, round_no) == pairing_from_json(round_no, published)


def test_the_events_reach_what_the_engine_decides() -> None:
    """The fixture is worth its rounds: byes, refused rounds, forfeits, adjustments, both primaries."""
    pairings = [p for event in EVENTS for p in event["pairings"].values()]
    assert any(p is None for p in pairings)
    assert sum(1 for p in pairings if p and p["bye"]) >= 10
    assert {event["state"]["primary"] for event in EVENTS} == {"mp", "gp"}
    assert any(event["state"]["adjustments"] for event in EVENTS)
    kinds = {row[5] for event in EVENTS for row in event["state"]["matches"]}
    assert {f.value for f in MatchForfeit} <= kinds
