"""Game-server use cases against httpx.MockTransport: bulk creation, rejections, retries, pulls, dispatch."""

from __future__ import annotations

import json
import secrets
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlmodel import select

from orchestrator.adapters.tables import (
    AuditLog,
    Board,
    Event,
    EventStatus,
    GameserverBulk,
    LinkStatus,
    Player,
    PlayerLink,
    Round,
)
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.jobs import bodies, runtime
from orchestrator.services import queue
from orchestrator.services.gameserver import gameserver
from orchestrator.services.gameserver.player_links import decrypt_token, store_link
from orchestrator.services.read import matches
from orchestrator.services.results import results, withdrawals
from tests.support.gameserver_fake import FakeServer, create_games, link_accounts
from tests.support.gameserver_round import RoundRows, make_round
from tests.support.pool_builder import BuiltPool, build_pool

KEY = Fernet.generate_key().decode()


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path, token_encryption_key=KEY, gameserver_url="http://gs.test")  # type: ignore[arg-type]


def link_players(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, rows: RoundRows
) -> None:
    link_accounts(uow_factory, settings, server, rows.player_ids)


def create(
    uow_factory: UnitOfWorkFactory, settings: Settings, server: FakeServer, rows: RoundRows, attempt: int = 1
):
    return create_games(uow_factory, settings, server, rows.round_id, attempt)


def boards(uow_factory: UnitOfWorkFactory, rows: RoundRows) -> list[Board]:
    with uow_factory() as uow:
        found = [uow.boards.get_or_raise(Board, b) for b in rows.board_ids]
        for b in found:
            uow.session.expunge(b)
        return found


def bulk_record(uow_factory: UnitOfWorkFactory, rows: RoundRows) -> GameserverBulk:
    with uow_factory() as uow:
        record = uow.rounds.bulk_of_round(rows.round_id)
        assert record is not None
        uow.session.expunge(record)
        return record


def status_500(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, text="oops")


def html_429(request: httpx.Request) -> httpx.Response:
    return httpx.Response(429, text="<html>Too many</html>", headers={"content-type": "text/html"})


# ---------------------------------------------------------------- creating games


def test_a_round_gets_one_bulk_and_every_board_its_game_id(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory, boards=4)
    link_players(uow_factory, settings, server, rows)
    outcome = create(uow_factory, settings, server, rows)
    assert (outcome.status, outcome.games, outcome.bulk_id) == ("created", 4, "bulk0")
    stored = boards(uow_factory, rows)
    assert [b.game_id for b in stored] == ["g0x000", "g0x001", "g0x002", "g0x003"]
    assert stored[0].game_url == "http://gs.test/g0x000"
    assert (bulk_record(uow_factory, rows).status, bulk_record(uow_factory, rows).bulk_id) == (
        "created",
        "bulk0",
    )
    with uow_factory() as uow:
        assert uow.rounds.get_or_raise(Round, rows.round_id).status == "paired"


def test_on_lichess_a_boards_watch_link_is_the_game_address(uow_factory, settings, sent):
    lichess = settings.model_copy(update={"gameserver_url": "https://lichess.org/"})
    server = FakeServer()
    rows = make_round(uow_factory, boards=2)
    link_players(uow_factory, lichess, server, rows)
    assert create(uow_factory, lichess, server, rows).status == "created"
    stored = boards(uow_factory, rows)
    assert [b.game_url for b in stored] == [f"https://lichess.org/{b.game_id}" for b in stored]
    with uow_factory() as uow:
        event = uow.events.get_or_raise(Event, rows.event_id)
        event.status = EventStatus.RUNNING.value  # shown to spectators
        uow.events.insert(event)
    with uow_factory() as uow:  # what the match page links as "Watch game"
        view = matches.match_view(uow, slug="ev", match_id=rows.match_id)
    linked = [b.game_url for b in view.boards if b.game_url]
    assert linked == ["https://lichess.org/g0x000", "https://lichess.org/g0x001"]


def test_creating_a_paired_round_again_asks_the_server_nothing(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory)
    link_players(uow_factory, settings, server, rows)
    create(uow_factory, settings, server, rows)
    before = len(server.requests)
    assert create(uow_factory, settings, server, rows).status == "already"
    assert len(server.requests) == before and len(server.bulks) == 1


