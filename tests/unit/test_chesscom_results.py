"""Chess.com per-player result codes mapped to our result from White's side (PubAPI "Game results codes")."""

import pytest

from orchestrator.adapters.chesscom import DRAW_CODES, LOSS_CODES, map_result
from orchestrator.domain.scoring import GameResult

PLAIN_LOSSES = sorted(LOSS_CODES - {"abandoned", "kingofthehill", "threecheck", "bughousepartnerlose"})


@pytest.mark.parametrize("loss", PLAIN_LOSSES)
def test_a_white_win_against_each_plain_loss_code_is_one_nil(loss: str) -> None:
    mapped = map_result("win", loss)
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.WHITE_WINS, False)


@pytest.mark.parametrize("loss", PLAIN_LOSSES)
def test_a_black_win_against_each_plain_loss_code_is_nil_one(loss: str) -> None:
    mapped = map_result(loss, "win")
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.BLACK_WINS, False)


@pytest.mark.parametrize("draw", sorted(DRAW_CODES))
def test_each_draw_code_on_both_sides_is_a_draw(draw: str) -> None:
    mapped = map_result(draw, draw)
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.DRAW, False)


def test_the_plain_loss_codes_are_exactly_the_documented_ones() -> None:
    assert PLAIN_LOSSES == ["checkmated", "lose", "resigned", "timeout"]
    assert {"timevsinsufficient", "50move", "insufficient", "stalemate"} <= DRAW_CODES


def test_codes_are_read_regardless_of_case_and_spaces() -> None:
    assert map_result(" Win ", "RESIGNED").result is GameResult.WHITE_WINS


def test_abandoning_black_is_a_forfeit_for_white_flagged_for_the_arbiter() -> None:
    mapped = map_result("win", "abandoned")
    assert mapped.result is GameResult.WHITE_WINS_FORFEIT
    assert mapped.needs_arbiter
    assert "abandoned" in mapped.note


def test_abandoning_white_is_a_forfeit_for_black_flagged_for_the_arbiter() -> None:
    mapped = map_result("abandoned", "win")
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.BLACK_WINS_FORFEIT, True)


@pytest.mark.parametrize("variant", ["kingofthehill", "threecheck", "bughousepartnerlose"])
def test_variant_losses_keep_the_winner_but_go_to_the_arbiter(variant: str) -> None:
    assert map_result("win", variant).result is GameResult.WHITE_WINS
    assert map_result(variant, "win").result is GameResult.BLACK_WINS
    assert map_result("win", variant).needs_arbiter
    assert variant in map_result(variant, "win").note


def test_an_unfinished_game_is_pending_and_not_an_arbiter_matter() -> None:
    for white, black in [(None, None), ("", ""), (None, "")]:
        mapped = map_result(white, black)
        assert (mapped.result, mapped.needs_arbiter) == (GameResult.PENDING, False)


def test_draws_with_different_codes_are_draws_that_the_arbiter_confirms() -> None:
    mapped = map_result("timevsinsufficient", "insufficient")
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.DRAW, True)


@pytest.mark.parametrize(
    ("white", "black"),
    [
        ("win", "win"),
        ("resigned", "timeout"),
        ("win", "agreed"),
        ("agreed", "checkmated"),
        ("win", None),
        (None, "checkmated"),
        ("win", "flagged"),
        ("victory", "resigned"),
    ],
)
def test_inconsistent_or_unknown_codes_are_never_guessed(white: str | None, black: str | None) -> None:
    mapped = map_result(white, black)
    assert (mapped.result, mapped.needs_arbiter) == (GameResult.PENDING, True)
    assert mapped.note
