"""Migrated databases without running the migrations for each test: the schema is built once per test
process (Alembic ``upgrade head``, as ``init_db`` runs it) and each test gets a copy.

    schema_at_head(settings.sqlalchemy_url)       # a copy of the migrated SQLite file at that path
    url = create_migrated_database("olympiad_workers")  # tests/integration/conftest.py: a TEMPLATE copy

Migrating a fresh SQLite file takes Alembic a third of a second or more (bench/test_setup.py), a fresh
PostgreSQL database a few seconds; a copy takes milliseconds (SQLite) or a fraction of a second
(PostgreSQL). The migrations themselves are still run from empty by tests/integration/test_persistence.py
(both back-ends, compared with the models) and by every template built here.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from orchestrator.db import init_db, is_sqlite, make_engine

_lock = threading.Lock()
_sqlite_template: Path | None = None
_pg_templates: dict[str, str] = {}  # admin URL -> template database name


def sqlite_template() -> Path:
    """This process's migrated SQLite file (built on first use, removed when the process ends)."""
    global _sqlite_template
    with _lock:
        if _sqlite_template is None:
            folder = Path(tempfile.mkdtemp(prefix="olympiad-schema-"))
            atexit.register(shutil.rmtree, folder, True)
            path = folder / "template.sqlite3"
            engine = make_engine(f"sqlite:///{path.as_posix()}")
            try:
                init_db(engine=engine)
                with engine.connect() as connection:  # every page in the file itself, none left in the WAL
                    connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                engine.dispose()
            _sqlite_template = path
        return _sqlite_template


def schema_at_head(url: str) -> None:
    """Give the database at ``url`` the schema at head: for a SQLite file that does not exist yet, a copy
    of the template; otherwise ``init_db`` (an existing file or a server database is migrated in place,
    a no-op when it is at head already)."""
    path = Path(make_url(url).database or "")
    if path.exists() or not is_sqlite(url):
        engine = make_engine(url)
        try:
            init_db(engine=engine)
        finally:
            engine.dispose()
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(sqlite_template(), path)
    path.chmod(0o600)  # as make_engine creates it (docs/security.md, "Secrets at rest")


def migrated_engine(url: str) -> Engine:
    """An engine (``make_engine``) on the database at ``url``, its schema at head (``schema_at_head``)."""
    schema_at_head(url)
    return make_engine(url)


def postgres_template(admin_engine: Engine, admin_url: str, prefix: str) -> str:
    """The name of this process's migrated template database on the server of ``admin_url``: created and
    migrated on first use, with no connection left open (CREATE DATABASE ... TEMPLATE needs none),
    dropped when the process ends."""
    with _lock:
        name = _pg_templates.get(admin_url)
        if name is not None:
            return name
        from secrets import token_hex

        name = f"{prefix}_{token_hex(6)}"
        with admin_engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        engine = make_engine(url)
        try:
            init_db(engine=engine)
        finally:
            engine.dispose()
        _pg_templates[admin_url] = name
        atexit.register(_drop_template, admin_url, name)
        return name


def drop_templates() -> None:
    """Remove this process's templates (the session's end calls it: tests/conftest.py); the next use
    builds them again."""
    global _sqlite_template
    with _lock:
        templates = list(_pg_templates.items())
        _pg_templates.clear()
        folder = _sqlite_template.parent if _sqlite_template is not None else None
        _sqlite_template = None
    for admin_url, name in templates:
        _drop_template(admin_url, name)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


def _drop_template(admin_url: str, name: str) -> None:
    from sqlalchemy import create_engine

    try:
        engine = create_engine(admin_url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3})
        with engine.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
    except Exception:  # the server may be gone already (a test's own server): nothing left to drop
        pass
