"""The pool builder of tests/support/pool_builder.py stores what the results tests expect of it."""

from __future__ import annotations

from orchestrator.adapters.uow import UnitOfWorkFactory
from tests.support.pool_builder import build_pool


def test_the_builder_stores_a_full_round_robin_with_every_board(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        built = build_pool(uow, teams=4, boards=4)
    assert len(built.matches) == 6  # 4 teams: 3 rounds of 2 matches
    assert all(len(boards) == 4 for boards in built.boards.values())
    with uow_factory() as uow:
        assert len(uow.rounds.numbered_matches_of_pool(built.pool_id)) == 6
