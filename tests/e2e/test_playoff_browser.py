"""The play-off in real browsers (Playwright, headless Chromium, uvicorn on a free port, SQLite file).

Two captains nominate their Armageddon players through the web form; the lots are drawn; a spectator's
bracket page shows the nominees, the colours and the result without a reload. Screenshots of the bracket
at phone and desktop width are taken every run and copied to ``$OLYMPIAD_SCREENSHOTS`` (e.g.
docs/screenshots) when that is set, so a test run never changes the repository.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from orchestrator.adapters.tables import Role
from orchestrator.services.accounts.users import AuthUser, create_user
from orchestrator.services.playoff.armageddon import (
    choose_colour,
    commit_armageddon_lot,
    reveal_armageddon_lot,
)
from orchestrator.services.playoff.armageddon_game import record_armageddon_result, set_armageddon_game
from tests.support.accessibility import axe, failing, report, violations
from tests.support.browser import log_in
from tests.support.playoff import SEED_B, PlayoffSetup, draw_category, play_duel, playoff_with_bracket
from tests.support.server import LiveServer

playwright_api = pytest.importorskip("playwright.sync_api")
PASSWORD = "correct horse battery"
ARBITER = AuthUser(id=0, username="arbiter", role=Role.ARBITER, team_id=None, session_generation=1)


@dataclass
class Scene:
    setup: PlayoffSetup
    duel_id: int
    first: str
    second: str


@pytest.fixture(scope="module")
def scene(live_server: LiveServer) -> Scene:
    """A play-off in progress: first round I, II decided, III level and its Armageddon category drawn."""
    factory = live_server.uow_factory
    setup = playoff_with_bracket(factory, slug="playoff-e2e")
    for key, m1, m2 in (("I", "WWWDDD", "WWWWDD"), ("II", "LLLWDD", "DDDDDD"), ("III", "WWWWDD", "LLLLDD")):
        play_duel(factory, setup, key, m1, m2)
    duel_id, _category = draw_category(factory, setup, "III")
    first, second = setup.place_team["C2"], setup.place_team["D3"]
    with factory() as uow:
        for username, team in (("cap-first", first), ("cap-second", second)):
            create_user(
                uow, username=username, password=PASSWORD, role=Role.CAPTAIN, team_id=setup.team_ids[team]
            )
    return Scene(setup, duel_id, first, second)


def captain_nominates(
    browser: object, live_server: LiveServer, scene: Scene, username: str, *, check_access: bool = False
) -> str:
    page = browser.new_context().new_page()  # type: ignore[attr-defined]
    log_in(page, live_server.base_url, username, PASSWORD, landing="/captain")
    if check_access:
        captain_pages_are_accessible(page, live_server.base_url, scene.duel_id)
    page.click(f"a[href='/captain/duels/{scene.duel_id}/armageddon']")
    choice = page.locator("#account option").last.inner_text()
    page.select_option("#account", index=page.locator("#account option").count() - 1)
    page.click("text=Nominate (sealed)")
    playwright_api.expect(page.locator(".message-notice, #own-nomination").first).to_be_visible()
    name = choice.split(" (")[0]
    page.context.close()
    return name


def captain_pages_are_accessible(page: Any, base_url: str, duel_id: int) -> None:
    """axe-core on the captain's home and Armageddon nomination pages, at phone and desktop width."""
    runner = axe()
    for width, height in ((390, 844), (1280, 900)):
        page.set_viewport_size({"width": width, "height": height})
        found = {
            name: violations(page, base_url + path, runner)
            for name, path in (
                ("captain home", "/captain"),
                ("nomination", f"/captain/duels/{duel_id}/armageddon"),
            )
        }
        bad = failing(found)
        assert not bad, f"serious or critical violations: {bad}\n{report(found, width)}"
    page.goto(base_url + "/captain")


