"""The stand-in's answers validate against the Lichess OpenAPI schemas.

The schemas are the multi-file originals, vendored as test data in tests/fixtures/lichess-openapi/ (origin,
commit, version and licence in its SOURCE.md); relative ``$ref``s are resolved to the files there. The copy
holds only the files the checked schemas need: ``CHECKED`` and every file they ``$ref``, transitively.

To refresh it: check out github.com/lichess-org/api at the wanted commit, copy each file the copy holds
from the checkout's ``doc/specs/`` (same relative path) over the vendored one, then run this module; a
missing file is named by ``test_the_vendored_copy_holds_every_file_the_checked_schemas_reference``: copy it
too, and update SOURCE.md. Without the copy the tests fail under CI=true and are skipped otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from orchestrator.config import Settings
from orchestrator.standin.app import admin_headers, create_standin_app
from orchestrator.standin.engine import MATES
from tests.support.ci import missing
from tests.support.factories import REPO_ROOT

SPECS = REPO_ROOT / "tests" / "fixtures" / "lichess-openapi"
CHECKED = (
    "schemas/BulkPairing.yaml",
    "schemas/GameJson.yaml",
    "schemas/GameStreamGame.yaml",
    "schemas/NotFound.yaml",
    "schemas/OAuthError.yaml",
    "schemas/Ok.yaml",
    "schemas/UserExtended.yaml",
    "tags/oauth/api-token.yaml",
)


@pytest.fixture(autouse=True, scope="module")
def vendored_specs() -> None:
    if not SPECS.is_dir():
        missing(f"the vendored Lichess OpenAPI copy is missing: {SPECS.relative_to(REPO_ROOT)}")


def _retrieve(uri: str) -> Resource:
    path = Path(uri.removeprefix("file://"))
    return Resource.from_contents(yaml.safe_load(path.read_text()), default_specification=DRAFT202012)


@cache
def validator(schema_file: str, pointer: str = "") -> Draft202012Validator:
    """A validator for a schema file (or a JSON pointer inside a path file), refs resolved from disk."""
    uri = (SPECS / schema_file).resolve().as_uri()
    registry: Registry = Registry(retrieve=_retrieve)
    return Draft202012Validator({"$ref": f"{uri}#{pointer}"}, registry=registry)


def check(schema_file: str, instance: Any, pointer: str = "") -> None:
    errors = sorted(validator(schema_file, pointer).iter_errors(instance), key=str)
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors)


@pytest.fixture
def standin() -> TestClient:
    return standin_client(Settings(standin_speed=0, standin_seed=3, standin_admin_token="admin-token"))  # type: ignore[arg-type]


def standin_client(settings: Settings) -> TestClient:
    """The stand-in behind a TestClient that sends the admin token (the /_standin/ routes need it)."""
    return TestClient(create_standin_app(settings), headers=admin_headers(settings))


def new_user(standin: TestClient, name: str, rating: int) -> str:
    return standin.post("/_standin/users", json={"username": name, "rating": rating}).json()["token"]


def create_bulk(standin: TestClient, boards: int, **fields: str) -> tuple[str, dict]:
    organiser = new_user(standin, "organiser", 2000)
    tokens = [new_user(standin, f"u{n}", 1500 + 37 * n) for n in range(2 * boards)]
    players = ",".join(f"{tokens[i]}:{tokens[i + 1]}" for i in range(0, len(tokens), 2))
    form = {"players": players, "clock.limit": "900", "clock.increment": "10", "rules": "noAbort", **fields}
    answer = standin.post("/api/bulk-pairing", data=form, headers={"Authorization": f"Bearer {organiser}"})
    assert answer.status_code == 200, answer.text
    return organiser, answer.json()


def export(standin: TestClient, ids: list[str], query: str = "") -> list[dict]:
    answer = standin.post(
        f"/api/games/export/_ids{query}", content=",".join(ids), headers={"Accept": "application/x-ndjson"}
    )
    assert answer.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in answer.text.splitlines() if line]


def test_bulk_pairing_answers_match_the_bulk_pairing_schema(standin):
    soon = int(time.time() * 1000) + 60_000
    organiser, bulk = create_bulk(standin, 3, startClocksAt=str(soon))
    check("schemas/BulkPairing.yaml", bulk)
    auth = {"Authorization": f"Bearer {organiser}"}
    check("schemas/BulkPairing.yaml", standin.get(f"/api/bulk-pairing/{bulk['id']}", headers=auth).json())
    check(
        "schemas/Ok.yaml", standin.post(f"/api/bulk-pairing/{bulk['id']}/start-clocks", headers=auth).json()
    )
    missing = standin.get("/api/bulk-pairing/nosuchid", headers=auth)
    assert missing.status_code == 404
    check("schemas/NotFound.yaml", missing.json())


def test_a_bulk_without_start_clocks_at_answers_null_like_lichess_which_the_schema_does_not_allow(standin):
    _, bulk = create_bulk(standin, 1)
    assert bulk["startClocksAt"] is None
    with pytest.raises(AssertionError, match="startClocksAt"):
        check("schemas/BulkPairing.yaml", bulk)


@pytest.mark.parametrize("query", ["", "?pgnInJson=true&clocks=true", "?moves=false"])
def test_export_lines_match_the_game_json_schema(standin, query):
    _, bulk = create_bulk(standin, 6)
    lines = export(standin, [g["id"] for g in bulk["games"]], query)
    assert len(lines) == 6
    for line in lines:
        check("schemas/GameJson.yaml", line)


def test_ongoing_and_unequal_clock_games_match_the_game_json_schema():
    standin = standin_client(Settings(standin_speed=1.0, standin_seed=3, standin_admin_token="admin-token"))  # type: ignore[arg-type]
    _, bulk = create_bulk(
        standin, 2, **{"clock.limit": "300", "clock.whiteLimit": "300", "clock.blackLimit": "240"}
    )
    standin.post("/_standin/time", json={"advanceMs": 60_000})
    lines = export(standin, [g["id"] for g in bulk["games"]], "?clocks=true&pgnInJson=true")
    assert {line["status"] for line in lines} == {"started"}
    for line in lines:
        check("schemas/GameJson.yaml", line)


def test_faulty_games_match_the_game_json_schema():
    standin = standin_client(
        Settings(
            standin_speed=0,
            standin_seed=3,
            standin_faults="aborted,nostart",
            standin_fault_rate=1,
            standin_admin_token="admin-token",  # type: ignore[arg-type]
        )
    )
    _, bulk = create_bulk(standin, 6)
    lines = export(standin, [g["id"] for g in bulk["games"]])
    assert {line["status"] for line in lines} <= {"aborted", "noStart"}
    for line in lines:
        check("schemas/GameJson.yaml", line)


def test_stream_events_match_the_game_stream_game_schema(standin):
    _, bulk = create_bulk(standin, 4)
    store = standin.app.state.store
    for view in store.views([g["id"] for g in bulk["games"]]):
        check("schemas/GameStreamGame.yaml", store.stream_json(view))


def test_oauth_and_account_answers_match_their_schemas(standin):
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    params = {
        "response_type": "code",
        "client_id": "demo",
        "redirect_uri": "http://x.test/cb",
        "code_challenge_method": "S256",
        "code_challenge": challenge,
        "username": "alice",
    }
    location = standin.get("/oauth", params=params, follow_redirects=False).headers["location"]
    code = location.split("code=")[1].split("&")[0]
    form = {"grant_type": "authorization_code", "code": code, "code_verifier": verifier}
    form |= {"redirect_uri": "http://x.test/cb", "client_id": "demo"}
    token = standin.post("/api/token", data=form)
    pointer = "/post/responses/200/content/application~1json/schema"
    check("tags/oauth/api-token.yaml", token.json(), pointer)
    check("schemas/OAuthError.yaml", standin.post("/api/token", data=form).json())
    account = standin.get("/api/account", headers={"Authorization": f"Bearer {token.json()['access_token']}"})
    check("schemas/UserExtended.yaml", account.json())


def test_the_mate_miniatures_are_legal_and_end_in_mate_for_the_right_side():
    chess = pytest.importorskip("chess")
    for winner, games in MATES.items():
        for sans in games:
            board = chess.Board()
            for san in sans.split():
                board.push_san(san)
            assert board.is_checkmate() and board.turn == (winner == "black")


def test_the_schema_check_follows_refs_and_rejects_what_lichess_would_not_send(standin):
    _, bulk = create_bulk(standin, 1)
    [line] = export(standin, [bulk["games"][0]["id"]])
    bad_status = {**line, "status": "resigned"}
    no_rating = {**line, "players": {**line["players"], "black": {"user": line["players"]["black"]["user"]}}}
    for broken, where in ((bad_status, "status"), (no_rating, "rating")):
        with pytest.raises(AssertionError, match=where):
            check("schemas/GameJson.yaml", broken)


def refs_in(node: Any) -> Iterator[str]:
    """Every ``$ref`` string in a loaded YAML document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs_in(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs_in(value)


def test_the_vendored_copy_holds_every_file_the_checked_schemas_reference_and_nothing_else():
    needed: set[str] = set()
    todo = list(CHECKED)
    unresolved: list[str] = []
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        path = SPECS / name
        if not path.is_file():
            unresolved.append(name)
            continue
        needed.add(name)
        for ref in refs_in(yaml.safe_load(path.read_text())):
            target = ref.split("#", 1)[0]
            if target:
                todo.append((path.parent / target).resolve().relative_to(SPECS.resolve()).as_posix())
    assert unresolved == [], f"copy these from lichess-org/api doc/specs/: {sorted(set(unresolved))}"
    held = {p.relative_to(SPECS).as_posix() for p in SPECS.rglob("*.yaml")}
    assert held == needed, f"not referenced by the checked schemas: {sorted(held - needed)}"


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/_standin/users", {"username": "x", "rating": "²"}),
        ("/_standin/users", {"username": "x", "rating": -5}),
        ("/_standin/time", {"advanceMs": "soon"}),
    ],
)
def test_the_admin_routes_refuse_a_malformed_number_with_a_400(
    standin: TestClient, path: str, body: dict[str, Any]
) -> None:
    answer = standin.post(path, json=body)
    assert answer.status_code == 400, answer.text
    assert "error" in answer.json()
