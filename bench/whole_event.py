"""Wall-clock time of the whole 163-team event through the real stack, with instant games.

Run: .venv/bin/python bench/whole_event.py [--sqlite] [--event events/online-olympiad-2020.yaml] [--runs 1]
        [--tick 0.02] [--profile out.prof]
Needs PostgreSQL unless --sqlite (OLYMPIAD_BENCH_PG_ADMIN_URL, default
postgresql+psycopg://postgres@127.0.0.1:5432/postgres): a scratch database is created and dropped after.
Target (issue: game server integration): <= 10 s.

What runs is ``olympiad demo``'s driver (orchestrator/demo/driver.py) without the web app and with no
demo time: every round of a stage is due as soon as the stage starts, and the stand-in (its own process,
``python -m orchestrator.standin --speed instant``, over real HTTP) ends each game as soon as it is paired.
Beat's jobs and the driver run in one thread every ``--tick`` seconds, and the jobs they queue run in process,
exactly as the Celery tasks would (orchestrator/jobs): bulk pairing, export and ingestion, standings,
closing, seeding the next stage, then the bracket, duels, Armageddons and the champion.

With ``--celery`` the jobs do not run in this process: beat's tick sends them to Redis and a real Celery
worker process (``celery -A workers.app worker --pool=threads``, started here after the set-up, with the
run's settings in its environment and a queue of its own) runs them, as in production; only the staff
driver stays here. Needs Redis (REDIS_URL, default redis://127.0.0.1:6379/0).

Printed: the set-up (event, owner, 1,450 players linked; not in the figure), then the event's wall clock
from the first draft to the champion, a digest of every board's players and result (the same seed gives
the same digest: compare runs before and after a change), each stage's share with its games, the
turnaround per round and the machine's yardstick (below). bench/ingest_games.py times ingestion alone.

Turnaround (``turnarounds``): for each round whose games were created after the round before it in the
same stage had finished (a Swiss round, a bracket round; not a pool round, whose games all exist once its
stage starts), the time from the start of the pull that stored the round before's last result
(``round.last_pull_at``) to the moment its own games existed on the game server (the ``round.games_created``
audit entry, written once the bulk pairing has answered). Both times are read from the database after the
run, from the orchestrator's clock; p50 and p95 are printed per kind of stage. A bracket round's last result
is its last game's: an Armageddon played after a duel's two matches counts as a game of the match round
before it (its pull and close are those of the round), so the knockout figure runs from the last Armageddon's
result to the next bracket round's games, and never counts the Armageddon's own lots, pairing and play.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import itertools
import os
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pydantic import SecretStr  # noqa: E402

from orchestrator.config import Settings, get_settings  # noqa: E402
from orchestrator.demo.driver import Demo, DemoResult  # noqa: E402
from orchestrator.demo.plan import DemoOptions  # noqa: E402
from orchestrator.ports import free_port  # noqa: E402
from orchestrator.services.queue import background_queue  # noqa: E402
from orchestrator.standin.app import admin_headers  # noqa: E402

ADMIN_URL = os.environ.get(
    "OLYMPIAD_BENCH_PG_ADMIN_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def create_database() -> str:
    name = f"olympiad_bench_{secrets.token_hex(6)}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return make_url(ADMIN_URL).set(database=name).render_as_string(hide_password=False)


def drop_database(url: str) -> None:
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{make_url(url).database}" WITH (FORCE)'))
    admin.dispose()


def start_standin(seed: int) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    args = [sys.executable, "-m", "orchestrator.standin", "--port", str(port), "--speed", "instant"]
    process = subprocess.Popen(
        [*args, "--seed", str(seed)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_until_up(process, f"{url}/_standin/state", admin_headers(get_settings()), what="the stand-in")
    return process, url


def wait_until_up(
    process: subprocess.Popen[bytes], url: str, headers: dict[str, str] | None = None, *, what: str
) -> None:
    """Until ``url`` answers 200 (about 20 s at most); ``process`` is ended if it does not."""
    for _ in range(400):
        try:
            if httpx.get(url, timeout=1, headers=headers).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.terminate()
    raise SystemExit(f"{what} did not start on {url}")


# The run's settings a Celery worker needs, as environment (everything else is the default in both).
WORKER_SETTINGS = (
    "gameserver_url",
    "gameserver_admin_token",
    "token_encryption_key",
    "gameserver_retry_scale",
    "gameserver_pair_lead_s",
    "gameserver_clock_delay_s",
    "auto_build_bracket",
    "auto_draw_lots",
    "auto_lot_reveal_delay_s",
    "replay_lot_seed",
    "armageddon_nomination_minutes",
    "armageddon_colour_minutes",
    "armageddon_default_colour",
    "gameserver_unequal_clocks",
    "worker_queue",
    "round_pull_s",
)


def worker_env(settings: Settings) -> dict[str, str]:
    env = {**os.environ, "DATABASE_URL": settings.database_url, "REDIS_URL": settings.redis_url}
    env["OLYMPIAD_TASK_MODE"] = "celery"
    for name in WORKER_SETTINGS:
        value = getattr(settings, name)
        value = value.get_secret_value() if isinstance(value, SecretStr) else value
        env[f"OLYMPIAD_{name.upper()}"] = str(value).lower() if isinstance(value, bool) else str(value)
    return env


def spawn_worker(
    settings: Settings, log_path: Path, concurrency: int, pool: str, queue: str | None = None, nice: int = 0
) -> subprocess.Popen[bytes]:
    """A Celery worker serving both queues, or only ``queue`` (docs/workers.md, "Queues"), ``nice``d; not
    waited for (``wait_ready``)."""
    celery = Path(sys.executable).with_name("celery")
    args = [str(celery), "-A", "workers.app", "worker", f"--pool={pool}", f"--concurrency={concurrency}"]
    args = (["nice", "-n", str(nice)] if nice else []) + args + (["-Q", queue] if queue else [])
    args += ["--loglevel=INFO", "--without-gossip", "--without-mingle"]
    args += ["-n", f"bench-{secrets.token_hex(3)}@%h"]
    env = worker_env(settings)
    log_path.parent.mkdir(parents=True, exist_ok=True)  # --worker-log names a folder that may not exist yet
    with log_path.open("wb") as out:
        return subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def wait_ready(workers: list[tuple[subprocess.Popen[bytes], Path]], timeout_s: float = 180) -> None:
    """Until every worker's log says it is ready (started together, they import side by side; a loaded
    machine takes long: this is set-up, not part of any figure); a worker that exits first ends the run."""
    waiting = list(workers)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        waiting = [(p, log) for p, log in waiting if b" ready." not in log.read_bytes()]
        if not waiting or any(p.poll() is not None for p, _ in waiting):
            break
        time.sleep(0.05)
    if waiting:
        for process, _ in workers:
            process.terminate()
        log = waiting[0][1]
        raise SystemExit(f"the Celery worker did not start:\n{log.read_text(errors='replace')[-2000:]}")


def start_worker(settings: Settings, log_path: Path, concurrency: int, pool: str) -> subprocess.Popen[bytes]:
    """A worker serving both queues (``spawn_worker``), once it is ready (``wait_ready``)."""
    process = spawn_worker(settings, log_path, concurrency, pool)
    wait_ready([(process, log_path)])
    return process


def slow_beat(every_s: float) -> None:
    """Make the demo's beat tick send beat's jobs only if ``every_s`` has passed since it last did."""
    from orchestrator.demo import driver

    real, last = driver.beat_tick, [float("-inf")]

    def beat_tick(stop: threading.Event | None = None) -> None:
        if time.monotonic() - last[0] >= every_s:
            last[0] = time.monotonic()
            real(stop)

    driver.beat_tick = beat_tick


def one_run(
    args: argparse.Namespace, database_url: str, data_dir: Path
) -> tuple[float, DemoResult, tuple[str, str], dict[str, list[float]]]:
    process, standin_url = start_standin(args.seed)
    worker: subprocess.Popen[bytes] | None = None
    background: subprocess.Popen[bytes] | None = None
    try:
        options = DemoOptions(
            event_file=args.event,
            web=False,
            standin_url=standin_url,
            data_dir=data_dir,
            database_url=database_url,
            seed=args.seed,
            speed=0,
            round_gap_s=0,
            tick_s=args.tick,
            task_mode="celery" if args.celery else "eager",
            swiss_engine=args.swiss_engine,
        )
        with Demo(options) as demo:
            setup = demo.setup()
            if args.celery:
                assert demo.settings is not None
                log_dir = Path(args.worker_log) if args.worker_log else data_dir
                settings, pool = demo.settings, args.pool
                logs = (log_dir / "worker.log", log_dir / "background.log")
                if args.queues == "two":  # as docker-compose.yml: the chances on a niced worker of their own
                    main = settings.worker_queue
                    worker = spawn_worker(settings, logs[0], args.concurrency, pool, main)
                    extra = background_queue(main)
                    background = spawn_worker(settings, logs[1], 1, pool, extra, nice=10)
                    wait_ready([(worker, logs[0]), (background, logs[1])])
                else:
                    worker = start_worker(settings, logs[0], args.concurrency, pool)
            profiler = cProfile.Profile() if args.profile else None
            if profiler is not None:
                profiler.enable()
            result = demo.run()
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(args.profile)
            assert demo.settings is not None
            digest = results_digest(demo.settings.sqlalchemy_url)
            turnaround = turnarounds(demo.settings.sqlalchemy_url)
        return setup.seconds, result, digest, turnaround
    finally:
        for child in (worker, background, process):
            if child is not None:
                child.terminate()
                try:
                    child.wait(10)
                except subprocess.TimeoutExpired:
                    child.kill()


RESULTS_QUERY = text(
    """
    SELECT s.name, r.number, m.match_no, m.leg, b.board_no, ft.name, st.name, w.name, bl.name, b.result
    FROM board b JOIN "match" m ON m.id = b.match_id JOIN round r ON r.id = m.round_id
    JOIN stage s ON s.id = r.stage_id JOIN team ft ON ft.id = m.first_team_id
    JOIN team st ON st.id = m.second_team_id
    LEFT JOIN player w ON w.id = b.white_player_id LEFT JOIN player bl ON bl.id = b.black_player_id
    """
)


def results_digest(database_url: str) -> tuple[str, str]:
    """SHA-256 of every board of the event (stage, round, match, board, teams, players, result), sorted;
    and the same without the match's table number (``match_no``).

    Two runs with the same seed must print the same digests: the same games with the same results. The
    second tells a change of table numbers alone (a bracket round's matches numbered in another order)
    from a change of games.
    """
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = sorted(
                tuple("" if v is None else str(v) for v in row) for row in connection.execute(RESULTS_QUERY)
            )
    finally:
        engine.dispose()
    games = sorted(row[:2] + row[3:] for row in rows)
    return (
        _sha(rows) + f" ({len(rows)} boards)",
        _sha(games) + " (table numbers left out)",
    )


def _sha(rows: list[tuple[str, ...]]) -> str:
    return hashlib.sha256("\n".join("\t".join(row) for row in rows).encode()).hexdigest()[:16]


ROUND_TIMES_QUERY = text(
    """
    SELECT s.id, s.kind, r.number, r.last_pull_at,
      (SELECT min(a.at) FROM audit_log a
        WHERE a.entity = 'round' AND a.entity_id = r.id AND a.action = 'round.games_created'),
      (SELECT max(a.at) FROM audit_log a
        WHERE a.entity = 'round' AND a.entity_id = r.id AND a.action = 'round.close'),
      (SELECT max(a.at) FROM audit_log a
        WHERE a.entity = 'round' AND a.entity_id = r.id AND a.action = 'swiss.publish'),
      (SELECT max(r2.number) FROM "match" m3 JOIN "match" m2 ON m2.duel_id = m3.duel_id AND m2.leg < 3
        JOIN round r2 ON r2.id = m2.round_id WHERE m3.round_id = r.id AND m3.leg = 3)
    FROM round r JOIN stage s ON s.id = r.stage_id
    ORDER BY s.id, r.number
    """
)


SPAN = " rounds, last result's pull to the next round's games"


def turnarounds(database_url: str) -> dict[str, list[float]]:
    """Seconds from the start of the pull that finished a round to the next round's games, per stage kind
    (module docstring); only rounds whose games were created after the round before them finished. For
    Swiss rounds also its three parts (keys ``swiss: ...``): the pull (its start to the round's close), the
    publication (the close to the next round's ``swiss.publish``) and the games (that to their creation)."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = list(connection.execute(ROUND_TIMES_QUERY))
    finally:
        engine.dispose()
    times = _armageddons_folded([(*row[:3], *(_time(v) for v in row[3:7]), row[7]) for row in rows])
    found: dict[str, list[float]] = {}
    for before, after in itertools.pairwise(times):
        if before[0] != after[0] or after[2] != before[2] + 1:
            continue
        pulled, closed, created = before[3], before[5], after[4]
        if pulled is None or closed is None or created is None or created <= closed:
            continue  # e.g. a pool round: its games were created before the round before had finished
        found.setdefault(str(before[1]), []).append(_seconds(created - pulled))
        published = after[6]
        if published is not None and closed <= published <= created:
            for part, seconds in (
                ("pull", closed - pulled),
                ("publication", published - closed),
                ("games", created - published),
            ):
                found.setdefault(f"{before[1]}: {part}", []).append(_seconds(seconds))
    return found


def _armageddons_folded(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """The rows of ``ROUND_TIMES_QUERY`` with each Armageddon round folded into the last match round of its
    duel (its last column), so that a bracket round's last result is its last game's, Armageddons included:
    that round's last pull and close become the later of its own and its Armageddons'."""
    folded = {(row[0], row[2]): list(row[:7]) for row in rows if row[7] is None}
    for row in rows:
        target = folded.get((row[0], row[7])) if row[7] is not None else None
        if target is None:
            continue
        for column in (3, 5):  # the last pull and the close: the later of the two
            if row[column] is not None and (target[column] is None or row[column] > target[column]):
                target[column] = row[column]
    return [tuple(values) for values in folded.values()]


def _time(value: object) -> object:
    """A time read by the raw query: SQLite gives the stored text (naive UTC), PostgreSQL a datetime."""
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    return value


def _seconds(delta: object) -> float:
    return float(delta.total_seconds()) if hasattr(delta, "total_seconds") else float("nan")


def percentile(values: list[float], share: float) -> float:
    """The nearest-rank percentile (``share`` 0.5 for the median)."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, -(-int(share * 100) * len(ordered) // 100) - 1))]


def machine_reference(event_file: Path) -> float:
    """Seconds for a fixed CPU-only workload (the pure simulation of the event, in process, best of 3).

    Printed beside the figures: shared machines change speed from hour to hour, and this tells how fast
    this one was at the time (compare figures only between runs with a similar reference).
    """
    from orchestrator.domain.simulation import simulate_event
    from orchestrator.eventfile import parse_event

    definition = parse_event(event_file.read_text(encoding="utf-8"))
    times = []
    for _ in range(3):
        started = time.perf_counter()
        simulate_event(definition, seed=2020)
        times.append(time.perf_counter() - started)
    return min(times)


def main(*, description: str | None = None, event: Path | None = None, celery: bool = False) -> None:
    """The bench; bench/whole_event_2026.py runs it with its own description, event file and ``--celery``
    by default."""
    parser = argparse.ArgumentParser(
        description=description or __doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sqlite", action="store_true", help="a SQLite file instead of PostgreSQL")
    parser.add_argument("--event", type=Path, default=event or ROOT / "events" / "online-olympiad-2020.yaml")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tick", type=float, help="beat and driver period (s); 0.02, with --celery 0.1")
    parser.add_argument(
        "--celery",
        action=argparse.BooleanOptionalAction,
        default=celery,
        help="jobs run by a real Celery worker process",
    )
    parser.add_argument("--concurrency", type=int, default=2, help="--celery: the worker's threads")
    parser.add_argument("--pool", default="threads", help="--celery: the worker's pool (threads, prefork)")
    parser.add_argument(
        "--queues",
        choices=("two", "one"),
        default="two",
        help="--celery: 'two' (as docker-compose.yml) starts one worker on the main queue and a second, "
        "niced 10, with one process on the background queue (chances.scan); 'one' one worker serving both "
        "(docs/workers.md, 'Queues')",
    )
    parser.add_argument("--worker-log", help="--celery: keep the worker's log in this folder")
    parser.add_argument("--seed", type=int, default=2020)
    parser.add_argument(
        "--keep-database",
        action="store_true",
        help="leave each run's scratch PostgreSQL database and print its address (to read its audit log "
        "and lots afterwards; drop it by hand)",
    )
    parser.add_argument("--profile", help="write a cProfile of the (last) run's event phase here")
    parser.add_argument(
        "--swiss-engine",
        choices=("gacrux", "own"),
        default="gacrux",
        help="who pairs Swiss rounds: gacrux (the server's default) or our own engine",
    )
    parser.add_argument(
        "--without-periodic",
        action="append",
        default=[],
        metavar="JOB",
        help="an experiment: leave this periodic job (e.g. chances.scan) out of beat's list, to see what it "
        "costs the event",
    )
    parser.add_argument(
        "--beat-every",
        type=float,
        default=0.0,
        metavar="S",
        help="an experiment: send beat's jobs at most every S seconds (default: every tick), to see which "
        "steps of the event still wait for beat",
    )
    args = parser.parse_args()
    if args.beat_every:
        slow_beat(args.beat_every)
    if args.without_periodic:
        from orchestrator.demo import driver

        kept = tuple(name for name in driver.PERIODIC if name not in args.without_periodic)
        driver.PERIODIC = kept  # type: ignore[assignment]  # a shorter tuple of the same names
        print(f"periodic jobs sent: {', '.join(driver.PERIODIC)}", flush=True)
    if args.tick is None:
        args.tick = 0.1 if args.celery else 0.02
    # The stand-in process and the demo driver (through get_settings) share the admin token of its routes.
    os.environ["OLYMPIAD_STANDIN_ADMIN_TOKEN"] = secrets.token_urlsafe(32)
    get_settings.cache_clear()
    if args.celery:
        if args.sqlite:
            raise SystemExit("--celery needs PostgreSQL (a worker process and this one share the database)")
        # A queue of this run's own (set before any settings are read: workers.app reads them at import).
        os.environ["OLYMPIAD_WORKER_QUEUE"] = f"bench-{secrets.token_hex(4)}"
        get_settings.cache_clear()

    figures: list[float] = []
    for run in range(1, args.runs + 1):
        with tempfile.TemporaryDirectory(prefix="olympiad-bench-") as tmp:
            database_url = "" if args.sqlite else create_database()
            try:
                setup_s, result, digest, turnaround = one_run(args, database_url, Path(tmp))
            finally:
                if database_url and args.keep_database:
                    print(f"database kept: {database_url}", flush=True)
                elif database_url:
                    drop_database(database_url)
        if not result.champions:
            raise SystemExit(f"run {run}: no champion (stopped={result.stopped})")
        figures.append(result.seconds)
        backend = "SQLite" if args.sqlite else "PostgreSQL"
        if args.celery:
            backend += f", Celery worker ({args.pool} x {args.concurrency}) over Redis"
            backend += ", chances on a niced worker of their own" if args.queues == "two" else ", one queue"
        print(
            f"run {run} ({backend}): set-up {setup_s:.2f} s (not counted), event {result.seconds:.2f} s, "
            f"champion {' and '.join(result.champions)}"
        )
        print(f"  results digest {digest[0]}")
        print(f"  games digest {digest[1]}")
        games = 0
        for stage in result.stages:
            seconds = stage.seconds if stage.seconds is not None else float("nan")
            games += stage.games
            print(f"  {stage.name:<14} {seconds:6.2f} s  {stage.games:5d} games")
        print(f"  {'total':<14} {result.seconds:6.2f} s  {games:5d} games")
        for kind, values in sorted(turnaround.items()):
            print(
                f"  turnaround ({kind if ':' in kind else kind + SPAN}): "
                f"{len(values)} rounds, p50 {percentile(values, 0.5):.3f} s, "
                f"p95 {percentile(values, 0.95):.3f} s, max {max(values):.3f} s"
            )
        if not turnaround:
            print("  turnaround: no round waited for the round before it")
    reference = machine_reference(args.event)
    print(f"machine reference (pure simulation of the event, best of 3): {reference:.2f} s")
    for run, seconds in enumerate(figures, start=1):
        print(f"run {run}: event / machine reference = {seconds / reference:.1f}x")
    if len(figures) > 1:
        ordered = sorted(figures)
        print(
            f"event wall clock over {len(figures)} runs: median {ordered[len(ordered) // 2]:.2f} s, "
            f"min {ordered[0]:.2f}, max {ordered[-1]:.2f}"
        )


if __name__ == "__main__":
    main()
