"""A season on one machine: 1, 10 and 50 events of the 2020 size at once, beside 200 finished events.

Run: nice .venv/bin/python bench/season.py [--events 1,10,50] [--stages 2] [--finished 200]
        [--idle-ticks 20] [--plot docs/performance-season.png]
Needs PostgreSQL (OLYMPIAD_BENCH_PG_ADMIN_URL, as bench/whole_event.py: a scratch database is created and
dropped after) and Redis (REDIS_URL).

What runs, in one scratch database, with one stand-in process (``--speed instant``), one Celery worker process
(``--pool threads`` with ``--concurrency`` threads, or ``--pool prefork`` with that many pool processes,
whose CPU time and memory are then read over the worker and its pool) and, for the events, one Celery beat
process, all real processes:

1. **Idle tick, no event**: the worker gets each periodic job of beat's schedule (rounds.open_due,
   results.reconcile, playoff.tick, notify.scan, chances.scan) ``--idle-ticks`` times, one job at a time,
   with nothing to do. Printed: the worker process's CPU time per tick (user + system, from /proc), per job,
   the CPU time of the PostgreSQL server processes serving the worker (the same /proc figures of the client
   backends ``pg_stat_activity`` lists for the scratch database), and the worker's resident memory (VmRSS).
2. **200 finished events**: one event is played to its end through the same worker and the idle tick is
   measured (what the worker keeps from an event it played), then the event is copied in SQL
   (``clone_event``: every row of the event, as the backup's table plan finds them, ids shifted, unique text
   suffixed) until ``--finished`` finished events are stored, the tables are vacuumed and analysed (as
   autovacuum leaves them once it has caught up) and the idle tick is measured again.
3. **N events at once**, for each N of ``--events``: N copies of the event (each its own slug, every player
   linked on the stand-in) are set up, then played to their ends together: beat (every ``--beat`` seconds)
   and the worker do the jobs, this process runs the N staff drivers of ``olympiad demo`` (drafting and
   starting stages) in turn every ``--tick`` seconds. Every round of a stage is due at once and games end as
   soon as they start (``bench/whole_event.py``'s settings). Printed: games per second over all events (the
   boards with a game on the server, over the wall clock from the first step to the last event's end),
   the turnaround p50/p95/max, how long after its last game a round was closed here (every result
   stored), the worker's memory after the run, the most messages seen waiting in the worker's queue
   (sampled every ``--tick``), how many of beat's sends were skipped because the job was queued or running
   already (docs/workers.md, "Dispatch modes"), the machine reference measured just before the run, and
   the CPU seconds each process spent over the run (this process's staff drivers, the worker, beat, the
   stand-in, Redis and every PostgreSQL process, from /proc: bench/proc_cpu.py).

**Turnaround**: from the moment the last game of a round ended on the game server to the moment the next
round's games exist there, both read from the stand-in (``createdAt`` and ``clockStart`` of one game per
round: at instant speed every game of a bulk ends when its clocks start). Only rounds that wait for results
count: a pool stage's rounds are all due at once, so a whole pool stage is one step, a Swiss round one step,
a knockout bracket round (its two matches) one step; an Armageddon game only ends its bracket round later.
Each step after an event's first gives one figure: its first games' creation minus the latest end of the
games created before them.

A count given more than once runs again (``--events 1,1,1,50``): the share of the single-event rate is
then taken against the median of the single-event runs.

``--stages K`` keeps the event file's first K stages (and drops the bracket unless every stage is kept, and
the teams no kept stage seeds: 2 stages are 68 teams, 2,160 games),
because the whole event (6,078 games) 50 times over does not fit the shared 2-core machine's time: see
docs/performance.md, "A season on one machine". The plot (``--plot``, matplotlib from the ``bench`` extra)
has the events on the x axis, games per second and turnaround p95 on the y axes.

**Machine reference**: ``bench/whole_event.py``'s (the pure simulation of the 2020 event in process, best of
3), measured at the start, before each run of N events and at the end, and printed beside the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import redis
from cryptography.fernet import Fernet
from pydantic import SecretStr
from sqlalchemy import (
    DateTime,
    Integer,
    Interval,
    String,
    UniqueConstraint,
    case,
    func,
    insert,
    literal,
    select,
    text,
)
from sqlalchemy.engine import Engine

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from proc_cpu import (  # noqa: E402
    cpu_seconds,
    database_cpu,
    database_seconds_since,
    pids,
    postgres_cpu,
    tree_cpu_seconds,
    tree_rss_mb,
)
from whole_event import (  # noqa: E402
    create_database,
    drop_database,
    machine_reference,
    start_standin,
    start_worker,
    worker_env,
)

from orchestrator.adapters.repo_backup import (  # noqa: E402
    BackupRepository,
    _base_type,
    _conditions,
    event_plan,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory  # noqa: E402
from orchestrator.config import Settings, get_settings  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.demo.accounts import standin_account  # noqa: E402
from orchestrator.demo.driver import ORGANISER_ACCOUNT, Demo  # noqa: E402
from orchestrator.demo.plan import DemoOptions  # noqa: E402
from orchestrator.errors import ServiceError  # noqa: E402
from orchestrator.jobs import runtime  # noqa: E402
from orchestrator.jobs.bodies import PERIODIC  # noqa: E402
from orchestrator.standin.app import admin_headers  # noqa: E402

CLONE_OFFSET = 1_000_000  # copy k of the event takes ids k * CLONE_OFFSET + its own (one event < 1e6 rows)


# ------------------------------------------------------------------------------------------ the event


def cut_event(source: Path, stages: int, folder: Path) -> Path:
    """The event file with its first ``stages`` stages only: the later stages and the bracket go, the last
    stage kept advances nobody (``advance: 0``), and only the teams its stages seed stay (seeds renumbered
    from 1)."""
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith("  - key: ")]
    if stages >= len(starts):
        return source
    teams = next(i for i, line in enumerate(lines) if line.startswith("teams:"))
    head = lines[: starts[stages - 1]]
    last = [
        "    advance: 0\n" if line.startswith("    advance:") else line
        for line in lines[starts[stages - 1] : starts[stages]]
    ]
    seeds: set[int] = set()
    for first, end in re.findall(r"\{seeds: (\d+)-(\d+)\}", "".join(head + last)):
        seeds.update(range(int(first), int(end) + 1))
    blocks: list[list[str]] = []
    for line in lines[teams + 1 :]:
        if line.startswith("  - name:"):
            blocks.append([])
        if blocks:
            blocks[-1].append(line)
    kept = [
        block
        for block in blocks
        if int(next(line for line in block if line.startswith("    seed:")).split()[1]) in seeds
    ]
    # Seeds run 1..n without gaps: the kept seeds (one range from the weakest up) shift down.
    shift = min(seeds) - 1
    body = re.sub(
        r"\{seeds: (\d+)-(\d+)\}",
        lambda m: f"{{seeds: {int(m[1]) - shift}-{int(m[2]) - shift}}}",
        "".join(head + last),
    )
    team_lines = [
        f"    seed: {int(line.split()[1]) - shift}\n" if line.startswith("    seed:") else line
        for block in kept
        for line in block
    ]
    text = "".join([body, "\n", lines[teams], *team_lines])
    path = folder / f"{source.stem}-{stages}-stages.yaml"
    path.write_text(text, encoding="utf-8")
    return path


SHARED: list[UnitOfWorkFactory] = []  # the season's one unit-of-work factory (one engine for every event)
SHARED_ENGINE: list[Engine] = []


class SeasonDemo(Demo):
    """``olympiad demo``'s set-up and staff driver on the season's shared engine (not one per event)."""

    def _open_database(self, settings: Settings) -> UnitOfWorkFactory:
        runtime.configure(settings, uow_factory=SHARED[0])
        return SHARED[0]


# ------------------------------------------------------------------------------------- the processes


def done_count(log: Path) -> int:
    return log.read_bytes().count(b" succeeded in ")


@dataclass
class IdleTick:
    per_job_ms: dict[str, float]  # the worker's CPU per job
    per_job_database_ms: dict[str, float]  # the PostgreSQL server processes of the scratch database
    rss_mb: float

    @property
    def per_tick_ms(self) -> float:
        return sum(self.per_job_ms.values())

    @property
    def database_ms(self) -> float:
        return sum(self.per_job_database_ms.values())


def idle_ticks(worker: subprocess.Popen[bytes], log: Path, ticks: int, engine: Engine) -> IdleTick:
    """The worker's CPU time for each periodic job with nothing to do, sent ``ticks`` times one by one, and
    the database server's CPU time for the whole tick."""
    from workers.app import celery_app  # reads the settings (the run's queue) at import

    queue = get_settings().worker_queue

    def run(name: str) -> None:
        before = done_count(log)
        celery_app.send_task(name, queue=queue)
        deadline = time.monotonic() + 60
        while done_count(log) == before:
            if time.monotonic() > deadline or worker.poll() is not None:
                raise SystemExit(f"{name} did not finish:\n{log.read_text(errors='replace')[-2000:]}")
            time.sleep(0.005)

    for name in PERIODIC:  # warm-up: the first run of each job opens connections and fills caches
        run(name)
    per_job: dict[str, float] = {}
    per_job_database: dict[str, float] = {}
    for name in PERIODIC:
        time.sleep(0.2)  # the worker settles (its idle loop costs next to nothing)
        started, database_started = tree_cpu_seconds(worker.pid), database_cpu(engine)
        for _ in range(ticks):
            run(name)
        per_job[name] = (tree_cpu_seconds(worker.pid) - started) / ticks * 1000
        per_job_database[name] = database_seconds_since(engine, database_started) / ticks * 1000
    return IdleTick(per_job, per_job_database, tree_rss_mb(worker.pid))


