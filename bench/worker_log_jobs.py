"""Job time per job name from Celery worker logs: what a worker spent on each kind of job in one run.

Run: .venv/bin/python bench/worker_log_jobs.py [--gaps S] [--timeline FROM TO] DIR/worker.log [...]
(the logs of ``bench/whole_event.py --celery --worker-log DIR``).

Sums the ``Task NAME[id] succeeded in Ss`` lines of each log (Celery's own measure of a task's run, from
its start in the pool process to its end) and prints, per log and job name: runs, seconds in all, seconds a
run. Set against the event's wall clock and the worker's process count, this says whether an event was
bound by its jobs' work (the processes busy nearly all the time) or by waits between them
(docs/performance.md, "Where the time goes through Celery").

``--gaps S`` also prints, for the log's last S seconds (the 2020 event's play-off is about its last three),
every stretch of more than 30 ms in which no job of that log ran, and their sum: the waits of a chain of
jobs (a countdown, a driver's tick) as against its work (docs/performance.md, "Waits left in the chain").

``--timeline FROM TO`` also lists every job that started between FROM and TO seconds after the log's first
job, in order of start: start, end, run time, the process (``ForkPoolWorker-N``), the name, and how long
it waited between its arrival at the worker and its start (a countdown included). Beat's cheap periodic
jobs (``rounds.open_due``, ``results.reconcile``, ``notify.scan``) are left out. Jobs that run one after
the other on alternating processes, each starting as the one before ends, are waiting on each other's
locks (docs/performance.md, "A pull takes its stage's open rounds along").
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from datetime import datetime
from pathlib import Path

SUCCEEDED = re.compile(
    r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): [^\]]*\] Task ([\w.]+)\[[^\]]+\] succeeded in ([0-9.]+)s"
)
GAP_S = 0.03
STAMP = r"^\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): "
RECEIVED = re.compile(STAMP + r"[^\]]*\] Task [\w.]+\[([^\]]+)\] received")
FINISHED = re.compile(STAMP + r"INFO/([\w-]+)\] Task ([\w.]+)\[([^\]]+)\] succeeded in ([0-9.]+)s")
QUIET = frozenset({"rounds.open_due", "results.reconcile", "notify.scan"})


def job_times(text: str) -> dict[str, tuple[int, float]]:
    """Runs and seconds per job name in one log's text."""
    runs: dict[str, int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    for _stamp, name, took in succeeded(text):
        runs[name] += 1
        seconds[name] += float(took)
    return {name: (runs[name], seconds[name]) for name in runs}


def idle_gaps(text: str, last_s: float) -> list[tuple[float, float, str]]:
    """Stretches longer than ``GAP_S`` with no job running in the log's last ``last_s`` seconds: (start,
    length, the job that came next), times in seconds before the last job's end."""
    spans: list[tuple[float, float, str]] = []
    for stamp, name, took in succeeded(text):
        end = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()
        spans.append((end - float(took), end, name))
    if not spans:
        return []
    spans.sort()
    finish = max(end for _start, end, _name in spans)
    gaps: list[tuple[float, float, str]] = []
    busy_until = finish - last_s
    for start, end, name in spans:
        if end < finish - last_s:
            continue
        if start - busy_until > GAP_S:
            gaps.append((busy_until - finish, start - busy_until, name))
        busy_until = max(busy_until, end)
    return gaps


def _seconds(stamp: str) -> float:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def timeline(text: str, start_s: float, end_s: float) -> list[tuple[float, float, str, str, float | None]]:
    """(start, end, process, job name, wait before its start) of each job that started between ``start_s``
    and ``end_s`` seconds after the log's first job, beat's cheap periodic jobs left out."""
    received: dict[str, float] = {}
    jobs: list[tuple[float, float, str, str, str]] = []
    for line in text.splitlines():
        if (arrived := RECEIVED.match(line)) is not None:
            received[arrived[2]] = _seconds(arrived[1])
        elif (done := FINISHED.match(line)) is not None:
            end = _seconds(done[1])
            jobs.append((end - float(done[5]), end, done[2], done[3], done[4]))
    if not jobs:
        return []
    jobs.sort()
    first = jobs[0][0]
    return [
        (start - first, end - first, process, name, start - received[job] if job in received else None)
        for start, end, process, name, job in jobs
        if start_s <= start - first <= end_s and name not in QUIET
    ]


def succeeded(text: str) -> list[tuple[str, str, str]]:
    """(time stamp, job name, seconds) of each ``Task NAME[id] succeeded in Ss`` line."""
    found = (SUCCEEDED.match(line) for line in text.splitlines())
    return [(m[1], m[2], m[3]) for m in found if m is not None]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("logs", nargs="+")
    parser.add_argument(
        "--gaps", type=float, metavar="S", help="list the idle stretches of the last S seconds"
    )
    parser.add_argument(
        "--timeline",
        type=float,
        nargs=2,
        metavar=("FROM", "TO"),
        help="list the jobs started between FROM and TO seconds after the first, in order",
    )
    args = parser.parse_args()
    for path in args.logs:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
        found = job_times(text)
        total = sum(seconds for _runs, seconds in found.values())
        print(f"{path}: {total:.2f} s of jobs")
        print(f"  {'job':<28} {'runs':>5} {'seconds':>8} {'s a run':>8}")
        for name, (runs, seconds) in sorted(found.items(), key=lambda item: -item[1][1]):
            print(f"  {name:<28} {runs:>5} {seconds:>8.2f} {seconds / runs:>8.3f}")
        if args.gaps:
            gaps = idle_gaps(text, args.gaps)
            idle = sum(gap for _at, gap, _name in gaps)
            print(f"  no job running in the last {args.gaps:.1f} s: {idle:.2f} s in all")
            for at, gap, name in gaps:
                print(f"    at {at:7.3f} s  {gap * 1000:6.0f} ms, then {name}")
        if args.timeline:
            print(f"  {'start':>7} {'end':>7} {'ran':>7} {'waited':>7}  process  job")
            for start, end, process, name, waited in timeline(text, *args.timeline):
                wait = f"{waited * 1000:5.0f}ms" if waited is not None else "      ?"
                ran = f"{(end - start) * 1000:5.0f}ms"
                print(f"  {start:7.3f} {end:7.3f} {ran} {wait}  {process[-8:]:>8} {name}")


if __name__ == "__main__":
    main()
