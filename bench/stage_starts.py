"""How long the demo's staff take to start each pool stage of a whole event (draft, publish, start).

Run: .venv/bin/python bench/stage_starts.py [any bench/whole_event.py option, e.g. --celery --pool prefork]

Runs bench/whole_event.py unchanged and times every ``DemoDriver._start_pool_stage`` (orchestrator/demo/
staff.py): the staff's pool draft, publication with its pairing-number lots, and the start that draws the
pairing numbers and writes the stage's rounds, matches and boards, each in its own transaction, in the
bench's own process. No job runs meanwhile (the stage before is closed and the new one has no games yet),
so these milliseconds, and the driver's tick before them, are on the event's critical path
(docs/performance.md, "Waits left in the chain"). Prints one line per stage start with its parts (the
three services' calls; the rest is the three commits and the demo's own scheduling) and their sum.
"""

from __future__ import annotations

import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orchestrator.demo.staff import DemoDriver  # noqa: E402
from orchestrator.services.setup import pool_draft, stage_start  # noqa: E402

_start = DemoDriver._start_pool_stage
_took: list[float] = []
_parts: dict[str, float] = {}


def _timed_part(module: Any, name: str) -> None:
    """Wrap ``module.name`` (the staff module calls it through its module) to add its time to ``_parts``."""
    call: Callable[..., Any] = getattr(module, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            _parts[name] = _parts.get(name, 0.0) + time.perf_counter() - started

    setattr(module, name, timed)


def timed_start(self: DemoDriver, stage_id: int, key: str, name: str, *args: Any) -> None:
    _parts.clear()
    started = time.perf_counter()
    try:
        _start(self, stage_id, key, name, *args)
    finally:
        _took.append(time.perf_counter() - started)
        parts = ", ".join(f"{part} {seconds * 1000:.0f} ms" for part, seconds in _parts.items())
        print(f"stage start: {name}: {_took[-1] * 1000:.0f} ms ({parts})", flush=True)


for _module, _name in (
    (pool_draft, "draft_pools"),
    (pool_draft, "publish_pools"),
    (stage_start, "start_stage"),
):
    _timed_part(_module, _name)
DemoDriver._start_pool_stage = timed_start  # type: ignore[method-assign,assignment]
sys.argv = [str(ROOT / "bench" / "whole_event.py"), *sys.argv[1:]]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
finally:
    print(f"stage starts: {len(_took)}, {sum(_took):.2f} s in all")