def start_beat(settings: Settings, folder: Path, beat_s: float) -> subprocess.Popen[bytes]:
    env = worker_env(settings)
    for name in ("OPEN_DUE", "RECONCILE", "PLAYOFF"):
        env[f"OLYMPIAD_BEAT_{name}_S"] = str(beat_s)
    celery = Path(sys.executable).with_name("celery")
    args = [str(celery), "-A", "workers.app", "beat", "--loglevel=INFO"]
    args += ["--schedule", str(folder / "beat-schedule")]
    with (folder / "beat.log").open("wb") as out:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(10)


# ------------------------------------------------------------------------------------ finished events


def clone_event(engine: Engine, event_id: int, copies: int) -> None:
    """``copies`` copies of event ``event_id`` in SQL: every row the backup's table plan gives the event
    (docs/backup.md), unique text (slug, game ids, bulk ids) suffixed ``-k``, the ids of each table and the
    references into it (an audit entry's ``entity_id`` too) shifted by ``k`` times that table's largest id,
    so that ids stay as small as a server holding that many events would have them, and every time ``k``
    hours earlier (a season that finished one event an hour). Accounts are not copied (staff roles hold for
    every event). Ids inside JSON values (lineups, outcomes) are left as they are: a finished event's are
    not read again by the jobs."""
    plans = [plan for plan in event_plan() if plan.name != "user"]
    planned = {plan.name for plan in plans}
    conditions = _conditions(event_plan(), event_id)
    with engine.begin() as connection:
        largest = {
            plan.name: int(connection.execute(select(func.max(plan.table.c.id))).scalar() or 0)
            for plan in plans
            if "id" in plan.table.c
        }
        for k in range(1, copies + 1):
            for plan in plans:
                table = plan.table
                unique_text = {
                    column.name
                    for constraint in table.constraints
                    if isinstance(constraint, UniqueConstraint)
                    for column in constraint.columns
                    if isinstance(_base_type(column), String)
                    and not any(
                        other.foreign_keys or other.primary_key
                        for other in constraint.columns
                        if other is not column
                    )
                } | {c.name for c in table.columns if c.unique and isinstance(_base_type(c), String)}
                values = []
                for column in table.columns:
                    into = [
                        fk.column.table.name for fk in column.foreign_keys if fk.column.table.name in planned
                    ]
                    target = table.name if column.primary_key else (into[0] if into else None)
                    if isinstance(_base_type(column), Integer) and target in largest:
                        values.append((column + k * largest[target]).label(column.name))
                    elif (
                        table.name == "audit_log" and column.name == "entity_id"
                    ):  # names its table in entity
                        whens = [(table.c.entity == name, column + k * top) for name, top in largest.items()]
                        values.append(case(*whens, else_=column).label(column.name))
                    elif isinstance(_base_type(column), DateTime):
                        values.append((column - literal(timedelta(hours=k), Interval())).label(column.name))
                    elif column.name in unique_text:
                        suffix, length = f"-{k}", getattr(_base_type(column), "length", None)
                        kept = func.substr(column, 1, length - len(suffix)) if length else column
                        values.append((kept + suffix).label(column.name))
                    else:
                        values.append(column)
                query = select(*values).where(conditions[plan.name])
                connection.execute(insert(table).from_select([c.name for c in table.columns], query))
    sessions = make_session_factory(engine)
    with sessions() as session:
        BackupRepository(session).reset_sequences(planned)
        session.commit()


