"""The demo's Swiss desk with a stage the workers publish (orchestrator/demo/swiss.py): the start times every
round in demo time in its own transaction and queues round 1's publication, the desk pairs nothing itself,
and a replay seed draws the same initial colour every run."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from orchestrator.adapters.tables import Round, RoundStatus, StageStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.db import make_session_factory, utcnow
from orchestrator.demo.plan import DemoPlan
from orchestrator.demo.swiss import SwissDesk
from orchestrator.services.queue import ADVANCE_STAGE
from orchestrator.services.setup import pairing_lots
from orchestrator.services.swiss.state import swiss_stage
from tests.support.databases import migrated_engine
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import SWISS_EVENT

AUTO_EVENT = SWISS_EVENT.replace(
    "      - {seeds: 1-7}\n", "      - {seeds: 1-7}\n    auto_publish: true\n", 1
)
PLAN = DemoPlan(round_gap_s=10.0, speed=0.0, tick_s=0.1, lead_s=2.0)


def desk(factory: UnitOfWorkFactory, seed: bytes | None) -> SwissDesk:
    return SwissDesk(
        uow_factory=factory, plan=PLAN, actor="owner", say=lambda *a, **k: None, pairing_seed=seed
    )


def start(factory: UnitOfWorkFactory, seed: bytes | None, text: str = AUTO_EVENT) -> tuple[int, str]:
    """Two steps of the desk, as the driver takes them: the lot committed, then the stage started."""
    with factory() as uow:
        stage_id = stage_id_of(uow, make_event(uow, text), "open")
    swiss = desk(factory, seed)
    swiss.step(stage_id, "Open", StageStatus.DRAFT.value, utcnow())
    with factory() as uow:
        assert uow.rounds.rounds_of_stage(stage_id) == []  # the lot's hash is public before its draw
    swiss.step(stage_id, "Open", StageStatus.DRAFT.value, utcnow())
    with factory() as uow:
        colour = uow.events.swiss_settings_of(stage_id)
        assert colour is not None
        return stage_id, colour.initial_colour


def test_the_start_times_every_round_in_demo_time_and_leaves_the_pairing_to_the_workers(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    before = utcnow()
    stage_id, _colour = start(uow_factory, b"replay")
    assert sent == [(ADVANCE_STAGE, (stage_id,))]
    with uow_factory() as uow:
        rounds = list(uow.rounds.rounds_of_stage(stage_id))
        assert swiss_stage(uow, stage_id).stage.status == StageStatus.RUNNING.value
    first = rounds[0].scheduled_at
    assert first is not None and before + timedelta(seconds=2) <= first <= utcnow() + timedelta(seconds=2)
    assert [r.scheduled_at for r in rounds] == [first + timedelta(seconds=10 * i) for i in range(5)]
    assert all(r.lineup_deadline_at is None for r in rounds)
    desk(uow_factory, b"replay").step(stage_id, "Open", StageStatus.RUNNING.value, utcnow())
    with uow_factory() as uow:  # the desk pairs nothing: the workers' stages.advance does
        assert {r.status for r in uow.rounds.rounds_of_stage(stage_id)} == {RoundStatus.UNPAIRED.value}
        assert uow.rounds.get_or_raise(Round, rounds[0].id or 0).status == RoundStatus.UNPAIRED.value


def fresh_database(path: Path) -> UnitOfWorkFactory:
    engine = migrated_engine(f"sqlite:///{path}")
    session_factory = make_session_factory(engine)
    return lambda: UnitOfWork(session_factory)


def commitment(factory: UnitOfWorkFactory) -> str:
    with factory() as uow:
        [lot] = uow.lots.lots_with_purpose(1, pairing_lots.colour_lot_purpose("Open"))
        return lot.commitment


def test_a_replay_seed_commits_the_same_colour_lot_every_run_and_staff_lots_stay_secret(
    tmp_path: Path, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    replays = [fresh_database(tmp_path / f"replay{run}.sqlite3") for run in range(2)]
    drawn = [start(factory, b"replay") for factory in replays]
    assert drawn[0][1] == drawn[1][1]
    assert commitment(replays[0]) == commitment(replays[1])
    secret = [fresh_database(tmp_path / f"secret{run}.sqlite3") for run in range(2)]
    for factory in secret:
        start(factory, None)
    assert commitment(secret[0]) != commitment(secret[1])  # a fresh secret seed each time
