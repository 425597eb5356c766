"""The records every TRF-2026 file we write shares (``trf.records``; FIDE TRF-2026, docs/trf.md): what a
file can hold (three-digit team numbers, four-digit player numbers, one line a record), the per-board
results synthesised from a match score, record 310 and record 320."""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import GameResult, MatchRecord
from orchestrator.domain.tiebreaks import TieBreakError, build_event
from orchestrator.domain.trf.records import check_fits, put, synthesise_boards, team_records
from orchestrator.domain.trf.teams import write_trf


def test_a_file_holds_at_most_999_teams() -> None:
    check_fits(["T"] * 999, 1, "Cup")
    message = r"^a TRF-2026 file holds at most 999 teams \(three-digit team numbers\); this table has 1000$"
    with pytest.raises(TieBreakError, match=message):
        check_fits(["T"] * 1000, 1, "Cup")


def test_a_file_holds_at_most_9999_players() -> None:
    check_fits(["A", "B", "C"], 3333, "Cup")
    message = (
        r"^a TRF-2026 file holds at most 9999 players \(four-digit numbers\); "
        r"3 teams of 3334 boards make 10002$"
    )
    with pytest.raises(TieBreakError, match=message):
        check_fits(["A", "B", "C"], 3334, "Cup")


def test_a_name_with_a_line_break_is_refused_naming_what_it_is() -> None:
    with pytest.raises(TieBreakError, match=r"^the tournament name 'Cup\\r012 X' contains a line break; "):
        check_fits(["A"], 1, "Cup\r012 X")
    with pytest.raises(TieBreakError, match=r"^the team name 'A\\n001 X' contains a line break; a TRF-2026"):
        check_fits(["B", "A\n001 X"], 1, "Cup")


def test_put_writes_over_the_columns_it_names_and_pads_a_short_line() -> None:
    line = list("abcdefgh")
    put(line, 3, "XY")
    assert "".join(line) == "abXYefgh"
    short = list("ab")
    put(short, 5, "Z")
    assert "".join(short) == "ab  Z"


def test_synthesised_boards_refuse_a_score_that_no_boards_give() -> None:
    odd = MatchRecord(1, "A", "B", 3, 2)  # 2.5 game points in all: not whole boards
    with pytest.raises(TieBreakError, match=r"^round 1: A – B game points do not fit 4 boards$"):
        synthesise_boards(odd, 4)
    with pytest.raises(TieBreakError, match="do not fit 2 boards"):
        synthesise_boards(MatchRecord(1, "A", "B", 4, 2), 2)  # three game points on two boards
    assert synthesise_boards(MatchRecord(1, "A", "B", 4, 0), 2) == (
        GameResult.WHITE_WINS,
        GameResult.BLACK_WINS,
    )


def test_synthesised_boards_give_wins_then_a_draw_then_losses_then_double_forfeits() -> None:
    # 1.5-1.5 on four boards: A wins board 1 (White), draws board 2, loses board 3 (White), and the
    # fourth board, missing from the total, is lost by both sides.
    assert synthesise_boards(MatchRecord(1, "A", "B", 3, 3), 4) == (
        GameResult.WHITE_WINS,
        GameResult.DRAW,
        GameResult.BLACK_WINS,
        GameResult.DOUBLE_FORFEIT,
    )


def test_record_310_cuts_the_team_name_to_32_columns_and_lists_no_player_for_a_team_without_any() -> None:
    long = "L" * 40
    event = build_event([long, "B"], [MatchRecord(1, long, "B", 2, 0)], boards=1)
    lines = team_records([long, "B"], {long: 1, "B": 2}, event, {long: 1, "B": 2}, {"B": [2]})
    assert lines == [
        "310   1 " + "L" * 32 + " " * 14 + "   2.0    1.0   1",
        "310   2 B" + " " * 45 + "   0.0    0.0   2     2",
    ]


def test_record_320_needs_one_value_for_every_pairing_allocated_bye() -> None:
    matches = [
        MatchRecord(1, "A", "B", 2, 0),
        MatchRecord(1, "C", None, 1, 0),
        MatchRecord(2, "A", "C", 2, 0),
        MatchRecord(2, "B", None, 2, 0),  # a bye worth another number of game points
    ]
    message = r"^record 320 needs the same value for every pairing-allocated bye$"
    with pytest.raises(TieBreakError, match=message):
        write_trf(list("ABC"), matches, chain=["MP"], boards=1, round_robin=False)
