"""Statements per job, and which prepared statements PostgreSQL kept planning, over a whole event in process.

Run: .venv/bin/python bench/prepared_plans.py [any bench/whole_event.py option except --celery, e.g.
        --event events/olympiad-2026.yaml] [--top 20]

Runs bench/whole_event.py with its jobs in this process and, when the event is over, reads
``pg_prepared_statements`` on every connection of the run's pool: how many executions of each statement
psycopg had prepared used PostgreSQL's generic plan (planned once) and how many were planned again for
their values. A statement planned again at every run costs its planning each time, as beat's idle
statements did before their statuses went into their text (docs/performance.md, "Statuses in the
statement's text"). Prints the statements each kind of job sent per run (a pull of a pool round against
one of a bracket round shows as their mean), then the plans' totals and the statements planned most often.
"""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import event, text  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402

from orchestrator.demo import driver as demo  # noqa: E402
from orchestrator.jobs import bodies  # noqa: E402

TOP = 20
_run = demo.Demo.run
_run_job = bodies.run_job
_current = ["(the staff driver)"]
_statements: dict[str, int] = {}
_runs: dict[str, int] = {}


def counted_job(name: str, *ids: int, attempt: int = 1) -> float | None:
    outer, _current[0] = _current[0], name
    _runs[name] = _runs.get(name, 0) + 1
    try:
        return _run_job(name, *ids, attempt=attempt)
    finally:
        _current[0] = outer


def count_statement(*_args: Any) -> None:
    _statements[_current[0]] = _statements.get(_current[0], 0) + 1


def run_then_read_plans(self: demo.Demo, *args: Any, **kwargs: Any) -> demo.DemoResult:
    event.listen(Engine, "before_cursor_execute", count_statement)
    try:
        result = _run(self, *args, **kwargs)
    finally:
        event.remove(Engine, "before_cursor_execute", count_statement)
    print("statements sent during the event, per job:")
    for name, sent in sorted(_statements.items(), key=lambda item: -item[1]):
        runs = _runs.get(name, 0)
        each = f", {sent / runs:.1f} a run over {runs} runs" if runs else ""
        print(f"  {name:28} {sent:6d}{each}")
    engine = self._engine
    assert engine is not None
    plans: dict[str, list[int]] = {}
    connections = [engine.connect() for _ in range(engine.pool.checkedin())]
    try:
        for connection in connections:
            rows = connection.execute(
                text("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements")
            ).all()
            for statement, generic, custom in rows:
                counts = plans.setdefault(" ".join(statement.split()), [0, 0])
                counts[0] += generic
                counts[1] += custom
    finally:
        for connection in connections:
            connection.close()
    generic = sum(counts[0] for counts in plans.values())
    custom = sum(counts[1] for counts in plans.values())
    print(f"prepared statements: {len(plans)}; executions on a generic plan {generic}, ", end="")
    print(f"planned for their values {custom}")
    for statement, (kept, planned) in sorted(plans.items(), key=lambda item: -item[1][1])[:TOP]:
        print(f"  planned {planned:6d}, generic {kept:6d}: {statement[:150]}")
    return result


if "--top" in sys.argv:
    at = sys.argv.index("--top")
    TOP = int(sys.argv[at + 1])
    del sys.argv[at : at + 2]
if "--celery" in sys.argv:
    raise SystemExit(
        "the plans are read on this process's connections: run the jobs in process (no --celery)"
    )
demo.Demo.run = run_then_read_plans  # type: ignore[method-assign]
bodies.run_job = counted_job  # the in-process dispatcher calls bodies.run_job through its module
sys.argv = [str(ROOT / "bench" / "whole_event.py"), *sys.argv[1:]]
runpy.run_path(sys.argv[0], run_name="__main__")
