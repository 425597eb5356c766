"""Captains: invitation links per team, the team a form is for, and a captain's own to-do list
(docs/rules.md §9).

A captain sees and changes only their own team's forms. Every captain-facing use case calls
``ensure_team_access`` (services/accounts/users.py) with the logged-in user; routes never decide it alone.

A team has one captain account. Only an owner may add a deputy (a second account acting for the team), by
asking for one; it is audited (``DEPUTY_ACTION``) and every account acting for a team is on the staff
captains page (``captain_accounts``), so no account acts for a team unseen (docs/security.md, "Captains").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import DuelStatus, Event, Role, Team, User
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.errors import Conflict, Forbidden, NotFound
from orchestrator.services.accounts.users import (
    NOT_YOUR_TEAM,
    AuthUser,
    create_invitation,
    ensure_team_access,
    invite_captain,
    normalise_username,
)
from orchestrator.services.teams.lineups import definition_of, effective_deadline, lineup_is_open
from orchestrator.translation import gettext as _

RESET_ROLES = frozenset({Role.OWNER, Role.ADMIN})  # who may send a new link to a captain with a password
RESET_ACTION = "user.password_reset_link"
DEPUTY_ROLES = frozenset({Role.OWNER})  # who may add a second account acting for a team
DEPUTY_ACTION = "captain.deputy_add"


def team_of_user(user: AuthUser, team_id: int | None = None) -> int:
    """The team a form is for: a captain's own team, or the team staff chose."""
    if user.is_staff:
        if team_id is None:
            raise NotFound(_("Choose a team."))
        return team_id
    if user.team_id is None:
        raise Forbidden(_(NOT_YOUR_TEAM))
    if team_id is not None and team_id != user.team_id:
        raise Forbidden(_(NOT_YOUR_TEAM))
    return user.team_id


def create_captain_invitation(
    uow: UnitOfWork,
    *,
    team_id: int,
    actor: str,
    actor_role: Role | str,
    username: str | None = None,
    display_name: str = "",
    deputy: bool = False,
    settings: Settings | None = None,
    now: datetime | None = None,
) -> tuple[int, str]:
    """An invitation link token for the team's captain: a new account, or a fresh link for an existing one.

    Returns (user id, token); the token is shown once and only its hash is stored. Whoever opens a link
    sets the account's password, so a fresh link for a captain who already has one is a password reset:
    only an owner or an administrator may send it, and the captain is told who did and when
    (``CaptainHome.password_reset``). A team that has a captain gets another account only as a deputy:
    asked for (``deputy``), by an owner, audited and listed on the captains page.
    """
    team = uow.teams.get_or_raise(Team, team_id)
    existing = sorted(uow.accounts.users_of_team(team_id), key=lambda u: u.id or 0)
    wanted = normalise_username(username) if username else None
    if wanted is None:
        target = existing[0] if existing else None
    else:
        target = next((u for u in existing if u.username == wanted), None)
    if target is not None:
        return _fresh_link(uow, target, team, actor=actor, actor_role=actor_role, settings=settings, now=now)
    if existing:
        if not deputy:
            raise Conflict(
                _(
                    "%(team)s already has a captain (%(captain)s): send that account a new link, or, as an "
                    "owner, add a deputy captain explicitly."
                )
                % {"team": team.name, "captain": existing[0].username}
            )
        if Role(actor_role) not in DEPUTY_ROLES:
            raise Forbidden(_("Only an owner may add a deputy captain to a team."))
    name = username or f"captain-{team.federation.lower()}-{team.event_id}"
    user_id, token = invite_captain(
        uow,
        username=name,
        team_id=team_id,
        actor=actor,
        display_name=display_name or file_captain(uow, team) or f"Captain of {team.name}",
        settings=settings,
        now=now,
    )
    if existing:
        uow.audit.change(
            uow.accounts.get_or_raise(User, user_id),
            DEPUTY_ACTION,
            actor=actor,
            event_id=team.event_id,
            new={"team_id": team_id, "team": team.name},
            reason="a deputy captain acts for the team beside its captain",
        )
    return user_id, token


def _fresh_link(
    uow: UnitOfWork,
    user: User,
    team: Team,
    *,
    actor: str,
    actor_role: Role | str,
    settings: Settings | None,
    now: datetime | None,
) -> tuple[int, str]:
    """A new invitation link for an existing captain account; for one with a password, a reset."""
    assert user.id is not None
    if user.password_hash is not None:
        if Role(actor_role) not in RESET_ROLES:
            raise Forbidden(
                _(
                    "This captain has already set a password: only an owner or an administrator may "
                    "send a new link, which resets it."
                )
            )
        uow.audit.change(
            user,
            RESET_ACTION,
            actor=actor,
            event_id=team.event_id,
            reason="a new invitation link lets whoever opens it set the captain's password",
        )
    return user.id, create_invitation(uow, user_id=user.id, actor=actor, settings=settings, now=now)


def file_captain(uow: UnitOfWork, team: Team) -> str | None:
    """The captain the event file names for ``team`` (its ``captain:`` field), if any."""
    definition = definition_of(uow.events.get_or_raise(Event, team.event_id))
    return dict(definition.captains).get(team.name) if definition is not None else None


