"""How long a stored result takes to reach 1,000 spectators' live streams, and what an idle one costs.

Run: .venv/bin/python bench/live_latency.py [--subscribers 1000] [--clients 2] [--workers 2] [--stores 3]
     .venv/bin/python bench/live_latency.py --event 2026   (the full Olympiad 2026's Swiss stage page)

A scratch PostgreSQL database (dropped after) gets the small test event (tests/fixtures/events/small.yaml)
with its first stage started and an arbiter account. ``olympiad serve --workers N`` (task_mode celery, so
each process runs the Redis live bridge of adapters/live_redis.py) serves it. ``--clients`` processes open
``--subscribers`` server-sent-event streams in all on the pool page's live address
(``/events/<slug>/live?topic=pool:<id>``, what live.js opens) and wait for their ``ready``. The server's
resident memory (all its processes) is read before and after: the difference per stream is the cost of an
idle subscriber. Then the arbiter saves a board's result through the JSON API (``PUT
/api/v1/boards/<id>/result``, the autosave path; the result is committed and the pool's standings
recomputed in the serving process, which announces after the commit); ``--stores`` times, a board each,
``--gap`` seconds apart. Latency is from just before the PUT is sent to each stream's receipt of the
pool's ``change`` message (the clients' clocks are this machine's). Printed: p50, p95 and max over every
stream and store, the PUT's own round trip, and the memory per subscriber. No assertion: figures only.

``--event 2026``: the full Olympiad 2026 (350 teams, tests/support/full_2026.py: round 1 played in both
sections, round 2 paired) instead, and the streams open the Open Swiss stage page's live address (its
stage and its pool: ``/events/<slug>/live?topic=stage:<id>&topic=pool:<id>``); the results are saved on
round 2's boards.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import re
import secrets
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlmodel import col, select

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from whole_event import create_database, drop_database, wait_until_up  # noqa: E402

from orchestrator.adapters.tables import Board, Match, Role  # noqa: E402
from orchestrator.adapters.uow import UnitOfWork  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.ports import free_port  # noqa: E402
from orchestrator.services.accounts.users import create_user  # noqa: E402
from orchestrator.services.setup import event_setup, pool_draft, stage_start  # noqa: E402
from tests.support.processes import descendants  # noqa: E402

SMALL_EVENT = ROOT / "tests" / "fixtures" / "events" / "small.yaml"
PASSWORD = "bench live latency password"
ACTOR = "bench"


@dataclass(frozen=True)
class Seeded:
    slug: str
    pool_id: int
    boards: list[tuple[int, int]]  # (board id, version): one per store, each of another match
    arbiter: str


def seed_2026(database_url: str) -> tuple[Seeded, str]:
    """The full Olympiad 2026 and an arbiter; the Open Swiss stage page's live address."""
    from tests.support.full_2026 import store_full_2026

    engine = make_engine(database_url)
    init_db(engine=engine)
    factory = make_session_factory(engine)
    full = store_full_2026(lambda: UnitOfWork(factory), played=1)
    with UnitOfWork(factory) as uow:
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    with UnitOfWork(factory) as uow:
        matches = sorted(uow.rounds.matches_of_round(full.open_round_id), key=lambda m: m.match_no)
        by_match = uow.boards.boards_by_match([m.id for m in matches], with_pgn=False)
        boards = [(by_match[m.id or 0][0].id or 0, by_match[m.id or 0][0].version) for m in matches]
    engine.dispose()
    pool_id, stage_id = full.pool_ids["open"], full.stage_ids["open"]
    path = f"/events/{full.slug}/live?topic=stage:{stage_id}&topic=pool:{pool_id}"
    return Seeded(full.slug, pool_id, boards, "arbiter"), path


