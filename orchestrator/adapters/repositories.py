"""Every database query of the product (docs/architecture.md, habit 7): web/ and workers/ never call select().

Repositories take the unit of work's session and never commit; the unit of work does (habit 4).
Add a method here for each new query, named for what it answers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, ClassVar, NamedTuple, Protocol, TypeVar

from sqlalchemy import and_, any_, bindparam, func, text, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import defer
from sqlmodel import Session, SQLModel, col, select

from orchestrator.adapters.tables import (
    Annulment,
    AuditLog,
    Board,
    Duel,
    Event,
    LoginAttempt,
    Lot,
    Match,
    Player,
    Pool,
    PoolEntry,
    Round,
    Stage,
    Standing,
    Team,
    User,
)
from orchestrator.db import utcnow
from orchestrator.errors import CurrentValue, NotFound, StaleEdit

ModelT = TypeVar("ModelT", bound=SQLModel)


class TableRow(Protocol):
    """A stored row of one of our tables: what an audit entry about it needs."""

    __tablename__: ClassVar[str]
    id: int | None


class Repository:
    """Shared plumbing: ``add``, ``get`` and ``get_or_raise`` for any table."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, row: ModelT) -> ModelT:
        """Add a row and flush, so that its id is known before the commit."""
        self.session.add(row)
        self.session.flush()
        return row

    def get(self, model: type[ModelT], row_id: int) -> ModelT | None:
        return _held(self.session, model, row_id, self.session.get(model, row_id))

    def get_or_raise(self, model: type[ModelT], row_id: int) -> ModelT:
        row = self.get(model, row_id)
        if row is None:
            raise NotFound(f"{model.__tablename__} {row_id} does not exist")
        return row


def _held(session: Session, model: type[ModelT], row_id: int, row: ModelT | None) -> ModelT | None:
    """Keep a row read by id for the rest of the unit of work.

    The session's identity map holds rows weakly: a stage or an event read by one helper was forgotten
    once that helper returned, so the next helper's ``get`` of the same row read it again (an event row
    carries its whole definition file). A unit of work is short, so holding these few rows costs nothing.
    """
    if row is not None:
        session.info.setdefault("held_rows", {})[(model, row_id)] = row
    return row


def among(session: Session, column: Any, values: Sequence[Any]) -> Any:
    """``column IN values``; on PostgreSQL ``column = ANY(one array parameter)``.

    An IN list is a new statement for every count of values (a round's 300 player ids, 150 game ids):
    PostgreSQL parsed and planned each one again and no statement could be prepared. The array keeps one
    statement text whatever the count.
    """
    if session.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))
    return column.in_(values)


def known_ids(values: Iterable[int | None]) -> list[int]:
    """The distinct ids among ``values``, ascending, without None (for ``IN (...)`` queries)."""
    return sorted({v for v in values if v is not None})


class BoardScore(NamedTuple):
    """A board as standings and closing checks read it: no ORM object (a pool's 270 boards per recompute)."""

    match_id: int
    board_no: int
    result: str
    white_player_id: int | None
    black_player_id: int | None


BOARD_SCORE_COLUMNS = (
    col(Board.match_id),
    col(Board.board_no),
    col(Board.result),
    col(Board.white_player_id),
    col(Board.black_player_id),
)


