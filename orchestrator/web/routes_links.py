"""Player account links (OAuth authorization code with PKCE) and the staff page of missing links.

- ``GET /link/{token}`` (public): a player's invitation link; shows whom it links and sends them to the game
  server's ``/oauth`` page.
- ``GET /link/callback`` (public): the game server's redirect back; the token is exchanged and stored
  encrypted (services/gameserver/player_links.py). Tokens never reach a page or a log line.
- ``GET /staff/events/{slug}/links`` (staff): players whose link is missing or refused, each with the
  invitation link to send them, and rounds whose games could not be created (which player must re-link).
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from orchestrator.adapters.tables import Event
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.errors import NotFound
from orchestrator.services.gameserver import player_links
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public, require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render
from orchestrator.web.event_keys import event_of_key, slug_redirect

router = APIRouter()


@router.get("/link/callback", dependencies=[allow_public()])
def link_callback(request: Request, code: str = "", state: str = "", error: str = "") -> Response:
    settings = get_settings(request)
    if error:
        return render(
            request,
            "links/refused.html",
            {"reason": _("The game server did not grant access. Open your link again to retry.")},
            status_code=400,
        )
    # app.state.gameserver_http: an httpx.Client for the game server, set by tests (default: a new client).
    http = getattr(request.app.state, "gameserver_http", None)
    with get_uow_factory(request)() as uow:
        link = player_links.finish_link(uow, code=code, state=state, settings=settings, http=http)
        account = link.linked_account
    return render(request, "links/done.html", {"account": account})


@router.get("/link/{token}", dependencies=[allow_public()])
def link_start(request: Request, token: str) -> Response:
    settings = get_settings(request)
    with get_uow_factory(request)() as uow:
        start = player_links.start_link(uow, token=token, settings=settings)
    return render(request, "links/start.html", {"start": start, "gameserver_url": settings.gameserver_url})


@router.get("/staff/events/{slug}/links")
def staff_links(request: Request, slug: str, user: AuthUser = require_staff()) -> Response:
    event_id, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return moved
    settings = get_settings(request)
    base = settings.public_base_url.rstrip("/")
    with get_uow_factory(request)() as uow:
        event = uow.events.get(Event, event_id)
        if event is None:
            raise NotFound(_("event %(id)s does not exist") % {"id": event_id})
        rows = player_links.players_needing_links(uow, event_id=event_id)
        players = [
            {
                "name": row.player.name,
                "account": row.player.account,
                "team": row.team.name,
                "status": row.status,
                "updated_at": row.updated_at,
                "link": base + player_links.link_path(settings, player_id=row.player.id or 0),
            }
            for row in rows
        ]
        problems = [
            {"stage": stage.name, "round": rnd.number, "status": bulk.status, "error": bulk.error or ""}
            for stage, rnd, bulk in uow.gameserver.bulk_problems(event_id)
        ]
        event_view = {"id": event.id, "name": event.name, "slug": event.slug}
    return render(
        request, "links/staff.html", {"event": event_view, "players": players, "problems": problems}
    )
