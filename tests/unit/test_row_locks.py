"""RowLocks (docs/architecture.md, habit 6): a lock expires what the session read before it, except when the
transaction already holds that lock."""

from __future__ import annotations

from sqlalchemy import inspect

from orchestrator.adapters.tables import Pool, Round, Stage
from orchestrator.adapters.uow import UnitOfWorkFactory
from tests.support.pool_builder import build_pool


def expired(row: object) -> bool:
    return bool(inspect(row).expired_attributes)


def test_locking_a_held_row_again_keeps_what_was_read_and_a_new_lock_expires_it(
    uowf: UnitOfWorkFactory,
) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    with uowf() as uow:
        read_first = uow.rounds.rounds_of_stage(built.stage_id)[0]
        stage = uow.locks.lock(Stage, built.stage_id)
        assert expired(read_first)  # read before the lock: read again under it when next used
        rounds = list(uow.rounds.rounds_of_stage(built.stage_id))
        assert rounds and not any(expired(r) for r in rounds)
        assert uow.locks.lock(Stage, built.stage_id) is stage
        assert not any(expired(r) for r in rounds)  # held since before they were read
        uow.locks.lock_pools([built.pool_id])
        assert all(expired(r) for r in rounds)  # a row not held before: everything read is read again
        rounds = list(uow.rounds.rounds_of_stage(built.stage_id))
        uow.locks.lock_pools([built.pool_id])
        uow.locks.lock(Pool, built.pool_id)
        assert not any(expired(r) for r in rounds)
    with uowf() as uow:  # a new transaction holds nothing
        rounds = list(uow.rounds.rounds_of_stage(built.stage_id))
        uow.locks.lock(Stage, built.stage_id)
        assert all(expired(r) for r in rounds)


def test_a_held_row_locked_again_is_read_again_itself(uowf: UnitOfWorkFactory) -> None:
    with uowf() as uow:
        built = build_pool(uow)
    with uowf() as uow:
        rnd = uow.locks.lock(Round, uow.rounds.rounds_of_stage(built.stage_id)[0].id or 0)
        rnd.status = "finished"  # flushed before the lock reads the row again, not lost
        assert uow.locks.lock(Round, rnd.id or 0).status == "finished"
