"""Event-driven Swiss rounds on the real stack (docs/workers.md, "Event-driven rounds"): a real Celery
worker process over Redis, PostgreSQL and the stand-in in its own process over HTTP.

With ``auto_publish: true`` the stage runs from its start to closed with no staff step and no beat at all:
the start queues round 1's publication, each round's games are created and pulled by the chain
(``round_pull_s``), and the pull that finishes a round queues the next one's pairing, publication and games,
then the stage's close. Without ``auto_publish`` the next round waits for staff, and the staff dashboard
says so.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.adapters.tables import RoundStatus
from orchestrator.config import Settings
from orchestrator.jobs import runtime
from orchestrator.jobs.runtime import ACTOR as WORKER
from orchestrator.services.read.dashboard import dashboard
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.swiss import SWISS_EVENT
from tests.support.workers import REDIS_URL, Run, stage_closed, swiss_run, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

# The small Swiss (7 teams, 5 rounds, a bye each round) with its rounds in the past, so each is due as
# soon as it is published, and no appeal window, so the stage closes once its last round is finished.
DUE_EVENT = SWISS_EVENT.replace('"2030-', '"2020-').replace(
    "slug: swiss-test-cup\n", "slug: swiss-test-cup\nappeal_window_minutes: 0\n", 1
)
AUTO_EVENT = DUE_EVENT.replace("      - {seeds: 1-7}\n", "      - {seeds: 1-7}\n    auto_publish: true\n", 1)
NO_BEAT = {"OLYMPIAD_BEAT_OPEN_DUE_S": "3600", "OLYMPIAD_BEAT_RECONCILE_S": "3600"}


@contextlib.contextmanager
def sending_to(run: Run) -> Iterator[None]:
    """This process's jobs go to the run's Celery queue, as the web app's do with task_mode=celery."""
    previous = runtime.runtime()
    queue = run.env["OLYMPIAD_WORKER_QUEUE"]
    settings = Settings(environment="test", task_mode="celery", worker_queue=queue, redis_url=REDIS_URL)
    runtime.configure(settings, uow_factory=run.uow_factory)
    try:
        yield
    finally:
        runtime.configure(previous.settings, uow_factory=previous.uow_factory)


def round_actions(run: Run, stage_id: int) -> list[list[tuple[str, str]]]:
    with run.uow_factory() as uow:
        return [
            [(a.action, a.actor) for a in uow.audit.for_entity("round", r.id or 0)]
            for r in uow.rounds.rounds_of_stage(stage_id)
        ]


def test_an_auto_publish_swiss_stage_runs_from_its_start_to_closed_with_no_staff_step_and_no_beat(
    tmp_path: Path,
) -> None:
    with swiss_run(
        tmp_path,
        database="olympiad_auto_swiss",
        event_text=AUTO_EVENT,
        OLYMPIAD_ROUND_PULL_S="0.5",
        **NO_BEAT,
    ) as (run, stage_id):
        run.start_worker()  # and no beat: nothing but the chain of jobs moves the stage
        started = time.monotonic()
        with sending_to(run), run.uow_factory() as uow:  # the one staff step: starting the stage
            stage_start.start_stage(uow, stage_id=stage_id, actor="staff", initial_colour="W").raise_refusal()
        try:
            wait_for(lambda: stage_closed(run, stage_id), timeout=180, what="the stage to close")
        except AssertionError:
            print(run.logs())
            raise
        took = time.monotonic() - started
        actions = round_actions(run, stage_id)
        with run.uow_factory() as uow:
            rounds = list(uow.rounds.rounds_of_stage(stage_id))
            boards = [
                b
                for r in rounds
                for m in uow.rounds.matches_of_round(r.id or 0)
                for b in uow.boards.for_match(m.id or 0)
            ]
        log = (tmp_path / "worker1.log").read_text(errors="replace")

    assert run.beat is None and "Task rounds.open_due[" not in log and "Task results.reconcile[" not in log
    assert took < 3600  # every step came well before beat's first tick would have
    assert [r.status for r in rounds] == [RoundStatus.FINISHED.value] * 5
    for number, entries in enumerate(actions, start=1):
        assert ("swiss.pair", WORKER) in entries, number
        assert ("swiss.publish", WORKER) in entries, number
        assert ("round.games_created", WORKER) in entries and ("round.close", WORKER) in entries, number
        assert all(actor != "staff" for _action, actor in entries), number
    assert len(boards) == 5 * 3 * 4  # 5 rounds, 3 matches (a bye) of 4 boards
    assert all(b.game_id and b.result_source == "server" for b in boards)


def test_without_auto_publish_the_next_round_waits_for_staff_and_the_dashboard_says_so(
    tmp_path: Path,
) -> None:
    with swiss_run(tmp_path, database="olympiad_staff_swiss", event_text=DUE_EVENT) as (run, stage_id):
        run.start_worker()
        run.start_beat()  # beat creates the games staff published and pulls their results
        with sending_to(run):
            with run.uow_factory() as uow:
                stage_start.start_stage(
                    uow, stage_id=stage_id, actor="staff", initial_colour="W"
                ).raise_refusal()
            with run.uow_factory() as uow:
                draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor="staff")
            with run.uow_factory() as uow:
                swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="staff")

        def first_finished() -> bool:
            with run.uow_factory() as uow:
                return uow.rounds.rounds_of_stage(stage_id)[0].status == RoundStatus.FINISHED.value

        try:
            wait_for(first_finished, timeout=120, what="round 1 to finish")
        except AssertionError:
            print(run.logs())
            raise
        time.sleep(4)  # several beat ticks and any job the finished round queued
        with run.uow_factory() as uow:
            statuses = [r.status for r in uow.rounds.rounds_of_stage(stage_id)]
            items = [i for i in dashboard(uow, slug="swiss-test-cup").items if i.kind == "swiss-round"]

    assert statuses == [RoundStatus.FINISHED.value] + [RoundStatus.UNPAIRED.value] * 4
    [waiting] = items
    assert (waiting.title, waiting.action) == ("Open round 2", "Pair it")
    assert waiting.detail == "every earlier round is finished: the round can be paired"
