"""Bonus and penalty points of Swiss stages (``uow.adjustments``; docs/swiss.md, "Bonus and penalty
points").

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables_adjustments import ScoreAdjustment


class AdjustmentRepository(Repository):
    """A stage's score adjustments (``uow.adjustments``)."""

    def of_stage(self, stage_id: int) -> Sequence[ScoreAdjustment]:
        """The stage's adjustments in the order they were given."""
        return self.session.exec(
            select(ScoreAdjustment)
            .where(ScoreAdjustment.stage_id == stage_id)
            .order_by(col(ScoreAdjustment.after_round), col(ScoreAdjustment.id))
        ).all()
