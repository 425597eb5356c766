"""p50, p99 and requests/s of one cached page under `wrk -c200`, for variants of how the web process runs:
the event loop and HTTP parser (asyncio or uvloop, httptools or h11), the start-up heap frozen or not
(``gc.freeze``, what ``olympiad serve`` does, orchestrator/web/http/serving.py), and the page cache's age
limit.
Printed per run: requests/s, p50, p99, the slowest request and how many had no answer within 2 s.

Run: .venv/bin/python bench/serve_variants.py --data-dir /tmp/pages-sqlite [--rounds 3] [--duration 10]
     [--path /events/<slug>] [--runs-per-process 1]

``--data-dir`` is a database played by bench/pages.py (``--data-dir`` there). Each variant gets a fresh
process (the app as ``olympiad serve`` builds it, access log off), the variants are interleaved ``--rounds``
times so that the machine's drift hits them alike, and ``--runs-per-process 3`` loads the same process
several times in a row (docs/caching.md, "The p99 at 200 connections": later runs behave differently).
The static CSS file of the first variant is loaded too, as the yardstick, and a bare ASGI app on the same
uvicorn, answering with as many bytes as the page, and nginx (when installed, Debian package nginx-light)
sending a file of the page's size are the machine's own yardsticks: what they cannot do under the same
load, the application cannot be blamed for. The server runs on the first half of the CPUs and wrk on the
others (``--no-pin``: anywhere). ``--only NAME`` runs only the variants whose name contains NAME (e.g.
``--only default --only bare``).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import wrk_output  # noqa: E402
from pages import cpu_split, on_cpus  # noqa: E402

VARIANTS = {
    "uvloop+httptools, frozen heap (serve's default until 2026-12-05)": [
        "--loop", "uvloop", "--http", "httptools", "--freeze",
    ],
    "uvloop+httptools, heap not frozen": ["--loop", "uvloop", "--http", "httptools"],
    "asyncio+h11, frozen heap": ["--loop", "asyncio", "--http", "h11", "--freeze"],
    "asyncio+httptools, frozen heap (serve's default)": [
        "--loop", "asyncio", "--http", "httptools", "--freeze",
    ],
    "uvloop+httptools, frozen, age limit 600 s": [
        "--loop", "uvloop", "--http", "httptools", "--freeze", "--max-age", "600",
    ],
    # The machine's yardstick: a bare ASGI app answering every request with bytes of the page's size, on the
    # same uvicorn. What it cannot do under the same wrk, the application cannot be blamed for.
    "bare ASGI app, same server and body size": ["--loop", "uvloop", "--http", "httptools", "--bare"],
    # The same on serve's loop: the most one process of `olympiad serve` could give without the application.
    "bare ASGI app, asyncio+httptools": ["--loop", "asyncio", "--http", "httptools", "--bare"],
    # A server written in C doing nothing but send a file of the page's size (nginx, one worker process on
    # the same CPU): what the machine itself gives under this load.
    "nginx, one worker, a file of the page's size": ["--nginx"],
    # The same bare app with a thread that runs Python for 150 ms every 5 s, as a page cache's age rebuild
    # does: whether a thread holding the GIL makes the seconds-long tails (it did not: docs/caching.md,
    # "uvloop and the slowest requests").
    "bare app + busy thread, uvloop": [
        "--loop", "uvloop", "--http", "httptools", "--bare", "--busy-thread",
    ],
    "bare app + busy thread, asyncio": [
        "--loop", "asyncio", "--http", "httptools", "--bare", "--busy-thread",
    ],
}  # fmt: skip


def serve_child(argv: list[str]) -> None:
    """The web process of one variant (run as ``serve_variants.py --child ...``)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--loop", default="auto")
    parser.add_argument("--http", default="auto")
    parser.add_argument("--freeze", action="store_true")
    parser.add_argument("--max-age", type=float)
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--body-size", type=int, default=30_000)
    parser.add_argument("--busy-thread", action="store_true")
    args = parser.parse_args(argv)
    import uvicorn

    if args.busy_thread:
        threading.Thread(target=busy, daemon=True).start()
    if args.bare:
        uvicorn.run(
            bare_app(args.body_size), host="127.0.0.1", port=args.port, loop=args.loop, http=args.http,
            log_level="warning",
        )  # fmt: skip
        return

    from orchestrator.config import get_settings
    from orchestrator.web.app import create_app

    settings = get_settings().model_copy(update={"eager_scheduler": True})
    app = create_app(settings)
    if args.max_age is not None:
        app.state.page_cache.max_age_s = args.max_age
    if args.freeze:
        gc.collect()
        gc.freeze()
    uvicorn.run(app, host="127.0.0.1", port=args.port, loop=args.loop, http=args.http, log_level="warning")


