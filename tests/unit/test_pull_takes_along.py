"""A round's pull takes its stage's other open rounds along (docs/workers.md, "Pulling and ingesting
results"): one export and one ingestion for every open game of the stage, each round settled and stamped,
an unfinished one pulled again as its own pull would have been; another stage's rounds are left alone."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from orchestrator.adapters.tables import Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.services.gameserver import gameserver
from orchestrator.services.gameserver.gameserver import PullOutcome
from tests.support.factories import stored_board, stored_row
from tests.support.gameserver_fake import FakeServer, create_games, link_accounts
from tests.support.gameserver_round import RoundRows, add_round, make_round

KEY = Fernet.generate_key().decode()
PULL = "results.pull_round"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[arg-type]
        data_dir=tmp_path, token_encryption_key=KEY, gameserver_url="http://gs.test", round_pull_s=0.5
    )


@pytest.fixture
def server() -> FakeServer:
    return FakeServer()


def paired(uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, rows: RoundRows) -> None:
    create_games(uow_factory, settings, server, rows.round_id, 1)


@pytest.fixture
def two_rounds(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, sent: list
) -> tuple[RoundRows, RoundRows]:
    """Rounds 1 and 2 of one pool stage, both with their games on the server (bulks 0 and 1)."""
    first = make_round(uow_factory)
    link_accounts(uow_factory, settings, server, first.player_ids)
    second = add_round(uow_factory, first)
    paired(uow_factory, settings, server, first)
    paired(uow_factory, settings, server, second)
    sent.clear()
    return first, second


def pull(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, round_id: int
) -> PullOutcome:
    with server.client() as client, uow_factory() as uow:
        return gameserver.pull_round_results(
            uow, round_id=round_id, client=client, settings=settings, actor="worker"
        )


def results(uow_factory: UnitOfWorkFactory, rows: RoundRows) -> list[str]:
    return [stored_board(uow_factory, b).result for b in rows.board_ids]


def test_one_pull_ingests_and_closes_every_open_round_of_the_stage(
    uow_factory, settings, server, two_rounds, sent
) -> None:
    first, second = two_rounds
    for game_id in ("g0x000", "g0x001", "g1x000", "g1x001"):
        server.finish(game_id, "resign", "white")
    before = utcnow()
    outcome = pull(uow_factory, settings, server, first.round_id)
    assert (outcome.asked, outcome.along, outcome.finished) == (
        4,
        [second.round_id],
        [first.round_id, second.round_id],
    )
    assert outcome.round_finished and len(outcome.report.changed) == 4
    assert results(uow_factory, first) == results(uow_factory, second) == ["1-0", "1-0"]
    for round_id in (first.round_id, second.round_id):
        pulled = stored_row(uow_factory, Round, round_id)
        assert pulled.status == RoundStatus.FINISHED.value
        assert pulled.last_pull_at is not None and pulled.last_pull_at >= before
    assert not any(name == PULL for name, _ids in sent)  # nothing left to pull
    later = pull(uow_factory, settings, server, second.round_id)  # its own pull, queued before: nothing to do
    assert (later.asked, later.along, later.finished) == (0, [], [])


def test_a_round_taken_along_and_not_finished_keeps_its_own_chain_of_pulls(
    uow_factory, settings, server, two_rounds, sent
) -> None:
    """A pull queues its own round's next pull only, never one for a round it took along (that round's
    own pull, queued when its games were created, is still to come): a stage's open rounds never
    multiply their pulls."""
    first, second = two_rounds
    for game_id in ("g0x000", "g0x001", "g1x000"):  # one game of round 2 still playing
        server.finish(game_id, "draw")
    outcome = pull(uow_factory, settings, server, first.round_id)
    assert (outcome.along, outcome.finished, outcome.round_finished) == (
        [second.round_id],
        [first.round_id],
        True,
    )
    assert results(uow_factory, first) == ["½-½", "½-½"] and results(uow_factory, second) == ["½-½", "*"]
    assert stored_row(uow_factory, Round, second.round_id).last_pull_at is not None
    assert [ids for name, ids in sent if name == PULL] == []  # round 1 closed; round 2's pull is its own
    assert ("stages.advance", (first.stage_id,)) in sent
    sent.clear()
    own = pull(uow_factory, settings, server, second.round_id)  # round 2's own pull
    assert (own.asked, own.along, own.round_finished) == (1, [], False)
    assert [ids for name, ids in sent if name == PULL] == [(second.round_id,)]


def test_a_round_with_nothing_open_is_not_taken_along_and_another_stage_never(
    uow_factory, settings, server, two_rounds, sent
) -> None:
    first, second = two_rounds
    elsewhere = make_round(uow_factory, slug="other")
    link_accounts(uow_factory, settings, server, elsewhere.player_ids)
    paired(uow_factory, settings, server, elsewhere)  # bulk 2, another event's stage
    for game_id in ("g1x000", "g1x001", "g2x000", "g2x001"):
        server.finish(game_id, "resign", "black")
    assert pull(uow_factory, settings, server, second.round_id).finished == [second.round_id]
    outcome = pull(uow_factory, settings, server, first.round_id)
    assert (outcome.asked, outcome.along, outcome.finished) == (2, [], [])  # round 2 is closed
    assert results(uow_factory, elsewhere) == [
        "*",
        "*",
    ]  # the other stage's finished games wait for their pull
    assert stored_row(uow_factory, Round, elsewhere.round_id).last_pull_at is None
