"""The one-command demo: a whole event played on the stand-in game server at an accelerated speed.

``olympiad demo`` (orchestrator/cli_demo.py) builds a ``Demo`` and runs it. Everything below calls the use
cases of the other services and the jobs of orchestrator/jobs; the queries it needs are repository methods.

- Settings: the embedded default (a SQLite file under ``var/demo/``, fresh each run unless ``keep``), tasks
  in process (``task_mode="eager"``): the SAME job functions the Celery tasks run.
- ``beat_tick``: plays Celery beat's role (workers/app.py's ``beat_schedule``): each call sends
  ``rounds.open_due``, ``results.reconcile`` and ``playoff.tick``; the jobs those queue (create games, pull
  results, recompute standings, close stages) run in process after each commit. ``Demo.run`` calls the
  beat tick and the driver's step one after the other in ONE thread: two Python threads polling the
  database every tick fought for the interpreter lock and slowed each other down.
- Servers: the stand-in game server and (unless ``web=False``) the web app, each under uvicorn in a thread.
- Set-up: the event from its file (appeal window set to 0: fifteen minutes of a month-long event are
  nothing in demo time), an owner account with a random password, every player's game-server account
  created on the stand-in (its demo user endpoint) and linked with its token stored encrypted (a random
  Fernet key per run when none is configured).
- ``DemoDriver.step`` (orchestrator/demo/staff.py): what staff do, one tick at a time. Draft, publish and
  start each pool stage once the previous one is closed, with its rounds compressed into demo time; schedule
  each bracket round once all its duels are known. Swiss stages (orchestrator/demo/swiss.py) run side by side
  once their entrants are known: each round paired, published and timed at the round desk's services once the
  one before is finished. Beat's ``playoff.tick`` does the rest of the play-off as the workers do: the bracket
  from the Top division's final standings, the deadline check (default lineups, default Armageddon
  nominations), the Armageddon lots, the default colour and the 5 v 4 game on the stand-in (unequal clocks).
  It stops when the bracket has a champion (without a play-off: once every stage is closed).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any

import httpx
from pydantic import SecretStr

from orchestrator.adapters.uow import UnitOfWork
from orchestrator.config import Settings
from orchestrator.db import init_db, make_engine, make_session_factory, utcnow
from orchestrator.demo.accounts import (
    OWNER,
    DemoError,
    create_owner,
    free_slug,
    link_players,
    standin_account,
)
from orchestrator.demo.plan import (
    DemoOptions,
    DemoPlan,
    demo_definition,
    demo_settings,
    lot_delay_said,
    plan_for,
)
from orchestrator.demo.staff import STAFF_ACTOR, DemoDriver, DemoStatus, StageTiming, swiss_pairer
from orchestrator.domain.event import EventDefinition
from orchestrator.errors import ServiceError
from orchestrator.eventfile import parse_event
from orchestrator.jobs import dispatch, runtime
from orchestrator.jobs.bodies import PERIODIC
from orchestrator.jobs.outages import OutageLog, backoff_s, connection_lost
from orchestrator.ports import free_port
from orchestrator.services.live_redis import start_watcher
from orchestrator.services.setup import event_setup
from orchestrator.standin import create_standin_app
from orchestrator.standin.app import admin_headers
from orchestrator.web.app import create_app

log = logging.getLogger(__name__)

ORGANISER_ACCOUNT = "olympiad-organiser"


# ------------------------------------------------------------------------------------------- threads


class ServerThread:
    """An ASGI app under uvicorn in a daemon thread (no signal handlers: Ctrl-C goes to the main thread)."""

    def __init__(self, app: Any, *, host: str, port: int, name: str) -> None:
        import uvicorn

        self.name = name
        self.url = f"http://{host}:{port}"
        # log_config=None: uvicorn's loggers go wherever the caller sends logging (the demo: a file).
        config = uvicorn.Config(
            app, host=host, port=port, log_level="warning", lifespan="on", log_config=None
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self._serve, name=name, daemon=True)

    def _serve(self) -> None:
        with contextlib.suppress(SystemExit):  # uvicorn exits when it cannot bind the port
            self.server.run()

    def start(self, *, attempts: int = 400) -> ServerThread:
        self.thread.start()
        for _ in range(attempts):
            if self.server.started:
                return self
            if not self.thread.is_alive():
                break
            time.sleep(0.025)
        raise DemoError(f"the {self.name} could not start on {self.url} (is the port in use?)")

    def stop(self) -> None:
        self.server.should_exit = True
        if self.thread.is_alive():
            self.thread.join(10)


def beat_tick(stop: threading.Event | None = None) -> None:
    """Celery beat's role in process: send the scheduled jobs once (eager: they run here; Celery: each
    only when no copy of it is queued or running, as beat's scheduler does)."""
    for name in PERIODIC:  # beat_schedule: open due rounds, reconcile, play-off tick
        if stop is not None and stop.is_set():
            break
        try:
            dispatch.send_periodic(name)
        except Exception as error:  # a job failing must not end beat; reconciliation catches up
            if connection_lost(error):
                BEAT_OUTAGE.failed(error)
                return
            log.exception("beat: %s failed", name)
    BEAT_OUTAGE.ok()


