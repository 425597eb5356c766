"""The play-off's chain and fast path (orchestrator/jobs/scheduler.py, playoff.settle_stage_bracket).

- A worker's advance that makes a duel level queues its ``playoff.duel`` job, which makes the Armageddon's
  moves one transaction after another for as long as the next is due at once: the category lot's
  commitment and draw, the default nominations, the colour lot, the default colour and the game's pairing.
  A move that must wait (a reveal delay) queues the duel's job for when it is due.
- A lot's commitment and its draw are never one transaction: the draw reads a commitment already committed.
  Beat's tick makes one move per duel and pass.
- A tick that finds the bracket as an earlier advance left it does not advance it again; a stored change
  (a result, an appeal, a withdrawal) makes it advance again, and a conflict is recorded on every tick.

SQLite in a temporary directory, eager jobs; no game server (the Armageddon pairing job is replaced by a
recorder where a test needs it).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from orchestrator.adapters.tables import (
    Appeal,
    AppealStatus,
    Armageddon,
    Duel,
    Lot,
    Round,
    Team,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.jobs import bodies, dispatch, runtime, scheduler
from orchestrator.services import queue
from orchestrator.services.playoff import armageddon as armageddon_lots
from orchestrator.services.playoff import sync
from orchestrator.services.playoff.read import bracket_view
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE, LotWhich, lot_purpose
from orchestrator.services.playoff.sync import advance_stage_bracket
from orchestrator.services.setup import draws
from tests.support.playoff_world import World, level, make_world, store_results, the_duel, tick


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    yield from make_world(tmp_path)


def lot_of(world: World, key: str, which: LotWhich) -> Lot | None:
    with world.uow_factory() as uow:
        event_id = uow.events.event_and_stage(world.knockout)[0].id or 0
        return uow.lots.latest_lot(event_id, lot_purpose(key, which))


def armageddon(world: World, duel_id: int) -> Armageddon | None:
    with world.uow_factory() as uow:
        return uow.playoff.armageddon_of_duel(duel_id)


def ticks_sent(since: int) -> int:
    """Play-off jobs (ticks and duel jobs) sent since ``since``."""
    names = (queue.PLAYOFF_TICK, queue.PLAYOFF_DUEL)
    return sum(1 for name, _ids in runtime.runtime().sent[since:] if name in names)


def audit_order(world: World, duel_id: int) -> list[str]:
    """The Armageddon's lot and phase entries of duel ``duel_id``, oldest first ("<action> <which>")."""
    with world.uow_factory() as uow:
        event_id = uow.events.event_and_stage(world.knockout)[0].id or 0
        key = uow.playoff.get_or_raise(Duel, duel_id).key
        lots = {
            lot.id: which
            for which in ("category", "colour")
            if (lot := uow.lots.latest_lot(event_id, lot_purpose(key, which))) is not None
        }
        arm = uow.playoff.armageddon_of_duel(duel_id)
        entries = [e for e in uow.audit.entries(entity="lot") if e.entity_id in lots]
        entries += uow.audit.entries(entity="armageddon", entity_id=arm.id) if arm is not None else []
    ordered = sorted(entries, key=lambda e: e.id or 0)
    return [f"{e.action} {lots[e.entity_id or 0]}" if e.entity == "lot" else e.action for e in ordered]


# ------------------------------------------------------------------------------ the chain


