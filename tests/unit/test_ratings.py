"""FIDE B.02 8.3 rating changes, checked against examples computed by hand from tables 8.1.2 and the
articles (docs/ratings.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.ratings import (
    Game,
    RatedPlayer,
    RatingError,
    base_k,
    capped_k,
    expected_score,
    rating_change,
    round_half_away,
)


@pytest.mark.parametrize(
    ("rating", "opponent", "expected"),
    [
        (2000, 2000, "0.50"),
        (2003, 2000, "0.50"),  # D 3: band 0-3
        (2004, 2000, "0.51"),  # D 4: band 4-10
        (2000, 2004, "0.49"),
        (2100, 2000, "0.64"),  # D 100: band 99-106
        (2000, 2100, "0.36"),
        (2335, 2000, "0.88"),  # D 335: band 329-344
        (2400, 2000, "0.92"),  # D 400: band 392-411
        (2500, 2000, "0.92"),  # D 500 counted as 400 below 2650
        (2000, 2500, "0.08"),
        (2700, 2200, "0.96"),  # 2650+: D 500 used in full (band 485-517)
        (2700, 1900, "1.00"),  # D 800 > 735
        (2200, 2700, "0.08"),  # the lower player is below 2650: capped at 400
    ],
)
def test_expected_score_follows_table_8_1_2(rating: int, opponent: int, expected: str) -> None:
    assert expected_score(rating, opponent) == Fraction(expected)


def test_band_edges_of_table_8_1_2() -> None:
    # Last D of a band and first D of the next: 735 → .99, 736 → 1.00 (for a 2650+ player).
    assert expected_score(2735, 2000) == Fraction("0.99")
    assert expected_score(2736, 2000) == Fraction("1.00")
    assert expected_score(2000 + 197, 2000) == Fraction("0.75")
    assert expected_score(2000 + 198, 2000) == Fraction("0.76")


def test_k_factor_rules_of_8_3_3() -> None:
    assert base_k(RatedPlayer(rating=2100, rated_games_before=12), 2026) == 40  # new to the list
    assert base_k(RatedPlayer(rating=2250, birth_year=2008), 2026) == 40  # 18 this year, under 2300
    assert base_k(RatedPlayer(rating=2300, birth_year=2008), 2026) == 20  # junior at 2300: no longer 40
    assert base_k(RatedPlayer(rating=2250, birth_year=2007), 2026) == 20  # 19 this year
    assert base_k(RatedPlayer(rating=2399), 2026) == 20
    assert base_k(RatedPlayer(rating=2400), 2026) == 10
    assert base_k(RatedPlayer(rating=2350, reached_2400=True), 2026) == 10  # once reached, stays 10
    with pytest.raises(RatingError):
        base_k(RatedPlayer(rating=None), 2026)


def test_a_junior_under_2300_keeps_k_40_after_30_rated_games_which_the_three_case_summary_would_not() -> None:
    # The three-case summary (40 until 30 games, 10 from 2400, 20 otherwise) gives 20 here; B.02 8.3.3 gives
    # 40 until the end of the year of the 18th birthday (docs/ratings.md "The junior K factor").
    junior = RatedPlayer(rating=2299, rated_games_before=150, birth_year=2008)
    assert base_k(junior, 2026) == 40
    assert base_k(junior, 2027) == 20  # the year after the 18th birthday
    assert base_k(RatedPlayer(rating=2299, rated_games_before=150, birth_year=2012), 2026) == 40  # 14
    assert base_k(RatedPlayer(rating=2450, rated_games_before=150, birth_year=2009), 2026) == 10
    assert base_k(RatedPlayer(rating=2350, rated_games_before=150, birth_year=2009), 2026) == 20


def test_a_k_given_with_the_player_is_used_then_capped() -> None:
    # The FIDE list says K 40 for a 2450 player (new to the list): 40, not the 10 of a 2400+ rating.
    assert base_k(RatedPlayer(rating=2450, k=40), 2026) == 40
    # With 20 rated games, 40 × 20 = 800 > 700: K = 700 // 20 = 35 (8.3.3).
    games = [Game(r, 2450, 1) for r in range(1, 21)]  # twenty draws against equals: PD 0.50, ΔR 0
    assert rating_change(RatedPlayer(rating=2450, k=40), games, year=2026).k == 35  # type: ignore[union-attr]
    with pytest.raises(RatingError):
        base_k(RatedPlayer(rating=2450, k=15), 2026)  # K is 10, 20 or 40


def test_k_times_games_is_capped_at_700() -> None:
    assert capped_k(40, 17) == 40  # 680
    assert capped_k(40, 18) == 38  # 720 > 700: 700 // 18 = 38
    assert capped_k(40, 20) == 35
    assert capped_k(20, 36) == 19  # 720 > 700
    assert capped_k(20, 35) == 20  # exactly 700
    assert capped_k(10, 0) == 10


def test_rounding_is_half_away_from_zero() -> None:
    assert round_half_away(Fraction(1, 2)) == 1
    assert round_half_away(Fraction(-1, 2)) == -1
    assert round_half_away(Fraction(7, 5)) == 1
    assert round_half_away(Fraction(-7, 5)) == -1
    assert round_half_away(Fraction(-8, 5)) == -2
    assert round_half_away(Fraction(0)) == 0


def test_a_three_game_event_by_hand() -> None:
    # 2100, K 20: win v 2000 (PD .64, ΔR +.36), draw v 2200 (PD .36, +.14), loss v 2150 (D 50, PD .43, −.43).
    # ΣΔR = .07, × 20 = 1.4 → +1.
    games = [Game(1, 2000, 2), Game(2, 2200, 1), Game(3, 2150, 0)]
    result = rating_change(RatedPlayer(rating=2100), games, year=2026)
    assert result is not None
    assert result.k == 20
    assert [g.expected for g in result.games] == [Fraction("0.64"), Fraction("0.36"), Fraction("0.43")]
    assert result.delta == Fraction("0.07")
    assert result.expected == Fraction("1.43")
    assert result.score == Fraction("1.5")
    assert result.change == 1
    assert result.new_rating == 2101
    assert result.games[0].change == Fraction("7.2")


def test_the_400_point_rule_and_forfeits() -> None:
    # 2000 draws with 2500: D counted as 400, PD .08, ΔR +.42, × 20 = 8.4 → +8. The forfeit win in
    # round 2 and the game against an unrated player in round 3 are not rated.
    games = [Game(1, 2500, 1), Game(2, 1900, 2, played=False), Game(3, None, 2)]
    result = rating_change(RatedPlayer(rating=2000), games, year=2026)
    assert result is not None
    assert result.change == 8
    assert result.not_rated == (2, 3)
    assert len(result.games) == 1


def test_a_player_rated_2650_or_more_uses_the_whole_difference() -> None:
    # 2700 beats 2200: D 500 in full, PD .96, ΔR +.04, K 10 → 0.4 → 0; a 2600 player would be capped:
    # D 400, PD .92, ΔR +.08 × 10 = 0.8 → +1.
    assert rating_change(RatedPlayer(rating=2700), [Game(1, 2200, 2)], year=2026).change == 0  # type: ignore[union-attr]
    assert rating_change(RatedPlayer(rating=2600), [Game(1, 2200, 2)], year=2026).change == 1  # type: ignore[union-attr]


def test_small_sums_and_exact_halves_round_as_8_3_4_says() -> None:
    # 2403 (K 10): draw v 2400 (PD .50, ΔR 0), loss v 2395 (D 8, PD .51, ΔR −.51), win v 2396 (D 7,
    # PD .51, ΔR +.49): ΣΔR −.02, × 10 = −0.2 → 0.
    small = rating_change(
        RatedPlayer(rating=2403), [Game(1, 2400, 1), Game(2, 2395, 0), Game(3, 2396, 2)], year=2026
    )
    assert small is not None and small.delta == Fraction("-0.02") and small.change == 0
    # 2400 (K 10) draws five times with 2465: D 65, PD .41, ΔR +.09 each; ΣΔR .45 × 10 = 4.5 → +5.
    up = rating_change(RatedPlayer(rating=2400), [Game(r, 2465, 1) for r in range(1, 6)], year=2026)
    assert up is not None and up.delta * up.k == Fraction("4.5") and up.change == 5
    # And the other side: PD .59, ΔR −.09 each, −4.5 → −5 (away from zero, not towards +∞).
    down = rating_change(RatedPlayer(rating=2465), [Game(r, 2400, 1) for r in range(1, 6)], year=2026)
    assert down is not None and down.delta * down.k == Fraction("-4.5") and down.change == -5


def test_an_unrated_player_gets_no_change_and_bad_scores_are_refused() -> None:
    assert rating_change(RatedPlayer(rating=None), [Game(1, 2000, 2)], year=2026) is None
    with pytest.raises(RatingError, match="round 4"):
        rating_change(RatedPlayer(rating=2000), [Game(4, 2000, 3)], year=2026)


def test_the_700_cap_applies_to_rated_games_only() -> None:
    # A new player (K 40) with 18 rated games and two forfeits: 18 × 40 = 720 → K 38.
    games = [Game(r, 2000, 1) for r in range(1, 19)] + [
        Game(19, 2000, 2, played=False),
        Game(20, 2000, 0, played=False),
    ]
    result = rating_change(RatedPlayer(rating=2000, rated_games_before=0), games, year=2026)
    assert result is not None and result.k == 38 and result.change == 0
