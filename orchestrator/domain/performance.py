"""Performance ratings for board results (FIDE C.07 Art. 10.1-10.2 with the B.02 table 8.1.1).

Only games played over the board count: forfeits, byes and unplayed boards are left out (C.07 10.1).
Scores are integer half-points; the fractional score is an exact Fraction, never a float.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

# FIDE B.02 table 8.1.1: fractional score p (hundredths, 50..100) → rating difference dp;
# dp(1 - p) = -dp(p); p = 1.0 is notionally 800.
_DP_BY_HUNDREDTHS: dict[int, int] = {
    100: 800, 99: 677, 98: 589, 97: 538, 96: 501, 95: 470, 94: 444, 93: 422, 92: 401, 91: 383,
    90: 366, 89: 351, 88: 336, 87: 322, 86: 309, 85: 296, 84: 284, 83: 273, 82: 262, 81: 251,
    80: 240, 79: 230, 78: 220, 77: 211, 76: 202, 75: 193, 74: 184, 73: 175, 72: 166, 71: 158,
    70: 149, 69: 141, 68: 133, 67: 125, 66: 117, 65: 110, 64: 102, 63: 95, 62: 87, 61: 80,
    60: 72, 59: 65, 58: 57, 57: 50, 56: 43, 55: 36, 54: 29, 53: 21, 52: 14, 51: 7, 50: 0,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game played over the board: the opponent's rating and the player's half-points (0, 1, 2)."""

    opponent_rating: int
    half_points: int


@dataclass(frozen=True, slots=True)
class Performance:
    games: int
    half_points: int
    average_opponent: int  # ARO, C.07 10.1
    rating_difference: int  # dp from B.02 8.1.1
    rating: int  # TPR = ARO + dp, C.07 10.2

    @property
    def percentage(self) -> Fraction:
        return Fraction(self.half_points, 2 * self.games)


def _round_half_up(value: Fraction) -> int:
    """Nearest whole number, 0.5 rounded up (C.07 10.1)."""
    return (2 * value.numerator + value.denominator) // (2 * value.denominator)


def rating_difference(p: Fraction) -> int:
    """dp for a fractional score p (B.02 8.1.1), p rounded to the nearest hundredth (0.005 up)."""
    if not 0 <= p <= 1:
        raise ValueError(f"a fractional score lies between 0 and 1, not {p}")
    hundredths = _round_half_up(p * 100)
    if hundredths >= 50:
        return _DP_BY_HUNDREDTHS[hundredths]
    return -_DP_BY_HUNDREDTHS[100 - hundredths]


def average_rating(ratings: Sequence[int]) -> int:
    """ARO: the opponents' average rating rounded to the nearest whole number, 0.5 up (C.07 10.1)."""
    if not ratings:
        raise ValueError("no opponents")
    return _round_half_up(Fraction(sum(ratings), len(ratings)))


def performance(games: Sequence[PlayedGame]) -> Performance | None:
    """Tournament performance rating over games played over the board (C.07 10.2); None without games."""
    if not games:
        return None
    half = sum(game.half_points for game in games)
    if any(game.half_points not in (0, 1, 2) for game in games):
        raise ValueError("a game scores 0, 1 or 2 half-points")
    aro = average_rating([game.opponent_rating for game in games])
    dp = rating_difference(Fraction(half, 2 * len(games)))
    return Performance(len(games), half, aro, dp, aro + dp)
