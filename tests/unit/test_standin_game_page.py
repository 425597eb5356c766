"""The stand-in's game page (``GET /{game_id}``, orchestrator/standin/gamepage.py): what "Watch game" opens.

Players, result, time control, clocks, the moves in SAN and the final position as an SVG board, rendered
on the server; a game being played shows its moves three plies behind; an unknown id is a 404 page.
"""

from __future__ import annotations

import re
from html import unescape

import chess
import pytest

from orchestrator.standin.engine import chess_available
from orchestrator.standin.gamepage import board_svg, clock_text
from tests.support.standin import UNEQUAL, create_games, standin, store_of


def moves_on(page: str) -> list[str]:
    return [unescape(m) for m in re.findall(r'<span class="ply">([^<]+)</span>', page)]


def test_a_finished_game_shows_players_result_clocks_every_move_and_the_final_position() -> None:
    client = standin(prerender=False)
    [game_id] = create_games(client, 1, **UNEQUAL)
    store = store_of(client)
    game = store.games[game_id]
    view = store.view(game, store.tick())
    assert view.finished  # speed 0: over as soon as the clocks start

    page = client.get(f"/{game_id}")

    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    text = page.text
    assert f"White: {game.white.username} ({game.white.rating})" in text
    assert f"Black: {game.black.username} ({game.black.rating})" in text
    assert "White 5:00, Black 4:00, 5 s a move" in text  # the unequal Armageddon-like clocks
    assert moves_on(text) == list(game.plan.moves)
    board = chess.Board()
    for san in game.plan.moves:
        board.push_san(san)
    assert f"FEN {board.fen()}" in text and "<svg" in text
    result = {"white": "1-0", "black": "0-1", None: "½-½"}[view.winner]
    assert f'<p class="result">{result} · ' in text
    assert "<script" not in text


def test_a_game_being_played_shows_its_moves_three_plies_behind() -> None:
    client = standin(prerender=False, speed=1)
    [game_id] = create_games(client, 1)
    store = store_of(client)
    game = store.games[game_id]
    client.post("/_standin/time", json={"advanceMs": 120_000})  # two minutes into a ten-minute game
    view = store.view(game, store.tick())
    if view.finished:
        pytest.skip("this seed's game ended within two minutes")
    page = client.get(f"/{game_id}").text
    assert "Being played" in page and "three plies behind" in page
    assert moves_on(page) == list(game.plan.moves[: max(0, view.plies - 3)])


def test_an_unknown_game_is_a_404_page_not_an_error() -> None:
    client = standin(prerender=False)
    answer = client.get("/zzzzzzzz")
    assert answer.status_code == 404 and "No such game" in answer.text
    assert client.get("/%3Cscript%3E").text.count("<script>") == 0  # the id is escaped


def test_clock_text_and_the_board_need_nothing_but_the_moves() -> None:
    assert [clock_text(s) for s in (0, 59, 300, 3600 + 61)] == ["0:00", "0:59", "5:00", "1:01:01"]
    assert chess_available()
    figure = board_svg(("e4", "e5", "Qh5", "Ke7", "Qxe5#"))
    assert figure is not None and "Position after 5 plies, Black to move" in figure
