"""Worked cases of the matchings behind the Swiss engines (docs/swiss.md, "The engines"): Dirac's count and
the bye that leaves the others pairable (C.04.6 art. 3.4.1; Olympiad Pairing Rules 2022, art. 4.1)."""

from __future__ import annotations

import pytest

from orchestrator.domain.swiss.matching import bye_and_rest, dirac


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
