from random import Random

from orchestrator.domain.game_model import expected_score, outcome_probabilities, play_game
from orchestrator.domain.scoring import GameResult


def test_probabilities_add_up_and_keep_the_elo_expectation() -> None:
    for white, black in [(2500, 2500), (2700, 2100), (1500, 2600), (2000, 2010)]:
        win, draw, loss = outcome_probabilities(white, black)
        assert min(win, draw, loss) >= 0
        assert abs(win + draw + loss - 1) < 1e-12
        assert abs(win + draw / 2 - expected_score(white, black)) < 1e-12


def test_equal_players_draw_about_as_often_as_in_rapid_and_white_scores_more() -> None:
    rng = Random(7)
    results = [play_game(rng, 2400, 2400) for _ in range(20000)]
    draws = results.count(GameResult.DRAW) / len(results)
    white = results.count(GameResult.WHITE_WINS)
    black = results.count(GameResult.BLACK_WINS)
    assert 0.27 < draws < 0.33
    assert white > black


def test_the_same_seed_plays_the_same_games() -> None:
    first, second = Random(3), Random(3)
    games = [play_game(first, 2200, 2300) for _ in range(50)]
    assert games == [play_game(second, 2200, 2300) for _ in range(50)]
    assert len(set(games)) == 3