class Lookups(Repository):
    """Reads that several area repositories (``uow.setup``, ``uow.results``, ``uow.playoff``, ``uow.public``,
    ``uow.gameserver``) all need: each query is written once here and inherited.
    """

    # --- events and stages ---------------------------------------------------------------------------

    def event_by_slug(self, slug: str) -> Event | None:
        return EventRepository(self.session).get_by_slug(slug)

    def event_and_stage(self, stage_id: int) -> tuple[Event, Stage]:
        stage = self.get_or_raise(Stage, stage_id)
        return self.get_or_raise(Event, stage.event_id), stage

    def stages_of_event(self, event_id: int) -> Sequence[Stage]:
        return self.session.exec(
            select(Stage).where(Stage.event_id == event_id).order_by(col(Stage.position), col(Stage.id))
        ).all()

    def stage_by_key(self, event_id: int, key: str) -> Stage | None:
        return self.session.exec(select(Stage).where(Stage.event_id == event_id, Stage.key == key)).first()

    def final_standings(self, stage_id: int) -> Sequence[Standing]:
        """Final (not provisional) standing rows of a stage, by pool and rank (docs/rules.md §6: never
        provisional)."""
        return self.session.exec(
            select(Standing)
            .where(Standing.stage_id == stage_id, col(Standing.provisional).is_(False))
            .order_by(col(Standing.pool_id), col(Standing.rank), col(Standing.id))
        ).all()

    def withdrawn_from_stage(self, stage_id: int) -> set[int]:
        """The teams whose pool entry in the stage records a withdrawal (docs/rules.md §6, "Withdrawals")."""
        return set(
            self.session.exec(
                select(PoolEntry.team_id)
                .join(Pool, col(Pool.id) == col(PoolEntry.pool_id))
                .where(Pool.stage_id == stage_id, col(PoolEntry.withdrawn_at).is_not(None))
            ).all()
        )

    def matches_in_round_order(self, *where: Any) -> Sequence[Match]:
        """The matches that meet ``where`` (on Match or its Round), by round number, then match number."""
        return self.session.exec(
            select(Match)
            .join(Round, col(Round.id) == col(Match.round_id))
            .where(*where)
            .order_by(col(Round.number), col(Match.match_no))
        ).all()

    def lots_with_purpose(self, event_id: int, purpose: str) -> Sequence[Lot]:
        """An event's lots of one purpose (a pool's pairing numbers, its tie-break), oldest first."""
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id, Lot.purpose == purpose).order_by(col(Lot.id))
        ).all()

    # --- teams and players ---------------------------------------------------------------------------

    def teams_of_event(self, event_id: int) -> Sequence[Team]:
        return self.session.exec(
            select(Team).where(Team.event_id == event_id).order_by(col(Team.seed), col(Team.id))
        ).all()

    def teams_by_id(self, team_ids: Iterable[int | None]) -> dict[int, Team]:
        ids = known_ids(team_ids)
        if not ids:
            return {}
        return {t.id or 0: t for t in self.session.exec(select(Team).where(col(Team.id).in_(ids))).all()}

    def players_of_team(self, team_id: int) -> Sequence[Player]:
        """Main players by board, then reserves."""
        return self.session.exec(
            select(Player)
            .where(Player.team_id == team_id)
            .order_by(col(Player.main_board).is_(None), col(Player.main_board), col(Player.id))
        ).all()

    def main_boards_by_team(self, team_ids: Iterable[int | None]) -> dict[int, dict[int, int]]:
        """Each team's main players as {board number: player id}, in one query of plain rows."""
        ids = known_ids(team_ids)
        out: dict[int, dict[int, int]] = {i: {} for i in ids}
        if not ids:
            return out
        rows = self.session.execute(
            sa_select(col(Player.team_id), col(Player.main_board), col(Player.id)).where(
                among(self.session, col(Player.team_id), ids), col(Player.main_board).is_not(None)
            )
        ).all()
        for team_id, board, player_id in rows:
            out[team_id][board] = player_id
        return out

    def players_by_id(self, player_ids: Iterable[int | None]) -> dict[int, Player]:
        ids = known_ids(player_ids)
        if not ids:
            return {}
        rows = self.session.exec(select(Player).where(col(Player.id).in_(ids))).all()
        return {p.id or 0: p for p in rows}

    def annulled_player_ids(self, event_id: int) -> set[int]:
        """Players of the event whose games were annulled for fair play."""
        rows = self.session.exec(
            select(Annulment.player_id)
            .join(Player, col(Annulment.player_id) == col(Player.id))
            .where(Player.event_id == event_id)
        ).all()
        return set(rows)

    # --- pools, rounds, matches, boards --------------------------------------------------------------

    def pools_of_stage(self, stage_id: int) -> Sequence[Pool]:
        # Letters are A..Z, AA, AB...: order by length first so that Z comes before AA.
        return self.session.exec(
            select(Pool).where(Pool.stage_id == stage_id).order_by(func.length(Pool.letter), col(Pool.letter))
        ).all()

    def rounds_of_stage(self, stage_id: int) -> Sequence[Round]:
        return self.session.exec(
            select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
        ).all()

    def matches_of_round(self, round_id: int) -> Sequence[Match]:
        return self.session.exec(
            select(Match).where(Match.round_id == round_id).order_by(col(Match.match_no))
        ).all()

    def boards_by_match(
        self, match_ids: Iterable[int | None], *, with_pgn: bool = True
    ) -> dict[int, list[Board]]:
        """Boards of these matches by board number, keyed by match id in ascending order (one query).

        ``with_pgn=False`` leaves the games' PGN unread (it loads on first access if someone reads it).
        """
        ids = known_ids(match_ids)
        out: dict[int, list[Board]] = {i: [] for i in ids}
        if not ids:
            return out
        statement = (
            select(Board)
            .where(among(self.session, col(Board.match_id), ids))
            .order_by(col(Board.match_id), col(Board.board_no))
        )
        if not with_pgn:
            statement = statement.options(defer(Board.pgn))  # type: ignore[arg-type]
        rows = self.session.exec(statement).all()
        for board in rows:
            out[board.match_id].append(board)
        return out

    def board_scores_by_match(self, match_ids: Iterable[int | None]) -> dict[int, list[BoardScore]]:
        """``boards_by_match`` as plain ``BoardScore`` rows (result and players only; one query)."""
        ids = known_ids(match_ids)
        out: dict[int, list[BoardScore]] = {i: [] for i in ids}
        if not ids:
            return out
        statement = (
            sa_select(*BOARD_SCORE_COLUMNS)
            .where(among(self.session, col(Board.match_id), ids))
            .order_by(col(Board.match_id), col(Board.board_no))
        )
        for row in self.session.execute(statement):
            out[row[0]].append(BoardScore(*row))
        return out