@dataclass(frozen=True, slots=True)
class CaptainAccount:
    team_id: int
    team: str
    user_id: int | None
    username: str | None
    has_password: bool
    invitation_pending: bool
    deputy: bool = False  # a second account acting for the team, added by an owner


def captain_accounts(uow: UnitOfWork, *, event_id: int, now: datetime | None = None) -> list[CaptainAccount]:
    """Every team of an event with every account acting for it, its captain first (staff page): one row
    per account, a team without one in a row of its own."""
    now = now or utcnow()
    by_team: dict[int, list[User]] = {}
    for user in sorted(uow.accounts.users_of_event(event_id), key=lambda u: u.id or 0):
        if user.team_id is not None:
            by_team.setdefault(user.team_id, []).append(user)
    out = []
    for team in uow.teams.teams_of_event(event_id):
        accounts: list[User | None] = list(by_team.get(team.id or 0, [])) or [None]
        for n, account in enumerate(accounts):
            pending = bool(
                account
                and account.invitation_token_hash
                and account.invitation_expires_at is not None
                and account.invitation_expires_at > now
            )
            out.append(
                CaptainAccount(
                    team_id=team.id or 0,
                    team=team.name,
                    user_id=account.id if account else None,
                    username=account.username if account else None,
                    has_password=bool(account and account.password_hash),
                    invitation_pending=pending,
                    deputy=n > 0,
                )
            )
    return out


@dataclass(frozen=True, slots=True)
class CaptainMatch:
    match_id: int
    round_name: str
    opponent: str
    starts_at: datetime | None
    lineup_submitted: bool
    open: bool


@dataclass(frozen=True, slots=True)
class CaptainDuel:
    duel_id: int
    key: str
    round_name: str
    opponent: str
    armageddon_phase: str | None  # an ArmageddonPhase value; None: no Armageddon in this duel (yet)
    nominated: bool


@dataclass(frozen=True, slots=True)
class PasswordReset:
    """The latest new link staff sent to a captain who had a password: who and when."""

    by: str
    at: datetime


@dataclass(frozen=True, slots=True)
class CaptainHome:
    team_id: int
    team: str
    matches: tuple[CaptainMatch, ...]
    duels: tuple[CaptainDuel, ...]
    password_reset: PasswordReset | None = None


def last_password_reset(uow: UnitOfWork, *, user_id: int) -> PasswordReset | None:
    """The latest password-reset link staff sent for ``user_id`` (from the audit log), if any."""
    resets = [e for e in uow.audit.for_entity("user", user_id) if e.action == RESET_ACTION]
    return PasswordReset(by=resets[-1].actor, at=resets[-1].at) if resets else None


def captain_home(uow: UnitOfWork, *, user: AuthUser, team_id: int | None = None) -> CaptainHome:
    """The captain's to-do list: lineups to submit, Armageddon nominations to make."""
    own = team_of_user(user, team_id)
    ensure_team_access(user, own)
    team = uow.teams.get_or_raise(Team, own)
    rows = uow.rounds.matches_of_team(own)
    lineups = uow.teams.lineups_of_matches(m.id for m, _ in rows)
    teams = uow.teams.teams_by_id(t for m, _ in rows for t in (m.first_team_id, m.second_team_id) if t != own)
    matches = []
    now = utcnow()
    for match, rnd in rows:
        if match.leg == 3:
            continue  # the Armageddon game has no lineup
        other = match.second_team_id if match.first_team_id == own else match.first_team_id
        matches.append(
            CaptainMatch(
                match_id=match.id or 0,
                round_name=rnd.name or f"Round {rnd.number}",
                opponent=teams[other].name if other in teams else "?",
                starts_at=effective_deadline(rnd),
                lineup_submitted=(match.id or 0, own) in lineups,
                open=lineup_is_open(rnd, now),
            )
        )
    duels = []
    duel_rows = list(uow.playoff.duels_of_team(own))
    armageddons = uow.playoff.armageddons_of_duels(d.id for d in duel_rows)
    duel_teams = uow.teams.teams_by_id(
        t for d in duel_rows for t in (d.first_team_id, d.second_team_id) if t != own
    )
    for duel in duel_rows:
        other_id = duel.second_team_id if duel.first_team_id == own else duel.first_team_id
        armageddon = armageddons.get(duel.id or 0)
        nominated = False
        if armageddon is not None:
            first = duel.first_team_id == own
            nominated = (armageddon.first_nominee_id if first else armageddon.second_nominee_id) is not None
        if duel.status == DuelStatus.WAITING.value:
            continue
        duels.append(
            CaptainDuel(
                duel_id=duel.id or 0,
                key=duel.key,
                round_name=duel.round_name,
                opponent=duel_teams[other_id].name if other_id in duel_teams else "?",
                armageddon_phase=armageddon.phase.value if armageddon else None,
                nominated=nominated and armageddon is not None,
            )
        )
    reset = last_password_reset(uow, user_id=user.id) if user.role is Role.CAPTAIN else None
    return CaptainHome(own, team.name, tuple(matches), tuple(duels), reset)


def captain_must_nominate(home: CaptainHome) -> list[CaptainDuel]:
    return [d for d in home.duels if d.armageddon_phase == ArmageddonPhase.NOMINATING.value]
