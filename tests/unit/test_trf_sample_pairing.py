"""FIDE TEC's sample `GrandMommysCup03.trf` paired round by round by our C.04.6 engine and by gacrux, FIDE's
reference engine, from the same rounds before: the rounds where its requested byes (record 240), its
acceleration (250) and its prohibited pairings (260) are in force come out the same (docs/trf.md,
"FIDE's sample"); and a requested bye weighed by [C2] as gacrux weighs it."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import pair_trf
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.model import RequestedBye, SwissState, SwissTeam, record_round
from orchestrator.domain.swiss.replay import state_before
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import read_team_trf

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "trf" / "GrandMommysCup03.trf"


@pytest.mark.parametrize("round_no", [1, 3, 5, 9])
def test_each_round_pairs_as_gacrux_pairs_it(round_no: int) -> None:
    """Rounds 1, 3 and 5: teams 1-25 accelerated, requested byes, prohibitions in 1 and 3. Round 9: the
    colours of rounds 5 and 7 come from line-ups whose first board is empty."""
    text = SAMPLE.read_bytes().decode()
    state, _ = read_team_trf(text)
    before = state_before(state, round_no)
    assert any(bye.round == round_no for bye in before.requested_byes)
    ours = pairer_for(before.pairing).pair_round(before, round_no)
    pairs = {frozenset((before.tpn(p.first), before.tpn(p.second))) for p in ours.pairings}
    theirs = pair_trf(text, round_no=round_no)
    assert pairs == {frozenset(pair) for pair in theirs.pairs if pair[1]}
    assert (None if ours.bye is None else before.tpn(ours.bye)) == next(
        (first for first, second in theirs.pairs if not second), None
    )


def test_a_requested_half_point_bye_does_not_bar_the_pairing_allocated_bye_as_in_gacrux() -> None:
    """Five teams: T5 asks for a half-point bye in round 1 and loses in round 2, T4 has round 2's
    pairing-allocated bye. Before round 3, T4 and T5 share the lowest score; [C2] bars T4 only."""
    teams = tuple(
        SwissTeam(f"T{i}", (2500 - 10 * i,) * 4, absent=frozenset({1} if i == 5 else ())) for i in range(1, 6)
    )
    state = SwissState(teams, 4, 5, requested_byes=(RequestedBye("T5", 1, False),))
    state = record_round(state, [MatchRecord(1, "T1", "T2", 6, 2), MatchRecord(1, "T3", "T4", 6, 2)])
    round_2 = [
        MatchRecord(2, "T1", "T3", 6, 2),
        MatchRecord(2, "T2", "T5", 6, 2),
        MatchRecord(2, "T4", None, 4, 0),
    ]
    text = export_trf(record_round(state, round_2))
    read, next_round = read_team_trf(text)
    assert read.points("T4")[0] == read.points("T5")[0] == 1
    ours = pairer_for(read.pairing).pair_round(read, next_round)
    assert ours.bye == "T5"
    assert (5, 0) in pair_trf(text, round_no=next_round).pairs
