"""Every full garbage collection of every Python process started with this folder on ``PYTHONPATH``, one
line each on stderr: which process, how long, how many objects the collector still walks and how many are
frozen (docs/workers.md, "Running"; docs/performance.md).

    PYTHONPATH=bench/gc_probe .venv/bin/python bench/whole_event.py --celery --pool prefork --runs 1 \\
        --worker-log DIR
    grep 'gc probe' DIR/worker.log

The Celery workers inherit the variable, so their full collections land in their log (the bench's own and
the stand-in's on the terminal). Python imports ``sitecustomize`` at start-up when it finds one on the path.
"""

import gc
import os
import sys
import time

_started = [0.0]


def _full_collections(phase: str, info: dict[str, int]) -> None:
    if info["generation"] != 2:
        return
    if phase == "start":
        _started[0] = time.perf_counter()
        return
    took = (time.perf_counter() - _started[0]) * 1000
    print(
        f"gc probe: pid {os.getpid()} full collection {took:.1f} ms, {len(gc.get_objects())} objects walked, "
        f"{gc.get_freeze_count()} frozen",
        file=sys.stderr,
        flush=True,
    )


gc.callbacks.append(_full_collections)
