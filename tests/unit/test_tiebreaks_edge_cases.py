"""Golden, hand-computed tie-break edge cases (FIDE C.07, Olympiad 2026 App. 2; docs/tiebreaks.md):
byes, unplayed rounds, forfeits, repeated meetings, missing Swiss meetings and the cut-one rule."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from orchestrator.domain.direct_encounter import DirectEncounterTrace, direct_encounter
from orchestrator.domain.tiebreaks import TieBreakError, build_event, parse_chain, value_of
from tests.unit.builders import m, rr, y

# --- Olympiad App. 2.IV: FMP(uwx) for an opponent that leaves after forfeiting -------------------

# Four teams, four boards, Swiss:
#   R1: A-B 1-3, C-D 2-2
#   R2: A-C 1.5-2.5, B-D +- (D does not come and leaves the event)
#   R3: A-B 2-2, C pairing-allocated bye, D not paired
# MP (as played, docs/tiebreaks.md): A 0+0+1 = 1, B 2+2+1 = 5, C 1+2+1 = 4, D 1+0+0 = 1.
LEAVER = [m(1, "A", "B", "1-3"), m(1, "C", "D", "2-2"), m(2, "A", "C", "1.5-2.5"), m(2, "B", "D", "+-"),
          m(3, "A", "B", "2-2"), y(3, "C")]  # fmt: skip


def test_fmp_uwx_counts_the_winner_s_own_score_for_an_opponent_that_plays_no_further_match() -> None:
    event = build_event("ABCD", LEAVER, boards=4, round_robin=False)
    # B: A 1 × 3 = 3 (R1); D: FMP(uwx) = CMP, B's MP before R2 = 2 (D's unpaired round not added),
    # × 4 = 8; A 1 × 2 = 2 (R3). No round left out: drop the lowest FMP (A's 1, twice), the lower IS (2).
    # TB1 = 3 + 8 = 11. (D's FMP as played, 1, would give 3 + 4 = 7; CMP + UR = 3 would give 15.)
    assert value_of(event, "B", "OLY-TB1") == 11
    # TB3 counts the same FMPs: 1 + 2 + 1 - 1 = 3.
    assert value_of(event, "B", "OLY-TB3") == 3
    # D's forfeit loss is an unplayed loss: FMP(ul) = B's 5, × 0 GP; C 4 × 2 = 8. D was not paired in R3,
    # the round left out: nothing more is dropped. TB1 = 8, TB3 = 4 + 5 = 9.
    assert value_of(event, "D", "OLY-TB1") == 8
    assert value_of(event, "D", "OLY-TB3") == 9


# --- EDE falls back to game points ---------------------------------------------------------------

# A, B and C beat each other in a cycle: A-B 2.5-1.5, B-C 3-1, C-A 3.5-0.5 (other results as in
# test_tiebreaks.CYCLE, irrelevant here). Match points among the three: 2 each, no order.
# Game points among the three: A 2.5 + 0.5 = 3, B 1.5 + 3 = 4.5, C 1 + 3.5 = 4.5, so A is last;
# B and C, still level, are compared on their own match: B 3, C 1.
CYCLE = {"AB": "2.5-1.5", "BC": "3-1", "CA": "3.5-0.5", "AD": "4-0", "AE": "2-2", "BD": "2-2"}
CYCLE |= {"BE": "2.5-1.5", "CD": "2.5-1.5", "CE": "2-2", "DE": "3-1"}


def test_extended_direct_encounter_falls_back_to_game_points_when_match_points_leave_a_cycle() -> None:
    event = build_event("ABCDE", rr("ABCDE", CYCLE), boards=4)
    trace = DirectEncounterTrace()
    assert direct_encounter(event, ["A", "B", "C"], "EDE", trace) == [["B"], ["C"], ["A"]]
    assert trace.score == {"A": 3, "B": 3, "C": 1}  # A inside {A, B, C}; B and C inside {B, C}


# --- Olympiad TB1 and TB3: a bye, unplayed rounds, a forfeit -------------------------------------

# Five teams, four boards, Swiss:
#   R1: A-B 3-1, C-D 2-2, E pairing-allocated bye (1 MP, 2 GP)
#   R2: A-C 2.5-1.5, B-E 3-1, D not paired
#   R3: E-D 2.5-1.5, C-B +- (B does not come: C 2 MP, 4 GP), A not paired
# MP (as played, nothing added for unpaired rounds: Olympiad 2026 App. 2.IV, docs/tiebreaks.md):
#   A 2+2+0 = 4, B 0+2+0 = 2, C 1+0+2 = 3, D 1+0+0 = 1, E 1+0+2 = 3.
OLYMPIAD = [
    m(1, "A", "B", "3-1"),
    m(1, "C", "D", "2-2"),
    y(1, "E"),
    m(2, "A", "C", "2.5-1.5"),
    m(2, "B", "E", "3-1"),
    m(3, "E", "D", "2.5-1.5"),
    m(3, "C", "B", "+-"),
]


def olympiad(code: str) -> dict[str, F]:
    event = build_event("ABCDE", OLYMPIAD, boards=4, round_robin=False)
    return {team: value_of(event, team, code) for team in "ABCDE"}


def test_olympiad_tb1_leaves_out_a_bye_or_unpaired_round_and_keeps_every_opponent() -> None:
    assert olympiad("OLY-TB1") == {
        # B 2 × 3 GP = 6 (R1), C 3 × 2.5 = 7.5 (R2); A was not paired in R3, the round left out: 13.5
        "A": F(27, 2),
        # A 4 × 1 = 4, E 3 × 3 = 9, C 3 × 0 (forfeit loss) = 0; drop the lowest FMP, lowest product (C)
        "B": 13,
        # D 1 × 2 = 2, A 4 × 1.5 = 6; B lost by forfeit in round 3 and plays no further match, so
        # FMP(uwx) = C's own MP before round 3 (1), × 4 = 4; D and B tie on 1: the lower product (D) goes
        "C": 10,
        # C 3 × 2 = 6, E 3 × 1.5 = 4.5; D was not paired in R2, the round left out: 10.5
        "D": F(21, 2),
        # the bye round is left out instead of the lowest: B 2 × 1 = 2, D 1 × 2.5 = 2.5
        "E": F(9, 2),
    }


def test_olympiad_tb3_counts_a_forfeit_opponent_and_drops_nothing_after_a_bye_or_unpaired_round() -> None:
    assert olympiad("OLY-TB3") == {
        "A": 5,  # B 2 + C 3 (R3 not paired: nothing dropped)
        "B": 7,  # A 4 + E 3 + C 3 (the forfeit still names C) - 3
        "C": 5,  # D 1 + A 4 + B as FMP(uwx) 1 - 1
        "D": 6,  # C 3 + E 3 (R2 not paired: nothing dropped)
        "E": 3,  # B 2 + D 1 (the bye round is no opponent, and nothing more is dropped)
    }


# --- direct encounter between teams that met twice -------------------------------------------------


def test_direct_encounter_averages_two_meetings_of_the_same_teams() -> None:
    # C.07 6.1.2, double round robin: A-B 3-1 then B-A 2.5-1.5.
    # Game points: A (3 + 1.5) / 2 = 9/4, B (1 + 2.5) / 2 = 7/4. Match points: A (2 + 0) / 2 = 1, B 1.
    event = build_event("AB", [m(1, "A", "B", "3-1"), m(2, "B", "A", "2.5-1.5")])
    trace = DirectEncounterTrace()
    assert direct_encounter(event, ["A", "B"], "DE:GP", trace) == [["A"], ["B"]]
    assert trace.score == {"A": F(9, 4), "B": F(7, 4)}
    trace = DirectEncounterTrace()
    assert direct_encounter(event, ["B", "A"], "DE:MP", trace) == [["A", "B"]]
    assert trace.score == {"A": 1, "B": 1}


# --- Swiss: a team goes ahead only when the missing meetings cannot catch it -------------------------

# Four teams, Swiss, DE:MP among A, B, C; B and C never met (C.07 6.3).
#   best = current + 2 MP for every missing meeting.


def test_swiss_direct_encounter_keeps_a_team_that_a_missing_meeting_could_still_equal() -> None:
    # A beat B (A 2), drew C (A 1, C 1): A 3 (best 3), C 1 (best 1 + 2 = 3), B 0 (best 2).
    # If C beat B, C would have 3 = A's 3, so nobody goes ahead.
    matches = [m(1, "A", "B", "3-1"), m(1, "C", "D", "3-1"), m(2, "A", "C", "2-2"), m(2, "B", "D", "3-1")]
    event = build_event("ABCD", matches, round_robin=False)
    assert direct_encounter(event, ["A", "B", "C"], "DE:MP", DirectEncounterTrace()) == [["A", "C", "B"]]


def test_swiss_direct_encounter_puts_ahead_a_team_no_missing_meeting_can_reach() -> None:
    # A beat B and C: A 4 (best 4); B 0 and C 0, each best 0 + 2 = 2 < 4. B and C stay tied (C.07 6.3).
    matches = [m(1, "A", "B", "3-1"), m(1, "C", "D", "3-1"), m(2, "A", "C", "3-1"), m(2, "B", "D", "3-1")]
    event = build_event("ABCD", matches, round_robin=False)
    assert direct_encounter(event, ["C", "B", "A"], "DE:MP", DirectEncounterTrace()) == [["A"], ["B", "C"]]


# --- cut-one: a voluntary unplayed round goes first ------------------------------------------------------


def test_cut_one_drops_a_voluntary_unplayed_round_before_a_lower_played_opponent() -> None:
    # Swiss: R1 A-B +- (B does not come), C-D 3-1; R2 A-C 3-1, B-D 3-1. MP: A 4, B 2, C 2, D 0.
    # B's elements (BH:MP): R1 the dummy, min(B's own 2, A's 4) = 2, a VUR; R2 D 0.
    # C.07 16.5: the VUR (2) is cut, not the lowest opponent (D, 0).
    matches = [m(1, "A", "B", "+-"), m(1, "C", "D", "3-1"), m(2, "A", "C", "3-1"), m(2, "B", "D", "3-1")]
    event = build_event("ABCD", matches, round_robin=False)
    assert value_of(event, "B", "BH:MP") == 2 + 0
    assert value_of(event, "B", "BH:MP/C1") == 0
    # A has no VUR: elements B 2 (its forfeit win meets the dummy min(4, 2)) and C 2, one 2 cut.
    assert value_of(event, "A", "BH:MP/C1") == 2


# --- chains --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", ["MP, GP, MP", "MP, EMMSB, emmsb, GP", ["MP", "bh", "BH:MP"]])
def test_parse_chain_refuses_a_value_code_listed_twice(spec: str | list[str]) -> None:
    with pytest.raises(TieBreakError, match="listed twice"):
        parse_chain(spec)


def test_parse_chain_allows_direct_encounter_again_after_other_criteria() -> None:
    # C.07 6.2: direct encounter may be reapplied later in the chain.
    assert parse_chain("MP, DE, GP, DE") == ("MP", "DE:MP", "GP", "DE:MP")


def test_cut_one_drops_the_lower_product_between_opponents_with_the_same_score() -> None:
    # Round robin, four boards: A-B 3-1, A-C 2-2, A-D 1-3, B-C 3-1, B-D 2-2, C-D 3-1: every team has 3 MP.
    # A's Sonneborn-Berger: B 3 × 2 + C 3 × 1 + D 3 × 0 = 9. All opponents have 3 MP, so the cut
    # takes the lowest product, D's 0: still 9.
    results = {"AB": "3-1", "AC": "2-2", "AD": "1-3", "BC": "3-1", "BD": "2-2", "CD": "3-1"}
    event = build_event("ABCD", rr("ABCD", results), boards=4)
    assert value_of(event, "A", "EMMSB") == 9
    assert value_of(event, "A", "EMMSB/C1") == 9


@pytest.mark.parametrize("code", ["EMMSB/C1", "BH:MP/C1", "OLY-TB1", "OLY-TB3", "KVALITET"])
def test_a_team_that_never_played_has_nothing_to_cut_and_scores_zero(code: str) -> None:
    event = build_event("ABC", [m(1, "A", "B", "3-1")], boards=4)
    value = value_of(event, "C", code)
    assert value == 0 and isinstance(value, F)  # an exact zero, as every other value is
