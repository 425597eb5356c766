"""Pools, rounds and matches with their standings, appeals, late changes, Swiss pairings
and game-server bulks (``uow.rounds``); the boards of the same aggregate are ``uow.boards``.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from operator import attrgetter
from typing import Any, NamedTuple

from sqlalchemy import Engine, delete, func, insert, or_, update
from sqlalchemy import select as sa_select
from sqlmodel import col, select

from orchestrator.adapters.repo_boards import BOARD_SCORE_COLUMNS, BoardScore
from orchestrator.adapters.repositories import (
    Repository,
    among,
    constant,
    constants,
    insert_rows,
    known_ids,
    update_rows,
)
from orchestrator.adapters.tables import (
    OPEN_ROUND_STATUSES,
    Appeal,
    AppealStatus,
    Board,
    BulkStatus,
    Event,
    GameserverBulk,
    LateChange,
    Lineup,
    Match,
    MatchStatus,
    Pool,
    PoolEntry,
    Round,
    RoundStatus,
    Stage,
    StageStatus,
    Standing,
    SwissRound,
    SwissRoundRole,
    SwissRoundTeam,
    Team,
)
from orchestrator.db import utcnow
from orchestrator.domain.scoring import GameResult, MatchForfeit


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


class MatchScore(NamedTuple):
    """A pool's match as standings, Swiss pairing and chances read it: no ORM object (a Swiss pool's
    eleventh round reads over a thousand matches, each beside its boards)."""

    id: int
    round_id: int
    first_team_id: int
    second_team_id: int
    forfeit: str


class StoredStanding(NamedTuple):
    """A stored standings row's values (``stored_standings_of_pool``)."""

    id: int
    team_id: int
    rank: int
    values: dict[str, Any]
    separated_by: str | None
    provisional: bool


class NewMatch(NamedTuple):
    """A match just inserted (``insert_matches``): its id and its two teams, what its boards need."""

    id: int
    first_team_id: int
    second_team_id: int


class ScoredMatch(NamedTuple):
    """A ``MatchScore`` with its round's number (``matches_and_boards_of_pool``)."""

    match: MatchScore
    round_number: int


MATCH_SCORE_COLUMNS = (
    col(Match.id),
    col(Match.round_id),
    col(Match.first_team_id),
    col(Match.second_team_id),
    col(Match.forfeit),
)


