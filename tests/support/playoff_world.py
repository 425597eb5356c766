"""The small play-off event (tests/fixtures/events/small-playoff.yaml) with its group stage closed, tasks run
in process, and the play-off tick and duel results driven from the test.

    for world in make_world(tmp_path):             # SQLite in tmp_path, or PostgreSQL with url=
        duel_id = level(world, "I")                # duel I level on match points: an Armageddon is due
        tick(world)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from orchestrator.adapters.tables import (
    Duel,
    Event,
    EventStatus,
    Stage,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.db import make_session_factory, utcnow
from orchestrator.jobs import runtime
from orchestrator.jobs.scheduler import PlayoffTick, run_playoff_tick
from orchestrator.services.playoff.commands import advance_bracket
from tests.support.databases import migrated_engine
from tests.support.factories import REPO_ROOT, make_event, running_stage, stage_id_of, store_final_standings

SMALL_PLAYOFF = (REPO_ROOT / "tests" / "fixtures" / "events" / "small-playoff.yaml").read_text("utf-8")


@dataclass
class World:
    settings: Settings
    uow_factory: UnitOfWorkFactory
    engine: Engine
    knockout: int


def make_world(
    tmp_path: Path, *, url: str | None = None, slug: str | None = None, **overrides: Any
) -> Iterator[World]:
    """The small play-off event with its group stage closed (final standings stored), tasks in process.

    On a SQLite file in ``tmp_path``, or on the database at ``url`` (PostgreSQL; ``slug`` then keeps each
    test's event apart)."""
    values: dict[str, Any] = {
        "data_dir": tmp_path,
        "environment": "test",
        "auto_lot_reveal_delay_s": 0,
        "armageddon_nomination_minutes": 0,
        "armageddon_colour_minutes": 0,
        "gameserver_unequal_clocks": False,
        **overrides,
    }
    settings = Settings(**values)
    engine = migrated_engine(url or settings.sqlalchemy_url)
    factory = make_session_factory(engine)

    def uow_factory() -> UnitOfWork:
        return UnitOfWork(factory)

    runtime.configure(settings, uow_factory=uow_factory)
    with uow_factory() as uow:
        event_id = make_event(uow, SMALL_PLAYOFF, slug=slug)
        group = running_stage(uow, event_id=event_id, stage_key="group")
        store_final_standings(uow, stage_id=group)
        stage = uow.events.get_or_raise(Stage, group)
        stage.status, stage.closed_at = StageStatus.CLOSED.value, utcnow()
        uow.events.insert(stage)
        row = uow.events.get_or_raise(Event, event_id)
        row.status = EventStatus.RUNNING.value
        uow.events.insert(row)
        knockout = stage_id_of(uow, event_id, "playoff")
    try:
        yield World(settings, uow_factory, engine, knockout)
    finally:
        runtime._runtime = None  # configure() in a test must not leak into the next one
        engine.dispose()


def tick(world: World, now: datetime | None = None) -> PlayoffTick:
    return run_playoff_tick(world.uow_factory, now=now or utcnow(), settings=world.settings, actor="worker")


def the_duel(world: World, key: str) -> Duel:
    with world.uow_factory() as uow:
        found = uow.playoff.duel_by_key(world.knockout, key)
        assert found is not None
        return found


def store_results(world: World, key: str, winner: str, *, legs: tuple[int, ...] = (1, 2)) -> None:
    """Every board of duel ``key``'s matches ``legs`` gets a result, stored as ingestion stores it
    (versioned board write) and with no bracket advance: nothing else tells the bracket. ``winner``:
    "white" (White wins every board: 3-3), "first" or "second" (that team of the duel wins every board)."""
    duel = the_duel(world, key)
    with world.uow_factory() as uow:
        for match in uow.playoff.matches_of_duels([duel.id])[duel.id or 0]:
            if match.leg not in legs:
                continue
            for board in uow.boards.boards_of_matches([match.id])[match.id or 0]:
                first_white = (board.board_no % 2 == 1) == (match.first_team_id == duel.first_team_id)
                white_wins = winner == "white" or first_white == (winner == "first")
                uow.boards.update_versioned(
                    board.id or 0,
                    expected_version=board.version,
                    values={"result": "1-0" if white_wins else "0-1"},
                    actor="t",
                )


def level(world: World, key: str = "I") -> int:
    """White wins every board of both matches: 3-3 twice, level on match points. Returns the duel id."""
    store_results(world, key, "white")
    with world.uow_factory() as uow:
        advance_bracket(uow, stage_id=world.knockout, actor="arbiter")  # the arbiter's path: no tick
    assert the_duel(world, key).status == "armageddon"
    return the_duel(world, key).id or 0
