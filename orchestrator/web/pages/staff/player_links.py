"""The staff side of player account links (the player's side: web/pages/public/player_links.py).

- ``GET /staff/events/{slug}/links``: players whose link is missing or refused, each with the
  invitation link to send them, and rounds whose games could not be created (which player must re-link).
- ``GET``/``POST /staff/events/{slug}/players/{player_id}/email``: set or clear a player's address
  and the language of their "link your account" mail (services/notify/preferences.py, the API's service).
"""

from __future__ import annotations

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response

from orchestrator.adapters.tables import Event, Player, Team
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.errors import NotFound, StaleEdit, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.gameserver import player_links
from orchestrator.services.notify import preferences
from orchestrator.translation import gettext as _
from orchestrator.web.auth import require_staff
from orchestrator.web.deps import get_settings, get_uow_factory, render
from orchestrator.web.event_keys import event_of_key, slug_redirect
from orchestrator.web.http.validation import id_number

router = APIRouter()


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
                "email": row.player.email,
                "language": row.player.language,
                "edit": f"/staff/events/{slug}/players/{row.player.id}/email",
                "link": base + player_links.link_path(settings, player_id=row.player.id or 0),
            }
            for row in rows
        ]
        failed_rounds = [
            {"stage": stage.name, "round": rnd.number, "status": bulk.status, "error": bulk.error or ""}
            for stage, rnd, bulk in uow.rounds.bulk_problems(event_id)
        ]
        event_view = {"id": event.id, "name": event.name, "slug": event.slug}
        notice = _saved_notice(uow, event_id, request.query_params.get("saved", ""))
    return render(
        request,
        "links/staff.html",
        {"event": event_view, "players": players, "failed_rounds": failed_rounds, "notice": notice},
    )


def _saved_notice(uow: UnitOfWork, event_id: int, saved: str) -> str | None:
    """The notice after the e-mail form, naming the player (by id: a link cannot make the page say more)."""
    number = id_number(saved)
    player = uow.teams.get(Player, number) if number is not None else None
    if player is None or player.event_id != event_id:
        return None
    return _("Saved the e-mail of %(name)s.") % {"name": player.name}


def _player_of_event(request: Request, slug: str, player_id: int) -> tuple[str, Response | None]:
    """The event's slug (or a redirect from an old numeric URL); 404 unless the player is in the event."""
    event_id, real = event_of_key(request, slug)
    if moved := slug_redirect(request, slug, real):
        return real, moved
    with get_uow_factory(request)() as uow:
        player = uow.teams.get(Player, player_id)
        if player is None or player.event_id != event_id:
            raise NotFound(_("Player %(id)s does not exist in this event.") % {"id": player_id})
    return real, None


def _email_page(
    request: Request,
    slug: str,
    player_id: int,
    *,
    status_code: int = 200,
    typed: tuple[str, str] | None = None,
    **extra: object,
) -> Response:
    """The form; ``typed``: what the staff member wrote, shown again after a refusal (the stored values
    stay the expected ones)."""
    with get_uow_factory(request)() as uow:
        player = uow.teams.get_or_raise(Player, player_id)
        team = uow.teams.get_or_raise(Team, player.team_id)
        event = uow.events.get_or_raise(Event, player.event_id)
        stored = (player.email or "", player.language or "")
        view = {"id": player.id, "name": player.name, "account": player.account, "team": team.name}
        event_view = {"name": event.name, "slug": slug}
    email, language = typed if typed is not None else stored
    context = {
        "player": view,
        "event": event_view,
        "email": email,
        "language": language,
        "expected_email": stored[0],
        "expected_language": stored[1],
        **extra,
    }
    return render(request, "links/player_email.html", context, status_code=status_code)


@router.get("/staff/events/{slug}/players/{player_id}/email")
def player_email_page(
    request: Request, slug: str, player_id: int, user: AuthUser = require_staff()
) -> Response:
    real, moved = _player_of_event(request, slug, player_id)
    return moved or _email_page(request, real, player_id)


@router.post("/staff/events/{slug}/players/{player_id}/email")
def player_email_submit(
    request: Request,
    slug: str,
    player_id: int,
    user: AuthUser = require_staff(),
    email: str = Form(default=""),
    language: str = Form(default=""),
    expected_email: str = Form(default=""),
    expected_language: str = Form(default=""),
) -> Response:
    """Set or clear a player's address and mail language; audited as ``player.email``."""
    real, moved = _player_of_event(request, slug, player_id)
    if moved:
        return moved
    typed = (email, language)
    try:
        with get_uow_factory(request)() as uow:
            player = preferences.set_player_email(
                uow,
                player_id=player_id,
                email=email,
                language=language,
                actor=user.username,
                expected=(expected_email or None, expected_language or None),
            )
            saved = player.id
    except ValidationFailed as error:
        return _email_page(
            request, real, player_id, status_code=422, typed=typed, problems=list(error.problems)
        )
    except StaleEdit as error:
        return _email_page(request, real, player_id, status_code=409, typed=typed, error=error.message)
    return RedirectResponse(f"/staff/events/{real}/links?saved={saved}", status_code=303)
