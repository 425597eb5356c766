"""How long the staff dashboard takes to build for the 2020 Online Olympiad (163 teams, its first stage
started: every round, match and board stored), as the service and as the page through the ASGI app.

Run: .venv/bin/python bench/dashboard.py [--runs 20]

SQLite in a temporary directory. Every player is linked except one, one game is held for the arbiter and
one appeal is open, so each kind's query has rows to read. Printed: the command, the number of boards,
then median and slowest time of the service and of the page.
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
from sqlmodel import func, select  # noqa: E402

from orchestrator.adapters.tables import Board, LinkStatus, PlayerLink, Role  # noqa: E402
from orchestrator.config import Settings  # noqa: E402
from orchestrator.domain.gameresults import map_status  # noqa: E402
from orchestrator.jobs import runtime  # noqa: E402
from orchestrator.services.accounts.users import create_user  # noqa: E402
from orchestrator.services.gameserver.ingestion import GameUpdate, ingest_games  # noqa: E402
from orchestrator.services.read import dashboard  # noqa: E402
from orchestrator.services.results import appeals  # noqa: E402
from orchestrator.web.app import create_app  # noqa: E402
from tests.support.factories import EVENT_2020, make_event, running_stage  # noqa: E402
from tests.support.web import PASSWORD, login  # noqa: E402

SLUG = "online-olympiad-2020"


def timed(fn: object, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()  # type: ignore[operator]
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    print("command: .venv/bin/python bench/dashboard.py --runs", args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=Path(tmp), environment="test", login_max_failures=1000)
        app = create_app(settings)
        with TestClient(app):
            factory = app.state.uow_factory
            runtime.configure(settings, uow_factory=factory)  # queued jobs (standings) use this database
            with factory() as uow:
                event_id = make_event(uow, EVENT_2020)
                stage_id = running_stage(uow, event_id=event_id)
                for player in uow.teams.players_of_event(event_id)[1:]:
                    uow.teams.insert(PlayerLink(player_id=player.id or 0, status=LinkStatus.LINKED.value))
                match = uow.rounds.matches_of_round(uow.rounds.rounds_of_stage(stage_id)[0].id or 0)[0]
                board = uow.boards.for_match(match.id or 0)[0]
                board.game_id = "benchheld"
                uow.session.add(board)
                create_user(uow, username="arb", password=PASSWORD, role=Role.ARBITER)
            with factory() as uow:
                ingest_games(uow, games=[GameUpdate("benchheld", map_status("cheat", "white"))])
                appeals.open_appeal(uow, match_id=match.id or 0, actor="arb")
                boards = uow.session.exec(select(func.count()).select_from(Board)).one()
            print(f"boards stored: {boards}")

            def service() -> None:
                with factory() as uow:
                    dashboard.dashboard(uow, slug=SLUG)

            client, _ = login(app, "arb")

            def page() -> None:
                assert client.get(f"/staff/events/{SLUG}").status_code == 200

            for name, fn in (("service", service), ("page", page)):
                fn()  # warm the definition cache and the templates
                times = timed(fn, args.runs)
                print(
                    f"{name}: median {statistics.median(times) * 1000:.1f} ms, "
                    f"slowest {max(times) * 1000:.1f} ms over {args.runs} runs"
                )


if __name__ == "__main__":
    main()