def test_a_bulk_whose_answer_was_lost_is_found_again_and_never_created_twice(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory, starts_in=timedelta(minutes=5))

    def created_then_lost(request: httpx.Request) -> httpx.Response | None:
        server._create(request)  # the server did create it ...
        return httpx.Response(502, text="bad gateway")  # ... but the answer never arrived

    link_players(uow_factory, settings, server, rows)
    server.faults = [lambda r: None, created_then_lost]  # list_bulks answers, then the create is lost
    first = create(uow_factory, settings, server, rows)
    assert first.status == "retry" and first.retry_in == 5.0
    assert bulk_record(uow_factory, rows).status == "failed"
    second = create(uow_factory, settings, server, rows, attempt=2)
    assert (second.status, second.bulk_id) == ("created", "bulk0")
    assert len(server.bulks) == 1 and server.requests.count("POST /api/bulk-pairing") == 1


def scheduled_pool_round(uow_factory: UnitOfWorkFactory, round_no: int) -> tuple[BuiltPool, int]:
    """build_pool's four teams with round ``round_no`` not yet paired (starting in a minute)."""
    with uow_factory() as uow:
        built = build_pool(uow, boards=2)
        rnd = uow.session.exec(
            select(Round).where(Round.stage_id == built.stage_id, Round.number == round_no)
        ).one()
        rnd.status, rnd.scheduled_at = "scheduled", utcnow() + timedelta(minutes=1)
        uow.rounds.insert(rnd)
        return built, rnd.id or 0


@pytest.mark.parametrize("how", ["forfeit", "withdrawal"])
def test_a_match_forfeited_whole_gets_no_game_and_the_rest_of_its_round_is_paired(
    uow_factory, settings, sent, how
):
    server = FakeServer()
    built, round_id = scheduled_pool_round(uow_factory, 2)
    link_accounts(uow_factory, settings, server, built.players.values())
    absent = built.match(2, "Norway")
    with uow_factory() as uow:
        if how == "forfeit":
            results.set_match_forfeit(uow, match_id=absent, forfeit="+-", actor="ann", reason="no show")
        else:
            withdrawals.withdraw_from_pool_stage(
                uow, stage_id=built.stage_id, team_id=built.teams["Norway"], reason="gone", actor="ann"
            )
    outcome = create_games(uow_factory, settings, server, round_id)
    other = next(m for (r, a, b), m in built.matches.items() if r == 2 and m != absent)
    with uow_factory() as uow:
        by_match = {
            m: [uow.boards.get_or_raise(Board, b).game_id for b in built.boards[m]] for m in (absent, other)
        }
    assert (outcome.status, outcome.games) == ("created", 2)
    assert by_match[absent] == [None, None] and all(by_match[other])


def test_a_refused_token_rejects_the_bulk_and_names_the_player_who_must_relink(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory)
    link_players(uow_factory, settings, server, rows)
    with uow_factory() as uow:
        victim = uow.teams.get_or_raise(Player, rows.player_ids[0])
        victim_name, victim_account = victim.name, victim.account
    server.refuse.add(victim_account)
    outcome = create(uow_factory, settings, server, rows)
    record = bulk_record(uow_factory, rows)
    assert outcome.status == "rejected" and record.status == "rejected"
    assert record.error is not None and victim_account in record.error and "re-link" in record.error
    assert "lio_" not in record.error  # never a token
    with uow_factory() as uow:
        link = uow.teams.link_of_player(rows.player_ids[0])
        assert link is not None and link.status == LinkStatus.REFUSED.value
        assert uow.rounds.get_or_raise(Round, rows.round_id).status == "scheduled"
        audit = uow.session.exec(select(AuditLog).where(AuditLog.action == "player.link.refused")).all()
        assert [a.entity_id for a in audit] == [rows.player_ids[0]]
    assert victim_name


def test_a_player_without_a_link_is_named_and_nothing_is_sent(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory)
    link_players(uow_factory, settings, server, rows)
    with uow_factory() as uow:
        link = uow.teams.link_of_player(rows.player_ids[1])
        assert link is not None
        uow.session.delete(link)
        account = uow.teams.get_or_raise(Player, rows.player_ids[1]).account
    outcome = create(uow_factory, settings, server, rows)
    assert outcome.status == "rejected" and outcome.error and account in outcome.error
    assert "link missing" in (bulk_record(uow_factory, rows).error or "") and server.requests == []


