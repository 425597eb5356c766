"""The TRF-2026 download of a pool, a Swiss stage's included (docs/swiss.md, "The server").

A Swiss stage's one pool is written as its pairing file (``domain.trf.swiss.export_trf``): the file
FIDE's checker pairs the next round from, with byes, absences, withdrawals and late entries. Any other
pool is ``results.exports.pool_trf`` (its round-robin results and tie-breaks).
"""

from __future__ import annotations

from orchestrator.adapters.tables import Pool, Stage, StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.errors import NotFound
from orchestrator.services.results import exports
from orchestrator.services.swiss.state import swiss_state_of
from orchestrator.translation import gettext as _


def pool_trf(uow: UnitOfWork, *, pool_id: int) -> str:
    """TRF-2026 of a pool (module docstring)."""
    pool = uow.rounds.get(Pool, pool_id)
    if pool is None:
        raise NotFound(_("pool %(pool)s does not exist") % {"pool": pool_id})
    stage = uow.events.get_or_raise(Stage, pool.stage_id)
    if stage.kind == StageKind.SWISS.value:
        return export_trf(swiss_state_of(uow, stage.id or 0).state)
    return exports.pool_trf(uow, pool_id=pool_id)
