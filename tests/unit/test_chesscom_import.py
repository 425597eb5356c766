"""Filling a match's boards from a Chess.com team match or from players' monthly archives."""

from datetime import UTC, datetime, timedelta, timezone

import httpx
import pytest

from orchestrator.adapters.chesscom import BadResponse, BoardSlot, NotFound, RateLimited
from orchestrator.domain.scoring import GameResult
from tests.support.chesscom_fake import FakeChessCom, fixture, served_match_1201

# ---------------------------------------------------------------- team matches


def test_each_board_takes_the_game_where_our_white_had_white() -> None:
    fake = served_match_1201()
    games = fake.importer().import_team_match(
        1201, [BoardSlot(1, "AlphaKnight", "BetaBishop"), BoardSlot(2, "BetaBishop", "AlphaKnight")]
    )
    first, second = games
    assert (first.board_no, first.result, first.needs_arbiter) == (1, GameResult.WHITE_WINS, False)
    assert first.url == "https://www.chess.com/game/live/900000101"
    assert first.pgn is not None and "Qxf7#" in first.pgn
    assert first.end_time == datetime(2020, 8, 15, 14, 52, tzinfo=UTC)
    assert (second.result, second.url) == (GameResult.DRAW, "https://www.chess.com/game/live/900000102")


def test_usernames_match_whatever_their_case() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "alphaKNIGHT", "BETABISHOP")])
    assert (game.result, game.matched) == (GameResult.WHITE_WINS, True)


def test_our_board_numbers_need_not_equal_chess_com_board_numbers() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(5, "AlphaRook", "BetaQueen")])
    assert (game.board_no, game.result) == (5, GameResult.BLACK_WINS)
    assert fake.paths == ["/pub/match/1201", "/pub/match/1201/2"]


def test_an_abandoned_game_is_imported_as_a_forfeit_for_the_arbiter() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(2, "BetaQueen", "AlphaRook")])
    assert (game.result, game.needs_arbiter) == (GameResult.WHITE_WINS_FORFEIT, True)
    assert "abandoned" in game.note


def test_requests_are_sequential_and_each_board_is_fetched_once() -> None:
    fake = served_match_1201()
    fake.importer().import_team_match(
        1201,
        [
            BoardSlot(1, "AlphaKnight", "BetaBishop"),
            BoardSlot(2, "BetaQueen", "AlphaRook"),
            BoardSlot(3, "BetaBishop", "AlphaKnight"),
            BoardSlot(4, "AlphaRook", "BetaQueen"),
        ],
    )
    assert fake.paths == ["/pub/match/1201", "/pub/match/1201/1", "/pub/match/1201/2"]


def test_a_player_missing_from_the_match_leaves_the_board_without_a_result() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "Stranger")])
    assert (game.result, game.url, game.matched, game.needs_arbiter) == (
        GameResult.PENDING,
        None,
        False,
        True,
    )
    assert "Stranger not playing in team match 1201" in game.note


def test_two_players_on_different_boards_are_not_paired() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaQueen")])
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, True)
    assert "not paired" in game.note
    assert fake.paths == ["/pub/match/1201"]


def test_two_team_mates_are_not_an_opposing_pair() -> None:
    fake = served_match_1201()
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "AlphaRook")])
    assert (game.result, game.matched) == (GameResult.PENDING, False)
    assert "same team" in game.note


def test_a_match_in_registration_gives_pending_boards_without_fetching_any() -> None:
    fake = FakeChessCom({"/pub/match/1203": "match_1203_registration.json"})
    (game,) = fake.importer().import_team_match(1203, [BoardSlot(1, "AlphaKnight", "DeltaKing")])
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, False)
    assert fake.paths == ["/pub/match/1203"]


def test_a_game_in_progress_is_found_but_pending() -> None:
    fake = FakeChessCom(
        {"/pub/match/1202": "match_1202_in_progress.json", "/pub/match/1202/1": "match_1202_board_1.json"}
    )
    black_leg, white_leg = fake.importer().import_team_match(
        1202, [BoardSlot(1, "GammaPawn", "AlphaKnight"), BoardSlot(2, "AlphaKnight", "GammaPawn")]
    )
    assert (black_leg.result, black_leg.matched, black_leg.needs_arbiter) == (GameResult.PENDING, True, False)
    assert black_leg.end_time is None and black_leg.pgn is None
    assert white_leg.result is GameResult.PENDING and not white_leg.needs_arbiter


def test_a_game_not_started_yet_in_a_running_match_is_pending_without_alarm() -> None:
    board = fixture("match_1202_board_1.json")
    board["games"] = board["games"][:1]
    fake = FakeChessCom({"/pub/match/1202": "match_1202_in_progress.json", "/pub/match/1202/1": board})
    (game,) = fake.importer().import_team_match(1202, [BoardSlot(1, "AlphaKnight", "GammaPawn")])
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, False)
    assert "not started" in game.note


