"""Job time per job name from Celery worker logs: what a worker spent on each kind of job in one run.

Run: .venv/bin/python bench/worker_log_jobs.py DIR/worker.log [DIR/background.log ...]
(the logs of ``bench/whole_event.py --celery --worker-log DIR``).

Sums the ``Task NAME[id] succeeded in Ss`` lines of each log (Celery's own measure of a task's run, from
its start in the pool process to its end) and prints, per log and job name: runs, seconds in all, seconds a
run. Set against the event's wall clock and the worker's process count, this says whether an event was
bound by its jobs' work (the processes busy nearly all the time) or by waits between them
(docs/performance.md, "Where the time goes through Celery").
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

LINE = re.compile(r"Task ([\w.]+)\[[^\]]+\] succeeded in ([0-9.]+)s")


def job_times(text: str) -> dict[str, tuple[int, float]]:
    """Runs and seconds per job name in one log's text."""
    runs: dict[str, int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    for name, took in LINE.findall(text):
        runs[name] += 1
        seconds[name] += float(took)
    return {name: (runs[name], seconds[name]) for name in runs}


def main(paths: list[str]) -> None:
    if not paths:
        raise SystemExit(__doc__)
    for path in paths:
        found = job_times(Path(path).read_text(encoding="utf-8", errors="replace"))
        total = sum(seconds for _runs, seconds in found.values())
        print(f"{path}: {total:.2f} s of jobs")
        print(f"  {'job':<28} {'runs':>5} {'seconds':>8} {'s a run':>8}")
        for name, (runs, seconds) in sorted(found.items(), key=lambda item: -item[1][1]):
            print(f"  {name:<28} {runs:>5} {seconds:>8.2f} {seconds / runs:>8.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
