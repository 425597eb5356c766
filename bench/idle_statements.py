"""PostgreSQL's planning and execution time for the statements of one idle beat tick, per periodic job.

Run: DATABASE_URL=postgresql+psycopg://postgres@127.0.0.1:5432/<database> \\
        .venv/bin/python bench/idle_statements.py [--repeat 50]

Runs each periodic job of beat's schedule (rounds.open_due, results.reconcile, playoff.tick, notify.scan,
chances.scan) once in this process against ``DATABASE_URL``, catching every SELECT it sends with its
parameters, then has PostgreSQL ``EXPLAIN (ANALYZE)`` each of them ``--repeat`` times and prints, per job,
the mean of the summed "Planning Time" and "Execution Time" a tick. The jobs run for real: point it at a
database where nothing is due, such as the one ``bench/season.py --events "" --finished 200
--keep-database`` leaves (200 finished events), or an empty migrated one for comparison:
``createdb -h 127.0.0.1 -U postgres olympiad_idle_empty`` then
``.venv/bin/python -c "from orchestrator.db import init_db, make_engine; init_db(engine=make_engine(URL))"``.
Drop both afterwards. docs/performance.md ("A season on one machine") quotes it.

With ``--runs N`` it instead runs each periodic job N times in this process and prints, per job, this
process's CPU time and that of the database's PostgreSQL backends (/proc; Linux only) per run: the statements
as the jobs send them, prepared by psycopg after their fifth run, so that a statement PostgreSQL plans again
at every run shows (docs/performance.md, "Statuses in the statement's text").

With ``--statements N`` it runs each SELECT caught from one run of each job N times on one connection, as
psycopg sends it (prepared after its fifth run), and prints per statement the CPU time of that connection's
PostgreSQL backend per run (/proc) and how many of the runs PostgreSQL made on its generic plan
(``pg_prepared_statements``) against planned for their values.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from proc_cpu import cpu_seconds, database_cpu, database_seconds_since  # noqa: E402
from sqlalchemy import create_engine, event, text  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402

from orchestrator.jobs.bodies import PERIODIC, run_job  # noqa: E402

PLANNING = re.compile(r"Planning Time: ([\d.]+)")
EXECUTION = re.compile(r"Execution Time: ([\d.]+)")


def caught_statements() -> dict[str, dict[str, Any]]:
    """Each periodic job's SELECT statements (text → first parameters), from one run of each."""
    statements: dict[str, dict[str, Any]] = defaultdict(dict)
    job = [""]

    def catch(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "pg_" not in statement:
            statements[job[0]].setdefault(statement, parameters)

    event.listen(Engine, "before_cursor_execute", catch)
    try:
        for name in PERIODIC:
            job[0] = name
            run_job(name)
    finally:
        event.remove(Engine, "before_cursor_execute", catch)
    return statements


def job_cpu(url: str, runs: int) -> None:
    """Each periodic job ``runs`` times in this process: this process's and PostgreSQL's CPU per run."""
    engine = create_engine(url)
    for name in PERIODIC:  # warm-up: connections, caches
        run_job(name)
    total_worker = total_database = 0.0
    for name in PERIODIC:
        before, started = database_cpu(engine), time.process_time()
        for _ in range(runs):
            run_job(name)
        worker = (time.process_time() - started) / runs * 1000
        database = database_seconds_since(engine, before) / runs * 1000
        total_worker, total_database = total_worker + worker, total_database + database
        print(f"{name:20} this process {worker:6.2f} ms, PostgreSQL {database:5.3f} ms a run")
    engine.dispose()
    print(f"{'a tick':20} this process {total_worker:6.2f} ms, PostgreSQL {total_database:5.3f} ms")


def _plans(raw: Any) -> dict[str, tuple[int, int]]:
    """Generic and custom plan counts of each statement prepared on the connection ``raw``."""
    rows = raw.execute("SELECT name, generic_plans, custom_plans FROM pg_prepared_statements").fetchall()
    return {name: (generic, custom) for name, generic, custom in rows}


def statement_cpu(url: str, runs: int) -> None:
    """Each caught SELECT ``runs`` times on one connection: its backend's CPU per run and the plans used."""
    statements = caught_statements()
    engine = create_engine(url)
    with engine.connect() as connection:
        backend = connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        raw: Any = connection.connection.driver_connection
        for job, caught in statements.items():
            for statement, parameters in caught.items():
                cursor = raw.cursor()
                before, started = _plans(raw), cpu_seconds(backend)
                for _ in range(runs):
                    cursor.execute(statement, parameters)
                    cursor.fetchall()
                spent = (cpu_seconds(backend) - started) / runs * 1000
                grown = [
                    (g - before.get(n, (0, 0))[0], c - before.get(n, (0, 0))[1])
                    for n, (g, c) in _plans(raw).items()
                ]
                generic, planned = max(grown, key=sum, default=(0, 0))  # the statement just run
                raw.rollback()
                short = " ".join(statement.split())[:90]
                print(f"{job:18} {spent:5.3f} ms a run, generic {generic}, planned {planned}: {short}")
    engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--runs", type=int, help="time each job's CPU over this many runs instead")
    parser.add_argument("--statements", type=int, help="time each statement over this many runs instead")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgresql"):
        raise SystemExit("set DATABASE_URL to the PostgreSQL database to read (see the docstring)")
    if args.runs:
        job_cpu(url, args.runs)
        return
    if args.statements:
        statement_cpu(url, args.statements)
        return
    statements = caught_statements()
    engine = create_engine(url)
    total_planning = total_execution = 0.0
    with engine.connect() as connection:
        for job, caught in statements.items():
            planning = execution = 0.0
            for _ in range(args.repeat):
                for statement, parameters in caught.items():
                    plan = "\n".join(
                        row[0]
                        for row in connection.exec_driver_sql("EXPLAIN (ANALYZE) " + statement, parameters)
                    )
                    planning += float(PLANNING.search(plan).group(1))  # type: ignore[union-attr]
                    execution += float(EXECUTION.search(plan).group(1))  # type: ignore[union-attr]
            planning, execution = planning / args.repeat, execution / args.repeat
            total_planning += planning
            total_execution += execution
            figures = f"planning {planning:.3f} ms, execution {execution:.3f} ms"
            print(f"{job:20} {len(caught):2d} statements: {figures}")
    engine.dispose()
    print(f"{'a tick':20}    planning {total_planning:.3f} ms, execution {total_execution:.3f} ms")


if __name__ == "__main__":
    main()
