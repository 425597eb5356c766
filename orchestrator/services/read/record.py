"""The public record of an event as spectators read it (docs/record.md): newest entry first, paged.

Every entry is shown with its hash and its link to the entry before, so anyone can check the chain
(``olympiad verify-record``). An Armageddon nomination stays sealed until the Armageddon leaves its
nomination phase (docs/rules.md §5): until then its payload is withheld and only its hash is shown.
Payloads hold public data only (``RecordRepository.append_change`` writes nothing else).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from orchestrator.adapters.repo_record import time_text
from orchestrator.adapters.tables import Armageddon, ArmageddonStatus, RecordEntry
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import record
from orchestrator.errors import NotFound, ValidationFailed
from orchestrator.services.definitions import definition_or_none
from orchestrator.services.read.context import EventRef, ref_event
from orchestrator.translation import gettext as _

PER_PAGE = 50
PROCEDURE = "olympiad-record-v1"  # the canonical form of docs/record.md; bump if it ever changes
SEALED_KINDS = frozenset({"armageddon.nominate"})


@dataclass(frozen=True, slots=True)
class RecordItem:
    """One entry as published: ``payload`` is None while it is sealed."""

    seq: int
    at: datetime
    kind: str
    payload: dict[str, Any] | None
    prev: str
    hash: str

    @property
    def sealed(self) -> bool:
        return self.payload is None

    def public(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "at": time_text(self.at),
            "kind": self.kind,
            "payload": self.payload,
            "sealed": self.sealed,
            "prev": self.prev,
            "hash": self.hash,
        }


@dataclass(frozen=True, slots=True)
class RecordView:
    event: EventRef
    head: str
    count: int
    page: int
    pages: int
    entries: tuple[RecordItem, ...]
    topics: tuple[str, ...]

    def as_json(self) -> bytes:
        slug = self.event.slug
        document = {
            "event": slug,
            "procedure": PROCEDURE,
            "head": self.head,
            "count": self.count,
            "page": self.page,
            "pages": self.pages,
            "per_page": PER_PAGE,
            "next": f"/api/v1/events/{slug}/record?page={self.page + 1}" if self.page < self.pages else None,
            "entries": [item.public() for item in self.entries],
        }
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def record_view(uow: UnitOfWork, *, slug: str, page: int = 1) -> RecordView:
    """One page of the event's record, newest first; NotFound for an unknown event or a page past the end."""
    event = uow.read.visible_event(slug)
    if event is None or event.id is None:
        raise NotFound(_("There is no event %(slug)r.") % {"slug": slug})
    if page < 1:
        raise ValidationFailed([_("page: a whole number from 1")])
    count = uow.record.count(event.id)
    pages = max(1, -(-count // PER_PAGE))
    if page > pages:
        raise NotFound(
            _("The record has %(pages)d page(s); there is no page %(page)d.") % {"pages": pages, "page": page}
        )
    rows = uow.record.newest_first(event.id, offset=(page - 1) * PER_PAGE, limit=PER_PAGE)
    last = uow.record.last(event.id)
    definition = definition_or_none(event)
    return RecordView(
        ref_event(event, definition.timezone if definition else "UTC"),
        last.hash if last else record.GENESIS,
        count,
        page,
        pages,
        tuple(_item(uow, row) for row in rows),
        (f"event:{slug}",),  # a result announces its pool and match only: the page cache keeps it 5 s at most
    )


def _item(uow: UnitOfWork, row: RecordEntry) -> RecordItem:
    payload: dict[str, Any] | None = dict(row.payload)
    if row.kind in SEALED_KINDS and _still_sealed(uow, row.payload.get("armageddon")):
        payload = None
    return RecordItem(row.seq, row.recorded_at, row.kind, payload, row.prev, row.hash)


def _still_sealed(uow: UnitOfWork, armageddon_id: object) -> bool:
    """Sealed while the Armageddon still takes nominations and its deadline has not passed."""
    arm = uow.playoff.get(Armageddon, armageddon_id) if isinstance(armageddon_id, int) else None
    if arm is None or arm.status != ArmageddonStatus.NOMINATING.value:
        return False
    return arm.deadline_at is None or utcnow() < arm.deadline_at


def head_hash(uow: UnitOfWork, *, event_id: int) -> str:
    """The hash of the event's newest entry (``GENESIS`` before any): printed on the event page and in
    every pairing e-mail."""
    last = uow.record.last(event_id)
    return last.hash if last else record.GENESIS
