"""One event's rows, read and written generically from the schema's MetaData (docs/backup.md).

The tables of an event are found through the foreign-key graph: ``event``, then every table with a foreign
key into a table already found (in ``metadata.sorted_tables`` order, parents first). A table added later
joins the export without a change here; a table that reaches no event must be named in
``EXCLUDED_TABLES`` with the reason (tests/unit/test_backup.py fails otherwise).

Ids are kept on import (so the ids inside JSON columns and audit entries stay right), except for the
tables of ``MERGED_BY`` (``user``): nothing refers to a user by id, and a user whose name the database
already holds is kept as it is there.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    ColumnElement,
    Date,
    DateTime,
    Float,
    Integer,
    LargeBinary,
    Numeric,
    String,
    Table,
    Time,
    func,
    insert,
    or_,
    select,
    text,
)
from sqlalchemy.exc import DBAPIError
from sqlalchemy.types import TypeDecorator, TypeEngine
from sqlmodel import Session

from orchestrator.adapters import tables as _schema  # every table class registered on the MetaData
from orchestrator.adapters.event_archive import TableDump
from orchestrator.adapters.tables import STAFF_ROLES
from orchestrator.db import alembic_config, metadata
from orchestrator.errors import ValidationFailed

EVENT_TABLE = _schema.Event.__tablename__

# Tables that hold no event's rows, each with the reason it stays out of an archive.
EXCLUDED_TABLES: dict[str, str] = {
    "login_attempt": "login throttling by username and address, kept one day; belongs to no event",
    "outbox": "e-mails sent or waiting (docs/notifications.md): a mail log of this server, not event data",
}

# Columns never written to an archive; a restored row takes the column's default (NULL, or 1).
SECRET_COLUMNS: dict[str, dict[str, str]] = {
    "user": {
        "password_hash": "a password hash can be attacked offline",
        "invitation_token_hash": "an invitation link is a credential",
        "invitation_expires_at": "meaningless without the invitation",
        "session_generation": "part of the session cookie's check",
    },
    "player_link": {"token_encrypted": "a game-server OAuth token (and encrypted with this server's key)"},
}

# Rows of a table that belong to the export for another reason than a foreign key into the event.
EXTRA_ROWS: dict[str, Callable[[Table], ColumnElement[bool]]] = {
    # Roles are global (user.role): every staff account may act on every event.
    "user": lambda table: table.c.role.in_(sorted(role.value for role in STAFF_ROLES)),
}

# The same rule as EXTRA_ROWS, on an archive's row (import checks each row belongs to the event).
EXTRA_ROW_BELONGS: dict[str, Callable[[Mapping[str, Any]], bool]] = {
    "user": lambda row: row.get("role") in {role.value for role in STAFF_ROLES},
}

# Tables whose rows are matched by a natural key on import and get fresh ids.
MERGED_BY: dict[str, str] = {"user": "username"}


@dataclass(frozen=True, slots=True)
class TablePlan:
    """A table of the event, and the foreign key that ties its rows to the event (None for ``event``)."""

    table: Table
    links: tuple[tuple[Column[Any], Column[Any]], ...]

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def columns(self) -> tuple[str, ...]:
        secret = SECRET_COLUMNS.get(self.name, {})
        return tuple(c.name for c in self.table.columns if c.name not in secret)


def event_plan() -> tuple[TablePlan, ...]:
    """Every table whose rows belong to an event, parents first.

    A row belongs through a NOT NULL foreign key when the table has one (every such key leads to the same
    event: the shortest is used); a table with nullable keys only is reached through any of them.
    """
    plans: dict[str, TablePlan] = {}
    depth: dict[str, int] = {}
    for table in metadata.sorted_tables:
        if table.name in EXCLUDED_TABLES:
            continue
        if table.name == EVENT_TABLE:
            plans[table.name], depth[table.name] = TablePlan(table, ()), 0
            continue
        links = [(fk.parent, fk.column) for fk in table.foreign_keys if fk.column.table.name in plans]
        if not links:
            continue
        required = [link for link in links if not link[0].nullable]
        if required:
            links = [min(required, key=lambda link: (depth[link[1].table.name], link[0].name))]
        links.sort(key=lambda link: link[0].name)
        plans[table.name] = TablePlan(table, tuple(links))
        depth[table.name] = 1 + min(depth[ref.table.name] for _col, ref in links)
    return tuple(plans.values())


def unplanned_tables() -> list[str]:
    """Tables neither exported nor excluded with a reason (must stay empty)."""
    planned = {plan.name for plan in event_plan()}
    return sorted(t.name for t in metadata.sorted_tables if t.name not in planned | set(EXCLUDED_TABLES))


def rows_outside_the_event(
    plans: Sequence[TablePlan], rows: Mapping[str, Sequence[Mapping[str, Any]]]
) -> dict[str, list[Any]]:
    """The archive rows that do not belong to the archive's one event, by table (their ids): a row
    belongs when it reaches the event through its table's link (``TablePlan.links``) to a row of the
    archive, as the export found it; and every foreign key of a row into an event's table (ids kept) must
    name a row of the archive too, so that no row reaches into another event's rows."""
    planned = {plan.name for plan in plans}
    known: dict[tuple[str, str], set[Any]] = {}

    def values(table: str, column: str) -> set[Any]:
        if (table, column) not in known:
            known[table, column] = {row.get(column) for row in rows.get(table, ())} - {None}
        return known[table, column]

    outside: dict[str, list[Any]] = {}
    for plan in plans:
        if not plan.links:
            continue  # the event itself: exactly one, checked by its slug
        keys = [
            (fk.parent.name, fk.column.table.name, fk.column.name)
            for fk in plan.table.foreign_keys
            if fk.column.table.name in planned and fk.column.table.name not in MERGED_BY
        ]
        extra = EXTRA_ROW_BELONGS.get(plan.name)
        for number, row in enumerate(rows.get(plan.name, ()), start=1):
            linked = any(
                row.get(col.name) is not None and row[col.name] in values(ref.table.name, ref.name)
                for col, ref in plan.links
            ) or (extra is not None and extra(row))
            foreign = any(
                row.get(column) is not None and row[column] not in values(table, ref)
                for column, table, ref in keys
            )
            if not linked or foreign:
                outside.setdefault(plan.name, []).append(row.get("id", f"row {number}"))
    return outside


