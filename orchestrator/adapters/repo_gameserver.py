"""Queries of the game-server automation: due and open rounds, boards by game id, bulks, player links.

Part of the adapters layer (docs/architecture.md, habit 7): services/gameserver/gameserver.py,
services/gameserver/ingestion.py and
services/gameserver/player_links.py call these through ``uow.gameserver``; nothing else runs these queries.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import func, insert, update
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repositories import Lookups, among
from orchestrator.adapters.tables import (
    AuditLog,
    Board,
    BulkStatus,
    GameserverBulk,
    LinkStatus,
    Match,
    MatchStatus,
    Player,
    PlayerLink,
    Round,
    RoundStatus,
    Stage,
    StageStatus,
    Team,
)
from orchestrator.domain.scoring import GameResult

OPEN_ROUND_STATUSES = (RoundStatus.PAIRED.value, RoundStatus.PLAYING.value)


class RoundBoard(NamedTuple):
    """A round's board as pairing reads it (plain values; writes go through compare-and-set updates)."""

    id: int
    board_no: int
    white_player_id: int | None
    black_player_id: int | None
    result: str
    result_source: str | None
    game_id: str | None
    version: int
    updated_by: str


@dataclass(frozen=True, slots=True)
class BoardInMatch:
    """A round's board and its match's id."""

    board: RoundBoard
    match_id: int


@dataclass(frozen=True, slots=True)
class GameBoard:
    """A board holding a game, as ingestion reads it: its state, and its match's place (plain values)."""

    id: int
    version: int
    result: str
    result_source: str | None
    game_status: str | None
    pgn: str | None
    match_id: int
    round_id: int
    pool_id: int | None
    duel_id: int | None
    event_id: int
    stage_closed: bool = False


@dataclass(frozen=True, slots=True)
class MatchProgress:
    """How far a match of a round has got: its boards, those with a final result, those under way."""

    match_id: int
    status: str
    forfeit: str
    boards: int
    final: int
    started: int


@dataclass(frozen=True, slots=True)
class PairingAccount:
    """What pairing a player needs: their name and account, and their link (status, token) if any."""

    player_id: int
    name: str
    account: str
    link_status: str  # LinkStatus value; "missing" without a link row
    linked_account: str | None
    token_encrypted: str | None


@dataclass(frozen=True, slots=True)
class PlayerLinkRow:
    """A player of an event with the state of their game-server link (no token)."""

    player: Player
    team: Team
    status: str
    linked_account: str | None
    updated_at: datetime | None


