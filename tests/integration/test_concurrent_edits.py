"""Concurrent result entry on the real PostgreSQL: no accepted edit is lost, every one is audited."""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from orchestrator.adapters.tables import Board, Match, Role, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import utcnow
from orchestrator.errors import StaleEdit
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import results
from orchestrator.web.app import create_app
from tests.support.pool_builder import build_pool

PASSWORD = "correct horse battery"
CODES = ("1-0", "½-½", "0-1", "+/-", "-/+", "-/-")
WRITERS = 50


def test_fifty_concurrent_edits_of_one_board_lose_no_accepted_edit(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        built = build_pool(uow, slug=f"conc-{secrets.token_hex(4)}")
    board_id = built.boards[built.match(1, "Norway")][0]
    start = threading.Barrier(WRITERS)
    lock = threading.Lock()
    accepted: list[tuple[str, int]] = []  # (writer, version it produced)
    conflicts = 0
    failures: list[BaseException] = []

    def writer(number: int) -> None:
        nonlocal conflicts
        name = f"arbiter{number}"
        start.wait()
        for _ in range(10 * WRITERS):  # every writer retries after a conflict until its edit is accepted
            with uow_factory() as uow:
                seen = uow.boards.get_or_raise(Board, board_id)
                version, current = seen.version, seen.result
            choice = next(code for code in CODES[number % len(CODES) :] + CODES if code != current)
            try:
                with uow_factory() as uow:
                    state = results.record_result(
                        uow, board_id=board_id, result=choice, expected_version=version, actor=name
                    )
            except StaleEdit:
                with lock:
                    conflicts += 1
                continue
            except BaseException as error:  # reported below; a thread cannot fail the test itself
                failures.append(error)
                return
            with lock:
                accepted.append((name, state.version))
            return

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []

    with uow_factory() as uow:
        final = uow.boards.get_or_raise(Board, board_id)
        trail = list(uow.audit.for_entity("board", board_id))
    print(
        f"\n{WRITERS} writers: {len(accepted)} accepted, {conflicts} conflicts, final version {final.version}"
    )
    assert len(accepted) == WRITERS
    assert len(trail) == len(accepted) == final.version - 1
    assert sorted(v for _, v in accepted) == list(range(2, WRITERS + 2))  # each version produced once
    # the audit trail is one unbroken chain: each entry starts from what the previous one stored
    assert [entry.old["version"] for entry in trail if entry.old] == list(range(1, WRITERS + 1))
    for before, after in itertools.pairwise(trail):
        assert after.old is not None and before.new is not None
        assert after.old["result"] == before.new["result"]
    assert trail[-1].new is not None and trail[-1].new["result"] == final.result
    assert {entry.actor for entry in trail} == {name for name, _ in accepted}


@pytest.fixture
def pg_app(pg_url: str) -> Iterator[FastAPI]:
    app = create_app(Settings(database_url=pg_url, environment="test", login_max_failures=1000))
    with TestClient(app):
        yield app


def test_two_arbiters_on_one_board_the_second_is_told_and_nothing_is_lost(pg_app: FastAPI) -> None:
    tag = secrets.token_hex(4)
    with pg_app.state.uow_factory() as uow:
        built = build_pool(uow, slug=f"two-{tag}")
        for name in ("ann", "bob"):
            create_user(uow, username=f"{name}{tag}", password=PASSWORD, role=Role.ARBITER)
    clients = {}
    for name in ("ann", "bob"):
        client = TestClient(pg_app, follow_redirects=False)
        login = client.post("/api/v1/auth/login", json={"username": f"{name}{tag}", "password": PASSWORD})
        assert login.status_code == 200
        clients[name] = (client, {"X-CSRF-Token": login.json()["csrf_token"]})
    match_id = built.match(1, "Norway")
    board_id = built.boards[match_id][2]
    (ann, ann_h), (bob, bob_h) = clients["ann"], clients["bob"]
    # both open the page and read version 1
    for client in (ann, bob):
        boards = client.get(f"/api/v1/matches/{match_id}/results").json()["boards"]
        assert boards[2]["version"] == 1
    first = ann.put(
        f"/api/v1/boards/{board_id}/result", json={"result": "1-0", "expected_version": 1}, headers=ann_h
    )
    assert first.status_code == 200
    second = bob.put(
        f"/api/v1/boards/{board_id}/result", json={"result": "0-1", "expected_version": 1}, headers=bob_h
    )
    assert second.status_code == 409
    assert "changed by someone else" in second.json()["detail"]
    current = second.json()["current"][0]
    assert (current["value"], current["changed_by"], current["version"]) == ("1-0", f"ann{tag}", 2)
    # Bob chooses again from the stored version: now it is saved, and Ann's result is in the audit log
    again = bob.put(
        f"/api/v1/boards/{board_id}/result", json={"result": "0-1", "expected_version": 2}, headers=bob_h
    )
    assert again.status_code == 200 and again.json()["version"] == 3
    trail = ann.get(f"/api/v1/events/{built.event_slug}/audit", params={"match_id": match_id}).json()
    assert [(e["actor"], e["old"]["result"], e["new"]["result"]) for e in reversed(trail)] == [
        (f"ann{tag}", "*", "1-0"),
        (f"bob{tag}", "1-0", "0-1"),
    ]


def test_an_arbiter_closing_a_round_and_a_worker_settling_it_wait_for_each_other(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """The deadlock CI once hit in the every-fault run: a worker settling a round (round locked, then its
    matches written) while an arbiter enters the round's last result (pool locked, match written, then the
    round). Every writer now takes pool, then round, then match: the arbiter waits, nothing is aborted."""
    with uow_factory() as uow:
        built = build_pool(uow, slug=f"order-{secrets.token_hex(4)}")
        norway = built.match(1, "Norway")
        round_id = uow.rounds.get_or_raise(Match, norway).round_id
        round_matches = [m for (rnd, _, _), m in built.matches.items() if rnd == 1]
        last = built.boards[norway][-1]
        for match_id in round_matches:
            for board_id in built.boards[match_id]:
                if board_id != last:
                    results.record_result(
                        uow, board_id=board_id, result="1-0", expected_version=1, actor="setup"
                    )
    worker_holds_round = threading.Event()
    arbiter_started = threading.Event()
    failures: list[BaseException] = []

    def worker() -> None:  # the order of gameserver.settle_round: the round, then its matches
        try:
            with uow_factory() as uow:
                uow.locks.lock(Round, round_id)
                worker_holds_round.set()
                arbiter_started.wait(10)
                time.sleep(1.5)  # longer than PostgreSQL's deadlock_timeout (1 s): a cycle is found by then
                uow.rounds.finish_matches([norway], utcnow())
        except BaseException as error:  # reported below
            failures.append(error)

    def arbiter() -> None:
        worker_holds_round.wait(10)
        arbiter_started.set()
        try:
            with uow_factory() as uow:
                results.record_result(uow, board_id=last, result="½-½", expected_version=1, actor="arbiter")
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=worker), threading.Thread(target=arbiter)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert failures == []
    with uow_factory() as uow:
        assert uow.rounds.get_or_raise(Round, round_id).status == RoundStatus.FINISHED.value
        assert uow.boards.get_or_raise(Board, last).result == "½-½"
