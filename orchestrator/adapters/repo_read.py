"""The read side (``uow.read``): the queries that only the spectator pages, the public
API, the staff dashboard and the health check run.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import case, func, or_, text
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repo_boards import BoardRepository
from orchestrator.adapters.repo_events import EventRepository
from orchestrator.adapters.repositories import Repository, known_ids
from orchestrator.adapters.tables import (
    Appeal,
    AppealStatus,
    AuditLog,
    Board,
    Duel,
    Event,
    EventStatus,
    LateChange,
    LateChangeStatus,
    Lineup,
    Lot,
    Match,
    Player,
    Pool,
    PoolEntry,
    ResultSource,
    Round,
    RoundStatus,
    Stage,
    StageStatus,
    Standing,
    Team,
)
from orchestrator.domain.scoring import GameResult, MatchForfeit

MAX_ID = 2**31 - 1  # the id columns are INTEGER on PostgreSQL


HELD_ACTION = "board.result.held"  # the audit row the ingestion writes when it holds a result


@dataclass(frozen=True, slots=True)
class HeldBoard:
    """A board whose game-server result waits for an arbiter, with where it is played."""

    board_id: int
    board_no: int
    match_id: int
    round_number: int
    stage_name: str
    first_team: str
    second_team: str
    game_status: str | None
    updated_at: datetime


_PARENT_OF: dict[str, tuple[type, str]] = {
    "round": (Round, "stage_id"),
    "match": (Match, "round_id"),
    "pool": (Pool, "stage_id"),
    "duel": (Duel, "stage_id"),
}


_UP: dict[str, str] = {"round": "stage", "match": "round", "pool": "stage", "duel": "stage"}


def _aware(moment: datetime) -> datetime:
    """A stored moment as an aware UTC datetime, whatever the backend's aggregate returned."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class ReadRepository(Repository):
    """The read side (``uow.read``): the queries that only the spectator pages, the public
    API, the staff dashboard and the health check run."""

    # --- health ---------------------------------------------------------------------------------------------

    def ping(self) -> bool:
        return self.session.execute(text("SELECT 1")).scalar_one() == 1

    # --- staff dashboard (services/read/dashboard.py) -------------------------------------------------------

    def held_boards(self, event_id: int) -> list[HeldBoard]:
        """Boards still without a result that the game server filled and then held for an arbiter (the
        ingestion leaves ``result='*'`` with ``result_source='server'`` only when it holds one)."""
        first, second = Team.__table__.alias("first"), Team.__table__.alias("second")  # type: ignore[attr-defined]
        rows = self.session.execute(
            sa_select(
                col(Board.id),
                col(Board.board_no),
                col(Board.match_id),
                col(Round.number),
                col(Stage.name),
                first.c.name,
                second.c.name,
                col(Board.game_status),
                col(Board.updated_at),
            )
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .join(first, first.c.id == Match.first_team_id)
            .join(second, second.c.id == Match.second_team_id)
            .where(
                col(Stage.event_id) == event_id,
                col(Board.result) == GameResult.PENDING.value,
                col(Board.result_source) == ResultSource.SERVER.value,
                col(Match.forfeit) == MatchForfeit.NONE.value,
            )
            .order_by(col(Board.updated_at), col(Board.id))
        ).all()
        return [HeldBoard(*row) for row in rows]

    def held_reasons(self, board_ids: Iterable[int]) -> dict[int, AuditLog]:
        """The latest ``board.result.held`` audit row of each board (its reason and proposed result)."""
        ids = known_ids(board_ids)
        if not ids:
            return {}
        rows = self.session.exec(
            select(AuditLog)
            .where(
                AuditLog.entity == "board", col(AuditLog.entity_id).in_(ids), AuditLog.action == HELD_ACTION
            )
            .order_by(col(AuditLog.id))
        ).all()
        return {row.entity_id or 0: row for row in rows}  # later rows overwrite earlier ones

    def open_appeals(self, event_id: int) -> Sequence[tuple[Appeal, Match, Round]]:
        return self.session.exec(
            select(Appeal, Match, Round)
            .join(Match, col(Match.id) == Appeal.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(Stage.event_id == event_id, Appeal.status == AppealStatus.OPEN.value)
            .order_by(col(Appeal.deadline_at), col(Appeal.id))
        ).all()

    def pending_late_changes(self, event_id: int) -> Sequence[LateChange]:
        return self.session.exec(
            select(LateChange)
            .where(LateChange.event_id == event_id, LateChange.status == LateChangeStatus.PENDING.value)
            .order_by(col(LateChange.detected_at), col(LateChange.id))
        ).all()

    def rounds_with_lineups_open(self, event_id: int, now: datetime) -> Sequence[tuple[Round, Stage]]:
        """Rounds whose games do not exist yet and whose lineup deadline is still ahead."""
        return self.session.exec(
            select(Round, Stage)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                Stage.event_id == event_id,
                Round.status == RoundStatus.SCHEDULED.value,
                col(Round.lineup_deadline_at).is_not(None),
                col(Round.lineup_deadline_at) > now,
            )
            .order_by(col(Round.lineup_deadline_at), col(Round.id))
        ).all()

    def missing_lineup_counts(self, round_ids: Iterable[int]) -> dict[int, int]:
        """Per round: team slots (two per match, Armageddon legs aside) without a submitted lineup."""
        ids = known_ids(round_ids)
        if not ids:
            return {}
        matches = self.session.exec(
            select(Match).where(col(Match.round_id).in_(ids), col(Match.leg).is_distinct_from(3))
        ).all()
        submitted = {
            (row.match_id, row.team_id)
            for row in self.session.exec(
                select(Lineup).where(col(Lineup.match_id).in_([m.id for m in matches]))
            ).all()
        }
        counts: dict[int, int] = {}
        for match in matches:
            for team_id in (match.first_team_id, match.second_team_id):
                if (match.id, team_id) not in submitted:
                    counts[match.round_id] = counts.get(match.round_id, 0) + 1
        return counts

    def last_pull(self, event_id: int) -> datetime | None:
        """When the game server last answered a pull of a round of the event that is under way (games
        created, not finished), or None when no such round has been pulled yet."""
        moment = self.session.execute(
            sa_select(func.max(col(Round.last_pull_at)))
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                col(Stage.event_id) == event_id,
                col(Round.status).in_([RoundStatus.PAIRED.value, RoundStatus.PLAYING.value]),
            )
        ).scalar()
        return None if moment is None else _aware(moment)

    def unpulled_rounds(self, event_id: int, now: datetime) -> list[tuple[int, str, int, datetime]]:
        """Rounds of the event under way whose results may be waiting here: games created, start time
        passed, some board with a game and no result. Each with (round id, stage name, number, since): the
        later of its start and the game server's last answer to a pull of it, oldest first. A result that
        came in on the server after ``since`` is not stored yet (docs/workers.md, "Lag")."""
        rows = self.session.execute(
            sa_select(
                col(Round.id),
                col(Stage.name),
                col(Round.number),
                col(Round.scheduled_at),
                col(Round.last_pull_at),
            )
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                col(Stage.event_id) == event_id,
                col(Round.status).in_([RoundStatus.PAIRED.value, RoundStatus.PLAYING.value]),
                col(Round.scheduled_at) <= now,
                sa_select(col(Board.id))
                .join(Match, col(Match.id) == Board.match_id)
                .where(
                    col(Match.round_id) == Round.id,
                    col(Board.game_id).is_not(None),
                    col(Board.result) == GameResult.PENDING.value,
                )
                .exists(),
            )
        ).all()
        found = [
            (rid, name, number, max(_aware(start), _aware(pulled)) if pulled is not None else _aware(start))
            for rid, name, number, start, pulled in rows
            if start is not None
        ]
        return sorted(found, key=lambda row: (row[3], row[0]))

    def stale_rounds(
        self, event_id: int, *, started_before: datetime, quiet_since: datetime
    ) -> list[tuple[Round, Stage, datetime, int]]:
        """Rounds under way (games created, start time passed) with boards still pending whose newest
        board change is older than ``quiet_since``: (round, stage, last change, pending boards)."""
        rows = self.session.execute(
            sa_select(
                col(Round.id),
                func.max(col(Board.updated_at)),
                func.sum(case((col(Board.result) == GameResult.PENDING.value, 1), else_=0)),
            )
            .join(Match, col(Match.round_id) == Round.id)
            .join(Board, col(Board.match_id) == Match.id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                col(Stage.event_id) == event_id,
                col(Round.status).in_([RoundStatus.PAIRED.value, RoundStatus.PLAYING.value]),
                col(Round.scheduled_at) < started_before,
                col(Match.forfeit) == MatchForfeit.NONE.value,
            )
            .group_by(col(Round.id))
        ).all()
        stale = {
            rid: (last, int(pending or 0))
            for rid, last, pending in rows
            if pending and last is not None and _aware(last) < quiet_since
        }
        if not stale:
            return []
        pairs = self.session.exec(
            select(Round, Stage).join(Stage, col(Stage.id) == Round.stage_id).where(col(Round.id).in_(stale))
        ).all()
        return [(rnd, stage, _aware(stale[rnd.id or 0][0]), stale[rnd.id or 0][1]) for rnd, stage in pairs]

    def running_stages(self, event_id: int) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage)
            .where(Stage.event_id == event_id, Stage.status == StageStatus.RUNNING.value)
            .order_by(col(Stage.position))
        ).all()

    def lots_waiting(self, event_id: int) -> Sequence[Lot]:
        """Lots committed (their hash public) but not yet drawn."""
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id, col(Lot.seed_hex).is_(None)).order_by(col(Lot.id))
        ).all()

    def topics_of_event(self, event_id: int) -> tuple[list[int], list[int], list[int]]:
        """The ids of the event's stages, pools and duels (the live topics the dashboard follows)."""
        stage_ids = [s.id or 0 for s in EventRepository(self.session).stages_of_event(event_id)]
        pools = self.session.exec(select(Pool.id).where(col(Pool.stage_id).in_(stage_ids))).all()
        duels = self.session.exec(select(Duel.id).where(col(Duel.stage_id).in_(stage_ids))).all()
        return stage_ids, [p or 0 for p in pools], [d or 0 for d in duels]

    def event_of(self, kind: str, entity_id: int) -> Event | None:
        """The event a staff page's stage, round, match, pool, duel or team belongs to (the staff
        navigation names the event of every staff page)."""
        if not 1 <= entity_id <= MAX_ID:
            return None  # past the id columns' range (PostgreSQL INTEGER): no such row, and no query
        for _ in range(3):  # match -> round -> stage -> event at most
            if kind == "event":
                return self.session.get(Event, entity_id)
            if kind == "team":
                team = self.session.get(Team, entity_id)
                return self.session.get(Event, team.event_id) if team else None
            if kind == "stage":
                stage = self.session.get(Stage, entity_id)
                return self.session.get(Event, stage.event_id) if stage else None
            if kind not in _PARENT_OF:
                return None
            table, parent = _PARENT_OF[kind]
            row = self.session.get(table, entity_id)
            if row is None or getattr(row, parent) is None:
                return None
            kind, entity_id = _UP[kind], getattr(row, parent)
        return None

    # --- spectator pages and the public API (docs/spectators.md) --------------------------------------------

    def visible_events(self) -> Sequence[Event]:
        statement = (
            select(Event).where(Event.status != EventStatus.DRAFT.value).order_by(col(Event.id).desc())
        )
        return self.session.exec(statement).all()

    def visible_event(self, slug: str) -> Event | None:
        event = EventRepository(self.session).get_by_slug(slug)
        return None if event is None or event.status == EventStatus.DRAFT.value else event

    def stages_of_events(self, event_ids: Iterable[int]) -> Sequence[Stage]:
        statement = (
            select(Stage)
            .where(col(Stage.event_id).in_(known_ids(event_ids)))
            .order_by(col(Stage.event_id), col(Stage.position), col(Stage.id))
        )
        return self.session.exec(statement).all()

    def pools_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Pool]:
        statement = (
            select(Pool)
            .where(col(Pool.stage_id).in_(known_ids(stage_ids)))
            .order_by(col(Pool.stage_id), col(Pool.letter))
        )
        return self.session.exec(statement).all()

    def entries_of_pools(self, pool_ids: Iterable[int]) -> Sequence[PoolEntry]:
        statement = (
            select(PoolEntry)
            .where(col(PoolEntry.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(PoolEntry.pool_id), col(PoolEntry.pairing_number))
        )
        return self.session.exec(statement).all()

    def pool_entries_of_team(self, team_id: int) -> Sequence[PoolEntry]:
        return self.session.exec(select(PoolEntry).where(PoolEntry.team_id == team_id)).all()

    def players_of_teams(self, team_ids: Iterable[int]) -> Sequence[Player]:
        statement = (
            select(Player)
            .where(col(Player.team_id).in_(known_ids(team_ids)))
            .order_by(
                col(Player.team_id), col(Player.main_board).is_(None), col(Player.main_board), col(Player.id)
            )
        )
        return self.session.exec(statement).all()

    def rounds_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Round]:
        statement = (
            select(Round)
            .where(col(Round.stage_id).in_(known_ids(stage_ids)))
            .order_by(col(Round.stage_id), col(Round.number))
        )
        return self.session.exec(statement).all()

    def duels_of_stages(self, stage_ids: Iterable[int]) -> Sequence[Duel]:
        statement = select(Duel).where(col(Duel.stage_id).in_(known_ids(stage_ids))).order_by(col(Duel.id))
        return self.session.exec(statement).all()

    def matches_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(Match.round_id), col(Match.match_no))
        )
        return self.session.exec(statement).all()

    def matches_of_duels(self, duel_ids: Iterable[int]) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(col(Match.duel_id).in_(known_ids(duel_ids)))
            .order_by(col(Match.duel_id), col(Match.leg))
        )
        return self.session.exec(statement).all()

    def matches_of_team(self, team_id: int) -> Sequence[Match]:
        statement = (
            select(Match)
            .where(or_(col(Match.first_team_id) == team_id, col(Match.second_team_id) == team_id))
            .order_by(col(Match.round_id), col(Match.id))
        )
        return self.session.exec(statement).all()

    def boards_of_matches(self, match_ids: Iterable[int]) -> list[Board]:
        """Boards of these matches in one list, by match id and board number."""
        by_match = BoardRepository(self.session).boards_by_match(match_ids)
        return [board for boards in by_match.values() for board in boards]

    def standings_of_pools(self, pool_ids: Iterable[int]) -> Sequence[Standing]:
        statement = (
            select(Standing)
            .where(col(Standing.pool_id).in_(known_ids(pool_ids)))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        )
        return self.session.exec(statement).all()
