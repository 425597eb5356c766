"""Export a whole event to one archive, and import it into a database that does not hold it (docs/backup.md).

Export reads every row of the event (adapters/repo_backup.py finds the tables through the foreign keys)
and writes the archive (adapters/event_archive.py). Import checks the whole archive first (file, schema
revision, tables and columns, every value, slug and ids free) and writes nothing unless every check
passes; then it inserts every row in one transaction, keeping the ids. Restored accounts have no password:
staff get an invitation link each (printed once), captains a fresh link from the team's page.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from orchestrator.adapters.event_archive import Archive, TableDump, read_archive, write_archive
from orchestrator.adapters.repo_backup import (
    EVENT_TABLE,
    EXCLUDED_TABLES,
    MERGED_BY,
    SECRET_COLUMNS,
    TablePlan,
    decode,
    event_plan,
    rows_outside_the_event,
)
from orchestrator.adapters.tables import STAFF_ROLES, Lot, Role, User, definition_digest
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings, get_settings
from orchestrator.db import utcnow
from orchestrator.errors import NotFound, ValidationFailed
from orchestrator.services.accounts.users import create_invitation

USER_TABLE = User.__tablename__
LOT_TABLE = Lot.__tablename__
MAX_PROBLEMS_PER_TABLE = 10  # a damaged table is named with its first problems, not thousands of lines


def app_version() -> str:
    try:
        return version("olympiad-orchestrator")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "unknown"


@dataclass(frozen=True, slots=True)
class ExportReport:
    slug: str
    path: Path
    rows: dict[str, int]
    sealed_lots: int  # lots committed and not drawn yet: the archive holds their secret seeds


@dataclass(frozen=True, slots=True)
class Invitation:
    username: str
    role: str
    token: str  # shown once: the link is /invitation/<token>


@dataclass(frozen=True, slots=True)
class ImportReport:
    slug: str
    event_id: int
    rows: dict[str, int]
    kept_users: tuple[str, ...]  # staff accounts this database already had, left as they are
    invitations: tuple[Invitation, ...] = field(default=())


def export_event(uow: UnitOfWork, *, slug: str, path: Path, now: datetime | None = None) -> ExportReport:
    """Write event ``slug`` to the archive ``path`` (replaced if it exists), as the event stood at one
    moment even while others write."""
    uow.backup.read_snapshot()
    event_id = uow.backup.event_id(slug)
    if event_id is None:
        raise NotFound(f"event {slug!r} does not exist")
    dumps = uow.backup.dump_event(event_id)
    lots = next(dump for dump in dumps if dump.name == LOT_TABLE)
    sealed = sum(1 for row in lots.rows if row.get("sealed_seed_hex"))
    header = {
        "schema_revision": uow.backup.schema_revision(),
        "app_version": app_version(),
        "created_at": (now or utcnow()).isoformat(),
        "event_slug": slug,
        "confidential": sealed > 0,
        "sealed_lots": sealed,
        "left_out": {
            "tables": dict(EXCLUDED_TABLES),
            "columns": {table: sorted(columns) for table, columns in SECRET_COLUMNS.items()},
        },
    }
    write_archive(path, header, dumps)
    return ExportReport(
        slug=slug, path=path, rows={dump.name: len(dump.rows) for dump in dumps}, sealed_lots=sealed
    )


def import_event(
    uow: UnitOfWork, *, path: Path, actor: str, settings: Settings | None = None
) -> ImportReport:
    """Restore the archive ``path``; ``ValidationFailed`` lists every problem and nothing is written.

    Every row must belong to the event being imported (a lot, an audit entry, anything naming another
    event's rows refuses the whole archive), and each member is read within the caps of ``settings``
    (docs/backup.md, "Import" and "Limits")."""
    limits = settings or get_settings()
    archive = read_archive(
        path, max_rows=limits.archive_max_rows, max_member_bytes=limits.archive_max_member_bytes
    )
    plans = event_plan()
    rows, kept = _checked_rows(uow, archive, plans)
    for event in rows.get(EVENT_TABLE, []):
        # The digest names the parse a process keeps of the text (services/definitions.py): made here from
        # the text, never taken from the archive (one of an older schema has none; a hand-edited one could
        # name another text's parse).
        event["definition_digest"] = definition_digest(event.get("definition_text") or "")
    users = rows.get(USER_TABLE, [])
    inserted = [plan.name for plan in plans if rows.get(plan.name)]
    for name in inserted:
        uow.backup.insert_rows(name, rows[name])
    uow.backup.reset_sequences(name for name in inserted if name not in MERGED_BY)
    broken = uow.backup.check_constraints_now()
    if broken:
        raise ValidationFailed(broken[:MAX_PROBLEMS_PER_TABLE])
    event_id = int(rows[EVENT_TABLE][0]["id"])
    invitations = _invite_staff(uow, users, actor=actor, settings=settings)
    counts = {name: len(rows.get(name, ())) for name in inserted}
    uow.audit.record(
        actor=actor,
        action="event.import",
        entity=EVENT_TABLE,
        entity_id=event_id,
        event_id=event_id,
        new={"created_at": archive.manifest["created_at"], "rows": counts, "kept_users": kept},
    )
    return ImportReport(
        slug=archive.event_slug,
        event_id=event_id,
        rows=counts,
        kept_users=tuple(kept),
        invitations=tuple(invitations),
    )


def _checked_rows(
    uow: UnitOfWork, archive: Archive, plans: Sequence[TablePlan]
) -> tuple[dict[str, list[dict[str, Any]]], list[str]]:
    """The archive's rows decoded for the database (users to create only), after every check that needs
    it, and the names of the staff accounts the database already has."""
    problems: list[str] = []
    revision = uow.backup.revision_problem(archive.schema_revision)
    if revision is not None:
        problems.append(revision)
    by_name = {plan.name: plan for plan in plans}
    rows: dict[str, list[dict[str, Any]]] = {}
    for dump in archive.tables:
        plan = by_name.get(dump.name)
        if plan is None:
            problems.append(f"table {dump.name}: not a table of an event in this database's schema")
            continue
        decoded = _decoded(plan, dump, problems)
        if decoded is not None:
            rows[dump.name] = decoded
    problems += _event_problems(uow, archive, rows.get(EVENT_TABLE, []))
    for name, outside in rows_outside_the_event(plans, rows).items():
        shown = ", ".join(str(i) for i in outside[:MAX_PROBLEMS_PER_TABLE])
        hidden = len(outside) - MAX_PROBLEMS_PER_TABLE
        more = f" and {hidden} more" if hidden > 0 else ""
        problems.append(
            f"table {name}: rows {shown}{more} belong to another event (or to none): every row of an "
            "archive must belong to the event it restores"
        )
    for name, table_rows in rows.items():
        if name in MERGED_BY:
            continue
        taken = uow.backup.keys_in_use(name, table_rows)
        if taken:
            shown = ", ".join(str(i) for i in taken[:MAX_PROBLEMS_PER_TABLE])
            hidden = len(taken) - MAX_PROBLEMS_PER_TABLE
            more = f" and {hidden} more" if hidden > 0 else ""
            problems.append(f"table {name}: ids already used in this database: {shown}{more}")
    rows[USER_TABLE], kept = _users_to_add(uow, rows.get(USER_TABLE, []), problems)
    if problems:
        raise ValidationFailed(problems)
    return rows, kept


def _decoded(plan: TablePlan, dump: TableDump, problems: list[str]) -> list[dict[str, Any]] | None:
    unknown = [c for c in dump.columns if c not in plan.table.c]
    secret = [c for c in dump.columns if c in SECRET_COLUMNS.get(plan.name, {})]
    if unknown:
        problems.append(f"table {plan.name}: unknown column(s) {', '.join(unknown)}")
    if secret:
        problems.append(f"table {plan.name}: column(s) {', '.join(secret)} are never imported")
    if unknown or secret:
        return None
    found: list[str] = []
    decoded: list[dict[str, Any]] = []
    for number, row in enumerate(dump.rows, start=1):
        values: dict[str, Any] = {}
        for name, value in row.items():
            try:
                values[name] = decode(plan.table.c[name], value)
            except ValueError as exc:
                found.append(f"table {plan.name} row {number} column {name}: {exc}")
        decoded.append(values)
    problems += found[:MAX_PROBLEMS_PER_TABLE]
    return None if found else decoded


def _event_problems(uow: UnitOfWork, archive: Archive, events: Sequence[Mapping[str, Any]]) -> list[str]:
    if len(events) != 1 or events[0].get("slug") != archive.event_slug:
        return [f"the archive does not hold exactly one event {archive.event_slug!r}"]
    if uow.backup.event_id(archive.event_slug) is not None:
        return [
            f"event {archive.event_slug!r} already exists in this database: "
            "delete it first, or restore into another database"
        ]
    return []


def _users_to_add(
    uow: UnitOfWork, users: Sequence[dict[str, Any]], problems: list[str]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The archived accounts to create (without their ids), and the staff accounts already here, kept.

    A captain belongs to one team, so a captain's name already in use is a conflict."""
    key = MERGED_BY[USER_TABLE]
    existing = uow.backup.existing_by(USER_TABLE, key, (user[key] for user in users))
    add: list[dict[str, Any]] = []
    kept: list[str] = []
    for user in users:
        here = existing.get(user[key])
        if here is None:
            row = {name: value for name, value in user.items() if name != "id"}
            # A fresh id may be one an old session cookie names: no old cookie's generation matches this.
            row["session_generation"] = secrets.randbelow(1 << 30) + 2
            add.append(row)
        elif Role.CAPTAIN.value in (here["role"], user["role"]):
            problems.append(f"user {user[key]!r} ({user['role']}) already exists here as {here['role']}")
        else:
            kept.append(str(user[key]))
    return add, kept


def _invite_staff(
    uow: UnitOfWork, users: Sequence[Mapping[str, Any]], *, actor: str, settings: Settings | None
) -> list[Invitation]:
    """An invitation link for every restored staff account that is not disabled (they have no password)."""
    staff = [u for u in users if u["role"] in STAFF_ROLES and not u.get("disabled")]
    found = uow.backup.existing_by(USER_TABLE, "username", (u["username"] for u in staff))
    invitations: list[Invitation] = []
    for user in staff:
        row = found[user["username"]]
        token = create_invitation(uow, user_id=row["id"], actor=actor, settings=settings)
        invitations.append(Invitation(username=user["username"], role=user["role"], token=token))
    return invitations
