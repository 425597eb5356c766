"""Pool splits: balanced averages, previous winners apart, deterministic whatever the input order."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.domain.pools import PoolEntrant, PoolSplit, PoolSplitError, evaluate_split, split_pools


def field(strengths: list[int]) -> list[PoolEntrant]:
    return [PoolEntrant(team=f"T{seed:03d}", strength=s, seed=seed) for seed, s in enumerate(strengths, 1)]


def serpentine_spread(strengths: list[int], pool_count: int) -> Fraction:
    """Independent plain serpentine, strongest first (ties by seed), for comparison."""
    order = sorted(range(len(strengths)), key=lambda i: (-strengths[i], i))
    totals = [0] * pool_count
    for position, index in enumerate(order):
        row, column = divmod(position, pool_count)
        totals[column if row % 2 == 0 else pool_count - 1 - column] += strengths[index]
    return Fraction(max(totals) - min(totals), len(strengths) // pool_count)


def layout(split: PoolSplit) -> list[tuple[str, tuple[str, ...]]]:
    return [(pool.letter, pool.teams) for pool in split.pools]


FIFTY = [2400 - 13 * i + (37 * i) % 29 for i in range(50)]

shapes = st.sampled_from([(2, 4), (3, 4), (4, 5), (5, 10), (3, 3)])


@st.composite
def splits(draw: st.DrawFn) -> tuple[list[PoolEntrant], int, int, list[str]]:
    pool_count, pool_size = draw(shapes)
    strengths = draw(
        st.lists(st.integers(1400, 2700), min_size=pool_count * pool_size, max_size=pool_count * pool_size)
    )
    entrants = field(strengths)
    apart = draw(st.lists(st.sampled_from([e.team for e in entrants]), max_size=pool_count, unique=True))
    return entrants, pool_count, pool_size, apart


def test_every_team_lands_in_exactly_one_pool_of_the_right_size() -> None:
    split = split_pools(field(FIFTY), pool_count=5, pool_size=10)
    teams = [team for pool in split.pools for team in pool.teams]
    assert sorted(teams) == sorted(e.team for e in field(FIFTY))
    assert [len(pool.entrants) for pool in split.pools] == [10] * 5
    assert [pool.letter for pool in split.pools] == ["A", "B", "C", "D", "E"]


def test_averages_are_exact_and_spread_is_their_range() -> None:
    split = split_pools(field(FIFTY), pool_count=5, pool_size=10)
    for pool in split.pools:
        assert pool.average == Fraction(sum(e.strength for e in pool.entrants), 10)
    averages = [pool.average for pool in split.pools]
    assert split.spread == max(averages) - min(averages)


def test_split_is_no_worse_than_the_plain_serpentine() -> None:
    split = split_pools(field(FIFTY), pool_count=5, pool_size=10)
    assert split.serpentine_spread == serpentine_spread(FIFTY, 5)
    assert split.spread <= split.serpentine_spread


def test_the_same_input_gives_the_same_split() -> None:
    first = split_pools(field(FIFTY), pool_count=5, pool_size=10, apart=["T001", "T020"])
    second = split_pools(field(FIFTY), pool_count=5, pool_size=10, apart=["T001", "T020"])
    assert layout(first) == layout(second)


def test_previous_winners_are_kept_apart_even_when_serpentine_puts_them_together() -> None:
    entrants = field(FIFTY)
    plain = split_pools(entrants, pool_count=5, pool_size=10)
    together = plain.pools[0].teams[:2]  # two teams the unconstrained split puts in pool A
    split = split_pools(entrants, pool_count=5, pool_size=10, apart=together)
    assert split.pool_of(together[0]) != split.pool_of(together[1])


def test_more_winners_to_keep_apart_than_pools_is_refused() -> None:
    with pytest.raises(PoolSplitError, match="4 teams must be kept apart, but there are only 3 pools"):
        split_pools(field(FIFTY[:30]), pool_count=3, pool_size=10, apart=["T001", "T002", "T003", "T004"])


def test_wrong_entrant_count_and_unknown_winner_are_refused() -> None:
    with pytest.raises(PoolSplitError, match="49 entrants cannot fill 5 pools of 10"):
        split_pools(field(FIFTY[:49]), pool_count=5, pool_size=10)
    with pytest.raises(PoolSplitError, match="not entrants: Nobody"):
        split_pools(field(FIFTY), pool_count=5, pool_size=10, apart=["Nobody"])


def test_a_team_entered_twice_is_refused() -> None:
    entrants = field(FIFTY[:8])
    entrants[7] = PoolEntrant("T001", 1500, 8)
    with pytest.raises(PoolSplitError, match="entered twice: T001"):
        split_pools(entrants, pool_count=2, pool_size=4)


@settings(max_examples=60, deadline=None)
@given(case=splits(), data=st.data())
def test_split_does_not_depend_on_input_order(
    case: tuple[list[PoolEntrant], int, int, list[str]], data: st.DataObject
) -> None:
    entrants, pool_count, pool_size, apart = case
    shuffled = data.draw(st.permutations(entrants))
    apart_shuffled = data.draw(st.permutations(apart))
    first = split_pools(entrants, pool_count=pool_count, pool_size=pool_size, apart=apart)
    second = split_pools(shuffled, pool_count=pool_count, pool_size=pool_size, apart=apart_shuffled)
    assert layout(first) == layout(second)


@settings(max_examples=60, deadline=None)
@given(case=splits())
def test_every_split_keeps_winners_apart_and_every_team_once(
    case: tuple[list[PoolEntrant], int, int, list[str]],
) -> None:
    entrants, pool_count, pool_size, apart = case
    split = split_pools(entrants, pool_count=pool_count, pool_size=pool_size, apart=apart)
    placed = [team for pool in split.pools for team in pool.teams]
    assert sorted(placed) == sorted(e.team for e in entrants)
    assert all(len(pool.entrants) == pool_size for pool in split.pools)
    for pool in split.pools:
        assert len(set(pool.teams) & set(apart)) <= 1
    if not apart:
        strengths = [e.strength for e in entrants]
        assert split.spread <= serpentine_spread(strengths, pool_count)


def test_evaluate_split_reports_a_hand_made_split_and_refuses_winners_together() -> None:
    entrants = field([2000, 1900, 1800, 1700])
    split = evaluate_split([[entrants[0], entrants[3]], [entrants[1], entrants[2]]])
    assert [pool.average for pool in split.pools] == [Fraction(1850), Fraction(1850)]
    assert split.spread == 0
    with pytest.raises(PoolSplitError, match="pool A has more than one previous pool winner"):
        evaluate_split([[entrants[0], entrants[3]], [entrants[1], entrants[2]]], apart=["T001", "T004"])
