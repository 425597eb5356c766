"""C.04.6 (the Swiss Team Pairing System, docs/swiss.md "The engines") on score groups built by hand: the
bye of art. 3.4, the upfloaters of art. 3.5 ([C4] fewest, [C5] highest scores, [C6] the next scoregroup
paired without more upfloaters, [C7] no team that floated in the previous round), the costs of [C8] and
[C10] and the weights that order them before the identifier of art. 3.6.2. The small golden events of
``test_swiss_c046_goldens.py`` never part two pairings on these choices."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import pytest

from orchestrator.domain.scoring import MatchRecord, no_show
from orchestrator.domain.swiss.c046 import (
    C046Pairer,
    NoLegalPairing,
    Team,
    _Round,
    board_order,
    bracket_weights,
    teams_before,
)
from orchestrator.domain.swiss.model import Acceleration, RequestedBye, ScoreAdjustment, SwissState, SwissTeam
from orchestrator.domain.swiss.pairing import SwissPairingError


def _team(
    tpn: int,
    level: int,
    *,
    met: frozenset[int] = frozenset(),
    floated: bool = False,
    pref: str = "",
    played: int = 0,
    no_bye: bool = False,
) -> Team:
    return Team(tpn, f"T{tpn}", level, 0, level, played, 0, "", pref, floated, no_bye, met)


def _round(*teams: Team, last_two: bool = False) -> _Round:
    return _Round({t.tpn: t for t in teams}, [t.tpn for t in teams], last_two=last_two)


def _met(pairs: list[tuple[int, int]]) -> dict[int, frozenset[int]]:
    out: dict[int, set[int]] = {}
    for a, b in pairs:
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {n: frozenset(v) for n, v in out.items()}


def _teams(
    levels: dict[int, int], met: Sequence[tuple[int, int]] = (), floated: Collection[int] = ()
) -> list[Team]:
    known = _met(list(met))
    return [
        _team(n, level, met=known.get(n, frozenset()), floated=n in floated) for n, level in levels.items()
    ]


def test_c8_counts_two_teams_with_the_same_colour_preference() -> None:
    process = _round(_team(1, 1), _team(2, 1))
    assert process._cost(1, _team(1, 1, pref="w"), _team(2, 1, pref="w")) == 1000
    assert process._cost(1, _team(1, 1, pref="b"), _team(2, 1, pref="b")) == 1000
    assert process._cost(1, _team(1, 1, pref="w"), _team(2, 1, pref="b")) == 0
    assert process._cost(1, _team(1, 1), _team(2, 1)) == 0  # no preference: nothing to clash
    assert process._cost(1, _team(1, 1, pref="w"), _team(2, 1)) == 0


def test_c10_counts_an_upfloater_whose_opponent_floated_in_the_previous_round() -> None:
    process = _round(_team(1, 2), _team(2, 1))
    resident, upfloater = _team(1, 2, floated=True), _team(2, 1, floated=True)
    assert process._cost(2, resident, upfloater) == 1  # the upfloater meets a team that floated
    assert process._cost(2, upfloater, resident) == 1
    assert process._cost(2, _team(1, 2), upfloater) == 0  # the resident did not float
    assert process._cost(2, resident, _team(3, 2)) == 0  # no upfloater in the pair
    assert process._cost(3, _team(1, 2, floated=True), _team(2, 2, floated=True)) == 2  # both upfloaters
    last = _round(_team(1, 2), _team(2, 1), last_two=True)
    assert last._cost(2, resident, upfloater) == 0  # art. 2.3.7 does not apply in the last two rounds
    assert last._cost(2, _team(1, 2, pref="w"), _team(2, 1, pref="w", floated=True)) == 1000


def test_bracket_weights_put_c8_before_c10_before_the_identifier() -> None:
    # Four teams: base 5, a top member t and bottom member b weigh 625 * 2**(4 - b) + b * 5**(4 - t);
    # one [C10] failure 625 * 2**4 = 10,000, one [C8] failure 10,000 * 25.
    assert bracket_weights(4, {(0, 3): 0, (1, 2): 2, (0, 1): 1000, (2, 3): 1001}) == {
        (0, 3): 625 + 4 * 125,
        (1, 2): 2 * 10_000 + 625 * 2 + 3 * 25,
        (0, 1): 250_000 + 625 * 4 + 2 * 125,
        (2, 3): 250_000 + 10_000 + 625 + 4 * 5,
    }
    assert bracket_weights(2, {(0, 1): 1001}) == {(0, 1): 324 + 36 + 9 + 2 * 3}


def test_the_bye_goes_to_the_lowest_score_then_the_most_played_then_the_largest_tpn() -> None:
    # Art. 3.4.2-3.4.4 among teams that leave the others pairable (3.4.1); [C2] bars a team.
    process = _round(
        _team(1, 2), _team(2, 1, played=2), _team(3, 1, played=1), _team(4, 1, played=2), _team(5, 2)
    )
    assert process.bye() == 4
    assert process.remaining == [1, 5, 2, 3]
    barred = _round(
        _team(1, 2), _team(2, 1, played=2), _team(3, 1), _team(4, 1, played=2, no_bye=True), _team(5, 2)
    )
    assert barred.bye() == 2
    met = _met([(2, 1), (2, 3), (2, 4), (2, 5)])  # 3.4.1: team 2 can meet nobody
    blocked = _round(*(_team(n, 1, met=met.get(n, frozenset())) for n in range(1, 6)))
    assert blocked.bye() == 2  # any other bye leaves team 2 with no possible opponent
    assert _round(_team(1, 1), _team(2, 1)).bye() is None


def test_the_upfloater_profiles_keep_the_lowest_upfloater_score_as_high_as_possible() -> None:
    # [C5] art. 2.3.2: lower teams on levels 3 (one), 2 (two), 1 (one); two upfloaters.
    teams = _teams({1: 4, 2: 3, 3: 2, 4: 2, 5: 1})
    process = _round(*teams)
    lower = [2, 3, 4, 5]
    assert process._profiles(lower, 2) == [(3, 2), (2, 2), (3, 1), (2, 1)]
    assert process._profiles(lower, 1) == [(3,), (2,), (1,)]
    assert process._profiles(lower, 0) == [()]
    assert process._profiles(lower, 4) == [(3, 2, 2, 1)]


def test_the_upfloater_sets_of_one_profile_come_by_descending_score_then_tpn() -> None:
    # Arts. 3.5.3-3.5.4: lexicographic order of the TPNs, each set highest score first.
    teams = _teams({1: 4, 2: 2, 3: 3, 4: 2, 5: 3, 6: 2})
    process = _round(*teams)
    lower = [2, 3, 4, 5, 6]
    assert list(process._sets(lower, (3, 2))) == [[3, 2], [3, 4], [3, 6], [5, 2], [5, 4], [5, 6]]
    assert list(process._sets(lower, (2, 2))) == [[2, 4], [2, 6], [4, 6]]
    assert list(process._sets(lower, ())) == [[]]


def test_c6_the_next_scoregroup_needs_no_more_upfloaters_than_its_size_asks() -> None:
    # Art. 2.3.3 as seen from scoregroup 3: what is left of scoregroup 2 (and below) after its upfloaters.
    teams = _teams({1: 3, 2: 2, 3: 2, 4: 1, 5: 1, 6: 0}, met=[(2, 3)])
    process = _round(*teams)
    assert process._c6(3, frozenset({4, 5}))  # nothing left of scoregroup 2
    assert not process._c6(3, frozenset({2, 3, 4, 5}))  # 2 and 3 met: an even group needs an upfloater
    assert _round(*_teams({1: 3, 2: 2, 3: 2, 4: 1, 5: 1}))._c6(3, frozenset({2, 3, 4, 5}))
    # An odd remainder takes one upfloater from any lower scoregroup, and the rest must stay pairable.
    odd = _teams({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 0, 7: 0}, met=[(5, 6), (5, 7)])
    assert _round(*odd)._c6(3, frozenset({2, 3, 4, 5, 6, 7}))  # 6 or 7 floats up, 5 meets the other


def test_c6_fails_when_no_single_upfloater_lets_the_next_scoregroup_pair() -> None:
    # Scoregroup 2 left with 2, 3, 4 (odd); the only lower teams, 5 and 6, have met all of them.
    met = [(a, b) for a in (2, 3, 4) for b in (5, 6)]
    teams = _teams({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}, met=met)
    assert not _round(*teams)._c6(3, frozenset({2, 3, 4, 5, 6}))


def test_c6_picks_the_upfloater_that_leaves_the_next_scoregroup_pairable() -> None:
    # Scoregroup 3 is team 1 alone: one upfloater from scoregroup 2 (2, 3, 4). Taking 2 leaves 3 and 4,
    # who have met: the next bracket would need upfloaters ([C6] fails), so 3 is taken (4 also complies,
    # but comes later in the order of art. 3.5.4).
    teams = _teams({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}, met=[(3, 4)])
    assert _round(*teams).select_upfloaters(3, [1]) == [3]


def test_c7_avoids_an_upfloater_that_floated_in_the_previous_round_except_in_the_last_two_rounds() -> None:
    levels = {1: 2, 2: 1, 3: 1, 4: 1}
    teams = _teams(levels, floated={2})
    assert _round(*teams).select_upfloaters(2, [1]) == [3]
    assert _round(*teams, last_two=True).select_upfloaters(2, [1]) == [2]
    all_floated = _teams(levels, floated={2, 3, 4})
    assert _round(*all_floated).select_upfloaters(2, [1]) == [2]  # every set fails alike: the first


def test_c6_comes_before_c7() -> None:
    # Taking 2 fails [C6] (3 and 4 have met) but not [C7]; 3 and 4 floated in the previous round: 3.
    teams = _teams({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}, met=[(3, 4)], floated={3, 4})
    assert _round(*teams).select_upfloaters(3, [1]) == [3]


def test_c4_an_even_scoregroup_that_can_pair_takes_no_upfloater() -> None:
    teams = _teams({1: 2, 2: 2, 3: 1, 4: 1})
    assert _round(*teams).select_upfloaters(2, [1, 2]) == []
    # 1 and 2 have met: two upfloaters, the highest set first.
    met = _teams({1: 2, 2: 2, 3: 1, 4: 1, 5: 1, 6: 1}, met=[(1, 2)])
    assert _round(*met).select_upfloaters(2, [1, 2]) == [3, 4]


def test_the_brackets_pair_every_scoregroup_from_the_top() -> None:
    teams = _teams({1: 3, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}, met=[(3, 4)])
    process = _round(*teams)
    assert sorted(tuple(sorted(p)) for p in process.brackets()) == [(1, 3), (2, 4), (5, 6)]
    assert process.remaining == []


def test_the_board_order_is_the_higher_score_then_the_sum_then_the_smaller_tpn() -> None:
    a, b, c, d = _team(4, 3), _team(1, 1), _team(2, 3), _team(3, 2)
    pairs = [(b, _team(5, 1)), (a, b), (c, d), (d, _team(6, 2))]
    assert sorted(pairs, key=board_order) == [(c, d), (a, b), (d, pairs[3][1]), pairs[0]]


def _after_two_rounds(**options: object) -> dict[str, bool]:
    # Round 1: A beats B, C beats D. Round 2: A - C (2 MP each), B - D (0 MP each): nobody floated.
    state = SwissState(
        tuple(SwissTeam(name) for name in "ABCD"),
        boards=2,
        rounds=5,
        matches=(
            MatchRecord(1, "A", "B", 4, 0),
            MatchRecord(1, "C", "D", 4, 0),
            MatchRecord(2, "A", "C", 2, 2),
            MatchRecord(2, "B", "D", 2, 2),
        ),
        **options,  # type: ignore[arg-type]
    )
    return {team.name: team.floated for team in teams_before(state, 3).values()}


def test_art_1_5_a_floater_is_told_from_the_scores_before_the_previous_round() -> None:
    assert _after_two_rounds() == {"A": False, "B": False, "C": False, "D": False}


def test_art_1_5_points_adjusted_before_the_previous_round_count_for_its_floats() -> None:
    # B's bonus of round 1 (record 299) counts from round 2 on: B (1 MP) met D (0 MP) in round 2.
    floated = _after_two_rounds(adjustments=(ScoreAdjustment("B", 1, 1, 0),))
    assert floated == {"A": False, "B": True, "C": False, "D": True}
    # A bonus of round 2 counts from round 3 on: it does not make round 2 a float.
    assert _after_two_rounds(adjustments=(ScoreAdjustment("B", 2, 1, 0),))["B"] is False


def test_art_1_5_the_virtual_points_of_the_previous_round_s_pairing_count_for_its_floats() -> None:
    # Record 250: D had one virtual match point for the pairing of round 2 only.
    floated = _after_two_rounds(accelerations=(Acceleration(1, 0, 2, 2, 4, 4),))
    assert floated == {"A": False, "B": True, "C": False, "D": True}
    assert _after_two_rounds(accelerations=(Acceleration(1, 0, 1, 1, 4, 4),))["D"] is False


def test_art_3_4_1_no_team_can_take_the_bye_and_the_round_goes_to_the_chief_arbiter() -> None:
    process = _round(*(_team(n, 1, no_bye=True) for n in range(1, 4)))
    message = r"^no team can receive the bye and leave a legal pairing \(art\. 3\.4\.1\)$"
    with pytest.raises(NoLegalPairing, match=message):
        process.bye()


def test_art_3_3_3_a_scoregroup_no_set_of_upfloaters_can_pair_goes_to_the_chief_arbiter() -> None:
    process = _round(*_teams({1: 2, 2: 2}, met=[(1, 2)]))
    message = r"^scoregroup 2 cannot be paired with any set of upfloaters \(art\. 3\.3\.3\)$"
    with pytest.raises(NoLegalPairing, match=message):
        process.select_upfloaters(2, [1, 2])


def test_a_single_team_takes_the_bye_and_leaves_no_bracket() -> None:
    process = _round(_team(1, 1))
    assert process.bye() == 1
    assert process.brackets() == []


def test_requested_byes_score_their_points_and_a_round_without_a_match_is_no_round_played() -> None:
    # Round 1: A - B 1.5-0.5 on two boards; round 2: both asked for a bye (record 240), A a full one
    # (a won match, every board) and B a half one (a drawn match, half the boards): no match is played.
    state = SwissState(
        (
            SwissTeam("A", absent=frozenset({2, 3})),
            SwissTeam("B", absent=frozenset({2, 3})),
            SwissTeam("C"),
            SwissTeam("D"),
        ),
        boards=2,
        rounds=5,
        matches=(MatchRecord(1, "A", "B", 3, 1), MatchRecord(1, "C", "D", 2, 2)),
        requested_byes=(
            RequestedBye("A", 2, True),
            RequestedBye("B", 2, False),
            RequestedBye("A", 3, True),
            RequestedBye("B", 3, False),
        ),
    )
    teams = {team.name: team for team in teams_before(state, 4).values()}
    assert [(teams[n].mp, teams[n].gp, teams[n].played) for n in "ABCD"] == [
        (6, 11, 1),
        (2, 5, 1),
        (1, 2, 1),
        (1, 2, 1),
    ]


def test_a_round_no_team_can_take_the_bye_of_is_refused_naming_the_round_and_the_teams() -> None:
    # Round 1: A wins against B by forfeit, C has the bye; round 2: B wins against C by forfeit, A has the
    # bye. No match was played, but every team is barred from the bye by [C2] art. 2.1.2.
    state = SwissState(
        tuple(SwissTeam(name) for name in "ABC"),
        boards=2,
        rounds=5,
        matches=(
            no_show(round=1, team_a="A", team_b="B", absent="B", boards=2),
            MatchRecord(1, "C", None, 2, 0),
            no_show(round=2, team_a="B", team_b="C", absent="C", boards=2),
            MatchRecord(2, "A", None, 2, 0),
        ),
    )
    with pytest.raises(SwissPairingError) as caught:
        C046Pairer().pair_round(state, 3)
    assert str(caught.value) == (
        "round 3 cannot be paired (no legal pairing exists: no team can receive the bye and leave a legal "
        "pairing (art. 3.4.1); C.04.6 art. 3.3.3 leaves the round to the Chief Arbiter); "
        "teams to pair: A, B, C"
    )
    assert (caught.value.round_no, caught.value.teams) == (3, ("A", "B", "C"))


def test_art_1_5_with_game_points_primary_the_floats_read_the_game_points_adjusted() -> None:
    # Art. 1.2.1 (record 192 ..._GP_MP): B's two game points of round 1 (record 299) make its round-2
    # match against D, both having lost 0-2, a float.
    floated = _after_two_rounds(primary="gp", adjustments=(ScoreAdjustment("B", 1, 0, 4),))
    assert floated == {"A": False, "B": True, "C": False, "D": True}


def test_an_acceleration_s_virtual_points_count_for_the_round_it_names_and_levels_start_at_1() -> None:
    state = SwissState(
        tuple(SwissTeam(name) for name in "ABCD"),
        boards=2,
        rounds=5,
        matches=(MatchRecord(1, "A", "B", 4, 0), MatchRecord(1, "C", "D", 2, 2)),
        accelerations=(Acceleration(2, 2, 2, 2, 3, 4),),  # teams 3 and 4: 2 MP and 1 game point
    )
    teams = teams_before(state, 2)
    assert [(t.mp, t.gp, t.level) for t in teams.values()] == [(2, 4, 2), (0, 0, 1), (3, 4, 3), (3, 4, 3)]
    assert [(t.mp, t.gp) for t in teams_before(state, 3).values()] == [(2, 4), (0, 0), (1, 2), (1, 2)]


def _crossed(**options: object) -> dict[str, Team]:
    # Round 1: A beats B, C beats D (2-0 on two boards). Round 2: A - D and C - B (2 MP against 0).
    state = SwissState(
        (
            SwissTeam("A"),
            SwissTeam("B"),
            SwissTeam("C"),
            SwissTeam("D"),
            SwissTeam("E", absent=frozenset({1, 2, 3})),
        ),
        boards=2,
        rounds=5,
        matches=(
            MatchRecord(1, "A", "B", 4, 0),
            MatchRecord(1, "C", "D", 4, 0),
            MatchRecord(2, "A", "D", 3, 1),
            MatchRecord(2, "C", "B", 3, 1),
        ),
        **options,  # type: ignore[arg-type]
    )
    return {team.name: team for team in teams_before(state, 3).values()}


def test_art_1_5_points_that_made_two_scores_equal_before_the_previous_round_leave_no_float() -> None:
    assert [_crossed()[n].floated for n in "ABCD"] == [True, True, True, True]
    bonus = _crossed(adjustments=(ScoreAdjustment("D", 1, 2, 0),))  # D on 2 MP for round 2's pairing
    assert [bonus[n].floated for n in "ABCD"] == [False, True, True, False]
    virtual = _crossed(accelerations=(Acceleration(2, 0, 2, 2, 4, 4),))  # D's 2 virtual MP in round 2
    assert [virtual[n].floated for n in "ABCD"] == [False, True, True, False]


def test_type_a_preferences_only_with_the_type_a_colour_model_and_no_level_for_a_team_not_paired() -> None:
    # Art. 1.7.1: after White in both matches A and C prefer Black, after two Blacks B and D White.
    teams = _crossed()
    assert [teams[n].pref for n in "ABCDE"] == ["b", "w", "b", "w", ""]
    assert [team.pref for team in _crossed(colour_model="none").values()] == [""] * 5
    assert [teams[n].level for n in "ABCDE"] == [
        2,
        1,
        2,
        1,
        0,
    ]  # E, on 0 MP like B and D, is absent from round 3
