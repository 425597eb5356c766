"""Golden edge cases of a team Swiss stage (docs/swiss.md): limits of late entries, withdrawals and
absences, the results a round may hold, points after a given round, and every refusal's exact message,
round and teams, so a captain or arbiter is told precisely what is wrong."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord, MatchScoring
from orchestrator.domain.swiss import (
    ByeValue,
    RoundPairing,
    SwissError,
    SwissPairingError,
    SwissState,
    SwissTeam,
    add_late_entry,
    bye_match,
    check_pairing,
    check_round_can_be_paired,
    initial_ranking_key,
    mark_absent,
    record_round,
    start_state,
    withdraw_team,
)
from orchestrator.domain.swiss.pairing import Pairing


def t(name: str, *ratings: int, joined: int = 1) -> SwissTeam:
    return SwissTeam(name, tuple(ratings), joined=joined)


def four(rounds: int = 5) -> SwissState:
    return start_state([t("A"), t("B"), t("C"), t("D")], boards=4, rounds=rounds)


def exactly(message: str) -> str:
    return f"^{re.escape(message)}$"


# --- the stage and its teams --------------------------------------------------------------------------------


def test_the_initial_ranking_key_is_the_average_of_the_four_best_then_the_fifth_then_the_name() -> None:
    # (2600 + 2500 + 2400 + 2300) / 4 = 2450; fifth 2200.
    assert initial_ranking_key(t("Abc", 2200, 2600, 2500, 2400, 2300)) == (-2450, -2200, "abc", "Abc")
    # Two players: the missing ratings count 0, (2600 + 2500) / 4 = 1275.
    assert initial_ranking_key(t("B", 2500, 2600)) == (-Fraction(5100, 4), 0, "b", "B")


def test_a_stage_keeps_its_name_scoring_and_bye_value() -> None:
    assert start_state([t("A"), t("B")], boards=4, rounds=1).name == "Swiss"
    scoring = MatchScoring(win=3, draw=1, loss=0)
    state = start_state([t("A"), t("B")], boards=4, rounds=1, scoring=scoring, name="Open Swiss")
    assert (state.name, state.scoring, state.rounds) == ("Open Swiss", scoring, 1)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"teams": (t("A"), t("B"), t("A"), t("B"), t("C"))}, "team names must be unique: A, B"),
        ({"boards": 0}, "a Swiss stage needs at least one board and one round"),
        ({"rounds": 0}, "a Swiss stage needs at least one board and one round"),
        ({"initial_colour": "w"}, "initial colour must be W or B, not 'w'"),
        ({"matches": (MatchRecord(1, "A", "Z", 4, 4),)}, "round 1: unknown team 'Z'"),
    ],
)
def test_a_stage_that_breaks_the_rules_is_refused_with_the_reason(
    kwargs: dict[str, object], message: str
) -> None:
    fields: dict[str, object] = {"teams": (t("A"), t("B")), "boards": 4, "rounds": 5} | kwargs
    with pytest.raises(SwissError, match=exactly(message)):
        SwissState(**fields)  # type: ignore[arg-type]


def test_an_unknown_team_has_no_pairing_number() -> None:
    with pytest.raises(SwissError, match=exactly("unknown team 'Z'")):
        four().tpn("Z")


def test_a_late_entry_may_join_in_the_last_round_but_not_after_it_nor_twice() -> None:
    state = add_late_entry(four(rounds=5), t("E", joined=5))
    assert state.available(5) == ("A", "B", "C", "D", "E")
    with pytest.raises(SwissError, match=exactly("F cannot join in round 6: the stage has 5")):
        add_late_entry(state, t("F", joined=6))
    with pytest.raises(SwissError, match=exactly("E is already in the stage")):
        add_late_entry(state, t("E", joined=4))


def test_a_team_cannot_be_withdrawn_or_marked_absent_from_a_round_already_paired() -> None:
    state = record_round(four(), [MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 5, 3)])
    with pytest.raises(SwissError, match=exactly("round 1 is already paired: withdraw D from a later round")):
        withdraw_team(state, "D", from_round=1)
    with pytest.raises(
        SwissError, match=exactly("round 1 is already paired: B cannot be marked absent for it")
    ):
        mark_absent(state, "B", round_no=1)
    assert withdraw_team(state, "D", from_round=2).available(2) == ("A", "B", "C")


# --- recording rounds and counting points -------------------------------------------------------------


def test_a_bye_is_recorded_with_its_game_points_for_the_team_and_nothing_for_nobody() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=3, bye=ByeValue(gp=6))
    assert bye_match(state, "C", 2) == MatchRecord(2, "C", None, 6, 0)


@pytest.mark.parametrize(
    ("matches", "message"),
    [
        ([MatchRecord(2, "A", "B", 4, 4)], "round 2 recorded while round 1 is the next one"),
        ([MatchRecord(1, "A", "B", 5, 5)], "round 1: A – B scores more than 4 boards"),
        ([MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "B", "A", 4, 4)], "round 1: A, B paired twice"),
        ([MatchRecord(1, "A", "E", 4, 4)], "round 1: E is not to be paired in this round"),
    ],
)
def test_a_round_that_breaks_the_rules_is_refused_with_the_reason(
    matches: list[MatchRecord], message: str
) -> None:
    state = add_late_entry(four(), t("E", joined=2))
    with pytest.raises(SwissError, match=exactly(message)):
        record_round(state, matches)


def test_a_whole_match_forfeit_may_carry_every_boards_points() -> None:
    # A forfeit win scores 8 half-points on 4 boards; it is not a played match, so no board total applies.
    state = record_round(
        four(), [MatchRecord(1, "A", "B", 8, 0, MatchForfeit.A_WINS), bye_match(four(), "C", 1)]
    )
    assert state.points("A") == (2, 8)


def test_points_count_every_match_of_the_team_up_to_the_round_asked() -> None:
    # R1: A-B 2.5-1.5 (5-3 half-points), C-D 2-2, E the bye (1 MP, 4 half-points).
    # R2: E-A 3-1, B-C 1-3 (D not paired: withdrawn from round 2).
    state = add_late_entry(four(), t("E", joined=1))
    state = withdraw_team(state, "D", from_round=2)
    state = record_round(
        state, [MatchRecord(1, "A", "B", 5, 3), MatchRecord(1, "C", "D", 4, 4), bye_match(state, "E", 1)]
    )
    state = record_round(state, [MatchRecord(2, "E", "A", 6, 2), MatchRecord(2, "B", "C", 2, 6)])
    # E: bye 1 MP + 4, then a win 2 MP + 6: (3, 10). A: (2, 5) then a loss: (2, 7). C: (1, 4) + (2, 6).
    assert [state.points(team) for team in "ABCDE"] == [(2, 7), (0, 5), (3, 10), (1, 4), (3, 10)]
    assert [state.points(team, through=1) for team in "ABCDE"] == [(2, 5), (0, 3), (1, 4), (1, 4), (1, 4)]


# --- pairing a round: every refusal names the round and the teams -------------------------------------


def refusal(call: object, *args: object) -> tuple[str, int, tuple[str, ...]]:
    with pytest.raises(SwissPairingError) as refused:
        call(*args)  # type: ignore[operator]
    return str(refused.value), refused.value.round_no, refused.value.teams


def test_a_round_that_cannot_be_paired_is_refused_with_its_number_and_teams() -> None:
    three_rounds = four(rounds=3)
    assert refusal(check_round_can_be_paired, three_rounds, 2) == (
        "round 2 cannot be paired: the next round is 1",
        2,
        (),
    )
    unknown = start_state([t("A"), t("B")], boards=4, rounds=3, pairing="dutch")
    assert refusal(check_round_can_be_paired, unknown, 1) == (
        "pairing system 'dutch' is unknown; use one of fide-team-swiss, olympiad-2022, score-group-halves",
        1,
        (),
    )
    later = start_state([t("A"), t("B")], boards=4, rounds=3, pairing="olympiad-2022")
    assert refusal(check_round_can_be_paired, later, 1)[0] == (
        "the stage is paired by 'olympiad-2022', not by the 'fide-team-swiss' engine"
    )
    one_round = record_round(
        start_state([t("A"), t("B")], boards=4, rounds=1), [MatchRecord(1, "A", "B", 4, 4)]
    )
    assert refusal(check_round_can_be_paired, one_round, 2) == (
        "round 2 cannot be paired: the stage has 1 rounds",
        2,
        (),
    )
    nobody = mark_absent(mark_absent(three_rounds, "A", round_no=1), "B", round_no=1)
    nobody = mark_absent(mark_absent(nobody, "C", round_no=1), "D", round_no=1)
    assert refusal(check_round_can_be_paired, nobody, 1) == (
        "round 1 cannot be paired: too few teams to pair (none)",
        1,
        (),
    )
    only_a = mark_absent(
        mark_absent(mark_absent(three_rounds, "B", round_no=1), "C", round_no=1), "D", round_no=1
    )
    assert refusal(check_round_can_be_paired, only_a, 1)[1:] == (1, ("A",))
    played = record_round(start_state([t("A"), t("B")], boards=4, rounds=3), [MatchRecord(1, "A", "B", 4, 4)])
    assert refusal(check_round_can_be_paired, played, 2) == (
        "round 2 cannot be paired: every remaining pairing is a rematch (A, B)",
        2,
        ("A", "B"),
    )
    assert check_round_can_be_paired(three_rounds, 1) == ("A", "B", "C", "D")


def test_the_last_round_of_the_stage_can_be_paired() -> None:
    state = record_round(four(rounds=2), [MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 4, 4)])
    assert check_round_can_be_paired(state, 2) == ("A", "B", "C", "D")


def test_a_pairing_with_a_stray_missing_or_doubled_team_is_refused_naming_them() -> None:
    state = withdraw_team(add_late_entry(four(), t("E", joined=1)), "E", from_round=1)
    stray = RoundPairing(1, (Pairing(1, "A", "B"), Pairing(2, "C", "D")), "E")
    assert refusal(check_pairing, state, stray) == ("round 1: E not to be paired", 1, ("E",))
    missing = RoundPairing(1, (Pairing(1, "A", "B"),))
    assert refusal(check_pairing, state, missing) == ("round 1: C, D left out", 1, ("C", "D"))
    doubled = RoundPairing(1, (Pairing(1, "A", "B"), Pairing(2, "C", "D"), Pairing(3, "A", "B")))
    assert refusal(check_pairing, state, doubled) == ("round 1: A, B paired twice", 1, ("A", "B"))
    check_pairing(state, RoundPairing(1, (Pairing(1, "A", "B"), Pairing(2, "C", "D"))))


def test_a_rematch_or_a_second_bye_is_refused_naming_the_teams() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=3)
    state = record_round(state, [MatchRecord(1, "A", "B", 4, 4), bye_match(state, "C", 1)])
    rematch = RoundPairing(2, (Pairing(1, "B", "A"),), "C")
    assert refusal(check_pairing, state, rematch) == (
        "round 2: B and A have already played each other",
        2,
        ("B", "A"),
    )
    assert refusal(check_pairing, state, RoundPairing(2, (Pairing(1, "A", "B"),), "C"))[1:] == (2, ("A", "B"))
    five = start_state([t("A"), t("B"), t("C"), t("D"), t("E")], boards=4, rounds=3)
    five = record_round(
        five, [MatchRecord(1, "A", "B", 4, 4), MatchRecord(1, "C", "D", 4, 4), bye_match(five, "E", 1)]
    )
    second_bye = RoundPairing(2, (Pairing(1, "A", "C"), Pairing(2, "B", "D")), "E")
    assert refusal(check_pairing, five, second_bye) == (
        "round 2: E cannot receive the pairing-allocated bye",
        2,
        ("E",),
    )


def test_a_round_pairings_bye_becomes_the_byes_record() -> None:
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=3)
    assert RoundPairing(2, (Pairing(1, "A", "B"),), "C").bye_record(state) == MatchRecord(2, "C", None, 4, 0)
    assert RoundPairing(2, (Pairing(1, "A", "B"),)).bye_record(state) is None


def test_a_bye_adds_to_the_points_a_team_already_has() -> None:
    # R1: A-B 2.5-1.5 (5-3 half-points), C the bye. R2: B-C 2-2, A the bye (1 MP, 4 half-points).
    state = start_state([t("A"), t("B"), t("C")], boards=4, rounds=3)
    state = record_round(state, [MatchRecord(1, "A", "B", 5, 3), bye_match(state, "C", 1)])
    state = record_round(state, [MatchRecord(2, "B", "C", 4, 4), bye_match(state, "A", 2)])
    assert [state.points(team) for team in "ABC"] == [(2 + 1, 5 + 4), (0 + 1, 3 + 4), (1 + 1, 4 + 4)]
