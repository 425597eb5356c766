"""Beat's idle statements are planned once per connection beside many finished events (PostgreSQL).

A periodic job with nothing to do sends the same few statements at every tick (rounds due, open rounds,
running stages, knockout stages, Armageddons due, mail due, players to link). psycopg prepares a statement
after its fifth run on a connection; PostgreSQL then keeps one generic plan for it only when that plan is
no worse than the plans it makes for the values given. With a status sent as a parameter and statistics
that say nearly every row is finished, the generic plan read every finished row, so the server planned the
statement anew at every tick and an idle tick cost it more with finished events stored than with none.
The statuses are written into the statements' text (``repositories.constant``; docs/performance.md,
"Statuses in the statement's text"), and this test asks PostgreSQL which plans it used.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import Engine, text

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory, utcnow
from tests.support.databases import schema_at_head

FINISHED_EVENTS = 150
ROUNDS_PER_STAGE = 9
RUNS = 20  # psycopg prepares at the sixth run; PostgreSQL plans the first five executions for their values


@pytest.fixture
def finished_season(pg_scratch_url: str) -> Iterator[Engine]:
    """A migrated database holding only finished events (two closed stages, nine finished rounds each),
    analysed, as a federation's server between events."""
    schema_at_head(pg_scratch_url)
    engine = make_engine(pg_scratch_url)
    past = utcnow() - timedelta(days=30)
    with engine.begin() as connection:
        for number in range(FINISHED_EVENTS):
            event_id = connection.execute(
                text(
                    "INSERT INTO event (slug, name, status, definition_text, created_at, updated_at)"
                    " VALUES (:slug, :name, 'closed', '', :at, :at) RETURNING id"
                ),
                {"slug": f"finished-{number}", "name": f"Finished event {number}", "at": past},
            ).scalar_one()
            for position, key in enumerate(("pools", "playoff")):
                kind = "pools" if key == "pools" else "knockout"
                stage_id = connection.execute(
                    text(
                        "INSERT INTO stage (event_id, key, name, kind, position, status, tiebreaks, section)"
                        " VALUES (:event, :key, :key, :kind, :position, 'closed', '[]', '') RETURNING id"
                    ),
                    {"event": event_id, "key": key, "kind": kind, "position": position},
                ).scalar_one()
                connection.execute(
                    text(
                        "INSERT INTO round (stage_id, number, name, scheduled_at, status)"
                        " VALUES (:stage, :number, '', :at, 'finished')"
                    ),
                    [
                        {"stage": stage_id, "number": n, "at": past + timedelta(hours=n)}
                        for n in range(1, ROUNDS_PER_STAGE + 1)
                    ],
                )
    with engine.connect() as connection:
        connection.execution_options(isolation_level="AUTOCOMMIT").exec_driver_sql("ANALYZE")
    yield engine
    engine.dispose()


def test_idle_statements_keep_one_plan_beside_finished_events(finished_season: Engine) -> None:
    session_factory = make_session_factory(finished_season)
    with UnitOfWork(session_factory) as uow:
        for _ in range(RUNS):
            now = utcnow()
            assert not uow.rounds.due_rounds(now, timedelta(minutes=5))
            assert not uow.rounds.open_rounds()
            assert not uow.rounds.due_lineup_rounds(now)
            assert not uow.events.running_stages()
            assert not uow.events.running_knockout_stages()
            assert not uow.events.knockout_stages_not_started()
            assert not uow.playoff.armageddon_duels()
            assert not uow.playoff.due_armageddons(now)
            assert not uow.outbox.outbox_due(now)
            assert not uow.accounts.teams_with_mail()
            assert not uow.teams.players_to_link()
        plans = uow.session.execute(
            text("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
        ).all()
    idle = [(statement, generic) for statement, generic, _custom in plans if statement.startswith("SELECT")]
    assert len(idle) == 11  # each call above sends one (players_to_link reads no player: no event runs)
    replanned = [" ".join(statement.split()) for statement, generic in idle if generic == 0]
    assert replanned == []
