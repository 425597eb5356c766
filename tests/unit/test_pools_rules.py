"""Pool splits worked out by hand (docs/rules.md §3): the serpentine by strength, the swaps that move the
previous stage's pool winners apart, the improving swaps, and the refusals with their sentences.

Strengths are small numbers so each step can be followed: a pool's total is the sum of its strengths, the
spread is (highest total - lowest) / pool size, and a swap is made only when it lowers the spread, or
keeps it and lowers the sum of the squared totals.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.pools import PoolEntrant, PoolSplitError, entrant_of, evaluate_split, split_pools
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team


def field(*strengths: int) -> list[PoolEntrant]:
    return [PoolEntrant(f"T{seed}", strength, seed) for seed, strength in enumerate(strengths, 1)]


def layout(*pools: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    return list(zip("ABCDEFGH", pools, strict=False))


def test_an_entrant_is_a_team_s_name_strength_and_seed() -> None:
    roster = tuple(
        RosterEntry(Player(f"P{board}", f"p{board}", Sex.MALE, 1990, rating), board, Category.OPEN)
        for board, rating in ((1, 2001), (2, 2000))
    )
    assert entrant_of(Team("Norway", "NOR", 7, roster)) == PoolEntrant("Norway", 2000, 7)


def test_a_split_that_needs_no_swap_is_the_serpentine() -> None:
    # Strongest first: row 1 fills A then B, row 2 B then A: A = 100 + 70, B = 90 + 80.
    split = split_pools(field(100, 90, 80, 70), pool_count=2, pool_size=2)
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T1", "T4"), ("T2", "T3"))
    assert (split.spread, split.serpentine_spread, split.swaps) == (0, 0, 0)
    assert split.pool_of("T4") == "A"
    assert split.pool_of("T3") == "B"
    with pytest.raises(KeyError, match="T9"):
        split.pool_of("T9")


def test_an_improving_swap_follows_the_serpentine() -> None:
    # Serpentine: A = 10 + 7 + 6 = 23, B = 9 + 8 + 1 = 18 (spread 5/3). Swapping 10 and 8 gives
    # A 21, B 20 (spread 1/3); no swap then changes the odd difference of 1 into 0.
    split = split_pools(field(10, 9, 8, 7, 6, 1), pool_count=2, pool_size=3)
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T3", "T4", "T5"), ("T1", "T2", "T6"))
    assert [p.total for p in split.pools] == [21, 20]
    assert split.pools[0].average == Fraction(7)
    assert split.spread == Fraction(1, 3)
    assert split.serpentine_spread == Fraction(5, 3)
    assert split.swaps == 1


def test_a_pool_winner_never_swaps_into_a_pool_holding_another() -> None:
    # T1 and T2 must stay apart. Swapping 10 and 8 would put them together; swapping them with each other
    # (22 against 19, spread 3/3) is the best allowed; after it only swaps joining two winners help.
    split = split_pools(field(10, 9, 8, 7, 6, 1), pool_count=2, pool_size=3, apart={"T1", "T2"})
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T2", "T4", "T5"), ("T1", "T3", "T6"))
    assert (split.spread, split.serpentine_spread, split.swaps) == (Fraction(1), Fraction(5, 3), 1)


def test_winners_the_serpentine_put_together_are_moved_apart_by_the_best_swap() -> None:
    # Serpentine: A = T1 100 + T4 70, B = T2 90 + T3 80; T1 and T4 must be apart. Swapping T1 with T2 or
    # T4 with T3 both give 160 and 180 (the others 150 and 190): the first found, T1 with T2, is made.
    # No improving swap may then bring the two winners together, and none other improves.
    split = split_pools(field(100, 90, 80, 70), pool_count=2, pool_size=2, apart=["T1", "T4"])
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T2", "T4"), ("T1", "T3"))
    assert (split.spread, split.serpentine_spread, split.swaps) == (10, 0, 1)


def test_three_winners_in_one_pool_take_two_swaps() -> None:
    # Serpentine of 3 x 2: A = T1 + T6, B = T2 + T5, C = T3 + T4; winners T1, T6 and T2.
    split = split_pools(field(60, 50, 40, 30, 20, 10), pool_count=3, pool_size=2, apart=["T1", "T6", "T2"])
    winners_by_pool = [sorted(set(p.teams) & {"T1", "T6", "T2"}) for p in split.pools]
    assert sorted(len(w) for w in winners_by_pool) == [1, 1, 1]
    assert split.swaps >= 1


def test_unrated_teams_are_split_by_seed() -> None:
    # Teams without ratings all have strength 0: the serpentine by seed, and no swap changes anything.
    split = split_pools(field(0, 0, 0, 0, 0, 0), pool_count=3, pool_size=2)
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T1", "T6"), ("T2", "T5"), ("T3", "T4"))
    assert (split.spread, split.swaps) == (0, 0)


def test_impossible_splits_are_refused_with_a_sentence() -> None:
    with pytest.raises(PoolSplitError, match=r"^need at least one pool of at least one team, not 0 × 2$"):
        split_pools(field(1, 2), pool_count=0, pool_size=2)
    with pytest.raises(PoolSplitError, match=r"^need at least one pool of at least one team, not 2 × 0$"):
        split_pools([], pool_count=2, pool_size=0)
    with pytest.raises(PoolSplitError, match=r"^3 entrants cannot fill 2 pools of 2 \(4 needed\)$"):
        split_pools(field(1, 2, 3), pool_count=2, pool_size=2)
    twice = [*field(5, 4, 3), PoolEntrant("T2", 1, 4), PoolEntrant("T1", 1, 5), PoolEntrant("T1", 1, 6)]
    with pytest.raises(PoolSplitError, match=r"^teams entered twice: T1, T2$"):
        split_pools(twice, pool_count=2, pool_size=3)
    with pytest.raises(PoolSplitError, match=r"^teams to keep apart are not entrants: X, Y$"):
        split_pools(field(4, 3, 2, 1), pool_count=2, pool_size=2, apart=["Y", "T1", "X"])
    with pytest.raises(PoolSplitError, match=r"^3 teams must be kept apart, but there are only 2 pools$"):
        split_pools(field(4, 3, 2, 1), pool_count=2, pool_size=2, apart=["T1", "T2", "T3"])
    # As many winners as pools is allowed.
    assert split_pools(field(4, 3, 2, 1), pool_count=2, pool_size=2, apart=["T1", "T2"]).swaps == 0
    assert split_pools(field(7), pool_count=1, pool_size=1).pools[0].teams == ("T1",)


def test_a_hand_made_split_is_measured_against_the_serpentine() -> None:
    t = field(10, 9, 8, 7, 6, 1)
    split = evaluate_split([[t[0], t[5], t[1]], [t[2], t[3], t[4]]], apart=["T1", "T3"])
    # A = 10 + 1 + 9 = 20 (strongest first), B = 8 + 7 + 6 = 21.
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T1", "T2", "T6"), ("T3", "T4", "T5"))
    assert split.spread == Fraction(21, 3) - Fraction(20, 3)
    assert (split.serpentine_spread, split.swaps) == (Fraction(5, 3), 0)


def test_a_hand_made_split_is_refused_with_a_sentence() -> None:
    t = field(10, 9, 8, 7, 6, 1)
    with pytest.raises(PoolSplitError, match=r"^no pools$"):
        evaluate_split([])
    with pytest.raises(PoolSplitError, match=r"^pools must be of equal size; sizes are 2, 4$"):
        evaluate_split([t[:2], t[2:]])
    with pytest.raises(PoolSplitError, match=r"^pool B has more than one previous pool winner: T4, T5$"):
        evaluate_split([t[:3], t[3:]], apart=["T5", "T4"])
    with pytest.raises(PoolSplitError, match=r"^teams to keep apart are not entrants: Z$"):
        evaluate_split([t[:3], t[3:]], apart=["Z"])
    # One winner per pool is fine.
    assert evaluate_split([t[:3], t[3:]], apart=["T1", "T4"]).swaps == 0


def test_three_winners_in_one_pool_take_two_swaps_before_the_improving_ones() -> None:
    # Serpentine of 3 x 3 (90 down to 10): A = T1 90 + T6 40 + T7 30 = 160, B = T2 80 + T5 50 + T8 20 = 150,
    # C = T3 70 + T4 60 + T9 10 = 140, and the three winners T1, T6, T7 all in A: two swaps, each taking
    # one winner to a pool without one. First T1 with T2 (A 150, B 160, C 140: spread 20, the best, and
    # the first found among equals); then, only C being free of winners, T7 with T9 (A 130, B 160, C 160).
    # One improving swap follows: T9 with T8 (A 140, B 150, C 160), no winner moving. Three swaps in all.
    winners = {"T1", "T6", "T7"}
    split = split_pools(field(90, 80, 70, 60, 50, 40, 30, 20, 10), pool_count=3, pool_size=3, apart=winners)
    assert [(p.letter, p.teams) for p in split.pools] == layout(
        ("T2", "T6", "T8"), ("T1", "T5", "T9"), ("T3", "T4", "T7")
    )
    assert [p.total for p in split.pools] == [140, 150, 160]
    assert split.swaps == 3


def test_improving_swaps_go_on_until_none_helps() -> None:
    # Serpentine of 2 x 4: A = 21 + 14 + 9 + 1 = 45, B = 20 + 18 + 8 + 5 = 51. No single swap evens them
    # (no team of B is 3 stronger than one of A); the best swaps give 49 and 47, T4 14 with T3 18 found
    # before T8 1 with T7 5. Then T1 21 with T2 20 gives 48 and 48. Two swaps.
    split = split_pools(field(21, 20, 18, 14, 9, 8, 5, 1), pool_count=2, pool_size=4)
    assert [(p.letter, p.teams) for p in split.pools] == layout(
        ("T2", "T3", "T5", "T8"), ("T1", "T4", "T6", "T7")
    )
    assert (split.spread, split.serpentine_spread, split.swaps) == (0, Fraction(6, 4), 2)


def test_a_lone_winner_swaps_like_any_other_team() -> None:
    # The split of test_an_improving_swap_follows_the_serpentine swaps T1 (in A) with T3 (in B). With T1
    # the only winner it may still leave A, and with T3 the only one it may still come into A: a winner
    # is kept only out of a pool holding another, so the same swap is made.
    for winner in ("T1", "T3"):
        split = split_pools(field(10, 9, 8, 7, 6, 1), pool_count=2, pool_size=3, apart=[winner])
        assert [(p.letter, p.teams) for p in split.pools] == layout(("T3", "T4", "T5"), ("T1", "T2", "T6"))
        assert split.swaps == 1


def test_a_barred_swap_does_not_end_the_search_through_a_pool() -> None:
    # Serpentine: A = T1 12 + T4 4 + T5 3 = 19, B = T2 9 + T3 5 + T6 1 = 15; winners T1 and T3, one in
    # each pool. Every swap of T1 with T2 or T6, or of T3 with T4 or T5, would put both winners in one
    # pool. The search goes past them: T5 3 with T6 1 (the last pair tried) evens the pools at 17.
    split = split_pools(field(12, 9, 5, 4, 3, 1), pool_count=2, pool_size=3, apart=["T1", "T3"])
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T1", "T4", "T6"), ("T2", "T3", "T5"))
    assert (split.spread, split.swaps) == (0, 1)


def test_a_team_of_the_same_strength_is_passed_over_not_the_end_of_the_search() -> None:
    # Serpentine: A = T1 12 + T4 10 + T5 4 = 26, B = T2 12 + T3 10 + T6 1 = 23. T1 first meets T2, as
    # strong (no swap to make), then T3: 12 with 10 gives 24 and 25, the best swap.
    split = split_pools(field(12, 12, 10, 10, 4, 1), pool_count=2, pool_size=3)
    assert [(p.letter, p.teams) for p in split.pools] == layout(("T3", "T4", "T5"), ("T1", "T2", "T6"))
    assert (split.spread, split.swaps) == (Fraction(1, 3), 1)


def test_among_equal_swaps_the_earlier_second_pool_is_taken() -> None:
    # Serpentine of 3 x 3: A = T1 30 + T6 9 + T7 8 = 47, B = T2 20 + T5 10 + T8 2 = 32, C = T3 20 + T4 10 +
    # T9 2 = 32. The best first swap moves 7 out of A: T6 9 with T8 2 (A 40, B 39, C 32) or with T9 2
    # (A 40, B 32, C 39), the same spread and squares. The one with B, the earlier pool, is made; then T7 8
    # with T9 2 (A 34, B 39, C 38).
    split = split_pools(field(30, 20, 20, 10, 10, 9, 8, 2, 2), pool_count=3, pool_size=3)
    assert [(p.letter, p.teams) for p in split.pools] == layout(
        ("T1", "T8", "T9"), ("T2", "T5", "T6"), ("T3", "T4", "T7")
    )
    assert ([p.total for p in split.pools], split.swaps) == ([34, 39, 38], 2)


def test_among_equal_swaps_the_earlier_place_in_the_first_pool_is_taken() -> None:
    # Serpentine of 3 x 3: A = T1 25 + T6 10 + T7 7 = 42, B = T2 22 + T5 11 + T8 5 = 38, C = T3 21 + T4 15
    # + T9 1 = 37. Two swaps give spread 3 and the same sum of squares (38² + 38² + 41² = 40² + 40² + 37²
    # = 4569): T1 25 with T3 21 (A 38, B 38, C 41) and T7 7 with T8 5 (A 40, B 40, C 37). T1 holds the
    # earlier place in A, so its swap is made, and no single swap improves on it (the swaps go from the
    # split they reach; they do not search every split).
    split = split_pools(field(25, 22, 21, 15, 11, 10, 7, 5, 1), pool_count=3, pool_size=3)
    assert [(p.letter, p.teams) for p in split.pools] == layout(
        ("T3", "T6", "T7"), ("T2", "T5", "T8"), ("T1", "T4", "T9")
    )
    assert ([p.total for p in split.pools], split.swaps) == ([38, 38, 41], 1)
