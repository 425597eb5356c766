"""One bulk per round on the real PostgreSQL: the record of a request is committed before it is sent.

A round's first request goes out alone (no look at the organiser's list or the players' games first): no
earlier request can exist, since none left a record. A run that sent its request and never committed (a
worker killed) leaves that record pending, and the next run finds the bulk instead of sending again
(docs/gameserver.md, "One bulk per round").
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from orchestrator.adapters.tables import Board
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.gameserver import gameserver
from tests.support.gameserver_fake import FakeServer, create_games, link_accounts
from tests.support.gameserver_round import RoundRows, make_round

BULK_REQUESTS = ("POST /api/bulk-pairing", "GET /api/bulk-pairing")
# A round paired ahead of its start (a ``pairAt``) and one paired late (at once, no ``pairAt``).
AHEAD_OR_LATE = pytest.mark.parametrize(
    "starts_in", [timedelta(minutes=5), timedelta(minutes=-5)], ids=["ahead", "late"]
)


class Killed(Exception):
    """The worker dies after the game server answered, before its transaction commits."""


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    key = Fernet.generate_key().decode()
    return Settings(data_dir=tmp_path, token_encryption_key=key, gameserver_url="http://gs.test")  # type: ignore[arg-type]


def linked_round(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, starts_in: timedelta
) -> RoundRows:
    rows = make_round(uow_factory, starts_in=starts_in, slug=f"bulk-{secrets.token_hex(4)}")
    link_accounts(uow_factory, settings, server, rows.player_ids)
    return rows


def sent(server: FakeServer) -> list[str]:
    """The requests about bulks and players' games the server received, in order."""
    return [r for r in server.requests if r in BULK_REQUESTS or r.startswith("GET /api/games/user/")]


@AHEAD_OR_LATE
def test_a_rounds_first_bulk_is_one_request_and_its_record_is_kept(
    uow_factory: UnitOfWorkFactory, settings: Settings, starts_in: timedelta
) -> None:
    server = FakeServer(prefix=secrets.token_hex(4))
    rows = linked_round(uow_factory, settings, server, starts_in)
    made = create_games(uow_factory, settings, server, rows.round_id)
    assert made.status == "created"
    assert sent(server) == ["POST /api/bulk-pairing"]
    with uow_factory() as uow:
        record = uow.rounds.bulk_of_round(rows.round_id)
        assert record is not None and (record.status, record.bulk_id) == ("created", made.bulk_id)
        assert all(uow.boards.get_or_raise(Board, b).game_id for b in rows.board_ids)


@AHEAD_OR_LATE
def test_a_request_whose_run_never_committed_is_found_again_and_never_sent_twice(
    uow_factory: UnitOfWorkFactory, settings: Settings, starts_in: timedelta
) -> None:
    server = FakeServer(prefix=secrets.token_hex(4))
    rows = linked_round(uow_factory, settings, server, starts_in)
    with pytest.raises(Killed), server.client() as client, uow_factory() as uow:
        gone = gameserver.create_round_games(
            uow, round_id=rows.round_id, client=client, settings=settings, actor="worker"
        )
        assert gone.status == "created"
        raise Killed
    with uow_factory() as uow:  # the run's own changes are gone; the record of its request is not
        record = uow.rounds.bulk_of_round(rows.round_id)
        assert record is not None and record.status == "pending"
        assert not any(uow.boards.get_or_raise(Board, b).game_id for b in rows.board_ids)
    again = create_games(uow_factory, settings, server, rows.round_id)
    assert (again.status, again.bulk_id) == ("created", gone.bulk_id)
    assert server.requests.count("POST /api/bulk-pairing") == 1 and len(server.bulks) == 1
    assert sent(server)[1] == "GET /api/bulk-pairing"  # the second run looked before anything else