class RowLocks(Repository):
    """Serialise changes to one pool or duel (docs/architecture.md, habit 6).

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE`` holds the row until the unit of work ends, so two workers
    recording results of the same pool run one after the other. SQLite has no row locks: a lock takes the
    database's write lock at once (an ``UPDATE`` that matches no row), so the transaction's reads after it
    see every commit before it and no other writer can commit until it ends. Without that, two ticks both
    read "no Armageddon yet" before either wrote, and the second insert failed on the unique duel.

    Every row the session read before the lock is expired (after a flush, so no change is lost): it is read
    again, under the lock, when next used, instead of deciding from what it was before another writer
    committed.

    Not ``FOR UPDATE``: that also blocks the foreign-key checks of other transactions (``FOR KEY SHARE``),
    so a stage's closing (stage locked, then its pools) and a pool's recomputation (pool locked, then
    standings inserted, which refer to the stage) deadlocked, each stuck for PostgreSQL's one-second
    deadlock timeout before one was aborted. Nothing here deletes a locked row or changes its key.
    """

    def _locking(self, statement: Any, model: type[SQLModel]) -> Any:
        self.session.flush()
        self.session.expire_all()
        # populate_existing: a copy of a row already in the session is overwritten with what this
        # statement read under the lock (one query; it used to be a second SELECT to refresh it).
        statement = statement.execution_options(populate_existing=True)
        if self.session.get_bind().dialect.name == "sqlite":
            table = model.__tablename__
            self.session.execute(text(f'UPDATE "{table}" SET id = id WHERE 0 = 1'))  # the write lock
            return statement
        return statement.with_for_update(key_share=True)  # FOR NO KEY UPDATE

    def lock(self, model: type[ModelT], row_id: int) -> ModelT:
        statement = self._locking(select(model).where(col(model.id) == row_id), model)  # type: ignore[attr-defined]
        row = self.session.exec(statement).first()
        if row is None:
            raise NotFound(f"{model.__tablename__} {row_id} does not exist")
        return row

    def try_job_lock(self, name: str, ids: tuple[int, ...]) -> bool:
        """Claim job ``name`` for ``ids`` until the unit of work ends; False if another run holds it.

        PostgreSQL: a transaction-level advisory lock (``pg_try_advisory_xact_lock``), which blocks no
        row, only a second run of the same job, which can then leave at once instead of waiting. SQLite:
        always True (one writer at a time anyway).
        """
        if self.session.get_bind().dialect.name == "sqlite":
            return True
        digest = hashlib.blake2b(f"{name}:{ids}".encode(), digest_size=8).digest()
        key = int.from_bytes(digest, "big", signed=True)
        claimed = self.session.execute(text("SELECT pg_try_advisory_xact_lock(:key)"), {"key": key})
        return bool(claimed.scalar())

    def lock_pool(self, pool_id: int) -> Pool:
        return self.lock(Pool, pool_id)

    def lock_pools(self, pool_ids: Iterable[int]) -> None:
        """Lock several pools in one statement, in id order (the order every pool writer follows)."""
        ids = known_ids(pool_ids)
        if not ids:
            return
        self.session.exec(
            self._locking(select(Pool).where(col(Pool.id).in_(ids)).order_by(col(Pool.id)), Pool)
        ).all()

    def lock_duel(self, duel_id: int) -> Duel:
        return self.lock(Duel, duel_id)


