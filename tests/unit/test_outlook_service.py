"""Chances and needs stored after each round and shown on the pages and in the API (services/outlook/,
jobs/chances.py, docs/needs.md)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from types import SimpleNamespace

import pytest
from sqlalchemy import event
from sqlmodel import select

from orchestrator.adapters.tables import Board, Match, Player, Round
from orchestrator.config import Settings
from orchestrator.errors import Conflict
from orchestrator.jobs import chances as chances_job
from orchestrator.jobs.chances import chances_scan
from orchestrator.services.outlook import read as outlook_read
from orchestrator.services.outlook.compute import (
    SWISS_CHANCES_ROUNDS,
    SWISS_MIN_SIMULATIONS,
    SWISS_PAIRINGS,
    SWISS_SIMULATIONS,
    compute_stage_outlook,
    swiss_chances_from,
    swiss_simulations,
)
from orchestrator.services.results import results
from tests.support.factories import EVENT_2020, make_event, running_stage, stage_id_of
from tests.support.notify import notify_event
from tests.support.swiss import pair_and_publish, play_round, running_swiss
from tests.support.web import login

SLUG = "small-test-cup"


def _start(uowf) -> int:
    with uowf() as uow:
        return running_stage(uow)


def _play_round(uowf, stage_id: int, number: int) -> None:
    """White wins every board of round ``number``."""
    with uowf() as uow:
        rnd = uow.session.exec(select(Round).where(Round.stage_id == stage_id, Round.number == number)).one()
        boards = [
            (board.id or 0, board.version)
            for match in uow.session.exec(select(Match).where(Match.round_id == rnd.id)).all()
            for board in uow.session.exec(select(Board).where(Board.match_id == match.id)).all()
        ]
    for board_id, version in boards:
        with uowf() as uow:
            results.record_result(uow, board_id=board_id, result="1-0", expected_version=version, actor="ann")


def test_a_running_pool_stage_gets_chances_and_needs_for_first_place_and_the_qualifying_places(uowf):
    stage_id = _start(uowf)
    with uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=300) == 0
    with uowf() as uow:
        rows = uow.chances.of_stage(stage_id)
        assert sorted({row.places for row in rows}) == [1, 2]  # first place; advance: 2
        assert len(rows) == 8
        assert all(row.chance is not None and 0 <= row.chance <= 10_000 for row in rows)
        assert all(row.status in ("open", "clinched", "eliminated") for row in rows)
        assert all(row.lines for row in rows)
        for k in (1, 2):
            assert sum(row.chance or 0 for row in rows if row.places == k) == pytest.approx(k * 10_000, abs=4)
        # nothing new: the scan leaves it alone
        assert compute_stage_outlook(uow, stage_id=stage_id) is None


def _runtime(uowf, *, min_interval_s: float = 0.0) -> SimpleNamespace:
    """What the chances job reads of its runtime: units of work and the settings."""
    return SimpleNamespace(uow_factory=uowf, settings=Settings(outlook_min_interval_s=min_interval_s))


def test_the_scan_computes_again_once_a_round_is_complete(uowf):
    stage_id = _start(uowf)
    runtime = _runtime(uowf)
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    with uowf() as uow:
        assert {row.after_round for row in uow.chances.of_stage(stage_id)} == {0}
    _play_round(uowf, stage_id, 1)
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    with uowf() as uow:
        rows = uow.chances.of_stage(stage_id)
        assert {row.after_round for row in rows} == {1}
        view = outlook_read.pool_outlook(uow, pool_id=rows[0].pool_id or 0)
    assert view is not None and view.after_round == 1 and view.has_chances and view.has_needs
    assert [p.places for p in view.rows[0].places] == [1, 2]


def test_pages_and_api_show_the_stored_outlook(uowf, client):
    stage_id = _start(uowf)
    with uowf() as uow:
        compute_stage_outlook(uow, stage_id=stage_id, simulations=200)
        row = uow.chances.of_stage(stage_id)[0]
        pool_id, team_id = row.pool_id, row.team_id
        letter = next(p.letter for p in uow.rounds.pools_of_stage(stage_id) if p.id == pool_id)
    page = client.get(f"/events/{SLUG}/stages/group/pools/{letter}")
    assert page.status_code == 200
    assert "Chances and needs" in page.text and "<meter" in page.text
    assert "What each team needs in the last rounds" in page.text
    team_page = client.get(f"/events/{SLUG}/teams/{team_id}")
    assert team_page.status_code == 200 and "Chances and needs" in team_page.text
    api = client.get(f"/api/v1/events/{SLUG}/stages/group/chances")
    assert api.status_code == 200
    body = api.json()
    assert body["places"] == [1, 2] and len(body["rows"]) == 4 and body["has_needs"]
    team = client.get(f"/api/v1/events/{SLUG}/teams/{team_id}/chances")
    assert team.status_code == 200 and [r["team_id"] for r in team.json()["rows"]] == [team_id]


def test_a_stage_not_started_a_knockout_and_an_unknown_stage_are_refused_plainly(uowf, client):
    _start(uowf)
    answer = client.get(f"/api/v1/events/{SLUG}/stages/group/chances")
    assert answer.status_code == 200
    assert answer.json()["note"] == "Not computed yet: chances are computed once a round is complete."
    answer = client.get(f"/api/v1/events/{SLUG}/stages/final/chances")
    assert answer.status_code == 409 and "has not started yet" in answer.text
    assert client.get(f"/api/v1/events/{SLUG}/stages/nowhere/chances").status_code == 404
    with uowf() as uow:
        event_id = make_event(uow, EVENT_2020)
    with uowf() as uow:
        knockout = stage_id_of(uow, event_id, "playoff")
        with pytest.raises(Conflict, match="is a knockout"):
            compute_stage_outlook(uow, stage_id=knockout)
    answer = client.get("/api/v1/events/online-olympiad-2020/stages/playoff/chances")
    assert answer.status_code == 409 and "is a knockout" in answer.text


def test_a_stage_without_ratings_stores_needs_but_no_chances(uowf, client):
    stage_id = _start(uowf)
    with uowf() as uow:
        for player in uow.session.exec(select(Player)).all():
            player.rating = 0  # no rating
    with uowf() as uow:
        compute_stage_outlook(uow, stage_id=stage_id)
        rows = uow.chances.of_stage(stage_id)
        assert rows and all(row.chance is None and row.status is not None for row in rows)
        letter = uow.rounds.pools_of_stage(stage_id)[0].letter
    page = client.get(f"/events/{SLUG}/stages/group/pools/{letter}")
    assert "No chances: the players have no ratings to simulate with." in page.text
    answer = client.get(f"/api/v1/events/{SLUG}/stages/group/chances").json()
    assert answer["note"] == "No chances: the players have no ratings to simulate with."
    assert not answer["has_chances"] and answer["has_needs"]


def _swiss_round(uowf, stage_id: int, number: int) -> None:
    pair_and_publish(uowf, stage_id)
    with uowf() as uow:
        round_id = uow.rounds.rounds_of_stage(stage_id)[number - 1].id or 0
    play_round(uowf, round_id)


def test_a_swiss_stage_gets_chances_of_first_place_and_the_medals_in_its_last_three_rounds(uowf, client):
    with uowf() as uow:
        stage_id = running_swiss(uow)  # five rounds: chances after round 2, with three left
    pair_and_publish(uowf, stage_id)
    with uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) is None  # round 1 under way
        round_id = uow.rounds.rounds_of_stage(stage_id)[0].id or 0
    play_round(uowf, round_id)
    with uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) is None  # four rounds left
        assert uow.chances.of_stage(stage_id) == []
    pending = "Chances appear once round 2 is complete: they are computed for the last 3 rounds."
    page = client.get("/events/swiss-test-cup/stages/open")
    assert page.status_code == 200 and pending in page.text
    answer = client.get("/api/v1/events/swiss-test-cup/stages/open/chances").json()
    assert answer["note"] == pending and answer["rows"] == []
    _swiss_round(uowf, stage_id, 2)
    with uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) == 2
        rows = uow.chances.of_stage(stage_id)
    assert sorted({row.places for row in rows}) == [1, 3]
    assert all(row.chance is not None and row.status is None for row in rows)
    assert sum(row.chance or 0 for row in rows if row.places == 3) == pytest.approx(30_000, abs=7)
    page = client.get("/events/swiss-test-cup/stages/open")
    assert page.status_code == 200 and "Chances and needs" in page.text and pending not in page.text
    assert "What each team needs" not in page.text  # no exact needs in a Swiss stage
    assert client.get("/api/v1/events/swiss-test-cup/stages/open/chances").json()["note"] == ""


def test_the_round_a_swiss_stage_gets_chances_from():
    assert swiss_chances_from(11) == 11 - SWISS_CHANCES_ROUNDS
    assert swiss_chances_from(SWISS_CHANCES_ROUNDS + 1) == 1
    assert swiss_chances_from(SWISS_CHANCES_ROUNDS) == 0
    assert swiss_chances_from(1) == 0


def test_a_swiss_stage_with_many_rounds_left_is_simulated_fewer_times():
    assert swiss_simulations(1) == SWISS_SIMULATIONS
    assert swiss_simulations(2) == SWISS_SIMULATIONS
    assert swiss_simulations(10) == SWISS_PAIRINGS // 10
    assert swiss_simulations(100) == SWISS_MIN_SIMULATIONS
    assert swiss_simulations(0) == SWISS_SIMULATIONS


def test_one_stage_failing_does_not_keep_the_scan_from_the_others(uowf, monkeypatch):
    stage_id = _start(uowf)
    calls: list[int] = []

    def compute(uow, *, stage_id):
        calls.append(stage_id)
        if len(calls) == 1:
            raise RuntimeError("boom")
        if len(calls) == 2:
            raise Conflict("closed meanwhile")
        return 1

    monkeypatch.setattr(chances_job, "due_stage_ids", lambda uow, **_when: [stage_id, stage_id, stage_id])
    monkeypatch.setattr(chances_job, "compute_stage_outlook", compute)
    chances_job.chances_scan(_runtime(uowf), attempt=1)  # type: ignore[arg-type]
    assert calls == [stage_id] * 3


def test_the_captain_sees_the_own_teams_line_only(uowf, app):
    built = notify_event(uowf)
    with uowf() as uow:
        compute_stage_outlook(uow, stage_id=built.stage_id, simulations=100)
    captain, _ = login(app, "cap-nor")
    home = captain.get("/captain")
    assert home.status_code == 200
    assert "Chances and needs" in home.text
    assert '<th scope="row">Norway</th>' in home.text
    assert '<th scope="row">Sweden</th>' not in home.text


def test_a_seed_fits_the_stored_integer_whatever_the_stage_and_pool_ids() -> None:
    from orchestrator.services.outlook.compute import SEED_LIMIT, seed_of

    assert seed_of(7, 3) == 7003  # small ids keep the seeds they always had
    assert seed_of(7, 3, 2) == 7003 + 2 * 7919
    big = seed_of(3_000_000, 11, 5_000_000)  # a database that has copied many events
    assert 0 <= big < SEED_LIMIT <= 2**31 - 1
    assert big == (3_000_000 * 1000 + 11 + 5_000_000 * 7919) % (2**31 - 1)


@contextmanager
def _statements(uowf) -> Iterator[list[str]]:
    """The SQL statements run on the test database inside the block."""
    seen: list[str] = []
    with uowf() as uow:
        engine = uow.session.get_bind().engine

    def record(_conn, _cursor, statement, _parameters, _context, _many) -> None:
        seen.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


def _reads_boards(statements: list[str]) -> bool:
    return any(re.search(r"\b(FROM|JOIN)\s+board\b", sql) for sql in statements)


def test_a_swiss_stage_too_early_for_chances_is_left_from_its_round_counts_without_reading_a_board(uowf):
    with uowf() as uow:
        stage_id = running_swiss(uow)  # five rounds: chances after round 2
    _swiss_round(uowf, stage_id, 1)
    with _statements(uowf) as statements, uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) is None  # four rounds left
    assert statements and not _reads_boards(statements)
    pair_and_publish(uowf, stage_id)  # round 2 under way: nothing to compute either
    with _statements(uowf) as statements, uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) is None
    assert not _reads_boards(statements)
    with uowf() as uow:
        play_round(uowf, uow.rounds.rounds_of_stage(stage_id)[1].id or 0)
    with _statements(uowf) as statements, uowf() as uow:
        assert compute_stage_outlook(uow, stage_id=stage_id, simulations=10) == 2
    assert _reads_boards(statements)  # the check is not blind: computing reads the results


def test_the_scan_computes_one_stage_a_run_the_oldest_first_and_nothing_on_an_idle_tick(uowf):
    with uowf() as uow:
        first = running_stage(uow)
        second = running_stage(uow, event_id=make_event(uow, slug="second-test-cup"))
    runtime = _runtime(uowf)

    def after_rounds() -> dict[int, set[int]]:
        with uowf() as uow:
            return {s: {row.after_round for row in uow.chances.of_stage(s)} for s in (first, second)}

    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    assert after_rounds() == {first: {0}, second: set()}  # one stage per run
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    assert after_rounds() == {first: {0}, second: {0}}
    with _statements(uowf) as statements:
        chances_scan(runtime, attempt=1)  # type: ignore[arg-type]  # nothing settled since: an idle tick
    assert not _reads_boards(statements)
    assert not any(sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")) for sql in statements)
    _play_round(uowf, second, 1)
    _play_round(uowf, first, 1)
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    assert after_rounds() == {first: {1}, second: {0}}  # both settled a round: the older outlook first
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    assert after_rounds() == {first: {1}, second: {1}}


def test_rounds_ending_seconds_apart_are_simulated_once_and_the_last_round_at_once(uowf):
    """``outlook_min_interval_s``: a stage computed less than that long ago waits for a later scan, unless
    its last round is complete (docs/needs.md, "When chances are computed")."""
    stage_id = _start(uowf)
    runtime = _runtime(uowf, min_interval_s=30)

    def after_round() -> set[int]:
        with uowf() as uow:
            return {row.after_round for row in uow.chances.of_stage(stage_id)}

    with uowf() as uow:
        last = max(r.number for r in uow.rounds.rounds_of_stage(stage_id))
    chances_scan(runtime, attempt=1)  # type: ignore[arg-type]
    assert after_round() == {0}  # never computed: at once

    def computed_at() -> datetime:
        with uowf() as uow:
            return max(row.computed_at for row in uow.chances.of_stage(stage_id))

    first = computed_at()
    _play_round(uowf, stage_id, 1)
    chances_scan(runtime, attempt=1, now=first + timedelta(seconds=29))  # type: ignore[arg-type]
    assert after_round() == {0}  # computed 29 s ago: it waits
    chances_scan(runtime, attempt=1, now=first + timedelta(seconds=30))  # type: ignore[arg-type]
    assert after_round() == {1}
    second = computed_at()
    _play_round(uowf, stage_id, 2)
    chances_scan(runtime, attempt=1, now=second + timedelta(seconds=1))  # type: ignore[arg-type]
    assert after_round() == {1}  # a second ago: it waits
    for number in range(3, last + 1):
        _play_round(uowf, stage_id, number)
    chances_scan(runtime, attempt=1, now=second + timedelta(seconds=1))  # type: ignore[arg-type]
    assert after_round() == {last}  # the last round complete: computed however recent the last time
