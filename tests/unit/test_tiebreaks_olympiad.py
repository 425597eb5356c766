"""Golden, hand-computed Olympiad 2026 tie-breaks with unplayed rounds (Olympiad 2026 Regulations,
Appendix 2.I TB1/TB3, Appendix 2.IV unplayed matches, Appendix 2.II combined classification;
docs/tiebreaks.md, "Unplayed rounds in the Olympiad tie-breaks").

The readings under test:
1. an opponent's FMP is its match points as played, nothing added for its own unpaired rounds;
2. a team's own bye or unpaired round is the round left out of TB1, no real opponent is dropped then;
3. TB3 drops nothing more when a bye or an unpaired round is already left out.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction as F

import pytest

from orchestrator.domain.combined import combined_classification
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.section_results import section_places
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.teams import Team
from orchestrator.domain.tiebreaks import PRESETS, TieBreakError, build_event, value_of
from tests.unit.builders import m, y


def values(teams: str, matches: list[MatchRecord], code: str) -> dict[str, F]:
    event = build_event(teams, matches, boards=4, round_robin=False)
    return {team: value_of(event, team, code) for team in teams}


# --- byes, a round not paired, an opponent's unpaired round ----------------------------------------

# Five teams, four boards, Swiss; a bye is worth 1 MP and 2 GP.
#   R1: A-B 3-1,     C-D 2-2,       E bye
#   R2: A-C 2.5-1.5, B-E 3-1,       D not paired
#   R3: A-E 2-2,     B-D 1.5-2.5,   C bye
# MP (as played): A 2+2+1 = 5, B 0+2+0 = 2, C 1+0+1 = 2, D 1+0+2 = 3, E 1+0+1 = 2.
# GP: A 3+2.5+2 = 7.5, B 1+3+1.5 = 5.5, C 2+1.5+2 = 5.5, D 2+0+2.5 = 4.5, E 2+1+2 = 5.
UNPAIRED = [
    m(1, "A", "B", "3-1"),
    m(1, "C", "D", "2-2"),
    y(1, "E"),
    m(2, "A", "C", "2.5-1.5"),
    m(2, "B", "E", "3-1"),
    m(3, "A", "E", "2-2"),
    m(3, "B", "D", "1.5-2.5"),
    y(3, "C"),
]


def test_olympiad_bye_round_is_the_round_left_out_of_tb1_and_tb3() -> None:
    tb1, tb3 = values("ABCDE", UNPAIRED, "OLY-TB1"), values("ABCDE", UNPAIRED, "OLY-TB3")
    # E (bye R1): B 2 × 1 = 2, A 5 × 2 = 10; the bye round is the one left out: TB1 = 12.
    assert tb1["E"] == 12
    # TB3: B 2 + A 5 = 7, nothing more dropped (reading 3; dropping B as well would give 5).
    assert tb3["E"] == 7
    # C (bye R3): D 3 × 2 = 6, A 5 × 1.5 = 7.5: TB1 = 13.5; TB3 = 3 + 5 = 8.
    assert (tb1["C"], tb3["C"]) == (F(27, 2), 8)
    # A (no round left out): B 2 × 3 = 6, C 2 × 2.5 = 5, E 2 × 2 = 4; all three have 2 MP, so the lowest
    # IS goes (E, 4): TB1 = 11. TB3 = 2 + 2 + 2 - 2 = 4.
    assert (tb1["A"], tb3["A"]) == (11, 4)


def test_olympiad_round_not_paired_is_the_round_left_out_and_no_opponent_is_dropped() -> None:
    tb1, tb3 = values("ABCDE", UNPAIRED, "OLY-TB1"), values("ABCDE", UNPAIRED, "OLY-TB3")
    # D (not paired in R2, reading 2): C 2 × 2 = 4, B 2 × 2.5 = 5; R2 is the round left out: TB1 = 9
    # (dropping C as well would give 5). TB3 = C 2 + B 2 = 4 (reading 3; not 2).
    assert (tb1["D"], tb3["D"]) == (9, 4)


def test_olympiad_opponent_s_own_unpaired_round_adds_nothing_to_its_fmp() -> None:
    tb1, tb3 = values("ABCDE", UNPAIRED, "OLY-TB1"), values("ABCDE", UNPAIRED, "OLY-TB3")
    # D was not paired in R2; its opponents count its 3 MP as played (reading 1), not 3 + 1 = 4.
    # B (no round left out): A 5 × 1 = 5, E 2 × 3 = 6, D 3 × 1.5 = 4.5; the lowest MP is E's 2, dropped:
    # TB1 = 5 + 4.5 = 9.5 (with D at 4: 5 + 6 = 11). TB3 = 5 + 2 + 3 - 2 = 8 (with D at 4: 9).
    assert (tb1["B"], tb3["B"]) == (F(19, 2), 8)
    # C met D in R1: D 3 × 2 = 6 (with D at 4: 8), A 5 × 1.5 = 7.5, bye R3 left out: TB1 = 13.5.
    assert tb1["C"] == F(27, 2)


# --- forfeits and a team that leaves ----------------------------------------------------------------


# Six teams, four boards, Swiss; a whole-match default gives the winner 2 MP and 4 GP (GP(uw) = 4) and
# the loser 0 MP and 0 GP (GP(ul) = 0).
#   R1: A-B 2.5-1.5, C-D 3-1,         E-F 2-2
#   R2: A-C +- (C does not come, plays on), B-E 2.5-1.5, F-D +- (D does not come and leaves the event)
#   R3: A-F 1.5-2.5, B-C 1-3,         E bye,  D not paired
#   R4: A-E 2-2,     C-F 2-2,         B bye,  D not paired
# MP (as played): A 2+2+0+1 = 5, B 0+2+0+1 = 3, C 2+0+2+1 = 5, D 0, E 1+0+1+1 = 3, F 1+2+2+1 = 6.
# GP: A 2.5+4+1.5+2 = 10, B 1.5+2.5+1+2 = 7, C 3+0+3+2 = 8, D 1, E 2+1.5+2+2 = 7.5, F 2+4+2.5+2 = 10.5.
def forfeits(t: Callable[[str], str] = str) -> list[MatchRecord]:
    """The history above, each team named ``t(letter)``."""
    return [
        m(1, t("A"), t("B"), "2.5-1.5"),
        m(1, t("C"), t("D"), "3-1"),
        m(1, t("E"), t("F"), "2-2"),
        m(2, t("A"), t("C"), "+-"),
        m(2, t("B"), t("E"), "2.5-1.5"),
        m(2, t("F"), t("D"), "+-"),
        m(3, t("A"), t("F"), "1.5-2.5"),
        m(3, t("B"), t("C"), "1-3"),
        y(3, t("E")),
        m(4, t("A"), t("E"), "2-2"),
        m(4, t("C"), t("F"), "2-2"),
        y(4, t("B")),
    ]


FORFEITS = forfeits()


def test_olympiad_forfeit_won_counts_four_game_points_and_the_opponent_s_fmp_or_own_cmp() -> None:
    tb1, tb3 = values("ABCDEF", FORFEITS, "OLY-TB1"), values("ABCDEF", FORFEITS, "OLY-TB3")
    # A won R2 by default against C, who plays on: FMP(uw) = C's 5 as played, GP(uw) = 4, IS = 20.
    # B 3 × 2.5 = 7.5, F 6 × 1.5 = 9, E 3 × 2 = 6; B and E share the lowest MP (3), the lower IS goes
    # (E, 6): TB1 = 7.5 + 20 + 9 = 36.5. TB3 = 3 + 5 + 6 + 3 - 3 = 14.
    assert (tb1["A"], tb3["A"]) == (F(73, 2), 14)
    # F won R2 by default against D, who plays no further match: FMP(uwx) = CMP = F's own MP before R2,
    # 1 (reading 1: D's two unpaired rounds are not added, 1 + 2 = 3 would have been), IS = 1 × 4 = 4.
    # E 3 × 2 = 6, A 5 × 2.5 = 12.5, C 5 × 2 = 10; no round left out, the lowest MP (D, 1) goes:
    # TB1 = 6 + 12.5 + 10 = 28.5 (with 3 for D, E's 6 would go instead: 34.5).
    # TB3 = 3 + 1 + 5 + 5 - 1 = 13.
    assert (tb1["F"], tb3["F"]) == (F(57, 2), 13)


def test_olympiad_forfeit_lost_counts_no_game_points_and_the_winner_s_fmp() -> None:
    tb1, tb3 = values("ABCDEF", FORFEITS, "OLY-TB1"), values("ABCDEF", FORFEITS, "OLY-TB3")
    # C lost R2 by default to A: FMP(ul) = A's 5, GP(ul) = 0, IS = 0.
    # D 0 × 3 = 0, B 3 × 3 = 9, F 6 × 2 = 12; the lowest MP is D's 0, dropped: TB1 = 0 + 9 + 12 = 21.
    # TB3 = 0 + 5 + 3 + 6 - 0 = 14 (A's 5 counts: a forfeit loss still names an opponent).
    assert (tb1["C"], tb3["C"]) == (21, 14)


def test_olympiad_absent_team_leaves_its_unpaired_rounds_out_and_keeps_every_opponent() -> None:
    tb1, tb3 = values("ABCDEF", FORFEITS, "OLY-TB1"), values("ABCDEF", FORFEITS, "OLY-TB3")
    # D lost R1 to C, lost R2 by default to F and was not paired in R3 and R4 (it left the event).
    # C 5 × 1 = 5, F (ul) 6 × 0 = 0; its unpaired rounds are the rounds left out: TB1 = 5 (dropping C,
    # the lowest MP, as well would give 0). TB3 = 5 + 6 = 11 (not 6).
    assert (tb1["D"], tb3["D"]) == (5, 11)
    # The byes of this history, for completeness: B (bye R4) A 5 × 1.5 + E 3 × 2.5 + C 5 × 1 = 20,
    # TB3 5 + 3 + 5 = 13; E (bye R3) F 6 × 2 + B 3 × 1.5 + A 5 × 2 = 26.5, TB3 6 + 3 + 5 = 14.
    assert (tb1["B"], tb3["B"], tb1["E"], tb3["E"]) == (20, 13, F(53, 2), 14)


# --- the combined classification adds up these values ------------------------------------------------


def test_combined_classification_sums_the_sections_olympiad_tie_breaks() -> None:
    # Open: UNPAIRED (teams A-E); Women: FORFEITS (teams a-f); each team's federation is its letter.
    # Open ranks (MP, then TB1): A 5 → 1; D 3 → 2; B, C, E 2 MP: TB1 C 13.5, E 12, B 9.5 → 3, 4, 5.
    # Women: F 6 → 1; A and C 5 MP: TB1 A 36.5, C 21 → 2, 3; B and E 3 MP: TB1 E 26.5, B 20 → 4, 5; D → 6.
    # Appendix 2.II keys: sum of places, then the sums of MP, TB1, TB2 (GP) and TB3:
    #   A 1+2 = 3:   MP 5+5, TB1 11+36.5, GP 7.5+10, TB3 4+14
    #   C 3+3 = 6:   MP 2+5, TB1 13.5+21, GP 5.5+8,  TB3 8+14
    #   D 2+6 = 8:   MP 3+0, TB1 9+5,     GP 4.5+1,  TB3 4+11
    #   E 4+4 = 8:   MP 2+3, TB1 12+26.5, GP 5+7.5,  TB3 7+14  (E ahead of D: more MP)
    #   B 5+5 = 10:  MP 2+3, TB1 9.5+20,  GP 5.5+7,  TB3 8+13
    #   F (Women only, after the complete ones): place 1, MP 6, TB1 28.5, GP 10.5, TB3 13.
    chain = PRESETS["olympiad-2026"]
    open_section = compute_standings("ABCDE", UNPAIRED, chain=chain, boards=4, round_robin=False)
    women = compute_standings("abcdef", forfeits(str.lower), chain=chain, boards=4, round_robin=False)
    teams = {name: Team(name, name.upper(), 1, ()) for name in "ABCDEabcdef"}
    rows = combined_classification(
        {"open": section_places(open_section, teams), "women": section_places(women, teams)}
    )
    assert [(r.place, r.federation, r.place_sum, r.keys) for r in rows] == [
        (1, "A", 3, (10, F(95, 2), F(35, 2), 18)),
        (2, "C", 6, (7, F(69, 2), F(27, 2), 22)),
        (3, "E", 8, (5, F(77, 2), F(25, 2), 21)),
        (4, "D", 8, (3, 14, F(11, 2), 15)),
        (5, "B", 10, (5, F(59, 2), F(25, 2), 21)),
        (6, "F", 1, (6, F(57, 2), F(21, 2), 13)),
    ]


# --- the Tromsø 2014 "kvalitet" (preset olympiad-2014) ----------------------------------------------

# Four teams, four boards, Swiss:
#   R1: A-B 2.5-1.5, C-D 3-1
#   R2: A-C 2-2,     B-D +- (D does not come; GP 4 for B, 0 for D)
#   R3: A-D 1-3,     B-C 2.5-1.5
# MP: A 2+1+0 = 3, B 0+2+2 = 4, C 2+1+0 = 3, D 0+0+2 = 2.
KVALITET = [
    m(1, "A", "B", "2.5-1.5"),
    m(1, "C", "D", "3-1"),
    m(2, "A", "C", "2-2"),
    m(2, "B", "D", "+-"),
    m(3, "A", "D", "1-3"),
    m(3, "B", "C", "2.5-1.5"),
]


def test_kvalitet_sums_every_match_but_the_one_that_gives_the_least() -> None:
    # Each match: the opponent's MP × the game points scored against it; the least product goes.
    assert values("ABCD", KVALITET, "KVALITET") == {
        "A": 16,  # B 4 × 2.5 = 10, C 3 × 2 = 6, D 2 × 1 = 2 (the least, left out)
        # A 3 × 1.5 = 4.5 (the least, left out, though A is not the lowest opponent), D 2 × 4 = 8,
        # C 3 × 2.5 = 7.5: 15.5 (OLY-TB1 would leave out D, the fewest MP: 12)
        "B": F(31, 2),
        "C": 12,  # D 2 × 3, A 3 × 2, B 4 × 1.5: all 6, one left out
        "D": 12,  # C 3 × 1 = 3, B 4 × 0 (forfeit loss) = 0 (left out), A 3 × 3 = 9
    }
    # Preset olympiad-2014: MP, then kvalitet; B 4 MP first, A ahead of C (16 > 12), D last.
    table = compute_standings("ABCD", KVALITET, chain=["olympiad-2014"], boards=4, round_robin=False)
    assert [(row.rank, row.team) for row in table.rows] == [(1, "B"), (2, "A"), (3, "C"), (4, "D")]
    assert table.chain == ("MP", "KVALITET")


# --- teams that every criterion leaves equal -------------------------------------------------------

# Six teams, four boards, Swiss, one round: A-D 4-0, B-E 4-0, C-F 3.5-0.5. Starting ranks (pairing numbers,
# Olympiad Pairing Rules 2022 art. 3.1): C 1, B 2, A 3, E 4, D 5, F 6.
# MP: A, B, C 2; D, E, F 0. TB1: one opponent each, the lowest-MP one, left out: 0 for all. GP: A, B 4,
# C 3.5; F 0.5, D, E 0. TB3: 0 for all.
FIRST_ROUND = [m(1, "A", "D", "4-0"), m(1, "B", "E", "4-0"), m(1, "C", "F", "3.5-0.5")]


def test_teams_every_olympiad_tie_break_leaves_equal_share_the_place_listed_by_starting_rank() -> None:
    # Appendix 2.I has no criterion after TB3: A and B share 1st, D and E 5th. C, starting rank 1, stays
    # 3rd (GP 3.5 < 4): the starting rank only lists the teams of one place, B (2) before A (3), E (4)
    # before D (5), as the published Samarkand 2026 lists do (docs/tiebreaks.md, "Readings").
    starting = {"C": 1, "B": 2, "A": 3, "E": 4, "D": 5, "F": 6}
    table = compute_standings(
        "ABCDEF", FIRST_ROUND, chain=["olympiad-2026"], boards=4, round_robin=False, starting_ranks=starting
    )
    assert [(row.rank, row.team) for row in table.rows] == [
        (1, "B"),
        (1, "A"),
        (3, "C"),
        (4, "F"),
        (5, "E"),
        (5, "D"),
    ]
    assert table.unresolved_ties == (("B", "A"), ("E", "D"))
    assert [row.separated_by for row in table.rows] == [None, None, "GP", "MP", "GP", None]
    # Without starting ranks the teams of one place are listed by name.
    plain = compute_standings("ABCDEF", FIRST_ROUND, chain=["olympiad-2026"], boards=4, round_robin=False)
    assert [(row.rank, row.team) for row in plain.rows] == [
        (1, "A"),
        (1, "B"),
        (3, "C"),
        (4, "F"),
        (5, "D"),
        (5, "E"),
    ]
    with pytest.raises(TieBreakError, match="no starting rank for F"):
        compute_standings(
            "ABCDEF",
            FIRST_ROUND,
            chain=["olympiad-2026"],
            boards=4,
            round_robin=False,
            starting_ranks={team: n for team, n in starting.items() if team != "F"},
        )
