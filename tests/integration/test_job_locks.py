"""Duplicate jobs on the real PostgreSQL: a second run of a job that is running leaves at once.

Beat queues ``rounds.create_games`` and ``results.pull_round`` again every time it runs; a copy that
arrives while the first run still works must not sit on the round's lock holding a worker thread. A
``stages.advance`` copy (the pull runs the step at once and queues it too) must not sit on the stage's
lock either, but it comes back later instead of leaving: what it was queued for may have been committed
after the other run read the stage.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import text

from orchestrator.adapters.tables import Match, Round
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_engine, make_session_factory, utcnow
from orchestrator.errors import NotFound
from orchestrator.jobs import bodies, dispatch
from orchestrator.jobs.runtime import Runtime
from orchestrator.services import queue
from orchestrator.services.gameserver.gameserver import create_round_games, pull_round_results
from orchestrator.services.playoff.deadlines import apply_due_deadlines
from tests.integration.conftest import scratch_database
from tests.support.gameserver_fake import FakeServer, create_games, link_accounts
from tests.support.gameserver_round import add_round, make_round
from tests.support.pools import SeededPool, seed_small_pool

NO_SUCH_STAGE = 2_000_000_000  # far above any id the tests' shared database hands out


class NoServer:
    """A game-server client that must not be called: a busy job leaves before any request."""

    def __getattr__(self, name: str) -> object:
        raise AssertionError(f"the game server was called ({name}) by a run that should have left")


def test_a_job_lock_is_held_until_the_transaction_ends_and_only_blocks_the_same_job(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as first:
        assert first.locks.try_job_lock(queue.PULL_ROUND, (41,))
        with uow_factory() as second:
            assert not second.locks.try_job_lock(queue.PULL_ROUND, (41,))
            assert second.locks.try_job_lock(queue.PULL_ROUND, (42,))  # another round
            assert second.locks.try_job_lock(queue.CREATE_GAMES, (41,))  # another job
    with uow_factory() as third:
        assert third.locks.try_job_lock(queue.PULL_ROUND, (41,))  # released at the commit


def test_a_second_create_or_pull_of_a_round_being_worked_on_leaves_without_calling_the_server(
    uow_factory: UnitOfWorkFactory,
) -> None:
    settings = Settings(environment="test")
    with uow_factory() as running:
        assert running.locks.try_job_lock(queue.CREATE_GAMES, (7,))
        assert running.locks.try_job_lock(queue.PULL_ROUND, (7,))
        with uow_factory() as copy:
            same_round: dict[str, Any] = {
                "round_id": 7,
                "client": NoServer(),
                "settings": settings,
                "actor": "test",
            }
            made = create_round_games(copy, **same_round)
            pulled = pull_round_results(copy, **same_round)
    assert made.status == "busy"
    assert (pulled.asked, pulled.round_finished, pulled.error) == (0, False, None)


def test_a_stage_advance_that_finds_another_at_work_comes_back_later_without_reading_the_stage(
    uow_factory: UnitOfWorkFactory,
) -> None:
    settings = Settings(environment="test")
    rt = Runtime(settings=settings, uow_factory=uow_factory, client_factory=NoServer)  # type: ignore[arg-type]
    held = NO_SUCH_STAGE + secrets.randbelow(1000)  # no stage has such an id: nothing is changed
    with uow_factory() as running:
        assert running.locks.try_job_lock(queue.ADVANCE_STAGE, (held,))
        assert bodies._advance_stage(rt, held, attempt=1) == bodies.ADVANCE_BUSY_RETRY_S
        with pytest.raises(NotFound):  # another stage is not held back: it is read (none here)
            bodies._advance_stage(rt, held + 1, attempt=1)
    # Once the other run has committed, the copy reads the stage (none here: refused, not retried).
    with pytest.raises(NotFound):
        bodies._advance_stage(rt, held, attempt=2)


def test_try_lock_skips_a_row_another_transaction_holds_and_takes_it_once_released(
    uow_factory: UnitOfWorkFactory, seeded: SeededPool
) -> None:
    round_ids = sorted({_round_of(uow_factory, match_id) for match_id in seeded.matches.values()})
    first, second = round_ids[0], round_ids[1]
    with uow_factory() as holder:
        holder.locks.lock(Round, first)
        with uow_factory() as other:
            _no_waiting(other)
            assert other.locks.try_lock(Round, first) is None  # held elsewhere: at once, no row
            taken = other.locks.try_lock(Round, second)
            assert taken is not None and taken.id == second
    with uow_factory() as later:
        taken = later.locks.try_lock(Round, first)
        assert taken is not None and taken.id == first


@pytest.fixture
def own_database() -> Iterator[UnitOfWorkFactory]:
    """A database of this test's own: beat's pass below reaches every event, and the session's database
    holds other tests' events."""
    with scratch_database("olympiad_test_lineups", migrated=True) as url:
        engine = make_engine(url)
        session_factory = make_session_factory(engine)
        yield lambda: UnitOfWork(session_factory)
        engine.dispose()


