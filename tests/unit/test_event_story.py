"""The event page of an Olympiad tells its story (docs/spectators.md, "The event page"): each section's
leaders and the round being played while it runs, then each section's podium, the combined classification's
top three and the board prizes' gold medals; the combined page names the federations; and the small wrongs
of the spectator and staff pages (a lone half point, a "Live" status on a closed event, the board-prize
columns a phone sees first, raw fractions on the close page, the Swiss counter of an event without a Swiss
stage)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import timedelta

import pytest
import yaml
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.db import utcnow
from orchestrator.services.accounts.users import create_user
from orchestrator.services.read import board_prizes, combined, swiss
from orchestrator.services.results import standings as standings_service
from orchestrator.web.pages.public.event_story import federation_name
from tests.support.combined import sections_event, start_sections
from tests.support.swiss import ACTOR, pair_and_publish, play_round
from tests.support.web import PASSWORD, login

SLUG = "story-cup"
LATER = timedelta(minutes=16)  # past the 15-minute appeal window


@pytest.fixture
def sections(app: FastAPI) -> tuple[UnitOfWorkFactory, dict[str, int]]:
    """Open: Russia, China, Ukraine, Hungary; Women: the same four federations' teams; two rounds each,
    none played yet; a board prize needs one game."""
    factory: UnitOfWorkFactory = app.state.uow_factory
    feds = ["RUS", "CHN", "UKR", "HUN"]
    text = yaml.safe_load(sections_event(feds, feds, rounds=2, slug=SLUG))
    text["board_prizes"] = {"min_games": 1}
    with factory() as uow:
        ids = start_sections(uow, yaml.safe_dump(text, sort_keys=False, allow_unicode=True))
    return factory, ids


def _play(factory: UnitOfWorkFactory, ids: dict[str, int]) -> None:
    for stage_id in ids.values():
        play_round(factory, pair_and_publish(factory, stage_id).round_id)


def _close(factory: UnitOfWorkFactory, ids: dict[str, int]) -> None:
    for stage_id in ids.values():
        with factory() as uow:
            standings_service.close_stage(
                uow, stage_id=stage_id, actor=ACTOR, now=utcnow() + LATER
            ).raise_refusal()


def _part(html: str, part_id: str) -> str:
    found = re.search(rf'<section class="story-part" aria-labelledby="{part_id}">(.*?)</section>', html, re.S)
    assert found, f"no {part_id} on the page"
    return found.group(1)


def _teams(part: str) -> list[str]:
    return re.findall(
        r'<a class="team" href="/events/[^"]+/teams/\d+"><span class="fed">[A-Z]+</span> ([^<]+)</a>', part
    )


def _top(factory: UnitOfWorkFactory, key: str) -> list[tuple[str, int]]:
    """The first three places of the stage's standings after its last complete round (all the teams that
    share the third), from the Swiss page's view."""
    with factory() as uow:
        view = swiss.swiss_view(uow, slug=SLUG, stage_key=key)
    return [(line.team.name, line.mp) for line in view.standings_after[-1].standings if line.rank <= 3]


def test_the_event_page_shows_the_leaders_while_it_runs_then_the_podiums_and_the_medals(
    sections: tuple[UnitOfWorkFactory, dict[str, int]], app: FastAPI
) -> None:
    factory, ids = sections
    client = TestClient(app)
    _play(factory, ids)
    html = client.get(f"/events/{SLUG}").text
    for key in ids:
        part = _part(html, f"story-{key}-h")
        assert "leaders after round 1 of 2" in part
        expected = _top(factory, key)
        assert _teams(part) == [name for name, _mp in expected]
        assert [int(n) for n in re.findall(r"(\d+) match points?", part)] == [mp for _name, mp in expected]
    assert "Round 2 of 2" in html  # the round being played next, as the 2020 event page says it
    with factory() as uow:
        classification = combined.combined_view(uow, slug=SLUG)
    top = [line for line in classification.lines if line.complete and line.place <= 3]
    combined_part = _part(html, "story-combined-h")
    assert "(provisional)" in combined_part
    assert re.findall(r'<span class="fed">([A-Z]+)</span>', combined_part) == [
        line.federation for line in top
    ]
    assert "live-status" in html and "topic=pool%3A" in html  # live.js follows the sections' pools

    _play(factory, ids)
    _close(factory, ids)
    html = client.get(f"/events/{SLUG}").text
    assert "Final results" in html and "live-status" not in html
    for key in ids:
        part = _part(html, f"story-{key}-h")
        assert ": podium" in part
        expected = _top(factory, key)
        with factory() as uow:
            ranks = [
                line.rank
                for line in swiss.swiss_view(uow, slug=SLUG, stage_key=key)
                .standings_after[-1]
                .standings[: len(expected)]
            ]
        assert re.findall(r'medal-(gold|silver|bronze)">', part) == [
            ("gold", "silver", "bronze")[r - 1] for r in ranks
        ]
        assert _teams(part) == [name for name, _mp in expected]
    gold = []
    with factory() as uow:
        for key in ids:
            view = board_prizes.board_prizes_view(uow, slug=SLUG, stage_key=key)
            gold += [line.name for section in view.boards for line in section.lines if line.medal == "gold"]
    boards_part = _part(html, "story-boards-h")
    assert gold and all(f"{name}</a>" in boards_part for name in gold)
    assert "(provisional)" not in _part(html, "story-combined-h")

    portuguese = client.get(f"/events/{SLUG}", cookies={"lang": "pt"}).text
    assert "Resultados finais" in portuguese and ">Ouro<" in portuguese and "pontos de match" in portuguese


