"""A user's e-mail address, the kinds of notification they turned off and the language of their mails
(the account page; the language switch stores the language too)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from orchestrator.adapters.tables import Player, User
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.errors import CurrentValue, StaleEdit, ValidationFailed
from orchestrator.services.accounts.users import AuthUser
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.notify.kinds import CAPTAIN_KINDS, known_kinds
from orchestrator.translation import LANGUAGES
from orchestrator.translation import gettext as _

_ADDRESS = re.compile(r"[^@\s<>\"',;]+@[^@\s<>\"',;]+\.[^@\s<>\"',;.]+")
MAX_ADDRESS = 254


@dataclass(frozen=True, slots=True)
class Choice:
    kind: str
    label: str
    on: bool


@dataclass(frozen=True, slots=True)
class Preferences:
    email: str | None
    choices: tuple[Choice, ...]
    language: str | None = None  # None: English (the templates' own text)

    def as_json(self) -> dict[str, Any]:
        return {
            "email": self.email,
            "language": self.language,
            "languages": dict(LANGUAGES),
            "kinds": {choice.kind: choice.on for choice in self.choices},
            "labels": {choice.kind: choice.label for choice in self.choices},
        }


def clean_address(text: str | None) -> str | None:
    """The address as stored (None when empty); a clear 422 for one that cannot be an address."""
    address = (text or "").strip()
    if not address:
        return None
    if len(address) > MAX_ADDRESS or not _ADDRESS.fullmatch(address):
        raise ValidationFailed([_("e-mail address: write one address like name@example.org")])
    return address


def clean_language(code: str | None) -> str | None:
    """A language code as stored (None when empty: English); a clear 422 for one we do not have."""
    lang = (code or "").strip()
    if not lang:
        return None
    if lang not in LANGUAGES:
        raise ValidationFailed(
            [_("language: one of %(languages)s, or empty for English") % {"languages": ", ".join(LANGUAGES)}]
        )
    return lang


def _of(row: User) -> Preferences:
    off = set(row.notify_off or [])
    return Preferences(
        email=row.email,
        language=row.language,
        choices=tuple(
            Choice(kind.value, label, kind.value not in off) for kind, label in CAPTAIN_KINDS.items()
        ),
    )


def preferences_of(uow: UnitOfWork, *, user: AuthUser) -> Preferences:
    return _of(uow.accounts.get_or_raise(User, user.id))


KEEP = "keep"  # ``set_preferences(language=KEEP)``: leave the stored language as it is


def set_preferences(
    uow: UnitOfWork, *, user: AuthUser, email: str | None, off: list[str], language: str | None = KEEP
) -> Preferences:
    """Store the address, the kinds turned off (unknown kinds are ignored) and, unless ``KEEP``, the
    language of the mails (empty: English); audited."""
    address = clean_address(email)
    row = uow.accounts.get_or_raise(User, user.id)
    lang = row.language if language == KEEP else clean_language(language)
    old = {"email": row.email, "notify_off": list(row.notify_off or []), "language": row.language}
    row.email, row.notify_off, row.language = address, known_kinds(off), lang
    uow.accounts.add(row)
    uow.flush()
    new = {"email": row.email, "notify_off": row.notify_off, "language": row.language}
    if new != old:
        uow.audit.change(row, "user.notifications", actor=user.username, old=old, new=new)
    return _of(row)


def set_user_email(uow: UnitOfWork, *, user_id: int, email: str | None, actor: str) -> None:
    """Staff store a captain's address when inviting them (an empty one leaves the stored one); audited."""
    address = clean_address(email)
    row = uow.accounts.get_or_raise(User, user_id)
    if address is None or address == row.email:
        return
    old = row.email
    row.email = address
    uow.accounts.add(row)
    flush_and_audit(uow, row, "user.notifications", actor=actor, old={"email": old}, new={"email": address})


def set_player_email(
    uow: UnitOfWork,
    *,
    player_id: int,
    email: str | None,
    actor: str,
    language: str | None = KEEP,
    expected: tuple[str | None, str | None] | None = None,
) -> Player:
    """Staff store a player's address (for "link your game-server account") and, unless ``KEEP``, the
    language of that mail (empty: the captains' language, docs/notifications.md); audited as
    ``player.email`` with the fields that changed.

    ``expected``: the (address, language) the staff form showed; if someone changed them since, nothing is
    saved and ``StaleEdit`` names who did (the API, which sends no ``expected``, simply overwrites)."""
    address = clean_address(email)
    lang_given = None if language == KEEP else clean_language(language)
    player = (
        uow.locks.lock(Player, player_id)
        if expected is not None
        else uow.teams.get_or_raise(Player, player_id)
    )
    old = {"email": player.email, "language": player.language}
    if expected is not None and (player.email, player.language) != expected:
        changes = [a for a in uow.audit.for_entity("player", player_id) if a.action == "player.email"]
        by, at = (changes[-1].actor, changes[-1].at) if changes else ("unknown", utcnow())
        shown = f"{player.email or 'none'}, language {player.language or 'as the captains'}"
        raise StaleEdit([CurrentValue("player", player_id, "e-mail", shown, 0, by, at)])
    player.email = address
    if language != KEEP:
        player.language = lang_given
    uow.teams.add(player)
    uow.flush()
    new = {"email": player.email, "language": player.language}
    if old != new:
        changed = [name for name in new if old[name] != new[name]]
        uow.audit.change(
            player,
            "player.email",
            actor=actor,
            event_id=player.event_id,
            old={name: old[name] for name in changed},
            new={name: new[name] for name in changed},
        )
    return player