def test_beat_applies_due_line_ups_but_passes_over_a_round_a_job_holds(
    own_database: UnitOfWorkFactory,
) -> None:
    uow_factory = own_database
    seeded = seed_small_pool(uow_factory, slug="lineups", pairing_seed=secrets.token_bytes(32))
    now = utcnow() + timedelta(days=3650)  # every scheduled round's line-up deadline has passed
    with uow_factory() as uow:
        due = [r.id or 0 for r in uow.rounds.due_lineup_rounds(now) if r.stage_id == seeded.stage_id]
        others = len(uow.rounds.due_lineup_rounds(now)) - len(due)
    assert len(due) >= 2 and others == 0
    with uow_factory() as holder:
        holder.locks.lock(Round, due[0])  # a pairing at work on the first round
        with uow_factory() as tick:
            _no_waiting(tick)
            done = apply_due_deadlines(tick, now, actor="beat")
    assert done["rounds_lined_up"] == len(due) - 1 + others
    with uow_factory() as tick:
        done = apply_due_deadlines(tick, now, actor="beat")
    assert done["rounds_lined_up"] == len(due) + others  # the next tick comes back to it


def _round_of(uow_factory: UnitOfWorkFactory, match_id: int) -> int:
    with uow_factory() as uow:
        return uow.rounds.get_or_raise(Match, match_id).round_id


def _no_waiting(uow: UnitOfWork) -> None:
    """A lock this transaction would wait for fails after 2 s instead (the test fails, never hangs)."""
    uow.session.execute(text("SET LOCAL lock_timeout = '2s'"))


def test_a_pull_leaves_a_round_another_run_is_pulling_to_it(uow_factory: UnitOfWorkFactory) -> None:
    """The stage's other open rounds are taken along (docs/workers.md, "Pulling and ingesting results"),
    except one whose own pull holds its lock: that run exports and settles it."""
    settings = Settings(environment="test", token_encryption_key=Fernet.generate_key().decode())  # type: ignore[arg-type]
    server = FakeServer(prefix=secrets.token_hex(3))
    first = make_round(uow_factory, slug=f"along-{secrets.token_hex(4)}")
    link_accounts(uow_factory, settings, server, first.player_ids)
    second, third = add_round(uow_factory, first, number=2), add_round(uow_factory, first, number=3)
    for rows in (first, second, third):
        create_games(uow_factory, settings, server, rows.round_id, 1)
    for game_id in server.games:
        server.finish(game_id, "draw")

    def pull(round_id: int) -> Any:
        with server.client() as client, uow_factory() as uow:
            return pull_round_results(uow, round_id=round_id, client=client, settings=settings, actor="test")

    with uow_factory() as running:
        assert running.locks.try_job_lock(queue.PULL_ROUND, (second.round_id,))
        pulled = pull(first.round_id)
    assert (pulled.asked, pulled.along) == (4, [third.round_id])
    assert pulled.finished == [first.round_id, third.round_id]
    own = pull(second.round_id)  # once the other run has committed
    assert (own.asked, own.along, own.finished) == (2, [], [second.round_id])


def test_a_pull_that_finds_its_round_being_pulled_comes_back_later(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run at work may be another round's pull that took this round along and does not queue its next
    pull (docs/workers.md, "Tasks"): the copy that leaves queues it, ``round_pull_s`` later."""
    sent: list[tuple[str, tuple[int, ...], float | None]] = []
    monkeypatch.setattr(
        dispatch, "send", lambda name, *ids, countdown=None: sent.append((name, ids, countdown))
    )
    held = NO_SUCH_STAGE + secrets.randbelow(1000)  # no round has such an id: nothing else is read
    settings = Settings(environment="test", round_pull_s=0.5)
    with uow_factory() as running:
        assert running.locks.try_job_lock(queue.PULL_ROUND, (held,))
        with uow_factory() as copy:
            left = pull_round_results(copy, round_id=held, client=NoServer(), settings=settings, actor="test")  # type: ignore[arg-type]
    assert (left.asked, left.round_finished, left.error) == (0, False, None)
    assert sent == [(queue.PULL_ROUND, (held,), 0.5)]
