"""A Swiss stage run by the server on PostgreSQL (docs/swiss.md, "The server"): paired, published and
played round by round with a withdrawal, a late entry and an absence, then ended early; every round equals
the engine's pairing of the same stage kept in the domain, and the final standings the domain's."""

from __future__ import annotations

from datetime import timedelta

from orchestrator.adapters.tables import RoundStatus, Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.swiss import SwissTeam, add_late_entry, mark_absent, withdraw_team
from orchestrator.domain.swiss.simulate import swiss_standings
from orchestrator.domain.tiebreaks import parse_chain
from orchestrator.services.setup.pool_draft import final_places
from orchestrator.services.swiss import entries
from orchestrator.services.teams.rosters import import_rosters
from tests.support.swiss import ACTOR, Mirror, late_team_csv, pair_publish_play, running_swiss


def test_a_swiss_stage_with_team_changes_runs_and_ends_early_on_postgresql(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow, slug="swiss-pg")
        event_id = uow.events.get_or_raise(Stage, stage_id).event_id
    mirror = Mirror()
    first = pair_publish_play(uow_factory, stage_id, mirror)
    with uow_factory() as uow:
        import_rosters(uow, event_id=event_id, csv_text=late_team_csv(), actor=ACTOR)
    with uow_factory() as uow:
        late_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Latecomers")
        gone = entries.withdraw_team(
            uow, stage_id=stage_id, team_id=first.pairings[0].second_id, reason="illness", actor=ACTOR
        )
        entries.add_late_entry(uow, stage_id=stage_id, team_id=late_id, reason="visa", actor=ACTOR)
        absent = entries.mark_absent(
            uow,
            stage_id=stage_id,
            team_id=first.pairings[1].first_id,
            round_no=3,
            reason="travel",
            actor=ACTOR,
        )
    state = withdraw_team(mirror.state, gone.team, from_round=2)
    state = add_late_entry(state, SwissTeam("Latecomers", (2610, 2590, 2575, 2550, 2500), joined=2))
    mirror.state = mark_absent(state, absent.team, round_no=3)
    pair_publish_play(uow_factory, stage_id, mirror)
    pair_publish_play(uow_factory, stage_id, mirror)
    with uow_factory() as uow:
        entries.end_swiss_early(
            uow, stage_id=stage_id, reason="venue closed", actor=ACTOR, now=utcnow() + timedelta(hours=1)
        ).raise_refusal()
    with uow_factory() as uow:
        statuses = [r.status for r in uow.rounds.rounds_of_stage(stage_id)]
        places = next(iter(final_places(uow, stage_id=stage_id).values()))
        names = {t.id: t.name for t in uow.teams.teams_of_event(event_id)}
    assert statuses == [RoundStatus.FINISHED.value] * 3 + [RoundStatus.CANCELLED.value] * 2
    expected = [r.team for r in swiss_standings(mirror.state, parse_chain(["olympiad-2026"])).rows]
    assert [names[t] for t in places] == [name for name in expected if name != gone.team]
