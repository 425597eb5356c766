"""Result codes, game points and match points as the domain reads them (docs/rules.md §1-2; C.07 11)."""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import (
    GameResult,
    MatchForfeit,
    MatchRecord,
    MatchScoring,
    ScoreError,
    board_colours,
    format_points,
    match_game_points,
    match_is_final,
    no_show,
    parse_points,
    parse_result,
)

R = GameResult


@pytest.mark.parametrize(
    ("text", "half_points"),
    [
        ("0", 0),
        ("½", 1),  # one half-point, not 1.5 points
        (".5", 1),
        (",5", 1),
        ("1", 2),
        ("3", 6),
        ("3.5", 7),
        ("3½", 7),
        ("3,5", 7),
        ("4.0", 8),
        ("4,0", 8),
        (" 12 ", 24),
    ],
)
def test_parse_points_reads_game_points_as_half_points(text: str, half_points: int) -> None:
    assert parse_points(text) == half_points


@pytest.mark.parametrize("text", ["", " ", "3.25", "-1", "½½", "3 ½", "abc", "3.5.5", "1/2"])
def test_parse_points_refuses_what_is_not_game_points(text: str) -> None:
    with pytest.raises(ScoreError, match="malformed score"):
        parse_points(text)


@pytest.mark.parametrize(
    ("text", "result"),
    [
        ("1-0", R.WHITE_WINS),
        (" 1 - 0 ", R.WHITE_WINS),
        ("0-1", R.BLACK_WINS),
        ("½-½", R.DRAW),
        ("1/2-1/2", R.DRAW),
        ("0.5-0.5", R.DRAW),
        ("=-=", R.DRAW),
        ("+/-", R.WHITE_WINS_FORFEIT),
        ("+-", R.WHITE_WINS_FORFEIT),
        ("-/+", R.BLACK_WINS_FORFEIT),
        ("-+", R.BLACK_WINS_FORFEIT),
        ("-/-", R.DOUBLE_FORFEIT),
        ("--", R.DOUBLE_FORFEIT),
        ("*", R.PENDING),
        ("", R.PENDING),
        ("–", R.PENDING),
    ],
)
def test_parse_result_reads_every_accepted_spelling(text: str, result: GameResult) -> None:
    assert parse_result(text) is result


@pytest.mark.parametrize("text", ["2-0", "1-1", "draw", "0-0", "1:0"])
def test_parse_result_refuses_an_unknown_code_and_says_what_is_accepted(text: str) -> None:
    with pytest.raises(ScoreError, match=r"unknown result .*use 1-0, ½-½ \(or 1/2-1/2\), 0-1"):
        parse_result(text)


def test_each_result_gives_its_half_points_and_kind() -> None:
    table = {
        #                       white, black, final, forfeit, played
        R.WHITE_WINS: (2, 0, True, False, True),
        R.DRAW: (1, 1, True, False, True),
        R.BLACK_WINS: (0, 2, True, False, True),
        R.WHITE_WINS_FORFEIT: (2, 0, True, True, False),
        R.BLACK_WINS_FORFEIT: (0, 2, True, True, False),
        R.DOUBLE_FORFEIT: (0, 0, True, True, False),
        R.PENDING: (0, 0, False, False, False),
    }
    for result, expected in table.items():
        assert (
            result.white_half,
            result.black_half,
            result.is_final,
            result.is_forfeit,
            result.is_played,
        ) == (expected)
        swapped = result.reversed()
        assert (swapped.white_half, swapped.black_half) == (result.black_half, result.white_half)
        assert swapped.is_forfeit == result.is_forfeit and swapped.reversed() is result


def test_a_match_is_final_only_when_every_board_is() -> None:
    assert match_is_final([R.WHITE_WINS, R.DRAW, R.DOUBLE_FORFEIT, R.BLACK_WINS_FORFEIT])
    assert not match_is_final([R.WHITE_WINS, R.PENDING, R.DRAW, R.DRAW])
    assert not match_is_final([R.PENDING])


def test_format_points_prints_half_points_as_fide_does() -> None:
    assert [format_points(h) for h in (0, 1, 7, 8, -3)] == ["0.0", "0.5", "3.5", "4.0", "-1.5"]


def test_match_points_compare_the_two_teams_game_points() -> None:
    assert [MatchScoring().match_points(own, other) for own, other in ((5, 3), (4, 4), (3, 5))] == [2, 1, 0]
    three_one = MatchScoring(win=3, draw=1, loss=0)
    assert [three_one.match_points(own, other) for own, other in ((5, 3), (4, 4), (3, 5))] == [3, 1, 0]


def test_the_first_named_team_has_white_on_odd_boards() -> None:
    assert board_colours(4) == ("W", "B", "W", "B")
    assert board_colours(4, first_named=False) == ("B", "W", "B", "W")
    # Board 1 1-0 (first-named team White), board 2 1-0 (second team White), boards 3-4 drawn.
    results = [R.WHITE_WINS, R.WHITE_WINS, R.DRAW, R.DRAW]
    assert match_game_points(results) == (4, 4)
    results = [R.WHITE_WINS, R.BLACK_WINS, R.DRAW, R.DRAW]
    assert match_game_points(results) == (6, 2)
    assert match_game_points(results, a_is_first_named=False) == (2, 6)


def test_no_show_gives_the_present_team_every_board_and_a_double_no_show_nothing() -> None:
    assert no_show(round=1, team_a="A", team_b="B", absent="B", boards=4) == MatchRecord(
        1, "A", "B", 8, 0, MatchForfeit.A_WINS
    )
    assert no_show(round=1, team_a="A", team_b="B", absent="A", boards=4) == MatchRecord(
        1, "A", "B", 0, 8, MatchForfeit.B_WINS
    )
    both = no_show(round=2, team_a="A", team_b="B", absent=None, boards=4)
    assert both == MatchRecord(2, "A", "B", 0, 0, MatchForfeit.DOUBLE)
    with pytest.raises(ScoreError, match="'C' does not play in A – B"):
        no_show(round=1, team_a="A", team_b="B", absent="C", boards=4)


def test_match_record_match_points_for_each_kind_of_match() -> None:
    scoring = MatchScoring(win=3, draw=1, loss=0)
    assert MatchRecord(1, "A", "B", 5, 3).mp(scoring) == (3, 0)
    assert MatchRecord(1, "A", "B", 4, 4).mp(scoring) == (1, 1)
    assert MatchRecord(1, "A", "B", 0, 8, MatchForfeit.B_WINS).mp(scoring) == (0, 3)
    assert MatchRecord(1, "A", "B", 8, 0, MatchForfeit.A_WINS).mp(scoring) == (3, 0)
    # a double forfeit is a loss for both, not a draw, even when the recorded points are level
    assert MatchRecord(1, "A", "B", 0, 0, MatchForfeit.DOUBLE).mp(scoring) == (0, 0)
    bye = MatchRecord(1, "A", None, 4, 0)
    assert (bye.is_bye, bye.is_played) == (True, False)
    assert MatchRecord(1, "A", "B", 4, 4).is_played
    assert not MatchRecord(1, "A", "B", 0, 0, MatchForfeit.DOUBLE).is_played
