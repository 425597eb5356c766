"""Board prizes (Olympiad 2026 4.6.3, Appendix 2.III): TPR, at least eight games, more games, then lot."""

from __future__ import annotations

import pytest

from orchestrator.domain.board_prizes import BoardPlayer, board_table, board_tables
from orchestrator.domain.performance import PlayedGame


def player(key: str, board: int, results: list[tuple[int, int]]) -> BoardPlayer:
    return BoardPlayer(key, key.title(), f"Team {key}", board, tuple(PlayedGame(r, h) for r, h in results))


def test_ranked_by_performance_with_eight_games_needed() -> None:
    # a: 8 games v 2400, 6/8 → p .75, dp 193 → TPR 2593. b: 8 v 2500, 4/8 → 2500. c: 7 games, 7/7 → not yet.
    a = player("a", 1, [(2400, 2)] * 6 + [(2400, 0)] * 2)
    b = player("b", 1, [(2500, 1)] * 8)
    c = player("c", 1, [(2600, 2)] * 7)
    other_board = player("d", 2, [(2000, 2)] * 9)
    table = board_table(1, [c, b, a, other_board])
    assert [(r.player.key, r.place, r.medal, r.eligible) for r in table.rows] == [
        ("a", 1, "gold", True),
        ("b", 2, "silver", True),
        ("c", None, None, False),
    ]
    assert table.rows[0].performance is not None and table.rows[0].performance.rating == 2593
    assert table.rows[2].games_needed == 1
    assert table.ties == ()
    # With min_games 7 the perfect score comes first: ARO 2600 + 800.
    assert board_table(1, [a, b, c], min_games=7).rows[0].player.key == "c"


def test_equal_performance_more_games_first_then_a_lot() -> None:
    # Same TPR 2400 (all draws v 2400): e has 9 games, f and g 8 each → e first; f and g wait for a lot.
    e = player("e", 3, [(2400, 1)] * 9)
    f = player("f", 3, [(2400, 1)] * 8)
    g = player("g", 3, [(2400, 1)] * 8)
    table = board_table(3, [f, g, e])
    assert [(r.player.key, r.place, r.medal) for r in table.rows] == [
        ("e", 1, "gold"),
        ("f", 2, None),
        ("g", 2, None),
    ]
    assert table.ties == (("f", "g"),)
    drawn = board_table(3, [f, g, e], lot_order={frozenset({"f", "g"}): ["g", "f"]})
    assert [(r.player.key, r.place, r.medal) for r in drawn.rows] == [
        ("e", 1, "gold"),
        ("g", 2, "silver"),
        ("f", 3, "bronze"),
    ]
    assert drawn.ties == ()


def test_a_lot_that_does_not_match_the_tie_is_refused() -> None:
    f = player("f", 1, [(2400, 1)] * 8)
    g = player("g", 1, [(2400, 1)] * 8)
    with pytest.raises(ValueError, match="not the tied group"):
        board_table(1, [f, g], lot_order={frozenset({"f", "g"}): ["f", "x"]})


def test_a_player_without_games_is_listed_as_not_yet_eligible_and_tables_cover_every_board() -> None:
    idle = player("idle", 5, [])
    busy = player("busy", 1, [(2000, 2)] * 8)
    tables = board_tables([idle, busy])
    assert [t.board for t in tables] == [1, 5]
    assert tables[1].rows[0].eligible is False and tables[1].rows[0].games_needed == 8
    assert tables[1].rows[0].performance is None
