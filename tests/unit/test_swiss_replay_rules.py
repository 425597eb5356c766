"""Replaying a team Swiss round by round (docs/swiss.md, "Replaying a real Olympiad") on events small
enough to follow by hand: the state each round is paired from, the published pairs compared with ours as
unordered pairs, and the article a difference is told from (a float between score groups when the two
teams' match points differ, the pairing within one group otherwise).
"""

from __future__ import annotations

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.c046 import C046Pairer
from orchestrator.domain.swiss.model import RequestedBye, ScoreAdjustment, SwissState, SwissTeam
from orchestrator.domain.swiss.olympiad2022 import Olympiad2022Pairer
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, OLYMPIAD_2022
from orchestrator.domain.swiss.replay import (
    Difference,
    PublishedMatch,
    RoundReplay,
    published_state,
    replay,
    replay_round,
    replay_state,
    state_before,
)

TEAMS = list("ABCDEF")
WON = ("1-0", "0-1")  # the first-named team wins both boards (White on 1, Black on 2)
C046_WITHIN = "C.04.6 (the pairing within a bracket)"
C046_FLOAT = "C.04.6 (a float between brackets)"


def _p(first: str, second: str, boards: tuple[str | None, ...] = WON) -> PublishedMatch:
    return PublishedMatch(first, second, boards)


def test_published_game_points_count_odd_boards_for_white_and_even_ones_for_black() -> None:
    assert _p("A", "B", ("1-0", "1-0")).game_points() == (2, 2)
    assert _p("A", "B", ("0-1", "0-1")).game_points() == (2, 2)
    assert _p("A", "B", ("1/2-1/2", "0-0", None, "1-0")).game_points() == (1, 3)
    assert _p("A", "B", ("0-0", "0-0")).game_points() == (0, 0)


def test_the_state_before_a_round_holds_the_earlier_results_and_the_teams_missing_up_to_it() -> None:
    rounds = {
        1: [_p("A", "B"), _p("C", "D")],  # E and F missing: not paired in round 1
        2: [_p("A", "C"), _p("B", "D", ("1/2-1/2", "0-0")), _p("E", "F")],
        3: [_p("A", "E")],  # B, C, D, F missing from the round to pair
        4: [_p("A", "B")],  # the round after: no absence yet
    }
    state = published_state(
        TEAMS,
        rounds,
        before=3,
        boards=2,
        total_rounds=5,
        pairing=OLYMPIAD_2022,
        unpaired_draws=frozenset({(1, "E"), (3, "B")}),
    )
    assert [team.name for team in state.teams] == TEAMS
    assert {team.name: team.absent for team in state.teams} == {
        "A": frozenset(),
        "B": frozenset({3}),
        "C": frozenset({3}),
        "D": frozenset({3}),
        "E": frozenset({1}),
        "F": frozenset({1, 3}),
    }
    assert state.matches == (
        MatchRecord(1, "A", "B", 4, 0),
        MatchRecord(1, "C", "D", 4, 0),
        MatchRecord(1, "E", None, 2, 0),  # credited as a drawn match: half the boards' game points
        MatchRecord(2, "A", "C", 4, 0),
        MatchRecord(2, "B", "D", 1, 1),
        MatchRecord(2, "E", "F", 4, 0),
    )
    assert (state.boards, state.rounds, state.pairing, state.name) == (2, 5, OLYMPIAD_2022, "replay")


def test_a_round_the_source_does_not_hold_gives_no_result_and_no_absence() -> None:
    rounds = {1: [_p("A", "B")], 3: [_p("A", "B")]}
    state = published_state(TEAMS[:2], rounds, before=3, boards=2, total_rounds=3, pairing=FIDE_TEAM_SWISS)
    assert state.matches == (MatchRecord(1, "A", "B", 4, 0),)
    assert [team.absent for team in state.teams] == [frozenset(), frozenset()]


def test_published_pairs_are_compared_as_unordered_pairs() -> None:
    # After round 1 A, C and E lead on 2 MP; round 2 pairs A - C and B - D (E and F missing).
    rounds = {1: [_p("A", "B"), _p("C", "D"), _p("E", "F")], 2: [_p("C", "A"), _p("D", "B")]}
    found = replay(C046Pairer(), TEAMS, rounds, boards=2, total_rounds=5, pairing=FIDE_TEAM_SWISS)
    assert [(r.round, r.reproduced, r.total) for r in found] == [(1, 0, 3), (2, 2, 2)]
    assert found[1] == RoundReplay(2, 2, 2, ())