def versioned_update(
    session: Session, model: type[SQLModel], row_id: int, expected_version: int, values: Mapping[str, Any]
) -> bool:
    """Compare-and-set: apply ``values`` and bump ``version`` only if it still equals ``expected_version``.

    Returns False when someone else changed the row first (or it is gone); nothing is written then.
    """
    table: Any = model
    statement = (
        update(table)
        .where(table.id == row_id, table.version == expected_version)
        .values(**values, version=table.version + 1)
        .execution_options(synchronize_session=False)
    )
    result: Any = session.execute(statement)
    return bool(result.rowcount == 1)


class UserRepository(Repository):
    def get_by_username(self, username: str) -> User | None:
        return self.session.exec(select(User).where(User.username == username.strip().lower())).first()

    def get_by_invitation_hash(self, token_hash: str) -> User | None:
        return self.session.exec(select(User).where(User.invitation_token_hash == token_hash)).first()

    def list_all(self) -> Sequence[User]:
        return self.session.exec(select(User).order_by(col(User.role), col(User.username))).all()

    def count(self) -> int:
        return int(self.session.exec(select(func.count()).select_from(User)).one())


class LoginAttemptRepository(Repository):
    def record(self, *, username: str, ip: str, success: bool, at: datetime) -> None:
        self.add(LoginAttempt(username=username, ip=ip, success=success, at=at))

    def recent_failures_for_username(self, username: str, since: datetime) -> list[datetime]:
        """Times of failed attempts for ``username`` after ``since`` and after its last success."""
        return self._failures_since_success(LoginAttempt.username == username, since)

    def recent_failures_for_username_at_ip(self, username: str, ip: str, since: datetime) -> list[datetime]:
        """Times of failed attempts for ``username`` from address ``ip`` after ``since`` and after its last
        success from that address: what one address did to one account, nothing another address did."""
        return self._failures_since_success(
            and_(col(LoginAttempt.username) == username, col(LoginAttempt.ip) == ip), since
        )

    def _failures_since_success(self, condition: Any, since: datetime) -> list[datetime]:
        last_success = self.session.exec(
            select(func.max(LoginAttempt.at)).where(condition, col(LoginAttempt.success).is_(True))
        ).one()
        floor = max(since, last_success) if last_success is not None else since
        return self._failure_times(condition, floor)

    def failure_counts_since(self, since: datetime) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """Failed attempts after ``since``, counted per username and per address, most first."""

        def counts(column: Any) -> list[tuple[str, int]]:
            rows = self.session.exec(
                select(column, func.count())
                .where(col(LoginAttempt.success).is_(False), LoginAttempt.at > since)
                .group_by(column)
                .order_by(func.count().desc(), column)
            ).all()
            return [(str(name), int(n)) for name, n in rows]

        return counts(LoginAttempt.username), counts(LoginAttempt.ip)

    def recent_failures_for_ip(self, ip: str, since: datetime) -> list[datetime]:
        return self._failure_times(LoginAttempt.ip == ip, since)

    def _failure_times(self, condition: Any, since: datetime) -> list[datetime]:
        rows = self.session.exec(
            select(LoginAttempt.at)
            .where(condition, col(LoginAttempt.success).is_(False), LoginAttempt.at > since)
            .order_by(col(LoginAttempt.at))
        ).all()
        return list(rows)

    def delete_older_than(self, before: datetime) -> int:
        result: Any = self.session.execute(
            LoginAttempt.__table__.delete().where(LoginAttempt.__table__.c.at < before)  # type: ignore[attr-defined]
        )
        return int(result.rowcount or 0)


