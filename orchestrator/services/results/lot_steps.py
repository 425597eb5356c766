"""Lots that a step of the event draws, not staff by hand (docs/lots.md, "When each lot is committed and
drawn"): a pool's pairing-number lot is drawn when its stage starts (``setup.stage_start``), a tie-break (g)
lot when its stage closes (``standings.close_stage``; on a closed stage, by "Draw the lots" on its closing
page). Drawing one earlier by hand would publish its outcome before the step it belongs to.

Lots are told apart by purpose, from the two purpose helpers (``pairing_lots.pairing_lot_purpose``,
``tie_lots.lot_purpose``): the lots page shows such a lot's step instead of "Draw now", and a draw by hand
(the page's form, the API) is refused with a Conflict naming the step.
"""

from __future__ import annotations

from dataclasses import replace

from orchestrator.adapters.tables import Lot, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import Conflict
from orchestrator.services.results.tie_lots import lot_purpose as tie_lot_purpose
from orchestrator.services.setup import draws
from orchestrator.services.setup.pairing_lots import colour_lot_purpose, pairing_lot_purpose
from orchestrator.translation import gettext as _


def drawing_steps(uow: UnitOfWork, *, event_id: int) -> dict[str, str]:
    """The purpose of each lot a step draws, with that step in words ("drawn when Group starts")."""
    steps: dict[str, str] = {}
    for stage in uow.events.stages_of_event(event_id):
        if stage.kind == StageKind.SWISS.value:
            steps[colour_lot_purpose(stage.name)] = _("drawn when %(stage)s starts") % {"stage": stage.name}
            continue
        if stage.kind != StageKind.POOLS.value:
            continue
        closes = (
            _("drawn by Draw the lots on the closing page of %(stage)s")
            if stage.status == StageStatus.CLOSED.value
            else _("drawn when %(stage)s closes")
        ) % {"stage": stage.name}
        for pool in uow.rounds.pools_in_letter_order(stage.id or 0):
            steps[pairing_lot_purpose(stage.name, pool.letter)] = _("drawn when %(stage)s starts") % {
                "stage": stage.name
            }
            steps[tie_lot_purpose(pool)] = closes
    return steps


def list_lots(uow: UnitOfWork, *, event_id: int) -> list[draws.LotView]:
    """Every lot of an event (``draws.list_lots``); a sealed one a step draws names it (``drawn_when``)."""
    steps = drawing_steps(uow, event_id=event_id)
    return [
        replace(view, drawn_when=steps.get(view.purpose)) if not view.revealed else view
        for view in draws.list_lots(uow, event_id=event_id)
    ]


def draw_by_hand(uow: UnitOfWork, *, lot_id: int, actor: str) -> draws.LotView:
    """Staff draw a committed lot now (the lots page, the API); Conflict for a lot a step draws."""
    lot = uow.lots.get_or_raise(Lot, lot_id)
    step = drawing_steps(uow, event_id=lot.event_id).get(lot.purpose)
    if step is not None and lot.seed_hex is None:
        raise Conflict(
            _("Lot %(lot)s (%(purpose)s) is %(step)s: it cannot be drawn by hand.")
            % {"lot": lot.id, "purpose": lot.purpose, "step": step}
        )
    return draws.reveal_lot(uow, lot_id=lot_id, actor=actor)
