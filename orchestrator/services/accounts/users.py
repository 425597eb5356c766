"""Accounts: create staff and captains, log in with throttling, invitation links (docs/rules.md §9).

Passwords are hashed with argon2id (argon2-cffi). Invitation tokens are random, shown once, and stored
only as their SHA-256 hash. Nothing here logs or returns a password, hash or token except the raw
invitation token returned to the caller that must hand it to the captain.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from importlib.resources import files

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from orchestrator.adapters.tables import STAFF_ROLES, Role, Team, User
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings, get_settings
from orchestrator.db import utcnow
from orchestrator.domain.names import MAX_DISPLAY_NAME, name_problem
from orchestrator.errors import (
    Conflict,
    Forbidden,
    LoginRefused,
    LoginThrottled,
    NotFound,
    ValidationFailed,
)
from orchestrator.services.row_views import row_view
from orchestrator.translation import N_, ngettext
from orchestrator.translation import gettext as _

PASSWORD_MIN_LENGTH = 10  # characters other than white space
PASSWORD_MAX_LENGTH = 1024  # hashing megabytes of "password" would be a cheap denial of service
USERNAME_MAX_LENGTH = 80
LOGIN_ATTEMPTS_KEPT = timedelta(days=1)  # login attempts are deleted after this (or the lockout window)
WRONG_CREDENTIALS = N_("Wrong username or password.")

_hasher = PasswordHasher()  # argon2id with the library's current recommended parameters
# Verified against when the username does not exist, so both paths cost one argon2 verification.
_DUMMY_HASH = _hasher.hash(secrets.token_urlsafe(16))


@dataclass(frozen=True, slots=True)
class AuthUser:
    """The logged-in user as the web sees it: no hashes, no tokens."""

    id: int
    username: str
    role: Role
    team_id: int | None
    session_generation: int
    display_name: str = ""

    @property
    def is_staff(self) -> bool:
        return self.role in STAFF_ROLES

    @classmethod
    def of(cls, user: User) -> AuthUser:
        assert user.id is not None
        return row_view(cls, user, id=user.id, role=Role(user.role))


NOT_YOUR_TEAM = N_("Captains can only see and change their own team's forms.")


def ensure_team_access(user: AuthUser, team_id: int) -> None:
    """Staff may act for any team; a captain only for their own (Forbidden otherwise)."""
    if user.is_staff:
        return
    if user.role is not Role.CAPTAIN or user.team_id is None or user.team_id != team_id:
        raise Forbidden(_(NOT_YOUR_TEAM))


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    """True when ``password`` matches; a missing or malformed hash never matches."""
    try:
        return _hasher.verify(password_hash or _DUMMY_HASH, password) and password_hash is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def hash_token(token: str) -> str:
    """SHA-256 hex of a random token (tokens carry 256 bits, so no salt or slow hash is needed)."""
    return hashlib.sha256(token.encode()).hexdigest()


def normalise_username(username: str) -> str:
    return username.strip().lower()


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """Common passwords of PASSWORD_MIN_LENGTH characters or more, lower-cased (orchestrator/data/,
    from Django's list: see common-passwords.LICENSE beside it)."""
    text = files("orchestrator").joinpath("data", "common-passwords.txt").read_text(encoding="utf-8")
    return frozenset(line.strip().lower() for line in text.splitlines() if line.strip())


# Digits, spaces and punctuation added before or after a password's core ("Qwertyuiop123!" is "qwertyuiop").
_LEADING = re.compile(r"^[\d\W_]+")
_TRAILING = re.compile(r"[\d\W_]+$")
# A username at least this long may not appear anywhere in a password; a shorter one may not be its core.
_USERNAME_INSIDE_MIN = 3


def password_problems(password: str, *, username: str = "") -> list[str]:
    """Every reason to refuse ``password``, as sentences for the person choosing it (empty: accepted)."""
    problems = []
    if sum(1 for c in password if not c.isspace()) < PASSWORD_MIN_LENGTH:
        problems.append(
            _("The password must have at least %(count)d characters other than spaces.")
            % {"count": PASSWORD_MIN_LENGTH}
        )
    if len(password) > PASSWORD_MAX_LENGTH:
        problems.append(
            _("The password must have at most %(count)d characters.") % {"count": PASSWORD_MAX_LENGTH}
        )
    key = password.strip().lower()
    head, tail = _LEADING.sub("", key), _TRAILING.sub("", key)
    cores = {key, head, tail, _TRAILING.sub("", head)}
    name = username.strip().lower()
    if name and (name in cores or (len(name) >= _USERNAME_INSIDE_MIN and name in key)):
        problems.append(
            _("The password must not contain the username (nor be the username with digits added).")
        )
    elif not cores.isdisjoint(common_passwords()):
        problems.append(
            _("This password is too common: it is among the first a guesser tries. Choose another.")
        )
    return problems


def _username_problems(username: str) -> list[str]:
    if not username:
        return [_("The username must not be empty.")]
    if len(username) > USERNAME_MAX_LENGTH:
        return [_("The username must have at most %(count)d characters.") % {"count": USERNAME_MAX_LENGTH}]
    if not all(c.isalnum() or c in "._-@" for c in username):
        return [_("The username may contain letters, digits and . _ - @ only.")]
    return []


def create_user(
    uow: UnitOfWork,
    *,
    username: str,
    password: str | None,
    role: Role | str,
    team_id: int | None = None,
    display_name: str = "",
    actor: str = "system",
) -> int:
    """Create an account and return its id; ``password=None`` leaves it to an invitation."""
    name = normalise_username(username)
    problems = _username_problems(name)
    checked_role: Role | None = None
    try:
        checked_role = Role(role)
    except ValueError:
        problems.append(
            _("Unknown role %(role)r: use one of %(roles)s.")
            % {"role": role, "roles": ", ".join(r.value for r in Role)}
        )
    if password is not None:
        problems += password_problems(password, username=name)
    if display_name.strip() and (
        problem := name_problem(display_name.strip(), what="The display name", limit=MAX_DISPLAY_NAME)
    ):
        problems.append(problem + ".")
    if checked_role == Role.CAPTAIN and team_id is None:
        problems.append(_("A captain account needs a team."))
    if checked_role not in (None, Role.CAPTAIN) and team_id is not None:
        problems.append(_("Only captain accounts belong to a team."))
    if problems or checked_role is None:
        raise ValidationFailed(problems)
    if team_id is not None and uow.teams.get(Team, team_id) is None:
        raise NotFound(_("team %(id)s does not exist") % {"id": team_id})
    if uow.accounts.get_by_username(name) is not None:
        raise Conflict(_("The username %(name)r is already taken.") % {"name": name})
    user = uow.accounts.insert(
        User(
            username=name,
            display_name=display_name.strip(),
            role=checked_role.value,
            team_id=team_id,
            password_hash=hash_password(password) if password is not None else None,
        )
    )
    assert user.id is not None
    uow.audit.change(
        user,
        "user.create",
        actor=actor,
        new={"username": name, "role": checked_role.value, "team_id": team_id},
    )
    return user.id


@dataclass(frozen=True, slots=True)
class LoginVerdict:
    """The outcome of a login attempt.

    Returned rather than raised so that the unit of work commits the recorded attempt even when the
    login is refused; call ``accepted_user()`` after the unit of work to get the user or the error.
    """

    user: AuthUser | None
    refusal: LoginRefused | LoginThrottled | None = None

    def accepted_user(self) -> AuthUser:
        if self.refusal is not None:
            raise self.refusal
        assert self.user is not None
        return self.user


def authenticate(
    uow: UnitOfWork,
    *,
    username: str,
    password: str,
    ip: str = "",
    settings: Settings | None = None,
    now: datetime | None = None,
) -> LoginVerdict:
    """Check a login and record the attempt; a refusal is a ``LoginRefused`` or ``LoginThrottled``.

    Throttling never locks an account, and is per address and per account-and-address, so that a stranger
    cannot keep anyone out who logs in from elsewhere (docs/security.md, "Login throttling"): after
    ``login_max_failures`` failures for a username from one address (since its last success from there,
    within ``login_failure_window_s``) the next attempt from that address must wait ``login_delay_s``
    after the last failure, doubled with each further failure up to ``login_delay_max_s``; once the wait
    has passed the right password always works. One address is refused after
    ``login_max_failures_per_ip`` failures within ``login_ip_window_s``. An attempt refused for waiting is
    not counted, so it cannot prolong the wait, and costs no password check.
    """
    settings = settings or get_settings()
    now = now or utcnow()
    name = normalise_username(username)[:USERNAME_MAX_LENGTH]
    ip = ip[:64]
    user_window = now - timedelta(seconds=settings.login_failure_window_s)
    ip_window = now - timedelta(seconds=settings.login_ip_window_s)
    # Attempts older than the windows (and than a day, kept for staff asking "who tried?") count for
    # nothing: each login removes them, so the table stays as small as the traffic of one day.
    uow.accounts.delete_login_attempts_before(min(user_window, ip_window, now - LOGIN_ATTEMPTS_KEPT))
    wait_s = login_wait_s(
        uow.accounts.recent_failures_for_username_at_ip(name, ip, user_window), settings, now
    )
    if ip and settings.login_max_failures_per_ip:
        by_ip = uow.accounts.recent_failures_for_ip(ip, ip_window)
        if len(by_ip) >= settings.login_max_failures_per_ip:
            # Refused until enough of the counted failures have left the window.
            oldest = by_ip[len(by_ip) - settings.login_max_failures_per_ip]
            release = oldest + timedelta(seconds=settings.login_ip_window_s)
            wait_s = max(wait_s, _whole_seconds(release - now))
    if wait_s > 0:
        message = _("Too many failed logins. Try again in %(wait)s.") % {"wait": _duration(wait_s)}
        return LoginVerdict(None, LoginThrottled(message, retry_after_s=wait_s))

    user = uow.accounts.get_by_username(name) if name else None
    # Verify even for an unknown username, so timing does not tell which usernames exist.
    ok = verify_password(user.password_hash if user else None, password[:PASSWORD_MAX_LENGTH])
    if user is None or not ok:
        uow.accounts.record_login_attempt(username=name, ip=ip, success=False, at=now)
        return LoginVerdict(None, LoginRefused(_(WRONG_CREDENTIALS)))
    if user.disabled:
        uow.accounts.record_login_attempt(username=name, ip=ip, success=False, at=now)
        return LoginVerdict(None, LoginRefused(_("This account is disabled. Ask an administrator.")))
    uow.accounts.record_login_attempt(username=name, ip=ip, success=True, at=now)
    assert user.password_hash is not None
    if _hasher.check_needs_rehash(user.password_hash):
        user.password_hash = hash_password(password)
    user.last_login_at = now
    uow.accounts.add(user)
    return LoginVerdict(AuthUser.of(user))


RECENT_FAILURES_WINDOW = timedelta(hours=1)


@dataclass(frozen=True, slots=True)
class LoginFailures:
    """Failed logins of the last hour, for the staff dashboard: (username as typed, count) and (address,
    count), most first. A username may not exist; no password is ever kept."""

    since: datetime
    by_username: tuple[tuple[str, int], ...]
    by_ip: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.by_username)


