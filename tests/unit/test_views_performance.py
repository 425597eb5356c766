"""Performance rating (FIDE C.07 10.1-10.2, B.02 table 8.1.1) on exact half-points."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.performance import (
    PlayedGame,
    average_rating,
    performance,
    rating_difference,
)


def g(rating: int, half: int) -> PlayedGame:
    return PlayedGame(opponent_rating=rating, half_points=half)


def test_an_even_score_adds_nothing_to_the_average_opponent() -> None:
    result = performance([g(2000, 2), g(2100, 0)])
    assert result is not None
    assert (result.average_opponent, result.rating_difference, result.rating) == (2050, 0, 2050)


def test_a_perfect_score_adds_800_and_a_zero_score_takes_800() -> None:
    perfect = performance([g(1800, 2), g(1900, 2)])
    zero = performance([g(1800, 0), g(1900, 0)])
    assert perfect is not None and zero is not None
    assert perfect.rating == 1850 + 800
    assert zero.rating == 1850 - 800


def test_two_and_a_half_out_of_three_reads_the_table_at_083() -> None:
    # p = 5/6 = 0.8333 → .83 → 273 (B.02 8.1.1)
    result = performance([g(2000, 2), g(2000, 2), g(2000, 1)])
    assert result is not None
    assert result.percentage == Fraction(5, 6)
    assert result.rating_difference == 273
    assert result.rating == 2273


def test_scores_below_half_use_the_mirrored_table() -> None:
    # p = 1/3 → .33 → -dp(.67) = -125
    assert rating_difference(Fraction(1, 3)) == -125
    assert rating_difference(Fraction(2, 3)) == 125


def test_a_fractional_score_on_the_half_hundredth_rounds_up() -> None:
    # 0.625 → .63 (95), 0.375 → .38 → -dp(.62) = -87
    assert rating_difference(Fraction(5, 8)) == 95
    assert rating_difference(Fraction(3, 8)) == -87


def test_the_average_rating_rounds_half_up() -> None:
    assert average_rating([2000, 2001]) == 2001
    assert average_rating([2000, 2000, 2001]) == 2000


def test_no_games_gives_no_performance() -> None:
    assert performance([]) is None


def test_a_score_outside_zero_and_one_is_refused() -> None:
    with pytest.raises(ValueError):
        rating_difference(Fraction(3, 2))