def seed(database_url: str) -> Seeded:
    """The small event, its first stage started, and an arbiter."""
    engine = make_engine(database_url)
    init_db(engine=engine)
    factory = make_session_factory(engine)
    slug = f"live-{secrets.token_hex(4)}"
    text = SMALL_EVENT.read_text(encoding="utf-8")
    text = "".join(f"slug: {slug}\n" if ln.startswith("slug:") else ln for ln in text.splitlines(True))
    with UnitOfWork(factory) as uow:
        event_id = event_setup.create_event(uow, definition_text=text, source="small.yaml", actor=ACTOR)
        stage_id = next(iter(event_setup.stage_ids_by_key(uow, event_id=event_id).values()))
        pool_draft.draft_pools(uow, stage_id=stage_id, actor=ACTOR)
        pool_draft.publish_pools(uow, stage_id=stage_id, actor=ACTOR, pairing_seed=bytes(32))
        stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR).raise_refusal()
        create_user(uow, username="arbiter", password=PASSWORD, role=Role.ARBITER)
    with UnitOfWork(factory) as uow:
        pool = pool_draft.describe_pools(uow, stage_id=stage_id).pools[0]
        matches = select(Match).where(Match.pool_id == pool.id).order_by(col(Match.id))
        boards = []
        for match in uow.session.exec(matches).all():
            first = select(Board).where(Board.match_id == match.id).order_by(col(Board.board_no))
            board = uow.session.exec(first).first()
            if board is not None:
                boards.append((board.id or 0, board.version))
    engine.dispose()
    return Seeded(slug, pool.id or 0, boards, "arbiter")


# --- the server and its memory ---------------------------------------------------------------------------


def rss_mb(pids: list[int]) -> dict[int, float]:
    sizes = {}
    for pid in pids:
        with contextlib.suppress(OSError):
            status = Path(f"/proc/{pid}/status").read_text()
            found = re.search(r"VmRSS:\s+(\d+) kB", status)
            if found:
                sizes[pid] = int(found.group(1)) / 1024
    return sizes


def serve(
    database_url: str, workers: int, data_dir: Path, streams: int
) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "OLYMPIAD_TASK_MODE": "celery",
        "OLYMPIAD_WORKER_QUEUE": f"bench-live-{secrets.token_hex(4)}",  # no Celery worker takes its jobs
        "OLYMPIAD_DATA_DIR": str(data_dir),
        "OLYMPIAD_LOGIN_MAX_FAILURES": "1000",
        # Every stream comes from this machine's address: lift the per-address cap (docs/security.md).
        "OLYMPIAD_LIVE_MAX_STREAMS_PER_IP": str(streams + 100),
    }
    olympiad = Path(sys.executable).with_name("olympiad")
    command = [str(olympiad), "serve", "--port", str(port)]
    if workers > 1:
        command += ["--workers", str(workers)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_up(process, f"http://127.0.0.1:{port}/healthz", what="olympiad serve")
    return process, port


# --- the subscribers (one asyncio loop per client process, raw HTTP/1.1) ------------------------------------


async def _subscribe(port: int, path: str, ready: list[int], times: list[float], topic: bytes) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n"
    writer.write(request.encode())
    await writer.drain()
    change = False
    while line := await reader.readline():
        if line.startswith(b"event: ready"):
            ready.append(1)
        elif line.startswith(b"event: change"):
            change = True
        elif change and line.startswith(b"data:"):
            change = False
            if topic in line:
                times.append(time.time())


def client(port: int, path: str, count: int, topic: str, ready_q: Any, done: Any, out_q: Any) -> None:
    """Open ``count`` streams, report when all are ready, record each pool message's arrival until told."""

    async def run() -> list[list[float]]:
        ready: list[int] = []
        times: list[list[float]] = [[] for _ in range(count)]
        tasks = []
        for i in range(count):
            tasks.append(asyncio.create_task(_subscribe(port, path, ready, times[i], topic.encode())))
            if i % 50 == 49:
                await asyncio.sleep(0.05)  # do not overflow the listen backlog
        while len(ready) < count:
            await asyncio.sleep(0.05)
        ready_q.put(count)
        while not done.is_set():
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return times

    out_q.put(asyncio.run(run()))


# --- the stores --------------------------------------------------------------------------------------------


def store_results(base: str, seeded: Seeded, stores: int, gap: float) -> list[tuple[float, float]]:
    """Save ``stores`` results as the arbiter; (time just before each PUT, its round trip in s)."""
    sent = []
    with httpx.Client(base_url=base, timeout=30) as arbiter:
        login = arbiter.post("/api/v1/auth/login", json={"username": seeded.arbiter, "password": PASSWORD})
        login.raise_for_status()
        token = {"X-CSRF-Token": login.json()["csrf_token"]}
        for board_id, version in seeded.boards[:stores]:
            body = {"result": "1-0", "expected_version": version}
            started = time.time()
            answer = arbiter.put(f"/api/v1/boards/{board_id}/result", json=body, headers=token)
            sent.append((started, time.time() - started))
            answer.raise_for_status()
            time.sleep(gap)
    return sent


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * share))]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--subscribers", type=int, default=1000)
    parser.add_argument("--clients", type=int, default=2, help="client processes sharing the streams")
    parser.add_argument("--workers", type=int, default=2, help="olympiad serve --workers")
    parser.add_argument("--stores", type=int, default=3, help="results saved, one board of a match each")
    parser.add_argument("--gap", type=float, default=2.0, help="seconds between stores")
    parser.add_argument("--event", choices=("small", "2026"), default="small", help="the event served")
    args = parser.parse_args()
    database_url = create_database()
    process: subprocess.Popen[bytes] | None = None
    try:
        if args.event == "2026":
            seeded, args.path = seed_2026(database_url)
        else:
            seeded = seed(database_url)
            args.path = f"/events/{seeded.slug}/live?topic=pool:{seeded.pool_id}"
        if args.stores > len(seeded.boards):
            parser.error(f"--stores at most {len(seeded.boards)} (the pool's matches)")
        data_dir = Path(f"/tmp/olympiad-live-{secrets.token_hex(4)}")
        process, port = serve(database_url, args.workers, data_dir, args.subscribers)
        run(args, seeded, process, port)
    finally:
        if process is not None:
            process.terminate()
            process.wait(10)
        drop_database(database_url)