def test_a_pair_within_one_score_group_is_told_from_the_pairing_within_the_group() -> None:
    # Round 1 (every team on 0 MP): C.04.6 pairs the top half against the bottom half, 1-4, 2-5, 3-6.
    rounds = {1: [_p("A", "B"), _p("C", "D"), _p("E", "F")]}
    found = replay_round(C046Pairer(), TEAMS, rounds, 1, boards=2, total_rounds=5, pairing=FIDE_TEAM_SWISS)
    assert found == RoundReplay(
        1,
        0,
        3,
        (
            Difference(("A", 0, 1), ("B", 0, 2), ("D", "E"), C046_WITHIN),
            Difference(("C", 0, 3), ("D", 0, 4), ("F", "A"), C046_WITHIN),
            Difference(("E", 0, 5), ("F", 0, 6), ("B", "C"), C046_WITHIN),
        ),
    )
    olympiad = replay_round(
        Olympiad2022Pairer(), TEAMS, rounds, 1, boards=2, total_rounds=5, pairing=OLYMPIAD_2022
    )
    assert {d.article for d in olympiad.differences} == {
        "Olympiad Pairing Rules 2022, arts. 6-7 (the pairing within a score group)"
    }


def test_a_pair_across_score_groups_is_told_from_a_float_and_ranks_follow_art_3_2() -> None:
    # Round 2 as published pairs A (2 MP) with B (0 MP): ours pairs the leaders A - C. The ranks are
    # by match points, then starting rank: A, C, E on 2 MP (1-3), then B, D, F (4-6).
    rounds = {1: [_p("A", "B"), _p("C", "D"), _p("E", "F")], 2: [_p("A", "B"), _p("C", "D")]}
    found = replay_round(C046Pairer(), TEAMS, rounds, 2, boards=2, total_rounds=5, pairing=FIDE_TEAM_SWISS)
    assert found.differences == (
        Difference(("A", 2, 1), ("B", 0, 4), ("C", "D"), C046_FLOAT),
        Difference(("C", 2, 2), ("D", 0, 5), ("A", "B"), C046_FLOAT),
    )
    olympiad = replay_round(
        Olympiad2022Pairer(), TEAMS, rounds, 2, boards=2, total_rounds=5, pairing=OLYMPIAD_2022
    )
    assert {d.article for d in olympiad.differences} == {
        "Olympiad Pairing Rules 2022, art. 6 (a float between score groups)"
    }


def _stage() -> SwissState:
    absent = {"C": {4}, "D": {3}, "F": {1, 3}}
    teams = tuple(SwissTeam(name, absent=frozenset(absent.get(name, ()))) for name in "ABCDEF")
    return SwissState(
        teams,
        boards=2,
        rounds=5,
        matches=(
            MatchRecord(1, "A", "B", 4, 0),
            MatchRecord(1, "C", "D", 4, 0),
            MatchRecord(1, "E", None, 2, 0),
            MatchRecord(2, "A", "C", 4, 0),
            MatchRecord(2, "B", "D", 4, 0),
            MatchRecord(2, "E", "F", 4, 0),
            MatchRecord(3, "A", "E", 4, 0),
        ),
        adjustments=(
            ScoreAdjustment("A", 2, 1, 0),
            ScoreAdjustment("B", 3, 1, 0),
            ScoreAdjustment("C", 4, 1, 0, pairing=False),
        ),
        requested_byes=(RequestedBye("D", 3, True), RequestedBye("C", 4, False)),
    )


def test_a_stage_before_a_round_keeps_what_the_rounds_before_it_decided() -> None:
    stage = _stage()
    before = state_before(stage, 3)
    assert before.matches == stage.matches[:6]
    # Points adjusted for pairing in round r count from round r + 1 on; the others (not for pairing)
    # always; absences and requested byes up to the round to pair.
    assert before.adjustments == (ScoreAdjustment("A", 2, 1, 0), ScoreAdjustment("C", 4, 1, 0, pairing=False))
    assert before.requested_byes == (RequestedBye("D", 3, True),)
    assert [team.absent for team in before.teams] == [set(), set(), set(), {3}, set(), {1, 3}]
    assert state_before(stage, 2).teams[5].absent == frozenset({1})
    assert (before.boards, before.rounds, before.name) == (stage.boards, stage.rounds, stage.name)


def test_a_whole_stage_is_replayed_from_its_own_pairs_without_its_byes() -> None:
    stage = SwissState(_stage().teams, boards=2, rounds=5, matches=_stage().matches[:6])
    # Round 1: four teams (F absent, E's bye is no pair): ours 1-3, 2-4. Round 2: A - C again, then E
    # (1 MP from its bye) floats down to B, the top of the 0-MP group, and D meets F.
    found = replay_state(C046Pairer(), stage, 2)
    assert found == (
        RoundReplay(
            1,
            0,
            2,
            (
                Difference(("A", 0, 1), ("B", 0, 2), ("C", "D"), C046_WITHIN),
                Difference(("C", 0, 3), ("D", 0, 4), ("A", "B"), C046_WITHIN),
            ),
        ),
        RoundReplay(
            2,
            1,
            3,
            (
                Difference(("B", 0, 4), ("D", 0, 5), ("E", "F"), C046_WITHIN),
                Difference(("E", 1, 3), ("F", 0, 6), ("B", "D"), C046_FLOAT),
            ),
        ),
    )
