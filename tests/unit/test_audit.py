"""The audit log's entry for a change to a row (SQLite in a temporary directory)."""

from __future__ import annotations

from orchestrator.adapters.tables import Event, Team
from orchestrator.adapters.uow import UnitOfWorkFactory


def test_an_entry_about_a_row_names_its_table_and_id(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        event = uow.events.insert(Event(slug="ev", name="Event"))
        team = uow.teams.insert(Team(event_id=event.id or 0, name="Norway", federation="NOR", seed=1))
        uow.audit.change(team, "team.withdraw", actor="arbiter", event_id=event.id, reason="no show")
        uow.audit.change(event, "event.rename", actor="owner", old={"name": "E"}, new={"name": "Event"})
        ids = (event.id or 0, team.id or 0)
    with uow_factory() as uow:
        (withdrawn,) = uow.audit.for_entity("team", ids[1])
        (renamed,) = uow.audit.for_entity("event", ids[0])
    assert (withdrawn.entity, withdrawn.entity_id, withdrawn.action) == ("team", ids[1], "team.withdraw")
    assert (withdrawn.actor, withdrawn.event_id, withdrawn.reason) == ("arbiter", ids[0], "no show")
    assert (renamed.entity, renamed.entity_id, renamed.old, renamed.new) == (
        "event",
        ids[0],
        {"name": "E"},
        {"name": "Event"},
    )
