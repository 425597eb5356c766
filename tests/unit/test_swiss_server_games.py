"""A published Swiss round runs as a pool round does (docs/swiss.md, "The server"): due rounds are opened,
games created in one bulk, results pulled and the round settled; an unpaired or draft round is never
opened (it has no match yet)."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from cryptography.fernet import Fernet

from orchestrator.adapters.tables import Round, RoundStatus, Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.services.gameserver import gameserver
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.gameserver_fake import FakeServer, create_games, link_accounts
from tests.support.swiss import ACTOR, running_swiss

KEY = Fernet.generate_key().decode()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, token_encryption_key=KEY, gameserver_url="http://gs.test")  # type: ignore[arg-type]


def test_a_published_swiss_round_is_opened_paired_on_the_server_pulled_and_settled(
    uow_factory: UnitOfWorkFactory, settings: Settings, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    server = FakeServer()
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
        first = uow.rounds.rounds_of_stage(stage_id)[0]
        start, round_id = first.scheduled_at, first.id or 0
        event_id = uow.events.event_and_stage(stage_id)[0].id or 0
        players = [p.id or 0 for p in uow.teams.players_of_event(event_id)]
    assert start is not None
    with uow_factory() as uow:
        assert gameserver.open_due_rounds(uow, now=start, settings=settings) == []  # unpaired
        swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with uow_factory() as uow:
        assert gameserver.open_due_rounds(uow, now=start, settings=settings) == []  # a draft
        swiss_rounds.publish_round_pairing(uow, round_id=round_id, actor=ACTOR)
    with uow_factory() as uow:
        assert gameserver.open_due_rounds(uow, now=start, settings=settings) == [round_id]
    link_accounts(uow_factory, settings, server, players)
    outcome = create_games(uow_factory, settings, server, round_id)
    assert (outcome.status, outcome.games) == ("created", 12)  # three matches of four boards, one bye
    for game_id in server.games:
        server.finish(game_id, "draw")
    with server.client() as client, uow_factory() as uow:
        pulled = gameserver.pull_round_results(
            uow, round_id=round_id, client=client, settings=settings, actor="worker"
        )
    assert pulled.round_finished
    assert ("stages.advance", (stage_id,)) in sent
    with uow_factory() as uow:  # the advance the finished round asks for leaves the stage running
        later = utcnow() + timedelta(hours=1)
        assert not gameserver.advance_stage(uow, stage_id=stage_id, actor="worker", now=later)
    with uow_factory() as uow:
        assert uow.events.get_or_raise(Stage, stage_id).status == "running"
        assert uow.rounds.get_or_raise(Round, round_id).status == RoundStatus.FINISHED.value
        second = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    assert second.number == 2
