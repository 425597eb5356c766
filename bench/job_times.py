"""The whole event's time job by job: bench/whole_event.py with each job timed and its SQL counted.

Run: .venv/bin/python bench/job_times.py [--step MODULE:FUNCTION ...] [whole_event.py options, e.g. --sqlite]

Wraps every job of orchestrator.jobs.bodies (the same functions the Celery tasks run) and the demo
driver's staff steps (starting a pool stage, the play-off's staff part) in a timer, counts the SQL
statements each sends (SQLAlchemy's ``before_cursor_execute``), then prints one line per job after the
event: calls, seconds, statements, milliseconds a call.
Timings include the instrumentation's own small cost; use bench/whole_event.py for the event's figure.

``--step MODULE:FUNCTION`` (repeatable) times one more function the same way, e.g. ``--step
orchestrator.services.swiss.auto:publish_draft --event events/olympiad-2026.yaml`` for a Swiss
round's publication as the workers' chain calls it. The function is replaced in that module, so name the
module that *calls* it (where the name is looked up): ``auto`` imports ``publish_draft`` from ``rounds``.
A method is named with its class: ``orchestrator.domain.swiss.systems:SystemPairer.pair_round``.
To compare two commits, run it from a worktree of each with ``PYTHONPATH`` set to that worktree,
alternating (this machine's speed drifts).
"""

from __future__ import annotations

import atexit
import importlib
import runpy
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import event  # noqa: E402
from sqlalchemy.engine import Engine  # noqa: E402

from orchestrator.demo import driver as demo  # noqa: E402
from orchestrator.jobs import bodies  # noqa: E402

calls: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0])  # calls, seconds, statements
current: list[str | None] = [None]


@event.listens_for(Engine, "before_cursor_execute")
def _count(*_: Any) -> None:
    if current[0] is not None:
        calls[current[0]][2] += 1


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        outer, current[0] = current[0], name
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            entry = calls[name]
            entry[0] += 1
            entry[1] += time.perf_counter() - started
            current[0] = outer

    return run


def _report() -> None:
    print("\njob                            calls  seconds  statements  ms a call")
    for name, (count, seconds, statements) in sorted(calls.items(), key=lambda kv: -kv[1][1]):
        per_call = 1000 * seconds / count
        print(f"{name:30s} {int(count):5d} {seconds:8.3f} {int(statements):11d} {per_call:10.1f}")


def _steps(args: list[str]) -> list[str]:
    """The ``--step`` values taken out of ``args`` (the rest goes to bench/whole_event.py)."""
    steps = []
    while "--step" in args:
        at = args.index("--step")
        steps.append(args[at + 1])
        del args[at : at + 2]
    return steps


options = sys.argv[1:]
for step in _steps(options):
    module_name, _, path = step.partition(":")
    owner: Any = importlib.import_module(module_name)
    *parents, attr = path.split(".")  # a method: ``Class.method``
    for parent in parents:
        owner = getattr(owner, parent)
    setattr(owner, attr, _timed(step, getattr(owner, attr)))
for job_name, job in list(bodies.JOBS.items()):
    bodies.JOBS[job_name] = _timed(job_name, job)
for step in ("_start_pool_stage", "_playoff_tick"):
    setattr(demo.DemoDriver, step, _timed(f"driver.{step}", getattr(demo.DemoDriver, step)))
atexit.register(_report)

sys.argv = [str(ROOT / "bench" / "whole_event.py"), "--runs", "1", *options]
runpy.run_path(sys.argv[0], run_name="__main__")
