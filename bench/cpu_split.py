"""Where the whole event's wall clock goes: CPU seconds of this process, the stand-in and PostgreSQL.

Run: .venv/bin/python bench/cpu_split.py [any bench/whole_event.py option, e.g. --runs 1]

Runs bench/whole_event.py unchanged and, around each run's event phase (``Demo.run``), reads the CPU time
(user + system, /proc) of this process (the orchestrator's jobs and driver), of the stand-in process and
of every PostgreSQL process on the machine (so keep the machine otherwise idle), and with ``--celery`` of the
worker processes, the niced background worker (the chances) apart (the orchestrator's figure is then the
staff driver alone). Jobs run in one thread,
so with no parallelism the three figures add up to about the wall clock; their shares say what to work on.
Linux only.
"""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from proc_cpu import cpu_seconds, pids, postgres_cpu  # noqa: E402

from orchestrator.demo import driver as demo  # noqa: E402

_run = demo.Demo.run


def measured_run(self: demo.Demo, *args: Any, **kwargs: Any) -> demo.DemoResult:
    standin = pids("orchestrator.standin")
    standin_before = sum(cpu_seconds(p) for p in standin)
    workers = pids("celery")  # --celery: the worker processes (prefork children included)
    background = [p for p in workers if p in pids(".background")]  # the chances worker (--queues two)
    workers = [p for p in workers if p not in background]
    workers_before = sum(cpu_seconds(p) for p in workers)
    background_before = sum(cpu_seconds(p) for p in background)
    pg_before = postgres_cpu()  # the run's connections stay open in its pool until it ends
    wall, cpu = time.perf_counter(), time.process_time()
    result = _run(self, *args, **kwargs)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    standin_cpu = sum(cpu_seconds(p) for p in standin) - standin_before
    pg_cpu = postgres_cpu() - pg_before
    workers_cpu = sum(cpu_seconds(p) for p in workers) - workers_before
    background_cpu = sum(cpu_seconds(p) for p in background) - background_before
    total = cpu + workers_cpu + background_cpu + standin_cpu + pg_cpu
    print(
        f"event phase: wall {wall:.2f} s; CPU: orchestrator {cpu:.2f} s, Celery workers {workers_cpu:.2f} s, "
        f"background worker {background_cpu:.2f} s, stand-in {standin_cpu:.2f} s, PostgreSQL {pg_cpu:.2f} s "
        f"(sum {total:.2f} s)"
    )
    return result


demo.Demo.run = measured_run  # type: ignore[method-assign]
sys.argv = [str(ROOT / "bench" / "whole_event.py"), *sys.argv[1:]]
runpy.run_path(sys.argv[0], run_name="__main__")