def test_a_finished_match_without_our_colours_game_goes_to_the_arbiter() -> None:
    board = fixture("match_1201_board_1.json")
    board["games"] = board["games"][1:]
    fake = served_match_1201()
    fake.serve("/pub/match/1201/1", board)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, True)


def test_two_games_with_the_same_colours_on_a_board_are_not_guessed() -> None:
    board = fixture("match_1201_board_1.json")
    board["games"] = [board["games"][0], board["games"][0]]
    fake = served_match_1201()
    fake.serve("/pub/match/1201/1", board)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, True)


def test_a_match_record_that_contradicts_the_game_is_flagged() -> None:
    match = fixture("match_1201.json")
    match["teams"]["team1"]["players"][0]["played_as_white"] = "resigned"  # e.g. a fair-play adjustment
    fake = served_match_1201()
    fake.serve("/pub/match/1201", match)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])
    assert game.needs_arbiter
    assert "fair-play" in game.note


def test_a_non_standard_rules_game_is_flagged() -> None:
    board = fixture("match_1201_board_1.json")
    board["games"][0]["rules"] = "chess960"
    fake = served_match_1201()
    fake.serve("/pub/match/1201/1", board)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])
    assert (game.result, game.needs_arbiter) == (GameResult.WHITE_WINS, True)
    assert "chess960" in game.note


def test_boards_are_found_by_scanning_when_the_roster_has_no_board_urls() -> None:
    match = fixture("match_1201.json")
    for team in match["teams"].values():
        for player in team["players"]:
            del player["board"]
    fake = served_match_1201()
    fake.serve("/pub/match/1201", match)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "BetaQueen", "AlphaRook")])
    assert game.url == "https://www.chess.com/game/live/900000202"
    assert fake.paths == ["/pub/match/1201", "/pub/match/1201/1", "/pub/match/1201/2"]


@pytest.mark.parametrize(
    "breakage",
    [
        lambda m: m.pop("teams"),
        lambda m: m["teams"].update(team1=[]),
        lambda m: m["teams"]["team1"].pop("players"),
        lambda m: m["teams"]["team1"]["players"][0].pop("username"),
        lambda m: m["teams"]["team1"]["players"][0].update(board="https://api.chess.com/pub/match/x"),
    ],
)
def test_a_match_in_the_wrong_shape_is_an_error_not_a_result(breakage) -> None:
    match = fixture("match_1201.json")
    breakage(match)
    fake = served_match_1201()
    fake.serve("/pub/match/1201", match)
    with pytest.raises(BadResponse):
        fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])


def test_a_chosen_game_without_a_url_or_with_a_bad_end_time_is_an_error() -> None:
    for key, value in [("url", None), ("end_time", "yesterday")]:
        board = fixture("match_1201_board_1.json")
        board["games"][0][key] = value
        fake = served_match_1201()
        fake.serve("/pub/match/1201/1", board)
        with pytest.raises(BadResponse):
            fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])


def test_a_rate_limit_midway_raises_instead_of_returning_half_a_match() -> None:
    fake = served_match_1201()
    fake.serve("/pub/match/1201/2", httpx.Response(429))
    with pytest.raises(RateLimited):
        fake.importer().import_team_match(
            1201, [BoardSlot(1, "AlphaKnight", "BetaBishop"), BoardSlot(2, "BetaQueen", "AlphaRook")]
        )


# ---------------------------------------------------------------- monthly archives

ROUND_START = datetime(2020, 8, 15, 14, 0, tzinfo=UTC)
ROUND_END = datetime(2020, 8, 15, 17, 0, tzinfo=UTC)


def served_archives() -> FakeChessCom:
    return FakeChessCom(
        {
            "/pub/player/alphaknight/games/archives": "archives_alphaknight.json",
            "/pub/player/alphaknight/games/2020/07": "games_alphaknight_2020_07.json",
            "/pub/player/alphaknight/games/2020/08": "games_alphaknight_2020_08.json",
        }
    )


def test_the_archive_game_between_the_two_accounts_in_the_window_with_those_colours_is_found() -> None:
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")], ROUND_START, ROUND_END
    )
    # The blitz game, the game outside the window and the reversed-colours game are all left out.
    assert (game.result, game.needs_arbiter) == (GameResult.WHITE_WINS, False)
    assert game.url == "https://www.chess.com/game/live/900000101"
    assert fake.paths == ["/pub/player/alphaknight/games/archives", "/pub/player/alphaknight/games/2020/08"]


def test_the_time_class_selects_among_games_in_the_window() -> None:
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")], ROUND_START, ROUND_END, time_class="blitz"
    )
    assert game.url == "https://www.chess.com/game/live/900000502"


