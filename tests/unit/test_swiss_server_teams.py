"""Staff operations on the teams of a running Swiss stage (orchestrator/services/swiss/entries.py): a
withdrawal, a late entry, an absence and ending the stage early; the rounds paired after them are the
engine's pairing of the same changes made in the domain."""

from __future__ import annotations

from datetime import timedelta

import pytest

from orchestrator.adapters.tables import Round, RoundStatus, Stage, Team
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.domain.swiss import SwissTeam, add_late_entry, mark_absent, withdraw_team
from orchestrator.domain.swiss.simulate import swiss_standings
from orchestrator.domain.tiebreaks import parse_chain
from orchestrator.errors import Conflict, ValidationFailed
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.results import late_changes, results
from orchestrator.services.results.standings import pool_standings
from orchestrator.services.setup.pool_draft import final_places
from orchestrator.services.setup.stage_start import start_stage
from orchestrator.services.swiss import entries
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.teams.rosters import import_rosters
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import (
    ACTOR,
    SWISS_THEN_FINAL,
    Mirror,
    late_team_csv,
    pair_publish_play,
    running_swiss,
)


def test_withdrawal_late_entry_and_absence_change_the_next_rounds_as_in_the_domain(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
        event_id = uow.events.get_or_raise(Stage, stage_id).event_id
    mirror = Mirror()
    first = pair_publish_play(uow_factory, stage_id, mirror)
    leaver, missing = first.pairings[0].first_id, first.pairings[1].second_id
    with uow_factory() as uow:
        import_rosters(uow, event_id=event_id, csv_text=late_team_csv(), actor=ACTOR)
    with uow_factory() as uow:
        late_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == "Latecomers")
        # a draft made before the changes is discarded by them
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with uow_factory() as uow:
        gone = entries.withdraw_team(uow, stage_id=stage_id, team_id=leaver, reason="illness", actor=ACTOR)
    assert gone.round_no == 2 and gone.discarded_draft == 2
    with uow_factory() as uow:
        assert uow.rounds.get_or_raise(Round, draft.round_id).status == RoundStatus.UNPAIRED.value
        joined = entries.add_late_entry(uow, stage_id=stage_id, team_id=late_id, reason="visa", actor=ACTOR)
        absent = entries.mark_absent(
            uow, stage_id=stage_id, team_id=missing, round_no=2, reason="travel", actor=ACTOR
        )
    assert joined.round_no == 2 and absent.round_no == 2
    state = withdraw_team(mirror.state, gone.team, from_round=2)
    state = add_late_entry(state, SwissTeam("Latecomers", (2610, 2590, 2575, 2550, 2500), joined=2))
    mirror.state = mark_absent(state, absent.team, round_no=2)
    second = pair_publish_play(uow_factory, stage_id, mirror)
    paired = {name for p in second.pairings for name in (p.first, p.second)} | {second.bye}
    assert "Latecomers" in paired and gone.team not in paired and absent.team not in paired
    pair_publish_play(uow_factory, stage_id, mirror)
    with uow_factory() as uow:
        stored = pool_standings(uow, pool_id=uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)
        entry = uow.rounds.entry_of_team(stage_id, late_id)
        assert entry is not None and entry.pairing_number == 8 and entry.joined_round == 2
        assert uow.teams.get_or_raise(Team, leaver).withdrawn_at is not None
    expected = swiss_standings(mirror.state, parse_chain(["olympiad-2026"]))
    assert [(r.team, r.rank, r.values) for r in stored.rows] == [
        (r.team, r.rank, r.values) for r in expected.rows
    ]


