"""The plumbing every repository shares (docs/architecture.md, habit 7): web/ and workers/ never call
select().

One repository per aggregate (``repo_events.py``, ``repo_teams.py``, ``repo_rounds.py`` ...) holds that
aggregate's queries; the unit of work (``uow.py``) creates each on first use. Repositories take the unit of
work's session and never commit; the unit of work does (habit 4). Add a method to the aggregate's repository
for each new query, named for what it answers.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Protocol, TypeVar

from sqlalchemy import Connection, String, Table, bindparam, func, insert, literal, text, update
from sqlalchemy import select as sa_select
from sqlalchemy.dialects.postgresql import ARRAY
from sqlmodel import Session, SQLModel, col, select

from orchestrator.adapters.tables import Duel, Pool
from orchestrator.errors import NotFound

ModelT = TypeVar("ModelT", bound=SQLModel)


class TableRow(Protocol):
    """A stored row of one of our tables: what an audit entry about it needs."""

    __tablename__: ClassVar[str]
    id: int | None


class Repository:
    """Shared plumbing of every repository: ``add``, ``add_all``, ``delete``, ``insert``, ``get`` and
    ``get_or_raise``, for the rows of the repository's aggregate."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def add(self, row: ModelT) -> ModelT:
        """Queue a new or changed row: it is written with the next flush or the commit."""
        self.session.add(row)
        return row

    def add_all(self, rows: Iterable[SQLModel]) -> None:
        """Queue several rows, as ``add`` does."""
        self.session.add_all(rows)

    def insert(self, row: ModelT) -> ModelT:
        """Add a row and flush, so that its id is known before the commit."""
        self.session.add(row)
        self.session.flush()
        return row

    def delete(self, row: SQLModel) -> None:
        """Delete a row with the next flush or the commit."""
        self.session.delete(row)

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


def constant(value: str) -> Any:
    """A fixed value of the code (a status, a kind, a role) written into the statement's text instead of
    sent as a parameter; never a value that comes from outside.

    psycopg prepares a statement after its fifth run on a connection. With the status a parameter,
    PostgreSQL's generic plan cannot know which status is asked for: once the table's statistics say most
    rows hold one status (every finished event's rounds and stages), that plan reads them all, so the
    server planned the statement anew at every run, and beat's idle tick cost PostgreSQL more with finished
    events stored than with none. With the status in the text the generic plan is the index scan, made once
    per connection and kept (docs/performance.md, "Statuses in the statement's text").
    """
    return literal(value, String(), literal_execute=True)


def constants(values: Iterable[str]) -> list[Any]:
    """``constant`` for each value, for ``column.in_(...)``."""
    return [constant(value) for value in values]


def among(session: Session, column: Any, values: Sequence[Any]) -> Any:
    """``column IN values``; on PostgreSQL ``column IN (SELECT unnest(one array parameter))``.

    An IN list is a new statement for every count of values (a round's 300 player ids, 150 game ids):
    PostgreSQL parsed and planned each one again and no statement could be prepared. The array keeps one
    statement text whatever the count. It is unnested into a semi-join rather than compared with
    ``= ANY(array)``: once psycopg prepares the statement, PostgreSQL's generic plan cannot hash a parameter
    array, and a table it believes small (one loaded faster than its statistics follow: an event just set
    up, or autovacuum off) is scanned comparing every row with every value, 1,450 players by 240 ids in
    7 ms a round. The semi-join hashes the values or probes the index whatever the statistics say
    (docs/performance.md, "Arrays as parameters").
    """
    if session.get_bind().dialect.name == "postgresql":
        array = bindparam(None, list(values), type_=ARRAY(column.type))
        return column.in_(sa_select(func.unnest(array)).scalar_subquery())
    return column.in_(values)


