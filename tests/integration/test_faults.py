"""Faults: every stand-in fault injected, and a worker killed with SIGKILL in the middle of a pull.

Real Celery worker and beat processes, the stand-in over HTTP, PostgreSQL and Redis. Retry waits follow the
Lichess RetryPolicy scaled by OLYMPIAD_GAMESERVER_RETRY_SCALE=0.01 (production keeps 1: a 429 waits >= 60 s).
"""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlmodel import select

from orchestrator.adapters.tables import Board, RoundStatus
from orchestrator.services.results.results import record_result
from tests.support.workers import (
    BoardOutcome,
    Run,
    automated_run,
    expected_result,
    outcomes,
    stage_closed,
    standin_process,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

ALL_FAULTS = "429,500,slow,truncate,aborted,nostart"
HELD_STATUSES = {"aborted", "cheat", "unknownFinish"}


def test_with_every_fault_injected_every_game_ends_with_exactly_one_result(tmp_path: Path):
    with (
        standin_process(
            seed=5, speed="1000", faults=ALL_FAULTS, fault_rate=0.2, log=tmp_path / "standin.log"
        ) as standin,
        automated_run(tmp_path, standin, round_gap_s=10) as (run, stage_id),
    ):
        run.start_worker()
        run.start_beat()

        def settled() -> list[BoardOutcome] | None:
            boards = outcomes(run, stage_id)
            done = all(b.result != "*" or b.game_status in HELD_STATUSES for b in boards)
            return boards if done and all(b.game_id for b in boards) else None

        try:
            boards = wait_for(lambda: settled(), timeout=240, what="every game to end", every=1)
        except AssertionError:
            print(run.logs())
            raise
        expected = {b.game_id: expected_result(standin, b.game_id) for b in boards if b.game_id}
        held = [b for b in boards if b.result == "*"]
        # An arbiter decides the held games; the automation then closes the stage without overwriting them.
        with run.uow_factory() as uow:
            by_game = {b.game_id: b for b in uow.session.exec(select(Board).where(Board.result == "*"))}
            for game_id in sorted(by_game):
                row = by_game[game_id]
                record_result(
                    uow, board_id=row.id or 0, result="½-½", expected_version=row.version, actor="arbiter"
                )
        wait_for(lambda: stage_closed(run, stage_id), timeout=120, what="the stage to close")
        final = outcomes(run, stage_id)
        standin_log = (tmp_path / "standin.log").read_text(errors="replace")
        worker_log = "".join(p.read_text(errors="replace") for p in tmp_path.glob("worker*.log"))

    # The faults really happened, and the worker retried.
    assert '" 429' in standin_log and '" 500' in standin_log
    assert "retry" in worker_log.lower()
    assert held, "the seed gives at least one aborted game held for an arbiter"
    assert len({b.game_id for b in boards}) == len(boards) == 36
    for board in boards:
        assert board.game_id is not None
        if board.result == "*":
            assert board.audit == ("board.result.held",) and board.game_status == "aborted"
            assert expected[board.game_id] == "*"
        else:
            assert board.audit == ("board.result",), board  # exactly one result, counted once
            assert (board.result, board.source) == (expected[board.game_id], "server")
    for board in final:
        if board.position in {b.position for b in held}:
            assert (board.result, board.source) == ("½-½", "arbiter")  # a later poll never overwrote it


def _run_to_the_end(tmp_path: Path, *, seed: int, kill_mid_pull: bool) -> tuple[list[BoardOutcome], int]:
    with (
        standin_process(seed=seed, speed="1000", log=tmp_path / "standin.log") as standin,
        automated_run(tmp_path, standin, round_gap_s=10) as (run, stage_id),
    ):
        worker = run.start_worker()
        run.start_beat()
        open_when_killed = 0
        try:
            run.wait_started()  # their start-up is no part of the waits below
            if kill_mid_pull:
                open_when_killed = _kill_mid_pull(run, stage_id, worker)
            wait_for(lambda: stage_closed(run, stage_id), timeout=180, what="the stage to close")
        except AssertionError:
            print(run.logs())
            raise
        return outcomes(run, stage_id), open_when_killed


def _kill_mid_pull(run: Run, stage_id: int, worker: subprocess.Popen[bytes]) -> int:
    """Kill the worker (SIGKILL) while its pull of round 1 is blocked inside ingestion, start another one;
    the number of round 1's games still open when it died."""
    with run.uow_factory() as uow:
        rounds = uow.rounds.rounds_of_stage(stage_id)
        first_round = rounds[0].id or 0
        pool_id = uow.rounds.pools_in_letter_order(stage_id)[0].id or 0

    def paired() -> bool:
        # Paired, or already under way: a pull can come within a few ms of the pairing and move the
        # round on to "playing" between two polls (seen once). Its games stay open for seconds.
        with run.uow_factory() as uow:
            status = uow.rounds.rounds_of_stage(stage_id)[0].status
        return status in (RoundStatus.PAIRED.value, RoundStatus.PLAYING.value)

    wait_for(paired, timeout=60, what="round 1 to be paired")
    holder = create_engine(run.db_url)
    database = run.db_url.rsplit("/", 1)[1]
    try:
        with holder.connect() as connection:
            # Hold the pool's row lock: the worker's pull exports, then blocks inside ingestion.
            connection.execute(text("SELECT id FROM pool WHERE id = :p FOR UPDATE"), {"p": pool_id})

            def worker_blocked() -> bool:
                with holder.connect() as probe:
                    waiting = probe.execute(
                        text(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = :d"
                            " AND wait_event_type = 'Lock'"
                        ),
                        {"d": database},
                    ).scalar_one()
                return bool(waiting)

            wait_for(worker_blocked, timeout=60, what="a pull blocked inside ingestion")
            worker.send_signal(signal.SIGKILL)  # in the middle of the pull
            worker.wait(10)
            connection.rollback()
    finally:
        holder.dispose()
    with run.uow_factory() as uow:
        unfinished = uow.boards.open_game_ids_of_stage(stage_id).get(first_round, [])
    run.start_worker()
    run.wait_started()
    return len(unfinished)


def test_a_worker_killed_mid_pull_and_restarted_loses_and_duplicates_nothing(tmp_path: Path):
    (tmp_path / "clean").mkdir()
    (tmp_path / "killed").mkdir()
    clean, _ = _run_to_the_end(tmp_path / "clean", seed=23, kill_mid_pull=False)
    killed, open_when_killed = _run_to_the_end(tmp_path / "killed", seed=23, kill_mid_pull=True)
    assert open_when_killed > 0  # the kill came before the pull could store round 1's results
    assert len(clean) == 36 and all(b.result != "*" for b in clean)
    assert killed == clean  # same games, same results, same audit rows per board
