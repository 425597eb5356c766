"""One URL scheme for an event's staff pages: ``/staff/events/{slug}/...``. The numeric-id URLs of earlier
versions still work: a GET answers with a permanent redirect to the slug's URL, a form posted to one is
handled as if posted to the slug's (docs/staff-guide.md, "Addresses")."""

from __future__ import annotations

from fastapi import Request
from starlette.responses import RedirectResponse

from orchestrator.services.read.dashboard import event_slug_of


def event_of_key(request: Request, key: str) -> tuple[int, str]:
    """The (id, slug) of the event named by ``key`` (its slug, or its id in an old URL); 404 otherwise."""
    with request.app.state.uow_factory() as uow:
        slug = event_slug_of(uow, key)
        event = uow.events.get_by_slug(slug)
        return (event.id or 0) if event else 0, slug


def slug_redirect(request: Request, key: str, slug: str) -> RedirectResponse | None:
    """A redirect from an old numeric URL to the slug's, keeping the query; None when ``key`` is the slug."""
    if key == slug:
        return None
    path = request.url.path.replace(f"/events/{key}", f"/events/{slug}", 1)
    query = f"?{request.url.query}" if request.url.query else ""
    return RedirectResponse(path + query, status_code=308)