def wait_closed(engine: Engine, event_ids: Sequence[int], timeout: float) -> None:
    """Until every one of the events is closed (its last stage closed by the worker)."""
    deadline = time.monotonic() + timeout
    query = text("SELECT count(*) FROM event WHERE id = ANY(:ids) AND status <> 'closed'")
    while True:
        with engine.connect() as connection:
            if not connection.execute(query, {"ids": list(event_ids)}).scalar_one():
                return
        if time.monotonic() > deadline:
            raise SystemExit(f"events {list(event_ids)} not closed after {timeout:.0f} s")
        time.sleep(0.1)


# --------------------------------------------------------------------------------------- N events


@dataclass
class SeasonRun:
    events: int
    games: int
    seconds: float
    turnarounds: list[float]
    rss_mb: float
    stored: list[float]
    reference: float = float("nan")
    queued_max: int = 0
    beat_skipped: int = 0
    cpu: dict[str, float] = field(default_factory=dict)  # CPU seconds of each process of the run

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds

    def quantile(self, q: float, figures: list[float] | None = None) -> float:
        ordered = sorted(self.turnarounds if figures is None else figures)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


QUEUED: list[int] = [0]  # the most messages seen waiting in the worker's queue during the last run


def queue_length() -> int:
    """Messages waiting in the worker's queue (kombu keeps a Redis queue in a list of its name)."""
    settings = get_settings()
    client = redis.Redis.from_url(settings.redis_url, socket_timeout=5)
    try:
        return int(client.llen(settings.worker_queue))
    except redis.RedisError:
        return 0
    finally:
        client.close()


