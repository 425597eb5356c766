"""The job bodies: each opens its own unit of work, calls one service and says when to try again.

A body returns how long to wait before its next attempt (``None`` = done). ``run_job`` runs one by name,
for the eager queue (orchestrator/jobs/dispatch.py) and the Celery tasks (workers/tasks.py) alike, so both
modes run exactly the same code. ``periodic_tick`` runs beat's jobs once in this process.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime

from sqlalchemy.exc import OperationalError

from orchestrator.adapters.tables import Stage, StageKind, StageStatus
from orchestrator.db import utcnow
from orchestrator.errors import ServiceError
from orchestrator.jobs.chances import chances_scan
from orchestrator.jobs.outages import OutageLog, backoff_s, connection_lost, describe
from orchestrator.jobs.runtime import ACTOR, Runtime, runtime
from orchestrator.jobs.scheduler import run_duel_steps, run_playoff_tick
from orchestrator.services.gameserver.gameserver import (
    advance_stage,
    create_round_games,
    open_due_rounds,
    pull_round_results,
    reconcile_open_games,
)
from orchestrator.services.notify.run import run_scan, send_one
from orchestrator.services.playoff.commands import queue_ready_bracket_games
from orchestrator.services.playoff.sync import advance_unless_settled
from orchestrator.services.queue import (
    ADVANCE_STAGE,
    CHANCES_SCAN,
    CREATE_GAMES,
    NOTIFY_SCAN,
    NOTIFY_SEND,
    OPEN_DUE,
    PLAYOFF_ADVANCE,
    PLAYOFF_DUEL,
    PLAYOFF_TICK,
    PULL_ROUND,
    RECOMPUTE_POOL,
    RECONCILE,
    enqueue,
)
from orchestrator.services.results.standings import recompute_pool
from orchestrator.services.swiss.auto import publish_next_round

log = logging.getLogger(__name__)

# Beat's schedule (workers/app.py) and periodic_tick's order: open rounds, pull results, move play-offs.
PERIODIC = (OPEN_DUE, RECONCILE, PLAYOFF_TICK, NOTIFY_SCAN, CHANCES_SCAN)

# PostgreSQL aborts one of two transactions that wait for each other (deadlock_detected) or, under a
# stricter isolation level, one that read what another changed (serialization_failure): run it again.
RETRYABLE_SQLSTATES = frozenset({"40P01", "40001"})
DB_RETRY_ATTEMPTS = 5
# A stages.advance that found another run of it at work for the same stage tries again this much later.
ADVANCE_BUSY_RETRY_S = 0.25


def run_job(name: str, *ids: int, attempt: int = 1) -> float | None:
    """Run job ``name``; returns seconds to wait before attempt ``attempt + 1``, or None when done.

    A transaction the database aborted for a deadlock is tried again a moment later (jobs are
    idempotent and the aborted one changed nothing), up to ``DB_RETRY_ATTEMPTS`` times. A lost connection
    to the database or the broker (outages.connection_lost) is one warning and another attempt after
    ``outages.backoff_s`` (1, 2, 4... s, at most a minute), for as long as it lasts; a periodic job is
    left to its next tick instead.
    """
    try:
        return JOBS[name](runtime(), *ids, attempt=attempt)
    except OperationalError as error:
        sqlstate = getattr(error.orig, "sqlstate", None)
        if sqlstate in RETRYABLE_SQLSTATES and attempt < DB_RETRY_ATTEMPTS:
            log.info("task %s%s: the database aborted it (%s); trying again", name, ids, sqlstate)
            return 0.1 * attempt
        return _after_outage(name, ids, attempt, error)
    except Exception as error:
        return _after_outage(name, ids, attempt, error)


def _after_outage(name: str, ids: tuple[int, ...], attempt: int, error: Exception) -> float | None:
    """The wait before trying a job again after a lost connection (None for a periodic job); any other
    error is raised again."""
    if not connection_lost(error):
        raise error
    if name in PERIODIC:
        log.warning("task %s: connection lost (%s); the next tick tries again", name, describe(error))
        return None
    delay = backoff_s(attempt)
    log.warning("task %s%s: connection lost (%s); trying again in %.0f s", name, ids, describe(error), delay)
    return delay


def _open_due(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    with rt.uow_factory() as uow:
        open_due_rounds(uow, now=now or utcnow(), settings=rt.settings)
    return None


def _create_games(rt: Runtime, round_id: int, *, attempt: int) -> float | None:
    with rt.client_factory() as client, rt.uow_factory() as uow:
        outcome = create_round_games(
            uow, round_id=round_id, client=client, settings=rt.settings, attempt=attempt, actor=ACTOR
        )
    return outcome.retry_in


def _pull_round(rt: Runtime, round_id: int, *, attempt: int) -> float | None:
    with rt.client_factory() as client, rt.uow_factory() as uow:
        outcome = pull_round_results(
            uow, round_id=round_id, client=client, settings=rt.settings, attempt=attempt, actor=ACTOR
        )
    if outcome.finished and outcome.stage_id is not None:
        # The pull finished a round (its own or one taken along): carry on with what follows at once, in
        # this worker (the queued stages.advance then finds nothing left to do) rather than behind whatever
        # else is queued.
        _at_once(_advance_stage, rt, outcome.stage_id)
    return outcome.retry_in


def _at_once(body: Callable[..., float | None], rt: Runtime, target: int) -> None:
    """Run the next step of a chain now, in this job: its queued copy is the fallback, so a failure here
    (a lock conflict, an outage) is one log line and never fails the step that has already committed."""
    try:
        body(rt, target, attempt=1)
    except Exception as error:
        log.warning("%s(%s) at once failed (%s); its queued job runs it", body.__name__, target, error)


def _reconcile(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    with rt.uow_factory() as uow:
        reconcile_open_games(uow, now=now or utcnow(), settings=rt.settings)
    return None


def _recompute_pool(rt: Runtime, pool_id: int, *, attempt: int) -> float | None:
    with rt.uow_factory() as uow:
        recompute_pool(uow, pool_id=pool_id, actor=ACTOR)
    return None


def _advance_stage(rt: Runtime, stage_id: int, *, attempt: int) -> float | None:
    """A round of the stage finished (or the stage started): publish the next round of a Swiss stage whose
    file says ``auto_publish`` (its games queued when due), else close the stage once nothing stands in the
    way (docs/workers.md, "Event-driven rounds").

    One run per stage at a time: a run that finds another one at work (the pull's run at once beside
    its queued copy) does not wait on the stage's row, idle, for it to commit; it runs again
    ``ADVANCE_BUSY_RETRY_S`` later and then reads what the other committed (its queued copy, or a later
    one, always comes after the commit that made its step due, so no step is lost)."""
    with rt.uow_factory() as uow:
        if not uow.locks.try_job_lock(ADVANCE_STAGE, (stage_id,)):
            return ADVANCE_BUSY_RETRY_S
        step = publish_next_round(
            uow,
            stage_id=stage_id,
            actor=ACTOR,
            now=utcnow(),
            pair_lead_s=rt.settings.gameserver_pair_lead_s,
        )
    if step.status == "refused":
        log.warning("stage %s: round %s not published: %s", stage_id, step.number, step.reason)
    if step.status == "published":
        if step.games_queued and step.round_id is not None:
            _at_once(_create_games, rt, step.round_id)  # the queued copy then finds the games made
        return None  # a stage with a round just published cannot close
    with rt.uow_factory() as uow:
        advance_stage(uow, stage_id=stage_id, now=utcnow(), actor=ACTOR)
    return None


def _playoff_advance(rt: Runtime, stage_id: int, *, attempt: int) -> float | None:
    """A duel match's result changed: move the bracket on; once the final is decided, try to close. A
    bracket round whose duels are all known gets its games at once when it is due, in this job (as
    ``rounds.open_due`` would at its next beat; its queued copy then finds them made), whether this advance
    completed its duels or another did first: the pull that queued this job also runs ``stages.advance``,
    whose bracket advance may come first (the two wait for each other on the stage's row) and pairs
    nothing."""
    with rt.uow_factory() as uow:
        stage = uow.locks.lock(Stage, stage_id)  # one bracket writer at a time (the stage, then duels)
        if stage.kind != StageKind.KNOCKOUT.value or stage.status != StageStatus.RUNNING.value:
            return None
        if not uow.playoff.duels_of_stage(stage_id):
            return None
        # The champions are read only once the final is decided (no bracket view before).
        _changed, champions = advance_unless_settled(uow, stage_id=stage_id, actor=ACTOR, now=None)
        pair_lead_s = rt.settings.gameserver_pair_lead_s
        due = queue_ready_bracket_games(uow, stage_id=stage_id, now=utcnow(), pair_lead_s=pair_lead_s)
        if champions:
            enqueue(uow, ADVANCE_STAGE, stage_id)
    for round_id in due:
        _at_once(_create_games, rt, round_id)
    return None


def _playoff_tick(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    run_playoff_tick(rt.uow_factory, now=now or utcnow(), settings=rt.settings, actor=ACTOR)
    return None


def _playoff_duel(rt: Runtime, duel_id: int, *, attempt: int) -> float | None:
    """A duel's Armageddon moves (``scheduler.run_duel_steps``); a game it readied is paired at once, in
    this job (its queued ``rounds.create_games`` then finds it paired)."""
    done = run_duel_steps(rt.uow_factory, duel_id=duel_id, settings=rt.settings, actor=ACTOR, clock=utcnow)
    for round_id in done.armageddon_rounds:
        _at_once(_create_games, rt, round_id)
    return None


def _notify_scan(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    run_scan(rt.uow_factory, now=now or utcnow(), settings=rt.settings)
    return None


def _notify_send(rt: Runtime, outbox_id: int, *, attempt: int) -> float | None:
    return send_one(rt.uow_factory, outbox_id=outbox_id, settings=rt.settings)


def periodic_tick(now: datetime | None = None) -> list[str]:
    """Run every periodic job once, in this process, in beat's order; returns the names that failed.

    For eager deployments (the web app's scheduler thread, ``olympiad demo``): call it in a loop, e.g.
    every ``Settings.eager_scheduler_s``. The jobs these queue (create games, pull a round, advance a
    stage...) go through ``dispatch.send``: in process in eager mode, to the broker in Celery mode.
    """
    current = runtime()
    failed: list[str] = []
    for name in PERIODIC:
        try:
            JOBS[name](current, attempt=1, now=now)
        except Exception as error:
            if not connection_lost(error):
                _report(name, error)
                failed.append(name)
                continue
            # The others would meet the same outage: one warning, and the next pass tries again.
            PERIODIC_OUTAGE.failed(error)
            failed.extend(PERIODIC[PERIODIC.index(name) :])
            return failed
    PERIODIC_OUTAGE.ok()
    return failed


PERIODIC_OUTAGE = OutageLog("periodic jobs", log)


def _report(name: str, error: Exception) -> None:
    """A periodic job's own failure: a refusal that says why (a setting missing) is one line, anything
    else a traceback; one job failing never stops the others, and the next tick tries again."""
    if isinstance(error, ServiceError):
        log.error("periodic job %s failed: %s", name, " ".join(str(error).split()))
    else:
        log.error("periodic job %s failed", name, exc_info=error)


JOBS: dict[str, Callable[..., float | None]] = {
    OPEN_DUE: _open_due,
    CREATE_GAMES: _create_games,
    PULL_ROUND: _pull_round,
    RECONCILE: _reconcile,
    RECOMPUTE_POOL: _recompute_pool,
    ADVANCE_STAGE: _advance_stage,
    PLAYOFF_ADVANCE: _playoff_advance,
    PLAYOFF_TICK: _playoff_tick,
    PLAYOFF_DUEL: _playoff_duel,
    NOTIFY_SCAN: _notify_scan,
    NOTIFY_SEND: _notify_send,
    CHANCES_SCAN: chances_scan,
}
