"""Every public and staff page of both demo events reads in Portuguese, Norwegian and Turkish: no English left
but proper names (docs/translations.md, "What is translated").

The two demo events (events/online-olympiad-2020.yaml: pools, play-off and Armageddons; the Olympiad 2026's
24-team events/olympiad-2026-small.yaml: a team Swiss with board prizes) are played to their end in demo time
zero (orchestrator/demo) and stay served. The walk starts at the event page and the staff dashboard and
follows every link of the event's public pages and of the staff pages, one language at a time (the ``lang``
cookie), logged in as the owner. Each kind of page (its address with the numbers taken out:
``/events/{slug}/matches/N``) is read twice, so a walk reads every page template without reading each of the
2020 event's thousand matches.

A page fails on a word of the catalogue's English messages that the language's translations never use and
that is not a word of the event's data (tests/support/english_text.py: the allow-list is read from the
database: event, stage, round, team and player names, federation codes, accounts, staff users, lots'
purposes). No timed assertion: the demo's instant speed only shortens the run.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from orchestrator.demo.driver import Demo
from orchestrator.demo.plan import DemoOptions
from orchestrator.ports import free_port
from tests.support.english_text import EnglishFinder, data_vocabulary

pytestmark = [pytest.mark.timeout(900)]

REPO = Path(__file__).resolve().parents[2]
EVENTS = {
    "2020": REPO / "events" / "online-olympiad-2020.yaml",
    "2026-small": REPO / "events" / "olympiad-2026-small.yaml",
}
LANGUAGES = ("pt", "nb", "tr")
SAME_KIND = 2  # pages read of each kind of address
DOWNLOAD = re.compile(r"\.(csv|pgn|json|ics|trf|txt)$")


@dataclass(frozen=True)
class Served:
    web_url: str
    slug: str
    owner_password: str
    database: Path


@pytest.fixture(scope="module", params=sorted(EVENTS))
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data_dir = tmp_path_factory.mktemp(f"demo-{request.param}")
    options = DemoOptions(
        event_file=EVENTS[request.param],
        web=True,
        port=free_port(),
        standin_port=0,
        data_dir=data_dir,
        seed=7,
        speed=0,
        round_gap_s=0,
        tick_s=0.02,
        swiss_engine="own",
    )
    with Demo(options) as demo:
        setup = demo.setup()
        outcome = demo.run()
        assert outcome.champions, "the demo ended without a champion"
        assert setup.web_url is not None and setup.owner_password is not None
        yield Served(setup.web_url, setup.slug, setup.owner_password, data_dir / "olympiad.sqlite3")


def _kind(path: str) -> str:
    return re.sub(r"\d+", "N", path)


def _followed(href: str, slug: str) -> bool:
    if DOWNLOAD.search(href) or "/live" in href or "logout" in href:
        return False
    if href.startswith((f"/events/{slug}/", f"/staff/events/{slug}/")) or href in (
        f"/events/{slug}",
        f"/staff/events/{slug}",
    ):
        return True
    return href.startswith("/staff/") and not href.startswith("/staff/events")


def walk(served: Served, language: str) -> tuple[dict[str, list[str]], Counter[str]]:
    """The English found on each page read, by address, and how many pages of each kind were read."""
    finder = EnglishFinder.for_language(language, data_vocabulary(served.database))
    found: dict[str, list[str]] = {}
    kinds: Counter[str] = Counter()
    with httpx.Client(base_url=served.web_url, timeout=60, cookies={"lang": language}) as client:
        answer = client.post(
            "/api/v1/auth/login", json={"username": "owner", "password": served.owner_password}
        )
        assert answer.status_code == 200, answer.text
        todo = [f"/events/{served.slug}", f"/staff/events/{served.slug}"]
        seen: set[str] = set()
        while todo:
            path = todo.pop(0)
            if path in seen or kinds[_kind(path)] >= SAME_KIND:
                continue
            seen.add(path)
            page = client.get(path)
            assert page.status_code < 500, f"{path}: {page.status_code}"
            if page.status_code != 200 or "text/html" not in page.headers.get("content-type", ""):
                continue
            kinds[_kind(path)] += 1
            assert f'<html lang="{language}">' in page.text, path
            english = finder.english_in(page.text)
            if english:
                found[path] = english
            todo.extend(h for h in re.findall(r'href="([^"#?]+)', page.text) if _followed(h, served.slug))
    return found, kinds


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_of_the_demo_event_is_in_the_reader_s_language(served: Served, language: str) -> None:
    found, kinds = walk(served, language)
    # The walk reached the public and the staff pages (the kinds a demo event always has).
    for kind in (
        "/events/{slug}",
        "/events/{slug}/matches/N",
        "/events/{slug}/teams/N",
        "/staff/events/{slug}",
    ):
        assert kinds[_kind(kind.replace("{slug}", served.slug))], f"the walk never read {kind}"
    report = [f"{path}: {text}" for path, texts in found.items() for text in texts[:3]]
    assert not report, f"{len(report)} texts in English on the {language} pages:\n" + "\n".join(report[:40])
