"""Board prizes (Olympiad 2026 regulations 4.6.3 and Appendix 2.III; docs/board-prizes.md): the order of
the players not yet eligible, the smallest eligibility threshold, and the settings passed to every board's
table; TPRs from FIDE C.07 10.2 with the B.02 table 8.1.1, worked out by hand."""

from __future__ import annotations

import pytest

from orchestrator.domain.board_prizes import BoardPlayer, board_table, board_tables
from orchestrator.domain.performance import PlayedGame, performance


def player(key: str, board: int, results: list[tuple[int, int]]) -> BoardPlayer:
    return BoardPlayer(key, key.title(), f"Team {key}", board, tuple(PlayedGame(r, h) for r, h in results))


def test_players_not_yet_eligible_follow_by_tpr_then_games_and_those_without_games_come_last() -> None:
    # With 8 games needed: b has one win against 2000 (TPR 2800), c two draws against 2000 (2000),
    # a one draw against 2000 (2000, fewer games than c), z no game at all.
    a = player("a", 1, [(2000, 1)])
    b = player("b", 1, [(2000, 2)])
    c = player("c", 1, [(2000, 1), (2000, 1)])
    z = player("z", 1, [])
    table = board_table(1, [z, a, c, b])
    assert [(r.player.key, r.eligible, r.place, r.games_needed) for r in table.rows] == [
        ("b", False, None, 7),
        ("c", False, None, 6),
        ("a", False, None, 7),
        ("z", False, None, 8),
    ]
    assert table.rows[0].performance == performance(b.games)
    assert table.rows[3].performance is None


def test_one_game_is_the_smallest_threshold() -> None:
    table = board_table(1, [player("a", 1, [(2000, 2)])], min_games=1)
    (row,) = table.rows
    assert (row.eligible, row.place, row.medal, row.games_needed) == (True, 1, "gold", 0)
    with pytest.raises(ValueError, match=r"^a board prize needs at least one game$"):
        board_table(1, [], min_games=0)


def test_every_board_s_table_gets_the_threshold_and_the_lots() -> None:
    # Board 2: x and y both drew their one game against 2000 (TPR 2000, one game each): tied, the lot
    # puts y first.
    players = [player("a", 1, [(2000, 2)]), player("x", 2, [(2000, 1)]), player("y", 2, [(2000, 1)])]
    one, two = board_tables(players, min_games=1, lot_order={frozenset({"x", "y"}): ["y", "x"]})
    assert [(r.player.key, r.place, r.medal) for r in one.rows] == [("a", 1, "gold")]
    assert [(r.player.key, r.place, r.medal) for r in two.rows] == [("y", 1, "gold"), ("x", 2, "silver")]
    assert two.ties == ()
    assert [r.eligible for r in board_tables(players)[0].rows] == [False]  # 8 games by default
