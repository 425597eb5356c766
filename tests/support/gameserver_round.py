"""One running pool round for the game-server tests (ingestion, game creation, account links): one match of
Norway against Sweden, ``boards`` boards, players with accounts and no links yet; and a board's audit rows.

    rows = make_round(uow_factory, boards=2, game_ids=["g1", "g2"])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from orchestrator.adapters.tables import (
    AuditLog,
    Event,
    Player,
    Pool,
    Round,
    Stage,
    StageStatus,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.gameresults import map_status
from tests.support.factories import add_match


@dataclass(frozen=True)
class RoundRows:
    event_id: int
    stage_id: int
    pool_id: int
    round_id: int
    match_id: int
    board_ids: list[int]
    player_ids: list[int]


def make_round(
    uow_factory: UnitOfWorkFactory,
    *,
    boards: int = 2,
    game_ids: list[str | None] | None = None,
    starts_in: timedelta = timedelta(minutes=1),
    slug: str = "ev",
) -> RoundRows:
    """One running pool stage with one round, one match of ``boards`` boards and linked-less players."""
    with uow_factory() as uow:
        event = uow.events.insert(Event(slug=slug, name="Event"))
        stage = uow.events.insert(
            Stage(event_id=event.id or 0, key="base", name="Base", kind="pools", status=StageStatus.RUNNING)
        )
        pool = uow.rounds.insert(Pool(stage_id=stage.id or 0, letter="A", status="published"))
        teams = [
            uow.teams.insert(Team(event_id=event.id or 0, name=name, federation=name[:3].upper(), seed=seed))
            for seed, name in enumerate(("Norway", "Sweden"), start=1)
        ]
        players: list[Player] = []
        for team in teams:
            for board_no in range(1, boards + 1):
                players.append(
                    uow.teams.insert(
                        Player(
                            event_id=event.id or 0,
                            team_id=team.id or 0,
                            name=f"{team.name} {board_no}",
                            account=f"{slug}{team.federation.lower()}{board_no}",
                            sex="m",
                            birth_year=1990,
                            rating=2000 + board_no,
                            main_board=board_no,
                            category="open",
                        )
                    )
                )
        return _round_with_match(
            uow,
            RoundRows(event.id or 0, stage.id or 0, pool.id or 0, 0, 0, [], [p.id or 0 for p in players]),
            teams=(teams[0], teams[1]),
            players=players,
            number=1,
            starts_in=starts_in,
            game_ids=game_ids,
        )


def _round_with_match(
    uow: UnitOfWork,
    stage: RoundRows,
    *,
    teams: tuple[Team, Team],
    players: list[Player],
    number: int,
    starts_in: timedelta,
    game_ids: list[str | None] | None = None,
) -> RoundRows:
    """Round ``number`` of the stage of ``stage`` with one match of the two teams, each fielding its half
    of ``players`` in order; the rows with the round's, the match's and the boards' ids."""
    rnd = uow.rounds.insert(
        Round(stage_id=stage.stage_id, number=number, scheduled_at=utcnow() + starts_in, status="scheduled")
    )
    half = len(players) // 2
    match, board_rows = add_match(
        uow,
        round_id=rnd.id or 0,
        pool_id=stage.pool_id,
        teams=teams,
        lineups=(players[:half], players[half:]),
        game_ids=game_ids,
    )
    return replace(
        stage, round_id=rnd.id or 0, match_id=match.id or 0, board_ids=[b.id or 0 for b in board_rows]
    )


def audit_rows(uow_factory: UnitOfWorkFactory, board_id: int) -> list[AuditLog]:
    with uow_factory() as uow:
        rows = list(uow.audit.for_entity("board", board_id))
        for row in rows:
            uow.session.expunge(row)
        return rows


RESIGN_WHITE = map_status("resign", "white")


def add_round(uow_factory: UnitOfWorkFactory, rows: RoundRows, *, number: int = 2) -> RoundRows:
    """Round ``number`` of the stage of ``rows`` (``make_round``): the same two teams and players in one
    match, no games yet."""
    with uow_factory() as uow:
        players = [uow.teams.get_or_raise(Player, p) for p in rows.player_ids]
        teams = (
            uow.teams.get_or_raise(Team, players[0].team_id),
            uow.teams.get_or_raise(Team, players[-1].team_id),
        )
        return _round_with_match(
            uow, rows, teams=teams, players=players, number=number, starts_in=timedelta(minutes=1)
        )
