"""Two play-off ticks at once, and two ingestions of the same games at once, on the real PostgreSQL: the
duel and pool row locks serialise them, so they end as one would (one Armageddon per duel, one match per
duel and leg, each result stored once) with nothing logged as an error. Threads with their own units of
work, started together with a ``threading.Barrier``."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections import Counter
from functools import partial
from pathlib import Path

import pytest

from orchestrator.adapters.repo_playoff import PlayoffRepository
from orchestrator.adapters.tables import Armageddon
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.jobs import dispatch
from orchestrator.jobs.scheduler import PlayoffTick
from orchestrator.services.gameserver.ingestion import GameUpdate, IngestReport, ingest_games
from tests.support.concurrency import together
from tests.support.factories import stored_board as board
from tests.support.gameserver_round import RESIGN_WHITE, audit_rows, make_round
from tests.support.playoff_world import level, make_world, tick


class Meeting:
    """Makes the race happen every time: each racing thread's first read of a duel's Armageddon waits
    until the other thread has read it too, so neither writes before both have read. A thread that holds
    the duel's lock while reading (as the step does now) meets nobody: the other waits for the lock, and
    the wait here gives up after a second and goes on (an order, never an assertion)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.original = PlayoffRepository.armageddon_of_duel
        self.barrier = threading.Barrier(2)
        self.met: set[int] = set()
        meeting = self

        def read(repo: PlayoffRepository, duel_id: int) -> Armageddon | None:
            return meeting.read(repo, duel_id)

        monkeypatch.setattr(PlayoffRepository, "armageddon_of_duel", read)

    def reset(self) -> None:
        self.barrier = threading.Barrier(2)
        self.met = set()

    def read(self, repo: PlayoffRepository, duel_id: int) -> Armageddon | None:
        found = self.original(repo, duel_id)
        me = threading.get_ident()
        if threading.current_thread() is not threading.main_thread() and me not in self.met:
            self.met.add(me)
            with contextlib.suppress(threading.BrokenBarrierError):
                self.barrier.wait(timeout=1)
        return found


def test_two_ticks_at_once_leave_one_armageddon_and_one_match_per_leg_on_postgresql(
    pg_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    for world in make_world(tmp_path, url=pg_url, slug="race-ticks-pg"):
        run = partial(tick, world)
        tick(world)
        duel_id = level(world)
        caplog.set_level(logging.WARNING)
        meeting = Meeting(monkeypatch)
        for _ in range(6):
            meeting.reset()
            for done in together(run, run):
                assert isinstance(done, PlayoffTick) and done.errors == []
        assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
        with world.uow_factory() as uow:
            arm = uow.playoff.armageddon_of_duel(duel_id)
            duels = uow.playoff.duels_of_stage(world.knockout)
            matches = uow.playoff.matches_of_duels(d.id for d in duels)
        assert arm is not None and arm.status == "ready"
        legs = Counter((m.duel_id, m.leg) for ms in matches.values() for m in ms)
        assert legs[(duel_id, 3)] == 1 and set(legs.values()) == {1}


def test_two_ingestions_of_the_same_games_at_once_store_each_result_once_on_postgresql(
    uow_factory: UnitOfWorkFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dispatch, "send", lambda name, *ids, countdown=None: None)  # jobs not run here
    boards = 24
    rows = make_round(uow_factory, boards=boards, game_ids=[f"pg{n}" for n in range(boards)], slug="race")
    games = [GameUpdate(f"pg{n}", RESIGN_WHITE) for n in range(boards)]

    def ingest() -> IngestReport:
        with uow_factory() as uow:
            return ingest_games(uow, games=games)

    reports = together(ingest, ingest)
    assert sorted(len(r.changed) for r in reports if isinstance(r, IngestReport)) == [0, boards]
    for board_id in rows.board_ids:
        assert board(uow_factory, board_id).version == 2
        assert len(audit_rows(uow_factory, board_id)) == 1