def armageddon_game_is_linked(page: Any, base_url: str, slug: str) -> None:
    """The play-off stage page links the Armageddon's match page, whose one board links the game."""
    page.goto(f"{base_url}/events/{slug}/stages/playoff")
    page.locator("li.armageddon a").first.click()
    playwright_api.expect(page.locator("main")).to_contain_text("a draw sends Black's team through")
    link = page.get_by_role("link", name="Watch game")
    playwright_api.expect(link).to_have_count(1)
    playwright_api.expect(link).to_have_attribute("href", "https://lichess.org/Xy12Ab34")
    page.close()


def test_two_captains_nominate_the_lots_are_drawn_and_the_spectator_sees_the_result_live(
    browser: object, live_server: LiveServer, scene: Scene, tmp_path: Path
) -> None:
    spectator = browser.new_context(viewport={"width": 1366, "height": 900}).new_page()  # type: ignore[attr-defined]
    spectator.goto(f"{live_server.base_url}/events/{scene.setup.slug}/bracket")
    playwright_api.expect(spectator.locator(".live-status")).to_contain_text("Live")
    spectator.evaluate("window.__notReloaded = true")
    card = spectator.locator("#duel-III")
    playwright_api.expect(card).to_contain_text("sealed (0 of 2 in)")

    first_name = captain_nominates(browser, live_server, scene, "cap-first", check_access=True)
    playwright_api.expect(card).to_contain_text("sealed")
    assert first_name not in card.inner_text()  # still sealed for the spectator
    second_name = captain_nominates(browser, live_server, scene, "cap-second")
    playwright_api.expect(card).to_contain_text(first_name)
    playwright_api.expect(card).to_contain_text(second_name)

    factory = live_server.uow_factory
    with factory() as uow:
        commit_armageddon_lot(uow, duel_id=scene.duel_id, which="colour", actor="arbiter", seed=SEED_B)
    playwright_api.expect(card).to_contain_text("draw to come")
    with factory() as uow:
        chooser = reveal_armageddon_lot(uow, duel_id=scene.duel_id, which="colour", actor="arbiter")
    with factory() as uow:
        choose_colour(
            uow, duel_id=scene.duel_id, team_id=scene.setup.team_ids[chooser], colour="white", actor=ARBITER
        )
    with factory() as uow:
        set_armageddon_game(uow, duel_id=scene.duel_id, game_ref="lichess.org/Xy12Ab34", actor="arbiter")
    watch = card.get_by_role("link", name="Watch the game")
    playwright_api.expect(watch).to_have_attribute("href", "https://lichess.org/Xy12Ab34")
    armageddon_game_is_linked(spectator.context.new_page(), live_server.base_url, scene.setup.slug)
    with factory() as uow:
        record_armageddon_result(uow, duel_id=scene.duel_id, result="0-1", actor="arbiter")
    black = scene.second if chooser == scene.first else scene.first
    playwright_api.expect(card).to_contain_text("Result 0-1")
    playwright_api.expect(card).to_contain_text(f"{black} through on Armageddon")
    # The quarter-final fed by duel III now names the winner, still without a reload.
    playwright_api.expect(spectator.locator("#duel-VI")).to_contain_text(black)
    assert spectator.evaluate("window.__notReloaded") is True

    shots = tmp_path
    playwright_api.expect(spectator.locator(".live-updated")).to_have_count(0)  # the change flash is over
    spectator.screenshot(path=str(shots / "bracket-desktop.png"), full_page=True)
    phone = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2).new_page()  # type: ignore[attr-defined]
    phone.goto(f"{live_server.base_url}/events/{scene.setup.slug}/bracket")
    phone.screenshot(path=str(shots / "bracket-phone.png"), full_page=True)
    if target := os.environ.get("OLYMPIAD_SCREENSHOTS"):
        Path(target).mkdir(parents=True, exist_ok=True)
        for shot in shots.iterdir():
            shutil.copy(shot, Path(target) / shot.name)
    # On a phone the rounds stack: the Final comes below the first round, not beside it.
    first_round = phone.locator(".bracket-round").first.bounding_box()
    final = phone.locator(".bracket-round").last.bounding_box()
    assert first_round is not None and final is not None and final["y"] > first_round["y"]
    assert abs(final["x"] - first_round["x"]) < 1