def recent_login_failures(uow: UnitOfWork, *, now: datetime | None = None) -> LoginFailures:
    """Failed logins of the last hour per account and per address (docs/security.md, "Login
    throttling"): someone guessing, or someone trying to slow an account down, shows up here."""
    since = (now or utcnow()) - RECENT_FAILURES_WINDOW
    by_username, by_ip = uow.accounts.failure_counts_since(since)
    return LoginFailures(since, tuple(by_username), tuple(by_ip))


def login_wait_s(failures: list[datetime], settings: Settings, now: datetime) -> int:
    """Seconds a username must still wait after ``failures`` (oldest first); 0 when it may try now."""
    extra = len(failures) - settings.login_max_failures
    if extra < 0 or not failures:
        return 0
    delay = min(settings.login_delay_max_s, settings.login_delay_s * 2 ** min(extra, 32))
    return _whole_seconds(failures[-1] + timedelta(seconds=delay) - now)


def _whole_seconds(span: timedelta) -> int:
    seconds = span.total_seconds()
    return max(0, int(seconds) + (seconds % 1 > 0))


def _duration(seconds: int) -> str:
    if seconds < 90:
        return ngettext("%(num)d second", "%(num)d seconds", seconds) % {"num": seconds}
    minutes = -(-seconds // 60)
    return ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}


