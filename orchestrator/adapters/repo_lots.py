"""Drawn lots (``uow.lots``): an event's lots by purpose or id.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository, known_ids
from orchestrator.adapters.tables import Lot


class LotRepository(Repository):
    """Drawn lots (``uow.lots``): an event's lots by purpose or id."""

    def lots_with_purpose(self, event_id: int, purpose: str) -> Sequence[Lot]:
        """An event's lots of one purpose (a pool's pairing numbers, its tie-break), oldest first."""
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id, Lot.purpose == purpose).order_by(col(Lot.id))
        ).all()

    def latest_lot(self, event_id: int, purpose: str) -> Lot | None:
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id, Lot.purpose == purpose).order_by(col(Lot.id).desc())
        ).first()

    def lots_by_id(self, lot_ids: Iterable[int | None]) -> dict[int, Lot]:
        ids = known_ids(lot_ids)
        if not ids:
            return {}
        return {lot.id or 0: lot for lot in self.session.exec(select(Lot).where(col(Lot.id).in_(ids))).all()}

    def lots_with_purposes(self, event_id: int, purposes: Iterable[str]) -> dict[str, Lot]:
        """The latest lot of each purpose (a purpose names one duel's lot)."""
        wanted = sorted(set(purposes))
        if not wanted:
            return {}
        rows = self.session.exec(
            select(Lot).where(Lot.event_id == event_id, col(Lot.purpose).in_(wanted)).order_by(col(Lot.id))
        ).all()
        return {lot.purpose: lot for lot in rows}

    def lots_of(self, event_id: int) -> Sequence[Lot]:
        return self.session.exec(
            select(Lot).where(Lot.event_id == event_id).order_by(col(Lot.committed_at), col(Lot.id))
        ).all()
