"""The audit entry of a change a use case has just made (docs/architecture.md, "The unit of work").

An entry names its row by table and id (``uow.audit.change``): writing the queued rows first gives a new row
its id and puts the change in the database before the entry that records it.
"""

from __future__ import annotations

from typing import Any

from orchestrator.adapters.repositories import TableRow
from orchestrator.adapters.uow import UnitOfWork


def flush_and_audit(uow: UnitOfWork, row: TableRow, action: str, *, actor: str, **entry: Any) -> None:
    """Write what the unit of work has queued, then queue the audit entry of the change to ``row``;
    ``entry``: its ``event_id``, ``old``, ``new`` and ``reason``, as ``uow.audit.change`` takes them."""
    uow.flush()
    uow.audit.change(row, action, actor=actor, **entry)
