"""The tie-break registry: each code once, with a label, a TRF-2026 code or none, and a computation."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.direct_encounter import DirectEncounterTrace, direct_encounter
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import (
    KNOWN_CODES,
    REGISTRY,
    Criterion,
    TieBreakError,
    build_event,
    parse_chain,
    tiebreak,
    value_of,
)
from orchestrator.domain.trf import TRF_CODES, trf_tiebreaks
from tests.unit.builders import rr

POOL = {"AB": "2.5-1.5", "CD": "2-2", "AC": "1-3", "BD": "3-1", "AD": "2-2", "BC": "2.5-1.5"}
CODES = [entry.code for entry in REGISTRY]


def test_each_code_is_registered_once_and_the_known_codes_are_the_registry() -> None:
    assert len(set(CODES)) == len(CODES)
    assert tuple(CODES) == KNOWN_CODES
    assert set(TRF_CODES) == set(CODES)


@pytest.mark.parametrize("code", CODES)
def test_every_code_has_a_heading_a_meaning_and_a_trf_code_or_an_explicit_none(code: str) -> None:
    entry = tiebreak(code)
    assert entry.short.strip() and entry.meaning.strip()
    assert entry.trf is None or entry.trf.strip()
    written, left_out = trf_tiebreaks(["GP", code]) if code == "MP" else trf_tiebreaks(["MP", code])
    if entry.trf is None:
        assert code in left_out
    else:
        assert entry.trf in written


@pytest.mark.parametrize("code", CODES)
def test_every_code_computes_on_a_small_pool(code: str) -> None:
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    entry = tiebreak(code)
    if entry.criterion is Criterion.VALUE:
        assert all(isinstance(value_of(history, team, code), Fraction) for team in "ABCD")
    elif entry.criterion is Criterion.GROUP:
        parts = direct_encounter(history, list("ABCD"), code, DirectEncounterTrace())
        assert sorted(team for part in parts for team in part) == list("ABCD")
    table = compute_standings(
        list("ABCD"), rr("ABCD", POOL), chain=[code], boards=4, lots=dict(A=1, B=2, C=3, D=4)
    )
    assert sorted(row.team for row in table.rows) == list("ABCD")


def test_an_unknown_code_is_refused_with_the_list_of_known_codes() -> None:
    with pytest.raises(TieBreakError) as refused:
        tiebreak("XYZ")
    assert all(code in str(refused.value) for code in CODES)
    with pytest.raises(TieBreakError) as refused_in_chain:
        parse_chain("MP, XYZ")
    assert "XYZ" in str(refused_in_chain.value) and all(code in str(refused_in_chain.value) for code in CODES)
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    with pytest.raises(TieBreakError, match="known: MP, GP"):
        value_of(history, "A", "XYZ")


def test_a_direct_encounter_code_is_not_a_value_and_a_value_code_is_not_a_direct_encounter() -> None:
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    with pytest.raises(TieBreakError, match="not a value tie-break"):
        value_of(history, "A", "DE:MP")
    with pytest.raises(TieBreakError, match="not a direct-encounter tie-break"):
        direct_encounter(history, list("AB"), "EMMSB", DirectEncounterTrace())
