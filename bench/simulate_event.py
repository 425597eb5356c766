"""Time `olympiad simulate` of an event file (default: the 163-team 2020 event), process start included.

Run: .venv/bin/python bench/simulate_event.py [--runs 5]
Target (issue 2): under 2 s on a 2-core machine. Prints min / median / max wall-clock seconds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--event", default=str(ROOT / "events" / "online-olympiad-2020.yaml"))
    args = parser.parse_args()
    olympiad = ROOT / ".venv" / "bin" / "olympiad"
    command = [str(olympiad), "simulate", args.event, "--seed", "2020", "--quiet"]
    timings = []
    for run in range(args.runs):
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            sys.exit(f"run {run + 1} failed ({done.returncode}):\n{done.stderr}")
        timings.append(elapsed)
    print(
        f"olympiad simulate ({Path(args.event).name}, {args.runs} runs): "
        f"min {min(timings):.2f} s, median {statistics.median(timings):.2f} s, max {max(timings):.2f} s"
    )


if __name__ == "__main__":
    main()
