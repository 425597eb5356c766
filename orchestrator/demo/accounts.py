"""The demo's accounts: its owner, the event's free slug, and every player's account on the stand-in, linked
with its token stored encrypted (orchestrator/demo/driver.py sets a run up with these)."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.services.accounts.users import create_user, set_password
from orchestrator.services.gameserver.player_links import store_link

OWNER = "owner"


class DemoError(RuntimeError):
    """The demo cannot start or go on (a port in use, an invalid event file ...)."""


def create_owner(uow: UnitOfWork, *, password: str, actor: str) -> None:
    """The demo's owner account (username ``owner``); with a kept database its password is set anew."""
    existing = uow.accounts.get_by_username(OWNER)
    if existing is None:
        create_user(uow, username=OWNER, password=password, role=Role.OWNER, actor=actor)
    else:
        set_password(uow, user_id=existing.id or 0, password=password, actor=actor)


def free_slug(uow: UnitOfWork, slug: str) -> str:
    """``slug``, or ``slug-2``, ``slug-3`` ... when a kept database already holds it."""
    candidate, n = slug, 1
    while uow.events.get_by_slug(candidate) is not None:
        n += 1
        candidate = f"{slug}-{n}"
    return candidate


def standin_account(http: httpx.Client, *, username: str, rating: int, scopes: Sequence[str]) -> str:
    """Create (or re-rate) an account on the stand-in; returns its fresh personal token (a secret)."""
    answer = http.post(
        "/_standin/users", json={"username": username, "rating": rating, "scopes": list(scopes)}
    )
    if answer.status_code != 200:
        raise DemoError(f"the stand-in refused account {username!r} ({answer.status_code})")
    return str(answer.json()["token"])


def link_players(
    uow_factory: UnitOfWorkFactory, settings: Settings, http: httpx.Client, *, event_id: int, actor: str
) -> int:
    """Every player's account created on the stand-in and linked (token stored encrypted); a count."""
    with uow_factory() as uow:
        players = [(p.id or 0, p.account, p.rating) for p in uow.teams.players_of_event(event_id)]
    tokens = {
        pid: standin_account(http, username=account, rating=rating, scopes=("challenge:write",))
        for pid, account, rating in players
    }
    with uow_factory() as uow:
        for pid, account, _rating in players:
            store_link(uow, player_id=pid, account=account, token=tokens[pid], settings=settings, actor=actor)
    tokens.clear()
    return len(players)