def _conditions(plans: Sequence[TablePlan], event_id: int) -> dict[str, ColumnElement[bool]]:
    conditions: dict[str, ColumnElement[bool]] = {}
    for plan in plans:
        if not plan.links:
            conditions[plan.name] = plan.table.c.id == event_id
            continue
        parts: list[ColumnElement[bool]] = [
            col.in_(select(ref).where(conditions[ref.table.name])) for col, ref in plan.links
        ]
        extra = EXTRA_ROWS.get(plan.name)
        if extra is not None:
            parts.append(extra(plan.table))
        conditions[plan.name] = or_(*parts)
    return conditions


def _base_type(column: Column[Any]) -> TypeEngine[Any]:
    kind: TypeEngine[Any] = column.type
    while isinstance(kind, TypeDecorator):
        kind = kind.impl_instance
    return kind


def encode(value: Any) -> Any:
    """A column value as JSON: dates and times ISO 8601, decimals as text, bytes as base64."""
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    return value


def decode(column: Column[Any], value: Any) -> Any:
    """The JSON value of ``column`` as the database takes it; ValueError says what is wrong."""
    if value is None:
        if not column.nullable and column.default is None and column.server_default is None:
            raise ValueError("is empty (null) but the column requires a value")
        return None
    kind = _base_type(column)
    if isinstance(kind, JSON):
        return value
    if isinstance(kind, DateTime | Date | Time):
        if not isinstance(value, str):
            raise ValueError(f"{value!r} is not an ISO 8601 text")
        if isinstance(kind, Date):
            return date.fromisoformat(value)
        if isinstance(kind, Time):
            return time.fromisoformat(value)
        moment = datetime.fromisoformat(value)
        if kind.timezone and moment.tzinfo is None:
            raise ValueError(f"{value!r} has no time zone")
        return moment
    expected = _expected_python(kind)
    wrong_bool = expected is not bool and isinstance(value, bool)
    if expected is not None and (not isinstance(value, expected) or wrong_bool):
        raise ValueError(f"{value!r} is not of the column's type ({kind})")
    if isinstance(kind, Float):
        return float(value)
    if isinstance(kind, Numeric) and not isinstance(kind, Integer):
        return Decimal(str(value))
    if isinstance(kind, LargeBinary):
        return base64.b64decode(value, validate=True)
    return value


def _expected_python(kind: TypeEngine[Any]) -> type | tuple[type, ...] | None:
    if isinstance(kind, Boolean):
        return bool
    if isinstance(kind, Integer):
        return int
    if isinstance(kind, Numeric):
        return (int, float, str)
    if isinstance(kind, String | LargeBinary):
        return str
    return None


def _first_line(error: DBAPIError) -> str:
    return str(error.orig).strip().splitlines()[0] if error.orig is not None else "refused"