BEAT_OUTAGE = OutageLog("demo beat", log)


def stage_closed_alarm(slug: str, wake: threading.Event) -> Callable[[str, dict[str, Any]], None]:
    """What the demo's live watcher calls with each message (``live_redis.start_watcher``): sets ``wake``
    when a stage of event ``slug`` closed (the ``stage-closed`` announcement on its event topic)."""
    topic = f"event:{slug}"

    def alarm(message_topic: str, data: dict[str, Any]) -> None:
        if message_topic == topic and data.get("kind") == "stage-closed":
            wake.set()

    return alarm


# The demo's pull countdown at instant speed: the games are over once paired, so the pull only waits for the
# pairing's commit and the queue (a countdown of 0 would mean no pull chain at all: docs/workers.md).
INSTANT_PULL_S = 0.01


@dataclass(frozen=True, slots=True)
class DemoSetup:
    event_id: int
    slug: str
    event_name: str
    owner_password: str | None  # shown once on the terminal; None when the account could not be reset
    players_linked: int
    web_url: str | None
    standin_url: str
    database: str
    plan: DemoPlan
    seconds: float
    lots: str = ""  # what the demo does about the lot publication delay (docs/lots.md)


@dataclass(frozen=True, slots=True)
class DemoResult:
    champions: tuple[str, ...]
    stages: tuple[StageTiming, ...]
    seconds: float
    stopped: bool  # Ctrl-C (or stop) before the end


# ------------------------------------------------------------------------------------------- the demo


def _read_definition(event_file: Path) -> tuple[str, EventDefinition]:
    """The event file's text and what it defines; a file that is not a valid event stops the demo."""
    text = _read(event_file)
    try:
        return text, parse_event(text, source=str(event_file))
    except Exception as error:
        raise DemoError(f"{event_file} is not a valid event file: {error}") from None


def _create_owner(uow: UnitOfWork, password: str) -> int:
    """The demo's owner account with ``password``; its id."""
    create_owner(uow, password=password, actor="demo")
    owner = uow.accounts.get_by_username(OWNER)
    return owner.id or 0 if owner is not None else 0


def _create_event(
    uow: UnitOfWork, text: str, definition: EventDefinition, *, source: str, instant: bool
) -> int:
    """The demo's event, under a slug no stored event uses yet; its id. ``instant``: no demo time between
    rounds (``demo_definition``)."""
    slug = free_slug(uow, definition.slug)
    return event_setup.create_event(
        uow,
        definition_text=demo_definition(
            text,
            slug=slug,
            untimed_knockout=bool(definition.bracket),
            first_day=utcnow().date(),
            instant=instant,
        ),
        source=source,
        actor=STAFF_ACTOR,
    )


