"""``python -m orchestrator.standin``: run the stand-in game server with uvicorn."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from urllib.parse import urlsplit

from orchestrator.config import Settings
from orchestrator.standin.app import RefusedInProduction, create_standin_app


def main(argv: Sequence[str] | None = None) -> None:
    """Serve the stand-in on the host and port of ``gameserver_url`` unless given on the command line.

    Its ``/_standin/`` admin routes need ``OLYMPIAD_STANDIN_ADMIN_TOKEN`` (from the environment, so that it
    does not show in the process list); it refuses to start in production.
    """
    import uvicorn

    settings = Settings()
    default = urlsplit(settings.gameserver_url)
    parser = argparse.ArgumentParser(prog="python -m orchestrator.standin", description=__doc__)
    parser.add_argument("--host", default=default.hostname or "127.0.0.1")
    parser.add_argument("--port", type=int, default=default.port or 8100)
    parser.add_argument("--speed", help="game seconds per real second; 0 or 'instant' ends games at once")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--faults", help="comma list: 429,500,slow,truncate,aborted,nostart")
    parser.add_argument("--fault-rate", type=float)
    args = parser.parse_args(argv)
    overrides: dict[str, object] = {}
    if args.speed is not None:
        overrides["standin_speed"] = args.speed
    if args.seed is not None:
        overrides["standin_seed"] = args.seed
    if args.faults is not None:
        overrides["standin_faults"] = args.faults
    if args.fault_rate is not None:
        overrides["standin_fault_rate"] = args.fault_rate
    if overrides:
        settings = Settings.model_validate({**settings.model_dump(), **overrides})
    try:
        app = create_standin_app(settings)
    except RefusedInProduction as refused:
        sys.exit(str(refused))
    # The background renderer (standin/prerender.py) is CPU-bound: a request thread waiting for the
    # interpreter lock would wait up to the default 5 ms switch interval each time it wakes up.
    sys.setswitchinterval(0.0005)
    # Short graceful shutdown: open game streams never end on their own.
    uvicorn.run(app, host=args.host, port=args.port, log_level="info", timeout_graceful_shutdown=2)


if __name__ == "__main__":
    main()
