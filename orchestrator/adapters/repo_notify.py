"""Queries of the notifications (services/notify, docs/notifications.md), exposed as ``uow.notify``."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from orchestrator.adapters.repositories import Repository
from orchestrator.adapters.tables import (
    Armageddon,
    ArmageddonStatus,
    AuditLog,
    Duel,
    Event,
    EventStatus,
    Lineup,
    LinkStatus,
    Match,
    Outbox,
    OutboxStatus,
    Player,
    PlayerLink,
    Pool,
    PoolEntry,
    Role,
    Round,
    RoundStatus,
    Stage,
    StageStatus,
    Team,
    User,
)


class NotifyRepository(Repository):
    # ------------------------------------------------------------------ outbox

    def outbox_by_key(self, key: str) -> Outbox | None:
        return self.session.exec(select(Outbox).where(Outbox.key == key)).first()

    def add_outbox(self, row: Outbox) -> Outbox | None:
        """Insert ``row``; None when another transaction queued the same key first (idempotency)."""
        try:
            with self.session.begin_nested():
                self.session.add(row)
                self.session.flush()
        except IntegrityError:
            return None
        return row

    def lock_outbox(self, outbox_id: int) -> Outbox | None:
        """The row, locked until the end of the transaction (one sender per mail)."""
        return self.session.exec(
            select(Outbox).where(Outbox.id == outbox_id).with_for_update(key_share=True)
        ).first()

    def outbox_list(self, status: str | None, limit: int) -> Sequence[Outbox]:
        query = select(Outbox)
        if status:
            query = query.where(Outbox.status == status)
        return self.session.exec(query.order_by(col(Outbox.id).desc()).limit(limit)).all()

    def outbox_due(self, now: datetime, limit: int = 200) -> Sequence[int]:
        """Queued mails whose wait is over (a lost job or a restart must not leave them waiting)."""
        return self.session.exec(
            select(Outbox.id)
            .where(
                Outbox.status == OutboxStatus.QUEUED.value,
                (col(Outbox.next_at).is_(None)) | (col(Outbox.next_at) <= now),
            )
            .order_by(col(Outbox.id))
            .limit(limit)
        ).all()  # type: ignore[return-value]

    # ------------------------------------------------------------------ recipients

    def captains_of_team(self, team_id: int) -> Sequence[User]:
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
                User.role == Role.CAPTAIN.value,
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

    def players_to_link(self) -> Sequence[tuple[Player, Team, Event]]:
        """Players with an e-mail address and no working link, in events that are published or running."""
        return self.session.exec(
            select(Player, Team, Event)
            .join(Team, col(Team.id) == Player.team_id)
            .join(Event, col(Event.id) == Player.event_id)
            .outerjoin(PlayerLink, col(PlayerLink.player_id) == Player.id)
            .where(
                col(Player.email).is_not(None),
                col(Event.status).in_([EventStatus.PUBLISHED.value, EventStatus.RUNNING.value]),
                (col(PlayerLink.id).is_(None)) | (PlayerLink.status != LinkStatus.LINKED.value),
            )
            .order_by(col(Player.id))
        ).all()

    # ------------------------------------------------------------------ what is due

    def upcoming_rounds(self, now: datetime, until: datetime) -> Sequence[tuple[Round, Stage, Event]]:
        """Scheduled rounds of running stages whose lineup deadline (or start) is between now and until."""
        deadline = col(Round.lineup_deadline_at)
        start = col(Round.scheduled_at)
        return self.session.exec(
            select(Round, Stage, Event)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                Round.status == RoundStatus.SCHEDULED.value,
                Stage.status == StageStatus.RUNNING.value,
                ((deadline.is_not(None)) & (deadline > now) & (deadline <= until))
                | ((deadline.is_(None)) & (start > now) & (start <= until)),
            )
            .order_by(col(Round.id))
        ).all()

    def matches_of_round(self, round_id: int) -> Sequence[Match]:
        return self.session.exec(
            select(Match).where(Match.round_id == round_id).order_by(col(Match.match_no))
        ).all()

    def lineups_of_round(self, round_id: int) -> set[tuple[int, int]]:
        """(match id, team id) of every lineup submitted for the round's matches."""
        rows = self.session.exec(
            select(Lineup.match_id, Lineup.team_id)
            .join(Match, col(Match.id) == Lineup.match_id)
            .where(Match.round_id == round_id)
        ).all()
        return {(match_id, team_id) for match_id, team_id in rows}

    def nominating_armageddons(self, now: datetime) -> Sequence[tuple[Armageddon, Duel, Stage, Event]]:
        return self.session.exec(
            select(Armageddon, Duel, Stage, Event)
            .join(Duel, col(Duel.id) == Armageddon.duel_id)
            .join(Stage, col(Stage.id) == Duel.stage_id)
            .join(Event, col(Event.id) == Stage.event_id)
            .where(
                Armageddon.status == ArmageddonStatus.NOMINATING.value,
                col(Armageddon.deadline_at).is_not(None),
                col(Armageddon.deadline_at) > now,
            )
            .order_by(col(Armageddon.id))
        ).all()

    def audit_since(self, actions: Sequence[str], since: datetime) -> Sequence[AuditLog]:
        return self.session.exec(
            select(AuditLog)
            .where(col(AuditLog.action).in_(list(actions)), col(AuditLog.at) >= since)
            .order_by(col(AuditLog.id))
        ).all()

    def teams_of_stage(self, stage_id: int) -> Sequence[int]:
        return self.session.exec(
            select(PoolEntry.team_id)
            .join(Pool, col(Pool.id) == PoolEntry.pool_id)
            .where(Pool.stage_id == stage_id)
            .order_by(col(PoolEntry.team_id))
        ).all()

    def team_schedule(
        self, team_id: int, stage_id: int | None = None
    ) -> Sequence[tuple[Match, Round, Stage]]:
        """The team's matches with their rounds and stages, by start (a stage's only, if given)."""
        query = (
            select(Match, Round, Stage)
            .join(Round, col(Round.id) == Match.round_id)
            .join(Stage, col(Stage.id) == Round.stage_id)
            .where((Match.first_team_id == team_id) | (Match.second_team_id == team_id))
        )
        if stage_id is not None:
            query = query.where(Stage.id == stage_id)
        return self.session.exec(
            query.order_by(col(Round.scheduled_at), col(Stage.position), col(Round.number))
        ).all()

    def team_armageddons(self, team_id: int) -> Sequence[tuple[Armageddon, Duel]]:
        return self.session.exec(
            select(Armageddon, Duel)
            .join(Duel, col(Duel.id) == Armageddon.duel_id)
            .where((Duel.first_team_id == team_id) | (Duel.second_team_id == team_id))
            .order_by(col(Armageddon.id))
        ).all()