def test_a_window_given_in_another_time_zone_means_the_same_instants() -> None:
    tz = timezone(timedelta(hours=3))
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "alphaknight", "betabishop")], ROUND_START.astimezone(tz), ROUND_END.astimezone(tz)
    )
    assert game.url == "https://www.chess.com/game/live/900000101"


def test_a_window_across_a_month_end_reads_both_months() -> None:
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")],
        datetime(2020, 7, 31, 22, 0, tzinfo=UTC),
        datetime(2020, 8, 1, 2, 0, tzinfo=UTC),
    )
    assert (game.result, game.url) == (GameResult.BLACK_WINS, "https://www.chess.com/game/live/900000401")
    assert fake.paths[1:] == [
        "/pub/player/alphaknight/games/2020/07",
        "/pub/player/alphaknight/games/2020/08",
    ]


def test_two_candidate_games_are_flagged_not_guessed() -> None:
    month = fixture("games_alphaknight_2020_08.json")
    replay = dict(month["games"][2], url="https://www.chess.com/game/live/900000599", end_time=1597509000)
    month["games"].append(replay)
    fake = served_archives()
    fake.serve("/pub/player/alphaknight/games/2020/08", month)
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")], ROUND_START, ROUND_END
    )
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, True)
    assert "900000101" in game.note and "900000599" in game.note


def test_a_game_found_only_with_reversed_colours_goes_to_the_arbiter() -> None:
    fake = served_archives()
    month = fixture("games_alphaknight_2020_08.json")
    month["games"] = [g for g in month["games"] if g["url"] != "https://www.chess.com/game/live/900000101"]
    fake.serve("/pub/player/alphaknight/games/2020/08", month)
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")], ROUND_START, ROUND_END
    )
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, True)
    assert "colours reversed" in game.note and "900000102" in game.note


def test_no_game_yet_is_pending_and_mentions_the_archive_delay() -> None:
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "DeltaKing")], ROUND_START, ROUND_END
    )
    assert (game.result, game.matched, game.needs_arbiter) == (GameResult.PENDING, False, False)
    assert "lag" in game.note


def test_months_absent_from_the_archive_list_are_not_requested() -> None:
    fake = served_archives()
    (game,) = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop")],
        datetime(2020, 9, 1, tzinfo=UTC),
        datetime(2020, 10, 1, tzinfo=UTC),
    )
    assert not game.matched
    assert fake.paths == ["/pub/player/alphaknight/games/archives"]


def test_archives_and_months_are_fetched_once_for_several_boards() -> None:
    fake = served_archives()
    games = fake.importer().import_from_archives(
        [BoardSlot(1, "AlphaKnight", "BetaBishop"), BoardSlot(3, "AlphaKnight", "GammaPawn")],
        ROUND_START,
        ROUND_END,
    )
    assert [g.result for g in games] == [GameResult.WHITE_WINS, GameResult.BLACK_WINS]
    assert len(fake.paths) == 2


def test_the_window_must_be_time_zone_aware_and_in_order() -> None:
    importer = served_archives().importer()
    slot = [BoardSlot(1, "AlphaKnight", "BetaBishop")]
    with pytest.raises(ValueError, match="timezone-aware"):
        importer.import_from_archives(slot, datetime(2020, 8, 15), ROUND_END)
    with pytest.raises(ValueError, match="ends before"):
        importer.import_from_archives(slot, ROUND_END, ROUND_START)


def test_a_candidate_without_a_readable_end_time_is_an_error() -> None:
    month = fixture("games_alphaknight_2020_08.json")
    month["games"][2]["end_time"] = "1597503120"
    fake = served_archives()
    fake.serve("/pub/player/alphaknight/games/2020/08", month)
    with pytest.raises(BadResponse, match="end_time"):
        fake.importer().import_from_archives(
            [BoardSlot(1, "AlphaKnight", "BetaBishop")], ROUND_START, ROUND_END
        )


def test_an_unknown_white_player_is_not_found() -> None:
    with pytest.raises(NotFound, match="'Ghost'"):
        served_archives().importer().import_from_archives(
            [BoardSlot(1, "Ghost", "BetaBishop")], ROUND_START, ROUND_END
        )


def test_a_game_without_result_in_a_finished_match_goes_to_the_arbiter() -> None:
    board = fixture("match_1201_board_1.json")
    for colour in ("white", "black"):
        del board["games"][0][colour]["result"]
    fake = served_match_1201()
    fake.serve("/pub/match/1201/1", board)
    (game,) = fake.importer().import_team_match(1201, [BoardSlot(1, "AlphaKnight", "BetaBishop")])
    assert (game.result, game.needs_arbiter) == (GameResult.PENDING, True)
    assert "no result" in game.note