def insert_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Insert ``rows`` (column values, every row with the same keys) into ``table`` in one statement.

    On PostgreSQL: ``INSERT ... SELECT FROM unnest(arrays)``, one array of each column's values sent in
    binary, so the server plans and runs one statement for the whole batch (a Swiss round's 380 audit
    entries as executemany were 380 INSERTs: docs/performance.md). Each value goes through its column's own
    conversion first (a JSON column's ``Json``, a UTC timestamp's check), as it would in an executemany.
    Elsewhere, or when the rows' keys differ, an executemany (which writes the first row's columns).
    """
    if not rows:
        return
    keys = list(rows[0])
    dialect = connection.dialect
    if dialect.name != "postgresql" or any(list(row) != keys for row in rows):
        connection.execute(insert(table), list(rows))
        return
    quote = dialect.identifier_preparer.quote
    arrays, params = unnest_arrays(dialect, {key: table.c[key].type for key in keys}, rows)
    connection.exec_driver_sql(
        f"INSERT INTO {quote(table.name)} ({', '.join(quote(key) for key in keys)})"
        f" SELECT * FROM unnest({arrays})",
        params,
    )


def update_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Set the given columns of the rows named by ``id`` (column values, every row with the same keys).

    On PostgreSQL: one ``UPDATE ... FROM unnest(arrays)``, as ``insert_rows`` inserts (a Swiss stage's 190
    standings rows a round were 190 UPDATEs as executemany); elsewhere, or when the rows' keys differ, an
    executemany (which writes the first row's columns).
    """
    if not rows:
        return
    keys = list(rows[0])
    columns = [key for key in keys if key != "id"]
    dialect = connection.dialect
    if dialect.name != "postgresql" or "id" not in keys or any(list(row) != keys for row in rows):
        statement = update(table).where(table.c.id == bindparam("row_id"))
        connection.execute(statement, [{**{k: row[k] for k in columns}, "row_id": row["id"]} for row in rows])
        return
    quote = dialect.identifier_preparer.quote
    arrays, params = unnest_arrays(dialect, {key: table.c[key].type for key in keys}, rows)
    assignments = ", ".join(f"{quote(name)} = given.{quote(name)}" for name in columns)
    name = quote(table.name)
    connection.exec_driver_sql(
        f"UPDATE {name} SET {assignments} FROM unnest({arrays}) AS given({', '.join(quote(k) for k in keys)})"
        f" WHERE {name}.id = given.id",
        params,
    )


