"""Alembic environment: the schema is orchestrator.adapters.tables, the URL comes from Settings.

Called three ways: `alembic upgrade head` on the command line (URL from Settings / DATABASE_URL),
`orchestrator.db.init_db()` (passes an open connection in config.attributes["connection"]) and tests
(pass config.attributes["url"]).
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection
from sqlmodel.sql.sqltypes import AutoString

import orchestrator.adapters.tables  # noqa: F401  (fills the MetaData)
from orchestrator.config import get_settings
from orchestrator.db import UTCDateTime, make_engine, metadata

config = context.config


def render_item(type_: str, obj: Any, autogen_context: Any) -> str | bool:
    """Render project column types as plain SQLAlchemy types so migrations never import the app."""
    if type_ == "type" and isinstance(obj, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    if type_ == "type" and isinstance(obj, AutoString):
        return f"sa.String(length={obj.length})" if obj.length else "sa.String()"
    return False


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=metadata,
        render_item=render_item,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite alters tables by copying them
        compare_type=True,
        compare_server_default=True,
    )


def run_migrations_offline() -> None:
    url = config.attributes.get("url") or get_settings().sqlalchemy_url
    context.configure(url=url, target_metadata=metadata, render_item=render_item, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    url = config.attributes.get("url") or get_settings().sqlalchemy_url
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            _configure(connection)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