def test_team_operations_refuse_bad_requests_with_reasons(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    first = pair_publish_play(uow_factory, stage_id)
    team = first.pairings[0].first_id
    with uow_factory() as uow, pytest.raises(ValidationFailed, match="reason"):
        entries.withdraw_team(uow, stage_id=stage_id, team_id=team, reason=" ", actor=ACTOR)
    with uow_factory() as uow, pytest.raises(Conflict, match="before it is published"):
        entries.mark_absent(uow, stage_id=stage_id, team_id=team, round_no=1, reason="late", actor=ACTOR)
    with uow_factory() as uow, pytest.raises(Conflict, match="already plays"):
        entries.add_late_entry(uow, stage_id=stage_id, team_id=team, reason="x", actor=ACTOR)
    with uow_factory() as uow, pytest.raises(ValidationFailed, match="does not play"):
        entries.withdraw_team(uow, stage_id=stage_id, team_id=99_999, reason="x", actor=ACTOR)


def test_ending_early_cancels_the_unstarted_rounds_and_makes_the_standings_final(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        stage_id = running_swiss(uow)
    mirror = Mirror()
    pair_publish_play(uow_factory, stage_id, mirror)
    pair_publish_play(uow_factory, stage_id, mirror)
    with uow_factory() as uow:
        third = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    with uow_factory() as uow:
        swiss_rounds.publish_round_pairing(uow, round_id=third.round_id, actor=ACTOR)
    with uow_factory() as uow:
        later = utcnow() + timedelta(hours=1)  # the appeal windows of round 2 have passed
        closed = entries.end_swiss_early(
            uow, stage_id=stage_id, reason="venue closed", actor=ACTOR, now=later
        )
    closed.raise_refusal()
    with uow_factory() as uow:
        stage = uow.events.get_or_raise(Stage, stage_id)
        statuses = [r.status for r in uow.rounds.rounds_of_stage(stage_id)]
        assert stage.status == "closed"
        assert statuses == ["finished", "finished", "cancelled", "cancelled", "cancelled"]
        assert uow.rounds.matches_of_round(third.round_id) == []
        finals = uow.rounds.final_standings(stage_id)
        assert finals and not any(row.provisional for row in finals)
        places = final_places(uow, stage_id=stage_id)
        names = {t.id: t.name for t in uow.teams.teams_of_event(stage.event_id)}
    expected = swiss_standings(mirror.state, parse_chain(["olympiad-2026"]))
    assert [names[t] for t in next(iter(places.values()))] == [r.team for r in expected.rows]


def _final_built_from_two_rounds(factory: UnitOfWorkFactory) -> tuple[int, int, int, Mirror]:
    """The Swiss-then-final event: two rounds played, the Swiss ended early, the final's bracket built;
    returns the event, Swiss and final stage ids and the mirror of the Swiss."""
    with factory() as uow:
        event_id = make_event(uow, SWISS_THEN_FINAL)
        stage_id = stage_id_of(uow, event_id, "open")
        start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    mirror = Mirror()
    pair_publish_play(factory, stage_id, mirror)
    pair_publish_play(factory, stage_id, mirror)
    later = utcnow() + timedelta(hours=1)
    with factory() as uow:
        entries.end_swiss_early(uow, stage_id=stage_id, reason="test", actor=ACTOR, now=later).raise_refusal()
    with factory() as uow:
        final_id = stage_id_of(uow, event_id, "final")
        build_bracket(uow, stage_id=final_id, actor=ACTOR, now=later)
    return event_id, stage_id, final_id, mirror


def test_the_top_of_a_closed_swiss_stage_fills_the_knockout_slots_swiss_1st_and_2nd(
    uow_factory: UnitOfWorkFactory,
) -> None:
    _event_id, _stage_id, final_id, mirror = _final_built_from_two_rounds(uow_factory)
    with uow_factory() as uow:
        duel = uow.playoff.duels_of_stage(final_id)[0]
        teams = uow.teams.teams_by_id([duel.first_team_id, duel.second_team_id])
        pair = (teams[duel.first_team_id or 0].name, teams[duel.second_team_id or 0].name)
    expected = swiss_standings(mirror.state, parse_chain(["olympiad-2026"]))
    assert pair == (expected.rows[0].team, expected.rows[1].team)


def test_a_correction_after_the_swiss_stage_closed_is_reviewed_against_the_knockout_built_from_it(
    uow_factory: UnitOfWorkFactory,
) -> None:
    event_id, stage_id, final_id, mirror = _final_built_from_two_rounds(uow_factory)
    leader = swiss_standings(mirror.state, parse_chain(["olympiad-2026"])).rows[0].team
    with uow_factory() as uow:  # every game of the leader becomes a loss
        leader_id = next(t.id or 0 for t in uow.teams.teams_of_event(event_id) if t.name == leader)
        own = [
            m
            for m in uow.rounds.matches_of_stage(stage_id)
            if leader_id in (m.first_team_id, m.second_team_id)
        ]
        boards = uow.boards.boards_by_match(m.id for m in own)
        fixes = [
            (
                b.id or 0,
                b.version,
                "0-1" if (b.board_no % 2 == 1) == (m.first_team_id == leader_id) else "1-0",
            )
            for m in own
            for b in boards[m.id or 0]
        ]
    for board_id, version, code in fixes:
        with uow_factory() as uow:
            results.correct_result(
                uow, board_id=board_id, result=code, expected_version=version, actor=ACTOR, reason="fair play"
            )
    with uow_factory() as uow:
        changes = late_changes.late_changes(uow, stage_id=final_id, shown=True)
    assert changes and leader in changes[0].consequence.now_out