def unnest_arrays(
    dialect: Any, types: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> tuple[str, dict[str, list[Any]]]:
    """The ``unnest`` arguments for the keys of ``types`` (each key's SQLAlchemy type) in ``rows``: one
    binary array parameter a key, each value through its type's own conversion as an executemany would
    send it (in text, psycopg escaped every quote of every PGN), and the parameters."""
    arrays: list[str] = []
    params: dict[str, list[Any]] = {}
    for n, (key, column_type) in enumerate(types.items()):
        convert = column_type.dialect_impl(dialect).bind_processor(dialect)
        values = [row[key] for row in rows]
        params[f"c{n}"] = [convert(v) for v in values] if convert is not None else values
        arrays.append(f"CAST(%(c{n})b AS {column_type.compile(dialect=dialect)}[])")
    return ", ".join(arrays), params


def known_ids(values: Iterable[int | None]) -> list[int]:
    """The distinct ids among ``values``, ascending, without None (for ``IN (...)`` queries)."""
    return sorted({v for v in values if v is not None})


class RowLocks(Repository):
    """Serialise changes to one pool or duel (docs/architecture.md, habit 6).

    PostgreSQL: ``SELECT ... FOR NO KEY UPDATE`` holds the row until the unit of work ends, so two workers
    recording results of the same pool run one after the other. SQLite has no row locks: a lock takes the
    database's write lock at once (an ``UPDATE`` that matches no row), so the transaction's reads after it
    see every commit before it and no other writer can commit until it ends. Without that, two ticks both
    read "no Armageddon yet" before either wrote, and the second insert failed on the unique duel.

    Every row the session read before the lock is expired (after a flush, so no change is lost): it is read
    again, under the lock, when next used, instead of deciding from what it was before another writer
    committed. Locking again a row the transaction already holds expires nothing (the locked row itself is
    still read again): no writer of it can have committed since the first lock.

    Not ``FOR UPDATE``: that also blocks the foreign-key checks of other transactions (``FOR KEY SHARE``),
    so a stage's closing (stage locked, then its pools) and a pool's recomputation (pool locked, then
    standings inserted, which refer to the stage) deadlocked, each stuck for PostgreSQL's one-second
    deadlock timeout before one was aborted. Nothing here deletes a locked row or changes its key.
    """

    def _held(self) -> set[tuple[str, int]]:
        """The rows this transaction has locked (a lock lasts until its transaction ends; no lock is taken
        inside a savepoint, whose rollback would release it: the outbox's savepoint only inserts)."""
        transaction = self.session.get_transaction()
        held = self.session.info.get("row_locks")
        if held is None or held[0] is not transaction:
            held = self.session.info["row_locks"] = (transaction, set())
        return held[1]

    def _locking(
        self, statement: Any, model: type[SQLModel], ids: Iterable[int], *, skip_locked: bool = False
    ) -> Any:
        self.session.flush()
        self.session.connection()  # the transaction begins now, so the held rows are recorded under it
        held = self._held()
        keys = {(str(model.__tablename__), row_id) for row_id in ids}
        if not keys <= held:
            # A row this transaction has locked already expires nothing when locked again: no other
            # writer of it can have committed since (a Swiss round's publication locks its stage three
            # times, and each expiry read the stage's rounds again one by one).
            self.session.expire_all()
        held |= keys  # held from this statement until the transaction ends
        # populate_existing: a copy of a row already in the session is overwritten with what this
        # statement read under the lock (one query; it used to be a second SELECT to refresh it).
        statement = statement.execution_options(populate_existing=True)
        if self.session.get_bind().dialect.name == "sqlite":
            table = model.__tablename__
            self.session.execute(text(f'UPDATE "{table}" SET id = id WHERE 0 = 1'))  # the write lock
            return statement
        # FOR NO KEY UPDATE; with ``skip_locked``, rows another transaction holds are left out at once.
        return statement.with_for_update(key_share=True, skip_locked=skip_locked)

    def _locked_row(self, model: type[ModelT], row_id: int, *, skip_locked: bool = False) -> ModelT | None:
        statement = select(model).where(col(model.id) == row_id)  # type: ignore[attr-defined]
        return self.session.exec(self._locking(statement, model, [row_id], skip_locked=skip_locked)).first()

    def lock(self, model: type[ModelT], row_id: int) -> ModelT:
        row = self._locked_row(model, row_id)
        if row is None:
            raise NotFound(f"{model.__tablename__} {row_id} does not exist")
        return row

    def try_lock(self, model: type[ModelT], row_id: int) -> ModelT | None:
        """``lock`` unless another transaction holds the row: None then, at once, instead of waiting for
        it (PostgreSQL's ``SKIP LOCKED``; SQLite has no row locks: as ``lock``). For work that the holder
        does too or that the next pass can do: beat's tick never sits idle behind a job."""
        row = self._locked_row(model, row_id, skip_locked=True)
        if row is None:
            self._held().discard((str(model.__tablename__), row_id))  # not held: another transaction has it
        return row

    def try_job_lock(self, name: str, ids: tuple[int, ...]) -> bool:
        """Claim job ``name`` for ``ids`` until the unit of work ends; False if another run holds it.

        PostgreSQL: a transaction-level advisory lock (``pg_try_advisory_xact_lock``), which blocks no
        row, only a second run of the same job, which can then leave at once instead of waiting. SQLite:
        always True. Its writers take turns (``_locking``), but two runs can still both read the game
        server before either writes: what one read may be older than what the other stored, and the
        ingestion leaves such a line alone (``services/gameserver/ingestion.py``).
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
            self._locking(select(Pool).where(col(Pool.id).in_(ids)).order_by(col(Pool.id)), Pool, ids)
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
