"""The ``chances.scan`` job (docs/needs.md): keep every running pool or Swiss stage's outlook current (a
Swiss stage's in its last three rounds only).

The scan reads the running stages' round counts (``due_stage_ids``: two queries, no board read) and
computes one stage at most: the first whose last complete round differs from the one its stored outlook was
computed after, the one never computed or computed longest ago first. A tick with nothing settled since
does no more than those queries; stages left behind are computed by the next scans, one each, so a season
of events finishing rounds together never makes one scan hold a worker for the whole season's
simulations. Each stage is computed in a unit of work of its own, so one stage failing (a refusal that
says why) does not keep the next from its turn in the same scan."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from orchestrator.db import utcnow
from orchestrator.errors import ServiceError
from orchestrator.jobs.outages import connection_lost
from orchestrator.jobs.runtime import Runtime
from orchestrator.services.outlook.compute import compute_stage_outlook, due_stage_ids

log = logging.getLogger(__name__)


def chances_scan(rt: Runtime, *, attempt: int, now: datetime | None = None) -> float | None:
    """Compute the outlook of one running stage that finished a round since its last computation."""
    wait = timedelta(seconds=rt.settings.outlook_min_interval_s)
    with rt.uow_factory() as uow:
        stage_ids = due_stage_ids(uow, now=now or utcnow(), min_interval=wait)
    for stage_id in stage_ids:
        try:
            with rt.uow_factory() as uow:
                after = compute_stage_outlook(uow, stage_id=stage_id)
        except ServiceError as error:  # a refusal that says why (the stage closed meanwhile)
            log.info("chances of stage %s not computed: %s", stage_id, " ".join(str(error).split()))
            continue
        except Exception as error:  # one stage failing must not keep the next from its turn
            if connection_lost(error):
                raise  # an outage: one warning from run_job, and the next scan tries again
            log.exception("chances of stage %s failed", stage_id)
            continue
        if after is not None:
            log.info("chances of stage %s computed after round %s", stage_id, after)
            return None  # one stage per scan: the others wait for the next
    return None