def test_a_rate_limited_bulk_waits_at_least_a_minute_times_the_retry_scale(uow_factory, settings, sent):
    server = FakeServer()
    rows = make_round(uow_factory)
    link_players(uow_factory, settings, server, rows)
    server.faults = [html_429]
    assert create(uow_factory, settings, server, rows).retry_in == 60.0
    server.faults = [html_429]
    scaled = settings.model_copy(update={"gameserver_retry_scale": 0.01})
    assert create(uow_factory, scaled, server, rows, attempt=2).retry_in == pytest.approx(1.2)
    assert bulk_record(uow_factory, rows).status == "failed" and server.bulks == []


def test_a_production_retry_scale_below_one_is_refused():
    with pytest.raises(ValueError, match="429"):
        Settings(
            environment="production",
            secret_key="x" * 32,  # type: ignore[arg-type]
            token_encryption_key=KEY,  # type: ignore[arg-type]
            public_base_url="https://olympiad.example.org",
            gameserver_retry_scale=0.5,
        )


# ---------------------------------------------------------------- pulling results


def paired_round(uow_factory, settings, server, sent) -> RoundRows:  # type: ignore[no-untyped-def]
    rows = make_round(uow_factory)
    link_players(uow_factory, settings, server, rows)
    create(uow_factory, settings, server, rows)
    return rows


def pull(uow_factory, settings, server, rows, attempt: int = 1):  # type: ignore[no-untyped-def]
    with server.client() as client, uow_factory() as uow:
        return gameserver.pull_round_results(
            uow, round_id=rows.round_id, client=client, settings=settings, attempt=attempt, actor="worker"
        )


def test_a_server_error_during_a_pull_changes_nothing_and_asks_for_a_retry(uow_factory, settings, sent):
    server = FakeServer()
    rows = paired_round(uow_factory, settings, server, sent)
    server.finish("g0x000", "resign", "white")
    server.faults = [status_500]
    outcome = pull(uow_factory, settings, server, rows)
    assert outcome.retry_in == 5.0 and [b.result for b in boards(uow_factory, rows)] == ["*", "*"]


def test_a_pull_the_server_answered_stamps_the_round_and_a_failed_one_does_not(uow_factory, settings, sent):
    server = FakeServer()
    rows = paired_round(uow_factory, settings, server, sent)
    server.faults = [status_500]
    pull(uow_factory, settings, server, rows)
    with uow_factory() as uow:
        assert uow.rounds.get_or_raise(Round, rows.round_id).last_pull_at is None
    before = utcnow()
    pull(uow_factory, settings, server, rows)
    with uow_factory() as uow:
        stamped = uow.rounds.get_or_raise(Round, rows.round_id).last_pull_at
    assert stamped is not None and stamped >= before  # the staff dashboard's "last pull" age


def test_a_truncated_export_line_is_asked_for_again_and_counted_once(uow_factory, settings, sent):
    server = FakeServer()
    rows = paired_round(uow_factory, settings, server, sent)
    server.finish("g0x000", "resign", "white")
    server.finish("g0x001", "draw")

    def truncated(request: httpx.Request) -> httpx.Response:
        body = json.dumps(server.games["g0x000"]) + "\n" + json.dumps(server.games["g0x001"])[:20]
        return httpx.Response(200, text=body, headers={"content-type": "application/x-ndjson"})

    server.faults = [truncated]
    first = pull(uow_factory, settings, server, rows)
    assert first.missing == ["g0x001"] and first.retry_in is not None and not first.round_finished
    second = pull(uow_factory, settings, server, rows, attempt=2)
    assert second.round_finished and second.retry_in is None
    assert [b.result for b in boards(uow_factory, rows)] == ["1-0", "½-½"]
    assert pull(uow_factory, settings, server, rows).asked == 0  # a finished round is not asked again
    with uow_factory() as uow:
        audit = uow.session.exec(select(AuditLog).where(AuditLog.entity == "board")).all()
    assert len(audit) == 2
    assert ("stages.advance", (rows.stage_id,)) in sent


