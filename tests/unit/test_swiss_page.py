"""The public page of a Swiss stage (templates/public/swiss.html, services/read/swiss.py) and its JSON twin:
the standings after each complete round (one table per address, ``?after=N``) with every tie-break of
olympiad-2026, each published round's pairings (one round per address, ``?round=N``) with colours and match
links (a draft stays staff-only), what is going on in words, and each team's path on its team page and in
the team's JSON. Expected values come from the fixture's results (tests/support/swiss.py)
and the same stage kept in the pure domain."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from fastapi import FastAPI

from orchestrator.adapters.tables import EventStatus
from orchestrator.db import utcnow
from orchestrator.domain.swiss.simulate import swiss_standings
from orchestrator.domain.tiebreaks import parse_chain
from orchestrator.services.setup.stage_start import start_stage
from orchestrator.services.swiss import entries
from orchestrator.services.swiss import rounds as swiss_rounds
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import (
    ACTOR,
    SWISS_EVENT,
    SWISS_THEN_FINAL,
    Mirror,
    pair_and_publish,
    pair_publish_play,
    play_round,
    running_swiss,
)
from tests.support.web import login

SLUG = "swiss-test-cup"
PAGE = f"/events/{SLUG}/stages/open"
JSON = f"/api/v1/events/{SLUG}/stages/open/swiss"
CHAIN = parse_chain(["olympiad-2026"])


@pytest.fixture
def stage_id(app: FastAPI) -> int:
    with app.state.uow_factory() as uow:
        return running_swiss(uow)


def _standings_rows(body: dict, after: int) -> list[tuple[int, str, dict[str, str]]]:
    """(rank, team, values) in rank order; teams sharing a place by name (their order is no ranking)."""
    table = next(s for s in body["standings_after"] if s["round"] == after)
    return sorted(
        (line["rank"], line["team"]["name"], {v["code"]: v["exact"] for v in line["values"]})
        for line in table["standings"]
    )


def _domain_rows(mirror_state) -> list[tuple[int, str, dict[str, str]]]:  # type: ignore[no-untyped-def]
    rows = swiss_standings(mirror_state, CHAIN).rows
    return sorted(
        (r.rank, r.team, {code: f"{v.numerator}/{v.denominator}" for code, v in r.values.items()})
        for r in rows
    )


def test_standings_after_each_round_match_the_domain_and_show_every_tiebreak(
    app: FastAPI, stage_id: int
) -> None:
    factory = app.state.uow_factory
    mirror = Mirror()
    first = pair_publish_play(factory, stage_id, mirror)
    after_one = mirror.state
    pair_publish_play(factory, stage_id, mirror)
    client, _ = login(app, None)
    body = client.get(JSON).json()
    assert body["complete_rounds"] == [1, 2] and body["after"] == 2
    older_body = client.get(f"{JSON}?after=1").json()
    assert _standings_rows(older_body, 1) == _domain_rows(after_one)
    assert _standings_rows(body, 2) == _domain_rows(mirror.state)
    # The bye of round 1 by hand: a drawn match's points (1 MP) and half of four boards' points (2 GP).
    bye_line = next(
        line for line in older_body["standings_after"][0]["standings"] if line["team"]["name"] == first.bye
    )
    assert {v["code"]: v["exact"] for v in bye_line["values"]}["MP"] == "1/1"
    assert bye_line["gp_half"] == 4  # 2 game points
    # Every column of olympiad-2026 is a column of the page's table, headed as the JSON names it.
    page = client.get(PAGE)
    assert page.status_code == 200
    heads = re.findall(r'<th scope="col" class="num(?: key)?">([^<]+)</th>', page.text)
    shorts = [c["short"] for c in body["pool"]["chain"]]
    assert len(shorts) == 4 and all(short in heads for short in shorts)  # MP, TB1, TB2, TB3
    assert "Standings after round 2" in page.text and f'href="{PAGE}?after=1"' in page.text
    older = client.get(f"{PAGE}?after=1")
    assert "Standings after round 1" in older.text and f'href="{PAGE}?after=2"' in older.text
    for bad in ("3", "0", "x", "99999999"):
        refused = client.get(f"{PAGE}?after={bad}")
        assert refused.status_code == 422 and "complete rounds: 1, 2" in refused.text


def test_shared_places_are_shown_as_such(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    pair_publish_play(factory, stage_id)
    pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    body = client.get(JSON).json()
    ranks = [line["rank"] for line in body["standings_after"][0]["standings"]]
    shared = [r for r in set(ranks) if ranks.count(r) > 1]
    assert shared  # the fixture's results leave two teams level after round 2 (India and Azerbaijan)
    page = client.get(PAGE).text
    # Each team that shares the place of the team above reads "tied" (the rank is not repeated as a new one).
    tied_rows = sum(ranks.count(r) - 1 for r in shared)
    assert page.count('<span class="sep-tied">tied</span>') == tied_rows
    lines = body["standings_after"][0]["standings"]
    assert [line["tied_with_previous"] for line in lines] == [
        i > 0 and ranks[i] == ranks[i - 1] for i in range(len(ranks))
    ]


def test_round_pairings_colours_and_the_path_of_a_team(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    first = pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    body = client.get(JSON).json()
    table_1 = body["pool"]["rounds"][0]["matches"][0]
    # Round 1, table 1 by hand (tests/support/swiss.py board_result: CYCLE[(3 + 2 + n) % 4] for board n):
    # board 1 Black wins, board 2 White wins, board 3 White wins, board 4 draw. The first-named team has
    # White on boards 1 and 3: 0 + 0 + 1 + ½ = 1½; the second team 1 + 1 + 0 + ½ = 2½, so it wins (2 MP).
    assert (table_1["first_half"], table_1["second_half"]) == (3, 5)
    page = client.get(PAGE).text
    assert f'href="/events/{SLUG}/matches/{table_1["id"]}"' in page and "1½–2½" in page
    assert "White on the odd boards" in page and "Bye: " in page and first.bye in page
    live = re.search(r'data-live-src="([^"]+)"', page)  # live.js follows the stage and the pool only
    assert (
        live is not None
        and "topic=pool%3A" in live.group(1)
        and f"topic=stage%3A{stage_id}" in live.group(1)
        and "match%3A" not in live.group(1)
    )
    assert page.count('aria-label="White"') == 3 and page.count('aria-label="Black"') == 3  # 3 tables
    assert "paths" not in body  # each team's path is in the team's JSON, not the stage's
    team_json = client.get(f"/api/v1/events/{SLUG}/teams/{table_1['second']['id']}").json()
    step = team_json["swiss"][0]["steps"][0]
    assert (step["kind"], step["colour"], step["own_half"], step["other_half"], step["mp_after"]) == (
        "match",
        "black",
        5,
        3,
        2,
    )
    assert body["rounds"][0]["bye"]["name"] == first.bye
    bye_team = client.get(f"/api/v1/events/{SLUG}/teams/{body['rounds'][0]['bye']['id']}").json()
    bye_step = bye_team["swiss"][0]["steps"][0]
    assert bye_step["kind"] == "bye" and bye_step["mp_after"] == 1
    team_page = client.get(f"/events/{SLUG}/teams/{table_1['second']['id']}")
    assert team_page.status_code == 200 and "Open: round by round" in team_page.text
    assert f'href="/events/{SLUG}/stages/open"' in team_page.text and "/pools/" not in team_page.text


def test_a_draft_is_not_public_and_the_page_says_what_is_going_on(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    client, _ = login(app, None)
    assert "Round 1 of 5 is not paired yet." in client.get(PAGE).text
    first = pair_publish_play(factory, stage_id)
    with factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor=ACTOR)
    page = client.get(PAGE).text
    assert "Round 1 of 5 is complete; round 2 is not paired yet." in page
    event = client.get(f"/events/{SLUG}").text  # "Now": the next round, whatever its pairing's state
    assert re.search(r'Open</a>:\s*Round 2 of 5 starts <time datetime="2030-09-17T15:00:00', event)
    body = client.get(JSON).json()
    assert body["pool"]["rounds"][1]["status"] == "unpaired" and body["rounds"][1]["status"] == "unpaired"
    assert len(set(re.findall(rf"/events/{SLUG}/matches/(\d+)", page))) == len(first.pairings)
    assert "draft" not in page.lower() and draft.pairings  # the draft exists, and is not shown
    with factory() as uow:
        second = swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor=ACTOR)
    assert "Round 2 of 5 is paired" in client.get(PAGE).text
    play_round(factory, second.round_id, leave=[(1, 4)])
    assert "Round 2 of 5 is being played." in client.get(PAGE).text


def test_an_early_end_is_said_and_the_event_page_links_the_stage(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    client, _ = login(app, None)
    event = client.get(f"/events/{SLUG}").text
    assert f'href="{PAGE}"' in event and "Team Swiss (FIDE C.04.6)" in event and "The bracket" not in event
    pair_publish_play(factory, stage_id)
    pair_publish_play(factory, stage_id)
    pair_and_publish(factory, stage_id)
    with factory() as uow:
        later = utcnow() + timedelta(hours=1)  # the appeal windows of round 2 have passed
        closed = entries.end_swiss_early(uow, stage_id=stage_id, reason="storm", actor=ACTOR, now=later)
    closed.raise_refusal()
    page = client.get(PAGE).text
    assert "Ended early after round 2 (rounds 3, 4, 5 cancelled): the stage has 2 rounds" in page
    assert f'href="{PAGE}?round=3"' in page  # a cancelled round is a tab too, which says so
    assert "Not played: the stage ended early." in client.get(f"{PAGE}?round=3").text
    body = client.get(JSON).json()
    assert body["ended_early"] is True and body["complete_rounds"] == [1, 2]


def test_a_stage_not_started_has_no_page_and_no_link(app: FastAPI) -> None:
    with app.state.uow_factory() as uow:
        make_event(uow, SWISS_EVENT)
        event_row = uow.events.get_by_slug(SLUG)
        assert event_row is not None
        event_row.status = EventStatus.PUBLISHED.value  # as pool_draft does when it publishes
        uow.session.add(event_row)
    client, _ = login(app, None)
    event = client.get(f"/events/{SLUG}").text
    assert f'href="{PAGE}"' not in event and "round 1 is paired when the stage starts" in event
    missing = client.get(PAGE)
    assert missing.status_code == 404 and "has not started yet" in missing.text


def test_the_path_shows_an_absence_and_a_withdrawal(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    first = pair_publish_play(factory, stage_id)
    away, leaver = first.pairings[0].first_id, first.pairings[1].second_id
    with factory() as uow:
        entries.mark_absent(uow, stage_id=stage_id, team_id=away, round_no=2, reason="visa", actor=ACTOR)
        entries.withdraw_team(uow, stage_id=stage_id, team_id=leaver, reason="illness", actor=ACTOR)
    pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    body = client.get(JSON).json()
    tables = client.get(f"{JSON}?after=1").json()["standings_after"]
    after_one = {line["team"]["id"]: line["mp"] for line in tables[0]["standings"]}
    # Absent or withdrawn: no match in round 2, no match points for it; the total carries over.
    for team, kind in ((away, "absent"), (leaver, "withdrawn")):
        step = client.get(f"/api/v1/events/{SLUG}/teams/{team}").json()["swiss"][0]["steps"][1]
        assert (step["round"], step["kind"], step["mp"], step["mp_after"]) == (2, kind, 0, after_one[team])
    assert body["rounds"][1]["absent"] == [{"id": away, "name": first.pairings[0].first}]
    team_page = client.get(f"/events/{SLUG}/teams/{away}").text
    assert "Absent: not paired" in team_page
    standings = client.get(PAGE).text
    marked = f'{first.pairings[1].second}</a> <span class="withdrawn">withdrawn in round 2</span>'
    assert marked in standings


def test_teams_sharing_a_place_are_listed_by_name(app: FastAPI, stage_id: int) -> None:
    factory = app.state.uow_factory
    pair_publish_play(factory, stage_id)
    pair_publish_play(factory, stage_id)
    client, _ = login(app, None)
    lines = client.get(JSON).json()["standings_after"][0]["standings"]
    page = client.get(PAGE).text
    table = page[page.index('id="standings"') : page.index('class="legend"')]
    groups: dict[int, list[str]] = {}
    for line in lines:
        groups.setdefault(line["rank"], []).append(line["team"]["name"])
    shared = [names for names in groups.values() if len(names) > 1]
    # After round 2 India (team id 5) and Azerbaijan (id 7) share a place: by name, Azerbaijan first.
    assert ["Azerbaijan", "India"] in shared
    for names in shared:
        assert names == sorted(names)
        assert table.index(f" {names[0]}</a>") < table.index(f" {names[1]}</a>")


def test_a_swiss_feeding_a_knockout_marks_its_qualifying_places_with_a_legend(app: FastAPI) -> None:
    factory = app.state.uow_factory
    with factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, SWISS_THEN_FINAL), "open")
        start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    mirror = Mirror()
    pair_publish_play(factory, stage_id, mirror)
    client, _ = login(app, None)
    lines = client.get(JSON).json()["standings_after"][0]["standings"]
    # The final takes the top 2 ({from: open, top: 2}): the teams the domain ranks 1st or 2nd (a team
    # sharing 2nd place with another is marked too, as on a pool page).
    expected = {row.team for row in swiss_standings(mirror.state, CHAIN).rows if row.rank <= 2}
    assert {line["team"]["name"] for line in lines if line["qualifies"]} == expected
    page = client.get(PAGE).text
    assert '<span class="q">Q</span> top 2, go on to Final.' in page  # the legend says it in words
    table = page[page.index('id="standings"') : page.index('class="legend"')]
    assert table.count('<span class="q">Q</span>') == len(expected)


def test_a_swiss_no_stage_takes_from_marks_no_place(app: FastAPI, stage_id: int) -> None:
    pair_publish_play(app.state.uow_factory, stage_id)
    client, _ = login(app, None)
    lines = client.get(JSON).json()["standings_after"][0]["standings"]
    assert not any(line["qualifies"] for line in lines)
    page = client.get(PAGE).text
    assert "go on to" not in page and '<span class="q"' not in page
