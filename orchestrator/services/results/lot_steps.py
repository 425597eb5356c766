"""Lots that a step of the event draws, not staff by hand (docs/lots.md, "When each lot is committed and
drawn"): a pool's pairing-number lot is drawn when its stage starts (``setup.stage_start``), a tie-break (g)
lot when its stage closes (``standings.close_stage``; on a closed stage, by "Draw the lots" on its closing
page). Drawing one earlier by hand would publish its outcome before the step it belongs to.

Lots are told apart by purpose, from the two purpose helpers (``pairing_lots.pairing_lot_purpose``,
``tie_lots.lot_purpose``): the lots page shows such a lot's step instead of "Draw now", and a draw by hand
(the page's form, the API) is refused with a Conflict naming the step.

A lot staff commit by hand (``commit_by_hand``) may not take a purpose that a procedure draws (pairing
numbers, a Swiss stage's initial colour, a tie-break, a board prize, an Armageddon category or colour
choice: ``RESERVED``), whatever its case and spacing, and never replaces a lot of the same purpose that is
committed or drawn: staff cannot draw again until they like the outcome (docs/lots.md, "Lots by hand").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from orchestrator.adapters.tables import Lot, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import Conflict
from orchestrator.services.results.tie_lots import lot_purpose as tie_lot_purpose
from orchestrator.services.setup import draws
from orchestrator.services.setup.pairing_lots import colour_lot_purpose, pairing_lot_purpose
from orchestrator.translation import N_
from orchestrator.translation import gettext as _

# The purposes the procedures draw (compared on ``draws.purpose_key``: lower case, single spaces), with the
# procedure in words. Each helper that makes such a purpose is named beside it.
RESERVED: tuple[tuple[re.Pattern[str], str], ...] = (
    # pairing_lots.pairing_lot_purpose
    (re.compile(r".* pool \S+ pairing numbers"), N_("the start of its stage (a pool's pairing numbers)")),
    # pairing_lots.colour_lot_purpose
    (re.compile(r".* initial colour"), N_("the start of its Swiss stage (the initial colour)")),
    # tie_lots.lot_purpose; the standings report's recomputed tie-break order
    (re.compile(r"tie-break lot\b.*"), N_("the closing of its stage (a tie-break lot)")),
    # read.board_prizes.lot_purpose
    (re.compile(r"board prize .*"), N_("the board-prize page (a tie for a board prize)")),
    # playoff.storage.lot_purpose
    (
        re.compile(r"armageddon (category|colour choice)\b.*"),
        N_("its duel's Armageddon (category or colour choice)"),
    ),
)


def reserved_for(purpose: str) -> str | None:
    """The procedure that draws lots of ``purpose``, in words; None for a purpose staff may use by hand."""
    key = draws.purpose_key(purpose)
    return next((owner for pattern, owner in RESERVED if pattern.fullmatch(key)), None)


def commit_by_hand(
    uow: UnitOfWork, *, event_id: int, purpose: str, candidates: Sequence[str], kind: str, actor: str
) -> int:
    """Commit a lot staff asked for (the lots page, the API): Conflict when a procedure draws lots of that
    purpose, or when a lot of the same purpose is committed or drawn already (a void one does not count:
    it was never drawn)."""
    cleaned, names, _kind = draws.checked_lot_input(purpose, candidates, kind)
    if (owner := reserved_for(cleaned)) is not None:
        raise Conflict(
            _("The purpose %(purpose)r is drawn by %(owner)s, never by hand: say what this lot decides.")
            % {"purpose": cleaned, "owner": _(owner)}
        )
    for lot in uow.lots.lots_of(event_id):
        void = lot.seed_hex is not None and lot.outcome is None
        if draws.same_purpose(lot.purpose, cleaned) and not void:
            state = _("drawn") if lot.seed_hex is not None else _("committed")
            raise Conflict(
                _("Lot %(lot)s (%(purpose)s) is already %(state)s: a lot by hand never replaces it.")
                % {"lot": lot.id, "purpose": lot.purpose, "state": state}
            )
    return draws.commit_lot(uow, event_id=event_id, purpose=cleaned, candidates=names, kind=kind, actor=actor)


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
