"""Integration fixtures on the real PostgreSQL server (127.0.0.1:5432, trust auth, user postgres).

A fresh database ``olympiad_test_<random>`` is created for the test session, migrated to head and
dropped at the end. If PostgreSQL is not reachable the tests fail when CI=true and are skipped otherwise.
A test that needs a migrated database of its own gets a copy of this process's migrated template
(``create_migrated_database``, tests/support/databases.py) instead of running the migrations again.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url

from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import init_db, make_engine, make_session_factory
from tests.support.ci import missing
from tests.support.databases import postgres_template
from tests.support.pools import SeededPool, seed_small_pool

ADMIN_URL = os.environ.get(
    "OLYMPIAD_TEST_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def _admin_engine(admin_url: str | None = None) -> Engine:
    return create_engine(
        admin_url or ADMIN_URL, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
    )


def _require_postgres() -> None:
    try:
        with _admin_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as error:  # any reason at all: the message says which
        reason = f"PostgreSQL is not reachable at {make_url(ADMIN_URL).render_as_string()}: {error}"
        missing(reason)


def create_database(prefix: str = "olympiad_test", admin_url: str | None = None) -> str:
    """Create an empty database (on the server of ``admin_url``, default the shared one); its URL."""
    name = f"{prefix}_{secrets.token_hex(6)}"
    admin = _admin_engine(admin_url)
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(admin_url or ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def create_migrated_database(prefix: str = "olympiad_test", admin_url: str | None = None) -> str:
    """Create a database at the newest schema; its URL. On the shared server it is a copy of this
    process's migrated template (``CREATE DATABASE ... TEMPLATE``, a fraction of a second); on a server of
    the test's own (``admin_url``) it is created empty and migrated (``init_db``)."""
    if admin_url is not None:
        url = create_database(prefix, admin_url)
        engine = make_engine(url)
        try:
            init_db(engine=engine)
        finally:
            engine.dispose()
        return url
    admin = _admin_engine()
    try:
        template = postgres_template(admin, ADMIN_URL, "olympiad_schema")
        name = f"{prefix}_{secrets.token_hex(6)}"
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}" TEMPLATE "{template}"'))
    finally:
        admin.dispose()
    return make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    name = make_url(url).database
    admin = _admin_engine(make_url(url).set(database="postgres").render_as_string(hide_password=False))
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@contextmanager
def scratch_database(prefix: str, *, migrated: bool = False) -> Iterator[str]:
    """A new PostgreSQL database, empty or at the newest schema; its URL, dropped when the block ends."""
    _require_postgres()
    url = create_migrated_database(prefix) if migrated else create_database(prefix)
    try:
        yield url
    finally:
        drop_database(url)


@pytest.fixture(scope="session")
def pg_empty_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for this test session (no schema)."""
    with scratch_database("olympiad_test_empty") as url:
        yield url


@pytest.fixture
def pg_scratch_url() -> Iterator[str]:
    """An empty PostgreSQL database of this test's own (no schema), dropped after it."""
    with scratch_database("olympiad_test_scratch") as url:
        yield url


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database migrated to head, dropped after the session."""
    with scratch_database("olympiad_test", migrated=True) as url:
        yield url


@pytest.fixture(scope="session")
def pg_engine(pg_url: str) -> Iterator[Engine]:
    engine = make_engine(pg_url)
    yield engine
    engine.dispose()


@pytest.fixture
def uow_factory(pg_engine: Engine) -> UnitOfWorkFactory:
    session_factory = make_session_factory(pg_engine)
    return lambda: UnitOfWork(session_factory)


@pytest.fixture
def seeded(uow_factory: UnitOfWorkFactory) -> SeededPool:
    """The small test pool under a slug (and pairing seed) of its own: the session's database is shared."""
    return seed_small_pool(
        uow_factory, slug=f"pool-{secrets.token_hex(4)}", pairing_seed=secrets.token_bytes(32)
    )
