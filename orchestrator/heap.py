"""The garbage collector and long-running processes (the web processes, the Celery workers)."""

from __future__ import annotations

import gc


def freeze_heap() -> None:
    """Collect once, then move every object alive now (the imported modules, templates, the parsed event
    files, the ORM's mappers and caches: some 200,000 objects in a worker) to the collector's permanent
    generation (``gc.freeze``), which its full collections no longer walk. Called once a process is
    warm: a full collection then walks only what requests and jobs create, instead of pausing the process
    while it walks the whole heap (130-235 ms in a Celery worker during a whole 2020 event: docs/workers.md,
    "Running"; the web's p99: docs/caching.md, "The p99 at 200 connections"). Before a fork it also keeps
    the children from writing to the pages they share with their parent (the collector's bookkeeping on
    every inherited object)."""
    gc.collect()
    gc.freeze()