def test_reconciliation_queues_a_pull_for_every_open_round(uow_factory, settings, sent):
    server = FakeServer()
    rows = paired_round(uow_factory, settings, server, sent)
    with uow_factory() as uow:
        result = gameserver.reconcile_open_games(uow, now=utcnow(), settings=settings)
    assert result.pulled_rounds == (rows.round_id,) and ("results.pull_round", (rows.round_id,)) in sent


def test_due_rounds_are_opened_within_the_pairing_lead_only(uow_factory, settings, sent):
    soon = make_round(uow_factory, starts_in=timedelta(minutes=1), slug="a")
    later = make_round(uow_factory, starts_in=timedelta(hours=2), slug="b")
    with uow_factory() as uow:
        opened = gameserver.open_due_rounds(uow, now=utcnow(), settings=settings)
    assert opened == [soon.round_id] and later.round_id not in opened
    assert sent == [("rounds.create_games", (soon.round_id,))]


# ---------------------------------------------------------------- dispatch and tokens


def test_eager_dispatch_runs_the_job_after_the_commit_and_never_after_a_rollback(
    uow_factory, settings, monkeypatch
):
    ran: list[tuple[int, ...]] = []
    monkeypatch.setitem(bodies.JOBS, queue.RECOMPUTE_POOL, lambda rt, *ids, attempt: ran.append(ids))
    runtime.configure(settings.model_copy(update={"task_mode": "eager"}), uow_factory=uow_factory)
    with uow_factory() as uow:
        queue.enqueue(uow, queue.RECOMPUTE_POOL, 7)
        assert ran == []  # not before the commit
    assert ran == [(7,)]
    with pytest.raises(RuntimeError), uow_factory() as uow:
        queue.enqueue(uow, queue.RECOMPUTE_POOL, 8)
        raise RuntimeError("rolled back")
    assert ran == [(7,)]


def test_celery_dispatch_sends_the_named_task_with_ids_only(uow_factory, settings, monkeypatch):
    from workers.app import celery_app

    calls: list[tuple[str, list[int], float | None, str]] = []
    monkeypatch.setattr(
        celery_app,
        "send_task",
        lambda name, args, countdown=None, queue="": calls.append((name, args, countdown, queue)),
    )
    worker_queue = f"unit-{secrets.token_hex(4)}"  # a queue of its own: no job mark left by an earlier run
    update = {"task_mode": "celery", "worker_queue": worker_queue}
    runtime.configure(settings.model_copy(update=update), uow_factory=uow_factory)
    with uow_factory() as uow:
        queue.enqueue(uow, queue.PULL_ROUND, 3)
    assert calls == [("results.pull_round", [3], None, worker_queue)]
    with pytest.raises(ValueError), uow_factory() as uow:
        queue.enqueue(uow, "no.such.task", 1)
    with pytest.raises(TypeError), uow_factory() as uow:
        queue.enqueue(uow, queue.PULL_ROUND, "3")  # type: ignore[arg-type]


def test_player_tokens_are_stored_encrypted_and_read_back(uow_factory, settings, sent):
    rows = make_round(uow_factory)
    with uow_factory() as uow:
        store_link(
            uow,
            player_id=rows.player_ids[0],
            account="Someone",
            token="lio_secret",
            settings=settings,
            actor="t",
        )
    with uow_factory() as uow:
        link = uow.session.exec(select(PlayerLink)).one()
        assert link.token_encrypted and "lio_secret" not in link.token_encrypted
        assert decrypt_token(settings, link.token_encrypted).get_secret_value() == "lio_secret"
        assert link.linked_account == "someone" and link.status == "linked"
        audit = uow.session.exec(select(AuditLog).where(AuditLog.action == "player.link")).one()
        assert "lio_secret" not in json.dumps([audit.old, audit.new, audit.reason])


def test_a_late_rounds_games_read_the_organisers_bulk_list_once(uow_factory, settings, sent):
    """A round paired after its start (no pairAt) first looks for a bulk an earlier, lost run may have
    made: the organiser's list, read once for both looks (the scheduled bulk and the lost one), then the
    players' games since the round fell due."""
    server = FakeServer()
    rows = make_round(uow_factory, starts_in=timedelta(minutes=-5))
    link_players(uow_factory, settings, server, rows)
    assert create(uow_factory, settings, server, rows).status == "created"
    assert server.requests.count("GET /api/bulk-pairing") == 1
    assert server.requests.count("POST /api/bulk-pairing") == 1
