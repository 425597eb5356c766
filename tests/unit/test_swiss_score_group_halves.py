"""Score-group halves (``score-group-halves``, docs/swiss.md "Pairing systems"), worked by hand: each
score group ordered by game points, split in halves (1 v 4, 2 v 5, 3 v 6), an odd group floating its
lowest team down, no rematch, the bye to the lowest-ranked team that has not had one.

Teams are named A, B, C, ... in initial pairing-number order (A is number 1). Game points are in
half-points: a four-board match shares 8 (8-0 is 4-0, 5-3 is 2½-1½, 4-4 a drawn match)."""

from __future__ import annotations

from collections.abc import Sequence

from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import SwissState, SwissTeam
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer

PAIRER = ScoreGroupHalvesPairer()


def stage(
    names: str, matches: Sequence[MatchRecord] = (), *, pairing: str = "score-group-halves"
) -> SwissState:
    teams = tuple(SwissTeam(name) for name in names)
    return SwissState(teams, boards=4, rounds=5, matches=tuple(matches), pairing=pairing)


def m(rnd: int, first: str, second: str | None, gp_first: int) -> MatchRecord:
    return MatchRecord(rnd, first, second, gp_first, 8 - gp_first if second else 0)


def paired(state: SwissState) -> tuple[list[tuple[str, str]], str | None]:
    found = PAIRER.pair_round(state, state.rounds_played + 1)
    return [(p.first, p.second) for p in found.pairings], found.bye


def test_a_score_group_is_ordered_by_game_points_and_paired_one_v_four_two_v_five_three_v_six() -> None:
    # Each team won once and lost once (2 MP each, one score group of six).
    rounds = [m(1, "A", "B", 8), m(1, "C", "D", 6), m(1, "E", "F", 6)]
    rounds += [m(2, "B", "C", 5), m(2, "D", "E", 5), m(2, "F", "A", 5)]
    # Game points: A 8+3 = 11, B 0+5 = 5, C 6+3 = 9, D 2+5 = 7, E 6+3 = 9, F 2+5 = 7.
    # By game points, then number: A 11, C 9, E 9, D 7, F 7, B 5, so 1 v 4 = A-D, 2 v 5 = C-F, 3 v 6 = E-B.
    pairs, bye = paired(stage("ABCDEF", rounds))
    assert [frozenset(p) for p in pairs] == [frozenset("AD"), frozenset("CF"), frozenset("EB")]
    assert bye is None
    # The Olympiad rules rank by match points then number only (A..F): A-D, B-E, C-F.
    olympiad = Olympiad2022Pairer().pair_round(stage("ABCDEF", rounds, pairing="olympiad-2022"), 3)
    assert [frozenset((p.first, p.second)) for p in olympiad.pairings] == [
        frozenset("AD"),
        frozenset("BE"),
        frozenset("CF"),
    ]


def test_an_odd_group_floats_its_lowest_team_down_to_the_top_of_the_next() -> None:
    # Round 1: A beat D 5-3, B beat E 6-2, C beat F 7-1. 2 MP by game points: C 7, B 6, A 5 (odd: A, the
    # lowest, floats down); 0 MP: D 3, E 2, F 1. The lower bracket is A, D, E, F: 1 v 3 = A-E, 2 v 4 = D-F.
    state = stage("ABCDEF", [m(1, "A", "D", 5), m(1, "B", "E", 6), m(1, "C", "F", 7)])
    # Colours: C and B both had White (same history): C, ranked higher, gets its wish (Black); E had
    # Black, A White: E White; D and F both had Black: D, ranked higher, gets White.
    assert paired(state) == ([("B", "C"), ("E", "A"), ("D", "F")], None)


def test_a_rematch_is_avoided_by_transposing_within_the_group() -> None:
    # Round 1 was 1 v 4, 2 v 5, 3 v 6 and every match was drawn 4-4: one group, equal game points, so the
    # order is A..F again and A-D, B-E, C-F would all be rematches. The first order of the bottom half
    # with no rematch is E F D (D E F, D F E, E D F all repeat one): A-E, B-F, C-D.
    state = stage("ABCDEF", [m(1, "A", "D", 4), m(1, "B", "E", 4), m(1, "C", "F", 4)])
    pairs, _ = paired(state)
    assert [frozenset(p) for p in pairs] == [frozenset("AE"), frozenset("BF"), frozenset("CD")]


def test_a_rematch_is_avoided_by_exchanging_between_the_halves_when_no_transposition_works() -> None:
    # Four teams, all drawn twice: A met C and D, B met C and D. The top half A, B can take no one of the
    # bottom half C, D: the halves are exchanged, A-B and C-D.
    rounds = [m(1, "A", "C", 4), m(1, "B", "D", 4), m(2, "A", "D", 4), m(2, "B", "C", 4)]
    pairs, _ = paired(stage("ABCD", rounds))
    assert [frozenset(p) for p in pairs] == [frozenset("AB"), frozenset("CD")]


def test_the_bye_goes_to_the_lowest_team_by_match_then_game_points_never_twice() -> None:
    # Round 1 of five: the lowest-ranked is E (everyone 0 MP and 0 GP, highest number).
    assert paired(stage("ABCDE"))[1] == "E"
    # Round 1: A beat C 5-3, B beat D 7-1, E bye (1 MP, 4 GP). 0 MP: C 3, D 1 GP, so D is the lowest.
    state = stage("ABCDE", [m(1, "A", "C", 5), m(1, "B", "D", 7), m(1, "E", None, 4)])
    assert paired(state)[1] == "D"
    # Round 2: A-B 4-4, C beat E 8-0, D had the bye. Before round 3: A 3, B 3, C 2, D 0+1 = 1 MP (GP
    # 1+4 = 5), E 1+0 = 1 MP (GP 4+0 = 4). E is the lowest and D next, both had the bye: C gets it.
    rounds = [m(1, "A", "C", 5), m(1, "B", "D", 7), m(1, "E", None, 4)]
    rounds += [m(2, "A", "B", 4), m(2, "C", "E", 8), m(2, "D", None, 4)]
    assert paired(stage("ABCDE", rounds))[1] == "C"


def test_a_default_win_does_not_bar_the_bye_here() -> None:
    # The Olympiad rules (art. 4.2.2) bar a team that won by default; this reading only bars a second bye.
    # Round 1: A bye, C beat B by default. Round 2: B bye, A beat C 8-0. Before round 3: A 3, C 2, B 1:
    # B had the bye, so C, the next lowest, gets it and A meets B.
    forfeit = MatchRecord(1, "B", "C", 0, 8, MatchForfeit.B_WINS)
    state = stage("ABC", [m(1, "A", None, 4), forfeit, m(2, "B", None, 4), m(2, "A", "C", 8)])
    pairs, bye = paired(state)
    assert bye == "C" and [frozenset(p) for p in pairs] == [frozenset("AB")]
