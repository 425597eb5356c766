"""The stand-in's export cache: pieces rendered in the background give the same bytes as rendering on demand.

Each store gets a frozen stand-in clock, so two stores with the same seed make the same games to the
millisecond and their exports can be compared byte for byte.
"""

from __future__ import annotations

import itertools
import json
import threading

import pytest
from fastapi.responses import PlainTextResponse
from fastapi.testclient import TestClient
from starlette.types import Receive, Scope, Send

from orchestrator.config import Settings
from orchestrator.standin.app import HoldRendererMiddleware, create_standin_app
from orchestrator.standin.engine import LINE_COUNT, lines_made
from orchestrator.standin.faults import FaultPlan
from orchestrator.standin.prerender import Prerenderer
from orchestrator.standin.store import Store
from tests.support.standin import UNEQUAL, create_games, standin, store_of

FLAGS = [
    "moves={}&pgnInJson={}&clocks={}&tags={}".format(*combo)
    for combo in itertools.product(("true", "false"), repeat=4)
]


def export_bytes(client: TestClient, ids: list[str], query: str) -> bytes:
    answer = client.post(
        f"/api/games/export/_ids?{query}", content=",".join(ids), headers={"Accept": "application/x-ndjson"}
    )
    assert answer.status_code == 200
    return answer.content


def every_export(client: TestClient, ids: list[str]) -> list[bytes]:
    pgn = client.post("/api/games/export/_ids?clocks=true", content=",".join(ids)).content
    return [export_bytes(client, ids, query) for query in FLAGS] + [pgn]


def lines(body: bytes) -> list[dict]:
    return [json.loads(line) for line in body.decode().splitlines() if line]


@pytest.mark.parametrize(
    ("faults", "rate"), [("", 0.0), ("truncate,aborted,nostart", 0.3)], ids=["no faults", "faults"]
)
def test_an_export_from_the_warm_cache_is_byte_for_byte_the_cold_export_of_the_same_seed(faults, rate):
    cold = standin(prerender=False, faults=faults, rate=rate)
    warm = standin(prerender=True, faults=faults, rate=rate)
    ids = create_games(cold, 12) + create_games(cold, 4, **UNEQUAL)
    assert create_games(warm, 12) + create_games(warm, 4, **UNEQUAL) == ids
    assert store_of(warm).wait_prerendered()

    assert all(store_of(warm).cached(game_id) for game_id in ids)
    assert not any(store_of(cold).cached(game_id) for game_id in ids)
    assert every_export(warm, ids) == every_export(cold, ids)


def test_every_export_line_is_the_game_json_serialised_whatever_the_flags_and_state():
    client = standin(prerender=True, speed=20.0, faults="aborted,nostart", rate=0.3)
    store = store_of(client)
    ids = create_games(client, 10) + create_games(client, 2, **UNEQUAL)
    client.post(f"/_standin/games/{ids[0]}/result", json={"status": "resign", "winner": "black"})
    seen: list[set[str]] = []
    for advance in (0, 30_000, 10_000_000):
        client.post("/_standin/time", json={"advanceMs": advance})
        assert store.wait_prerendered()
        views = store.views(ids)
        seen.append({view.status for view in views})
        for moves, pgn_in_json, clocks, tags in itertools.product((True, False), repeat=4):
            flags = {"moves": moves, "pgn_in_json": pgn_in_json, "clocks": clocks, "tags": tags}
            for view in views:
                expected = json.dumps(store.game_json(view, **flags), separators=(",", ":"))
                assert store.export_line(view, **flags) == expected
    assert "started" in seen[0] and "resign" in seen[0], "ongoing and finished games are both compared"
    assert "started" not in seen[-1] and all(store.cached(game_id) for game_id in ids)


def test_a_game_still_playing_is_not_cached_and_is_exported_as_playing_until_it_ends():
    client = standin(prerender=True, speed=1.0)
    store = store_of(client)
    ids = create_games(client, 3)
    client.post("/_standin/time", json={"advanceMs": 60_000})
    assert store.wait_prerendered()

    assert [store.cached(game_id) for game_id in ids] == [None, None, None]
    assert {line["status"] for line in lines(export_bytes(client, ids, "pgnInJson=true"))} == {"started"}
    assert [store.cached(game_id) for game_id in ids] == [None, None, None]

    client.post("/_standin/time", json={"advanceMs": 3 * 3600 * 1000})  # every game is over by now
    assert store.wait_prerendered()
    finished = lines(export_bytes(client, ids, "pgnInJson=true"))
    assert all(line["status"] != "started" and line["pgn"] for line in finished)
    assert {store.cached(game_id) for game_id in ids} == {line["status"] for line in finished}


