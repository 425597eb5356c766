"""Time the public Swiss stage page's read model (``read.swiss.swiss_view``: the pool as ``pool_view`` reads
it, plus the standings after every complete round and every team's path) beside ``pool_view`` of the same
pool (the yardstick: what the stage's JSON document cost before), and the whole page through the app with
the page cache emptied before each request.

Run: .venv/bin/python bench/swiss_page.py [--file events/olympiad-2026.yaml] [--rounds 5]
The event is stored on a temporary SQLite database, its Swiss stage ``open`` started, and ``--rounds``
rounds paired, published and played (every board's result written on the rows, a fixed pattern, then the
pool's standings stored). CPU seconds, the best of 5 runs, are printed: compare the ratios.
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


def best(run, times: int = 5) -> float:  # type: ignore[no-untyped-def]
    found = []
    for _ in range(times):
        start = time.process_time()
        run()
        found.append(time.process_time() - start)
    return min(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default="events/olympiad-2026.yaml")
    parser.add_argument("--rounds", type=int, default=5, help="rounds played")
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
            teams = len(swiss_view(uow, slug=slug, stage_key="open").paths)

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

        pool_s, swiss_s, page_s, json_s = best(read_pool), best(read_swiss), best(page), best(swiss_json)
        engine.dispose()
    print(f"{teams} teams, {args.rounds} rounds played (CPU seconds, best of 5)")
    print(f"  pool_view (yardstick)         {pool_s:7.3f}")
    print(f"  swiss_view                    {swiss_s:7.3f}  ratio {swiss_s / pool_s:5.2f}")
    print(f"  Swiss page (uncached)         {page_s:7.3f}  ratio {page_s / pool_s:5.2f}")
    print(f"  Swiss JSON (uncached)         {json_s:7.3f}  ratio {json_s / pool_s:5.2f}")


if __name__ == "__main__":
    main()
