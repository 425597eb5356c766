"""Engine, session factory and the schema's MetaData (docs/architecture.md, "Database").

SQLite (the default, a file under ``Settings.data_dir``) needs no set-up: ``init_db()`` creates the file and
runs the Alembic migrations. PostgreSQL is selected with ``DATABASE_URL``.
"""

from __future__ import annotations

import contextlib
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, Engine, MetaData, create_engine, event
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.orm import sessionmaker
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator
from sqlmodel import Session, SQLModel

from orchestrator.config import Settings, get_settings

REPO_ROOT = Path(__file__).resolve().parents[1]

# Constraint names are deterministic so that migrations can refer to them on both databases.
NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# SQLModel keeps one MetaData for every table class; give it the naming convention before tables.py runs.
metadata: MetaData = SQLModel.metadata
metadata.naming_convention = NAMING_CONVENTION


def utcnow() -> datetime:
    """The current time, timezone-aware in UTC (every ``_at`` column holds one of these)."""
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend.

    PostgreSQL stores ``timestamptz``; SQLite has no time zones, so values are stored as naive UTC and
    read back as aware UTC. Naive datetimes are refused on the way in: they are always a bug.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column; use orchestrator.db.utcnow()")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=10000")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _private_file(path: Path) -> None:
    """Create the SQLite file readable and writable by its owner only (0600, as the secret key file), or
    tighten one left wider by an earlier version: it holds password hashes and encrypted tokens
    (docs/security.md, "Secrets at rest"). SQLite gives its journal files the database file's mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    for file in (path, *(path.with_name(path.name + tail) for tail in ("-wal", "-shm", "-journal"))):
        try:
            if file.stat().st_mode & 0o077:
                file.chmod(0o600)
        except (FileNotFoundError, PermissionError):
            continue  # not there, or not ours to change (the owner keeps its mode)


def make_engine(url: str, *, echo: bool = False) -> Engine:
    """An engine for ``url``; for a SQLite file the parent directory is created and WAL switched on."""
    sa_url = make_url(url)
    if sa_url.get_backend_name() != "sqlite":
        return create_engine(sa_url, echo=echo, pool_pre_ping=True, future=True)
    database = sa_url.database or ""
    in_memory = database in ("", ":memory:") or database.startswith("file::memory:")
    kwargs: dict[str, Any] = {"connect_args": {"check_same_thread": False}}
    if in_memory:
        kwargs["poolclass"] = StaticPool
    else:
        _private_file(Path(database).expanduser().resolve())
    engine = create_engine(sa_url, echo=echo, future=True, **kwargs)
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


_engines: dict[str, Engine] = {}
_engines_lock = threading.Lock()


def get_engine(settings: Settings | None = None) -> Engine:
    """The process-wide engine for the configured database (one per URL)."""
    url = (settings or get_settings()).sqlalchemy_url
    with _engines_lock:
        engine = _engines.get(url)
        if engine is None:
            engine = _engines[url] = make_engine(url)
        return engine


def dispose_engines() -> None:
    """Close every pooled connection (tests, and before forking worker processes)."""
    with _engines_lock:
        for engine in _engines.values():
            engine.dispose()
        _engines.clear()


SessionFactory = sessionmaker[Session]


def make_session_factory(engine: Engine) -> SessionFactory:
    """Sessions that keep loaded objects usable after commit (pages render after the unit of work ends)."""
    return sessionmaker(bind=engine, class_=Session, expire_on_commit=False, autoflush=True)


def get_session_factory(settings: Settings | None = None) -> SessionFactory:
    return make_session_factory(get_engine(settings))


def alembic_config(url: str | None = None) -> Any:
    """The Alembic configuration of this repository (``alembic.ini``), optionally bound to ``url``."""
    from alembic.config import Config

    config = Config(str(REPO_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(REPO_ROOT / "migrations"))
    if url is not None:
        config.attributes["url"] = url
    return config


def init_db(settings: Settings | None = None, *, engine: Engine | None = None) -> None:
    """Bring the database to the newest schema (Alembic ``upgrade head``); safe to run repeatedly."""
    from alembic import command

    engine = engine or get_engine(settings)
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
