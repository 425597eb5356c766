"""The tie-break registry: each code once, with a label, a TRF-2026 code or none, and a computation."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from orchestrator.domain.direct_encounter import DirectEncounterTrace, direct_encounter
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import (
    KNOWN_CODES,
    REGISTRY,
    Criterion,
    TieBreakError,
    all_values,
    build_event,
    normalise_code,
    parse_chain,
    primary_score,
    tiebreak,
    value_of,
)
from orchestrator.domain.trf.records import TRF_CODES, trf_tiebreaks
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


# --- spelling, presets and the primary score ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [
        (" e m m s b ", "EMMSB"),
        ("bh:mp_c1", "BH:MP/C1"),
        ("EMGSB-c1", "EMGSB/C1"),
        ("oly_tb1", "OLY-TB1"),
        ("tb3", "OLY-TB3"),
        ("mpvgp", "MPvGP"),
        ("de:gp", "DE:GP"),
        ("lots", "LOT"),
        ("bh-c1", "BH:MP/C1"),
        ("SB", None),
        ("BH-MP-C1", None),  # "BH-MP/C1" is no code: Buchholz is written BH:MP
    ],
)
def test_a_code_is_read_whatever_its_case_spaces_or_dashes(text: str, code: str | None) -> None:
    assert normalise_code(text) == code


def test_an_unknown_code_is_refused_with_the_known_codes_and_presets_in_order() -> None:
    message = (
        f"unknown tie-break code(s): XYZ, SB-C9; known: {', '.join(CODES)}; "
        "presets: online-2020, olympiad-2026, olympiad-2014, fide-team-swiss"
    )
    with pytest.raises(TieBreakError, match=f"^{re.escape(message)}$"):
        parse_chain("MP, XYZ, GP, SB-C9")
    with pytest.raises(TieBreakError, match=r"^unknown tie-break code 'XYZ'; known: MP, GP, DE:MP, "):
        tiebreak("XYZ")


def test_a_chain_is_refused_when_empty_or_when_a_value_code_repeats() -> None:
    with pytest.raises(
        TieBreakError, match=r"^empty tie-break list: give a preset name or comma-separated codes$"
    ):
        parse_chain([" ", ""])
    with pytest.raises(TieBreakError, match=r"^tie-break code\(s\) listed twice: GP, MP$"):
        parse_chain(["mp", "GP", "DE", "gpts", "pts", "DE"])


def test_a_one_item_list_may_hold_a_code_or_a_preset_name() -> None:
    assert parse_chain(["bh"]) == ("BH:MP",)
    assert parse_chain([" fide-team-swiss "]) == ("MP", "EDE", "EMGSB/C1", "BH:MP/C1", "MPvGP")
    assert parse_chain(("EDE", "MP")) == ("EDE", "MP")


@pytest.mark.parametrize(
    ("chain", "primary"),
    [(("MP", "GP"), "MP"), (("EGGSB", "GP", "MP"), "GP"), (("DE:GP", "LOT"), "MP"), ((), "MP")],
)
def test_the_primary_score_is_the_first_of_mp_and_gp_in_the_chain(
    chain: tuple[str, ...], primary: str
) -> None:
    assert primary_score(chain) == primary


def test_mpvgp_is_game_points_after_match_points_and_match_points_after_game_points() -> None:
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    # MP: A 3, B 4, C 3, D 2; GP: A 5.5, B 7, C 6.5, D 5 (test_tiebreaks.POOL).
    assert [value_of(history, t, "MPvGP", primary="GP") for t in "ABCD"] == [3, 4, 3, 2]
    assert [value_of(history, t, "MPvGP") for t in "ABCD"] == [Fraction(11, 2), 7, Fraction(13, 2), 5]


def test_all_values_holds_every_value_code_of_the_chain_and_no_group_or_lot_code() -> None:
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    values = all_values(history, ["MP", "DE:MP", "MPvGP", "LOT"], primary="GP")
    assert values == {"MP": {"A": 3, "B": 4, "C": 3, "D": 2}, "MPvGP": {"A": 3, "B": 4, "C": 3, "D": 2}}
    # Match points are primary unless told: MPvGP is then game points.
    assert all_values(history, ["MPvGP"]) == {
        "MPvGP": {"A": Fraction(11, 2), "B": 7, "C": Fraction(13, 2), "D": 5}
    }


def test_a_direct_encounter_code_asked_as_a_value_is_named_in_the_refusal() -> None:
    history = build_event("ABCD", rr("ABCD", POOL), boards=4)
    with pytest.raises(TieBreakError, match=r"^DE:MP is not a value tie-break$"):
        value_of(history, "A", "DE:MP")