def beat_skipped(folder: Path) -> int:
    """Beat's sends skipped so far (the job was queued or running already: orchestrator/jobs/beat.py)."""
    log = folder / "beat.log"
    return log.read_bytes().count(b"queued or running already") if log.exists() else 0


PROCESSES = {  # the run's processes by a part of their command line (bench/proc_cpu.py)
    "worker": "workers.app worker",
    "beat": "workers.app beat",
    "stand-in": "orchestrator.standin",
    "Redis": "redis-server",
}


def cpu_now() -> dict[str, float]:
    """CPU seconds so far of this process (the staff drivers), the worker, beat, the stand-in, Redis and
    every PostgreSQL process (the connections stay open in their pools over a run)."""
    seconds = {"drivers": time.process_time(), "PostgreSQL": postgres_cpu()}
    for name, match in PROCESSES.items():
        seconds[name] = sum(cpu_seconds(pid) for pid in pids(match))
    return seconds


def play_events(
    args: argparse.Namespace, count: int, *, database_url: str, standin_url: str, folder: Path
) -> tuple[list[int], float, dict[str, float]]:
    """Set up ``count`` events, then play them together to their ends; their ids, the wall clock and the
    CPU seconds each process spent meanwhile (``cpu_now``)."""
    demos: list[SeasonDemo] = []
    for number in range(count):
        options = DemoOptions(
            event_file=args.cut,
            web=False,
            standin_url=standin_url,
            data_dir=folder,
            database_url=database_url,
            seed=args.seed + number,
            speed=0,
            round_gap_s=0,
            tick_s=args.tick,
            task_mode="celery",
        )
        demo = SeasonDemo(options)
        demo.setup()
        demos.append(demo)
    drivers = [demo.driver for demo in demos]
    assert all(driver is not None for driver in drivers)
    done = [False] * count
    QUEUED[0] = 0
    cpu_before = cpu_now()
    started = time.monotonic()
    while not all(done):
        QUEUED[0] = max(QUEUED[0], queue_length())
        if time.monotonic() - started > args.timeout:
            raise SystemExit(f"{count} events: {done.count(False)} not finished after {args.timeout:.0f} s")
        for number, driver in enumerate(drivers):
            if done[number] or driver is None:
                continue
            with contextlib.suppress(ServiceError):  # waiting for the workers: the next step tries again
                done[number] = driver.step()
        time.sleep(args.tick)
    ids = [driver.event_id for driver in drivers if driver is not None]
    wait_closed(SHARED_ENGINE[0], ids, args.timeout)
    seconds = time.monotonic() - started
    cpu = {name: spent - cpu_before[name] for name, spent in cpu_now().items()}
    return ids, seconds, cpu


