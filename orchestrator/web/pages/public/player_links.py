"""Player account links (OAuth authorization code with PKCE), the player's side (public).

- ``GET /link/{token}``: a player's invitation link; shows whom it links and sends them to the game
  server's ``/oauth`` page.
- ``GET /link/callback``: the game server's redirect back; the token is exchanged and stored
  encrypted (services/gameserver/player_links.py). Tokens never reach a page or a log line.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from orchestrator.services.gameserver import player_links
from orchestrator.translation import gettext as _
from orchestrator.web.auth import allow_public
from orchestrator.web.deps import get_settings, get_uow_factory, in_unit_of_work, render

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
    start = in_unit_of_work(request, player_links.start_link, token=token, settings=settings)
    return render(request, "links/start.html", {"start": start, "gameserver_url": settings.gameserver_url})
