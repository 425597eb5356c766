"""A Swiss stage whose entrants come from a pools stage, then feed a knockout
(``tests/fixtures/events/pools-swiss-final.yaml``: two pools of four, their top 2 and seeds 9-12 in a
3-round Swiss, its top 2 in a final): the validator accepts the chain, the simulation plays it, and the
server starts the Swiss from the pools' final standings and builds the final from the Swiss's
(docs/swiss.md, "The server")."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi import FastAPI
from typer.testing import CliRunner

from orchestrator.adapters.tables import Role
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.cli import app
from orchestrator.db import utcnow
from orchestrator.domain.event import summary
from orchestrator.domain.simulation import simulate_event
from orchestrator.domain.swiss import start_state
from orchestrator.domain.swiss.simulate import swiss_team
from orchestrator.errors import Conflict
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services.accounts.users import create_user
from orchestrator.services.playoff.commands import build_bracket
from orchestrator.services.results import standings as standings_service
from orchestrator.services.setup import pool_draft
from orchestrator.services.setup.stage_start import start_stage
from orchestrator.services.swiss import entries
from tests.support.factories import REPO_ROOT, make_event, running_stage, stage_id_of
from tests.support.late_changes import LATER, play_stage
from tests.support.swiss import ACTOR, engine_pairing, pair_and_publish, play_round, view_pairing
from tests.support.web import PASSWORD, login

FILE = REPO_ROOT / "tests" / "fixtures" / "events" / "pools-swiss-final.yaml"
TEXT = FILE.read_text(encoding="utf-8")
EVENT = parse_event(TEXT, source=FILE.name)
# The pools' results: the team listed earlier wins every match (seed order, so seeds 1-8 by seed).
ORDER = [team.name for team in sorted(EVENT.teams, key=lambda team: team.seed)]
SEEDED = [team.name for team in EVENT.teams if 9 <= team.seed <= 12]


def test_the_validator_accepts_pools_into_a_swiss_into_a_knockout_and_counts_the_qualifiers() -> None:
    assert [stage.key for stage in EVENT.stages] == ["prelim", "open", "final"]
    text = str(summary(EVENT))
    # 2 pools x top 2 = 4 qualifiers, + seeds 9-12 = 8 teams in the Swiss; its top 2 in the final.
    assert "4 qualifiers (top 2 of 2 Preliminaries pools) + seeds 9–12 (4) = 8" in text
    assert "2 qualifiers (top 2 of Open) = 2" in text


def test_the_validator_refuses_a_swiss_taking_more_places_than_the_pools_advance() -> None:
    with pytest.raises(EventDefinitionError) as error:
        parse_event(TEXT.replace("{from: prelim, top: 2}", "{from: prelim, top: 3}"), source=FILE.name)
    assert "takes the top 3 of each Preliminaries pool, but only the top 2 advance" in str(error.value)


def test_the_simulation_plays_the_swiss_with_the_pool_qualifiers_and_the_final_with_its_top_two() -> None:
    result = simulate_event(EVENT, seed=3)
    prelim = result.stages[0]
    qualifiers = {name for pool in prelim.pools for name in pool.standings.order[:2]}
    (swiss,) = result.swiss
    assert {team.name for team in swiss.state.teams} == qualifiers | set(SEEDED)
    assert len(swiss.rounds) == 3
    (final,) = result.duels
    assert (final.record.first, final.record.second) == swiss.standings.order[:2]


@pytest.fixture
def prelim_closed(uow_factory: UnitOfWorkFactory) -> tuple[int, int]:
    """The event stored and its pools stage played (the earlier team of ``ORDER`` wins) and closed;
    returns the event id and the Swiss stage's id."""
    with uow_factory() as uow:
        event_id = make_event(uow, TEXT)
        prelim = running_stage(uow, event_id=event_id, stage_key="prelim")
        play_stage(uow, prelim, ORDER)
    with uow_factory() as uow:
        swiss_id = stage_id_of(uow, event_id, "open")
        with pytest.raises(Conflict, match="Preliminaries has no final standings yet"):
            start_stage(uow, stage_id=swiss_id, actor=ACTOR, initial_colour="W")
    with uow_factory() as uow:
        standings_service.close_stage(uow, stage_id=prelim, actor=ACTOR, now=utcnow() + LATER)
    return event_id, swiss_id


