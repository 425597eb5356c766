"""Every line of the game-server mapping (docs/rules.md §8; docs/gameserver.md) read in full: the result,
whether it is final, whether an arbiter must look, the reason shown to staff, the status kept, whether
polling may stop, and what the server's own fields propose."""

from __future__ import annotations

import pytest

from orchestrator.domain.gameresults import MappedResult, map_game, map_status, status_name
from orchestrator.domain.scoring import GameResult as R


@pytest.mark.parametrize(
    ("status", "winner", "expected"),
    [
        ("created", None, MappedResult(R.PENDING, False, False, "game not finished yet", "created", False)),
        (
            "started",
            "white",
            MappedResult(R.PENDING, False, False, "game not finished yet", "started", False),
        ),
        (
            "aborted",
            None,
            MappedResult(
                R.PENDING,
                False,
                True,
                "game aborted before it counted: replay it or let an arbiter decide",
                "aborted",
                True,
            ),
        ),
        (
            "cheat",
            "black",
            MappedResult(
                R.PENDING,
                False,
                True,
                "game server reports a fair-play violation: result held for an arbiter",
                "cheat",
                True,
                R.BLACK_WINS,
            ),
        ),
        ("mate", "white", MappedResult(R.WHITE_WINS, True, False, "mate", "mate", True)),
        (
            "resign",
            None,
            MappedResult(R.PENDING, False, True, "status resign without a winner", "resign", True),
        ),
        ("outoftime", "black", MappedResult(R.BLACK_WINS, True, False, "outoftime", "outoftime", True)),
        (
            "outoftime",
            None,
            MappedResult(R.DRAW, True, False, "outoftime against insufficient material", "outoftime", True),
        ),
        ("stalemate", None, MappedResult(R.DRAW, True, False, "stalemate", "stalemate", True)),
        (
            "draw",
            "white",
            MappedResult(R.PENDING, False, True, "status draw with a winner", "draw", True, R.WHITE_WINS),
        ),
        (
            "unknownFinish",
            "black",
            MappedResult(
                R.PENDING,
                False,
                True,
                "game server does not know how the game ended",
                "unknownFinish",
                True,
                R.BLACK_WINS,
            ),
        ),
        (
            "timeoutX",
            None,
            MappedResult(R.PENDING, False, True, "unknown status 'timeoutX'", "timeoutX", True, None),
        ),
        (
            "timeoutX",
            "white",
            MappedResult(R.PENDING, False, True, "unknown status 'timeoutX'", "timeoutX", True, R.WHITE_WINS),
        ),
        (
            "mate",
            "both",
            MappedResult(R.PENDING, False, True, "unreadable winner 'both' with status 'mate'", "mate", True),
        ),
    ],
)
def test_each_status_maps_to_one_full_result(status: str, winner: str | None, expected: MappedResult) -> None:
    assert map_status(status, winner) == expected


@pytest.mark.parametrize(
    ("winner", "moves", "forfeit", "expected"),
    [
        # scalachess Status.NoStart: the player who did not make a first move loses.
        (
            "white",
            None,
            True,
            MappedResult(
                R.WHITE_WINS_FORFEIT, True, False, "black did not make a first move", "noStart", True
            ),
        ),
        (
            "black",
            "e4",
            True,
            MappedResult(
                R.BLACK_WINS_FORFEIT, True, False, "white did not make a first move", "noStart", True
            ),
        ),
        (
            "black",
            None,
            False,
            MappedResult(R.BLACK_WINS, True, False, "white did not make a first move", "noStart", True),
        ),
        (
            None,
            None,
            True,
            MappedResult(
                R.BLACK_WINS_FORFEIT, True, False, "white did not make a first move", "noStart", True
            ),
        ),
        (
            None,
            "",
            True,
            MappedResult(
                R.BLACK_WINS_FORFEIT, True, False, "white did not make a first move", "noStart", True
            ),
        ),
        (
            None,
            "e4",
            True,
            MappedResult(
                R.WHITE_WINS_FORFEIT, True, False, "black did not make a first move", "noStart", True
            ),
        ),
        (
            None,
            "e4",
            False,
            MappedResult(R.WHITE_WINS, True, False, "black did not make a first move", "noStart", True),
        ),
        (
            None,
            "e4 e5",
            True,
            MappedResult(R.PENDING, False, True, "noStart after 2 moves and no winner", "noStart", True),
        ),
        (
            None,
            17,
            True,
            MappedResult(
                R.BLACK_WINS_FORFEIT, True, False, "white did not make a first move", "noStart", True
            ),
        ),
    ],
)
def test_no_start_in_full(winner: str | None, moves: object, forfeit: bool, expected: MappedResult) -> None:
    assert map_status("noStart", winner, moves=moves, no_start_as_forfeit=forfeit) == expected


def test_a_game_s_status_is_read_from_its_name_its_text_or_its_number() -> None:
    assert status_name({"statusName": "mate", "status": 31}) == "mate"
    assert status_name({"status": "resign"}) == "resign"
    assert status_name({"status": 34}) == "draw"
    assert status_name({"status": 99}) is None
    assert status_name({"status": True}) is None
    assert status_name({"statusName": 3}) is None
    assert status_name({}) is None


def test_a_whole_game_passes_its_winner_moves_and_the_event_s_no_start_rule() -> None:
    assert map_game({"status": 37, "moves": "e4"}, no_start_as_forfeit=False) == MappedResult(
        R.WHITE_WINS, True, False, "black did not make a first move", "noStart", True
    )
    assert map_game({"status": "noStart", "winner": "black"}) == MappedResult(
        R.BLACK_WINS_FORFEIT, True, False, "white did not make a first move", "noStart", True
    )
    assert map_game({"status": "mate", "winner": "black"}).result is R.BLACK_WINS
    assert map_game({"status": [1]}) == MappedResult(
        R.PENDING, False, True, "unreadable status [1]", "", True
    )
    assert map_game({}) == MappedResult(R.PENDING, False, True, "unreadable status None", "", True)
