"""Microseconds of Python per request on the two paths every cached spectator page takes, in one process
(no server, no sockets), each beside a yardstick timed in the same run:

- a page kept by the page cache (web/http/page_cache.py, in front of the application: web/app.py
  ``OlympiadApp``), called as uvicorn calls it, against a bare ASGI app answering the same bytes;
- one line of the access log (uvicorn's access formatter, with the token redaction of
  web/http/security.py), against the same line with no filter.

Run: .venv/bin/python bench/hot_path.py --data-dir /tmp/pages-sqlite [--path /events/<slug>] [--count 20000]

``--data-dir`` is a database played by bench/pages.py (``--data-dir`` there). The log lines go to
/dev/null, so the figure is the formatting, not the terminal. Where the time of a whole request goes
(the server's own share, sockets) is measured by bench/pages.py and bench/serve_variants.py.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import logging
import logging.config
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from serve_variants import bare_app  # noqa: E402 (the same yardstick as under load)

ASGI = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


def scope_of(path: str) -> dict[str, Any]:
    headers = [(b"host", b"127.0.0.1:8000"), (b"user-agent", b"wrk"), (b"accept", b"*/*")]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }


async def per_call_us(app: ASGI, path: str, count: int) -> tuple[float, int, int]:
    """Mean microseconds per request, the status and the body size of the last answer."""
    answer: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        answer.append(message)

    started = time.perf_counter()
    for _ in range(count):
        answer.clear()
        await app(scope_of(path), receive, send)
    elapsed = time.perf_counter() - started
    return elapsed / count * 1e6, answer[0]["status"], len(answer[-1].get("body", b""))


async def cached_page(data_dir: Path, path: str | None, count: int) -> None:
    os.environ["OLYMPIAD_DATA_DIR"] = str(data_dir)
    os.environ.setdefault("OLYMPIAD_STANDIN_ADMIN_TOKEN", "bench-hot-path")
    from orchestrator.config import get_settings
    from orchestrator.web.app import create_app

    app = create_app(get_settings())
    async with app.router.lifespan_context(app):
        if path is None:
            with app.state.uow_factory() as uow:
                path = "/events/" + uow.events.list_all()[0].slug
        _, status, size = await per_call_us(app, path, 1)  # builds and keeps the page
        if status != 200:
            raise SystemExit(f"{path} answered {status}")
        builds = app.state.page_cache.builds
        await per_call_us(app, path, count // 10)  # warm-up
        page_us, _, _ = await per_call_us(app, path, count)
        bare_us, _, _ = await per_call_us(bare_app(size), path, count)
        rebuilt = app.state.page_cache.builds - builds
    print(f"cached page {path} ({size:,} bytes), {count:,} calls, {rebuilt} rebuilt by age meanwhile")
    print(f"  page from the cache   {page_us:6.1f} us per request")
    print(f"  bare ASGI app         {bare_us:6.1f} us per request   (page / bare: {page_us / bare_us:.1f}x)")


def access_log_line(count: int) -> None:
    from uvicorn.config import LOGGING_CONFIG

    from orchestrator.web.http.security import RedactInvitationTokens

    config = copy.deepcopy(LOGGING_CONFIG)
    config["formatters"]["access"]["use_colors"] = False
    config["handlers"]["access"]["stream"] = open(os.devnull, "w")  # noqa: SIM115 (lives as long as the run)
    logging.config.dictConfig(config)
    logger = logging.getLogger("uvicorn.access")
    line = '%s - "%s %s HTTP/%s" %d'
    args = ("127.0.0.1:50000", "GET", "/events/online-olympiad-2020/stages/top/pools/A", "1.1", 200)

    def timed() -> float:
        started = time.perf_counter()
        for _ in range(count):
            logger.info(line, *args)
        return (time.perf_counter() - started) / count * 1e6

    timed()  # warm-up
    plain = timed()
    logger.addFilter(RedactInvitationTokens())
    redacted = timed()
    print(f"access log line, {count:,} lines to {os.devnull}")
    print(f"  with the redaction    {redacted:6.1f} us per line")
    print(f"  no filter             {plain:6.1f} us per line   (with / without: {redacted / plain:.2f}x)")


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--path", help="the page (default: the first event's page)")
    parser.add_argument("--count", type=int, default=20000)
    args = parser.parse_args()
    print(time.strftime("%Y-%m-%d %H:%M"), f"Python {sys.version.split()[0]}")
    asyncio.run(cached_page(args.data_dir, args.path, args.count))
    access_log_line(args.count)


if __name__ == "__main__":
    main()
