"""A rating-based model of one rapid game, for simulations and the stand-in server's play-out."""

from __future__ import annotations

import math
from random import Random

from orchestrator.domain.scoring import GameResult

WHITE_ADVANTAGE = 35  # Elo points; White scores about 54% between equals in rapid play
DRAW_RATE_EQUAL = 0.30  # share of draws between equally rated players in online rapid


def expected_score(white_rating: int, black_rating: int) -> float:
    """White's expected score (Elo logistic curve, the formula behind FIDE B.02 table 8.1.2)."""
    diff = white_rating + WHITE_ADVANTAGE - black_rating
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def outcome_probabilities(white_rating: int, black_rating: int) -> tuple[float, float, float]:
    """(White wins, draw, Black wins): draws fall off as the rating gap grows, expectation is kept."""
    expected = expected_score(white_rating, black_rating)
    gap = abs(white_rating - black_rating) / 400.0
    draw = DRAW_RATE_EQUAL * math.exp(-gap * gap)
    # The draw share never exceeds twice either side's expected score for any gap, except through
    # rounding: White's expected score rounds to 1.0 from a 6,347-point edge, where Black's share would be
    # a negative rounding error; 0 there. (Black's expected score never rounds to 0 before the power
    # overflows, so it needs no cap.)
    draw = min(draw, 2 * (1 - expected))
    white = expected - draw / 2
    return white, draw, 1.0 - white - draw


def play_game(rng: Random, white_rating: int, black_rating: int) -> GameResult:
    """Draw one game's result from the model."""
    white, draw, _ = outcome_probabilities(white_rating, black_rating)
    roll = rng.random()
    if roll < white:
        return GameResult.WHITE_WINS
    if roll < white + draw:
        return GameResult.DRAW
    return GameResult.BLACK_WINS
