"""Players link their game-server account by OAuth (authorization code with PKCE, docs/rules.md §8).

- Staff hand each player a link ``/link/<signed player id>`` (``link_path``); it redirects to
  ``{gameserver_url}/oauth`` with a PKCE S256 challenge. The game server sends the player back to
  ``/link/callback?code=...&state=...``; ``finish_link`` exchanges the code for a token, checks which account
  it belongs to, and stores it ENCRYPTED (Fernet, ``Settings.token_encryption_key``).
- No server-side state is kept for a pending link: ``state`` is signed with ``secret_key_of(settings)`` (valid
  ``LINK_STATE_MAX_AGE_S``) and the PKCE verifier is an HMAC of the state under the same key, so only this
  server can compute it.
- Tokens are secrets: never logged, shown, put in an error message or an audit row. The access log
  redacts ``/link/<token>`` and the callback's ``code`` and ``state`` (web/http/security.py).
- The errors a player reads on the link pages are in the reader's language; audit entries, stored refusal
  reasons and the operator's configuration errors stay English.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from cryptography.fernet import Fernet, InvalidToken
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from pydantic import SecretStr

from orchestrator.adapters import oauth
from orchestrator.adapters.repo_teams import PlayerLinkRow
from orchestrator.adapters.tables import LinkStatus, Player, PlayerLink
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings, secret_key_of
from orchestrator.db import utcnow
from orchestrator.errors import Conflict, Forbidden, NotFound, ServiceError, ValidationFailed
from orchestrator.translation import gettext as _

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

LINK_STATE_MAX_AGE_S = 15 * 60
LINK_INVITE_MAX_AGE_S = 30 * 24 * 3600
SCOPES = "challenge:write"
CALLBACK_PATH = "/link/callback"


class LinkError(ServiceError):
    """The game server refused the link or the answer could not be used."""

    status_code = 502


# ---------------------------------------------------------------- encryption


def _key(settings: Settings) -> str:
    key = settings.token_encryption_key.get_secret_value()
    if not key:
        raise ServiceError("OLYMPIAD_TOKEN_ENCRYPTION_KEY is not set: game-server tokens cannot be stored")
    return key


@lru_cache(maxsize=4)
def _fernet_of(key: str) -> Fernet:
    return Fernet(key.encode())


@lru_cache(maxsize=8192)
def _decrypted(key: str, encrypted: str) -> str:
    # Every round pairs the same 300 players again: their tokens are decrypted once per process (a
    # round of the 163-team event decrypted 300 tokens, about a tenth of the time to create its games).
    return _fernet_of(key).decrypt(encrypted.encode()).decode()


def encrypt_token(settings: Settings, token: str) -> str:
    """The token encrypted for storage in ``player_link.token_encrypted``."""
    return _fernet_of(_key(settings)).encrypt(token.encode()).decode()


def decrypt_token(settings: Settings, encrypted: str) -> SecretStr:
    """The stored token, wrapped so it never prints; a wrong key raises ServiceError (no detail)."""
    try:
        return SecretStr(_decrypted(_key(settings), encrypted))
    except InvalidToken:
        raise ServiceError("a stored game-server token cannot be decrypted with the configured key") from None


def store_link(
    uow: UnitOfWork,
    *,
    player_id: int,
    account: str,
    token: str,
    settings: Settings,
    expires_in_s: int | None = None,
    actor: str,
) -> PlayerLink:
    """Store (or replace) a player's link with the token encrypted; audit without the token."""
    player = uow.teams.get_or_raise(Player, player_id)
    link = uow.teams.link_of_player(player_id) or PlayerLink(player_id=player_id)
    old_status = link.status if link.id is not None else None
    now = utcnow()
    link.token_encrypted = encrypt_token(settings, token)
    link.linked_account = account.lower()
    link.status = LinkStatus.LINKED.value
    link.token_expires_at = now + timedelta(seconds=expires_in_s) if expires_in_s else None
    new = {"status": link.status, "account": link.linked_account}
    _save_link(uow, link, player, now, actor, "player.link", old_status=old_status, new=new)
    return link


def _save_link(
    uow: UnitOfWork,
    link: PlayerLink,
    player: Player,
    now: datetime,
    actor: str,
    action: str,
    *,
    old_status: str | None,
    new: dict[str, Any],
    reason: str | None = None,
) -> None:
    """Store a changed link and audit it under the player (never with the token)."""
    link.updated_at = now
    uow.teams.insert(link)
    uow.audit.change(
        player,
        action,
        actor=actor,
        event_id=player.event_id,
        old={"status": old_status},
        new=new,
        reason=reason,
    )


def mark_refused(uow: UnitOfWork, *, player_ids: list[int], reason: str, actor: str) -> None:
    """The game server refused these players' tokens: they must link again (shown on the staff page)."""
    now = utcnow()
    for player_id in sorted(set(player_ids)):
        player = uow.teams.get(Player, player_id)
        if player is None:
            continue
        link = uow.teams.link_of_player(player_id) or PlayerLink(player_id=player_id)
        if link.status == LinkStatus.REFUSED.value:
            continue
        old = link.status if link.id is not None else None
        link.status = LinkStatus.REFUSED.value
        _save_link(
            uow,
            link,
            player,
            now,
            actor,
            "player.link.refused",
            old_status=old,
            new={"status": link.status},
            reason=reason,
        )


