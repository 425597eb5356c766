"""event definition digest: the definition cache's key stored beside the text, so that loading an event no
longer reads its whole YAML (docs/performance.md, "An event row without its file")

Revision ID: 7c1e5a9d3b20
Revises: f61c4cc0d274
Create Date: 2026-12-07 12:15:00.000000+00:00
"""

import hashlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c1e5a9d3b20"
down_revision: str | None = "f61c4cc0d274"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.add_column(sa.Column("definition_digest", sa.String(length=32), nullable=False, server_default=""))
    event = sa.table("event", sa.column("id", sa.Integer), sa.column("definition_text", sa.Text))
    digest = sa.table("event", sa.column("id", sa.Integer), sa.column("definition_digest", sa.String))
    connection = op.get_bind()
    rows = connection.execute(sa.select(event.c.id, event.c.definition_text)).all()
    for event_id, text in rows:
        # orchestrator.adapters.tables.definition_digest, written out: a migration does not import the models.
        value = hashlib.blake2b((text or "").encode(), digest_size=16).hexdigest()
        connection.execute(sa.update(digest).where(digest.c.id == event_id).values(definition_digest=value))


def downgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.drop_column("definition_digest")
