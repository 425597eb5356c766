"""The staff navigation on every staff page: the page's event is found from its path (an event slug, or
the stage, round, match, pool, duel or team it is about), so no route has to pass it.

``nav_for(request)`` runs from the template context (web/app.py) once per rendered staff page: one short
read after the route's own unit of work has committed.
"""

from __future__ import annotations

import logging

from fastapi import Request

from orchestrator.adapters.tables import Role
from orchestrator.domain.names import text_problem
from orchestrator.services.read.dashboard import StaffNav, staff_nav_of
from orchestrator.web.http.validation import id_number

log = logging.getLogger(__name__)

STAFF_ROLES = (Role.OWNER, Role.ADMIN, Role.ARBITER)
_KINDS = {
    "event_id": "event",
    "stage_id": "stage",
    "round_id": "round",
    "match_id": "match",
    "pool_id": "pool",
    "duel_id": "duel",
    "team_id": "team",
}


def nav_for(request: Request) -> StaffNav | None:
    """The navigation of the staff page being rendered, or None (not a staff page, no event found)."""
    if not request.url.path.startswith("/staff/"):
        return None
    user = getattr(request.state, "user", None)
    if user is None or user.role not in STAFF_ROLES:
        return None
    params = request.path_params
    slug = params.get("slug")
    if isinstance(slug, str) and text_problem(slug):
        slug = None  # a NUL the page refused with a 404: PostgreSQL would refuse the read too
    kind, entity_id = "", 0
    for name, what in _KINDS.items():
        value = params.get(name)
        number = value if isinstance(value, int) else id_number(value) if isinstance(value, str) else None
        if number is not None:
            kind, entity_id = what, number
            break
    if not slug and not kind:
        return None
    try:
        with request.app.state.uow_factory() as uow:
            return staff_nav_of(uow, slug=slug, kind=kind, entity_id=entity_id)
    except Exception:  # the navigation never breaks a page (e.g. an error page while the database is down)
        log.exception("staff navigation: could not read the page's event")
        return None