def players_needing_links(uow: UnitOfWork, *, event_id: int) -> list[PlayerLinkRow]:
    """Players of an event whose link is missing or refused (the staff page)."""
    return [row for row in uow.teams.players_with_links(event_id) if row.status != LinkStatus.LINKED]


# ---------------------------------------------------------------- OAuth with PKCE


def _serializer(settings: Settings, salt: str) -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(secret_key_of(settings), salt=salt)


def link_token(settings: Settings, *, player_id: int) -> str:
    """The signed part of a player's invitation link ``/link/<token>`` (carries the player id only)."""
    return _serializer(settings, "player-link-invite").dumps({"p": player_id})


def link_path(settings: Settings, *, player_id: int) -> str:
    return f"/link/{link_token(settings, player_id=player_id)}"


def _verifier(settings: Settings, state: str) -> str:
    digest = hmac.new(secret_key_of(settings).encode(), f"pkce:{state}".encode(), "sha256")
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")


def _challenge(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")


def _redirect_uri(settings: Settings) -> str:
    return settings.public_base_url.rstrip("/") + CALLBACK_PATH


@dataclass(frozen=True, slots=True)
class LinkStart:
    player_id: int
    player_name: str
    account: str
    authorize_url: str


def start_link(uow: UnitOfWork, *, token: str, settings: Settings) -> LinkStart:
    """Read an invitation link and build the game server's authorization URL (PKCE S256)."""
    try:
        data = _serializer(settings, "player-link-invite").loads(token, max_age=LINK_INVITE_MAX_AGE_S)
    except SignatureExpired:
        raise Forbidden(_("This link has expired: ask the organisers for a new one.")) from None
    except BadSignature:
        raise NotFound(_("This link is not valid.")) from None
    player = uow.teams.get_or_raise(Player, int(data["p"]))
    state = _serializer(settings, "player-link-state").dumps({"p": player.id, "n": secrets.token_urlsafe(8)})
    query = {
        "response_type": "code",
        "client_id": settings.gameserver_client_id,
        "redirect_uri": _redirect_uri(settings),
        "code_challenge_method": "S256",
        "code_challenge": _challenge(_verifier(settings, state)),
        "scope": SCOPES,
        "state": state,
    }
    url = f"{settings.gameserver_url.rstrip('/')}/oauth?{urlencode(query)}"
    return LinkStart(player.id or 0, player.name, player.account, url)


def finish_link(
    uow: UnitOfWork,
    *,
    code: str,
    state: str,
    settings: Settings,
    http: httpx.Client | None = None,
) -> PlayerLink:
    """Exchange the code for a token, check its account is the player's, store it encrypted."""
    try:
        data = _serializer(settings, "player-link-state").loads(state, max_age=LINK_STATE_MAX_AGE_S)
    except SignatureExpired:
        raise Forbidden(_("The link took too long: open your link again.")) from None
    except BadSignature:
        raise ValidationFailed(
            [_("The answer from the game server is not valid: open your link again.")]
        ) from None
    if not code:
        raise ValidationFailed([_("The game server did not grant access: open your link again.")])
    player = uow.teams.get_or_raise(Player, int(data["p"]))
    try:
        grant = oauth.exchange_code(
            base_url=settings.gameserver_url,
            code=code,
            code_verifier=_verifier(settings, state),
            redirect_uri=_redirect_uri(settings),
            client_id=settings.gameserver_client_id,
            timeout_s=settings.gameserver_timeout_s,
            http=http,
        )
    except oauth.TokenRefused as refused:
        raise LinkError(
            _("The game server refused the link (%(status)s): open your link again.")
            % {"status": refused.status}
        ) from None
    except oauth.NoToken:
        raise LinkError(_("The game server gave no token: open your link again.")) from None
    except oauth.AccountRefused:
        raise LinkError(_("The game server did not accept its own token: open your link again.")) from None
    except oauth.Unreachable as unreachable:
        raise LinkError(
            _("The game server could not be reached (%(error)s).") % {"error": unreachable.error}
        ) from None
    except oauth.Unreadable:
        raise LinkError(_("The game server's answer could not be read.")) from None
    account, token = grant.account, grant.token
    if account.lower() != player.account.lower():
        raise Conflict(
            _(
                "You authorized the account '%(account)s', but %(name)s plays as '%(expected)s': "
                "log in to the game server with that account and open your link again."
            )
            % {"account": account, "name": player.name, "expected": player.account}
        )
    expires = grant.expires_in
    return store_link(
        uow,
        player_id=player.id or 0,
        account=account,
        token=token,
        settings=settings,
        expires_in_s=int(expires) if isinstance(expires, int | float) else None,
        actor=f"player:{player.id}",
    )