@dataclass
class Demo:
    """A whole demo run: ``with Demo(options) as demo: demo.setup(); demo.run(stop)``."""

    options: DemoOptions
    base_settings: Settings | None = None
    settings: Settings | None = None
    plan: DemoPlan | None = None
    driver: DemoDriver | None = None
    servers: list[ServerThread] = field(default_factory=list)
    _engine: Any = None

    def __enter__(self) -> Demo:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def setup(self, *, on_step: Callable[[str], None] | None = None) -> DemoSetup:
        """Servers, database, event, owner account and player links; nothing is played yet."""
        started = time.monotonic()
        note = on_step or (lambda _text: None)
        options = self.options
        pairer = swiss_pairer(options.swiss_engine)
        text, definition = _read_definition(options.event_file)
        web_url = f"http://{options.host}:{options.port}" if options.web else None
        standin_url = options.standin_url
        if standin_url is None:
            port = options.standin_port or free_port(options.host)
            standin_url = f"http://{options.host}:{port}"
        plan = plan_for(definition, options)
        settings = self._settings(plan, standin_url=standin_url, web_url=web_url)
        if options.standin_url is None:
            self.servers.append(
                ServerThread(
                    create_standin_app(settings), host=options.host, port=_port(standin_url), name="stand-in"
                ).start()
            )
            note(f"stand-in game server on {standin_url} (speed {plan.speed:.0f}×)")
        http = httpx.Client(base_url=standin_url, timeout=30, headers=admin_headers(settings))
        try:
            organiser = standin_account(
                http, username=ORGANISER_ACCOUNT, rating=2000, scopes=("challenge:bulk",)
            )
            settings = settings.model_copy(update={"gameserver_admin_token": SecretStr(organiser)})
            self.settings, self.plan = settings, plan
            uow_factory = self._open_database(settings)
            password = secrets.token_urlsafe(12)
            with uow_factory() as uow:
                owner_id = _create_owner(uow, password)
                event_id = _create_event(
                    uow, text, definition, source=str(options.event_file), instant=plan.instant
                )
            note(f"event {definition.name!r} created ({len(definition.teams)} teams)")
            lots = lot_delay_said(definition)
            log.info("demo: %s", lots)
            note(lots)
            linked = link_players(uow_factory, settings, http, event_id=event_id, actor="demo")
            note(f"{linked} players linked to the stand-in (tokens stored encrypted)")
        finally:
            http.close()
        if options.web:
            app = create_app(settings, uow_factory=uow_factory)
            self.servers.append(
                ServerThread(app, host=options.host, port=options.port, name="web app").start()
            )
            note(f"web app on {web_url}")
        self.driver = DemoDriver(
            settings=settings,
            plan=plan,
            uow_factory=uow_factory,
            event_id=event_id,
            web_url=web_url,
            rng=Random(settings.standin_seed),
            owner_id=owner_id,
            pairing_seed=(
                hashlib.sha256(f"olympiad-demo/{options.seed}".encode()).digest()
                if options.seed is not None
                else None
            ),
            swiss_pairer=pairer,
        )
        return DemoSetup(
            event_id=event_id,
            slug=self.driver.slug,
            event_name=definition.name,
            owner_password=password,
            players_linked=linked,
            web_url=web_url,
            standin_url=standin_url,
            database=_safe_url(settings.sqlalchemy_url),
            plan=plan,
            seconds=time.monotonic() - started,
            lots=lots,
        )

    def _settings(self, plan: DemoPlan, *, standin_url: str, web_url: str | None) -> Settings:
        """The demo's settings for ``plan``; a fresh SQLite file unless the options keep it."""
        options = self.options
        settings = demo_settings(
            options,
            standin_url=standin_url,
            web_url=web_url or "http://127.0.0.1:8000",
            base=self.base_settings,
        )
        # A lot's hash is public this long before its draw: a quarter of a round gap in demo time, at most
        # the configured half second (a benchmark with no gap between rounds draws on the next tick).
        reveal_s = min(settings.auto_lot_reveal_delay_s, plan.round_gap_s / 4)
        update: dict[str, object] = {"standin_speed": plan.speed, "auto_lot_reveal_delay_s": reveal_s}
        if settings.task_mode == "celery":
            # A round's games are pulled one tick after they are created, and again a tick after each pull
            # that leaves some open (docs/workers.md, "Event-driven rounds"), rather than at beat's next
            # reconcile; at instant speed, where the stand-in ends each game as it pairs it, at once
            # (``INSTANT_PULL_S``): a tick's wait there only left the workers idle between a bracket round's
            # games and their results (docs/performance.md). In process a pull with a countdown would run on
            # a timer thread beside the driver's, so there beat's tick (just as frequent) keeps doing it.
            update["round_pull_s"] = INSTANT_PULL_S if plan.speed == 0 else plan.tick_s
        settings = settings.model_copy(update=update)
        if not options.database_url and not options.keep:
            _remove_sqlite(settings.sqlalchemy_url)
        return settings

    def _open_database(self, settings: Settings) -> Callable[[], UnitOfWork]:
        """Migrate the demo's database and point the job runtime at it; its unit-of-work factory."""
        self._engine = make_engine(settings.sqlalchemy_url)
        init_db(settings, engine=self._engine)
        session_factory = make_session_factory(self._engine)

        def uow_factory() -> UnitOfWork:
            return UnitOfWork(session_factory)

        runtime.configure(settings, uow_factory=uow_factory)
        return uow_factory

    def run(
        self, stop: threading.Event | None = None, *, on_status: Callable[[DemoStatus], None] | None = None
    ) -> DemoResult:
        """Play the event until a champion (or ``stop``): a beat tick, then a driver step, every tick."""
        assert self.driver is not None and self.plan is not None, "call setup() first"
        assert self.settings is not None
        stop = stop or threading.Event()
        # A stage the workers close wakes the staff at once (they start the next one) instead of at the
        # next tick; in process the jobs run in this loop, so there is nothing to wait for.
        wake = threading.Event()
        watcher = start_watcher(self.settings, stage_closed_alarm(self.driver.slug, wake))
        try:
            return self._loop(stop, wake, on_status)
        finally:
            if watcher is not None:
                watcher.stop(timeout=0)

    def _loop(
        self, stop: threading.Event, wake: threading.Event, on_status: Callable[[DemoStatus], None] | None
    ) -> DemoResult:
        assert self.driver is not None and self.plan is not None
        started = time.monotonic()
        done = False
        outage = OutageLog("demo driver", log)
        while not stop.is_set():
            beat_tick(stop)
            try:
                done = self.driver.step()
                if on_status is not None:
                    status = self.driver.status()
                    if status is not None:
                        on_status(status)
            except ServiceError as error:
                self.driver.say(f"waiting: {error.message}", once=error.message)
            except Exception as error:
                if not connection_lost(error):
                    raise
                outage.failed(error)  # the database or the broker restarts: one warning, wait, go on
                stop.wait(backoff_s(2))
                continue
            outage.ok()
            if done:
                break
            wake.wait(self.plan.tick_s)  # a tick, or less when a stage closed meanwhile
            wake.clear()
        return DemoResult(
            champions=self.driver.champions,
            stages=tuple(self.driver.timings.values()),
            seconds=time.monotonic() - started,
            stopped=not done,
        )

    def close(self) -> None:
        """Stop the servers this demo started, and close its database connections."""
        for server in reversed(self.servers):
            server.stop()
        self.servers.clear()
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise DemoError(f"cannot read {path}: {error.strerror}") from None


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _remove_sqlite(url: str) -> None:
    """A fresh demo database: remove the SQLite file (and its WAL files) of an earlier run."""
    from sqlalchemy.engine import make_url

    sa_url = make_url(url)
    if sa_url.get_backend_name() != "sqlite" or not sa_url.database:
        return
    for suffix in ("", "-wal", "-shm"):
        Path(sa_url.database + suffix).unlink(missing_ok=True)
