"""The stand-in game server in process (a TestClient) on a frozen clock, so that two stand-ins with the same
seed make the same games, and a bulk of games created on it.
"""

from __future__ import annotations

from fastapi.testclient import TestClient

from orchestrator.config import Settings
from orchestrator.standin.app import admin_headers, create_standin_app
from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.records import Bulk
from orchestrator.standin.store import StandinClock, Store

T0 = 1_700_000_000_000


UNEQUAL = {"clock.whiteLimit": "300", "clock.blackLimit": "240"}
CLOCK = {"limit": 300, "increment": 2}


class FrozenClock(StandinClock):
    def now_ms(self) -> int:
        return T0 + self.offset_ms


def standin(*, prerender: bool, speed: float = 0, faults: str = "", rate: float = 0.0) -> TestClient:
    settings = Settings(
        standin_speed=speed,
        standin_seed=11,
        standin_faults=faults,
        standin_fault_rate=rate,
        standin_admin_token="admin-token",  # type: ignore[arg-type]
    )
    app = create_standin_app(settings, prerender=prerender)
    app.state.store.clock = FrozenClock()
    return TestClient(app, headers=admin_headers(settings))


def store_of(client: TestClient) -> Store:
    store = client.app.state.store  # type: ignore[attr-defined]
    assert isinstance(store, Store)
    return store


def create_games(client: TestClient, boards: int, **fields: str) -> list[str]:
    def token(name: str, rating: int, scopes: list[str]) -> str:
        body = {"username": name, "rating": rating, "scopes": scopes}
        return str(client.post("/_standin/users", json=body).json()["token"])

    organiser = token("organiser", 2000, ["challenge:bulk"])
    tokens = [token(f"p{n}", 1300 + 41 * n, ["challenge:write"]) for n in range(2 * boards)]
    players = ",".join(f"{tokens[i]}:{tokens[i + 1]}" for i in range(0, len(tokens), 2))
    form = {"players": players, "clock.limit": "600", "clock.increment": "5", **fields}
    answer = client.post("/api/bulk-pairing", data=form, headers={"Authorization": f"Bearer {organiser}"})
    assert answer.status_code == 200, answer.text
    return [game["id"] for game in answer.json()["games"]]


def bare_store(seed: int = 7) -> Store:
    """A stand-in's store alone (no app, no faults, games not rendered ahead), at instant speed."""
    return Store(speed=0, seed=seed, faults=FaultPlan.from_text("", 0.0, seed), prerender=False)


def store_bulk(
    store: Store,
    pairs: list[tuple[str, str]],
    clock: dict[str, int] = CLOCK,
    *,
    start_clocks_at: int | None = None,
) -> Bulk:
    """A bulk of the organiser's on ``store``, paired at once: ``pairs`` of (white, black) user names."""
    return store.create_bulk(
        owner=store.user("organiser", 2000),
        pairs=[(store.user(w, 1800), store.user(b, 1700)) for w, b in pairs],
        pair_at=None,
        start_clocks_at=start_clocks_at,
        rated=False,
        variant="standard",
        clock=clock,
        rules=("noAbort",),
        message=None,
    )
