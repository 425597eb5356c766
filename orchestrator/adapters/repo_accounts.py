"""Accounts (``uow.accounts``): users, captains and the login attempts that throttle
sign-in.

Part of the adapters layer (docs/architecture.md, habit 7); the unit of work creates it on first use.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, func
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository, constant
from orchestrator.adapters.tables import LoginAttempt, Role, Team, User


class AccountRepository(Repository):
    """Accounts (``uow.accounts``): users, captains and the login attempts that throttle
    sign-in."""

    # --- users ----------------------------------------------------------------------------------------------

    def get_by_username(self, username: str) -> User | None:
        return self.session.exec(select(User).where(User.username == username.strip().lower())).first()

    def get_by_invitation_hash(self, token_hash: str) -> User | None:
        return self.session.exec(select(User).where(User.invitation_token_hash == token_hash)).first()

    def list_users(self) -> Sequence[User]:
        return self.session.exec(select(User).order_by(col(User.role), col(User.username))).all()

    def count_users(self) -> int:
        return int(self.session.exec(select(func.count()).select_from(User)).one())

    # --- captains -------------------------------------------------------------------------------------------

    def users_of_team(self, team_id: int) -> Sequence[User]:
        return self.session.exec(
            select(User).where(User.team_id == team_id).order_by(col(User.username))
        ).all()

    def users_of_event(self, event_id: int) -> Sequence[User]:
        return self.session.exec(
            select(User)
            .join(Team, col(Team.id) == col(User.team_id))
            .where(Team.event_id == event_id)
            .order_by(col(User.username))
        ).all()

    def enabled_captains_of_team(self, team_id: int) -> Sequence[User]:
        return self.session.exec(
            select(User)
            .where(
                User.team_id == team_id,
                User.role == Role.CAPTAIN.value,
                col(User.disabled).is_(False),
            )
            .order_by(col(User.id))
        ).all()

    def teams_with_mail(self) -> set[int]:
        """Teams with at least one enabled captain who has an address: the only teams a scan mails."""
        rows = self.session.exec(
            select(User.team_id).where(
                col(User.team_id).is_not(None),
                col(User.role) == constant(Role.CAPTAIN.value),
                col(User.disabled).is_(False),
                col(User.email).is_not(None),
            )
        ).all()
        return {team_id for team_id in rows if team_id is not None}

    def captain_languages(self, team_ids: set[int]) -> dict[int, str]:
        """Per team, the language of its first captain (lowest id) who chose one; teams without are absent."""
        if not team_ids:
            return {}
        rows = self.session.exec(
            select(User.team_id, User.language)
            .where(
                col(User.team_id).in_(sorted(team_ids)),
                User.role == Role.CAPTAIN.value,
                col(User.disabled).is_(False),
                col(User.language).is_not(None),
            )
            .order_by(col(User.id).desc())
        ).all()
        # Descending ids: the lowest id of a team is written last and wins.
        return {team_id: language for team_id, language in rows if team_id is not None and language}

    # --- login attempts (docs/security.md, "Login throttling") ----------------------------------------------

    def record_login_attempt(self, *, username: str, ip: str, success: bool, at: datetime) -> None:
        self.insert(LoginAttempt(username=username, ip=ip, success=success, at=at))

    def recent_failures_for_username(self, username: str, since: datetime) -> list[datetime]:
        """Times of failed attempts for ``username`` after ``since`` and after its last success."""
        return self._failures_since_success(LoginAttempt.username == username, since)

    def recent_failures_for_username_at_ip(self, username: str, ip: str, since: datetime) -> list[datetime]:
        """Times of failed attempts for ``username`` from address ``ip`` after ``since`` and after its last
        success from that address: what one address did to one account, nothing another address did."""
        return self._failures_since_success(
            and_(col(LoginAttempt.username) == username, col(LoginAttempt.ip) == ip), since
        )

    def _failures_since_success(self, condition: Any, since: datetime) -> list[datetime]:
        last_success = self.session.exec(
            select(func.max(LoginAttempt.at)).where(condition, col(LoginAttempt.success).is_(True))
        ).one()
        floor = max(since, last_success) if last_success is not None else since
        return self._failure_times(condition, floor)

    def failure_counts_since(self, since: datetime) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """Failed attempts after ``since``, counted per username and per address, most first."""

        def counts(column: Any) -> list[tuple[str, int]]:
            rows = self.session.exec(
                select(column, func.count())
                .where(col(LoginAttempt.success).is_(False), LoginAttempt.at > since)
                .group_by(column)
                .order_by(func.count().desc(), column)
            ).all()
            return [(str(name), int(n)) for name, n in rows]

        return counts(LoginAttempt.username), counts(LoginAttempt.ip)

    def recent_failures_for_ip(self, ip: str, since: datetime) -> list[datetime]:
        return self._failure_times(LoginAttempt.ip == ip, since)

    def _failure_times(self, condition: Any, since: datetime) -> list[datetime]:
        rows = self.session.exec(
            select(LoginAttempt.at)
            .where(condition, col(LoginAttempt.success).is_(False), LoginAttempt.at > since)
            .order_by(col(LoginAttempt.at))
        ).all()
        return list(rows)

    def delete_login_attempts_before(self, before: datetime) -> int:
        result: Any = self.session.execute(
            LoginAttempt.__table__.delete().where(LoginAttempt.__table__.c.at < before)  # type: ignore[attr-defined]
        )
        return int(result.rowcount or 0)