def test_a_duel_a_workers_advance_makes_level_gets_its_armageddon_moves_from_one_queued_duel_job(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tick(world)  # the bracket
    store_results(world, "I", "white")
    assert the_duel(world, "I").status != "armageddon"
    duel_id = the_duel(world, "I").id or 0
    real_draw, drawn_from_committed = armageddon_lots.reveal_armageddon_lot, []

    def draw(uow: UnitOfWork, **kwargs: Any) -> Any:
        # Read through a connection of its own: the commitment must already be committed (and so public).
        drawn_from_committed.append(lot_of(world, "I", kwargs["which"]) is not None)
        return real_draw(uow, **kwargs)

    monkeypatch.setattr(scheduler, "reveal_armageddon_lot", draw)
    before = len(runtime.runtime().sent)
    with world.uow_factory() as uow:  # what playoff.advance does after an ingestion
        changed = advance_stage_bracket(uow, stage_id=world.knockout, actor="worker")
    assert "I" in changed
    sent = [(name, ids) for name, ids in runtime.runtime().sent[before:] if name == queue.PLAYOFF_DUEL]
    assert sent[0] == (queue.PLAYOFF_DUEL, (duel_id,))
    assert ticks_sent(before) == len(sent)  # no whole tick: the duel's job
    # No reveal delay, no nomination or colour window: every move in the one job, each lot drawn from a
    # commitment an earlier transaction committed.
    assert audit_order(world, duel_id) == [
        "lot.commit category",
        "lot.draw category",
        "armageddon.reveal",
        "lot.commit colour",
        "lot.draw colour",
        "armageddon.colour",
    ]
    assert drawn_from_committed == [True, True]
    arm = armageddon(world, duel_id)
    assert arm is not None and arm.status == "ready"
    assert not tick(world).lots_committed  # beat's tick then finds nothing left to do


def test_a_duel_job_does_nothing_for_a_duel_that_is_not_level(world: World) -> None:
    tick(world)
    duel_id = the_duel(world, "I").id or 0
    done = scheduler.run_duel_steps(
        world.uow_factory, duel_id=duel_id, settings=world.settings, actor="worker", clock=utcnow
    )
    assert done == scheduler.PlayoffTick()
    assert lot_of(world, "I", "category") is None


def test_an_arbiters_advance_queues_no_tick(world: World) -> None:
    tick(world)
    before = len(runtime.runtime().sent)
    level(world)
    assert ticks_sent(before) == 0
    assert lot_of(world, "I", "category") is None


def test_with_a_reveal_delay_the_commitment_queues_the_tick_that_draws_the_lot_when_it_is_due(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for world in make_world(tmp_path, auto_lot_reveal_delay_s=30):
        later: list[tuple[float, str, tuple[int, ...]]] = []
        monkeypatch.setattr(
            dispatch,
            "_later",
            lambda delay, name, ids, *, attempt, seen=later: seen.append((delay, name, ids)),
        )  # eager countdowns: a timer thread otherwise
        tick(world)
        duel_id = level(world)
        assert tick(world).lots_committed
        assert later == [(30, queue.PLAYOFF_DUEL, (duel_id,))]
        lot = lot_of(world, "I", "category")
        assert lot is not None and lot.seed_hex is None
        assert not tick(world, now=lot.committed_at + timedelta(seconds=29)).lots_drawn  # not yet due

        def almost_due(at: datetime = lot.committed_at + timedelta(seconds=29)) -> datetime:
            return at

        early = scheduler.run_duel_steps(
            world.uow_factory,
            duel_id=duel_id,
            settings=world.settings,
            actor="worker",
            clock=almost_due,
        )
        assert early == scheduler.PlayoffTick()  # the duel's job early: nothing either
        assert tick(world, now=lot.committed_at + timedelta(seconds=30)).lots_drawn
        drawn = lot_of(world, "I", "category")
        assert drawn is not None and drawn.seed_hex is not None and drawn.sealed_seed_hex is None


def test_the_events_lot_publication_delay_holds_the_ticks_draw_when_it_is_the_longer_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/lots.md: the commitment stays public for the event file's ``lot_publication_delay`` before any
    draw; the tick waits for it (and queues itself for then) instead of trying a draw that is refused."""
    real = draws.definition_or_none

    def ten_minutes(event: Any) -> Any:
        definition = real(event)
        return None if definition is None else replace(definition, lot_publication_delay_s=600)

    for world in make_world(tmp_path, auto_lot_reveal_delay_s=30):
        monkeypatch.setattr(draws, "definition_or_none", ten_minutes)  # after the set-up's own lots
        later: list[tuple[float, str, tuple[int, ...]]] = []
        monkeypatch.setattr(
            dispatch,
            "_later",
            lambda delay, name, ids, *, attempt, seen=later: seen.append((delay, name, ids)),
        )
        tick(world)
        duel_id = level(world)
        assert tick(world).lots_committed
        assert later == [(600, queue.PLAYOFF_DUEL, (duel_id,))]  # the event's delay, not the worker's 30 s
        lot = lot_of(world, "I", "category")
        assert lot is not None
        early = tick(world, now=lot.committed_at + timedelta(seconds=599))
        assert not early.lots_drawn and not early.errors  # waited: no refused draw
        assert tick(world, now=lot.committed_at + timedelta(seconds=600)).lots_drawn


def test_beats_tick_makes_one_move_a_pass_and_a_draw_whose_defaults_are_due_hands_on_to_the_duels_job(
    world: World,
) -> None:
    tick(world)
    duel_id = level(world)  # the arbiter's advance: no job queued, beat's tick finds the duel
    before = len(runtime.runtime().sent)
    assert tick(world).lots_committed == [f"{duel_id}:category"]
    assert ticks_sent(before) == 0  # no reveal delay: the draw is due at the next pass
    category = lot_of(world, "I", "category")
    assert category is not None and category.seed_hex is None
    assert armageddon(world, duel_id) is None
    # The draw opens nominations until "now + 0 minutes": the duel's job it queues applies the defaults,
    # then draws the colour lot (committed in a transaction before) and gives the default colour.
    before = len(runtime.runtime().sent)
    assert tick(world).lots_drawn == [f"{duel_id}:category"]
    assert (queue.PLAYOFF_DUEL, (duel_id,)) in runtime.runtime().sent[before:]
    arm = armageddon(world, duel_id)
    assert arm is not None and arm.status == "ready"
    assert arm.colour == world.settings.armageddon_default_colour
    assert audit_order(world, duel_id)[:3] == [
        "lot.commit category",
        "lot.draw category",
        "armageddon.reveal",
    ]


def test_the_colour_draw_applies_the_default_colour_and_the_duel_job_pairs_the_armageddon_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for world in make_world(tmp_path, gameserver_unequal_clocks=True):
        paired: list[int] = []
        queued: list[int] = []

        def pairing(_rt: Any, round_id: int, *, attempt: int, seen: list[int] = paired) -> None:
            seen.append(round_id)

        monkeypatch.setattr(bodies, "_create_games", pairing)  # the duel job's pairing at once
        monkeypatch.setitem(
            bodies.JOBS,
            queue.CREATE_GAMES,
            lambda _rt, round_id, *, attempt, seen=queued: seen.append(round_id),
        )  # its queued copy, the fallback
        assert tick(world).brackets_built == [world.knockout]
        with world.uow_factory() as uow:
            first = sorted(
                r.id or 0 for r in uow.rounds.rounds_of_stage(world.knockout) if r.number in (1, 2)
            )
        assert len(first) == 2 and sorted(queued) == first  # the build queued its first rounds' games
        queued.clear()
        duel_id = level(world)
        done = bodies.run_job(queue.PLAYOFF_DUEL, duel_id)
        assert done is None
        arm = armageddon(world, duel_id)
        assert arm is not None and arm.status == "ready"
        assert arm.colour == world.settings.armageddon_default_colour
        with world.uow_factory() as uow:
            rnd = uow.rounds.round_by_number(world.knockout, ARMAGEDDON_ROUND_BASE + duel_id)
        assert rnd is not None and paired == [rnd.id] and queued == [rnd.id]
        # No colour window: the colour lot's draw and the default colour are one move.
        assert audit_order(world, duel_id)[-2:] == ["lot.draw colour", "armageddon.colour"]


def test_with_a_colour_window_the_draw_leaves_the_choice_to_the_chooser_until_it_closes(
    tmp_path: Path,
) -> None:
    for world in make_world(tmp_path, armageddon_colour_minutes=5):
        tick(world)
        duel_id = level(world)
        drawn = scheduler.run_duel_steps(
            world.uow_factory, duel_id=duel_id, settings=world.settings, actor="worker", clock=utcnow
        )
        assert drawn.lots_drawn == [f"{duel_id}:category", f"{duel_id}:colour"]
        assert drawn.default_colours == []  # the chooser's five minutes
        arm = armageddon(world, duel_id)
        assert arm is not None and arm.colour is None
        colour_lot = lot_of(world, "I", "colour")
        assert colour_lot is not None and colour_lot.revealed_at is not None
        assert tick(world, now=colour_lot.revealed_at + timedelta(minutes=4)).default_colours == []
        assert tick(world, now=colour_lot.revealed_at + timedelta(minutes=5)).default_colours == [duel_id]


# ------------------------------------------------------------------------------ the fast path


def test_a_tick_with_nothing_new_does_not_advance_and_a_stored_result_makes_it_advance_again(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    tick(world)  # builds the bracket; finds it settled
    calls: list[int] = []
    real = sync.advance

    def counting(uow: UnitOfWork, **kwargs: Any) -> Any:
        calls.append(kwargs["stage_id"])
        return real(uow, **kwargs)

    monkeypatch.setattr(sync, "advance", counting)
    tick(world)
    assert calls == []
    store_results(world, "I", "white")  # no advance: only the tick can notice
    tick(world)
    assert calls
    assert the_duel(world, "I").status == "armageddon"


def test_the_bracket_state_changes_with_a_result_an_open_appeal_and_a_withdrawal(world: World) -> None:
    tick(world)

    def state() -> Any:
        with world.uow_factory() as uow:
            return uow.playoff.bracket_state(world.knockout)

    before = state()
    duel = the_duel(world, "I")
    with world.uow_factory() as uow:
        match = uow.playoff.matches_of_duels([duel.id])[duel.id or 0][0]
        appeal = uow.rounds.insert(Appeal(match_id=match.id or 0, deadline_at=utcnow() + timedelta(hours=1)))
    assert state() != before
    with world.uow_factory() as uow:
        row = uow.rounds.get_or_raise(Appeal, appeal.id or 0)
        row.status = AppealStatus.REJECTED.value
        uow.rounds.insert(row)
    assert state() == before  # no open appeal any more: the advance reads the same
    with world.uow_factory() as uow:
        team = uow.teams.get_or_raise(Team, duel.first_team_id or 0)
        team.withdrawn_at = utcnow()
        uow.teams.insert(team)
    assert state() != before
    store_results(world, "II", "white", legs=(1,))
    assert state() != before


def test_a_conflict_is_recorded_on_every_tick_while_it_lasts(world: World) -> None:
    tick(world)
    store_results(world, "I", "first")
    store_results(world, "II", "first")
    tick(world)
    final = the_duel(world, "III")
    assert final.first_team_id == the_duel(world, "I").first_team_id
    with world.uow_factory() as uow:  # the final has started
        match = uow.playoff.matches_of_duels([final.id])[final.id or 0][0]
        board = uow.boards.boards_of_matches([match.id])[match.id or 0][0]
        uow.boards.update_versioned(
            board.id or 0, expected_version=board.version, values={"result": "1-0"}, actor="t"
        )
    store_results(world, "I", "second")  # duel I corrected: its second team won

    def conflicts() -> int:
        with world.uow_factory() as uow:
            return len(uow.audit.entries(entity="duel", entity_id=final.id, action_prefix="duel.conflict"))

    tick(world)
    first = conflicts()
    tick(world)
    assert first > 0 and conflicts() > first
    assert the_duel(world, "III").first_team_id == final.first_team_id  # staff must sort it out


def test_the_bracket_view_reads_as_many_queries_with_two_armageddons_as_with_one(world: World) -> None:
    tick(world)
    level(world, "I")
    tick(world)
    tick(world)  # duel I: drawn, defaults in, colour lot committed

    def queries() -> int:
        count = 0

        def counted(*_args: Any) -> None:
            nonlocal count
            count += 1

        event.listen(world.engine, "before_cursor_execute", counted)
        try:
            with world.uow_factory() as uow:
                bracket_view(uow, stage_id=world.knockout)
        finally:
            event.remove(world.engine, "before_cursor_execute", counted)
        return count

    one = queries()
    level(world, "II")
    tick(world)
    tick(world)  # duel II as far as duel I
    with world.uow_factory() as uow:
        assert (
            len(uow.playoff.armageddons_of_duels(d.id for d in uow.playoff.duels_of_stage(world.knockout)))
            == 2
        )
    assert queries() == one


def test_a_replay_seed_makes_the_automatic_armageddon_lots_the_same_again_and_without_it_they_differ(
    tmp_path: Path,
) -> None:
    def committed(name: str, replay: str) -> str:
        for world in make_world(tmp_path / name, replay_lot_seed=replay):
            tick(world)
            level(world)
            assert tick(world).lots_committed
            lot = lot_of(world, "I", "category")
            assert lot is not None
            return lot.commitment
        raise AssertionError("no world")

    first, again = committed("a", "demo/7"), committed("b", "demo/7")
    other = committed("c", "demo/8")
    secret, secret_again = committed("d", ""), committed("e", "")
    assert first == again  # the same replay seed: the same published hash, so the same draw
    assert other != first
    assert secret != secret_again  # a real event: a fresh secret seed each time


# ------------------------------------------------------------------------------ the next bracket round


def semi_finals_played(world: World) -> None:
    """The semi-finals' rounds as the game server left them (their games paired long ago): only the
    final's rounds are left to pair."""
    with world.uow_factory() as uow:
        for rnd in uow.rounds.rounds_of_stage(world.knockout):
            rnd.status = "paired"
            uow.rounds.insert(rnd)


def final_rounds(world: World) -> list[Round]:
    with world.uow_factory() as uow:
        return [r for r in uow.rounds.rounds_of_stage(world.knockout) if r.number in (3, 4)]


def test_the_advance_that_completes_a_due_bracket_round_pairs_its_matches_at_once(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bracket round whose start has passed gets its games from the ``playoff.advance`` that decided its
    last duel, not from beat's next ``rounds.open_due``; one with a duel still open waits for it."""
    paired: list[int] = []
    queued: list[int] = []

    def pairing(_rt: Any, round_id: int, *, attempt: int, seen: list[int] = paired) -> None:
        seen.append(round_id)

    monkeypatch.setattr(bodies, "_create_games", pairing)
    monkeypatch.setitem(
        bodies.JOBS, queue.CREATE_GAMES, lambda _rt, round_id, *, attempt, seen=queued: seen.append(round_id)
    )
    tick(world)  # the bracket: semi-finals I and II, the final III
    queued.clear()  # the semi-finals' games, queued by the build (the test above)
    semi_finals_played(world)
    store_results(world, "I", "first")
    bodies.run_job(queue.PLAYOFF_ADVANCE, world.knockout)
    assert final_rounds(world) == []  # semi-final II is still open: the final waits for a team
    assert paired == [] and queued == []
    store_results(world, "II", "first")
    bodies.run_job(queue.PLAYOFF_ADVANCE, world.knockout)
    final = final_rounds(world)  # made with the file's dates, long past: due
    assert [r.number for r in final] == [3, 4]
    assert all(r.scheduled_at is not None and r.scheduled_at < utcnow() for r in final)
    ids = [r.id for r in final]
    assert paired == ids and queued == ids  # at once, in order; the queued copies are the fallback
    assert the_duel(world, "III").second_team_id == the_duel(world, "II").winner_team_id


def test_the_play_off_advance_pairs_a_due_bracket_round_that_the_stages_advance_completed_before_it(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pull that stores a duel's last result queues ``playoff.advance`` and runs ``stages.advance`` at
    once; when the latter's bracket advance comes first, the former changes nothing and must still pair the
    final (no staff tick or beat pass would, until beat's next ``rounds.open_due``)."""
    paired: list[int] = []
    monkeypatch.setitem(
        bodies.JOBS, queue.CREATE_GAMES, lambda _rt, round_id, *, attempt, seen=paired: seen.append(round_id)
    )
    monkeypatch.setattr(bodies, "_create_games", lambda _rt, round_id, *, attempt: paired.append(round_id))
    tick(world)
    paired.clear()  # the semi-finals' games, queued by the build
    semi_finals_played(world)
    store_results(world, "I", "first")
    store_results(world, "II", "first")
    bodies.run_job(queue.ADVANCE_STAGE, world.knockout)  # the bracket advance comes first: no pairing
    final = final_rounds(world)
    assert [r.number for r in final] == [3, 4] and the_duel(world, "III").status != "waiting"
    assert paired == []
    bodies.run_job(queue.PLAYOFF_ADVANCE, world.knockout)
    assert paired[:2] == [r.id for r in final]  # at once, then the queued copies (the fallback)


def test_a_bracket_round_not_yet_due_is_left_to_beat_when_its_duels_are_known(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    paired: list[int] = []
    monkeypatch.setitem(
        bodies.JOBS, queue.CREATE_GAMES, lambda _rt, round_id, *, attempt, seen=paired: seen.append(round_id)
    )
    tick(world)
    paired.clear()  # the semi-finals' games, queued by the build
    semi_finals_played(world)
    store_results(world, "I", "first")
    store_results(world, "II", "first")
    early = datetime(2024, 3, 1, tzinfo=UTC)  # two days before the final's date in the file
    monkeypatch.setattr(bodies, "utcnow", lambda: early)
    bodies.run_job(queue.PLAYOFF_ADVANCE, world.knockout)
    assert the_duel(world, "III").status != "waiting"
    assert [r.number for r in final_rounds(world)] == [3, 4]
    assert paired == []