def test_the_combined_page_names_each_federation_and_the_legend_calls_game_points_gp(
    sections: tuple[UnitOfWorkFactory, dict[str, int]], app: FastAPI
) -> None:
    factory, ids = sections
    _play(factory, ids)
    html = TestClient(app).get(f"/events/{SLUG}/combined").text
    rows = re.findall(
        r'<th scope="row" class="sticky-2"><span class="fed">([A-Z]+)</span> ([^<]+?)\s*<', html
    )
    assert sorted(rows) == [("CHN", "China"), ("HUN", "Hungary"), ("RUS", "Russia"), ("UKR", "Ukraine")]
    assert "the sum of the teams' GP (game points)" in html and "the sum of the teams' TB2" not in html


@pytest.mark.parametrize(
    ("teams", "name"),
    [
        ([("Russia", "Open"), ("Russia Women", "Women")], "Russia"),
        ([("France Women", "Women")], "France"),
        ([("Women", "Women")], "Women"),  # a team named only by the section keeps its name
        ([("Ukraine", "Open"), ("Ukraine Ladies", "Women")], "Ukraine"),
        ([], ""),
    ],
)
def test_a_federation_is_named_by_its_teams_without_their_sections_names(
    teams: list[tuple[str, str]], name: str
) -> None:
    assert federation_name(teams) == name


def test_the_board_prize_table_shows_performance_and_medal_first_and_no_lone_half_as_0_half(
    sections: tuple[UnitOfWorkFactory, dict[str, int]], app: FastAPI
) -> None:
    factory, ids = sections
    _play(factory, ids)
    html = TestClient(app).get(f"/events/{SLUG}/stages/open/board-prizes").text
    heads = re.findall(r'<th scope="col"[^>]*>([^<]+)</th>', html)[:4]
    assert heads == ["Place", "Player", "Perf.", "Status"]
    assert "0½" not in html


@pytest.mark.parametrize(
    ("points", "text"), [("0.5", "½"), ("0.0", "0"), ("2.5", "2½"), ("3.0", "3"), ("10.5", "10½")]
)
def test_the_bracket_writes_a_lone_half_point_as_a_half(app: FastAPI, points: str, text: str) -> None:
    duel = app.state.templates.env.get_template("playoff/_duel.html").module
    assert str(duel.gp_text(points)) == text


@pytest.mark.parametrize(("value", "text"), [("377/4", "94.25"), ("59/2", "29.5"), ("334", "334"), ("", "")])
def test_the_close_page_writes_a_fraction_as_a_decimal_number(app: FastAPI, value: str, text: str) -> None:
    page = app.state.templates.env.get_template("partials/numbers.html").module
    assert str(page.number_text(value)) == text


def _dashboard_counts(app: FastAPI, slug: str) -> Sequence[str]:
    factory: UnitOfWorkFactory = app.state.uow_factory
    with factory() as uow:
        create_user(uow, username="owner", password=PASSWORD, role="owner")
    client, _token = login(app, "owner")
    html = client.get(f"/staff/events/{slug}").text
    found = re.search(r'<ul class="dashboard-counts".*?</ul>', html, re.S)
    assert found, html[:500]
    return re.findall(r"<li>([^:<]+):", found.group(0))


def test_the_dashboard_counts_swiss_rounds_only_for_an_event_with_a_swiss_stage(
    sections: tuple[UnitOfWorkFactory, dict[str, int]], app: FastAPI
) -> None:
    assert "Swiss round to pair" in _dashboard_counts(app, SLUG)


def test_an_event_without_a_swiss_stage_has_no_swiss_counter(app: FastAPI) -> None:
    from tests.support.factories import running_stage

    factory: UnitOfWorkFactory = app.state.uow_factory
    with factory() as uow:
        running_stage(uow)
        slug = next(iter(uow.read.visible_events())).slug
    counts = _dashboard_counts(app, slug)
    assert counts and "Swiss round to pair" not in counts
