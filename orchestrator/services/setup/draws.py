"""Draws by lot, persisted: commit to a fresh secret seed, publish its SHA-256, reveal it after
(docs/rules.md §7).

The procedure (candidates in canonical order, HMAC-SHA256 stream, Fisher–Yates) is the pure
``orchestrator.domain.lots`` one described in docs/lots.md, so anyone can recompute an outcome from the
published purpose, candidates and seed. Between commit and reveal the seed sits in ``lot.sealed_seed_hex``,
which no page, API answer, log line or live message ever shows; the reveal moves it to ``seed_hex``.
Who ran the draw and when goes to the audit log.

A lot that is no longer needed before its draw (pools published again, a tie that changed) is *void*: its
seed is published without an outcome (``void_lot``), so anyone can see what it would have drawn, and it can
never be drawn (docs/lots.md, "When each lot is committed and drawn").
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from orchestrator.adapters.tables import Event, Lot
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import lots
from orchestrator.domain.names import MAX_PLAYER_NAME, name_problem
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services import live
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.times import said
from orchestrator.translation import gettext as _

SEED_BYTES = 32
MAX_LOT_PURPOSE = 120  # the column's size


@dataclass(frozen=True, slots=True)
class LotView:
    """A lot as anyone may see it: the seed and the outcome only once revealed."""

    id: int
    event_id: int
    purpose: str
    kind: str
    candidates: tuple[str, ...]
    commitment: str
    seed_hex: str | None
    outcome: tuple[str, ...] | None
    drawn_by: str
    committed_at: datetime
    revealed_at: datetime | None
    drawn_when: str | None = None  # a sealed lot a step draws: that step (results.lot_steps)
    drawable_at: datetime | None = None  # when its publication delay ends (docs/lots.md)

    @property
    def revealed(self) -> bool:
        """Drawn or void: the seed is public."""
        return self.seed_hex is not None

    @property
    def void(self) -> bool:
        """Set aside without a draw: the seed is public, there is no outcome."""
        return self.seed_hex is not None and self.outcome is None

    def verifies(self) -> bool:
        """Recompute the outcome from the revealed seed (False before the reveal or on any mismatch)."""
        if self.seed_hex is None or self.outcome is None:
            return False
        record = lots.Lot(
            self.purpose,
            lots.LotKind(self.kind),
            self.candidates,
            self.commitment,
            self.seed_hex,
            self.outcome,
        )
        return lots.check_lot(record)

    def public(self) -> dict[str, Any]:
        """JSON for spectators: commitment always, seed and outcome only after the reveal."""
        return {
            "id": self.id,
            "purpose": self.purpose,
            "kind": self.kind,
            "candidates": list(self.candidates),
            "commitment": self.commitment,
            "seed_hex": self.seed_hex,
            "outcome": list(self.outcome) if self.outcome is not None else None,
            "drawn_by": self.drawn_by,
            "committed_at": self.committed_at.isoformat(),  # when the commitment became public
            "drawable_at": self.drawable_at.isoformat() if self.drawable_at else None,
            "revealed_at": self.revealed_at.isoformat() if self.revealed_at else None,
            "void": self.void,
            "procedure": lots.PROCEDURE,
        }


def view_of(lot: Lot) -> LotView:
    assert lot.id is not None
    revealed = lot.seed_hex is not None
    return LotView(
        id=lot.id,
        event_id=lot.event_id,
        purpose=lot.purpose,
        kind=lot.kind,
        candidates=tuple(str(c) for c in lot.candidates),
        commitment=lot.commitment,
        seed_hex=lot.seed_hex if revealed else None,
        outcome=tuple(str(c) for c in lot.outcome) if revealed and lot.outcome is not None else None,
        drawn_by=lot.drawn_by,
        committed_at=lot.committed_at,
        revealed_at=lot.revealed_at,
    )


def _checked(purpose: str, candidates: Sequence[str], kind: str) -> tuple[str, tuple[str, ...], lots.LotKind]:
    problems: list[str] = []
    purpose = purpose.strip()
    if not purpose:
        problems.append(_("purpose: say what the lot decides (e.g. 'Order of the team photos')"))
    elif problem := name_problem(purpose, what="purpose", limit=MAX_LOT_PURPOSE):
        problems.append(problem)
    cleaned = tuple(c.strip() for c in candidates if c.strip())
    # Candidates are teams, players or categories: names, one line each (docs/input-limits.md).
    problems += [
        _("candidates: %(problem)s") % {"problem": problem}
        for c in cleaned
        if (problem := name_problem(c, what=f"candidate {c[:40]!r}", limit=MAX_PLAYER_NAME))
    ]
    if len(cleaned) < 2:
        problems.append(_("candidates: a lot needs at least two candidates"))
    else:
        try:
            lots.canonical_order(cleaned)
        except lots.LotError as error:
            problems.append(_("candidates: %(problem)s") % {"problem": error})
    lot_kind = lots.LotKind.ORDER
    try:
        lot_kind = lots.LotKind(kind)
    except ValueError:
        problems.append(
            _("kind: 'order' (a full order) or 'one' (one candidate), not %(kind)r") % {"kind": kind}
        )
    if problems:
        raise ValidationFailed(problems)
    return purpose, cleaned, lot_kind


def checked_lot_input(
    purpose: str, candidates: Sequence[str], kind: str
) -> tuple[str, tuple[str, ...], lots.LotKind]:
    """The purpose, candidates and kind of a lot, cleaned; ValidationFailed naming every problem."""
    return _checked(purpose, candidates, kind)


def same_purpose(first: str, second: str) -> bool:
    """Whether two purposes name the same thing, whatever their case and spacing."""
    return purpose_key(first) == purpose_key(second)


def purpose_key(purpose: str) -> str:
    """A purpose compared without case and with its spaces collapsed."""
    return " ".join(purpose.split()).casefold()


def commit_lot(
    uow: UnitOfWork,
    *,
    event_id: int,
    purpose: str,
    candidates: Sequence[str],
    actor: str,
    kind: str = "order",
    seed: bytes | None = None,
    reason: str | None = None,
) -> int:
    """Commit to a fresh secret seed and publish only its SHA-256 (the draw happens at ``reveal_lot``).

    ``seed`` is for replays and tests only; staff draws always take ``secrets.token_bytes(32)``. ``reason``
    goes to the audit entry (why the lot was committed at this step).
    """
    event = uow.events.get_or_raise(Event, event_id)
    purpose, cleaned, lot_kind = _checked(purpose, candidates, kind)
    secret = seed if seed is not None else secrets.token_bytes(SEED_BYTES)
    if len(secret) < lots.MIN_SEED_BYTES:
        raise ValidationFailed([_("seed: at least %(count)d bytes") % {"count": lots.MIN_SEED_BYTES}])
    lot = uow.lots.insert(
        Lot(
            event_id=event_id,
            purpose=purpose,
            kind=lot_kind.value,
            commitment=lots.commitment(secret),
            sealed_seed_hex=secret.hex(),
            candidates=list(cleaned),
            drawn_by=actor,
            committed_at=utcnow(),
        )
    )
    assert lot.id is not None
    uow.audit.change(
        lot,
        "lot.commit",
        actor=actor,
        event_id=event_id,
        new={
            "purpose": purpose,
            "kind": lot_kind.value,
            "candidates": list(cleaned),
            "commitment": lot.commitment,
        },
        reason=reason,
    )
    live.announce(uow, f"event:{event.slug}", kind="lot", lot_id=lot.id)
    return lot.id


def publication_delay_s(uow: UnitOfWork, event_id: int) -> int:
    """The event's ``lot_publication_delay`` in seconds: how long each commitment is public before its lot
    may be drawn (docs/lots.md; 0 when the event file sets none, as the demo runs)."""
    definition = definition_or_none(uow.events.get_or_raise(Event, event_id))
    return definition.lot_publication_delay_s if definition else 0


def drawable_from(uow: UnitOfWork, lot: Lot) -> datetime:
    """When the lot may be drawn: its commitment has been public for the event's ``lot_publication_delay``
    (docs/lots.md; 0 when the event file sets none)."""
    return lot.committed_at + timedelta(seconds=publication_delay_s(uow, lot.event_id))


def refuse_early_draw(uow: UnitOfWork, lot: Lot, *, now: datetime | None = None) -> None:
    """Conflict naming when the lot becomes drawable, while its commitment has not been public long
    enough. Without a delay nothing is compared (a replay's ``now`` may be earlier than the commitment)."""
    definition = definition_or_none(uow.events.get_or_raise(Event, lot.event_id))
    if definition is None or definition.lot_publication_delay_s <= 0:
        return
    ready = lot.committed_at + timedelta(seconds=definition.lot_publication_delay_s)
    if (now or utcnow()) < ready:
        when = said(ready, definition.timezone)
        raise Conflict(
            _(
                "lot %(id)s (%(purpose)s) cannot be drawn yet: its commitment must be public for the event's "
                "lot publication delay first; it can be drawn from %(when)s"
            )
            % {"id": lot.id, "purpose": lot.purpose, "when": when}
        )


def reveal_lot(uow: UnitOfWork, *, lot_id: int, actor: str, now: datetime | None = None) -> LotView:
    """Run the committed draw: compute the outcome from the sealed seed, publish seed and outcome. Refused
    until the commitment has been public for the event's lot publication delay (``refuse_early_draw``)."""
    lot = uow.lots.get_or_raise(Lot, lot_id)
    seed = _sealed_seed(uow, lot)
    refuse_early_draw(uow, lot, now=now)
    record = lots.run_lot(
        seed, [str(c) for c in lot.candidates], purpose=lot.purpose, kind=lots.LotKind(lot.kind)
    )
    return _publish_seed(uow, lot, seed, outcome=list(record.outcome), action="lot.draw", actor=actor)


def void_lot(uow: UnitOfWork, *, lot_id: int, actor: str, reason: str) -> LotView:
    """Set a committed lot aside without drawing it: its seed is published with no outcome, so anyone can
    see what it would have drawn, and it can never be drawn (a superseded pairing or tie-break lot)."""
    lot = uow.lots.get_or_raise(Lot, lot_id)
    seed = _sealed_seed(uow, lot)
    return _publish_seed(uow, lot, seed, outcome=None, action="lot.void", actor=actor, reason=reason)


def _sealed_seed(uow: UnitOfWork, lot: Lot) -> bytes:
    """The lot's sealed seed; Conflict when it was drawn or set aside already."""
    if lot.seed_hex is not None:
        done = (
            _("lot %(id)s (%(purpose)s) was already set aside (void) on %(when)s")
            if lot.outcome is None
            else _("lot %(id)s (%(purpose)s) was already drawn on %(when)s")
        )
        definition = definition_or_none(uow.events.get_or_raise(Event, lot.event_id))
        when = said(lot.revealed_at or utcnow(), definition.timezone if definition else None)
        raise Conflict(done % {"id": lot.id, "purpose": lot.purpose, "when": when})
    if lot.sealed_seed_hex is None:
        raise Conflict(_("lot %(id)s has no sealed seed; commit a new lot") % {"id": lot.id})
    seed = bytes.fromhex(lot.sealed_seed_hex)
    if lots.commitment(seed) != lot.commitment:  # the stored seed is not the committed one: refuse
        raise Conflict(
            _("lot %(id)s: the sealed seed does not match the published commitment") % {"id": lot.id}
        )
    return seed


def _publish_seed(
    uow: UnitOfWork,
    lot: Lot,
    seed: bytes,
    *,
    outcome: list[str] | None,
    action: str,
    actor: str,
    reason: str | None = None,
) -> LotView:
    """Move the sealed seed to the public one with the outcome (None: void), audited and announced."""
    now = utcnow()
    lot.seed_hex = seed.hex()
    lot.sealed_seed_hex = None
    lot.outcome = outcome
    lot.revealed_at = now
    uow.lots.insert(lot)
    new: dict[str, object] = {"purpose": lot.purpose, "seed_hex": lot.seed_hex}
    if outcome is not None:
        new["outcome"] = outcome
    uow.audit.change(lot, action, actor=actor, event_id=lot.event_id, new=new, reason=reason, at=now)
    event = uow.events.get_or_raise(Event, lot.event_id)
    live.announce(uow, f"event:{event.slug}", kind="lot", lot_id=lot.id)
    return view_of(lot)


def list_lots(uow: UnitOfWork, *, event_id: int) -> list[LotView]:
    """Every lot of an event in the order they were committed (sealed ones without seed or outcome), each
    with when it became public and from when it may be drawn (docs/lots.md)."""
    delay = timedelta(seconds=publication_delay_s(uow, event_id))
    return [replace(view_of(lot), drawable_at=lot.committed_at + delay) for lot in uow.lots.lots_of(event_id)]


def get_lot(uow: UnitOfWork, *, lot_id: int) -> LotView:
    lot = uow.lots.get_or_raise(Lot, lot_id)
    return replace(view_of(lot), drawable_at=drawable_from(uow, lot))