class AuditRepository(Repository):
    def record(
        self,
        *,
        actor: str,
        action: str,
        entity: str,
        entity_id: int | None,
        old: dict[str, Any] | None = None,
        new: dict[str, Any] | None = None,
        reason: str | None = None,
        event_id: int | None = None,
        at: datetime | None = None,
    ) -> AuditLog:
        """Queue an audit row: it is written with the unit of work's next flush or its commit, batched with
        the others (nothing reads an audit row's id in the transaction that writes it)."""
        row = AuditLog(
            at=at or utcnow(),
            actor=actor,
            action=action,
            entity=entity,
            entity_id=entity_id,
            old=old,
            new=new,
            reason=reason,
            event_id=event_id,
        )
        self.session.add(row)
        return row

    def change(
        self,
        row: TableRow,
        action: str,
        *,
        actor: str,
        event_id: int | None = None,
        old: dict[str, Any] | None = None,
        new: dict[str, Any] | None = None,
        reason: str | None = None,
        at: datetime | None = None,
    ) -> AuditLog:
        """Queue the audit entry of a change to ``row``, as ``record`` does: its entity is the row's table
        name and its entity_id the row's id, so an entry can never name the wrong table (a new row is
        flushed first, for its id)."""
        return self.record(
            actor=actor,
            action=action,
            entity=row.__tablename__,
            entity_id=row.id,
            old=old,
            new=new,
            reason=reason,
            event_id=event_id,
            at=at,
        )

    def for_entity(self, entity: str, entity_id: int) -> Sequence[AuditLog]:
        return self.session.exec(
            select(AuditLog)
            .where(AuditLog.entity == entity, AuditLog.entity_id == entity_id)
            .order_by(col(AuditLog.at), col(AuditLog.id))
        ).all()

    def latest(self, limit: int = 100, *, event_id: int | None = None) -> Sequence[AuditLog]:
        statement = select(AuditLog)
        if event_id is not None:
            statement = statement.where(AuditLog.event_id == event_id)
        return self.session.exec(statement.order_by(col(AuditLog.id).desc()).limit(limit)).all()


class EventRepository(Repository):
    def get_by_slug(self, slug: str) -> Event | None:
        return self.session.exec(select(Event).where(Event.slug == slug)).first()

    def list_all(self) -> Sequence[Event]:
        return self.session.exec(select(Event).order_by(col(Event.created_at).desc(), col(Event.id))).all()


