"""Performance ratings (FIDE C.07 Art. 10.1-10.2 with the B.02 table 8.1.1), values worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.performance import (
    Performance,
    PlayedGame,
    average_rating,
    performance,
    rating_difference,
)


@pytest.mark.parametrize(
    ("p", "dp"),
    [
        (Fraction(1), 800),
        (Fraction(0), -800),
        (Fraction(1, 2), 0),
        (Fraction(3, 4), 193),
        (Fraction(1, 4), -193),
        (Fraction(99, 100), 677),
        (Fraction(1, 100), -677),
        (Fraction(51, 100), 7),
        (Fraction(49, 100), -7),
        # Rounded to the nearest hundredth, 0.005 up (B.02 8.1.1): 2/3 is 0.67, 1/3 is 0.33.
        (Fraction(2, 3), 125),
        (Fraction(1, 3), -125),
        (Fraction(201, 400), 0),  # 0.5025 is 50.25 hundredths: down to 50
        (Fraction(101, 200), 7),  # 0.505 is 50.5 hundredths: up to 51
        (Fraction(99, 200), 0),  # 0.495 is 49.5 hundredths: up to 50
        (Fraction(199, 200), 800),  # 0.995 up to 1.00
    ],
)
def test_rating_difference_follows_table_8_1_1(p: Fraction, dp: int) -> None:
    assert rating_difference(p) == dp


@pytest.mark.parametrize("p", [Fraction(-1, 100), Fraction(101, 100)])
def test_a_fractional_score_outside_0_and_1_is_refused(p: Fraction) -> None:
    with pytest.raises(ValueError, match=rf"^a fractional score lies between 0 and 1, not {p}$"):
        rating_difference(p)


def test_the_average_opponent_is_rounded_half_up() -> None:
    assert average_rating([2000, 2001]) == 2001  # 2000.5 up (C.07 10.1)
    assert average_rating([2000, 2000, 2001]) == 2000  # 2000.33 down
    assert average_rating([2000, 2001, 2001]) == 2001  # 2000.67 up
    assert average_rating([1500]) == 1500
    with pytest.raises(ValueError, match=r"^no opponents$"):
        average_rating([])


def test_a_performance_is_the_average_opponent_plus_dp() -> None:
    # 3 of 4 against 2000, 2100, 2200, 2301: ARO 2150.25 -> 2150; p = 0.75 -> dp 193 (B.02 8.1.1).
    games = [PlayedGame(2000, 2), PlayedGame(2100, 2), PlayedGame(2200, 2), PlayedGame(2301, 0)]
    assert performance(games) == Performance(4, 6, 2150, 193, 2343)
    assert performance(games).percentage == Fraction(3, 4)  # type: ignore[union-attr]
    # 1.5 of 3: p = 0.5, dp 0.
    draws = [PlayedGame(1800, 1), PlayedGame(1900, 1), PlayedGame(2000, 1)]
    assert performance(draws) == Performance(3, 3, 1900, 0, 1900)
    assert performance([PlayedGame(1700, 0)]) == Performance(1, 0, 1700, -800, 900)


def test_no_games_no_performance_and_a_game_scores_0_1_or_2_half_points() -> None:
    assert performance([]) is None
    for bad in (3, -1):
        with pytest.raises(ValueError, match=r"^a game scores 0, 1 or 2 half-points$"):
            performance([PlayedGame(2000, 2), PlayedGame(2000, bad)])
