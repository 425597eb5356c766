"""FIDE rating changes (B.02 Art. 8.3, as amended 1 October 2025; docs/ratings.md): the boundary of the
400-point rule, K's refusals, and each rated game's line, worked out by hand."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.ratings import (
    Game,
    GameChange,
    RatedPlayer,
    RatingError,
    base_k,
    expected_score,
    rating_change,
)


def test_the_400_point_rule_stops_at_2650() -> None:
    # 8.3.1: D counts as at most 400 below 2650. D = 650: 0.99 uncapped (table 8.1.2: 620-735), 0.92 at
    # 400 (392-411).
    assert expected_score(2650, 2000) == Fraction(99, 100)
    assert expected_score(2649, 1999) == Fraction(92, 100)
    assert expected_score(2000, 2650) == Fraction(8, 100)


def test_k_is_refused_for_an_unrated_player_or_outside_10_20_40() -> None:
    with pytest.raises(RatingError, match=r"^an unrated player has no development coefficient$"):
        base_k(RatedPlayer(None), 2026)
    with pytest.raises(RatingError, match=r"^K is 10, 20 or 40 \(B\.02 8\.3\.3\), not 30$"):
        base_k(RatedPlayer(2000, k=30), 2026)


def test_a_junior_s_k_follows_the_year_of_the_period() -> None:
    # 8.3.3: K 40 until the end of the year of the 18th birthday while rated under 2300.
    junior = RatedPlayer(2100, birth_year=2008)
    one = [Game(1, 2100, 2)]
    assert rating_change(junior, one, year=2026).k == 40  # type: ignore[union-attr]
    assert rating_change(junior, one, year=2027).k == 20  # type: ignore[union-attr]


def test_each_rated_game_has_its_round_opponent_expected_score_and_share() -> None:
    # 2000 against 2100 (D 100: 0.36) won, and against 1900 (0.64) lost; K 20.
    change = rating_change(RatedPlayer(2000), [Game(3, 2100, 2), Game(5, 1900, 0)], year=2026)
    assert change is not None
    assert change.games == (
        GameChange(3, 2100, Fraction(1), Fraction(36, 100), Fraction(64, 100), Fraction(64 * 20, 100)),
        GameChange(5, 1900, Fraction(0), Fraction(64, 100), Fraction(-64, 100), Fraction(-64 * 20, 100)),
    )
    assert (change.delta, change.change, change.new_rating) == (0, 0, 2000)


def test_every_sum_is_a_fraction_even_without_a_rated_game() -> None:
    # The module's promise: sums are exact Fractions, never ints or floats.
    change = rating_change(RatedPlayer(2000), [Game(1, None, 2), Game(2, 2000, 2, played=False)], year=2026)
    assert change is not None
    assert change.not_rated == (1, 2)
    assert all(type(value) is Fraction for value in (change.expected, change.score, change.delta))
