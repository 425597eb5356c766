"""late change: a closed stage's standings changed after a later stage was built from them

Revision ID: 922778ed0037
Revises: 7c1e5d2a9f30
Create Date: 2026-12-03 14:30:38.158456+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "922778ed0037"
down_revision: str | None = "7c1e5d2a9f30"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "late_change",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("source_stage_id", sa.Integer(), nullable=False),
        sa.Column("affected_stage_id", sa.Integer(), nullable=False),
        sa.Column("cause", sa.String(length=16), nullable=False),
        sa.Column("cause_text", sa.Text(), nullable=False),
        sa.Column("consequence", sa.JSON(), nullable=False),
        sa.Column("affected_started", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("detected_by", sa.String(length=80), nullable=False),
        sa.Column("detected_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ruled_by", sa.String(length=80), nullable=True),
        sa.Column("ruled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ruling_reason", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "cause IN ('correction', 'annulment', 'appeal')", name=op.f("ck_late_change_cause")
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'reseeded', 'kept', 'withdrawn')", name=op.f("ck_late_change_status")
        ),
        sa.ForeignKeyConstraint(
            ["affected_stage_id"],
            ["stage.id"],
            name=op.f("fk_late_change_affected_stage_id_stage"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"], ["event.id"], name=op.f("fk_late_change_event_id_event"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["source_stage_id"],
            ["stage.id"],
            name=op.f("fk_late_change_source_stage_id_stage"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_late_change")),
    )
    op.create_index(
        op.f("ix_late_change_affected_stage_id"), "late_change", ["affected_stage_id"], unique=False
    )
    op.create_index(op.f("ix_late_change_event_id"), "late_change", ["event_id"], unique=False)
    op.create_index(op.f("ix_late_change_source_stage_id"), "late_change", ["source_stage_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_late_change_source_stage_id"), table_name="late_change")
    op.drop_index(op.f("ix_late_change_event_id"), table_name="late_change")
    op.drop_index(op.f("ix_late_change_affected_stage_id"), table_name="late_change")
    op.drop_table("late_change")