def test_a_forced_result_or_a_new_rating_replaces_what_was_cached():
    client = standin(prerender=True)
    store = store_of(client)
    ids = create_games(client, 2)
    assert store.wait_prerendered()
    before = lines(export_bytes(client, ids, "pgnInJson=true"))
    game = next(line for line in before if line["id"] == ids[0])
    status = "outoftime" if game["status"] != "outoftime" else "resign"

    client.post(f"/_standin/games/{ids[0]}/result", json={"status": status, "winner": "white"})
    white = game["players"]["white"]["user"]["name"]
    client.post("/_standin/users", json={"username": white, "rating": 2999})
    assert store.wait_prerendered()
    after = {line["id"]: line for line in lines(export_bytes(client, ids, "pgnInJson=true"))}

    assert after[ids[0]]["status"] == status and after[ids[0]]["winner"] == "white"
    assert after[ids[0]]["players"]["white"]["rating"] == 2999
    assert '[WhiteElo "2999"]' in after[ids[0]]["pgn"]
    assert store.cached(ids[0]) == status


def test_the_truncate_fault_still_cuts_lines_served_from_the_cache():
    client = standin(prerender=True, faults="truncate", rate=1.0)
    ids = create_games(client, 5)
    assert store_of(client).wait_prerendered()
    body = export_bytes(client, ids, "pgnInJson=true").decode()
    assert body.count("\n") == 5
    for line in body.splitlines():
        with pytest.raises(json.JSONDecodeError):
            json.loads(line)


def test_the_background_thread_is_a_daemon_and_stops_when_the_app_shuts_down():
    client = standin(prerender=True)
    store = store_of(client)
    before = set(threading.enumerate())
    with client:
        create_games(client, 2)
        threads = [t for t in threading.enumerate() if t.name == "standin-prerender" and t not in before]
        assert len(threads) == 1 and threads[0].daemon
        assert store.prerender_running()
    assert not store.prerender_running()
    assert not any(t.is_alive() for t in threads)


def test_the_seed_s_random_lines_are_made_in_the_background_when_the_server_starts():
    settings = Settings(standin_speed=0, standin_seed=424242)
    with TestClient(create_standin_app(settings)) as client:
        assert store_of(client).wait_prerendered()
        assert lines_made("424242") == LINE_COUNT
    assert lines_made("424243") == 0


def test_the_prerenderer_renders_each_waiting_id_once_idles_out_and_ignores_ids_after_close():
    rendered: list[str] = []
    gate = threading.Event()

    def render(game_id: str) -> None:
        gate.wait(5)
        rendered.append(game_id)

    worker = Prerenderer(render, idle_exit_s=0.05)
    worker.submit(["a", "b"])
    worker.submit(["b", "c"])  # "b" is still waiting: not queued twice
    gate.set()
    assert worker.wait_idle(5)
    assert rendered == ["a", "b", "c"]
    for _ in range(200):
        if not worker.running():
            break
        threading.Event().wait(0.01)
    assert not worker.running()

    worker.submit(["d"])  # starts again after idling out
    assert worker.wait_idle(5) and "d" in rendered
    worker.close()
    worker.submit(["e"])
    assert not worker.running() and "e" not in rendered


def test_the_prerenderer_starts_no_game_while_a_request_holds_it():
    rendered: list[str] = []
    worker = Prerenderer(rendered.append)
    with worker.hold():
        worker.submit(["a", "b"])
        assert not worker.wait_idle(0.2)
        assert rendered == [] and worker.pending() == 2
    assert worker.wait_idle(5)
    assert rendered == ["a", "b"]
    worker.close()


def test_api_answers_hold_the_background_thread_and_game_streams_do_not():
    rendered: list[str] = []
    store = Store(speed=0, seed=1, faults=FaultPlan.from_text("", 0.0, 1))
    store._prerenderer = Prerenderer(rendered.append)  # records instead of rendering games
    held: dict[str, bool] = {}

    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        store._submit([scope["path"]])
        held[scope["path"]] = not store.wait_prerendered(0.2)
        await PlainTextResponse("ok")(scope, receive, send)

    client = TestClient(HoldRendererMiddleware(inner, store))
    for path in ("/api/games/export/_ids", "/api/bulk-pairing", "/api/stream/games/x", "/_standin/state"):
        assert client.get(path).text == "ok"
    assert store.wait_prerendered(5)
    assert held == {
        "/api/games/export/_ids": True,
        "/api/bulk-pairing": True,
        "/api/stream/games/x": False,
        "/_standin/state": False,
    }
    assert sorted(rendered) == sorted(held)
    store.close()