def load_session_user(uow: UnitOfWork, *, user_id: int, session_generation: int) -> AuthUser | None:
    """The user a session cookie names, or None if it is gone, disabled or its sessions were revoked."""
    user = uow.accounts.get(User, user_id)
    if user is None or user.disabled or user.session_generation != session_generation:
        return None
    if user.password_hash is None:
        return None
    return AuthUser.of(user)


def end_sessions(uow: UnitOfWork, *, user_id: int) -> None:
    """End every session of a user on the server (logout): a saved session cookie stops working."""
    user = uow.accounts.get_or_raise(User, user_id)
    user.session_generation += 1
    uow.accounts.add(user)


def set_password(uow: UnitOfWork, *, user_id: int, password: str, actor: str) -> None:
    """Change a password; every existing session of the user ends."""
    user = uow.accounts.get_or_raise(User, user_id)
    problems = password_problems(password, username=user.username)
    if problems:
        raise ValidationFailed(problems)
    user.password_hash = hash_password(password)
    user.session_generation += 1
    uow.accounts.add(user)
    uow.audit.change(user, "user.password", actor=actor)


def disable_user(uow: UnitOfWork, *, user_id: int, actor: str, reason: str | None = None) -> None:
    """Disable an account and end its sessions."""
    user = uow.accounts.get_or_raise(User, user_id)
    user.disabled = True
    user.session_generation += 1
    user.invitation_token_hash = None
    user.invitation_expires_at = None
    uow.accounts.add(user)
    uow.audit.change(
        user, "user.disable", actor=actor, old={"disabled": False}, new={"disabled": True}, reason=reason
    )


