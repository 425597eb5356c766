"""Deciding an appeal on a duel's match moves the bracket on in the same transaction, as recording a
result does (orchestrator/services/results/appeals.py, playoff.sync.advance_after_match)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.services.playoff.commands import advance_bracket
from orchestrator.services.results.appeals import decide_appeal, open_appeal
from tests.support.playoff_world import World, make_world, store_results, the_duel, tick


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


def test_rejecting_the_appeal_on_a_duels_match_decides_the_duel_at_once(world: World) -> None:
    tick(world)  # the bracket
    store_results(world, "I", "first")
    duel = the_duel(world, "I")
    with world.uow_factory() as uow:
        match = uow.playoff.matches_of_duels([duel.id])[duel.id or 0][-1]
        appeal = open_appeal(uow, match_id=match.id or 0, actor="captain", grounds="clock")
        advance_bracket(uow, stage_id=world.knockout, actor="arbiter")
    assert the_duel(world, "I").status != "decided"  # provisional while the appeal is open
    with world.uow_factory() as uow:
        decide_appeal(uow, appeal_id=appeal.appeal_id, decision="No case.", upheld=False, actor="committee")
    decided = the_duel(world, "I")
    assert decided.status == "decided" and decided.winner_team_id == duel.first_team_id
