"""Bytes on the wire of each public page of the full Olympiad 2026, plain, gzip and brotli.

Run: .venv/bin/python bench/page_bytes.py [--played 5]

events/olympiad-2026.yaml (350 teams: Open and Women Swiss sections of 11 rounds) is stored on a temporary
SQLite database in process (tests/support/full_2026.py): both sections started, ``--played`` rounds
paired, published and played, the next one paired and published. Then each public page and JSON document
is asked for through the whole app (page cache included) with ``Accept-Encoding: identity``, ``gzip`` and
``br`` (brotli only when the ``brotli`` package is installed: ``pip install .[brotli]``); printed, per
address: the body's bytes as sent (Content-Length) and the answer's headers' bytes. docs/performance.md
lists the figures and the targets (Swiss stage page <= 60 kB, combined page <= 30 kB on the wire).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orchestrator.adapters.uow import UnitOfWork  # noqa: E402
from orchestrator.config import Settings  # noqa: E402
from orchestrator.db import init_db, make_engine, make_session_factory  # noqa: E402
from orchestrator.web.app import create_app  # noqa: E402
from orchestrator.web.http.compression import BROTLI  # noqa: E402
from tests.support.full_2026 import Full2026, store_full_2026  # noqa: E402

TARGETS = {"Swiss stage page (Open)": 60_000, "combined page": 30_000}


def addresses(full: Full2026, client: TestClient) -> list[tuple[str, str]]:
    """(label, path) of the event's public pages and JSON documents."""
    slug = full.slug
    body = client.get(f"/api/v1/events/{slug}/stages/open/swiss").json()
    first = body["pool"]["rounds"][0]["matches"][0]
    team_id, match_id = first["first"]["id"], first["id"]
    return [
        ("home page", "/"),
        ("event page", f"/events/{slug}"),
        ("Swiss stage page (Open)", f"/events/{slug}/stages/open"),
        ("Swiss stage page (Open), round 1", f"/events/{slug}/stages/open?round=1"),
        ("Swiss stage page (Women)", f"/events/{slug}/stages/women"),
        ("combined page", f"/events/{slug}/combined"),
        ("team page", f"/events/{slug}/teams/{team_id}"),
        ("match page", f"/events/{slug}/matches/{match_id}"),
        ("board prizes page (Open)", f"/events/{slug}/stages/open/board-prizes"),
        ("lots page", f"/events/{slug}/lots"),
        ("event JSON", f"/api/v1/events/{slug}"),
        ("Swiss stage JSON (Open)", f"/api/v1/events/{slug}/stages/open/swiss"),
        ("combined JSON", f"/api/v1/events/{slug}/combined"),
    ]


def wire(client: TestClient, path: str, coding: str) -> tuple[int, int, str]:
    """Body bytes as sent, header bytes, and the encoding the server chose."""
    with client.stream("GET", path, headers={"Accept-Encoding": coding}) as answer:
        body = b"".join(answer.iter_raw())
        if answer.status_code != 200:
            raise SystemExit(f"{path}: {answer.status_code}")
        head = sum(len(k) + len(v) + 4 for k, v in answer.headers.raw) + len("HTTP/1.1 200 OK\r\n\r\n")
        return len(body), head, answer.headers.get("content-encoding", "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--played", type=int, default=5, help="rounds played in each section")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), environment="test")
        engine = make_engine(settings.sqlalchemy_url)
        init_db(engine=engine)
        factory = make_session_factory(engine)
        started = time.perf_counter()
        full = store_full_2026(lambda: UnitOfWork(factory), played=args.played)
        took = time.perf_counter() - started
        print(f"olympiad-2026 stored, {args.played} rounds played + 1 paired, {took:.0f} s")
        client = TestClient(create_app(settings))
        codings = ["identity", "gzip"] + (["br"] if BROTLI is not None else [])
        print(f"  {'address':<36}" + "".join(f"{c:>11}" for c in codings) + "   headers  target")
        for label, path in addresses(full, client):
            sizes = [wire(client, path, coding) for coding in codings]
            target = TARGETS.get(label)
            best = min(size for size, _h, _c in sizes)
            verdict = (
                "" if target is None else f"<= {target // 1000} kB {'met' if best <= target else 'MISSED'}"
            )
            row = "".join(f"{size:>11,}" for size, _h, _c in sizes)
            print(f"  {label:<36}{row}   {sizes[-1][1]:>7}  {verdict}")
        if BROTLI is None:
            print("  (brotli not installed: pip install .[brotli] to measure it)")
        engine.dispose()


if __name__ == "__main__":
    main()
