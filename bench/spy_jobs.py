"""Where the workers' CPU goes, from py-spy's raw stacks (bench/worker_spy.sh): by job, by the library of
the frame that was running, and by our innermost frame.

    .venv/bin/python bench/spy_jobs.py OUT.txt [--under NAME] [--top N]

With ``--under NAME`` (a function name, e.g. ``_playoff_duel``) only the stacks through it are counted,
and they are also listed by the next three of our frames below it.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

RATE_HZ = 100


def _ours(frames: list[str]) -> list[str]:
    return [re.sub(r" \(.*", "", f) for f in frames if "orchestrator/" in f]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("stacks", type=Path)
    parser.add_argument("--under")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    jobs: Counter[str] = Counter()
    libraries: Counter[str] = Counter()
    innermost: Counter[str] = Counter()
    below: Counter[str] = Counter()
    total = 0
    for line in args.stacks.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        frames = stack.split(";")
        if not count.isdigit() or not any(f.startswith("run_job ") for f in frames):
            continue
        ours = _ours(frames)
        if args.under:
            at = next(
                (i for i, f in enumerate(ours) if f == args.under or f.endswith("." + args.under)), None
            )
            if at is None:
                continue
            below[" > ".join(ours[at + 1 : at + 4])] += int(count)
        n = int(count)
        total += n
        job_at = ours.index("run_job")
        jobs[ours[job_at + 1] if job_at + 1 < len(ours) else "?"] += n
        found = re.search(r"\((?:.*site-packages/)?([A-Za-z_]+)", frames[-1])
        libraries[found.group(1) if found else frames[-1][:30]] += n
        innermost[ours[-1]] += n
    if not total:
        print("no sample inside a job")
        return
    print(f"{total} samples inside jobs ({total / RATE_HZ:.2f} s of CPU at {RATE_HZ} Hz)")
    tables = [("job", jobs), ("library of the running frame", libraries), ("our innermost frame", innermost)]
    if args.under:
        tables.append((f"below {args.under}", below))
    for title, counter in tables:
        print(f"== {title}")
        for key, n in counter.most_common(args.top):
            print(f"{100 * n / total:5.1f} % {n:5d}  {key[:150]}")


if __name__ == "__main__":
    main()