class BackupRepository:
    """Reads and writes one event's rows in bulk (services/backup)."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def read_snapshot(self) -> None:
        """Make every later read of this unit of work see one moment (call before any other query):
        REPEATABLE READ on PostgreSQL, one read transaction on SQLite."""
        bind = self.session.get_bind()
        if bind.dialect.name == "postgresql":
            self.session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
        elif bind.dialect.name == "sqlite":
            self.session.execute(text("BEGIN"))

    def dump_event(self, event_id: int) -> list[TableDump]:
        """Every row of the event, table by table in insertion order, secrets left out."""
        plans = event_plan()
        conditions = _conditions(plans, event_id)
        dumps: list[TableDump] = []
        for plan in plans:
            columns = [plan.table.c[name] for name in plan.columns]
            query = select(*columns).where(conditions[plan.name]).order_by(*plan.table.primary_key.columns)
            rows = [
                {name: encode(value) for name, value in zip(plan.columns, row, strict=True)}
                for row in self.session.execute(query)
            ]
            dumps.append(TableDump(name=plan.name, columns=plan.columns, rows=rows))
        return dumps

    def event_id(self, slug: str) -> int | None:
        table = metadata.tables[EVENT_TABLE]
        return self.session.execute(select(table.c.id).where(table.c.slug == slug)).scalar_one_or_none()

    def schema_revision(self) -> str | None:
        """The Alembic revision the database is at (None for a database Alembic never touched)."""
        from alembic.runtime.migration import MigrationContext

        return MigrationContext.configure(self.session.connection()).get_current_revision()

    def keys_in_use(self, table_name: str, rows: Iterable[Mapping[str, Any]]) -> list[Any]:
        """Which of the rows' primary keys the table already holds (tables with a one-column key; a
        clash on another key is refused by the database when the rows are inserted)."""
        table = metadata.tables[table_name]
        keys = list(table.primary_key.columns)
        if len(keys) != 1:
            return []
        wanted = sorted({row[keys[0].name] for row in rows if row.get(keys[0].name) is not None})
        found: list[Any] = []
        for start in range(0, len(wanted), 1000):
            chunk = wanted[start : start + 1000]
            found += self.session.execute(select(keys[0]).where(keys[0].in_(chunk))).scalars().all()
        return sorted(found)

    def existing_by(
        self, table_name: str, column: str, values: Iterable[Any]
    ) -> dict[Any, Mapping[str, Any]]:
        """Rows whose ``column`` is one of ``values``, by that value."""
        table = metadata.tables[table_name]
        wanted = sorted(set(values))
        rows = self.session.execute(select(table).where(table.c[column].in_(wanted))).mappings()
        return {row[column]: dict(row) for row in rows}

    def insert_rows(self, table_name: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Insert rows as they are; a row the database refuses refuses the whole archive."""
        if not rows:
            return
        try:
            self.session.execute(insert(metadata.tables[table_name]), list(rows))
        except DBAPIError as exc:
            problem = f"table {table_name}: the database refused a row: {_first_line(exc)}"
            raise ValidationFailed([problem]) from None

    def reset_sequences(self, table_names: Iterable[str]) -> None:
        """After rows were inserted with their ids, PostgreSQL's id sequences continue past them."""
        connection = self.session.connection()
        if connection.dialect.name != "postgresql":
            return  # SQLite's next rowid follows the largest one
        for name in table_names:
            table = metadata.tables[name]
            keys = list(table.primary_key.columns)
            if len(keys) != 1 or not isinstance(_base_type(keys[0]), Integer):
                continue
            quoted = connection.dialect.identifier_preparer.format_table(table)
            sequence = connection.execute(
                text("SELECT pg_get_serial_sequence(:table, :column)"),
                {"table": quoted, "column": keys[0].name},
            ).scalar_one()
            if sequence is None:
                continue
            largest = connection.execute(select(func.max(keys[0]))).scalar_one()
            connection.execute(
                text("SELECT setval(:sequence, :value, :called)"),
                {"sequence": sequence, "value": largest or 1, "called": largest is not None},
            )

    def check_constraints_now(self) -> list[str]:
        """Run the deferred foreign-key checks now, so that a broken archive fails here with a message."""
        self.session.flush()
        connection = self.session.connection()
        if connection.dialect.name == "postgresql":
            try:
                connection.execute(text("SET CONSTRAINTS ALL IMMEDIATE"))
            except DBAPIError as exc:
                return [f"a row refers to a missing one: {_first_line(exc)}"]
            return []
        broken = connection.execute(text("PRAGMA foreign_key_check")).all()
        return [f"table {row[0]} row {row[1]}: refers to a missing {row[2]} row" for row in broken]

    def revision_problem(self, archived: str | None) -> str | None:
        """Why rows of schema revision ``archived`` cannot go into this database, or None.

        The archive's revision must be the database's or an older one on its line of migrations; columns
        added since then take their defaults.
        """
        from alembic.script import ScriptDirectory

        current = self.schema_revision()
        if archived == current:
            return None
        if current is None:
            return "the database has no schema: run `olympiad migrate` first"
        script = ScriptDirectory.from_config(alembic_config())
        older = {rev.revision for rev in script.iterate_revisions(current, "base")}
        if archived in older:
            return None
        return (
            f"the archive's schema revision {archived!r} is neither this database's ({current!r})"
            " nor an older one:"
            " upgrade this program and run `olympiad migrate`, then import again"
        )
