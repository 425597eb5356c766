"""Reading a game-server game into our result (docs/rules.md §8; docs/gameserver.md mapping table)."""

from __future__ import annotations

import pytest

from orchestrator.domain.gameresults import STATUS_BY_ID, map_game, map_status
from orchestrator.domain.scoring import GameResult

W, B, D, P = GameResult.WHITE_WINS, GameResult.BLACK_WINS, GameResult.DRAW, GameResult.PENDING


@pytest.mark.parametrize(
    ("status", "winner", "expected"),
    [
        ("mate", "white", W),
        ("mate", "black", B),
        ("resign", "white", W),
        ("resign", "black", B),
        ("outoftime", "white", W),
        ("outoftime", "black", B),
        ("timeout", "black", B),
        ("variantEnd", "white", W),
        ("draw", None, D),
        ("stalemate", None, D),
        ("insufficientMaterialClaim", None, D),
        ("outoftime", None, D),
    ],
)
def test_finished_games_give_a_final_result_from_status_and_winner(status, winner, expected):
    mapped = map_status(status, winner)
    assert (mapped.result, mapped.final, mapped.needs_arbiter, mapped.game_over) == (
        expected,
        True,
        False,
        True,
    )


@pytest.mark.parametrize("status", ["created", "started"])
def test_unfinished_games_stay_pending_and_keep_being_polled(status):
    mapped = map_status(status, None)
    assert (mapped.result, mapped.final, mapped.needs_arbiter, mapped.game_over) == (P, False, False, False)


def test_an_aborted_game_has_no_result_and_is_flagged_for_replay_or_an_arbiter():
    mapped = map_status("aborted", None, moves="e4")
    assert (mapped.result, mapped.final, mapped.needs_arbiter, mapped.game_over) == (P, False, True, True)
    assert "abort" in mapped.reason


def test_a_cheat_result_is_held_for_an_arbiter_with_the_servers_proposal_kept():
    mapped = map_status("cheat", "black")
    assert (mapped.result, mapped.final, mapped.needs_arbiter, mapped.proposed) == (P, False, True, B)


@pytest.mark.parametrize(
    ("winner", "moves", "expected"),
    [
        ("black", "", GameResult.BLACK_WINS_FORFEIT),
        ("white", "e4", GameResult.WHITE_WINS_FORFEIT),
        (None, "", GameResult.BLACK_WINS_FORFEIT),
        (None, None, GameResult.BLACK_WINS_FORFEIT),
        (None, "d4", GameResult.WHITE_WINS_FORFEIT),
    ],
)
def test_no_start_makes_the_player_who_did_not_move_lose(winner, moves, expected):
    mapped = map_status("noStart", winner, moves=moves)
    assert (mapped.result, mapped.final, mapped.needs_arbiter) == (expected, True, False)


def test_no_start_can_be_counted_as_a_played_loss_when_the_event_says_so():
    mapped = map_status("noStart", None, moves="", no_start_as_forfeit=False)
    assert mapped.result is B


def test_no_start_after_several_moves_without_a_winner_goes_to_an_arbiter():
    mapped = map_status("noStart", None, moves="e4 e5 Nf3")
    assert (mapped.result, mapped.needs_arbiter) == (P, True)


@pytest.mark.parametrize(
    ("status", "winner"),
    [("mate", None), ("resign", None), ("draw", "white"), ("stalemate", "black"), ("unknownFinish", None)],
)
def test_inconsistent_or_unknown_endings_go_to_an_arbiter_instead_of_guessing(status, winner):
    mapped = map_status(status, winner)
    assert (mapped.result, mapped.final, mapped.needs_arbiter) == (P, False, True)


@pytest.mark.parametrize(
    "game",
    [
        {"id": "a", "status": "mate", "winner": "White"},
        {"id": "a", "status": "mate", "winner": 1},
        {"id": "a", "status": "resigned", "winner": "white"},
        {"id": "a", "status": None},
        {"id": "a"},
        {"id": "a", "status": 99, "winner": "white"},
        {"id": "a", "status": True, "winner": "white"},
    ],
)
def test_unreadable_games_never_become_a_result(game):
    mapped = map_game(game)
    assert (mapped.result, mapped.final, mapped.needs_arbiter) == (P, False, True)


def test_stream_events_are_read_from_the_numeric_status_or_the_status_name():
    by_number = map_game({"id": "x", "status": 31, "winner": "black"})
    by_name = map_game({"id": "x", "status": 31, "statusName": "resign", "winner": "black"})
    assert by_number.result is by_name.result is B
    assert map_game({"id": "x", "status": 20}).result is P


def test_every_lichess_status_id_maps_without_error():
    for number, name in STATUS_BY_ID.items():
        assert map_game({"id": "x", "status": number}).status == name