ROUNDS_QUERY = text(
    """
    SELECT s.event_id, s.id, s.kind, r.number, min(b.game_id),
           (SELECT min(a.at) FROM audit_log a
            WHERE a.entity = 'round' AND a.entity_id = r.id AND a.action = 'round.close')
    FROM round r JOIN stage s ON s.id = r.stage_id JOIN "match" m ON m.round_id = r.id
    JOIN board b ON b.match_id = m.id
    WHERE s.event_id = ANY(:events) AND b.game_id IS NOT NULL
    GROUP BY s.event_id, s.id, s.kind, r.id, r.number
    """
)
GAMES_QUERY = text(
    """
    SELECT count(*) FROM board b JOIN "match" m ON m.id = b.match_id JOIN round r ON r.id = m.round_id
    JOIN stage s ON s.id = r.stage_id WHERE s.event_id = ANY(:events) AND b.game_id IS NOT NULL
    """
)


def step_key(stage_id: int, kind: str, number: int) -> tuple[int, int] | None:
    """The step a round belongs to (see the module's docstring); None for an Armageddon round."""
    if kind == "pools":
        return stage_id, 0
    if kind == "knockout":
        return None if number >= 1000 else (stage_id, (number - 1) // 2)
    return stage_id, number


def turnarounds(
    engine: Engine, event_ids: Sequence[int], http: httpx.Client
) -> tuple[list[float], list[float]]:
    """Seconds from the end of the games before each step to the creation of the step's games; and, per
    round, from the end of its games on the server to its closing here (every result stored)."""
    with engine.connect() as connection:
        rows = connection.execute(ROUNDS_QUERY, {"events": list(event_ids)}).all()
    by_event: dict[int, list[tuple[tuple[int, int] | None, float, float]]] = {}
    stored: list[float] = []
    for event_id, stage_id, kind, number, game_id, closed_at in rows:
        game = http.get(f"/_standin/games/{game_id}").raise_for_status().json()
        created = game["createdAt"] / 1000
        ended = max(created, (game["clockStart"] or game["createdAt"]) / 1000)
        by_event.setdefault(event_id, []).append((step_key(stage_id, kind, number), created, ended))
        if closed_at is not None:
            stored.append(closed_at.timestamp() - ended)
    figures: list[float] = []
    for rounds in by_event.values():
        starts: dict[tuple[int, int], float] = {}
        for key, created, _ended in rounds:
            if key is not None:
                starts[key] = min(created, starts.get(key, created))
        for begun in sorted(starts.values())[1:]:
            before = [ended for _key, created, ended in rounds if created < begun]
            if before:
                figures.append(begun - max(before))
    return figures, stored


def count_games(engine: Engine, event_ids: Sequence[int]) -> int:
    with engine.connect() as connection:
        return int(connection.execute(GAMES_QUERY, {"events": list(event_ids)}).scalar_one())


# ----------------------------------------------------------------------------------------- the plot


def plot(runs: Sequence[SeasonRun], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [run.events for run in runs]
    figure, left = plt.subplots(figsize=(7, 4), dpi=110)
    left.plot(xs, [run.games_per_s for run in runs], "o-", color="tab:blue", label="games per second")
    left.set_xlabel("events at once")
    left.set_ylabel("games per second (all events)", color="tab:blue")
    left.set_ylim(bottom=0)
    left.set_xticks(xs)
    right = left.twinx()
    right.plot(xs, [run.quantile(0.95) for run in runs], "s--", color="tab:red", label="turnaround p95")
    right.set_ylabel("turnaround p95 (s)", color="tab:red")
    right.set_ylim(bottom=0)
    left.set_title(title, fontsize=9)
    figure.tight_layout()
    figure.savefig(path)
    plt.close(figure)


def plot_title(args: argparse.Namespace, *, reference: float | None) -> str:
    day = datetime.now(UTC).date().isoformat()
    title = f"{day}: first {args.stages} stage(s) of the 2020 event, {args.finished} finished events stored"
    return title if reference is None else f"{title}; machine reference {reference:.2f} s"


# ------------------------------------------------------------------------------------------ main


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--event", type=Path, default=ROOT / "events" / "online-olympiad-2020.yaml")
    parser.add_argument("--stages", type=int, default=2, help="keep the event file's first K stages")
    parser.add_argument("--events", default="1,10,50", help="how many events at once, per run")
    parser.add_argument("--finished", type=int, default=200, help="finished events stored beside them")
    parser.add_argument("--idle-ticks", type=int, default=20)
    parser.add_argument("--tick", type=float, default=0.1, help="the staff drivers' period (s)")
    # Beat sends a periodic job only when no copy of it is queued or running (docs/workers.md), so a period
    # shorter than its jobs take no longer piles them up ahead of the pulls (before: 700 to 5,000 waiting).
    parser.add_argument("--beat", type=float, default=2.0, help="beat's period for its round jobs (s)")
    parser.add_argument("--concurrency", type=int, default=2, help="the worker's threads or processes")
    parser.add_argument("--pool", default="threads", help="the worker's pool: threads or prefork")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument("--timeout", type=float, default=3600, help="give up a run after this long (s)")
    parser.add_argument("--plot", type=Path, help="write the plot here (.png)")
    parser.add_argument(
        "--keep-database", action="store_true", help="leave the scratch database (to EXPLAIN its queries)"
    )
    args = parser.parse_args()
    counts = [int(n) for n in args.events.split(",") if n.strip()]
    runs: list[SeasonRun] = []
    # Stopped from outside: still end the processes and drop the scratch database (``finally`` below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(f"stopped by SIGTERM after {len(runs)} run(s)"))

    # One queue, one Fernet key and one stand-in token for every process and every event of the season.
    os.environ["OLYMPIAD_STANDIN_ADMIN_TOKEN"] = secrets.token_urlsafe(32)
    os.environ["OLYMPIAD_WORKER_QUEUE"] = f"season-{secrets.token_hex(4)}"
    os.environ["OLYMPIAD_TOKEN_ENCRYPTION_KEY"] = Fernet.generate_key().decode()
    get_settings.cache_clear()

    reference_start = machine_reference(args.event)
    print(f"machine reference at the start: {reference_start:.2f} s", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="olympiad-season-"))
    args.cut = cut_event(args.event, args.stages, folder)
    database_url = create_database()
    standin, standin_url = start_standin(args.seed)
    worker: subprocess.Popen[bytes] | None = None
    beat: subprocess.Popen[bytes] | None = None
    engine = make_engine(database_url)
    try:
        init_db(engine=engine)
        sessions = make_session_factory(engine)
        SHARED.append(lambda: UnitOfWork(sessions))
        SHARED_ENGINE.append(engine)
        http = httpx.Client(base_url=standin_url, timeout=30, headers=admin_headers(get_settings()))
        organiser = standin_account(http, username=ORGANISER_ACCOUNT, rating=2000, scopes=("challenge:bulk",))
        settings = get_settings().model_copy(
            update={
                "database_url": database_url,
                "gameserver_url": standin_url,
                "gameserver_admin_token": SecretStr(organiser),
                "gameserver_retry_scale": 0.01,
                "gameserver_pair_lead_s": 1,
                "gameserver_clock_delay_s": 0,
                "auto_build_bracket": True,
                "auto_draw_lots": True,
                "auto_lot_reveal_delay_s": 0.0,
                "armageddon_nomination_minutes": 0,
                "armageddon_colour_minutes": 0,
                "gameserver_unequal_clocks": True,
            }
        )
        log = folder / "worker.log"
        worker = start_worker(settings, log, args.concurrency, args.pool)
        print(
            f"event file: {args.event.name}, first {args.stages} stage(s); "
            f"worker {args.pool} x {args.concurrency}; beat every {args.beat} s"
        )
        idle = {0: idle_ticks(worker, log, args.idle_ticks, engine)}

        beat = start_beat(settings, folder, args.beat)
        if args.finished:
            started = time.monotonic()
            ids, _seconds, _cpu = play_events(
                args, 1, database_url=database_url, standin_url=standin_url, folder=folder
            )
            stop(beat)
            time.sleep(2 * args.beat)
            # One event played: what the worker keeps from playing it, apart from what the database holds.
            idle[1] = idle_ticks(worker, log, args.idle_ticks, engine)
            clone_event(engine, ids[0], args.finished - 1)
            print(f"{args.finished} finished events stored in {time.monotonic() - started:.0f} s")
            # The tables as autovacuum leaves them once it has caught up (statistics, visibility map), and
            # no autovacuum worker busy with the copies while the tick is measured.
            with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text("VACUUM (ANALYZE)"))
            idle[args.finished] = idle_ticks(worker, log, args.idle_ticks, engine)
            beat = start_beat(settings, folder, args.beat)
        for finished, tick in idle.items():
            database = tick.per_job_database_ms
            jobs = ", ".join(f"{name} {ms:.1f}/{database[name]:.1f}" for name, ms in tick.per_job_ms.items())
            print(
                f"idle beat tick with {finished} finished events: worker CPU {tick.per_tick_ms:.1f} ms "
                f"per tick, PostgreSQL CPU {tick.database_ms:.1f} ms per tick "
                f"(worker/PostgreSQL: {jobs} ms), "
                f"worker RSS {tick.rss_mb:.0f} MB",
                flush=True,
            )

        for count in counts:
            reference = machine_reference(args.event)
            skipped = beat_skipped(folder)
            ids, seconds, cpu = play_events(
                args, count, database_url=database_url, standin_url=standin_url, folder=folder
            )
            games = count_games(engine, ids)
            steps, stored = turnarounds(engine, ids, http)
            run = SeasonRun(
                count,
                games,
                seconds,
                steps,
                tree_rss_mb(worker.pid),
                stored,
                reference,
                QUEUED[0],
                beat_skipped(folder) - skipped,
                cpu,
            )
            runs.append(run)
            print(
                f"{count:3d} events at once: {games} games in {seconds:.1f} s = "
                f"{run.games_per_s:.1f} games/s; "
                f"turnaround p50 {run.quantile(0.5):.2f} s, p95 {run.quantile(0.95):.2f} s, "
                f"max {max(run.turnarounds, default=float('nan')):.2f} s ({len(run.turnarounds)} steps); "
                f"round's games ended to round closed p50 {run.quantile(0.5, run.stored):.2f} s, "
                f"p95 {run.quantile(0.95, run.stored):.2f} s ({len(run.stored)} rounds); "
                f"worker RSS {run.rss_mb:.0f} MB; at most {run.queued_max} messages waiting; "
                f"beat sends skipped {run.beat_skipped}; "
                f"machine reference before the run {run.reference:.2f} s",
                flush=True,
            )
            split = ", ".join(f"{name} {spent:.1f}" for name, spent in run.cpu.items())
            print(
                f"    CPU seconds over its {run.seconds:.1f} s (two cores: {2 * run.seconds:.1f} CPU-s): "
                f"{split} (sum {sum(run.cpu.values()):.1f})",
                flush=True,
            )
            if args.plot:  # after every run: a run cut short still leaves the plot of those before
                plot(runs, args.plot, plot_title(args, reference=None))
        http.close()
    finally:
        stop(beat)
        stop(worker)
        stop(standin)
        engine.dispose()
        if args.keep_database:
            print(f"database kept: {database_url}", flush=True)
        else:
            drop_database(database_url)
    singles = sorted(run.games_per_s for run in runs if run.events == 1)
    # The median of the single-event runs (``--events 1,1,1,50``): an event alone is latency-bound and shaky.
    if singles:
        single = statistics.median(singles)
        print(f"single-event rate: {single:.1f} games/s (median of {len(singles)} run(s))")
        for run in runs:
            if run.events > 1:
                print(f"{run.events} events: {run.games_per_s / single:.0%} of the single-event rate")
    reference = machine_reference(args.event)
    print(
        f"machine reference (pure simulation of the 2020 event, best of 3): {reference:.2f} s at the end, "
        f"{reference_start:.2f} s at the start"
    )
    if args.plot and runs:
        plot(runs, args.plot, plot_title(args, reference=reference))
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
