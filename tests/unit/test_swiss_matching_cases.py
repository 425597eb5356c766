"""Worked cases of the matchings behind the Swiss engines (docs/swiss.md, "The engines"): Dirac's count, the
bye that leaves the others pairable (C.04.6 art. 3.4.1; Olympiad Pairing Rules 2022, art. 4.1) and the
first pairing of a bracket by its identifier (C.04.6 art. 3.6.2)."""

from __future__ import annotations

import pytest

from orchestrator.domain.swiss.matching import bye_and_rest, can_be_paired, dirac, first_pairing


def met_pairs(*pairs: tuple[int, int]) -> dict[int, set[int]]:
    met: dict[int, set[int]] = {n: set() for n in range(1, 7)}
    for a, b in pairs:
        met[a].add(b)
        met[b].add(a)
    return met


def test_dirac_counts_each_team_able_to_meet_at_least_half_of_the_others() -> None:
    # Four teams, each has met one other: each can still meet 2 of 3, at least half of 4.
    assert dirac([1, 2, 3, 4], met_pairs((1, 2), (3, 4)))
    assert dirac({1, 2, 3, 4}, met_pairs((1, 2), (3, 4)))
    # Six teams, team 1 has met three: it can meet 2 of 5, fewer than half of 6.
    assert not dirac([1, 2, 3, 4, 5, 6], met_pairs((1, 2), (1, 3), (1, 4)))
    # Team 1 has met two: it can meet 3 of 5, exactly half of 6.
    assert dirac([1, 2, 3, 4, 5, 6], met_pairs((1, 2), (1, 3)))
    # A meeting with a team outside the set does not count; an odd set is never paired.
    assert dirac([1, 2], met_pairs((1, 3), (2, 4)))
    assert not dirac([1, 2, 3], met_pairs())


def test_the_bye_goes_to_the_lowest_team_that_leaves_the_others_pairable() -> None:
    class Refused(Exception):
        pass

    order = [1, 2, 3]
    # Teams 1 and 2 have met: the bye to team 3 would leave them to meet again, so team 2 has it.
    assert bye_and_rest(order, met_pairs((1, 2)), lambda n: True, Refused) == 2
    assert order == [1, 3]
    with pytest.raises(Refused, match="no team may receive the bye"):
        bye_and_rest([1, 2, 3], met_pairs((1, 2), (1, 3), (2, 3)), lambda n: True, Refused)


def test_art_3_6_2_each_top_takes_the_smallest_bottom_the_rest_allows_whatever_the_start() -> None:
    # C.04.6 art. 3.6.2. Six members; 3 may meet only 4, and 0 and 1 may each meet 2 or 5. Both pairings
    # have the tops 0, 1, 3 (the first part of the identifier); the bottoms in the order of their tops
    # decide: 0 takes 2, the smaller (then 1-5), so the identifier is 0 1 3 2 5 4, not 0 1 3 5 2 4. The
    # start from the fold pairs 0 with 5 (the first it may meet in the bottom half) and 1 with 2; member
    # 2, which cannot be a top, must still be offered to 0 as a bottom.
    adj = [[2, 5], [2, 5], [0, 1], [4], [3], [0, 1]]
    assert first_pairing(adj) == [(0, 2), (1, 5), (3, 4)]


def test_art_3_6_2_the_tops_as_small_as_the_rest_allows_come_first() -> None:
    # C.04.6 art. 3.6.2. Six members: 0 may meet 1, 3, 4, 5; 1 may meet 0, 2, 3; 2 may meet 1, 4; 3 may
    # meet 0, 1, 5. The perfect pairings are 0-1 2-4 3-5 (tops 0 2 3), 0-4 1-2 3-5 (tops 0 1 3) and 0-5 1-3
    # 2-4 (tops 0 1 2): the last has the smallest tops, so it comes first, although 2 becomes a top only
    # after 0 and 1 have both been found to be tops.
    adj = [[1, 3, 4, 5], [0, 2, 3], [1, 4], [0, 1, 5], [0, 2], [0, 3]]
    assert first_pairing(adj) == [(0, 5), (1, 3), (2, 4)]


def test_a_pairing_reached_only_round_an_odd_cycle_of_seven_is_found() -> None:
    # [C3]: whether the teams can all be paired. Eight teams may meet only the pairs below; the one
    # pairing is 0-6, 1-7, 2-5, 3-4 (6 may meet only 0, then 1 only 7, 4 only 3, 2 only 5). A first
    # matching taken in order (0-1, 2-3, 4-7) leaves 5 and 6 free, and the way to free 0 for 6 goes round
    # the odd cycle 5-0-1-7-4-3-2-5 (seven teams, Edmonds' blossom), so the search must shrink it and
    # then follow the path through it.
    allowed = [(0, 1), (0, 5), (0, 6), (1, 7), (2, 3), (2, 5), (3, 4), (4, 7)]
    met: dict[int, set[int]] = {n: set(range(8)) - {n} for n in range(8)}
    for a, b in allowed:
        met[a].discard(b)
        met[b].discard(a)
    assert can_be_paired(list(range(8)), met)
    adj = [sorted(b if a == n else a for a, b in allowed if n in (a, b)) for n in range(8)]
    assert first_pairing(adj) == [(0, 6), (1, 7), (2, 5), (3, 4)]
