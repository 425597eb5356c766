"""Time the public Swiss stage page's read model (``read.swiss.swiss_view``: the pool as ``pool_view`` reads
it, less its cross table, with one round's matches and one standings table) beside ``pool_view`` of the
same pool (the yardstick, measured in the same run), and the whole page and its JSON through the app with
the page cache emptied before each request (a cold build: what a reader waits for after a result).

Run: .venv/bin/python bench/swiss_page.py [--file events/olympiad-2026.yaml] [--rounds 5] [--cold]
The event is stored on a temporary SQLite database, its Swiss stage ``open`` started, and ``--rounds``
rounds paired, published and played (every board's result written on the rows, a fixed pattern, then the
pool's standings stored). CPU seconds of this process (the app runs in it) and wall-clock seconds, the
best of 5 runs, are printed: compare the ratios. ``--cold`` adds the wall-clock seconds of the first
build of each address in a fresh app (its first request: nothing kept, templates not yet compiled), and
the JSON's size, plain and gzip.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from swiss_server_pairing import play  # noqa: E402

from orchestrator.adapters.uow import UnitOfWork  # noqa: E402
from orchestrator.config import Settings  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.services.read.standings import pool_view  # noqa: E402
from orchestrator.services.read.swiss import swiss_view  # noqa: E402
from orchestrator.services.results.standings import recompute_pool  # noqa: E402
from orchestrator.services.setup import event_setup, stage_start  # noqa: E402
from orchestrator.services.swiss import rounds  # noqa: E402
from orchestrator.web.app import create_app  # noqa: E402


def best(run, times: int = 5) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """The least CPU seconds (every thread of the process) and the least wall-clock seconds of ``times``
    runs."""
    cpu, wall = [], []
    for _ in range(times):
        start, start_wall = time.process_time(), time.perf_counter()
        run()
        cpu.append(time.process_time() - start)
        wall.append(time.perf_counter() - start_wall)
    return min(cpu), min(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default="events/olympiad-2026.yaml")
    parser.add_argument("--rounds", type=int, default=5, help="rounds played")
    parser.add_argument("--cold", action="store_true", help="first builds, wall-clock")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), environment="test")
        engine = make_engine(settings.sqlalchemy_url)
        init_db(engine=engine)
        factory = make_session_factory(engine)
        text = (ROOT / args.file).read_text(encoding="utf-8")
        with UnitOfWork(factory) as uow:
            event_id = event_setup.create_event(uow, definition_text=text, source="bench", actor="bench")
            stage_id = event_setup.stage_ids_by_key(uow, event_id=event_id)["open"]
            stage_start.start_stage(uow, stage_id=stage_id, actor="bench", initial_colour="W")
            slug = uow.events.event_and_stage(stage_id)[0].slug
        for number in range(1, args.rounds + 1):
            with UnitOfWork(factory) as uow:
                draft = rounds.pair_next_round(uow, stage_id=stage_id, actor="bench")
                rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="bench")
                play(uow, draft.round_id, number)
                recompute_pool(uow, pool_id=uow.rounds.pools_in_letter_order(stage_id)[0].id or 0)
        with UnitOfWork(factory) as uow:
            teams = len(swiss_view(uow, slug=slug, stage_key="open").pool.standings)
        cold: list[tuple[str, float]] = []
        if args.cold:
            fresh = TestClient(create_app(settings))
            for label, path in (
                ("Swiss page, first build", f"/events/{slug}/stages/open"),
                ("Swiss page ?round=1, first build", f"/events/{slug}/stages/open?round=1"),
                ("Swiss JSON, first build", f"/api/v1/events/{slug}/stages/open/swiss"),
            ):
                start = time.perf_counter()
                answer = fresh.get(path, headers={"Accept-Encoding": "identity"})
                cold.append((label, time.perf_counter() - start))
                assert answer.status_code == 200, answer.text[:300]
            json_path = f"/api/v1/events/{slug}/stages/open/swiss"
            plain = fresh.get(json_path, headers={"Accept-Encoding": "identity"})
            packed = fresh.get(json_path, headers={"Accept-Encoding": "gzip"})
            sizes = (len(plain.content), int(packed.headers.get("content-length", "0")))

        def read_pool() -> None:
            with UnitOfWork(factory) as uow:
                pool_view(uow, slug=slug, stage_key="open", letter="")

        def read_swiss() -> None:
            with UnitOfWork(factory) as uow:
                swiss_view(uow, slug=slug, stage_key="open")

        app = create_app(settings)
        client = TestClient(app)

        def page() -> None:
            app.state.page_cache.clear()
            assert client.get(f"/events/{slug}/stages/open").status_code == 200

        def swiss_json() -> None:
            app.state.page_cache.clear()
            assert client.get(f"/api/v1/events/{slug}/stages/open/swiss").status_code == 200

        figures = {
            "pool_view (yardstick)": best(read_pool),
            "swiss_view": best(read_swiss),
            "Swiss page (uncached)": best(page),
            "Swiss JSON (uncached)": best(swiss_json),
        }
        engine.dispose()
    pool_s = figures["pool_view (yardstick)"][0]
    print(
        f"{teams} teams, {args.rounds} rounds played (best of 5: CPU seconds, ratio to the yardstick, wall)"
    )
    for label, (cpu, wall) in figures.items():
        print(f"  {label:<28} {cpu:7.3f}  ratio {cpu / pool_s:5.2f}  wall {wall:7.3f}")
    if cold:
        print("first build in a fresh app (wall-clock seconds, one each)")
        for label, seconds in cold:
            print(f"  {label:<34} {seconds:7.3f}")
        print(f"Swiss JSON: {sizes[0]:,} bytes plain, {sizes[1]:,} gzip")


if __name__ == "__main__":
    main()
