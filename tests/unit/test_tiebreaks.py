"""Golden, hand-computed tie-break values (FIDE C.07; docs/tiebreaks.md)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import PRESETS, TieBreakError, build_event, parse_chain, value_of
from tests.unit.builders import m, rr, y

# Four teams, four boards, single round robin (hand-checked):
#   A-B 2.5-1.5, C-D 2-2, A-C 1-3, B-D 3-1, A-D 2-2, B-C 2.5-1.5
# MP: A 3, B 4, C 3, D 2.  GP: A 5.5, B 7, C 6.5, D 5.
POOL = {"AB": "2.5-1.5", "CD": "2-2", "AC": "1-3", "BD": "3-1", "AD": "2-2", "BC": "2.5-1.5"}


def values(code: str, *, round_robin: bool = True) -> dict[str, F]:
    event = build_event("ABCD", rr("ABCD", POOL), boards=4, round_robin=round_robin)
    return {team: value_of(event, team, code) for team in "ABCD"}


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("MP", {"A": 3, "B": 4, "C": 3, "D": 2}),
        ("GP", {"A": F(11, 2), "B": 7, "C": F(13, 2), "D": 5}),
        ("WIN", {"A": 1, "B": 2, "C": 1, "D": 0}),
        ("MPvGP", {"A": F(11, 2), "B": 7, "C": F(13, 2), "D": 5}),
        # A: B 4×2 + C 3×0 + D 2×1 = 10
        ("EMMSB", {"A": 10, "B": 10, "C": 8, "D": 6}),
        # A: B 4×2.5 + C 3×1 + D 2×2 = 17
        ("EMGSB", {"A": 17, "B": 18, "C": 19, "D": 16}),
        # A: B 7×2 + C 6.5×0 + D 5×1 = 19
        ("EGMSB", {"A": 19, "B": 23, "C": 16, "D": 12}),
        # B: A 5.5×1.5 + D 5×3 + C 6.5×2.5 = 8.25 + 15 + 16.25 = 39.5
        ("EGGSB", {"A": 34, "B": F(79, 2), "C": 37, "D": 31}),
        # A: drop D (lowest MP, 2×1); D: C and A both 3 MP, one product 3 dropped
        ("EMMSB/C1", {"A": 8, "B": 6, "C": 6, "D": 3}),
        # A drops D (lowest GP, 5×1); D drops A (5.5×1)
        ("EGMSB/C1", {"A": 14, "B": 13, "C": 11, "D": F(13, 2)}),
        ("BH:MP", {"A": 9, "B": 8, "C": 9, "D": 10}),
        ("BH:MP/C1", {"A": 7, "B": 6, "C": 7, "D": 7}),
        ("BH:GP/C1", {"A": F(27, 2), "B": 12, "C": F(25, 2), "D": F(27, 2)}),
        # A: B 4×2.5 + C 3×1 (D, lowest MP, dropped); D: A and C both 3 MP, drop the lower IS
        ("OLY-TB1", {"A": 13, "B": 12, "C": 15, "D": 10}),
        ("OLY-TB3", {"A": 7, "B": 6, "C": 7, "D": 7}),
    ],
)
def test_each_code_gives_the_hand_computed_value(code: str, expected: dict[str, F]) -> None:
    assert values(code) == {team: F(v) for team, v in expected.items()}


def test_eggsb_keeps_quarter_points_exactly() -> None:
    event = build_event("AB", [m(1, "A", "B", "2.5-1.5")], boards=4)
    assert value_of(event, "A", "EGGSB") == F(15, 4)  # 1.5 × 2.5
    assert value_of(event, "B", "EGGSB") == F(15, 4)  # 2.5 × 1.5


def test_online_2020_chain_orders_the_small_pool_by_mp_then_gp() -> None:
    s = compute_standings("ABCD", rr("ABCD", POOL), chain=PRESETS["online-2020"], boards=4)
    assert [(r.rank, r.team, r.separated_by) for r in s.rows] == [
        (1, "B", None),
        (2, "C", "MP"),
        (3, "A", "GP"),
        (4, "D", "MP"),
    ]
    assert "LOT" not in s.rows[0].values
    assert s.unresolved_ties == ()


# Five teams (Berger byes), A, B and C tie on MP 6 and GP 11 and beat each other in a cycle
# (DE:MP 2-2-2). On game points among the three: A 3, B 4.5, C 4.5, so A is third of them; B and
# C are then compared again on their own match, which B won 3-1 (C.07 6.2).
CYCLE = {
    "AB": "2.5-1.5",
    "BC": "3-1",
    "CA": "3.5-0.5",
    "AD": "4-0",
    "AE": "2-2",
    "BD": "2-2",
    "BE": "2.5-1.5",
    "CD": "2.5-1.5",
    "CE": "2-2",
    "DE": "3-1",
}


def test_direct_encounter_is_recomputed_inside_the_subgroup_it_leaves_tied() -> None:
    s = compute_standings("ABCDE", rr("ABCDE", CYCLE), chain=PRESETS["online-2020"], boards=4)
    assert [(r.rank, r.team, r.separated_by) for r in s.rows] == [
        (1, "B", None),
        (2, "C", "DE:GP"),
        (3, "A", "DE:GP"),
        (4, "D", "MP"),
        (5, "E", "MP"),
    ]
    by_team = {r.team: r.values for r in s.rows}
    assert [by_team[t]["MP"] for t in "ABC"] == [6, 6, 6]
    assert [by_team[t]["GP"] for t in "ABC"] == [11, 11, 11]
    assert [by_team[t]["DE:MP"] for t in "ABC"] == [2, 2, 2]
    # the score inside the last group that was compared: A in {A,B,C}; B, C in {B,C}
    assert (by_team["A"]["DE:GP"], by_team["B"]["DE:GP"], by_team["C"]["DE:GP"]) == (3, 3, 1)


def test_a_bye_in_an_odd_pool_is_worth_a_draw_but_no_sonneborn_berger_element() -> None:
    matches = [m(1, "A", "B", "3-1"), y(1, "C"), m(2, "B", "C", "2-2"), y(2, "A")]
    matches += [m(3, "C", "A", "1-3"), y(3, "B")]
    event = build_event("ABC", matches, boards=4)
    assert [value_of(event, t, "MP") for t in "ABC"] == [5, 2, 2]
    assert [value_of(event, t, "GP") for t in "ABC"] == [8, 5, 5]
    assert value_of(event, "A", "EMMSB") == 2 * 2 + 2 * 2  # B 2×2 + C 2×2, bye no element


def test_a_double_forfeit_gives_both_teams_nothing() -> None:
    matches = [m(1, "A", "B", "--"), m(1, "C", "D", "3-1"), m(2, "A", "C", "2-2"), m(2, "B", "D", "+-")]
    event = build_event("ABCD", matches, boards=4)
    assert [value_of(event, t, "MP") for t in "ABCD"] == [1, 2, 3, 0]
    assert [value_of(event, t, "GP") for t in "ABCD"] == [2, 4, 5, 1]
    # round robin: the double forfeit is a 0-0 match, a product of 0
    assert value_of(event, "A", "EMMSB") == 0 * 2 + 1 * 3
    assert value_of(event, "A", "WIN") == 0


def test_swiss_forfeit_win_meets_a_dummy_capped_at_the_opponents_score() -> None:
    # C.07 16.4.1: A's dummy for its forfeit win has A's own MP (4) capped by B's adjusted MP (0).
    matches = [m(1, "A", "B", "+-"), m(1, "C", "D", "3-1"), m(2, "A", "C", "3-1"), m(2, "B", "D", "1-3")]
    event = build_event("ABCD", matches, boards=4, round_robin=False)
    assert value_of(event, "A", "EMMSB") == 0 * 2 + 2 * 2
    assert value_of(event, "A", "BH:MP") == 0 + 2
    # D lost to C and beat B: BH 2 + 0; with cut-1 the lowest (B, 0) goes
    assert value_of(event, "D", "BH:MP/C1") == 2


def test_swiss_forfeit_loss_is_cut_first_by_cut_one() -> None:
    # C.07 16.5.2: B's forfeit loss (a VUR) has value 0 × ... = 0, cut before any played element.
    matches = [m(1, "A", "B", "+-"), m(1, "C", "D", "3-1"), m(2, "B", "C", "3-1"), m(2, "A", "D", "2-2")]
    event = build_event("ABCD", matches, boards=4, round_robin=False)
    assert value_of(event, "B", "EMGSB") == 2 * 0 + 2 * 3  # dummy min(2, A 3) × 0 GP + C 2 MP × 3 GP
    assert value_of(event, "B", "EMGSB/C1") == 2 * 3


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("online-2020", PRESETS["online-2020"]),
        ("  Olympiad-2026 ", PRESETS["olympiad-2026"]),
        ("mp, gp, de, de:gp, emmsb, eggsb, lot", PRESETS["online-2020"]),
        ("MP,EDE,emgsb-c1,bh/c1,mpvgp", PRESETS["fide-team-swiss"]),
        (["MP", "tb1", "GP", "tb3"], PRESETS["olympiad-2026"]),
        (("online-2020",), PRESETS["online-2020"]),  # an event file's `tiebreaks: online-2020` as stored
    ],
)
def test_parse_chain_accepts_presets_and_normalises_spelling(spec: object, expected: tuple[str, ...]) -> None:
    assert parse_chain(spec) == expected  # type: ignore[arg-type]


def test_parse_chain_names_every_unknown_code() -> None:
    with pytest.raises(TieBreakError) as error:
        parse_chain("MP, XYZ, GP, SB-C9")
    assert "XYZ" in str(error.value) and "SB-C9" in str(error.value)
    assert isinstance(error.value, ValueError)


def test_parse_chain_refuses_an_empty_list() -> None:
    with pytest.raises(TieBreakError):
        parse_chain(" , ")
