"""Queries of the results slice: boards and matches of a pool, appeals, annulments, standings, lots, audit.

Like repositories.py: takes the unit of work's session, never commits (docs/architecture.md, habits 4 and 7).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, or_
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repositories import BOARD_SCORE_COLUMNS, BoardScore, Lookups
from orchestrator.adapters.tables import (
    Annulment,
    Appeal,
    AppealStatus,
    AuditLog,
    Board,
    Event,
    LateChange,
    Match,
    Player,
    Pool,
    PoolEntry,
    Round,
    Stage,
    Standing,
    Team,
)
from orchestrator.domain.scoring import GameResult, MatchForfeit


@dataclass(frozen=True, slots=True)
class PoolTeam:
    team_id: int
    name: str
    pairing_number: int


@dataclass(frozen=True, slots=True)
class StageEntry:
    """A team's entry in one of a stage's pools, with the team and the pool's letter."""

    entry: PoolEntry
    team: Team
    letter: str


@dataclass(frozen=True, slots=True)
class MatchInRound:
    match: Match
    round_number: int


class ResultsRepository(Lookups):
    # --- structure ------------------------------------------------------------------------------

    def stage_of_pool(self, pool: Pool) -> Stage:
        return self.get_or_raise(Stage, pool.stage_id)

    def event_of_stage(self, stage: Stage) -> Event:
        return self.get_or_raise(Event, stage.event_id)

    def round_of_match(self, match: Match) -> Round:
        return self.get_or_raise(Round, match.round_id)

    def stage_of_match(self, match: Match) -> Stage:
        return self.get_or_raise(Stage, self.round_of_match(match).stage_id)

    def pools_of_stage(self, stage_id: int) -> Sequence[Pool]:
        # Plain letter order (AA before B), as the results pages and close_stage have always listed them;
        # Lookups.pools_of_stage puts Z before AA.
        return self.session.exec(
            select(Pool).where(Pool.stage_id == stage_id).order_by(col(Pool.letter))
        ).all()

    def teams_of_pool(self, pool_id: int) -> list[PoolTeam]:
        rows = self.session.exec(
            select(PoolEntry, Team)
            .where(PoolEntry.pool_id == pool_id, PoolEntry.team_id == Team.id)
            .order_by(col(PoolEntry.pairing_number))
        ).all()
        return [PoolTeam(team.id or 0, team.name, entry.pairing_number) for entry, team in rows]

    def entries_of_stage(self, stage_id: int) -> list[StageEntry]:
        """Every team entered in the stage's pools, by pool letter and pairing number (one query)."""
        rows = self.session.exec(
            select(PoolEntry, Team, Pool)
            .join(Team, col(Team.id) == col(PoolEntry.team_id))
            .join(Pool, col(Pool.id) == col(PoolEntry.pool_id))
            .where(Pool.stage_id == stage_id)
            .order_by(col(Pool.letter), col(PoolEntry.pairing_number))
        ).all()
        return [StageEntry(entry, team, pool.letter) for entry, team, pool in rows]

    # --- matches and boards ---------------------------------------------------------------------

    def matches_of_pool(self, pool_id: int) -> list[MatchInRound]:
        rows = self.session.exec(
            select(Match, Round)
            .where(Match.pool_id == pool_id, Match.round_id == Round.id)
            .order_by(col(Round.number), col(Match.match_no))
        ).all()
        return [MatchInRound(match, rnd.number) for match, rnd in rows]

    def pool_context(self, pool_id: int) -> tuple[Pool, Stage, Event] | None:
        """A pool with its stage and event (one query)."""
        row = self.session.exec(
            select(Pool, Stage, Event).where(
                Pool.id == pool_id, Pool.stage_id == Stage.id, Stage.event_id == Event.id
            )
        ).first()
        return None if row is None else (row[0], row[1], row[2])

    def matches_and_boards_of_pool(
        self, pool_id: int
    ) -> tuple[list[MatchInRound], dict[int, list[BoardScore]]]:
        """``matches_of_pool`` and the scores of those matches' boards in one query.

        The boards come as plain ``BoardScore`` rows: a recompute reads a pool's 270 boards and needs only
        their results and players, not 270 ORM objects.
        """
        rows = self.session.execute(
            sa_select(Match, col(Round.number), *BOARD_SCORE_COLUMNS)
            .join(Round, col(Round.id) == col(Match.round_id))
            .outerjoin(Board, col(Board.match_id) == col(Match.id))
            .where(col(Match.pool_id) == pool_id)
            .order_by(col(Round.number), col(Match.match_no), col(Match.id), col(Board.board_no))
        ).all()
        matches: list[MatchInRound] = []
        boards: dict[int, list[BoardScore]] = {}
        for match, number, *board in rows:
            key = match.id or 0
            if key not in boards:
                boards[key] = []
                matches.append(MatchInRound(match, number))
            if board[0] is not None:
                boards[key].append(BoardScore(*board))
        return matches, dict(sorted(boards.items()))

    def matches_of_stage(self, stage_id: int) -> Sequence[Match]:
        return self.matches_in_round_order(Round.stage_id == stage_id)

    boards_of_matches = Lookups.boards_by_match

    def stage_has_open_results(self, stage_id: int) -> bool:
        """A board of a played (not forfeited) match still has no result, or an appeal is open (1 query).

        Either one keeps the stage from closing: a cheap check before the full ``closing_problems``.
        """
        pending = (
            select(Board.id)
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .where(
                Round.stage_id == stage_id,
                Match.forfeit == MatchForfeit.NONE.value,
                Board.result == GameResult.PENDING.value,
            )
            .exists()
        )
        appeal = (
            select(Appeal.id)
            .join(Match, col(Match.id) == Appeal.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .where(Round.stage_id == stage_id, Appeal.status == AppealStatus.OPEN.value)
            .exists()
        )
        return bool(self.session.execute(sa_select(or_(pending, appeal))).scalar())

    def stage_has_games(self, stage_id: int) -> bool:
        """A board of the stage has a game on the server or a final result (the stage has started)."""
        played = (
            select(Board.id)
            .join(Match, col(Match.id) == Board.match_id)
            .join(Round, col(Round.id) == Match.round_id)
            .where(
                Round.stage_id == stage_id,
                or_(col(Board.game_id).is_not(None), col(Board.result) != GameResult.PENDING.value),
            )
            .exists()
        )
        return bool(self.session.execute(sa_select(played)).scalar())

    def boards_of_player(self, player_id: int) -> Sequence[Board]:
        return self.session.exec(
            select(Board)
            .where(or_(col(Board.white_player_id) == player_id, col(Board.black_player_id) == player_id))
            .order_by(col(Board.match_id), col(Board.board_no))
        ).all()

    # --- appeals ----------------------------------------------------------------------------------

    def appeals_of_matches(self, match_ids: Iterable[int], *, only_open: bool = False) -> Sequence[Appeal]:
        ids = set(match_ids)
        if not ids:
            return []
        statement = select(Appeal).where(col(Appeal.match_id).in_(ids))
        if only_open:
            statement = statement.where(Appeal.status == AppealStatus.OPEN.value)
        return self.session.exec(statement.order_by(col(Appeal.opened_at), col(Appeal.id))).all()

    def appeals_of_event(self, event_id: int) -> Sequence[Appeal]:
        return self.session.exec(
            select(Appeal)
            .join(Match, col(Appeal.match_id) == col(Match.id))
            .join(Round, col(Match.round_id) == col(Round.id))
            .join(Stage, col(Round.stage_id) == col(Stage.id))
            .where(Stage.event_id == event_id)
            .order_by(col(Appeal.opened_at).desc(), col(Appeal.id).desc())
        ).all()

    # --- fair play -------------------------------------------------------------------------------

    def annulments_of_event(self, event_id: int) -> Sequence[tuple[Annulment, Player]]:
        rows = self.session.exec(
            select(Annulment, Player)
            .where(Annulment.player_id == Player.id, Player.event_id == event_id)
            .order_by(col(Annulment.annulled_at))
        ).all()
        return [(annulment, player) for annulment, player in rows]

    def annulment_of_player(self, player_id: int) -> Annulment | None:
        return self.session.exec(select(Annulment).where(Annulment.player_id == player_id)).first()

    # --- standings ----------------------------------------------------------------------------------

    def standings_of_pool(self, pool_id: int) -> Sequence[Standing]:
        return self.session.exec(
            select(Standing).where(Standing.pool_id == pool_id).order_by(col(Standing.rank), col(Standing.id))
        ).all()

    def delete_standings_of_pool(self, pool_id: int, *, keep_team_ids: Iterable[int]) -> None:
        keep = set(keep_team_ids)
        table: Any = Standing
        statement = delete(table).where(table.pool_id == pool_id)
        if keep:
            statement = statement.where(table.team_id.notin_(keep))
        self.session.execute(statement)

    # --- late changes ----------------------------------------------------------------------------

    def late_changes(
        self, *, event_id: int | None = None, stage_id: int | None = None, source_stage_id: int | None = None
    ) -> Sequence[LateChange]:
        """Late changes, newest first: of an event, of a stage (as source or as affected stage), or of
        one source stage."""
        statement = select(LateChange)
        if event_id is not None:
            statement = statement.where(LateChange.event_id == event_id)
        if stage_id is not None:
            statement = statement.where(
                or_(
                    col(LateChange.source_stage_id) == stage_id, col(LateChange.affected_stage_id) == stage_id
                )
            )
        if source_stage_id is not None:
            statement = statement.where(LateChange.source_stage_id == source_stage_id)
        return self.session.exec(statement.order_by(col(LateChange.id).desc())).all()

    # --- audit ------------------------------------------------------------------------------------

    def audit(
        self,
        *,
        event_id: int | None = None,
        board_ids: Iterable[int] | None = None,
        match_id: int | None = None,
        action_prefix: str | None = None,
        entity: str | None = None,
        entity_id: int | None = None,
        limit: int = 500,
    ) -> Sequence[AuditLog]:
        statement = select(AuditLog)
        if event_id is not None:
            statement = statement.where(AuditLog.event_id == event_id)
        if board_ids is not None or match_id is not None:
            clauses = []
            ids = list(board_ids or [])
            if ids:
                clauses.append((col(AuditLog.entity) == "board") & col(AuditLog.entity_id).in_(ids))
            if match_id is not None:
                clauses.append((col(AuditLog.entity) == "match") & (col(AuditLog.entity_id) == match_id))
            statement = statement.where(or_(*clauses)) if clauses else statement.where(col(AuditLog.id) < 0)
        if action_prefix is not None:
            statement = statement.where(col(AuditLog.action).startswith(action_prefix))
        if entity is not None:
            statement = statement.where(AuditLog.entity == entity)
        if entity_id is not None:
            statement = statement.where(AuditLog.entity_id == entity_id)
        return self.session.exec(statement.order_by(col(AuditLog.id).desc()).limit(limit)).all()
