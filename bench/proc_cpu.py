"""CPU time of the machine's processes from /proc (user + system, Linux only), for the benches that say
where a run's CPU went (bench/cpu_split.py, bench/season.py, bench/idle_statements.py)."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import Engine, text

TICKS = os.sysconf("SC_CLK_TCK")


def _all_pids() -> list[str]:
    return [p for p in os.listdir("/proc") if p.isdigit()]


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (state, parent, ..., utime at 11)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def cpu_seconds(pid: int | str) -> float:
    """User + system CPU seconds of process ``pid`` (its threads included); 0 when it has ended."""
    try:
        fields = _stat(pid)
        return (int(fields[11]) + int(fields[12])) / TICKS
    except (OSError, IndexError, ValueError):
        return 0.0


def pids(match: str) -> list[str]:
    """The processes whose command line contains ``match``."""
    found = []
    for pid in _all_pids():
        try:
            if match in Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode():
                found.append(pid)
        except OSError:
            continue
    return found


def postgres_cpu() -> float:
    """CPU seconds of every PostgreSQL process on the machine (a connection's server process counts until
    it closes: keep the machine otherwise idle and the connections open over what is measured)."""
    total = 0.0
    for pid in _all_pids():
        try:
            if Path(f"/proc/{pid}/comm").read_text().startswith("postgres"):
                total += cpu_seconds(pid)
        except OSError:
            continue
    return total


def tree(pid: int | str) -> list[str]:
    """Process ``pid`` and its children (a prefork Celery worker's pool processes), from /proc."""
    found = [str(pid)]
    for child in _all_pids():
        try:
            parent = _stat(child)[1]
        except (OSError, IndexError):
            continue
        if parent == str(pid):
            found.append(child)
    return found


def tree_cpu_seconds(pid: int | str) -> float:
    """``cpu_seconds`` of process ``pid`` and its children."""
    return sum(cpu_seconds(p) for p in tree(pid))


def rss_mb(pid: int | str) -> float:
    """Resident memory (VmRSS) of process ``pid`` in MB; NaN when it has ended."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def tree_rss_mb(pid: int | str) -> float:
    """The largest resident memory among process ``pid`` and its children (each pool process holds its
    own copy of what a job loads; the pages they share with the parent are counted in each)."""
    return max(rss_mb(p) for p in tree(pid))


def database_cpu(engine: Engine) -> dict[int, float]:
    """CPU seconds of each PostgreSQL client backend connected to ``engine``'s database (a worker's pooled
    connections; the connection that asks and autovacuum's workers left out), from /proc."""
    with engine.connect() as connection:
        backends = connection.execute(
            text(
                "SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid <> pg_backend_pid()"
            )
        ).scalars()
        return {pid: cpu_seconds(pid) for pid in backends}


def database_seconds_since(engine: Engine, before: dict[int, float]) -> float:
    """The CPU seconds the backends seen in ``before`` (``database_cpu``) spent since (a backend that came or
    went meanwhile is left out: none does while a worker's connection pool is warm)."""
    after = database_cpu(engine)
    return sum(after[pid] - before[pid] for pid in before.keys() & after.keys())
