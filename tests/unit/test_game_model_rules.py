"""The rating model of one game (domain/game_model.py), worked by hand: White's expected score on the Elo
logistic curve behind FIDE B.02 table 8.1.2 with White's 35-point edge, the draw share falling off with the
gap, and the roll that picks the result."""

from __future__ import annotations

import math
from random import Random

import pytest

from orchestrator.domain.game_model import (
    DRAW_RATE_EQUAL,
    WHITE_ADVANTAGE,
    expected_score,
    outcome_probabilities,
    play_game,
)
from orchestrator.domain.scoring import GameResult


class FixedRoll(Random):
    """A generator whose every roll is ``value``."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def test_b02_white_scores_ten_to_one_with_a_400_point_edge_counting_the_35_points_of_white() -> None:
    assert WHITE_ADVANTAGE == 35
    assert expected_score(2400 - 35 + 400, 2400) == pytest.approx(10 / 11, rel=1e-12)
    assert expected_score(2400 - 35 - 400, 2400) == pytest.approx(1 / 11, rel=1e-12)
    assert expected_score(2000, 2000) == pytest.approx(1 / (1 + 10 ** (-35 / 400)), rel=1e-12)


def test_equal_players_draw_at_the_rapid_rate_and_the_share_falls_off_with_the_gap() -> None:
    assert DRAW_RATE_EQUAL == 0.30
    assert outcome_probabilities(2000, 2000)[1] == pytest.approx(0.30, rel=1e-12)
    # A gap of 400 points draws 0.30 / e, of 800 points 0.30 / e**4, whichever side is stronger.
    assert outcome_probabilities(2400, 2000)[1] == pytest.approx(0.30 * math.exp(-1), rel=1e-12)
    assert outcome_probabilities(2000, 2400)[1] == pytest.approx(0.30 * math.exp(-1), rel=1e-12)
    assert outcome_probabilities(1200, 2000)[1] == pytest.approx(0.30 * math.exp(-4), rel=1e-12)


def test_every_rating_gap_gives_shares_that_are_probabilities_and_keep_the_expected_score() -> None:
    for gap in range(-12000, 12001, 7):
        win, draw, loss = outcome_probabilities(2000 + gap, 2000)
        assert min(win, draw, loss) >= 0, gap
        assert win + draw + loss == pytest.approx(1, abs=1e-12)
        assert win + draw / 2 == pytest.approx(expected_score(2000 + gap, 2000), abs=1e-12)


def test_a_gap_where_white_s_expected_score_rounds_to_one_leaves_black_nothing() -> None:
    assert expected_score(9000, 2000) == 1.0
    assert outcome_probabilities(9000, 2000) == (1.0, 0.0, 0.0)


def test_the_roll_below_white_s_share_wins_for_white_then_the_draw_then_black() -> None:
    white, draw, _ = outcome_probabilities(2100, 2000)
    assert play_game(FixedRoll(0.0), 2100, 2000) is GameResult.WHITE_WINS
    assert play_game(FixedRoll(math.nextafter(white, 0)), 2100, 2000) is GameResult.WHITE_WINS
    assert play_game(FixedRoll(white), 2100, 2000) is GameResult.DRAW
    assert play_game(FixedRoll(math.nextafter(white + draw, 0)), 2100, 2000) is GameResult.DRAW
    assert play_game(FixedRoll(white + draw), 2100, 2000) is GameResult.BLACK_WINS
    assert play_game(FixedRoll(math.nextafter(1.0, 0)), 2100, 2000) is GameResult.BLACK_WINS
