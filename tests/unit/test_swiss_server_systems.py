"""A Swiss stage on the server paired by the system its event file names (docs/swiss.md, "Pairing
systems"): each round the server drafts is our engine's pairing of the same stage kept in the domain, the
stage's TRF names the system in record 192 and the round desk names it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.desk import swiss_desk
from orchestrator.services.swiss.exports import pool_trf
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import ACTOR, SWISS_EVENT, Mirror, domain_start, play_round, view_pairing

CODES = {"olympiad-2022": "CUSTOM_TEAM_OLYMPIAD_2022", "score-group-halves": "CUSTOM_TEAM_SCORE_GROUP_HALVES"}
NAMES = {"olympiad-2022": "the Olympiad Pairing Rules 2022", "score-group-halves": "score-group halves"}


@pytest.mark.parametrize("system", sorted(CODES))
def test_the_server_pairs_a_stage_by_the_system_it_names(uow_factory: UnitOfWorkFactory, system: str) -> None:
    assert "pairing: fide-team-swiss" in SWISS_EVENT
    text = SWISS_EVENT.replace("pairing: fide-team-swiss", f"pairing: {system}")
    with uow_factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, text), "open")
        stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    mirror = Mirror(replace(domain_start(), pairing=system))
    for round_no in (1, 2, 3):
        with uow_factory() as uow:
            draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
        expected = pairer_for(system).pair_round(mirror.state, round_no)
        assert view_pairing(draft) == ([(p.first, p.second) for p in expected.pairings], expected.bye)
        with uow_factory() as uow:
            published = swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
        play_round(uow_factory, draft.round_id)
        mirror.record(round_no, published)
    with uow_factory() as uow:
        pool = uow.rounds.pools_in_letter_order(stage_id)[0]
        assert f"192 {CODES[system]}" in pool_trf(uow, pool_id=pool.id or 0).splitlines()
        # The round desk names the system ("Rounds are paired one at a time by ...").
        assert swiss_desk(uow, stage_id=stage_id).system.startswith(NAMES[system])
