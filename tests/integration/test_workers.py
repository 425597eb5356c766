"""A pool stage runs itself: real Celery worker and beat processes, the stand-in over HTTP, PostgreSQL, Redis.

Beat opens due rounds -> the worker creates each round's games on the stand-in (bulk pairing) -> results are
pulled and ingested -> standings recomputed -> rounds closed -> the stage closed. No human action.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import select

from orchestrator.adapters.tables import Standing
from orchestrator.adapters.tables_outlook import Outlook
from orchestrator.services.queue import CHANCES_SCAN, CREATE_GAMES, OPEN_DUE, PULL_ROUND
from tests.support.workers import (
    automated_run,
    expected_result,
    outcomes,
    stage_closed,
    standin_process,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]


def test_a_pool_stage_runs_from_published_pools_to_closed_standings_with_no_human_action(tmp_path: Path):
    """With the workers as docker-compose.yml deploys them (docs/workers.md, "Queues"): one on the main
    queue runs the stage to its end, a second on the background queue computes its chances, and neither runs
    the other's jobs (the other integration tests run one worker serving both queues)."""
    with (
        standin_process(seed=11, speed="1000", log=tmp_path / "standin.log") as standin,
        automated_run(tmp_path, standin) as (run, stage_id),
    ):
        run.start_worker(queue="background")
        run.wait_started()  # serving before the first round ends, whatever the machine's load
        run.start_worker(queue="main")
        run.start_beat()
        try:
            wait_for(lambda: stage_closed(run, stage_id), timeout=150, what="the stage to close")
        except AssertionError:
            print(run.logs())
            raise
        boards = outcomes(run, stage_id)
        expected = {b.game_id: expected_result(standin, b.game_id) for b in boards if b.game_id}
        with run.uow_factory() as uow:
            standings = uow.session.exec(select(Standing).where(Standing.stage_id == stage_id)).all()
            rounds = uow.rounds.rounds_of_stage(stage_id)
            round_statuses = {r.status for r in rounds}
            bulks = [uow.rounds.bulk_of_round(r.id or 0) for r in rounds]
            bulk_states = [(b.status, b.error) if b is not None else None for b in bulks]
            outlooks = uow.session.exec(select(Outlook).where(Outlook.stage_id == stage_id)).all()
    background, main = ((tmp_path / f"worker{n}.log").read_text(errors="replace") for n in (1, 2))

    assert len(boards) == 3 * 2 * 6  # 3 rounds, 2 matches a round, 6 boards a match
    assert round_statuses == {"finished"}
    assert bulk_states == [("created", None)] * 3
    assert len({b.game_id for b in boards}) == len(boards)  # one game per board, never paired twice
    for board in boards:
        assert board.game_id is not None
        assert board.source == "server"
        assert board.audit == ("board.result",)  # exactly one result, written once
        assert board.result == expected[board.game_id]
    assert sorted(s.rank for s in standings) == [1, 2, 3, 4]
    assert not any(s.provisional for s in standings)

    assert outlooks, "the background worker computed the stage's chances"
    ran = f"Task {CHANCES_SCAN}["  # a job's line in a worker's log (the banner lists every task's name)
    assert ran in background and ran not in main
    for job in (PULL_ROUND, CREATE_GAMES, OPEN_DUE):
        assert f"Task {job}[" in main and f"Task {job}[" not in background, job
