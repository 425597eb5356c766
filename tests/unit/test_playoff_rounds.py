"""The round of an Armageddon game moves to finished once its result is in, as a pool round does
(orchestrator/services/playoff/sync.py, armageddon_game.py; docs/playoff.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.tables import Round
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.services.playoff.armageddon_game import record_armageddon_result
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE
from tests.support.playoff_world import World, level, make_world, tick


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


def armageddon_round(world: World, duel_id: int) -> Round:
    with world.uow_factory() as uow:
        rnd = uow.rounds.round_by_number(world.knockout, ARMAGEDDON_ROUND_BASE + duel_id)
        assert rnd is not None
        return rnd


def test_the_armageddon_round_is_finished_once_the_arbiter_enters_its_result(world: World) -> None:
    tick(world)
    duel_id = level(world)
    for _ in range(4):  # category lot, its draw and the defaults, the colour lot's draw, the colour
        tick(world)
    assert armageddon_round(world, duel_id).status == "scheduled"
    with world.uow_factory() as uow:
        record_armageddon_result(uow, duel_id=duel_id, result="0-1", actor="arbiter")
    assert armageddon_round(world, duel_id).status == "finished"
    with world.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert arm is not None and arm.phase is ArmageddonPhase.FINISHED
