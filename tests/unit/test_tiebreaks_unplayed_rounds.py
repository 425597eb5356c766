"""Golden, hand-computed cases for each team's record and unplayed rounds (FIDE C.07 Art. 15, 16;
C.04.6 1.4; docs/tiebreaks.md): what build_event makes of byes, forfeits, absences and double forfeits,
the score opponents see (16.3), and the dummy opponent of an unplayed round (16.4)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.tiebreaks import (
    RoundKind,
    TeamRound,
    TieBreakError,
    adjusted_score,
    build_event,
    value_of,
)
from tests.unit.builders import m, y

K = RoundKind


def test_each_team_gets_one_entry_per_round_with_its_own_and_its_opponents_points() -> None:
    # Four boards. R1: A-B 2.5-1.5, C has the pairing-allocated bye (a draw's 1 MP, 4 half-points).
    # R2: C-A +- (A does not come: C 2 MP and 8 half-points), B not paired.
    # R3: A-B a double forfeit recorded with 2-2 on the boards: both get 0 MP and 0 GP all the same.
    matches = [m(1, "A", "B", "2.5-1.5"), y(1, "C"), m(2, "C", "A", "+-")]
    matches += [MatchRecord(3, "A", "B", 4, 4, MatchForfeit.DOUBLE)]
    event = build_event("ABC", matches, boards=4, round_robin=False)
    assert (event.teams, event.number_of_rounds, event.boards, event.round_robin) == (
        ("A", "B", "C"),
        3,
        4,
        False,
    )
    assert event.rounds == {
        "A": (
            TeamRound(1, K.PLAYED, "B", 2, 5, 0, 3),
            TeamRound(2, K.FORFEIT_LOSS, "C", 0, 0, 2, 8),
            TeamRound(3, K.DOUBLE_FORFEIT, "B", 0, 0, 0, 0),
        ),
        "B": (
            TeamRound(1, K.PLAYED, "A", 0, 3, 2, 5),
            TeamRound(2, K.ABSENT, None, 0, 0),
            TeamRound(3, K.DOUBLE_FORFEIT, "A", 0, 0, 0, 0),
        ),
        "C": (
            TeamRound(1, K.BYE, None, 1, 4),
            TeamRound(2, K.FORFEIT_WIN, "A", 2, 8, 0, 0),
            TeamRound(3, K.ABSENT, None, 0, 0),
        ),
    }
    # MP: A 2, B 0, C 3; half-points: A 5, B 3, C 12; played: A 1, B 1, C 0.
    assert [(event.mp(t), event.gp(t), event.played(t)) for t in "ABC"] == [(2, 5, 1), (0, 3, 1), (3, 12, 0)]


@pytest.mark.parametrize(("bye_mp", "expected"), [(None, 1), (2, 2), (0, 0)])
def test_a_pairing_allocated_bye_is_worth_a_drawn_match_unless_the_event_says_otherwise(
    bye_mp: int | None, expected: int
) -> None:
    event = build_event("ABC", [m(1, "A", "B", "3-1"), y(1, "C")], boards=4, round_robin=False, bye_mp=bye_mp)
    assert value_of(event, "C", "MP") == expected


def test_a_pool_with_no_match_yet_has_no_round_and_six_boards_unless_told() -> None:
    event = build_event("AB", [])
    assert (event.number_of_rounds, event.rounds, event.boards) == (0, {"A": (), "B": ()}, 6)


@pytest.mark.parametrize(
    ("teams", "matches", "message"),
    [
        ("ABA", [], "a team is listed twice"),
        ("AB", [m(1, "A", "Z", "2-2")], "round 1: 'Z' is not a team of this pool"),
        ("ABC", [m(1, "A", "B", "2-2"), m(1, "C", "A", "3-1")], "'A' has two matches in round 1"),
        ("ABC", [m(1, "A", "B", "2-2"), y(1, "A")], "'A' has two matches in round 1"),
    ],
)
def test_a_pool_that_cannot_be_scored_is_refused_with_the_reason(
    teams: str, matches: list[MatchRecord], message: str
) -> None:
    with pytest.raises(TieBreakError, match=f"^{message}$"):
        build_event(teams, matches, boards=4)


# --- the score opponents see (C.07 16.3) and the dummy opponent (16.4) -------------------------------------

# Four teams, four boards, Swiss, three rounds:
#   R1: A-B 3-1, C-D 2-2
#   R2: A-C 2.5-1.5, D-B +- (B does not come)
#   R3: D-A 3-1; B and C not paired
# Own MP: A 2 + 2 + 0 = 4, B 0, C 1 + 0 = 1, D 1 + 2 + 2 = 5.
# Own GP: A 3 + 2.5 + 1 = 6.5, B 1, C 2 + 1.5 = 3.5, D 2 + 4 + 3 = 9.
# 16.3.2: an absence followed only by voluntary unplayed rounds counts as a draw for the opponents:
#   B's last round not a VUR is R1, so its R3 absence counts 1 MP (2 GP): B is seen with 1 MP, 3 GP.
#   C's R3 absence comes after its played R2: seen with 1 + 1 = 2 MP, 3.5 + 2 = 5.5 GP.
WITHDRAWALS = [m(1, "A", "B", "3-1"), m(1, "C", "D", "2-2"), m(2, "A", "C", "2.5-1.5"), m(2, "D", "B", "+-")]
WITHDRAWALS += [m(3, "D", "A", "3-1")]


def swiss() -> dict[str, dict[str, F]]:
    event = build_event("ABCD", WITHDRAWALS, boards=4, round_robin=False)
    return {score: {team: adjusted_score(event, team, score) for team in "ABCD"} for score in ("MP", "GP")}


def test_an_absence_at_the_end_counts_as_a_draw_in_the_score_opponents_see() -> None:
    assert swiss() == {
        "MP": {"A": 4, "B": 1, "C": 2, "D": 5},
        "GP": {"A": F(13, 2), "B": 3, "C": F(11, 2), "D": 9},
    }


def test_a_round_robin_shows_opponents_the_final_score_without_adjustment() -> None:
    event = build_event("ABCD", WITHDRAWALS, boards=4, round_robin=True)
    assert [adjusted_score(event, team, "MP") for team in "ABCD"] == [4, 0, 1, 5]


def test_an_absence_followed_by_a_played_round_counts_nothing() -> None:
    # C is not paired in R1, then beats A: its R1 absence is not at the end, so it is seen with its own 2 MP.
    event = build_event("ABC", [m(1, "A", "B", "3-1"), m(2, "C", "A", "3-1")], boards=4, round_robin=False)
    assert adjusted_score(event, "C", "MP") == 2


@pytest.mark.parametrize(
    ("team", "code", "value"),
    [
        # A played B (seen with 1), C (2), D (5).
        ("A", "BH:MP", 1 + 2 + 5),
        ("A", "BH:GP", 3 + F(11, 2) + 9),
        # D: C 2; the forfeit win meets a dummy min(D's own 5, B's 1) = 1; A 4.
        ("D", "BH:MP", 2 + 1 + 4),
        # C: D 5, A 4; the absence meets a dummy min(C's own 1, a draw's 1 × 3 rounds) = 1, a VUR.
        ("C", "BH:MP", 5 + 4 + 1),
        ("C", "BH:GP", 9 + F(13, 2) + min(F(7, 2), 2 * 3)),
        # cut-one drops the VUR (1), the lowest element too.
        ("C", "BH:MP/C1", 5 + 4),
        # B: A 4; the forfeit loss meets min(B's own 0, D's 5) = 0; the absence min(0, 3) = 0.
        ("B", "BH:MP", 4),
        # Sonneborn-Berger: opponent's score × own points against it.
        # D: C 2 × 1 + dummy 1 × 2 (forfeit win) + A 4 × 2 = 12.
        ("D", "EMMSB", 2 * 1 + 1 * 2 + 4 * 2),
        # C on game points: D 9 × 2 + A 6.5 × 1.5 + dummy 3.5 × 0 = 27.75.
        ("C", "EGGSB", 9 * 2 + F(13, 2) * F(3, 2)),
    ],
)
def test_swiss_buchholz_and_sonneborn_berger_use_the_seen_scores_and_the_dummy(
    team: str, code: str, value: F
) -> None:
    event = build_event("ABCD", WITHDRAWALS, boards=4, round_robin=False)
    assert value_of(event, team, code) == value


def test_a_team_with_only_unplayed_rounds_is_seen_with_a_draw_for_each_absence() -> None:
    # B is not paired in R1 and does not come in R2 (A wins by forfeit): no round of B is played, so its
    # R1 absence is followed only by a VUR and counts as a draw: 1 MP, 2 GP.
    event = build_event("AB", [m(2, "A", "B", "+-")], boards=4, round_robin=False)
    assert (adjusted_score(event, "B", "MP"), adjusted_score(event, "B", "GP")) == (1, 2)


def test_a_drawn_round_is_half_the_boards_in_game_points() -> None:
    # Six boards: B beat A 4-2 in R1 and is not paired in R2, which counts 3 game points (half of 6).
    event = build_event(
        "ABC", [m(1, "A", "B", "2-4", 6), m(2, "A", "C", "3-3", 6)], boards=6, round_robin=False
    )
    assert adjusted_score(event, "B", "GP") == 4 + 3


def test_the_dummy_of_an_absence_is_capped_at_a_draw_per_round() -> None:
    # A beats B and C, then is not paired in R3 (B-C 2-2). A's own 4 MP are above a draw's 1 × 3 rounds,
    # so the dummy for R3 counts 3. Buchholz: B 0 + 1 = 1, C 0 + 1 = 1, dummy 3.
    matches = [m(1, "A", "B", "3-1"), m(2, "A", "C", "3-1"), m(3, "B", "C", "2-2")]
    event = build_event("ABC", matches, boards=4, round_robin=False)
    assert value_of(event, "A", "BH:MP") == 1 + 1 + 3


def test_cut_one_takes_the_lowest_of_two_voluntary_unplayed_rounds() -> None:
    # Six teams, four rounds, Swiss. D: R1 not paired, R2 does not come against C, R3 beats E, R4 beats F.
    #   D's own MP 4. C lost R1, R3, R4 and won R2 by forfeit: 2. E: 0 + 2 + 0 + 2 = 4. F: 0 (its R1
    #   absence is followed by played rounds, so it stays 0).
    # D's Buchholz elements: R1 dummy min(4, 1 × 4) = 4 (VUR), R2 dummy min(4, C's 2) = 2 (VUR), E 4, F 0:
    # 10. Cut-one: the lowest is F's 0, but a VUR goes first, and of the two VURs the lower, 2: 10 - 2 = 8.
    matches = [m(1, "C", "A", "1-3"), m(1, "B", "E", "3-1")]
    matches += [m(2, "C", "D", "+-"), m(2, "A", "B", "2-2"), m(2, "E", "F", "3-1")]
    matches += [m(3, "D", "E", "3-1"), m(3, "C", "B", "1-3"), m(3, "A", "F", "3-1")]
    matches += [m(4, "D", "F", "3-1"), m(4, "C", "E", "1-3")]
    event = build_event("ABCDEF", matches, boards=4, round_robin=False)
    assert value_of(event, "D", "BH:MP") == 4 + 2 + 4 + 0
    assert value_of(event, "D", "BH:MP/C1") == 8