def busy(every_s: float = 5.0, for_s: float = 0.15) -> None:
    """Run Python code (holding the GIL but for the interpreter's forced switches) for ``for_s`` seconds
    every ``every_s`` seconds, as an age rebuild of a page does in its worker thread."""
    while True:
        time.sleep(every_s)
        until = time.perf_counter() + for_s
        while time.perf_counter() < until:
            sum(range(1000))


def bare_app(size: int) -> Any:
    """An ASGI app that answers every HTTP request 200 with ``size`` bytes and nothing else."""
    body = b"x" * size
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(b"content-type", b"text/html"), (b"content-length", str(size).encode())],
    }

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            await send(start)
            await send({"type": "http.response.body", "body": body})

    return app


def wrk(url: str, duration: int, cpus: set[int] | None) -> wrk_output.Figures:
    threads = len(cpus) if cpus else 2
    out = subprocess.run(
        ["wrk", f"-t{threads}", "-c200", f"-d{duration}s", "--latency", url],
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=on_cpus(cpus),
    ).stdout
    return wrk_output.parse(out)


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        serve_child(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--runs-per-process", type=int, default=1)
    parser.add_argument("--path", default="", help="the page to load (default: the first event's page)")
    parser.add_argument(
        "--only", action="append", default=[], help="only the variants whose name has this (repeatable)"
    )
    parser.add_argument("--no-pin", action="store_true", help="let the kernel place server and wrk")
    args = parser.parse_args()
    server_cpus, load_cpus = (None, None) if args.no_pin else cpu_split()
    chosen = {k: v for k, v in VARIANTS.items() if not args.only or any(o in k for o in args.only)}
    from orchestrator.ports import free_port

    env = {**os.environ, "OLYMPIAD_DATA_DIR": str(args.data_dir), "OLYMPIAD_TASK_MODE": "eager"}
    load = os.getloadavg()[0]
    placed = "not pinned"
    if server_cpus and load_cpus:
        placed = f"server on CPUs {sorted(server_cpus)}, wrk on CPUs {sorted(load_cpus)}"
    threads = len(load_cpus) if load_cpus else 2
    print(
        f"{time.strftime('%Y-%m-%d %H:%M')}, load average {load:.2f}, "
        f"wrk -t{threads} -c200 -d{args.duration}s, {placed}"
    )
    path, body_size = args.path, 30_000
    for round_no in range(1, args.rounds + 1):
        for index, (label, options) in enumerate(chosen.items()):
            if "--nginx" in options and not shutil.which("nginx"):
                print(f"  {label}: skipped, nginx is not installed (Debian package nginx-light)")
                continue
            port = free_port()
            with tempfile.TemporaryDirectory(prefix="serve-variants-") as tmp:
                process = start(options, port, path, body_size, Path(tmp), env, server_cpus)
                try:
                    base = f"http://127.0.0.1:{port}"
                    for _ in range(300):
                        try:
                            httpx.get(f"{base}/healthz", timeout=1)
                            break
                        except httpx.HTTPError:
                            time.sleep(0.1)
                    if not path:  # the first variant is the application: its first event's page
                        path = "/events/" + httpx.get(f"{base}/api/v1/events").json()[0]["event"]["slug"]
                        body_size = len(httpx.get(base + path).content)
                    if round_no == 1 and index == 0 and "--bare" not in options and "--nginx" not in options:
                        static = wrk(base + "/static/site.css", args.duration, load_cpus)
                        print(f"  static CSS (yardstick): {static}")
                    for run in range(1, args.runs_per_process + 1):
                        figures = wrk(base + path, args.duration, load_cpus)
                        print(f"  round {round_no} run {run}  {label:<46} {figures}")
                finally:
                    process.terminate()
                    process.wait(10)


def start(
    options: list[str],
    port: int,
    path: str,
    body_size: int,
    tmp: Path,
    env: dict[str, str],
    cpus: set[int] | None,
) -> subprocess.Popen[bytes]:
    """The server of one variant, on ``cpus``: this script as ``--child``, or nginx serving a file of the
    page's size at the page's address."""
    if "--nginx" in options:
        page = tmp / "www" / path.lstrip("/")
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_bytes(b"x" * body_size)
        (tmp / "www" / "healthz").write_text("ok")
        (tmp / "nginx.conf").write_text(
            "worker_processes 1;\ndaemon off;\n"
            f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log;\nevents {{ worker_connections 1024; }}\n"
            f"http {{ access_log off; default_type text/html; server {{ listen 127.0.0.1:{port}; "
            f"root {tmp}/www; }} }}\n"
        )
        command = ["nginx", "-p", str(tmp), "-c", str(tmp / "nginx.conf")]
    else:
        extra = ["--body-size", str(body_size)] if "--bare" in options else []
        command = [sys.executable, __file__, "--child", "--port", str(port), *options, *extra]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=on_cpus(cpus)
    )


if __name__ == "__main__":
    main()
