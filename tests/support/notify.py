"""A small event with captains for the notification tests (SQLite or PostgreSQL alike).

``small.yaml``: 4 teams (Norway, Sweden, Denmark, Finland), time zone Europe/Oslo, stage ``group`` one
pool of 4 playing 3 rounds of 2 matches. Captains: Norway's has an address, Sweden's has one and turned
"lineup open" off, Denmark's has none, Finland has no captain.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, select

from orchestrator.adapters.tables import Role, Round, Stage, User
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.services.accounts.users import create_user
from tests.support.factories import running_stage
from tests.support.web import PASSWORD


@dataclass(frozen=True)
class NotifyEvent:
    event_id: int
    stage_id: int
    teams: dict[str, int]  # name -> id
    rounds: list[Round]  # detached copies, by number


def _captain(uow: UnitOfWork, name: str, team_id: int, email: str | None, off: list[str]) -> None:
    user_id = create_user(uow, username=name, password=PASSWORD, role=Role.CAPTAIN, team_id=team_id)
    user = uow.accounts.get_or_raise(User, user_id)
    user.email, user.notify_off = email, off
    uow.session.add(user)


def notify_event(factory: UnitOfWorkFactory) -> NotifyEvent:
    with factory() as uow:
        stage_id = running_stage(uow)
        stage = uow.events.get_or_raise(Stage, stage_id)
        teams = {t.name: t.id or 0 for t in uow.teams.teams_of_event(stage.event_id)}
        _captain(uow, "cap-nor", teams["Norway"], "nor@example.org", [])
        _captain(uow, "cap-swe", teams["Sweden"], "swe@example.org", ["lineup_open"])
        _captain(uow, "cap-den", teams["Denmark"], None, [])
        rounds = list(
            uow.session.exec(
                select(Round).where(Round.stage_id == stage_id).order_by(col(Round.number))
            ).all()
        )
        for row in rounds:
            uow.session.expunge(row)
        return NotifyEvent(stage.event_id, stage_id, teams, rounds)
