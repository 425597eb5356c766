"""The staff dashboard's queries on PostgreSQL (aggregates, aliases, JSON audit rows): a held game with its
reason, a round whose results stopped arriving, lineups due and an open appeal, under a slug of its own
(the session's database is shared)."""

from __future__ import annotations

import secrets
from datetime import timedelta

from orchestrator.adapters.tables import LinkStatus, PlayerLink, RoundStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import map_status
from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games
from orchestrator.services.read import dashboard
from orchestrator.services.results import appeals
from tests.support.factories import make_event, running_stage


def test_the_dashboard_reads_every_kind_it_finds_on_postgresql(uow_factory: UnitOfWorkFactory) -> None:
    slug = f"dash-{secrets.token_hex(4)}"
    game_id = f"held{secrets.token_hex(6)}"
    with uow_factory() as uow:
        event_id = make_event(uow, slug=slug)
        stage_id = running_stage(uow, event_id=event_id, pairing_seed=secrets.token_bytes(32))
        for player in uow.teams.players_of_event(event_id):
            uow.teams.insert(PlayerLink(player_id=player.id or 0, status=LinkStatus.LINKED.value))
        first, second, _ = uow.rounds.rounds_of_stage(stage_id)
        match = uow.rounds.matches_of_round(first.id or 0)[0]
        boards = uow.boards.for_match(match.id or 0)
        boards[0].game_id = game_id
        first.status = RoundStatus.PLAYING.value
        second.scheduled_at = utcnow() + timedelta(hours=3)
        second.lineup_deadline_at = utcnow() + timedelta(hours=2)
        for row in (boards[0], first, second):
            uow.session.add(row)
    with uow_factory() as uow:
        ingest_games(uow, games=[GameUpdate(game_id, map_status("aborted"))])
        appeals.open_appeal(uow, match_id=match.id or 0, actor="arb", deadline_minutes=30)
    later = utcnow() + dashboard.STALE_AFTER + timedelta(minutes=5)  # every board is quiet by then
    with uow_factory() as uow:
        board = dashboard.dashboard(uow, slug=slug, now=later)
    kinds = [item.kind for item in board.items]
    assert kinds == ["held", "appeal", "lineups", "stale-pull"]
    assert board.items[0].detail == "game aborted before it counted: replay it or let an arbiter decide"
    # 2 matches a round, 2 teams each, no lineup submitted: 4 missing
    assert board.items[2].detail.startswith("4 lineups not submitted")
    # round 1: 2 matches x 6 boards, none with a result (the held one included)
    assert board.items[3].detail.startswith("12 boards without a result")
    assert board.items[3].link == f"/staff/rounds/{first.id}/results"