def test_the_server_starts_the_swiss_from_the_pools_final_standings_and_the_final_from_the_swiss(
    uow_factory: UnitOfWorkFactory, prelim_closed: tuple[int, int]
) -> None:
    event_id, swiss_id = prelim_closed
    with uow_factory() as uow:
        prelim = stage_id_of(uow, event_id, "prelim")
        pools = pool_draft.describe_pools(uow, stage_id=prelim).pools
        # Each pool's top 2: its two teams earliest in ORDER (they won every match they played).
        expected = [sorted((t.name for t in pool.teams), key=ORDER.index)[:2] for pool in pools]
        start_stage(uow, stage_id=swiss_id, actor=ACTOR, initial_colour="W").raise_refusal()
    with uow_factory() as uow:
        numbered = {
            t.pairing_number: t.name for t in pool_draft.describe_pools(uow, stage_id=swiss_id).pools[0].teams
        }
    # Pool winners first, then the 2nd places, then the seeds (docs/event-file.md, stage_entrants) ...
    entrants = [order[0] for order in expected] + [order[1] for order in expected] + SEEDED
    assert sorted(numbered.values()) == sorted(entrants)
    # ... numbered by the initial ranking of the engine (C.04.6 art. 1.1, Olympiad Pairing Rules 3.1).
    state = start_state(
        [swiss_team(EVENT.team(name)) for name in entrants],
        boards=EVENT.team_format.boards,
        rounds=3,
        scoring=EVENT.match_scoring,
        initial_colour="W",
    )
    assert [numbered[n] for n in sorted(numbered)] == [team.name for team in state.teams]
    # Round 1 on the server is the round FIDE's engine pairs on that state.
    first = pair_and_publish(uow_factory, swiss_id)
    assert view_pairing(first) == engine_pairing(state, 1)
    play_round(uow_factory, first.round_id)
    for _ in range(2):
        play_round(uow_factory, pair_and_publish(uow_factory, swiss_id).round_id)
    later = utcnow() + timedelta(hours=1)
    with uow_factory() as uow:
        standings_service.close_stage(uow, stage_id=swiss_id, actor=ACTOR, now=later)
    with uow_factory() as uow:
        places = pool_draft.final_places(uow, stage_id=swiss_id)
        top_two = next(iter(places.values()))[:2]
        final_id = stage_id_of(uow, event_id, "final")
        build_bracket(uow, stage_id=final_id, actor=ACTOR, now=later)
    with uow_factory() as uow:
        duel = uow.playoff.duels_of_stage(final_id)[0]
        assert [duel.first_team_id, duel.second_team_id] == top_two  # Open 1st - Open 2nd


def test_ending_the_swiss_early_needs_no_pool_stage_reopened(
    uow_factory: UnitOfWorkFactory, prelim_closed: tuple[int, int]
) -> None:
    """The Swiss of pool qualifiers runs as any Swiss: ended after round 1, its standings are final."""
    _event_id, swiss_id = prelim_closed
    with uow_factory() as uow:
        start_stage(uow, stage_id=swiss_id, actor=ACTOR, initial_colour="B").raise_refusal()
    play_round(uow_factory, pair_and_publish(uow_factory, swiss_id).round_id)
    with uow_factory() as uow:
        entries.end_swiss_early(
            uow, stage_id=swiss_id, reason="test", actor=ACTOR, now=utcnow() + timedelta(hours=1)
        ).raise_refusal()
    with uow_factory() as uow:
        assert len(next(iter(pool_draft.final_places(uow, stage_id=swiss_id).values()))) == 8


def test_simulate_prints_the_pools_before_the_swiss_that_takes_their_qualifiers() -> None:
    run = CliRunner().invoke(app, ["simulate", str(FILE), "--seed", "3"])
    assert run.exit_code == 0, run.output
    text = run.output
    assert text.index("Preliminaries pool A") < text.index("Open: standings after round 3")
    assert text.index("Open: standings after round 3") < text.index("Final")


def test_staff_starting_the_swiss_before_the_pools_close_are_told_why(app: FastAPI) -> None:
    with app.state.uow_factory() as uow:
        create_user(uow, username="owner", password=PASSWORD, role=Role.OWNER)
        event_id = make_event(uow, TEXT)
        running_stage(uow, event_id=event_id, stage_key="prelim")
        swiss_id = stage_id_of(uow, event_id, "open")
    client, csrf = login(app, "owner")
    answer = client.post(f"/api/v1/staff/stages/{swiss_id}/start", headers={"X-CSRF-Token": csrf})
    assert answer.status_code == 409
    assert "Preliminaries has no final standings yet" in answer.text
    page = client.post(f"/staff/swiss/{swiss_id}/start", data={"csrf_token": csrf})
    assert page.status_code == 409 and "Preliminaries has no final standings yet" in page.text
    with app.state.uow_factory() as uow:  # nothing started, no lot committed
        assert uow.rounds.rounds_of_stage(swiss_id) == [] and uow.rounds.pools_of_stage(swiss_id) == []
