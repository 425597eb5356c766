"""The drawing of lots between players tied for a board prize (Olympiad 2026 regulations Appendix 2.III
TB2; docs/board-prizes.md, docs/lots.md).

Two steps, as every lot: ``commit`` publishes the SHA-256 of a fresh secret seed for the first tied group
of the board that has no lot yet (the candidates are the group's players), ``draw`` reveals the seed and
the order it gives. Both are audited (``lot.commit``, ``lot.draw``) and announced, so the board-prize page
is built again.
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services.read import board_prizes
from orchestrator.services.read.context import EventData
from orchestrator.services.setup import draws
from orchestrator.translation import gettext as _

ACTIONS = ("commit", "draw")


@dataclass(frozen=True, slots=True)
class BoardLotOutcome:
    action: str
    lot: draws.LotView


def board_prize_lot(
    uow: UnitOfWork, *, slug: str, stage_key: str, board: int, action: str, actor: str
) -> BoardLotOutcome:
    """Commit the lot of the board's first undecided tie, or draw the board's committed lot."""
    if action not in ACTIONS:
        raise ValidationFailed([_("action: 'commit' or 'draw', not %(action)r") % {"action": action[:20]}])
    data = EventData(uow, slug)
    stage = board_prizes.prize_stage(data, stage_key)
    # One staff member at a time per stage: a second commit waits and then finds the first one's lot.
    uow.locks.lock_pools(p.id or 0 for p in data.pools if p.stage_id == stage.id)
    view = board_prizes.board_prizes_view(uow, slug=slug, stage_key=stage_key)
    section = next((s for s in view.boards if s.board == board), None)
    if section is None:
        raise NotFound(
            _("Board %(board)s has no players in %(stage)s.") % {"board": board, "stage": view.stage_name}
        )
    sealed = [lot for lot in section.lots if not lot.revealed]
    if action == "draw":
        if not sealed:
            raise Conflict(
                _("%(section)s has no committed lot to draw; commit one first.") % {"section": section.label}
            )
        return BoardLotOutcome(action, draws.reveal_lot(uow, lot_id=sealed[0].id, actor=actor))
    if sealed:
        raise Conflict(_("%(section)s already has a committed lot: draw it.") % {"section": section.label})
    tied = [line for line in section.lines if line.tied]
    if not tied:
        raise Conflict(_("%(section)s has no tie that needs a lot.") % {"section": section.label})
    first = tied[0].place
    group = [line for line in tied if line.place == first]
    players = {p.id: p for p in uow.read.players_of_teams([line.team.id for line in group])}
    candidates = [board_prizes.lot_candidate(players[line.player_id], line.team.name) for line in group]
    lot_id = draws.commit_lot(
        uow,
        event_id=data.id,
        purpose=board_prizes.lot_purpose(stage, board),
        candidates=candidates,
        actor=actor,
        kind="order",
        reason=f"{section.label}: equal performance rating and games (place {first})",
    )
    return BoardLotOutcome(action, draws.get_lot(uow, lot_id=lot_id))
