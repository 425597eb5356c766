"""Bonus and penalty points of a Swiss stage as the standings count them (docs/swiss.md, "Bonus and
penalty points"; TRF-2026 record 299 with a blank type, docs/trf.md).

An adjustment of round r counts in the standings after round r and in the pairing of round r + 1 on
(round 0: from the start); one for the standings only (record 299's round 999) counts in the standings,
never in a pairing. The stage's standings count those of the rounds published; the standings after a
round count those of that round and before it, and the standings-only ones once no later round is
complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import ScoreAdjustment as AdjustmentRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.swiss.model import ScoreAdjustment


@dataclass(frozen=True, slots=True)
class Adjustment:
    """One stored adjustment (``score_adjustment``): the team, its round, points and why."""

    id: int
    team_id: int
    after_round: int
    standings_only: bool
    mp: int
    gp_half: int
    reason: str
    recorded_by: str
    recorded_at: datetime

    def counts_after(self, round_no: int, *, last: bool) -> bool:
        """Whether it counts in the standings after ``round_no`` (``last``: no later round complete)."""
        return last if self.standings_only else self.after_round <= round_no

    def domain(self, name: str) -> ScoreAdjustment:
        """The pairing engine's view (record 299: round 0 and ``pairing`` False for the standings only)."""
        return ScoreAdjustment(name, self.after_round, self.mp, self.gp_half, not self.standings_only)


def _view(row: AdjustmentRow) -> Adjustment:
    return Adjustment(
        row.id or 0,
        row.team_id,
        row.after_round,
        row.standings_only,
        row.mp,
        row.gp_half,
        row.reason,
        row.recorded_by,
        row.recorded_at,
    )


def stage_adjustments(uow: UnitOfWork, stage_id: int) -> tuple[Adjustment, ...]:
    """The stage's adjustments, by round and then in the order they were given."""
    return tuple(_view(row) for row in uow.adjustments.of_stage(stage_id))


def totals(
    adjustments: Iterable[Adjustment], names: Mapping[int, str], *, after: int, last: bool = True
) -> dict[str, tuple[int, int]]:
    """(MP, GP half-points) each named team's adjustments add in the standings after round ``after``
    (``last``: no later round is complete, so the standings-only ones count)."""
    out: dict[str, tuple[int, int]] = {}
    for item in adjustments:
        name = names.get(item.team_id)
        if name is not None and item.counts_after(after, last=last):
            mp, gp = out.get(name, (0, 0))
            out[name] = (mp + item.mp, gp + item.gp_half)
    return out
