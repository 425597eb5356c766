"""Requests per second and p99 latency of the spectator pages under ``olympiad serve``, against static CSS.

Run: .venv/bin/python bench/pages.py [--data-dir DIR] [--duration 10] [--connections 16] [--threads 2]
     .venv/bin/python bench/pages.py --database postgres --workers 2 --connections 200
     .venv/bin/python bench/pages.py --connections 200 --think-ms 100   (spectators who read the page)
     .venv/bin/python bench/pages.py --event 2026 [--played 5]   (the full Olympiad 2026's Swiss stage page)

The 2020 event (events/online-olympiad-2020.yaml) is played to its champion on SQLite first, exactly as
bench/whole_event.py --sqlite plays it (``olympiad demo``'s driver, instant games on the stand-in); with
``--data-dir`` an earlier run's database there is reused. Then ``olympiad serve`` (one process) answers,
and each address is loaded for ``--duration`` seconds by ``wrk`` (Debian package ``wrk``), or, without it,
by a small httpx load generator in this process: the static CSS file (the yardstick), the event page, a
Top pool page and the bracket page, each plain and with ``If-None-Match`` of its current ETag (what
live.js and a browser revalidating send). Printed: the command, requests/s, p99 and the ratio to the
static file. ``--database postgres`` plays the event into a scratch PostgreSQL database (dropped
after; ``--database-url`` reuses a played one) and ``--workers N`` serves it with N processes (task_mode
celery, so each runs the Redis live bridge; nothing is written during the bench). ``--tree`` serves
another source tree (e.g. ``git worktree add --detach /tmp/base <commit>``) on the same database, for
a before/after comparison. Anonymous requests only: a logged-in visitor's page is never cached
(docs/caching.md).

``--event 2026``: the full Olympiad 2026 (events/olympiad-2026.yaml, 350 teams in two Swiss sections) is
stored in process instead (tests/support/full_2026.py: ``--played`` rounds played in each section and the
next one paired; SQLite, or the scratch PostgreSQL database), and the addresses are the event page, the
Open Swiss stage page, its round 1 tab, its JSON and the combined classification, each plain, with
``If-None-Match`` and with ``Accept-Encoding: gzip`` (the compressed copy kept by the page cache; for the
static file, compressed per request).

The server and the load generator run on separate CPUs: by default the server gets the first half of the
CPUs this process may use and ``wrk`` the rest (one wrk thread per CPU), so that the generator never takes
the server's CPU and the latency measured is the server's (docs/caching.md, "The p99 at 200
connections": sharing the CPUs, even a bare ASGI app shows p99 tails of hundreds of ms). ``--server-cpus
0 --load-cpus 1`` chooses them; ``--no-pin`` lets the kernel place both. ``--no-access-log`` serves
without the access log (``OLYMPIAD_ACCESS_LOG=false``, for a server behind a reverse proxy that logs
requests itself).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import tcp_counters  # noqa: E402
import wrk_output  # noqa: E402
from whole_event import create_database, drop_database, start_standin, wait_until_up  # noqa: E402

from orchestrator.config import get_settings  # noqa: E402
from orchestrator.demo.driver import Demo  # noqa: E402
from orchestrator.demo.plan import DemoOptions  # noqa: E402
from orchestrator.ports import free_port  # noqa: E402

EVENT = ROOT / "events" / "online-olympiad-2020.yaml"
EVENT_2026 = ROOT / "events" / "olympiad-2026.yaml"
DATABASE = "olympiad.sqlite3"  # Settings.sqlalchemy_url's file in data_dir


@dataclass(frozen=True)
class Figure:
    label: str
    rps: float
    p99_ms: float
    note: str = ""  # wrk's socket errors and the kernel's TCP counters during the run


def _get(url: str, **options: object) -> httpx.Response:
    """A set-up request: the first build of a full 2026 page takes seconds on a busy machine, and minutes
    when the bench runs under ``nice`` beside other work (the server inherits the niceness)."""
    return httpx.get(url, timeout=900, **options)  # type: ignore[arg-type]


def play_event(data_dir: Path, database_url: str = "") -> None:
    """The whole 2020 event to its champion in ``data_dir`` (SQLite) or ``database_url`` (PostgreSQL,
    empty and unmigrated), unless the SQLite file is there already."""
    if not database_url and (data_dir / DATABASE).exists():
        print(f"reusing {data_dir / DATABASE}")
        return
    os.environ.setdefault("OLYMPIAD_STANDIN_ADMIN_TOKEN", "bench-pages-standin")
    get_settings.cache_clear()
    process, standin_url = start_standin(2020)
    try:
        options = DemoOptions(
            event_file=EVENT, web=False, standin_url=standin_url, data_dir=data_dir,
            database_url=database_url, seed=2020, speed=0, round_gap_s=0, tick_s=0.02, task_mode="eager",
        )  # fmt: skip
        started = time.perf_counter()
        with Demo(options) as demo:
            demo.setup()
            result = demo.run()
        champion = " and ".join(result.champions)
        print(f"event played in {time.perf_counter() - started:.0f} s, champion {champion}")
    finally:
        process.terminate()
        process.wait(10)


def store_2026(data_dir: Path, database_url: str, played: int) -> None:
    """The full Olympiad 2026 in ``data_dir`` (SQLite) or ``database_url``, ``played`` rounds per section
    (tests/support/full_2026.py), unless the SQLite file is there already."""
    if not database_url and (data_dir / DATABASE).exists():
        print(f"reusing {data_dir / DATABASE}")
        return
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import Settings
    from orchestrator.db import init_db, make_engine, make_session_factory
    from tests.support.full_2026 import store_full_2026

    settings = Settings(data_dir=data_dir, database_url=database_url, environment="test")
    engine = make_engine(settings.sqlalchemy_url)
    init_db(engine=engine)
    factory = make_session_factory(engine)
    started = time.perf_counter()
    store_full_2026(lambda: UnitOfWork(factory), played=played)
    engine.dispose()
    print(
        f"olympiad-2026 stored ({played} rounds played, one paired) in {time.perf_counter() - started:.0f} s"
    )


def cpu_split(server: str = "", load: str = "") -> tuple[set[int], set[int]]:
    """The CPUs for the server and for the load generator: as given (``"0"``, ``"0,1"``), else the first
    half of this process's CPUs and the rest (one CPU: both get it)."""
    available = sorted(os.sched_getaffinity(0))
    half = max(1, len(available) // 2)
    chosen_server = {int(c) for c in server.split(",")} if server else set(available[:half])
    chosen_load = {int(c) for c in load.split(",")} if load else set(available[half:] or available)
    return chosen_server, chosen_load


def on_cpus(cpus: set[int] | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that keeps the child (and the processes it starts) on ``cpus``; None: anywhere."""
    if not cpus:
        return None
    return lambda: os.sched_setaffinity(0, cpus)


def serve(
    data_dir: Path,
    tree: Path,
    *,
    database_url: str = "",
    workers: int = 1,
    cpus: set[int] | None = None,
    access_log: bool = True,
) -> tuple[subprocess.Popen[bytes], str]:
    """``olympiad serve`` on the played event, running the code of ``tree`` (default: this one). Several
    workers need PostgreSQL and task_mode celery (docs/caching.md): nothing is written here, so no job
    is queued and no Celery worker is needed; the Redis bridge runs in every process."""
    port = free_port()
    env = {**os.environ, "OLYMPIAD_DATA_DIR": str(data_dir), "DATABASE_URL": database_url}
    env["OLYMPIAD_TASK_MODE"] = "celery" if workers > 1 else "eager"
    env["OLYMPIAD_ACCESS_LOG"] = "true" if access_log else "false"
    env["PYTHONPATH"] = str(tree)
    olympiad = Path(sys.executable).with_name("olympiad")
    command = [str(olympiad), "serve", "--port", str(port)]
    if workers > 1:
        command += ["--workers", str(workers)]
    process = subprocess.Popen(
        command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        preexec_fn=on_cpus(cpus),
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    wait_until_up(process, f"{base}/healthz", what="olympiad serve")
    return process, base


def addresses_2026(base: str) -> list[tuple[str, str]]:
    """(label, path): the yardstick, the 2026 event, its Open Swiss stage (current round, round 1, and its
    JSON) and the combined classification."""
    slug = _get(f"{base}/api/v1/events").json()[0]["event"]["slug"]
    return [
        ("static CSS", "/static/site.css"),
        ("2026 event page", f"/events/{slug}"),
        ("2026 Swiss stage page (Open)", f"/events/{slug}/stages/open"),
        ("2026 Swiss stage page, round 1", f"/events/{slug}/stages/open?round=1"),
        ("2026 Swiss stage JSON (Open)", f"/api/v1/events/{slug}/stages/open/swiss"),
        ("2026 combined page", f"/events/{slug}/combined"),
    ]


def addresses(base: str) -> list[tuple[str, str]]:
    """(label, path): the yardstick, the event, its first Top pool and its bracket."""
    slug = _get(f"{base}/api/v1/events").json()[0]["event"]["slug"]
    event = _get(f"{base}/api/v1/events/{slug}").json()
    stages = [s["key"] for s in event["stages"]]
    top = next((k for k in stages if "top" in k.lower()), stages[-1])
    stage = _get(f"{base}/api/v1/events/{slug}/stages/{top}").json()
    letter = stage["pools"][0]["letter"]
    return [
        ("static CSS", "/static/site.css"),
        ("event page", f"/events/{slug}"),
        ("Top pool page", f"/events/{slug}/stages/{top}/pools/{letter}"),
        ("bracket page", f"/events/{slug}/bracket"),
    ]


def run_wrk(url: str, headers: dict[str, str], args: argparse.Namespace) -> tuple[float, float, str, str]:
    command = ["wrk", f"-t{args.threads}", f"-c{args.connections}", f"-d{args.duration}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        if args.think_ms:  # wrk calls delay() before each request: the connection's reading time
            script.write(f"function delay()\n  return {args.think_ms}\nend\n")
            script.flush()
            command += ["-s", script.name]
        before = tcp_counters.snapshot()
        out = subprocess.run(
            [*command, url], capture_output=True, text=True, check=True, preexec_fn=on_cpus(args.load_cpu_set)
        ).stdout
        kernel = tcp_counters.delta(before, tcp_counters.snapshot())
    if args.think_ms:
        command[-1] = f"<delay() returning {args.think_ms}>"
    figures = wrk_output.parse(out)
    shown = [part for part in command if not part.startswith("If-None-Match") and part != "-H"]
    errors = f"wrk socket errors: {figures.errors}; " if figures.errors else ""
    note = errors + tcp_counters.said(kernel)
    return figures.rps, figures.p99_ms, " ".join(shown) + " [-H 'If-None-Match: <ETag>'] <url>", note


async def _load(url: str, headers: dict[str, str], args: argparse.Namespace) -> tuple[float, float]:
    latencies: list[float] = []
    deadline = time.perf_counter() + args.duration

    async def worker(client: httpx.AsyncClient) -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            await client.get(url, headers=headers)
            latencies.append(time.perf_counter() - started)
            await asyncio.sleep(args.think_ms / 1000)

    limits = httpx.Limits(max_connections=args.connections)
    async with httpx.AsyncClient(limits=limits, timeout=60) as client:
        await asyncio.gather(*(worker(client) for _ in range(args.connections)))
    latencies.sort()
    return len(latencies) / args.duration, latencies[int(len(latencies) * 0.99)] * 1000


def measure(url: str, headers: dict[str, str], args: argparse.Namespace) -> tuple[float, float, str, str]:
    if shutil.which("wrk"):
        return run_wrk(url, headers, args)
    if args.load_cpu_set:
        os.sched_setaffinity(0, args.load_cpu_set)  # this process is the load generator
    before = tcp_counters.snapshot()
    rps, p99 = asyncio.run(_load(url, headers, args))
    note = tcp_counters.said(tcp_counters.delta(before, tcp_counters.snapshot()))
    return rps, p99, f"httpx load generator ({args.connections} connections, {args.duration} s)", note


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, help="keep (or reuse) the played event's database here")
    parser.add_argument("--duration", type=int, default=10, help="seconds per address")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--threads", type=int, help="wrk's threads (default: one per load CPU)")
    parser.add_argument("--server-cpus", default="", help="CPUs of the server, e.g. 0 (default: first half)")
    parser.add_argument("--load-cpus", default="", help="CPUs of the load generator (default: the others)")
    parser.add_argument("--no-pin", action="store_true", help="let the kernel place server and generator")
    parser.add_argument(
        "--no-access-log",
        action="store_true",
        help="serve with OLYMPIAD_ACCESS_LOG=false, as behind a reverse proxy that logs the requests itself",
    )
    parser.add_argument(
        "--think-ms",
        type=int,
        default=0,
        help="each connection waits this long after every answer, as a spectator reading the page does "
        "(0: as fast as the server answers, the saturation figure)",
    )
    parser.add_argument(
        "--tree", type=Path, default=ROOT, help="serve this source tree (a worktree of an earlier commit)"
    )
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument(
        "--database-url", default="", help="with --database postgres: an already played database to reuse"
    )
    parser.add_argument("--workers", type=int, default=1, help="olympiad serve --workers (PostgreSQL only)")
    parser.add_argument("--event", choices=("2020", "2026"), default="2020", help="the event served")
    parser.add_argument("--played", type=int, default=5, help="with --event 2026: rounds played per section")
    args = parser.parse_args()
    server_cpus, load_cpus = cpu_split(args.server_cpus, args.load_cpus)
    args.server_cpu_set, args.load_cpu_set = (None, None) if args.no_pin else (server_cpus, load_cpus)
    args.threads = args.threads or (2 if args.no_pin else len(load_cpus))
    if args.workers > 1 and args.database != "postgres":
        parser.error("--workers above 1 needs --database postgres (olympiad serve refuses SQLite)")
    with tempfile.TemporaryDirectory(prefix="olympiad-pages-") as tmp:
        data_dir = (args.data_dir or Path(tmp)).resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        scratch = args.database == "postgres" and not args.database_url
        database_url = create_database() if scratch else args.database_url
        try:
            if args.event == "2026" and (args.database == "sqlite" or scratch):
                store_2026(data_dir, database_url, args.played)
            elif args.database == "sqlite" or scratch:
                play_event(data_dir, database_url)
            figures, command = load_all(data_dir, database_url, args)
        finally:
            if scratch:
                drop_database(database_url)
    where = "PostgreSQL" if args.database == "postgres" else "SQLite"
    processes = f"{args.workers} processes" if args.workers > 1 else "one process"
    placed = (
        "server and load generator placed by the kernel"
        if args.no_pin
        else f"server on CPU {_cpus(args.server_cpu_set)}, load generator on CPU {_cpus(args.load_cpu_set)}"
    )
    logged = "access log off" if args.no_access_log else "access log on"
    served = f"olympiad serve ({where}, {processes}, {logged})"
    print(f"{date.today().isoformat()}, {served}, load: {command}; {placed}")
    yardstick = figures[0].rps
    for figure in figures:
        print(
            f"  {figure.label:<34} {figure.rps:9.0f} req/s  p99 {figure.p99_ms:8.1f} ms  "
            f"{figure.rps / yardstick:6.2f} x static  ({figure.note})"
        )


def _cpus(cpus: set[int] | None) -> str:
    return ",".join(str(c) for c in sorted(cpus or ()))


def load_all(data_dir: Path, database_url: str, args: argparse.Namespace) -> tuple[list[Figure], str]:
    """Serve, then load each address plain and with If-None-Match of its current ETag."""
    process, base = serve(
        data_dir,
        args.tree.resolve(),
        database_url=database_url,
        workers=args.workers,
        cpus=args.server_cpu_set,
        access_log=not args.no_access_log,
    )
    figures: list[Figure] = []
    command = ""
    try:
        for label, path in (addresses_2026 if args.event == "2026" else addresses)(base):
            url = base + path
            print(f"  {label}: first request ({path})", file=sys.stderr, flush=True)
            etag = _get(url, headers={"Accept-Encoding": "identity"}).headers.get("etag", "")
            variants: list[tuple[str, dict[str, str]]] = [(label, {})]
            if etag:
                variants.append((f"{label}, If-None-Match", {"If-None-Match": etag}))
            if args.event == "2026":  # a static file is compressed per request (docs/caching.md)
                variants.append((f"{label}, gzip", {"Accept-Encoding": "gzip"}))
            for name, headers in variants:
                rps, p99, command, note = measure(url, headers, args)
                figures.append(Figure(name, rps, p99, note))
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:  # a niced server on a busy machine may not stop in time
            process.kill()
            process.wait(10)
    return figures, command


if __name__ == "__main__":
    main()
