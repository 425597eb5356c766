"""The one-command demo on a small event with a play-off (tests/fixtures/events/small-playoff.yaml).

- ``olympiad demo --no-web`` as a real process: it prints a champion, and the database it leaves agrees:
  the same champion in the bracket, every stage played, every board with a final result from the game
  server or a lineup forfeit.
- The demo with its web app, in process: the event page, a pool page and the bracket page answer 200
  while it plays.

No timed assertions: waits are bounded by attempts, and the demo's speed only shortens the run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from orchestrator.adapters.tables import StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import make_engine, make_session_factory
from orchestrator.demo.driver import Demo, DemoResult
from orchestrator.demo.plan import DemoOptions
from orchestrator.ports import free_port
from orchestrator.services.playoff.read import bracket_view
from tests.support.demo_served import SMALL_PLAYOFF

pytestmark = [pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
SLUG = "small-playoff-cup"


def _champions_in_database(database: Path) -> tuple[tuple[str, ...], set[str], list[str]]:
    """(champions of the bracket, stage statuses of the pool stages, results of every board)."""
    engine = make_engine(f"sqlite:///{database}")
    try:
        with UnitOfWork(make_session_factory(engine)) as uow:
            event = uow.events.get_by_slug(SLUG)
            assert event is not None
            stages = list(uow.events.stages_of_event(event.id or 0))
            knockout = next(s for s in stages if s.kind == StageKind.KNOCKOUT.value)
            view = bracket_view(uow, stage_id=knockout.id or 0)
            pool_statuses = {s.status for s in stages if s.kind == StageKind.POOLS.value}
            results = []
            for stage in stages:
                for rnd in uow.rounds.rounds_of_stage(stage.id or 0):
                    results += [row.board.result for row in uow.boards.boards_of_round(rnd.id or 0)]
            return tuple(view.champions), pool_statuses, results
    finally:
        engine.dispose()


def test_the_demo_without_web_plays_a_small_event_to_a_champion_that_the_database_confirms(tmp_path: Path):
    data_dir = tmp_path / "demo"
    command = [sys.executable, "-m", "orchestrator.cli", "demo", "--event", str(SMALL_PLAYOFF), "--no-web"]
    command += ["--minutes", "0.3", "--standin-port", "0", "--data-dir", str(data_dir), "--seed", "5"]
    env = {**os.environ, "COLUMNS": "120"}
    env.pop("DATABASE_URL", None)
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=280)

    assert done.returncode == 0, done.stdout + done.stderr
    champion_lines = [line for line in done.stdout.splitlines() if line.startswith("Champion: ")]
    assert champion_lines, done.stdout
    printed = champion_lines[-1].removeprefix("Champion: ").split(" and ")
    champions, pool_statuses, results = _champions_in_database(data_dir / "olympiad.sqlite3")
    assert list(champions) == printed
    assert pool_statuses == {"closed"}
    assert results and "*" not in results
    assert "owner /" not in done.stdout  # no web app: no login, no password printed


def test_the_demo_serves_the_event_a_pool_and_the_bracket_while_it_plays(tmp_path: Path):
    options = DemoOptions(
        event_file=SMALL_PLAYOFF,
        minutes=0.5,
        web=True,
        port=free_port(),
        standin_port=0,
        data_dir=tmp_path / "demo",
        seed=3,
    )
    pages = {
        "event": f"/events/{SLUG}",
        "pool": f"/events/{SLUG}/stages/group/pools/A",
        "bracket": f"/events/{SLUG}/bracket",
    }
    seen: dict[str, int] = {}
    outcome: list[DemoResult] = []
    with Demo(options) as demo:
        setup = demo.setup()
        assert setup.web_url is not None
        assert setup.owner_password  # random, shown once by the command line
        stop = threading.Event()
        runner = threading.Thread(target=lambda: outcome.append(demo.run(stop)), daemon=True)
        runner.start()
        try:
            with httpx.Client(base_url=setup.web_url, timeout=10) as http:
                for _ in range(2000):
                    if not runner.is_alive() or all(seen.get(name) == 200 for name in pages):
                        break
                    for name, path in pages.items():
                        if name not in seen or seen[name] != 200:
                            code = http.get(path).status_code
                            if runner.is_alive():  # answered while the demo was still playing
                                seen[name] = code
                    stop.wait(0.1)
                login = http.post(
                    "/api/v1/auth/login", json={"username": "owner", "password": setup.owner_password}
                )
        finally:
            runner.join(280)
            stop.set()

    assert seen == {"event": 200, "pool": 200, "bracket": 200}
    assert login.status_code == 200
    assert outcome and outcome[0].champions


def test_a_demo_run_again_with_the_same_seed_draws_the_same_pairings(tmp_path: Path):
    def first_stage_pairings(name: str, seed: int) -> list[tuple[str, ...]]:
        options = DemoOptions(
            event_file=SMALL_PLAYOFF, web=False, standin_port=0, data_dir=tmp_path / name, seed=seed
        )
        with Demo(options) as demo:
            demo.setup()
            assert demo.driver is not None and demo.settings is not None
            demo.driver.step()  # drafts, publishes and starts the first stage: its pairing lots are drawn
            engine = make_engine(demo.settings.sqlalchemy_url)
            try:
                with UnitOfWork(make_session_factory(engine)) as uow:
                    return [tuple(lot.outcome or ()) for lot in uow.lots.lots_of(demo.driver.event_id)]
            finally:
                engine.dispose()

    first, again, other = (first_stage_pairings(name, seed) for name, seed in (("a", 7), ("b", 7), ("c", 8)))
    assert first and first == again
    assert other != first  # another seed, other pairing numbers (4 teams a pool: 24 orders each)


def test_the_2020_demo_shows_only_dates_of_the_run_before_and_after_its_first_stage_starts(tmp_path: Path):
    """``olympiad demo`` plays the 2020 file: stages not started yet show their planned dates moved to the
    run (the file's year never shows), the started stage its demo times; every date carries its year."""
    options = DemoOptions(web=True, port=free_port(), standin_port=0, data_dir=tmp_path / "demo", seed=1)
    with Demo(options) as demo:
        setup = demo.setup()
        assert setup.web_url is not None and demo.driver is not None
        year = str(datetime.now(UTC).year)
        pages = ["/", f"/events/{setup.slug}", f"/events/{setup.slug}/stages/div4"]
        with httpx.Client(base_url=setup.web_url, timeout=30) as http:
            before = {path: http.get(path).text for path in pages}
            demo.driver.step()  # the Base stage drafted, published and started in demo time
            after = {path: http.get(path).text for path in [*pages, f"/events/{setup.slug}/stages/base"]}
    for when, shown in (("before", before), ("after", after)):
        for path, html in shown.items():
            dates = re.findall(r"<time[^>]*>([^<]*)</time>", html)
            years = {found for text in dates for found in re.findall(r"\b(?:19|20)\d\d\b", text)}
            assert all(re.search(r"\b20\d\d\b", text) for text in dates), (when, path, dates)
            assert years <= {year, str(int(year) + 1)}, (when, path, dates)  # never 2020
    # once the first stage runs, the event page shows its demo times beside the next stages' planned dates
    assert len(re.findall(r"<time[^>]*>", after[f"/events/{setup.slug}"])) >= 3
    assert re.findall(r"<time[^>]*>", after[f"/events/{setup.slug}/stages/div4"])
