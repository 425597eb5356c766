"""Two play-off ticks at once on SQLite (the demo's scheduler thread beside a request, two workers): every
step is idempotent under concurrency, so the pair ends as one tick would, with one Armageddon per duel, one
match per duel and leg, and nothing logged as an error (orchestrator/jobs/scheduler.py, docs/playoff.md).

Each tick runs in its own thread with its own units of work; a ``threading.Barrier`` starts them together.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from orchestrator.jobs.scheduler import PlayoffTick
from tests.support.concurrency import together
from tests.support.playoff_world import World, level, make_world, tick


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


def test_two_ticks_at_once_leave_one_armageddon_per_duel_and_one_match_per_duel_and_leg(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    tick(world)  # the bracket
    duel_id = level(world)
    caplog.set_level(logging.WARNING)
    for _ in range(6):  # commit, draw, defaults, colour lot, its draw and the default colour, the game
        for done in together(lambda: tick(world), lambda: tick(world)):
            assert isinstance(done, PlayoffTick) and done.errors == []
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []
    with world.uow_factory() as uow:
        arm = uow.playoff.armageddon_of_duel(duel_id)
        assert arm is not None and arm.status == "ready"
        duels = uow.playoff.duels_of_stage(world.knockout)
        legs = Counter(
            (m.duel_id, m.leg)
            for ms in uow.playoff.matches_of_duels(d.id for d in duels).values()
            for m in ms
        )
        lots = uow.audit.entries(entity="lot", action_prefix="lot.")
    assert legs[(duel_id, 3)] == 1
    assert set(legs.values()) == {1}
    armageddon_lots = [e for e in lots if "Armageddon" in (e.new or {}).get("purpose", "")]
    assert Counter(e.action for e in armageddon_lots) == {"lot.commit": 2, "lot.draw": 2}
