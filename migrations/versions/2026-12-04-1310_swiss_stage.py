"""swiss stage: stage kind and round statuses of a Swiss stage, its settings, round pairings, byes and
absences, and late entries (docs/swiss.md)

Revision ID: 5b7e2c9d1a44
Revises: 5b7d21c4e8a1
Create Date: 2026-12-04 13:10:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b7e2c9d1a44"
down_revision: str | None = "5b7d21c4e8a1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

STAGE_KINDS = ("pools", "knockout")
ROUND_STATUSES = ("scheduled", "paired", "playing", "finished")
SWISS_ROUND_STATUSES = ("unpaired", "draft", "cancelled")


def _in(column: str, values: Sequence[str]) -> str:
    return f"{column} IN ({', '.join(repr(v) for v in values)})"


def _checks(kinds: Sequence[str], statuses: Sequence[str]) -> None:
    with op.batch_alter_table("stage", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_stage_kind"), type_="check")
        batch_op.create_check_constraint(op.f("ck_stage_kind"), _in("kind", kinds))
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_constraint(op.f("ck_round_status"), type_="check")
        batch_op.create_check_constraint(op.f("ck_round_status"), _in("status", statuses))


def upgrade() -> None:
    _checks((*STAGE_KINDS, "swiss"), (*ROUND_STATUSES, *SWISS_ROUND_STATUSES))
    with op.batch_alter_table("pool_entry", schema=None) as batch_op:
        batch_op.add_column(sa.Column("joined_round", sa.Integer(), nullable=True))
    op.create_table(
        "swiss_stage",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("stage_id", sa.Integer(), nullable=False),
        sa.Column("initial_colour", sa.String(length=1), nullable=False),
        sa.CheckConstraint("initial_colour IN ('W', 'B')", name=op.f("ck_swiss_stage_initial_colour")),
        sa.ForeignKeyConstraint(
            ["stage_id"], ["stage.id"], name=op.f("fk_swiss_stage_stage_id_stage"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_swiss_stage")),
        sa.UniqueConstraint("stage_id", name=op.f("uq_swiss_stage_stage_id")),
    )
    op.create_table(
        "swiss_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("draft", sa.JSON(), nullable=True),
        sa.Column("paired_by", sa.String(length=80), nullable=True),
        sa.Column("paired_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("published_by", sa.String(length=80), nullable=True),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("unfinished_as_draws", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(
            ["round_id"], ["round.id"], name=op.f("fk_swiss_round_round_id_round"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_swiss_round")),
        sa.UniqueConstraint("round_id", name=op.f("uq_swiss_round_round_id")),
    )
    op.create_table(
        "swiss_round_team",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("team_id", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("recorded_by", sa.String(length=80), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("role IN ('bye', 'absent')", name=op.f("ck_swiss_round_team_role")),
        sa.ForeignKeyConstraint(
            ["round_id"], ["round.id"], name=op.f("fk_swiss_round_team_round_id_round"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["team.id"], name=op.f("fk_swiss_round_team_team_id_team"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_swiss_round_team")),
        sa.UniqueConstraint("round_id", "team_id", name=op.f("uq_swiss_round_team_round_id_team_id")),
    )
    op.create_index(op.f("ix_swiss_round_team_round_id"), "swiss_round_team", ["round_id"], unique=False)
    op.create_index(op.f("ix_swiss_round_team_team_id"), "swiss_round_team", ["team_id"], unique=False)


def downgrade() -> None:
    # Swiss stages cannot be stored by the older schema: they go (with their rounds, matches and pools).
    op.execute("DELETE FROM stage WHERE kind = 'swiss'")
    op.drop_index(op.f("ix_swiss_round_team_team_id"), table_name="swiss_round_team")
    op.drop_index(op.f("ix_swiss_round_team_round_id"), table_name="swiss_round_team")
    op.drop_table("swiss_round_team")
    op.drop_table("swiss_round")
    op.drop_table("swiss_stage")
    with op.batch_alter_table("pool_entry", schema=None) as batch_op:
        batch_op.drop_column("joined_round")
    _checks(STAGE_KINDS, ROUND_STATUSES)
