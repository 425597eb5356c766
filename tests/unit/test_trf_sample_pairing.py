"""FIDE TEC's sample `GrandMommysCup03.trf` paired round by round by our C.04.6 engine and by gacrux, FIDE's
reference engine, from the same rounds before: the rounds where its requested byes (record 240), its
acceleration (250) and its prohibited pairings (260) are in force come out the same (docs/trf.md,
"FIDE's sample")."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import pair_trf
from orchestrator.domain.swiss.replay import state_before
from orchestrator.domain.swiss.systems import pairer_for
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
