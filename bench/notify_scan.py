"""How long one ``notify.scan`` takes on the 2020 Online Olympiad (163 teams; its first stage, started).

    .venv/bin/python bench/notify_scan.py [--runs 3] [--no-mail]

SQLite in a temporary directory. Every team gets a captain with an address (``--no-mail``: none, as in a
demo), then the scan runs 24 hours before round 1 (every lineup open) and again (nothing new to queue).
Prints each scan's wall time and what it queued. Sending is not measured (jobs are recorded, not run).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlmodel import col, func, select

from orchestrator.adapters.tables import Outbox, Role, Round, User
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import init_db, make_engine, make_session_factory
from orchestrator.jobs import dispatch
from orchestrator.services.notify.triggers import scan
from tests.support.factories import EVENT_2020, make_event, running_stage


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-mail", action="store_true")
    args = parser.parse_args()
    dispatch.send = lambda name, *ids, countdown=None: None  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as folder:
        settings = Settings(data_dir=Path(folder), environment="test")
        engine = make_engine(settings.sqlalchemy_url)
        init_db(engine=engine)
        factory = make_session_factory(engine)
        started = time.perf_counter()
        with UnitOfWork(factory) as uow:
            event_id = make_event(uow, EVENT_2020)
            stage_id = running_stage(uow, event_id=event_id)
            teams = uow.teams.teams_of_event(event_id)
            for team in teams:
                uow.session.add(
                    User(
                        username=f"captain-{team.id}",
                        role=Role.CAPTAIN.value,
                        team_id=team.id,
                        email=None if args.no_mail else f"captain-{team.id}@example.org",
                    )
                )
            first = uow.session.exec(
                select(func.min(col(Round.scheduled_at))).where(Round.stage_id == stage_id)
            ).one()
        print(f"set-up: {len(teams)} teams, stage started, {time.perf_counter() - started:.1f} s")
        now = first - timedelta(hours=23)
        for run in range(1, args.runs + 1):
            began = time.perf_counter()
            with UnitOfWork(factory) as uow:
                queued = scan(uow, now=now, settings=settings).queued
            elapsed = time.perf_counter() - began
            with UnitOfWork(factory) as uow:
                total = uow.session.exec(select(func.count()).select_from(Outbox)).one()
            print(f"scan {run}: {elapsed * 1000:.0f} ms, queued {queued or 'nothing'}, outbox {total} rows")
        engine.dispose()


if __name__ == "__main__":
    main()
