"""Importing a match's results from Chess.com as a service on SQLite, with the PubAPI faked over
httpx.MockTransport (the hand-written fixtures of tests/fixtures/chesscom)."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr

from orchestrator.adapters.tables import Match, Player, Stage, StageStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.gameserver.chesscom_import import (
    ChessComUnavailable,
    ImportSummary,
    Outcome,
    import_chesscom_results,
    make_client,
    parse_team_match,
)
from orchestrator.services.results import results
from tests.support.chesscom_fake import FakeChessCom, Played, match_with_chesscom_accounts, served_match_1201
from tests.support.factories import stored_board as stored

AUGUST_15 = (datetime(2020, 8, 15, tzinfo=UTC), datetime(2020, 8, 15, 23, 59, tzinfo=UTC))


@pytest.fixture
def played(uowf: UnitOfWorkFactory) -> Played:
    with uowf() as uow:
        return match_with_chesscom_accounts(uow)


def audit_actions(uowf: UnitOfWorkFactory, entity: str, entity_id: int) -> list[str]:
    with uowf() as uow:
        return [row.action for row in uow.audit.for_entity(entity, entity_id)]


def import_team_match(
    uowf: UnitOfWorkFactory, played: Played, fake: FakeChessCom, **extra: object
) -> ImportSummary:
    with uowf() as uow:
        return import_chesscom_results(
            uow,
            match_id=played.match_id,
            source="team_match",
            chesscom_match_id=str(extra.pop("chesscom_match_id", "1201")),
            window=None,
            actor="ann",
            client=fake.client(),
        )


def test_a_team_match_fills_the_boards_with_result_link_and_pgn_as_an_import(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    summary = import_team_match(uowf, played, served_match_1201())

    board = stored(uowf, played.boards[1])
    assert (board.result, board.result_source, board.updated_by) == ("1-0", "import", "ann")
    assert board.game_url == "https://www.chess.com/game/live/900000101"
    assert board.pgn is not None and "Qxf7#" in board.pgn
    assert [(b.board_no, b.proposed, b.stored) for b in summary.recorded] == [(1, "1-0", "1-0")]
    assert [b.board_no for b in summary.boards] == [1, 2, 3, 4, 5, 6]
    assert "match.chesscom_import" in audit_actions(uowf, "match", played.match_id)


def test_flagged_games_are_not_recorded_but_listed_with_their_note_and_link(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    summary = import_team_match(uowf, played, served_match_1201())

    flagged = {b.board_no: b for b in summary.flagged}
    assert sorted(flagged) == [2, 3, 4, 5, 6]
    abandoned = flagged[2]
    assert abandoned.proposed == "+/-" and "abandoned" in abandoned.note
    assert abandoned.url == "https://www.chess.com/game/live/900000202"
    assert "not playing in team match 1201" in flagged[3].note
    for board_no in (2, 3, 4, 5, 6):
        board = stored(uowf, played.boards[board_no])
        assert (board.result, board.result_source, board.game_url) == ("*", None, None)


def test_an_arbiters_result_is_kept_and_the_import_only_shows_its_own(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    with uowf() as uow:
        results.record_result(
            uow, board_id=played.boards[1], result="½-½", expected_version=1, actor="arbiter-bob"
        )
    summary = import_team_match(uowf, played, served_match_1201())

    board = stored(uowf, played.boards[1])
    assert (board.result, board.result_source, board.updated_by) == ("½-½", "arbiter", "arbiter-bob")
    assert board.game_url is None
    kept = summary.arbiter_kept
    assert [(b.board_no, b.stored, b.proposed) for b in kept] == [(1, "½-½", "1-0")]
    assert "Chess.com says 1-0" in kept[0].note
    assert summary.recorded == []


def test_a_rate_limit_records_nothing_and_says_when_to_retry(uowf: UnitOfWorkFactory, played: Played) -> None:
    fake = served_match_1201()
    # Board 1 of the Chess.com match is read first and fine; the 429 comes on the second board.
    fake.serve("/pub/match/1201/2", httpx.Response(429, headers={"Retry-After": "120"}))

    with pytest.raises(ChessComUnavailable) as refused:
        import_team_match(uowf, played, fake)

    assert refused.value.retry_after_s == 120
    assert "Nothing was recorded" in refused.value.message and "2 minutes" in refused.value.message
    assert "/pub/match/1201/1" in fake.paths
    assert stored(uowf, played.boards[1]).result == "*"
    assert "match.chesscom_import" not in audit_actions(uowf, "match", played.match_id)


def test_a_server_error_is_a_clear_message_and_records_nothing(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    fake = served_match_1201()
    fake.serve("/pub/match/1201", httpx.Response(502, text="<html>Bad gateway</html>"))

    with pytest.raises(ChessComUnavailable) as refused:
        import_team_match(uowf, played, fake)

    assert refused.value.status_code == 503 and "try again" in refused.value.message
    assert stored(uowf, played.boards[1]).result == "*"


def test_an_unknown_team_match_is_refused_as_a_wrong_id(uowf: UnitOfWorkFactory, played: Played) -> None:
    with pytest.raises(ValidationFailed) as refused:
        import_team_match(uowf, played, served_match_1201(), chesscom_match_id="999")
    assert "team match 999" in refused.value.message


def test_importing_the_same_match_again_changes_nothing(uowf: UnitOfWorkFactory, played: Played) -> None:
    import_team_match(uowf, played, served_match_1201())
    version = stored(uowf, played.boards[1]).version

    again = import_team_match(uowf, played, served_match_1201())

    assert stored(uowf, played.boards[1]).version == version
    assert [b.outcome for b in again.boards if b.board_no == 1] == [Outcome.UNCHANGED]


def test_a_server_result_is_replaced_by_the_import_and_audited(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    with uowf() as uow:
        results.ingest_server_result(uow, board_id=played.boards[1], result="0-1", actor="worker")

    summary = import_team_match(uowf, played, served_match_1201())

    board = stored(uowf, played.boards[1])
    assert (board.result, board.result_source) == ("1-0", "import")
    assert "replaced 0-1" in summary.recorded[0].note
    assert "board.import_result" in audit_actions(uowf, "board", played.boards[1])


def test_the_archives_fill_a_board_with_the_one_game_in_the_window(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    fake = FakeChessCom(
        {
            "/pub/player/alphaknight/games/archives": "archives_alphaknight.json",
            "/pub/player/alphaknight/games/2020/08": "games_alphaknight_2020_08.json",
        }
    )
    with uowf() as uow:
        for board in uow.boards.for_match(played.match_id):
            white = uow.teams.get_or_raise(Player, board.white_player_id or 0)
            fake.routes.setdefault(f"/pub/player/{white.account}/games/archives", {"archives": []})
    with uowf() as uow:
        summary = import_chesscom_results(
            uow,
            match_id=played.match_id,
            source="archives",
            chesscom_match_id=None,
            window=AUGUST_15,
            actor="ann",
            client=fake.client(),
        )

    board = stored(uowf, played.boards[1])
    assert (board.result, board.game_url) == ("1-0", "https://www.chess.com/game/live/900000101")
    assert [b.board_no for b in summary.recorded] == [1]
    assert {b.outcome for b in summary.boards if b.board_no != 1} == {Outcome.NOT_YET}


def test_an_archive_import_needs_an_ordered_window_and_a_known_time_class(
    uowf: UnitOfWorkFactory, played: Played
) -> None:
    start, end = AUGUST_15
    with uowf() as uow, pytest.raises(ValidationFailed) as refused:
        import_chesscom_results(
            uow,
            match_id=played.match_id,
            source="archives",
            window=(end, start),
            time_class="classical",
            actor="ann",
            client=FakeChessCom().client(),
        )
    assert len(refused.value.problems) == 2


def test_a_closed_stage_is_not_changed_by_an_import(uowf: UnitOfWorkFactory, played: Played) -> None:
    with uowf() as uow:
        match = uow.rounds.get_or_raise(Match, played.match_id)
        stage = uow.rounds.stage_of_match(match)
        stage.status = StageStatus.CLOSED.value
        uow.session.add(stage)
    fake = served_match_1201()
    with pytest.raises(Conflict):
        import_team_match(uowf, played, fake)
    assert fake.paths == []
    assert "match.chesscom_import" not in audit_actions(uowf, "match", played.match_id)
    with uowf() as uow:
        assert uow.events.get_or_raise(Stage, stage.id or 0).status == "closed"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1201", (1201, False)),
        (" https://www.chess.com/club/matches/1201 ", (1201, False)),
        ("www.chess.com/club/matches/live/1202", (1202, True)),
        ("https://api.chess.com/pub/match/1201", (1201, False)),
        ("https://api.chess.com/pub/match/live/1202/3", (1202, True)),
    ],
)
def test_a_team_match_is_given_by_its_number_or_url(text: str, expected: tuple[int, bool]) -> None:
    assert parse_team_match(text) == expected


@pytest.mark.parametrize(
    "text", ["", "0", "abc", "²", "https://evil.example/club/matches/1201", "chess.com/games/12"]
)
def test_anything_else_is_not_a_team_match(text: str) -> None:
    with pytest.raises(ValidationFailed):
        parse_team_match(text)


def test_production_refuses_the_placeholder_user_agent_but_accepts_a_contact() -> None:
    production = Settings(
        environment="production",
        secret_key=SecretStr("x" * 32),
        token_encryption_key=SecretStr(Fernet.generate_key().decode()),
        public_base_url="https://olympiad.example.org",
    )
    with pytest.raises(Conflict, match="OLYMPIAD_CHESSCOM_USER_AGENT"):
        make_client(production)
    agent = "federation-olympiad/1.0 (arbiters@federation.example)"
    client = make_client(production.model_copy(update={"chesscom_user_agent": agent}))
    client.close()
