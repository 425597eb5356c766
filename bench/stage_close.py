"""The time of a pool stage's closing (``standings.close_stage``), timed on a played event's database.

    .venv/bin/python bench/whole_event.py --no-celery --keep-database
    .venv/bin/python bench/stage_close.py postgresql+psycopg://postgres@127.0.0.1:5432/<kept database>
    dropdb -h 127.0.0.1 -U postgres <kept database>

A stage's closing runs once, in the pull that finished its last round, and nothing else of the event runs
meanwhile: between two stages of the 2020 event it is on the critical path (docs/performance.md, "A round's
reads and standings with less Python"). For each closed pool stage of the database, each run opens a unit
of work, sets the stage running again, closes it as the workers do (every result final, the appeal windows
over) and rolls back, so the database is left as it was. The cache of identical standings is emptied
before each run, as for a worker that has not ranked those pools yet. Printed: per stage, its pools and
the median and fastest of ``--repeat`` runs. To compare two commits, run this with ``PYTHONPATH`` on a
worktree of each, alternating.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import timedelta

from sqlalchemy import text

from orchestrator.adapters.tables import Stage, StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory, utcnow
from orchestrator.services.results import standings


class _Rollback(Exception):
    """Raised to leave the unit of work without committing."""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("database_url")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    engine = make_engine(args.database_url)
    factory = make_session_factory(engine)
    with engine.connect() as connection:
        stages = connection.execute(
            text(
                "SELECT stage.id, stage.name, count(pool.id) FROM stage JOIN pool ON pool.stage_id = stage.id"
                " WHERE stage.kind = :kind AND stage.status = 'closed' GROUP BY stage.id ORDER BY stage.id"
            ),
            {"kind": StageKind.POOLS.value},
        ).all()
    later = utcnow() + timedelta(days=365)  # every appeal window over
    for stage_id, name, pools in stages:
        times: list[float] = []
        for _ in range(args.repeat):
            standings._computed.cache_clear()
            try:
                with UnitOfWork(factory) as uow:
                    stage = uow.events.get_or_raise(Stage, stage_id)
                    stage.status, stage.closed_at = "running", None
                    uow.events.add(stage)
                    uow.flush()
                    started = time.perf_counter()
                    closed = standings.close_stage(uow, stage_id=stage_id, actor="bench", now=later)
                    times.append(time.perf_counter() - started)
                    assert closed.refusal is None, closed.refusal
                    raise _Rollback
            except _Rollback:
                pass
        print(
            f"{name:<16} {pools:3d} pools  close_stage median {statistics.median(times) * 1000:7.1f} ms,"
            f" fastest {min(times) * 1000:7.1f} ms"
        )
    engine.dispose()


if __name__ == "__main__":
    main()