class GameserverRepository(Lookups):
    # ------------------------------------------------------------ rounds and stages

    def due_rounds(self, now: datetime, lead: timedelta) -> Sequence[Round]:
        """Scheduled rounds of running stages whose start is within ``lead`` of ``now`` (or past)."""
        return self.session.exec(
            select(Round)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                Round.status == RoundStatus.SCHEDULED.value,
                col(Round.scheduled_at).is_not(None),
                col(Round.scheduled_at) <= now + lead,
                Stage.status == StageStatus.RUNNING.value,
            )
            .order_by(col(Round.scheduled_at), col(Round.id))
        ).all()

    def open_rounds(self) -> Sequence[Round]:
        """Rounds whose games exist on the game server and are not all final yet."""
        return self.session.exec(
            select(Round).where(col(Round.status).in_(OPEN_ROUND_STATUSES)).order_by(col(Round.id))
        ).all()

    def running_stages(self) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage).where(Stage.status == StageStatus.RUNNING.value).order_by(col(Stage.id))
        ).all()

    def latest_match_finish(self, stage_id: int) -> datetime | None:
        return self.session.exec(
            select(func.max(Match.finished_at))
            .join(Round, col(Round.id) == Match.round_id)
            .where(Round.stage_id == stage_id)
        ).one()

    # ------------------------------------------------------------ boards

    def boards_of_round(self, round_id: int) -> list[BoardInMatch]:
        """The round's boards in match and board order: one query of plain rows (no ORM objects)."""
        rows = self.session.execute(
            sa_select(
                col(Board.id),
                col(Board.board_no),
                col(Board.white_player_id),
                col(Board.black_player_id),
                col(Board.result),
                col(Board.result_source),
                col(Board.game_id),
                col(Board.version),
                col(Board.updated_by),
                col(Board.match_id),
            )
            .join(Match, col(Match.id) == col(Board.match_id))
            .where(col(Match.round_id) == round_id)
            .order_by(col(Match.match_no), col(Board.board_no))
        ).all()
        return [BoardInMatch(RoundBoard(*row[:9]), row[9]) for row in rows]

    def boards_by_game_ids(self, game_ids: Iterable[str]) -> dict[str, GameBoard]:
        """Boards holding these game ids, keyed by game id: one query of plain rows (no ORM objects).

        A round's 150 boards and matches as ORM objects took longer to build than the query took to run.
        """
        wanted = list(dict.fromkeys(game_ids))
        if not wanted:
            return {}
        rows = self.session.execute(
            sa_select(
                col(Board.game_id),
                col(Board.id),
                col(Board.version),
                col(Board.result),
                col(Board.result_source),
                col(Board.game_status),
                col(Board.pgn),
                col(Match.id),
                col(Match.round_id),
                col(Match.pool_id),
                col(Match.duel_id),
                col(Stage.event_id),
                col(Stage.status),
            )
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(among(self.session, col(Board.game_id), wanted))
        ).all()
        return {
            game_id: GameBoard(
                id=board_id,
                version=version,
                result=result,
                result_source=source,
                game_status=game_status,
                pgn=pgn,
                match_id=match_id,
                round_id=round_id,
                pool_id=pool_id,
                duel_id=duel_id,
                event_id=event_id,
                stage_closed=status == StageStatus.CLOSED.value,
            )
            for (
                game_id,
                board_id,
                version,
                result,
                source,
                game_status,
                pgn,
                match_id,
                round_id,
                pool_id,
                duel_id,
                event_id,
                status,
            ) in rows
        }

    def pools_and_duels_of_games(self, game_ids: Iterable[str]) -> tuple[list[int], list[int]]:
        """The pools and duels whose boards hold these game ids, each sorted (the locks to take)."""
        wanted = list(dict.fromkeys(game_ids))
        if not wanted:
            return [], []
        rows = self.session.execute(
            sa_select(col(Match.pool_id), col(Match.duel_id))
            .join(Board, col(Board.match_id) == Match.id)
            .where(among(self.session, col(Board.game_id), wanted))
            .distinct()
        ).all()
        pools = sorted({pool for pool, _duel in rows if pool is not None})
        duels = sorted({duel for _pool, duel in rows if duel is not None})
        return pools, duels

    def open_game_ids(self, round_id: int) -> list[str]:
        """Game ids of the round's boards that have no final result yet."""
        rows = self.session.exec(
            select(Board.game_id)
            .join(Match, col(Match.id) == Board.match_id)
            .where(
                Match.round_id == round_id,
                col(Board.game_id).is_not(None),
                Board.result == GameResult.PENDING.value,
            )
            .order_by(col(Board.id))
        ).all()
        return [game_id for game_id in rows if game_id]

    def match_progress(self, round_id: int) -> list[MatchProgress]:
        """Every match of the round with its board counts (one aggregate query, no board loaded).

        ``started``: boards whose game has moved past "created" or that hold a result.
        """
        pending = GameResult.PENDING.value
        final = func.count(col(Board.id)).filter(col(Board.result) != pending)
        started = func.count(col(Board.id)).filter(
            (col(Board.result) != pending)
            | (col(Board.game_status).is_not(None) & (col(Board.game_status) != "created"))
        )
        rows = self.session.execute(
            sa_select(
                col(Match.id),
                col(Match.status),
                col(Match.forfeit),
                func.count(col(Board.id)),
                final,
                started,
            )
            .join(Board, col(Board.match_id) == Match.id, isouter=True)
            .where(col(Match.round_id) == round_id)
            .group_by(col(Match.id), col(Match.status), col(Match.forfeit))
            .order_by(col(Match.id))
        ).all()
        return [MatchProgress(*row) for row in rows]

    def start_matches(self, round_id: int) -> None:
        """The round's scheduled matches are playing: one statement (the session's copies follow)."""
        self.session.execute(
            update(Match)
            .where(col(Match.round_id) == round_id, col(Match.status) == MatchStatus.SCHEDULED.value)
            .values(status=MatchStatus.PLAYING.value)
        )

    def finish_matches(self, match_ids: Iterable[int], now: datetime) -> None:
        """These matches are finished (``finished_at`` kept where set): one statement."""
        ids = sorted(set(match_ids))
        if not ids:
            return
        self.session.execute(
            update(Match)
            .where(col(Match.id).in_(ids))
            .values(status=MatchStatus.FINISHED.value, finished_at=func.coalesce(Match.finished_at, now)),
            execution_options={"synchronize_session": "fetch"},
        )

    def add_audit_rows(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert audit rows (column values) in one executemany statement."""
        if rows:
            self.session.connection().execute(insert(AuditLog.__table__), list(rows))  # type: ignore[attr-defined]

    # ------------------------------------------------------------ bulks

    def bulk_of_round(self, round_id: int) -> GameserverBulk | None:
        """The round's newest bulk record."""
        return self.session.exec(
            select(GameserverBulk)
            .where(GameserverBulk.round_id == round_id)
            .order_by(col(GameserverBulk.id).desc())
        ).first()

    def failed_bulk_rounds(self) -> Sequence[Round]:
        """Scheduled rounds whose last bulk attempt failed for transport reasons (to try again)."""
        return self.session.exec(
            select(Round)
            .join(GameserverBulk, col(GameserverBulk.round_id) == Round.id)
            .where(
                Round.status == RoundStatus.SCHEDULED.value,
                col(GameserverBulk.status).in_([BulkStatus.FAILED.value, BulkStatus.PENDING.value]),
            )
            .distinct()
        ).all()

    def bulk_problems(self, event_id: int) -> list[tuple[Stage, Round, GameserverBulk]]:
        """Rounds of an event not yet paired whose last bulk attempt was refused or failed."""
        rows = self.session.exec(
            select(Stage, Round, GameserverBulk)
            .join(Round, col(Round.stage_id) == Stage.id)
            .join(GameserverBulk, col(GameserverBulk.round_id) == Round.id)
            .where(
                Stage.event_id == event_id,
                Round.status == RoundStatus.SCHEDULED.value,
                col(GameserverBulk.status).in_([BulkStatus.REJECTED.value, BulkStatus.FAILED.value]),
            )
            .order_by(col(Stage.position), col(Round.number), col(GameserverBulk.id).desc())
        ).all()
        latest: dict[int, tuple[Stage, Round, GameserverBulk]] = {}
        for stage, rnd, bulk in rows:
            latest.setdefault(rnd.id or 0, (stage, rnd, bulk))
        return list(latest.values())

    # ------------------------------------------------------------ players and links

    def pairing_accounts(self, player_ids: Iterable[int]) -> dict[int, PairingAccount]:
        """Players with their link columns, keyed by id: one query, plain rows (a round pairs 300)."""
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        rows = self.session.execute(
            sa_select(
                col(Player.id),
                col(Player.name),
                col(Player.account),
                col(PlayerLink.status),
                col(PlayerLink.linked_account),
                col(PlayerLink.token_encrypted),
            )
            .join(PlayerLink, col(PlayerLink.player_id) == Player.id, isouter=True)
            .where(col(Player.id).in_(ids))
        ).all()
        return {
            pid: PairingAccount(pid, name, account, status or LinkStatus.MISSING.value, linked, token)
            for pid, name, account, status, linked, token in rows
        }

    def link_of_player(self, player_id: int) -> PlayerLink | None:
        return self.session.exec(select(PlayerLink).where(PlayerLink.player_id == player_id)).first()

    def players_with_links(self, event_id: int) -> list[PlayerLinkRow]:
        """Every player of an event with their link state (missing when no link row exists)."""
        rows = self.session.exec(
            select(Player, Team, PlayerLink)
            .join(Team, col(Team.id) == Player.team_id)
            .join(PlayerLink, col(PlayerLink.player_id) == Player.id, isouter=True)
            .where(Player.event_id == event_id)
            .order_by(col(Team.seed), col(Player.main_board).nulls_last(), col(Player.name))
        ).all()
        return [
            PlayerLinkRow(
                player=player,
                team=team,
                status=link.status if link is not None else LinkStatus.MISSING.value,
                linked_account=link.linked_account if link is not None else None,
                updated_at=link.updated_at if link is not None else None,
            )
            for player, team, link in rows
        ]
