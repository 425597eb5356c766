"""Golden, hand-computed direct-encounter cases (FIDE C.07 Art. 6, 13.3; docs/tiebreaks.md): which score
EDE starts with and when it stops, and Swiss groups where some tied teams never met (6.3)."""

from __future__ import annotations

from fractions import Fraction as F

from orchestrator.domain.direct_encounter import DirectEncounterTrace, direct_encounter
from orchestrator.domain.tiebreaks import build_event
from tests.unit.builders import m, rr

# --- EDE: the primary score first, then the other, until neither changes anything ------------------------

# A beat B and C narrowly (2.5-1.5 each), B beat C 4-0. Four boards, round robin.
#   Match points: A 2 + 2 = 4, B 0 + 2 = 2, C 0: A, B, C.
#   Game points:  A 2.5 + 2.5 = 5, B 1.5 + 4 = 5.5, C 1.5 + 0 = 1.5: B, A, C.
NARROW = {"AB": "2.5-1.5", "AC": "2.5-1.5", "BC": "4-0"}


def test_ede_starts_with_match_points_unless_game_points_are_primary() -> None:
    event = build_event("ABC", rr("ABC", NARROW), boards=4)
    trace = DirectEncounterTrace()
    assert direct_encounter(event, ["A", "B", "C"], "EDE", trace) == [["A"], ["B"], ["C"]]
    assert trace.score == {"A": 4, "B": 2, "C": 0}
    trace = DirectEncounterTrace()
    assert direct_encounter(event, ["A", "B", "C"], "EDE", trace, primary="GP") == [["B"], ["A"], ["C"]]
    assert trace.score == {"A": 5, "B": F(11, 2), "C": F(3, 2)}


# Four teams level on game points among themselves, 6 each (A 3 + 1.5 + 1.5, B 1 + 2.5 + 2.5,
# C 2.5 + 1.5 + 2, D 2.5 + 1.5 + 2), but not on match points: A 2, B 4, C 3, D 3. C and D drew 2-2.
LEVEL_ON_GAME_POINTS = {"AB": "3-1", "AC": "1.5-2.5", "AD": "1.5-2.5", "BC": "2.5-1.5", "BD": "2.5-1.5"}
LEVEL_ON_GAME_POINTS |= {"CD": "2-2"}


def test_ede_on_game_points_first_turns_to_match_points_and_stops_after_two_quiet_passes() -> None:
    event = build_event("ABCD", rr("ABCD", LEVEL_ON_GAME_POINTS), boards=4)
    # Passes: game points (6 each, quiet); match points (B 4, C and D 3, A 2; inside {C, D} 1 each);
    # game points inside {C, D} (2 each, quiet); match points inside {C, D} (1 each, quiet): stop.
    # C and D show the score of the last pass, match points.
    for primary in ("GP", "MP"):
        trace = DirectEncounterTrace()
        parts = direct_encounter(event, list("ABCD"), "EDE", trace, primary=primary)
        assert parts == [["B"], ["C", "D"], ["A"]]
        assert trace.score == {"A": 2, "B": 4, "C": 1, "D": 1}


# --- Swiss: some tied teams never met (C.07 6.3) ------------------------------------------------------------


def test_swiss_direct_encounter_with_every_meeting_played_splits_like_a_round_robin() -> None:
    # A and B drew 2-2, both beat C 3-1: A 1 + 2 = 3, B 3, C 0. All three met, so 6.2 applies and C is
    # third; A and B stay tied (their own match was drawn).
    matches = [m(1, "A", "B", "2-2"), m(2, "A", "C", "3-1"), m(3, "B", "C", "3-1")]
    event = build_event("ABC", matches, boards=4, round_robin=False)
    assert direct_encounter(event, ["C", "B", "A"], "DE:MP", DirectEncounterTrace()) == [["A", "B"], ["C"]]


def test_swiss_direct_encounter_separates_each_team_the_ones_below_cannot_reach() -> None:
    # Five teams; every pair met except A and C. Game points among them (four boards):
    #   A 4 + 4 + 4 = 12 (best 12 + 4 = 16)    B 0 + 4 + 3 + 4 = 11
    #   C 0 + 2.5 + 4 = 6.5 (best 10.5)         D 0 + 1 + 1.5 + 2 = 4.5    E 0 + 0 + 0 + 2 = 2
    # A 12 > 11, 10.5, 4.5, 2; B 11 > 10.5; C 6.5 > 4.5; D 4.5 > 2: every team is separated, down to
    # D and E, who drew their own match.
    matches = [m(1, "A", "B", "4-0"), m(1, "C", "D", "2.5-1.5"), m(2, "A", "D", "4-0"), m(2, "B", "E", "4-0")]
    matches += [m(3, "A", "E", "4-0"), m(3, "B", "C", "4-0"), m(4, "B", "D", "3-1"), m(4, "C", "E", "4-0")]
    matches += [m(5, "D", "E", "2-2")]
    event = build_event("ABCDE", matches, boards=4, round_robin=False)
    parts = direct_encounter(event, list("EDCBA"), "DE:GP", DirectEncounterTrace())
    assert parts == [["A"], ["B"], ["C"], ["D"], ["E"]]


def test_swiss_direct_encounter_on_game_points_counts_a_missing_meeting_as_every_board_won() -> None:
    # A-B 2.5-1.5, A-C 2.5-1.5, C-B 4-0, C-D 2-2; A-D and B-D never met. Game points (four boards):
    #   C 1.5 + 4 + 2 = 7.5 (met all)    A 2.5 + 2.5 = 5 (best 5 + 4 = 9)
    #   D 2 (best 2 + 4 + 4 = 10)         B 1.5 + 0 = 1.5 (best 5.5)
    # D could still reach 10 > 7.5 by winning its two missing matches 4-0: nobody goes ahead.
    matches = [
        m(1, "A", "B", "2.5-1.5"),
        m(1, "C", "D", "2-2"),
        m(2, "A", "C", "2.5-1.5"),
        m(3, "C", "B", "4-0"),
    ]
    event = build_event("ABCD", matches, boards=4, round_robin=False)
    parts = direct_encounter(event, list("ABCD"), "DE:GP", DirectEncounterTrace())
    assert parts == [["C", "A", "D", "B"]]  # tied; listed by score, then by the best each can reach


def test_swiss_direct_encounter_lists_first_among_tied_teams_the_one_that_could_still_reach_more() -> None:
    # B beat A, A beat C; B and C never met. A 2 (best 2), B 2 (best 2 + 2 = 4), C 0 (best 2).
    # Nobody is ahead of every best (B's 2 is not above A's 2); B is listed before A.
    matches = [m(1, "A", "B", "1-3"), m(2, "A", "C", "3-1")]
    event = build_event("ABC", matches, boards=4, round_robin=False)
    assert direct_encounter(event, ["A", "B", "C"], "DE:MP", DirectEncounterTrace()) == [["B", "A", "C"]]
