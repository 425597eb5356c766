"""status indexes: the periodic jobs find running stages, open rounds and pending Armageddons by status,
so that an idle tick reads what is active, not every finished event (docs/workers.md, "Idle ticks")

Revision ID: 3b8e2f6a9c41
Revises: 7c1e5a9d3b20
Create Date: 2026-12-07 15:00:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "3b8e2f6a9c41"
down_revision: str | None = "7c1e5a9d3b20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

INDEXES = (
    ("ix_event_status", "event"),
    ("ix_stage_status", "stage"),
    ("ix_round_status", "round"),
    ("ix_armageddon_status", "armageddon"),
)


def upgrade() -> None:
    for name, table in INDEXES:
        op.create_index(name, table, ["status"], unique=False)


def downgrade() -> None:
    for name, table in INDEXES:
        op.drop_index(name, table_name=table)
