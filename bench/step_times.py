"""Time named functions over a whole event: calls, milliseconds in all and a call, jobs in process.

Run: .venv/bin/python bench/step_times.py --step MODULE:FUNCTION [--step ...] [whole_event.py options]

e.g. ``--step orchestrator.services.swiss.auto:publish_draft --event events/olympiad-2026.yaml`` times a
Swiss round's publication as the workers' chain calls it. Each ``MODULE:FUNCTION`` is replaced in that
module by a timer around it, so name the module that *calls* it (where the name is looked up), as above:
``auto`` imports ``publish_draft`` from ``rounds``. Runs bench/whole_event.py (``--runs 1``) with the jobs
in process and prints one line per step after the event. To compare two commits, run it from a worktree of
each with ``PYTHONPATH`` set to that worktree, alternating (this machine's speed drifts).
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

totals: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # calls, seconds


def _timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            entry = totals[name]
            entry[0] += 1
            entry[1] += time.perf_counter() - started

    return run


def _report() -> None:
    print("\nstep                                                  calls   ms in all   ms a call")
    for name, (calls, seconds) in sorted(totals.items()):
        print(f"{name:52s} {int(calls):6d} {1000 * seconds:11.1f} {1000 * seconds / calls:11.2f}")


def main() -> None:
    args, steps = sys.argv[1:], []
    while "--step" in args:
        at = args.index("--step")
        steps.append(args[at + 1])
        del args[at : at + 2]
    if not steps:
        raise SystemExit(__doc__)
    for step in steps:
        module_name, _, attr = step.partition(":")
        module = importlib.import_module(module_name)
        setattr(module, attr, _timed(step, getattr(module, attr)))
    atexit.register(_report)
    sys.argv = [str(ROOT / "bench" / "whole_event.py"), "--runs", "1", *args]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
