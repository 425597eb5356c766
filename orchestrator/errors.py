"""Errors that use cases raise and the web maps to HTTP codes (routes only translate them).

Messages are written for the person at the screen and never contain secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from orchestrator import translation
from orchestrator.translation import gettext as _


class ServiceError(Exception):
    """Base class; ``status_code`` is the HTTP code the web answers with."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(ServiceError):
    status_code = 404


class Forbidden(ServiceError):
    status_code = 403


class NotAuthenticated(ServiceError):
    status_code = 401


class Conflict(ServiceError):
    status_code = 409


@dataclass(frozen=True, slots=True)
class CurrentValue:
    """What is stored now, and who put it there (shown next to the user's own value)."""

    entity: str
    entity_id: int
    field: str
    value: str
    version: int
    changed_by: str
    changed_at: datetime


class StaleEdit(Conflict):
    """Someone else changed the row since it was read: nothing was saved (docs/rules.md §6, docs/rules.md
    §6)."""

    def __init__(self, current: Iterable[CurrentValue]) -> None:
        self.current = tuple(current)
        # The places that raise this (repositories, boards) do not know the event, hence the UTC time,
        # written as the reader's language writes dates (as ``times.said`` does for a zone).
        parts = [
            _("%(entity)s %(id)s was changed by someone else (%(who)s, %(when)s): %(field)s is now %(value)s")
            % {
                "entity": c.entity,
                "id": c.entity_id,
                "who": c.changed_by,
                "when": f"{translation.date_text(_utc(c.changed_at), with_day=False)} UTC",
                "field": c.field,
                "value": c.value,
            }
            for c in self.current
        ]
        super().__init__("; ".join(parts) or _("changed by someone else"))


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class ValidationFailed(ServiceError):
    """Input refused; ``problems`` lists every problem found, not just the first."""

    status_code = 422

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems) or _("invalid input"))


class LoginRefused(ServiceError):
    """Wrong username or password, or a disabled account."""

    status_code = 401


class LoginThrottled(ServiceError):
    """Too many failed logins recently: wait ``retry_after_s`` (docs/security.md, login throttling)."""

    status_code = 429

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
