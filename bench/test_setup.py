"""What a test's database costs to set up (docs/CONTRIBUTING.md, "Test speed"): migrating a fresh SQLite
file with Alembic (``init_db``), against copying this process's migrated file (``schema_at_head``, as the
test fixtures do), alternated in one process so the machine's speed drifts alike for both.

    PYTHONPATH=. .venv/bin/python bench/test_setup.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from orchestrator.db import init_db, make_engine
from tests.support.databases import schema_at_head, sqlite_template


def migrate(path: Path) -> float:
    start = time.perf_counter()
    engine = make_engine(f"sqlite:///{path.as_posix()}")
    try:
        init_db(engine=engine)
    finally:
        engine.dispose()
    return time.perf_counter() - start


def copy(path: Path) -> float:
    start = time.perf_counter()
    schema_at_head(f"sqlite:///{path.as_posix()}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    sqlite_template()  # built once per process, as in a test run
    migrated: list[float] = []
    copied: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.runs):
            migrated.append(migrate(Path(folder) / f"m{n}.sqlite3"))
            copied.append(copy(Path(folder) / f"c{n}.sqlite3"))
    m, c = statistics.median(migrated), statistics.median(copied)
    print(
        f"SQLite, migrate a fresh file: median {m:.3f} s "
        f"({min(migrated):.3f}-{max(migrated):.3f}, {args.runs} runs)"
    )
    print(f"SQLite, copy the migrated file: median {c * 1000:.1f} ms ({m / c:.0f}x less)")


if __name__ == "__main__":
    main()