def run(args: argparse.Namespace, seeded: Seeded, process: subprocess.Popen[bytes], port: int) -> None:
    servers = [process.pid, *descendants(process.pid)]
    time.sleep(1)
    before = rss_mb(servers)
    topic = f"pool:{seeded.pool_id}"
    path = args.path
    context = multiprocessing.get_context("spawn")
    ready_q, out_q, done = context.Queue(), context.Queue(), context.Event()
    shares = [
        args.subscribers // args.clients + (i < args.subscribers % args.clients) for i in range(args.clients)
    ]
    started = time.perf_counter()
    clients = [
        context.Process(target=client, args=(port, path, n, topic, ready_q, done, out_q)) for n in shares
    ]
    for each in clients:
        each.start()
    for _ in clients:
        ready_q.get(timeout=120)
    subscribed_s = time.perf_counter() - started
    time.sleep(2)  # let the server settle
    after = rss_mb(servers)
    sent = store_results(f"http://127.0.0.1:{port}", seeded, args.stores, args.gap)
    time.sleep(2)
    done.set()
    arrivals: list[list[float]] = []
    for _ in clients:
        arrivals += out_q.get(timeout=60)
    for each in clients:
        each.join(10)
    report(args, sent, arrivals, before, after, subscribed_s)


def report(
    args: argparse.Namespace,
    sent: list[tuple[float, float]],
    arrivals: list[list[float]],
    before: dict[int, float],
    after: dict[int, float],
    subscribed_s: float,
) -> None:
    latencies: list[float] = []
    missed = 0
    for at, _round_trip in sent:
        for stream in arrivals:
            first = next((t for t in stream if t >= at), None)
            if first is None:
                missed += 1
            else:
                latencies.append(first - at)
    total_before, total_after = sum(before.values()), sum(after.values())
    print(
        f"olympiad serve --workers {args.workers} (PostgreSQL, Redis bridge), {len(arrivals)} streams from "
        f"{args.clients} client processes (all ready in {subscribed_s:.1f} s), {len(sent)} results "
        f"saved through PUT /api/v1/boards/<id>/result, {args.gap:.0f} s apart; streams on {args.path}"
    )
    if latencies:
        print(
            f"  store -> message received: p50 {percentile(latencies, 0.5) * 1000:.0f} ms, "
            f"p95 {percentile(latencies, 0.95) * 1000:.0f} ms, max {max(latencies) * 1000:.0f} ms "
            f"over {len(latencies)} deliveries; missed {missed}"
        )
    trips = [trip * 1000 for _at, trip in sent]
    print(f"  the PUT's own round trip: median {statistics.median(trips):.0f} ms (max {max(trips):.0f})")
    per = (total_after - total_before) * 1024 / max(1, len(arrivals))
    print(
        f"  server RSS (all processes) {total_before:.0f} MB before, {total_after:.0f} MB with the streams: "
        f"{per:.0f} kB per idle subscriber"
    )
    for pid in sorted(after):
        print(f"    pid {pid}: {before.get(pid, 0):.0f} -> {after[pid]:.0f} MB")


if __name__ == "__main__":
    main()
