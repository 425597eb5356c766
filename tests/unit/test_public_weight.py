"""The weight of the spectator pages and public JSON on the wire (web/http/compression.py, the page cache's
compressed forms; docs/caching.md "Compression"): gzip to a client that accepts it, compressed once per
kept page and encoding, ``Vary: Accept-Encoding``, and no internal cache keys in the public JSON."""

from __future__ import annotations

import gzip
import json

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.web.http import compression
from tests.support.pools import SeededPool, seed_small_pool


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    return seed_small_pool(app.state.uow_factory)


def _raw(client: TestClient, path: str, **headers: str):  # type: ignore[no-untyped-def]
    """The answer as sent (httpx would otherwise decode it)."""
    with client.stream("GET", path, headers=headers) as answer:
        answer.read_raw = b"".join(answer.iter_raw())  # type: ignore[attr-defined]
        return answer


def test_a_page_is_sent_gzipped_to_a_client_that_accepts_it_and_plain_to_one_that_does_not(
    client: TestClient, seeded: SeededPool
) -> None:
    plain = _raw(client, seeded.pool_path, **{"Accept-Encoding": "identity"})
    zipped = _raw(client, seeded.pool_path, **{"Accept-Encoding": "gzip, deflate"})
    assert plain.headers.get("content-encoding") is None
    assert zipped.headers["content-encoding"] == "gzip"
    assert gzip.decompress(zipped.read_raw) == plain.read_raw
    assert int(zipped.headers["content-length"]) == len(zipped.read_raw) < len(plain.read_raw) / 3
    for answer in (plain, zipped):
        assert "Accept-Encoding" in answer.headers["vary"] and "Accept-Language" in answer.headers["vary"]
    assert zipped.headers["etag"] != plain.headers["etag"]  # two representations, two strong ETags


def test_a_kept_page_is_compressed_once_and_its_compressed_copy_revalidates(
    app: FastAPI, client: TestClient, seeded: SeededPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = compression.compress

    def counted(body: bytes, coding: str) -> bytes:
        calls.append(coding)
        return real(body, coding)

    monkeypatch.setattr(compression, "compress", counted)
    first = _raw(client, seeded.pool_path, **{"Accept-Encoding": "gzip"})
    again = _raw(client, seeded.pool_path, **{"Accept-Encoding": "gzip"})
    assert again.read_raw == first.read_raw and calls == ["gzip"]
    unchanged = client.get(
        seeded.pool_path, headers={"If-None-Match": first.headers["etag"], "Accept-Encoding": "gzip"}
    )
    assert unchanged.status_code == 304 and calls == ["gzip"]
    # A copy of another form revalidates too: it is the same page.
    plain = client.get(
        seeded.pool_path, headers={"If-None-Match": first.headers["etag"], "Accept-Encoding": ""}
    )
    assert plain.status_code == 304 and "Accept-Encoding" in plain.headers["vary"]


def test_accept_encoding_is_read_with_its_weights() -> None:
    assert compression.accepted("gzip, deflate, br", brotli=True) == "br"
    assert compression.accepted("gzip, deflate, br", brotli=False) == "gzip"
    assert compression.accepted("br;q=0, gzip;q=0.5", brotli=True) == "gzip"
    assert compression.accepted("gzip;q=0, *;q=0", brotli=True) == ""
    assert compression.accepted("*", brotli=False) == "gzip"
    assert compression.accepted("gzip;q=x", brotli=False) == ""
    assert compression.accepted(None) == "" and compression.accepted("identity") == ""
    assert compression.etag_for('"abc"', "gzip") == '"abc-gzip"' and compression.etag_for('"a"', "") == '"a"'


def test_public_json_carries_no_internal_cache_keys_nor_does_its_schema(
    client: TestClient, seeded: SeededPool
) -> None:
    slug = seeded.slug
    for path in (f"/api/v1/events/{slug}", seeded.pool_path.replace("/events/", "/api/v1/events/")):
        body = client.get(path).json()
        assert "topics" not in json.dumps(body), path
    schemas = client.get("/api/v1/openapi.json").json()["components"]["schemas"]
    assert not [name for name, schema in schemas.items() if "topics" in schema.get("properties", {})]


def test_brotli_is_sent_when_installed_and_asked_for(client: TestClient, seeded: SeededPool) -> None:
    brotli = pytest.importorskip("brotli")
    plain = _raw(client, seeded.pool_path, **{"Accept-Encoding": "identity"})
    answer = _raw(client, seeded.pool_path, **{"Accept-Encoding": "gzip, br"})
    assert answer.headers["content-encoding"] == "br"
    assert brotli.decompress(answer.read_raw) == plain.read_raw
