"""outlook: each team's chances and needs in a stage, stored after each round (docs/needs.md)

Revision ID: 6ebc38816acc
Revises: 5f1c2a9d7b3e
Create Date: 2026-12-06 08:19:22.792673+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6ebc38816acc"
down_revision: str | None = "5f1c2a9d7b3e"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outlook",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stage_id", sa.Integer(), nullable=False),
        sa.Column("pool_id", sa.Integer(), nullable=True),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("places", sa.Integer(), nullable=False),
        sa.Column("chance", sa.Integer(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=True),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("simulations", sa.Integer(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("after_round", sa.Integer(), nullable=False),
        sa.Column("computed_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "status IS NULL OR status IN ('clinched', 'eliminated', 'open')", name=op.f("ck_outlook_status")
        ),
        sa.ForeignKeyConstraint(
            ["pool_id"], ["pool.id"], name=op.f("fk_outlook_pool_id_pool"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["stage_id"], ["stage.id"], name=op.f("fk_outlook_stage_id_stage"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["team.id"], name=op.f("fk_outlook_team_id_team"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outlook")),
        sa.UniqueConstraint("stage_id", "team_id", "places", name=op.f("uq_outlook_stage_id_team_id_places")),
    )
    op.create_index(op.f("ix_outlook_pool_id"), "outlook", ["pool_id"], unique=False)
    op.create_index(op.f("ix_outlook_stage_id"), "outlook", ["stage_id"], unique=False)
    op.create_index(op.f("ix_outlook_team_id"), "outlook", ["team_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_outlook_team_id"), table_name="outlook")
    op.drop_index(op.f("ix_outlook_stage_id"), table_name="outlook")
    op.drop_index(op.f("ix_outlook_pool_id"), table_name="outlook")
    op.drop_table("outlook")
