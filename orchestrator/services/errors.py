"""Errors that use cases raise and the web maps to HTTP codes (routes only translate them).

Messages are written for the person at the screen and never contain secrets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime


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
        parts = [
            f"{c.entity} {c.entity_id} was changed by someone else ({c.changed_by}, "
            f"{c.changed_at:%Y-%m-%d %H:%M} UTC): {c.field} is now {c.value}"
            for c in self.current
        ]
        super().__init__("; ".join(parts) or "changed by someone else")


class ValidationFailed(ServiceError):
    """Input refused; ``problems`` lists every problem found, not just the first."""

    status_code = 422

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems) or "invalid input")


class LoginRefused(ServiceError):
    """Wrong username or password, or a disabled account."""

    status_code = 401


class LoginThrottled(ServiceError):
    """Too many failed logins recently: wait ``retry_after_s`` (docs/security.md, login throttling)."""

    status_code = 429

    def __init__(self, message: str, *, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s
