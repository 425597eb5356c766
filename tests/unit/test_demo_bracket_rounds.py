"""The demo's staff and the play-off's bracket rounds (orchestrator/demo/staff.py
``_schedule_bracket_rounds``, docs/demo.md): with no demo time between rounds (``--minutes 0``, the
benchmarks) each round is timed at first sight and paired once its duels are all known; with demo time it
is held until then."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from random import Random

import pytest

from orchestrator.adapters.tables import Round
from orchestrator.db import utcnow
from orchestrator.demo.plan import DemoPlan
from orchestrator.demo.staff import DemoDriver
from orchestrator.jobs import bodies
from orchestrator.services import queue
from orchestrator.services.playoff.commands import build_bracket
from tests.support.playoff import PlayoffSetup, play_duel, playoff_event
from tests.support.playoff_standin import World, make_world

INSTANT = DemoPlan(round_gap_s=0, speed=0, tick_s=0.1, lead_s=0)
PACED = DemoPlan(round_gap_s=10, speed=60, tick_s=0.5, lead_s=2)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The rounds whose ``rounds.create_games`` was sent (recorded, not run)."""
    sent: list[int] = []
    monkeypatch.setitem(
        bodies.JOBS, queue.CREATE_GAMES, lambda _rt, round_id, *, attempt, seen=sent: seen.append(round_id)
    )
    return sent


def _bracket(world: World) -> tuple[PlayoffSetup, DemoDriver]:
    """The 2020 play-off's bracket built, its first bracket round's duels I-III decided: the
    quarter-finals' rounds exist, duel VIII still waits for duel IV's winner."""
    with world.uow_factory() as uow:
        setup = playoff_event(uow)
    with world.uow_factory() as uow:
        build_bracket(uow, stage_id=setup.playoff_stage_id, actor="arbiter")
    for key in ("I", "II", "III"):
        play_duel(world.uow_factory, setup, key, "WWWWDD", "WWWWDD")
    driver = DemoDriver(
        settings=world.settings,
        plan=INSTANT,
        uow_factory=world.uow_factory,
        event_id=setup.event_id,
        web_url=None,
        rng=Random(1),
    )
    return setup, driver


def _quarter_rounds(world: World, setup: PlayoffSetup) -> list[Round]:
    with world.uow_factory() as uow:
        return [r for r in uow.rounds.rounds_of_stage(setup.playoff_stage_id) if r.number in (3, 4)]


def _staff_tick(world: World, setup: PlayoffSetup, driver: DemoDriver) -> None:
    with world.uow_factory() as uow:
        driver._schedule_bracket_rounds(uow, setup.playoff_stage_id, utcnow())


def test_a_round_timed_before_its_duels_are_known_is_paired_by_a_later_tick_once_they_are(
    world: World, queued: list[int]
) -> None:
    setup, driver = _bracket(world)
    later = utcnow() + timedelta(days=3)
    with world.uow_factory() as uow:  # as the demo's file dates put them: days ahead, not due
        for rnd in uow.rounds.rounds_of_stage(setup.playoff_stage_id):
            if rnd.number in (3, 4):
                rnd.scheduled_at = later
                uow.rounds.insert(rnd)
    queued.clear()
    _staff_tick(world, setup, driver)
    quarters = _quarter_rounds(world, setup)
    assert [r.number for r in quarters] == [3, 4]
    assert all(r.scheduled_at is not None and r.scheduled_at < later for r in quarters)  # timed now
    ids = sorted(r.id or 0 for r in quarters)
    assert [i for i in queued if i in ids] == []  # duel VIII waits for a team (the first round is paired)
    play_duel(world.uow_factory, setup, "IV", "WWWWDD", "WWWWDD")  # the workers complete the quarter-finals
    queued.clear()
    _staff_tick(world, setup, driver)
    assert sorted(queued) == ids  # looked at again, now complete: paired
    _staff_tick(world, setup, driver)
    assert sorted(queued) == ids  # and only once


def test_with_demo_time_between_rounds_a_round_is_held_until_its_duels_are_known(
    world: World, queued: list[int]
) -> None:
    setup, driver = _bracket(world)
    driver.plan = PACED
    _staff_tick(world, setup, driver)
    assert [r.scheduled_at for r in _quarter_rounds(world, setup)] == [None, None]  # held
    play_duel(world.uow_factory, setup, "IV", "WWWWDD", "WWWWDD")
    now = utcnow()
    with world.uow_factory() as uow:
        driver._schedule_bracket_rounds(uow, setup.playoff_stage_id, now)
    assert [r.scheduled_at for r in _quarter_rounds(world, setup)] == [
        now + timedelta(seconds=2),
        now + timedelta(seconds=12),
    ]
