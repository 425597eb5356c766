"""The score-group halves engine (domain/swiss/halves.py, docs/swiss.md "The shared engine: score groups
paired by halves") through ``score-group-halves``, worked by hand: the boards and colours of round 1 by the
colour drawn by lot (Olympiad Pairing Rules 2022 art. 7.2), the teams not paired, the refusal of a round
that cannot be paired, the floaters of an odd bracket (the lowest first, only when what is below stays
pairable) and the weighted matching that chooses them when too many sets of floaters would be tried.

Teams are named A, B, C, ... in initial pairing-number order (A is number 1). Game points are in
half-points: a four-board match shares 8."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import pytest

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss import SwissState, SwissTeam, halves
from orchestrator.domain.swiss.pairing import SwissPairingError
from orchestrator.domain.swiss.score_group_halves import ScoreGroupHalvesPairer

PAIRER = ScoreGroupHalvesPairer()


def stage(
    teams: str | Sequence[SwissTeam], matches: Sequence[MatchRecord] = (), *, initial: str = "W"
) -> SwissState:
    listed = tuple(SwissTeam(name) for name in teams) if isinstance(teams, str) else tuple(teams)
    return SwissState(
        listed,
        boards=4,
        rounds=9,
        matches=tuple(matches),
        initial_colour=initial,
        pairing="score-group-halves",
    )


def m(rnd: int, first: str, second: str | None, gp_first: int) -> MatchRecord:
    return MatchRecord(rnd, first, second, gp_first, 8 - gp_first if second else 0)


def paired(state: SwissState, round_no: int | None = None) -> tuple[list[tuple[str, str]], str | None]:
    found = PAIRER.pair_round(state, round_no or state.rounds_played + 1)
    return [(p.first, p.second) for p in found.pairings], found.bye


@contextmanager
def float_sets(limit: int) -> Iterator[None]:
    """At most ``limit`` sets of floaters tried per bracket before the weighted matching chooses them."""
    saved = halves.MAX_FLOAT_SETS
    halves.MAX_FLOAT_SETS = limit
    try:
        yield
    finally:
        halves.MAX_FLOAT_SETS = saved


def test_art_7_2_round_one_gives_the_higher_ranked_team_the_drawn_colour_on_odd_boards() -> None:
    # 1 v 4, 2 v 5, 3 v 6 on boards 1, 2, 3; the higher-ranked team has the drawn colour on boards 1 and 3.
    assert paired(stage("ABCDEF", initial="W")) == ([("A", "D"), ("E", "B"), ("C", "F")], None)
    assert paired(stage("ABCDEF", initial="B")) == ([("D", "A"), ("B", "E"), ("F", "C")], None)


def test_teams_not_to_be_paired_are_listed_and_the_others_paired() -> None:
    teams = [
        SwissTeam("A"),
        SwissTeam("B", absent=frozenset({1})),
        SwissTeam("C"),
        SwissTeam("D"),
        SwissTeam("E"),
    ]
    found = PAIRER.pair_round(stage(teams), 1)
    assert found.round == 1
    assert found.not_paired == ("B",)
    assert [(p.board, p.first, p.second) for p in found.pairings] == [(1, "A", "D"), (2, "E", "C")]
    assert found.bye is None


def test_an_even_round_without_a_pairing_that_avoids_every_rematch_is_refused_with_its_teams() -> None:
    # A, B and C met each other (each had the bye once); D joins in round 4 and may meet any of them, but
    # one of A, B, C is left without an opponent whatever the pairing.
    rounds = [m(1, "A", "B", 4), m(1, "C", None, 4), m(2, "A", "C", 4), m(2, "B", None, 4)]
    rounds += [m(3, "B", "C", 4), m(3, "A", None, 4)]
    teams = [SwissTeam("A"), SwissTeam("B"), SwissTeam("C"), SwissTeam("D", joined=4)]
    with pytest.raises(SwissPairingError) as refused:
        PAIRER.pair_round(stage(teams, rounds), 4)
    assert str(refused.value) == (
        "round 4 cannot be paired by score-group-halves: every way of pairing them repeats a match already "
        "played; teams to pair: A, B, C, D"
    )
    assert refused.value.round_no == 4
    assert refused.value.teams == ("A", "B", "C", "D")


def test_art_4_an_odd_round_where_no_bye_leaves_the_others_pairable_is_refused() -> None:
    # As above, with D and E joining in round 4: only they may have the bye, and either one's bye leaves
    # A, B and C to share the other.
    rounds = [m(1, "A", "B", 4), m(1, "C", None, 4), m(2, "A", "C", 4), m(2, "B", None, 4)]
    rounds += [m(3, "B", "C", 4), m(3, "A", None, 4)]
    teams = [SwissTeam(n) for n in "ABC"] + [SwissTeam(n, joined=4) for n in "DE"]
    with pytest.raises(SwissPairingError) as refused:
        PAIRER.pair_round(stage(teams, rounds), 4)
    assert str(refused.value) == (
        "round 4 cannot be paired by score-group-halves: no team may receive the bye and leave the others "
        "pairable without a rematch; teams to pair: A, B, C, D, E"
    )
    assert refused.value.teams == ("A", "B", "C", "D", "E")


def test_a_bracket_whose_two_teams_have_met_floats_both_down() -> None:
    # Round 1: A-D, B-E, C-F, each won 5-3 by the first team; round 2: A beat B, C beat D, E beat F, 5-3.
    # Before round 3: A 4 MP, C 4 MP (both 10 GP); B 2 MP (8 GP), E 2 MP (8 GP); D and F 0 MP.
    # A-C; B and E met in round 1, so both float to D and F: B-D is a pairing (1 v 3), E-F a rematch, so
    # the bottom half is transposed: B-F, E-D.
    rounds = [m(1, "A", "D", 5), m(1, "B", "E", 5), m(1, "C", "F", 5)]
    rounds += [m(2, "A", "B", 5), m(2, "C", "D", 5), m(2, "E", "F", 5)]
    pairs, bye = paired(stage("ABCDEF", rounds))
    assert bye is None
    assert sorted(frozenset(p) for p in pairs) == sorted([frozenset("AC"), frozenset("BF"), frozenset("DE")])


def test_the_weighted_matching_floats_the_same_teams_when_no_set_may_be_tried() -> None:
    rounds = [m(1, "A", "D", 5), m(1, "B", "E", 6), m(1, "C", "F", 7)]
    expected = ([("B", "C"), ("E", "A"), ("D", "F")], None)
    assert paired(stage("ABCDEF", rounds)) == expected
    for limit in (0, 1):
        with float_sets(limit):
            assert paired(stage("ABCDEF", rounds)) == expected


# Before round 5 of eight teams (match points, game points, the teams each has met):
#   C 7 26 (A D E G) | A 5 18 (B C D E) | D 4 18 (A C F H), E 4 16 (A C G H), H 4 16 (B D E F)
#   B 3 12 (A F G H), G 3 12 (B C E F) | F 2 10 (B D G H)
# C floats alone to A, which it met: both float to D, E, H. That bracket of five cannot keep four (a
# single floater, lowest first, H, E, D, A, C: each leaves a side unpairable), so three float. The sets
# of three are tried lowest-ranked first: (H E D), (H E A), (H E C), (H D A), (H D C) leave two that met;
# (H A C) leaves D-E, and C, A, H pair with B, G, F below (B-C is B's only pairing). That is the eleventh
# set tried in that bracket (the two brackets above it try one and two).
EIGHT = [
    m(1, "A", "E", 4), m(1, "F", "B", 2), m(1, "C", "G", 8), m(1, "H", "D", 0),
    m(2, "D", "C", 4), m(2, "B", "A", 2), m(2, "E", "G", 8), m(2, "H", "F", 4),
    m(3, "C", "E", 8), m(3, "A", "D", 6), m(3, "B", "H", 0), m(3, "G", "F", 8),
    m(4, "A", "C", 2), m(4, "F", "D", 4), m(4, "E", "H", 4), m(4, "G", "B", 4),
]  # fmt: skip
LOWEST_FIRST = [("C", "B"), ("F", "A"), ("D", "E"), ("H", "G")]
# The weighted matching costs each floater more the higher it is ranked (5 for the bracket's first, C, down
# to 1 for its fifth, H), summed: A, D, E cost 4 + 3 + 2 = 9, less than C, A, H (5 + 4 + 1 = 10), and every
# set of three cheaper than 9 leaves two that met, so it floats A, D and E and keeps C-H.
BY_MATCHING = [("H", "C"), ("G", "A"), ("D", "B"), ("F", "E")]


def test_floaters_are_chosen_lowest_ranked_first_trying_sets_of_one_then_of_three() -> None:
    assert paired(stage("ABCDEFGH", EIGHT)) == (LOWEST_FIRST, None)


def test_the_weighted_matching_chooses_the_floaters_only_past_the_limit_of_sets_tried() -> None:
    with float_sets(11):
        assert paired(stage("ABCDEFGH", EIGHT)) == (LOWEST_FIRST, None)
    with float_sets(10):
        assert paired(stage("ABCDEFGH", EIGHT)) == (BY_MATCHING, None)
    with float_sets(0):
        assert paired(stage("ABCDEFGH", EIGHT)) == (BY_MATCHING, None)