def create_invitation(
    uow: UnitOfWork,
    *,
    user_id: int,
    actor: str,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> str:
    """A fresh invitation token for ``user_id`` (the previous one stops working); return it once.

    The caller builds the link ``/invitation/<token>`` and hands it to the person; only its hash is kept.
    """
    settings = settings or get_settings()
    now = now or utcnow()
    user = uow.accounts.get_or_raise(User, user_id)
    if user.disabled:
        raise Conflict(_("A disabled account cannot be invited."))
    token = secrets.token_urlsafe(32)
    user.invitation_token_hash = hash_token(token)
    user.invitation_expires_at = now + timedelta(seconds=settings.invitation_ttl_s)
    uow.accounts.add(user)
    uow.audit.change(
        user,
        "user.invite",
        actor=actor,
        new={"expires_at": user.invitation_expires_at.isoformat()},
    )
    return token


def invite_captain(
    uow: UnitOfWork,
    *,
    username: str,
    team_id: int,
    actor: str,
    display_name: str = "",
    settings: Settings | None = None,
    now: datetime | None = None,
) -> tuple[int, str]:
    """Create a captain account without a password and return (user id, invitation token)."""
    user_id = create_user(
        uow,
        username=username,
        password=None,
        role=Role.CAPTAIN,
        team_id=team_id,
        display_name=display_name,
        actor=actor,
    )
    return user_id, create_invitation(uow, user_id=user_id, actor=actor, settings=settings, now=now)


def find_invitation(uow: UnitOfWork, *, token: str, now: datetime | None = None) -> User:
    """The account an invitation token belongs to; NotFound for an unknown, used or expired token."""
    now = now or utcnow()
    user = uow.accounts.get_by_invitation_hash(hash_token(token)) if token else None
    if (
        user is None
        or user.disabled
        or user.invitation_expires_at is None
        or user.invitation_expires_at <= now
    ):
        raise NotFound(_("This invitation link is not valid any more. Ask for a new one."))
    return user


def accept_invitation(uow: UnitOfWork, *, token: str, password: str, now: datetime | None = None) -> AuthUser:
    """Set the password of an invited account; the token works once."""
    user = find_invitation(uow, token=token, now=now)
    problems = password_problems(password, username=user.username)
    if problems:
        raise ValidationFailed(problems)
    user.password_hash = hash_password(password)
    user.invitation_token_hash = None
    user.invitation_expires_at = None
    user.session_generation += 1
    uow.accounts.add(user)
    assert user.id is not None
    uow.audit.change(user, "user.accept_invitation", actor=user.username)
    return AuthUser.of(user)
