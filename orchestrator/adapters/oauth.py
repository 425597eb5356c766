"""The OAuth exchange with the game server that links a player's account (docs/workers.md, "Player links").

Only the HTTP: trade an authorization code for a token, then ask whose token it is. The use case (which
player, whether the account is theirs, storing the token encrypted) is
orchestrator/services/gameserver/player_links.py; it turns the errors below into the player's message.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx


class OAuthError(Exception):
    """The exchange failed; the subclass says at which step."""


class TokenRefused(OAuthError):
    """The token endpoint answered with another status than 200."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class NoToken(OAuthError):
    """The token endpoint answered 200 without an access token."""


class AccountRefused(OAuthError):
    """The account endpoint did not accept the token it had just given."""


class Unreachable(OAuthError):
    """The game server could not be reached (``error`` names the transport error)."""

    def __init__(self, error: str) -> None:
        super().__init__(error)
        self.error = error


class Unreadable(OAuthError):
    """An answer was not the JSON expected."""


@dataclass(frozen=True, slots=True)
class Grant:
    """A token, the account it belongs to and the token endpoint's ``expires_in`` as it came."""

    token: str
    account: str
    expires_in: Any


def exchange_code(
    *,
    base_url: str,
    code: str,
    code_verifier: str,
    redirect_uri: str,
    client_id: str,
    timeout_s: float,
    http: httpx.Client | None = None,
) -> Grant:
    """Trade ``code`` for a token at ``{base_url}/api/token`` and read its account at ``/api/account``.

    ``http`` is a client to use (tests pass one bound to the stand-in server); without it a client is
    opened and closed here.
    """
    own = http is None
    client = http or httpx.Client(timeout=timeout_s)
    base = base_url.rstrip("/")
    try:
        answer = client.post(
            f"{base}/api/token",
            data={
                "grant_type": "authorization_code",
                "code": code,
                "code_verifier": code_verifier,
                "redirect_uri": redirect_uri,
                "client_id": client_id,
            },
        )
        if answer.status_code != 200:
            raise TokenRefused(answer.status_code)
        body = answer.json()
        token = str(body.get("access_token") or "")
        if not token:
            raise NoToken()
        account_answer = client.get(f"{base}/api/account", headers={"Authorization": f"Bearer {token}"})
        if account_answer.status_code != 200:
            raise AccountRefused()
        account = str(account_answer.json().get("username") or "")
    except httpx.HTTPError as error:
        raise Unreachable(type(error).__name__) from None
    except ValueError:
        raise Unreadable() from None
    finally:
        if own:
            client.close()
    return Grant(token=token, account=account, expires_in=body.get("expires_in"))
