"""The reader's language on the pages: Accept-Language, the ``lang`` cookie, the footer switch, numbers
in the reader's locale and one cached copy per language (web/i18n.py, docs/translations.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator import translation
from orchestrator.config import Settings
from orchestrator.web import i18n
from tests.support.pools import SeededPool, play, seed_small_pool

# White's result on boards 1-6; the first-named team has White on the odd boards. From its side:
# board 1 draw ½, board 2 (Black, 1-0) 0, board 3 (White, 1-0) 1, board 4 (Black, 0-1) 1,
# board 5 (White, 0-1) 0, board 6 (Black, 1-0) 0: 2½ game points; the other team 6 − 2½ = 3½.
HALF_POINT_CODES = ("1/2-1/2", "1-0", "1-0", "0-1", "0-1", "1-0")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, environment="test", secret_key="s" * 40)


@pytest.fixture
def seeded(app: FastAPI) -> SeededPool:
    return seed_small_pool(app.state.uow_factory)


def html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', page)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("pt-BR,pt;q=0.9,en;q=0.8", "pt"),
        ("en-GB,en;q=0.9,tr;q=0.8", "en"),
        ("de-DE,de;q=0.9,tr;q=0.5", "tr"),  # no German: the best known one
        ("nn-NO,nb;q=0.5", "nb"),  # Nynorsk readers get Bokmål
        ("no", "nb"),
        ("fr, pt;q=0", "en"),  # q=0 means "not this one"
        ("tr;q=0.4, pt;q=0.7", "pt"),
        ("", "en"),
        ("garbage;;q=x", "en"),
    ],
)
def test_accept_language_picks_the_best_known_language(header: str, expected: str) -> None:
    assert i18n.from_accept_language(header) == expected


def test_a_known_cookie_beats_accept_language_and_an_unknown_one_is_ignored() -> None:
    assert i18n.choose("nb", "pt-BR,pt") == "nb"
    assert i18n.choose("xx", "pt-BR,pt") == "pt"
    assert i18n.choose(None, None) == "en"


def test_the_page_follows_accept_language_and_the_cookie_overrides_it(
    client: TestClient, seeded: SeededPool
) -> None:
    english = client.get(seeded.pool_path)
    assert html_lang(english.text) == "en" and '<h2 id="standings-h">Standings</h2>' in english.text
    portuguese = client.get(seeded.pool_path, headers={"Accept-Language": "pt-PT,pt;q=0.9"})
    assert html_lang(portuguese.text) == "pt"
    assert '<h2 id="standings-h">Classificação</h2>' in portuguese.text
    assert "Tabela cruzada" in portuguese.text and "Cross table" not in portuguese.text
    client.cookies.set(i18n.LANG_COOKIE, "nb")
    norwegian = client.get(seeded.pool_path, headers={"Accept-Language": "pt-PT,pt;q=0.9"})
    assert html_lang(norwegian.text) == "nb"


def test_the_switch_sets_the_cookie_and_goes_back_to_a_local_page_only(client: TestClient) -> None:
    answer = client.get("/lang/pt", params={"next": "/events/x?y=1"}, follow_redirects=False)
    assert answer.status_code == 303 and answer.headers["location"] == "/events/x?y=1"
    assert re.match(r"lang=pt;", answer.headers["set-cookie"])
    assert "no-store" in answer.headers["cache-control"]
    for evil in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "javascript:alert(1)"):
        away = client.get("/lang/tr", params={"next": evil}, follow_redirects=False)
        assert away.status_code == 303 and away.headers["location"] == "/"
    assert client.get("/lang/xx", follow_redirects=False).status_code == 404


def test_every_page_has_the_switch_with_the_way_back(client: TestClient, seeded: SeededPool) -> None:
    page = client.get(seeded.pool_path + "?x=1").text
    back = "/lang/pt?next=" + seeded.pool_path + "%3Fx%3D1"
    assert back in page
    assert '<span aria-current="true" lang="en">English</span>' in page
    # following the link sets the language of the same page
    client.get(back, follow_redirects=True)
    assert html_lang(client.get(seeded.pool_path).text) == "pt"


def test_a_portuguese_pool_page_writes_half_points_with_a_decimal_comma(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    match_id = min(seeded.matches.values())
    play(app.state.uow_factory, match_id, HALF_POINT_CODES)
    english = client.get(seeded.pool_path).text
    portuguese = client.get(seeded.pool_path, headers={"Accept-Language": "pt"}).text
    assert "2.5" in english and "3.5" in english
    assert "2,5" in portuguese and "3,5" in portuguese
    assert "2.5" not in portuguese and "3.5" not in portuguese


def test_cached_pages_do_not_leak_one_language_to_another(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = app.state.page_cache
    english = client.get(seeded.pool_path)
    assert english.headers["vary"] == "Accept-Language, Cookie, Accept-Encoding"
    builds = cache.builds
    portuguese = client.get(seeded.pool_path, headers={"Accept-Language": "pt"})
    assert cache.builds == builds + 1  # not the English copy
    assert html_lang(portuguese.text) == "pt" and portuguese.headers["etag"] != english.headers["etag"]
    again = client.get(seeded.pool_path, headers={"Accept-Language": "pt"})
    assert cache.builds == builds + 1 and again.text == portuguese.text  # the Portuguese copy, kept
    client.cookies.set(i18n.LANG_COOKIE, "tr")
    turkish = client.get(seeded.pool_path, headers={"Accept-Language": "pt"})
    assert html_lang(turkish.text) == "tr"
    assert html_lang(TestClient(app).get(seeded.pool_path).text) == "en"
    # the English ETag does not validate the Portuguese page
    check = TestClient(app).get(
        seeded.pool_path, headers={"Accept-Language": "pt", "If-None-Match": english.headers["etag"]}
    )
    assert check.status_code == 200 and html_lang(check.text) == "pt"


def test_the_web_layers_own_error_message_is_translated_on_the_page_not_in_the_api(
    client: TestClient,
) -> None:
    page = client.get("/no/such/page", headers={"Accept-Language": "tr"})
    assert page.status_code == 404 and html_lang(page.text) == "tr"
    assert "Bu sayfa mevcut değil." in page.text and "Bulunamadı" in page.text
    api = client.get("/api/v1/no/such/thing", headers={"Accept-Language": "tr"})
    assert api.status_code == 404 and api.json()["detail"] == "This page does not exist."


def test_plural_forms_follow_the_count(client: TestClient) -> None:
    """A counted noun is a plural message, not an English "s" suffix: Norwegian "1 gruppe", "2 grupper"."""
    template = client.app.state.templates.env.from_string(  # type: ignore[attr-defined]
        "{% trans pool_count=n %}{{ pool_count }} pool"
        "{% pluralize pool_count %}{{ pool_count }} pools{% endtrans %}"
    )
    try:
        i18n.use("nb")
        assert [template.render(n=n) for n in (1, 2)] == ["1 gruppe", "2 grupper"]
    finally:
        i18n.use("en")
    assert [template.render(n=n) for n in (1, 2)] == ["1 pool", "2 pools"]


def test_a_service_error_with_the_web_layers_own_message_is_shown_in_the_readers_language(
    client: TestClient,
) -> None:
    """A path with a NUL (validation.py's own "This page does not exist.") and an anonymous POST that needs
    a login (auth.py's "Please log in."), in Portuguese."""
    page = client.get("/events/x%00y", headers={"Accept-Language": "pt"})
    assert page.status_code == 404 and html_lang(page.text) == "pt"
    assert "Esta página não existe." in page.text and "This page does not exist." not in page.text
    refused = client.post("/logout", headers={"Accept-Language": "pt"}, follow_redirects=False)
    assert refused.status_code == 401 and "Inicie sessão." in refused.text


def test_the_api_json_is_kept_once_for_every_language(
    app: FastAPI, client: TestClient, seeded: SeededPool
) -> None:
    cache = app.state.page_cache
    path = f"/api/v1/events/{seeded.slug}"
    first = client.get(path, headers={"Accept-Language": "pt"})
    assert first.status_code == 200
    builds = cache.builds
    again = client.get(path, headers={"Accept-Language": "tr"})
    assert cache.builds == builds and again.content == first.content  # no second build for Turkish


def test_a_route_runs_in_the_readers_language_before_it_renders(app: FastAPI) -> None:
    """RequestLanguage: what a service writes while the route runs (in the thread pool too) can be
    translated, since the language is set when the request comes in, not only when a page is rendered."""

    def language_now() -> dict[str, str]:  # a sync route: it runs in the thread pool, as services do
        return {"lang": translation.current()}

    app.add_api_route("/probe-language", language_now)
    client = TestClient(app)
    assert client.get("/probe-language", headers={"Accept-Language": "pt-BR"}).json() == {"lang": "pt"}
    client.cookies.set(i18n.LANG_COOKIE, "tr")
    assert client.get("/probe-language", headers={"Accept-Language": "pt-BR"}).json() == {"lang": "tr"}
    client.cookies.clear()
    assert client.get("/probe-language").json() == {"lang": "en"}


@pytest.mark.parametrize(
    ("cookie", "rendered"),
    [("lang=en; lang=pt", "pt"), ('lang="tr"', "tr"), ("lang =nb", "nb"), ("lang=pt; lang=en", "en")],
)
def test_a_cookie_spelling_cannot_switch_the_language_of_the_cached_page_for_others(
    app: FastAPI, seeded: SeededPool, cookie: str, rendered: str
) -> None:
    """The cache and the application read the ``lang`` cookie through one parsing (web/i18n.py), and a
    page is kept under the language it was rendered in (docs/caching.md)."""
    crafted = TestClient(app).get(seeded.pool_path, headers={"Cookie": cookie})
    assert html_lang(crafted.text) == rendered
    for _ in range(2):
        assert html_lang(TestClient(app).get(seeded.pool_path).text) == "en"


def test_two_cookie_headers_are_read_as_one_by_the_cache_and_the_application(
    app: FastAPI, seeded: SeededPool
) -> None:
    client = TestClient(app)
    headers = [("cookie", "lang=en"), ("cookie", "lang=pt")]
    crafted = client.get(seeded.pool_path, headers=headers)
    plain = TestClient(app).get(seeded.pool_path)
    assert html_lang(plain.text) == "en"
    again = TestClient(app).get(seeded.pool_path, headers=headers)
    assert html_lang(again.text) == html_lang(crafted.text)