class RoundRepository(Repository):
    """Pools, rounds and matches with their standings, appeals, late changes, Swiss pairings
    and game-server bulks (``uow.rounds``); the boards of the same aggregate are ``uow.boards``."""

    # --- pools and their entries ----------------------------------------------------------------------------

    def pools_of_stage(self, stage_id: int) -> Sequence[Pool]:
        # Letters are A..Z, AA, AB...: order by length first so that Z comes before AA.
        return self.session.exec(
            select(Pool).where(Pool.stage_id == stage_id).order_by(func.length(Pool.letter), col(Pool.letter))
        ).all()

    def pools_in_letter_order(self, stage_id: int) -> Sequence[Pool]:
        # Plain letter order (AA before B), as the results pages and close_stage have always listed them;
        # ``pools_of_stage`` puts Z before AA.
        return self.session.exec(
            select(Pool).where(Pool.stage_id == stage_id).order_by(col(Pool.letter))
        ).all()

    def stage_of_pool(self, pool: Pool) -> Stage:
        return self.get_or_raise(Stage, pool.stage_id)

    def pool_context(self, pool_id: int) -> tuple[Pool, Stage, Event] | None:
        """A pool with its stage and event (one query)."""
        row = self.session.exec(
            select(Pool, Stage, Event).where(
                Pool.id == pool_id, Pool.stage_id == Stage.id, Stage.event_id == Event.id
            )
        ).first()
        return None if row is None else (row[0], row[1], row[2])

    def teams_of_pool(self, pool_id: int) -> list[PoolTeam]:
        """The pool's teams by pairing number, as plain values (a Swiss pool's 190 teams each recompute)."""
        rows = self.session.execute(
            sa_select(col(Team.id), col(Team.name), col(PoolEntry.pairing_number))
            .where(col(PoolEntry.pool_id) == pool_id, col(PoolEntry.team_id) == col(Team.id))
            .order_by(col(PoolEntry.pairing_number))
        ).all()
        return [PoolTeam(team_id, name, number) for team_id, name, number in rows]

    def entries_of_pool(self, pool_id: int) -> Sequence[PoolEntry]:
        return self.session.exec(
            select(PoolEntry).where(PoolEntry.pool_id == pool_id).order_by(col(PoolEntry.pairing_number))
        ).all()

    def entry_of_team(self, stage_id: int, team_id: int) -> PoolEntry | None:
        return self.session.exec(
            select(PoolEntry)
            .join(Pool, col(Pool.id) == col(PoolEntry.pool_id))
            .where(Pool.stage_id == stage_id, PoolEntry.team_id == team_id)
        ).first()

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

    def withdrawn_from_stage(self, stage_id: int) -> set[int]:
        """The teams whose pool entry in the stage records a withdrawal (docs/rules.md §6, "Withdrawals")."""
        return set(
            self.session.exec(
                select(PoolEntry.team_id)
                .join(Pool, col(Pool.id) == col(PoolEntry.pool_id))
                .where(Pool.stage_id == stage_id, col(PoolEntry.withdrawn_at).is_not(None))
            ).all()
        )

    def delete_pools(self, stage_id: int) -> None:
        pool_ids = select(Pool.id).where(Pool.stage_id == stage_id)
        self.session.execute(delete(PoolEntry).where(col(PoolEntry.pool_id).in_(pool_ids)))
        self.session.execute(delete(Pool).where(col(Pool.stage_id) == stage_id))

    # --- rounds and their game-server bulks -----------------------------------------------------------------

    def rounds_of_stage(self, stage_id: int) -> Sequence[Round]:
        return self.session.exec(
            select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
        ).all()

    def round_by_number(self, stage_id: int, number: int) -> Round | None:
        return self.session.exec(
            select(Round).where(Round.stage_id == stage_id, Round.number == number)
        ).first()

    def due_rounds(self, now: datetime, lead: timedelta) -> Sequence[Round]:
        """Scheduled rounds of running stages whose start is within ``lead`` of ``now`` (or past)."""
        return self.session.exec(
            select(Round)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where(
                col(Round.status) == constant(RoundStatus.SCHEDULED.value),
                col(Round.scheduled_at).is_not(None),
                col(Round.scheduled_at) <= now + lead,
                col(Stage.status) == constant(StageStatus.RUNNING.value),
            )
            .order_by(col(Round.scheduled_at), col(Round.id))
        ).all()

    def open_rounds(self) -> Sequence[Round]:
        """Rounds whose games exist on the game server and are not all final yet."""
        return self.session.exec(
            select(Round).where(col(Round.status).in_(constants(OPEN_ROUND_STATUSES))).order_by(col(Round.id))
        ).all()

    def due_lineup_rounds(self, now: datetime) -> Sequence[Round]:
        """Scheduled rounds whose lineup deadline (or, without one, start) has passed."""
        deadline = func.coalesce(col(Round.lineup_deadline_at), col(Round.scheduled_at))
        return self.session.exec(
            select(Round)
            .where(
                col(Round.status) == constant(RoundStatus.SCHEDULED.value),
                deadline.is_not(None),
                deadline <= now,
            )
            .order_by(col(Round.id))
        ).all()

    def upcoming_rounds(self, now: datetime, until: datetime) -> Sequence[tuple[Round, Stage, Event]]:
        """Scheduled rounds of running stages whose lineup deadline (or start) is between now and until."""
        deadline = col(Round.lineup_deadline_at)
        start = col(Round.scheduled_at)
        return self.session.exec(
            select(Round, Stage, Event)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                Round.status == RoundStatus.SCHEDULED.value,
                Stage.status == StageStatus.RUNNING.value,
                ((deadline.is_not(None)) & (deadline > now) & (deadline <= until))
                | ((deadline.is_(None)) & (start > now) & (start <= until)),
            )
            .order_by(col(Round.id))
        ).all()

    def latest_match_finish(self, stage_id: int) -> datetime | None:
        return self.session.exec(
            select(func.max(Match.finished_at))
            .join(Round, col(Round.id) == Match.round_id)
            .where(Round.stage_id == stage_id)
        ).one()

    def bulk_of_round(self, round_id: int) -> GameserverBulk | None:
        """The round's newest bulk record."""
        return self.session.exec(
            select(GameserverBulk)
            .where(GameserverBulk.round_id == round_id)
            .order_by(col(GameserverBulk.id).desc())
        ).first()

    def committed_bulk_record(self, round_id: int) -> GameserverBulk | None:
        """A new bulk record of the round, ``pending``, committed at once in a transaction of its own (its
        own connection), then read in this one; None on SQLite, whose writer holds the whole database.

        Written before a bulk request is sent: whatever becomes of this transaction (a worker killed after
        the request went out), a later run finds the record and looks for the bulk that request may have
        made (docs/gameserver.md, "One bulk per round: the record before the request"). The round's row
        this transaction holds is not touched (the record only refers to it), so the other connection does
        not wait for it."""
        bind = self.session.get_bind()
        if not isinstance(bind, Engine) or bind.dialect.name == "sqlite":
            return None  # a session bound to one connection (a test's) has no other to commit on
        now = utcnow()
        with bind.connect() as other:
            record_id: Any = other.execute(
                insert(GameserverBulk)
                .values(round_id=round_id, status=BulkStatus.PENDING.value, created_at=now, updated_at=now)
                .returning(col(GameserverBulk.id))
            ).scalar_one()
            other.commit()
        return self.get_or_raise(GameserverBulk, int(record_id))

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

    # --- matches --------------------------------------------------------------------------------------------

    def insert_matches(self, rows: Sequence[dict[str, Any]]) -> list[NewMatch]:
        """Insert new matches (column values, every row with the same keys) in one statement and return
        them with their ids, in the order given: not built and flushed as model objects (a 2020 division
        starts with 675 matches, a Swiss round publishes 95; docs/performance.md)."""
        if not rows:
            return []
        table = Match.__table__  # type: ignore[attr-defined]
        statement = insert(table).returning(table.c.id, sort_by_parameter_order=True)
        ids = [row[0] for row in self.session.connection().execute(statement, list(rows))]
        return [
            NewMatch(match_id, row["first_team_id"], row["second_team_id"])
            for match_id, row in zip(ids, rows, strict=True)
        ]

    def matches_of_round(self, round_id: int) -> Sequence[Match]:
        return self.session.exec(
            select(Match).where(Match.round_id == round_id).order_by(col(Match.match_no))
        ).all()

    def matches_in_round_order(self, *where: Any) -> Sequence[Match]:
        """The matches that meet ``where`` (on Match or its Round), by round number, then match number."""
        return self.session.exec(
            select(Match)
            .join(Round, col(Round.id) == col(Match.round_id))
            .where(*where)
            .order_by(col(Round.number), col(Match.match_no))
        ).all()

    def coarse_ids(self, match_ids: Iterable[int]) -> dict[int, tuple[int | None, int | None, int]]:
        """Each match's pool, duel and stage ids, in one query (services/live.py ``announce_matches``)."""
        ids = list(match_ids)
        if not ids:
            return {}
        rows = self.session.exec(
            select(Match.id, Match.pool_id, Match.duel_id, Round.stage_id)
            .join(Round, col(Round.id) == col(Match.round_id))
            .where(among(self.session, col(Match.id), ids))
        ).all()
        return {int(match_id or 0): (pool, duel, stage) for match_id, pool, duel, stage in rows}

    def matches_of_pool(self, pool_id: int) -> Sequence[Match]:
        return self.matches_in_round_order(Match.pool_id == pool_id)

    def numbered_matches_of_pool(self, pool_id: int) -> list[MatchInRound]:
        rows = self.session.exec(
            select(Match, Round)
            .where(Match.pool_id == pool_id, Match.round_id == Round.id)
            .order_by(col(Round.number), col(Match.match_no))
        ).all()
        return [MatchInRound(match, rnd.number) for match, rnd in rows]

    def matches_of_stage(self, stage_id: int) -> Sequence[Match]:
        return self.matches_in_round_order(Round.stage_id == stage_id)

    def matches_and_boards_of_pool(
        self, pool_id: int
    ) -> tuple[list[ScoredMatch], dict[int, list[BoardScore]]]:
        """The pool's matches in round order and the scores of their boards, in one query of plain column
        values: a recompute, a Swiss pairing and the chances read a pool's whole history each round (a Swiss
        pool's eleventh round: 1,045 matches and 4,180 boards), and building a ``Match`` object for each
        board's row took most of their reading time (docs/performance.md). The rows come unsorted and are
        put in order here, matches by round and table number, boards by number: PostgreSQL took 8 ms to sort
        the 4,180 rows on four keys, Python under 1 ms to sort the 1,045 matches and their short lists.
        The statement runs on the session's connection, as plain rows: the ORM's handling of each row
        (``Session.execute``) was a quarter of the read (docs/performance.md, "A round's reads and
        standings with less Python"); the session is flushed first, as ``Session.execute`` would, so that
        its own changes count.
        """
        self.session.flush()
        rows: Iterable[Any] = (
            self.session.connection()
            .execute(
                sa_select(*MATCH_SCORE_COLUMNS, col(Round.number), col(Match.match_no), *BOARD_SCORE_COLUMNS)
                .join(Round, col(Round.id) == col(Match.round_id))
                .outerjoin(Board, col(Board.match_id) == col(Match.id))
                .where(col(Match.pool_id) == pool_id)
            )
            .all()
        )  # fetched at once: iterating the result fetches row by row
        width = len(MATCH_SCORE_COLUMNS)
        match_score, board_score = MatchScore._make, BoardScore._make
        matches: list[ScoredMatch] = []
        table_of: dict[int, int] = {}  # match id -> its table number, the order within a round
        boards: dict[int, list[BoardScore]] = {}
        for row in rows:
            key = row[0]
            listed = boards.get(key)
            if listed is None:
                listed = boards[key] = []
                matches.append(ScoredMatch(match_score(row[:width]), row[width]))
                table_of[key] = row[width + 1]
            if row[width + 2] is not None:
                listed.append(board_score(row[width + 2 :]))
        matches.sort(key=lambda scored: (scored.round_number, table_of[scored.match.id], scored.match.id))
        for listed in boards.values():
            listed.sort(key=attrgetter("board_no"))
        return matches, dict(sorted(boards.items()))

    def matches_of_team(self, team_id: int) -> Sequence[tuple[Match, Round]]:
        rows = self.session.exec(
            select(Match, Round)
            .where(
                Match.round_id == Round.id,
                or_(col(Match.first_team_id) == team_id, col(Match.second_team_id) == team_id),
            )
            .order_by(col(Round.scheduled_at), col(Round.stage_id), col(Round.number), col(Match.match_no))
        ).all()
        return [(m, r) for m, r in rows]

    def team_schedule(
        self, team_id: int, stage_id: int | None = None
    ) -> Sequence[tuple[Match, Round, Stage]]:
        """The team's matches with their rounds and stages, by start (a stage's only, if given)."""
        query = (
            select(Match, Round, Stage)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where((Match.first_team_id == team_id) | (Match.second_team_id == team_id))
        )
        if stage_id is not None:
            query = query.where(Stage.id == stage_id)
        return self.session.exec(
            query.order_by(col(Round.scheduled_at), col(Stage.position), col(Round.number))
        ).all()

    def round_of_match(self, match: Match) -> Round:
        return self.get_or_raise(Round, match.round_id)

    def stage_of_match(self, match: Match) -> Stage:
        return self.get_or_raise(Stage, self.round_of_match(match).stage_id)

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
        self._finish(among(self.session, col(Match.id), ids), now=now)

    def finish_stage_matches(self, stage_id: int, now: datetime) -> None:
        """Every match of the stage not finished yet is finished now (``finished_at`` kept where set): one
        statement, instead of loading the stage's matches (a 2020 division: 675) to change a few."""
        rounds = sa_select(col(Round.id)).where(col(Round.stage_id) == stage_id)
        unfinished = col(Match.status) != MatchStatus.FINISHED.value
        self._finish(col(Match.round_id).in_(rounds), unfinished, now=now)

    def _finish(self, *where: Any, now: datetime) -> None:
        """The matches ``where`` selects are finished, ``finished_at`` kept where set (the session's copies
        of them too)."""
        self.session.execute(
            update(Match)
            .where(*where)
            .values(status=MatchStatus.FINISHED.value, finished_at=func.coalesce(Match.finished_at, now)),
            execution_options={"synchronize_session": "fetch"},
        )

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

    # --- standings ------------------------------------------------------------------------------------------

    def final_standings(self, stage_id: int) -> Sequence[Standing]:
        """Final (not provisional) standing rows of a stage, by pool and rank (docs/rules.md §6: never
        provisional)."""
        return self.session.exec(
            select(Standing)
            .where(Standing.stage_id == stage_id, col(Standing.provisional).is_(False))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        ).all()

    def standings_of_pool(self, pool_id: int) -> Sequence[Standing]:
        return self.session.exec(
            select(Standing).where(Standing.pool_id == pool_id).order_by(col(Standing.rank), col(Standing.id))
        ).all()

    def stored_standings_of_pool(self, pool_id: int) -> list[StoredStanding]:
        """The pool's stored standings rows as plain values (what a recompute compares against)."""
        rows = self.session.execute(
            sa_select(
                col(Standing.id),
                col(Standing.team_id),
                col(Standing.rank),
                col(Standing.values),
                col(Standing.separated_by),
                col(Standing.provisional),
            ).where(col(Standing.pool_id) == pool_id)
        ).all()
        return [StoredStanding(*row) for row in rows]

    def write_standings(
        self, pool_id: int, *, updates: Sequence[dict[str, Any]], inserts: Sequence[dict[str, Any]]
    ) -> None:
        """Store a pool's changed standings rows as column values: ``updates`` carry their row's ``id``,
        ``inserts`` are new rows. One statement each instead of an ORM flush of every row (a Swiss
        stage's 190 rows change every round, docs/performance.md). Any ``Standing`` of the pool already
        loaded in this session is expired, so a later read in the same unit of work sees the new values."""
        table: Any = Standing.__table__  # type: ignore[attr-defined]
        update_rows(self.session.connection(), table, updates)
        insert_rows(self.session.connection(), table, inserts)
        for obj in list(self.session.identity_map.values()):
            if isinstance(obj, Standing) and obj.pool_id == pool_id:
                self.session.expire(obj)

    def delete_standings_of_pool(self, pool_id: int, *, keep_team_ids: Iterable[int]) -> None:
        keep = set(keep_team_ids)
        table: Any = Standing
        statement = delete(table).where(table.pool_id == pool_id)
        if keep:
            statement = statement.where(table.team_id.notin_(keep))
        self.session.execute(statement)

    # --- appeals and late changes ---------------------------------------------------------------------------

    def appeals_of_matches(self, match_ids: Iterable[int], *, only_open: bool = False) -> Sequence[Appeal]:
        ids = sorted(set(match_ids))
        if not ids:
            return []
        statement = select(Appeal).where(among(self.session, col(Appeal.match_id), ids))
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

    def open_appeal_match_ids(self, match_ids: Iterable[int | None]) -> set[int]:
        ids = known_ids(match_ids)
        if not ids:
            return set()
        rows = self.session.exec(
            select(Appeal.match_id).where(
                among(self.session, col(Appeal.match_id), ids), Appeal.status == AppealStatus.OPEN.value
            )
        ).all()
        return set(rows)

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

    # --- Swiss pairings (docs/swiss.md) ---------------------------------------------------------------------

    def swiss_pairing_of(self, round_id: int) -> SwissRound | None:
        return self.session.exec(select(SwissRound).where(SwissRound.round_id == round_id)).first()

    def round_teams_of_stage(self, stage_id: int) -> list[tuple[SwissRoundTeam, int]]:
        """Every bye and absence of the stage with its round number, in round order."""
        rows = self.session.exec(
            select(SwissRoundTeam, Round)
            .where(SwissRoundTeam.round_id == Round.id, Round.stage_id == stage_id)
            .order_by(col(Round.number), col(SwissRoundTeam.team_id))
        ).all()
        return [(row, rnd.number) for row, rnd in rows]

    def round_team(self, round_id: int, team_id: int) -> SwissRoundTeam | None:
        return self.session.exec(
            select(SwissRoundTeam).where(
                SwissRoundTeam.round_id == round_id, SwissRoundTeam.team_id == team_id
            )
        ).first()

    def round_has_games(self, round_id: int) -> bool:
        """Whether a board of the round has a game, a result, or its match a lineup or a forfeit."""
        match_ids = select(Match.id).where(Match.round_id == round_id)
        board = self.session.exec(
            select(Board.id)
            .where(col(Board.match_id).in_(match_ids))
            .where((col(Board.game_id).is_not(None)) | (Board.result != GameResult.PENDING.value))
            .limit(1)
        ).first()
        lineup = self.session.exec(
            select(Lineup.id).where(col(Lineup.match_id).in_(match_ids)).limit(1)
        ).first()
        forfeit = self.session.exec(
            select(Match.id)
            .where(Match.round_id == round_id, Match.forfeit != MatchForfeit.NONE.value)
            .limit(1)
        ).first()
        return board is not None or lineup is not None or forfeit is not None

    def delete_round_games(self, round_id: int) -> None:
        """Delete the round's matches (their boards and lineups go with them) and its bye."""
        self.session.execute(delete(Match).where(col(Match.round_id) == round_id))
        self.session.execute(
            delete(SwissRoundTeam).where(
                col(SwissRoundTeam.round_id) == round_id, col(SwissRoundTeam.role) == SwissRoundRole.BYE.value
            )
        )

    def byes_and_absences(self, round_id: int) -> Sequence[SwissRoundTeam]:
        return self.session.exec(
            select(SwissRoundTeam).where(SwissRoundTeam.round_id == round_id).order_by(col(SwissRoundTeam.id))
        ).all()
