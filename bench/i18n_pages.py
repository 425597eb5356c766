"""What translating a page costs: the small test pool page built through the ASGI app in English and in
each translated language, the page cache emptied before every request so that every request builds it.

Run: .venv/bin/python bench/i18n_pages.py [--runs 30]

SQLite in a temporary directory; the pool has a played match (a drawn board, so the page prints 2.5 and
3.5). Printed: the command, then per language the median and fastest build time in milliseconds. The
first request of each language (the first compiles the templates; each translated one reads its
catalogue) is left out and printed alone.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from fastapi.testclient import TestClient  # noqa: E402

from orchestrator.config import Settings  # noqa: E402
from orchestrator.web import i18n  # noqa: E402
from orchestrator.web.app import create_app  # noqa: E402
from tests.unit.test_views import play, seed_small_pool  # noqa: E402

HALF_POINT_CODES = ("1/2-1/2", "1-0", "1-0", "0-1", "0-1", "1-0")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    runs = parser.parse_args().runs
    print(f"$ .venv/bin/python bench/i18n_pages.py --runs {runs}")
    with tempfile.TemporaryDirectory() as data_dir:
        app = create_app(Settings(data_dir=Path(data_dir), environment="test", secret_key="s" * 40))
        with TestClient(app) as client:
            pool = seed_small_pool(app.state.uow_factory)
            play(app.state.uow_factory, min(pool.matches.values()), HALF_POINT_CODES)
            cache = app.state.page_cache
            for lang in i18n.LANGUAGES:
                headers = {"Accept-Language": lang}
                times = []
                for run in range(runs + 1):
                    cache._entries.clear()
                    start = time.perf_counter()
                    answer = client.get(pool.pool_path, headers=headers)
                    elapsed = (time.perf_counter() - start) * 1000
                    assert answer.status_code == 200 and f'<html lang="{lang}">' in answer.text
                    if run == 0:
                        first = elapsed
                    else:
                        times.append(elapsed)
                print(
                    f"{lang}: first request {first:.1f} ms (the templates compile, a catalogue is read); "
                    f"then median {statistics.median(times):.1f} ms, fastest {min(times):.1f} ms"
                )


if __name__ == "__main__":
    main()