class BoardRepository(Repository):
    def get_by_game_id(self, game_id: str) -> Board | None:
        return self.session.exec(select(Board).where(Board.game_id == game_id)).first()

    def for_match(self, match_id: int) -> Sequence[Board]:
        return self.session.exec(
            select(Board).where(Board.match_id == match_id).order_by(col(Board.board_no))
        ).all()

    def update_versioned(
        self,
        board_id: int,
        *,
        expected_version: int,
        values: Mapping[str, Any],
        actor: str,
        at: datetime | None = None,
    ) -> Board:
        """Change a board only if nobody else did since ``expected_version`` was read.

        Raises ``StaleEdit`` naming who changed it and what it holds now; nothing is written then.
        """
        stamped = {**values, "updated_by": actor, "updated_at": at or utcnow()}
        if not versioned_update(self.session, Board, board_id, expected_version, stamped):
            current = self.get_or_raise(Board, board_id)
            self.session.refresh(current)
            raise StaleEdit(
                [
                    CurrentValue(
                        entity="board",
                        entity_id=board_id,
                        field="result",
                        value=current.result,
                        version=current.version,
                        changed_by=current.updated_by,
                        changed_at=current.updated_at,
                    )
                ]
            )
        board = self.get_or_raise(Board, board_id)
        self.session.refresh(board)
        return board

    def update_boards_versioned(self, changes: Sequence[Mapping[str, Any]]) -> int:
        """Compare-and-set many boards in one statement (executemany); returns the rows changed.

        Each change has ``b_id``, ``b_version`` and the new values under the column names; every
        change must carry the same set of columns.
        """
        if not changes:
            return 0
        self.session.flush()  # pending ORM changes go first: expiring the boards below would drop them
        table: Any = Board.__table__  # type: ignore[attr-defined]
        columns = [key for key in changes[0] if key not in ("b_id", "b_version")]
        connection = self.session.connection()
        if connection.dialect.name == "postgresql":
            # One statement for every row: UPDATE ... FROM unnest(arrays). As executemany, PostgreSQL ran one
            # UPDATE per board (150 a round); a VALUES list instead cost SQLAlchemy ~70 ms to compile each
            # time. The arrays go in binary (%(name)b): in text, psycopg escaped every quote of every PGN.
            quote = connection.dialect.identifier_preparer.quote
            keys = ["b_id", "b_version", *columns]
            sql_type = {
                "b_id": "INTEGER",
                "b_version": "INTEGER",
                **{name: table.c[name].type.compile(dialect=connection.dialect) for name in columns},
            }
            arrays = ", ".join(f"CAST(%({key})b AS {sql_type[key]}[])" for key in keys)
            assignments = ", ".join(f"{quote(name)} = given.{quote(name)}" for name in columns)
            statement = (
                f"UPDATE board SET {assignments}, version = board.version + 1"
                f" FROM unnest({arrays}) AS given({', '.join(quote(key) for key in keys)})"
                " WHERE board.id = given.b_id AND board.version = given.b_version"
            )
            params = {key: [c[key] for c in changes] for key in keys}
            result: Any = connection.exec_driver_sql(statement, params)
        else:
            many = (
                update(table)
                .where(table.c.id == bindparam("b_id"), table.c.version == bindparam("b_version"))
                .values({name: bindparam(name) for name in columns} | {"version": table.c.version + 1})
            )
            result = connection.execute(many, list(changes))
        # Only the boards written are out of date in the session (expiring everything made the round and
        # bulk records of the same unit of work load again).
        for change in changes:
            board = self.session.identity_map.get(self.session.identity_key(Board, int(change["b_id"])))
            if board is not None:
                self.session.expire(board)
        return int(result.rowcount or 0)


class HealthRepository(Repository):
    def ping(self) -> bool:
        return self.session.execute(text("SELECT 1")).scalar_one() == 1
