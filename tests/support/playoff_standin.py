"""A world for the play-off glue tests: settings on a SQLite file in a temporary directory, the stand-in game
server in process (``create_standin_app`` behind a TestClient, speed ``instant``, its time moved forward
with ``/_standin/time``) and the job runtime configured on both.

    for world in make_world(tmp_path):             # a generator: its finally closes the stand-in
        world.link_everyone(event_id)              # every player's account linked on the stand-in
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cryptography.fernet import Fernet
from fastapi.testclient import TestClient

from orchestrator.adapters.lichess import LichessClient
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory
from orchestrator.jobs import runtime
from orchestrator.services.gameserver.player_links import store_link
from orchestrator.standin.app import admin_headers, create_standin_app
from tests.support.databases import migrated_engine
from tests.support.factories import REPO_ROOT

SMALL_PLAYOFF = (REPO_ROOT / "tests" / "fixtures" / "events" / "small-playoff.yaml").read_text("utf-8")


@dataclass
class World:
    settings: Settings
    uow_factory: UnitOfWorkFactory
    standin: TestClient

    def client(self) -> LichessClient:
        return LichessClient.from_settings(self.settings, http=self.standin)

    def advance(self, seconds: float) -> None:
        self.standin.post("/_standin/time", json={"advanceMs": int(seconds * 1000)}).raise_for_status()

    def link_everyone(self, event_id: int) -> None:
        with self.uow_factory() as uow:
            for player in uow.teams.players_of_event(event_id):
                body = {"username": player.account, "rating": player.rating, "scopes": ["challenge:write"]}
                token = self.standin.post("/_standin/users", json=body).raise_for_status().json()["token"]
                store_link(
                    uow,
                    player_id=player.id or 0,
                    account=player.account,
                    token=token,
                    settings=self.settings,
                    actor="test",
                )


def make_world(tmp_path: Path, **overrides: object) -> Iterator[World]:
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "environment": "test",
        "token_encryption_key": Fernet.generate_key().decode(),
        "gameserver_url": "http://gs.test",
        "standin_speed": 0,
        "gameserver_clock_delay_s": 0,
        "gameserver_retry_scale": 0.001,
        "auto_lot_reveal_delay_s": 0,
        "armageddon_nomination_minutes": 0,
        "armageddon_colour_minutes": 0,
        "standin_admin_token": "admin-token",
        **overrides,
    }
    settings = Settings(**values)  # type: ignore[arg-type]
    engine = migrated_engine(settings.sqlalchemy_url)
    factory = make_session_factory(engine)

    def uow_factory() -> UnitOfWork:
        return UnitOfWork(factory)

    standin = TestClient(
        create_standin_app(settings), base_url="http://gs.test", headers=admin_headers(settings)
    )
    organiser = standin.post(
        "/_standin/users", json={"username": "organiser", "rating": 2000, "scopes": ["challenge:bulk"]}
    ).json()["token"]
    settings = Settings(**values, gameserver_admin_token=organiser)  # type: ignore[arg-type]
    world = World(settings, uow_factory, standin)
    runtime.configure(settings, uow_factory=uow_factory, client_factory=world.client)
    try:
        yield world
    finally:
        runtime._runtime = None  # configure() in a test must not leak into the next one
        standin.close()
        engine.dispose()
