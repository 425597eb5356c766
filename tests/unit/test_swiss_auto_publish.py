"""Event-driven Swiss rounds (services/swiss/auto.py, docs/workers.md "Event-driven rounds"): the event file's
``auto_publish``, and which jobs each step queues: the stage's start queues round 1's publication, a settled
round the next one's, a due round its games, a pull that leaves games open the next pull; a stage without
``auto_publish`` is left to staff."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from orchestrator.adapters.tables import MatchStatus, Round, RoundStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.config import Settings
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.jobs import runtime
from orchestrator.jobs.runtime import ACTOR as WORKER
from orchestrator.services.gameserver.gameserver import pull_again, reconcile_open_games, settle_round
from orchestrator.services.queue import ADVANCE_STAGE, CREATE_GAMES, PULL_ROUND
from orchestrator.services.setup import stage_start
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.auto import publish_next_round
from tests.support.factories import make_event, stage_id_of
from tests.support.swiss import ACTOR, SWISS_EVENT, play_round
from tests.support.swiss_event_files import POOLS_FIRST, SMALL_TEXT, STAGE_HEAD

AUTO_EVENT = SWISS_EVENT.replace(
    "      - {seeds: 1-7}\n", "      - {seeds: 1-7}\n    auto_publish: true\n", 1
)
ROUND_1_AT = datetime(2030, 9, 16, 15, 0, tzinfo=UTC)  # the fixture's first round (UTC)


def started(uow: UnitOfWork, text: str) -> int:
    stage_id = stage_id_of(uow, make_event(uow, text), "open")
    stage_start.start_stage(uow, stage_id=stage_id, actor=ACTOR, initial_colour="W")
    return stage_id


def played_from_server(factory: UnitOfWorkFactory, round_id: int) -> None:
    """Every board of the round final, its matches and the round still open, as the server's ingestion
    leaves them before ``settle_round`` (an arbiter's entry finishes them itself)."""
    play_round(factory, round_id)
    with factory() as uow:
        rnd = uow.rounds.get_or_raise(Round, round_id)
        rnd.status = RoundStatus.PLAYING.value
        uow.rounds.add(rnd)
        for match in uow.rounds.matches_of_round(round_id):
            match.status, match.finished_at = MatchStatus.PLAYING.value, None
            uow.rounds.add(match)


def statuses(factory: UnitOfWorkFactory, stage_id: int) -> list[str]:
    with factory() as uow:
        return [r.status for r in uow.rounds.rounds_of_stage(stage_id)]


# --- the event file ---------------------------------------------------------------------------------------


def test_auto_publish_is_off_unless_the_file_says_true_for_the_swiss_stage() -> None:
    assert AUTO_EVENT != SWISS_EVENT
    assert parse_event(AUTO_EVENT).stage("open").auto_publish is True
    assert parse_event(SWISS_EVENT).stage("open").auto_publish is False
    off = AUTO_EVENT.replace("auto_publish: true", "auto_publish: false")
    assert parse_event(off).stage("open").auto_publish is False


def test_the_2026_files_let_the_workers_publish_every_swiss_round() -> None:
    assert all(stage.auto_publish for stage in parse_event(SMALL_TEXT).stages if stage.is_swiss)


def test_a_wrong_auto_publish_is_named_with_every_other_problem() -> None:
    text = AUTO_EVENT.replace("auto_publish: true", "auto_publish: sometimes").replace(
        "rounds: 5", "rounds: 9"
    )
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    rendered = "\n".join(str(problem) for problem in caught.value.problems)
    assert "stages[0].auto_publish" in rendered and "expected true or false, found 'sometimes'" in rendered
    assert "9 rounds for 7 teams" in rendered  # reported together, not one at a time
    pools = SMALL_TEXT.replace(
        STAGE_HEAD, POOLS_FIRST.replace("    advance: 2\n", "    advance: 2\n    auto_publish: true\n")
    )
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(pools)
    assert "a pools stage has no 'auto_publish' (a swiss stage has)" in str(caught.value)


# --- what each step queues ------------------------------------------------------------------------------


def test_starting_an_auto_publish_stage_queues_its_first_publication_and_a_staff_stage_queues_nothing(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    with uow_factory() as uow:
        auto = started(uow, AUTO_EVENT)
    assert sent == [(ADVANCE_STAGE, (auto,))]
    sent.clear()
    with uow_factory() as uow:
        started(uow, SWISS_EVENT.replace("slug: swiss-test-cup", "slug: staff-cup"))
    assert sent == []


def test_a_round_is_published_by_the_worker_and_its_games_queued_only_when_due(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    with uow_factory() as uow:
        stage_id = started(uow, AUTO_EVENT)
    sent.clear()
    early = ROUND_1_AT - timedelta(hours=1)
    with uow_factory() as uow:
        step = publish_next_round(uow, stage_id=stage_id, actor=WORKER, now=early, pair_lead_s=300)
    assert (step.status, step.number, step.games_queued) == ("published", 1, False)
    assert sent == []  # an hour early: beat's rounds.open_due creates the games when the round falls due
    assert statuses(uow_factory, stage_id)[:2] == [RoundStatus.SCHEDULED.value, RoundStatus.UNPAIRED.value]
    with uow_factory() as uow:
        actions = [(a.action, a.actor) for a in uow.audit.for_entity("round", step.round_id or 0)]
    assert ("swiss.pair", WORKER) in actions and ("swiss.publish", WORKER) in actions

    with uow_factory() as uow:  # round 1 is being played: nothing more to publish
        again = publish_next_round(uow, stage_id=stage_id, actor=WORKER, now=early, pair_lead_s=300)
    assert again.status == "waiting" and sent == []

    played_from_server(uow_factory, step.round_id or 0)
    sent.clear()
    with uow_factory() as uow:
        assert settle_round(uow, round_id=step.round_id or 0, actor=WORKER)
    assert sent == [(ADVANCE_STAGE, (stage_id,))]  # the settled round asks for the next one
    sent.clear()
    due = datetime(2030, 9, 17, 14, 58, tzinfo=UTC)  # two minutes before round 2, within the 5-minute lead
    with uow_factory() as uow:
        second = publish_next_round(uow, stage_id=stage_id, actor=WORKER, now=due, pair_lead_s=300)
    assert (second.status, second.number, second.games_queued) == ("published", 2, True)
    assert sent == [(CREATE_GAMES, (second.round_id or 0,))]


def test_a_stage_without_auto_publish_waits_for_staff_and_a_draft_in_review_is_left_to_them(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    with uow_factory() as uow:
        staff = started(uow, SWISS_EVENT)
        step = publish_next_round(uow, stage_id=staff, actor=WORKER, now=ROUND_1_AT, pair_lead_s=300)
    assert step.status == "off"
    assert set(statuses(uow_factory, staff)) == {RoundStatus.UNPAIRED.value}
    with uow_factory() as uow:
        auto = started(uow, AUTO_EVENT.replace("slug: swiss-test-cup", "slug: auto-cup"))
    with uow_factory() as uow:
        swiss_rounds.pair_next_round(uow, stage_id=auto, actor=ACTOR)  # staff paired round 1 by hand
    with uow_factory() as uow:
        step = publish_next_round(uow, stage_id=auto, actor=WORKER, now=ROUND_1_AT, pair_lead_s=300)
    assert step.status == "draft"
    assert statuses(uow_factory, auto)[0] == RoundStatus.DRAFT.value


def test_beat_queues_the_publication_a_lost_message_dropped_and_never_for_a_staff_stage(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]], settings: Settings
) -> None:
    with uow_factory() as uow:
        auto = started(uow, AUTO_EVENT)
        staff = started(uow, SWISS_EVENT.replace("slug: swiss-test-cup", "slug: staff-cup"))
    sent.clear()  # the start's own message, as if it were lost
    with uow_factory() as uow:
        reconciled = reconcile_open_games(uow, now=ROUND_1_AT, settings=settings)
    assert reconciled.stages_to_advance == (auto,)
    assert (ADVANCE_STAGE, (auto,)) in sent and (ADVANCE_STAGE, (staff,)) not in sent


class _Commit:
    """A unit of work as ``enqueue`` sees it: what would run after the commit."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, tuple[Any, ...]]] = []

    def after_commit(self, fn: Any, /, *args: Any, **kwargs: Any) -> None:
        self.calls.append((fn, args))


def test_a_round_with_open_games_pulls_itself_again_only_when_round_pull_s_is_set() -> None:
    off, on = _Commit(), _Commit()
    pull_again(off, 7, Settings())  # type: ignore[arg-type]
    pull_again(on, 7, Settings(round_pull_s=2.5))  # type: ignore[arg-type]
    assert off.calls == []
    assert [args for _fn, args in on.calls] == [([(PULL_ROUND, (7,), 2.5)],)]


# --- the whole chain in process ---------------------------------------------------------------------------


def test_in_process_the_chain_publishes_every_round_after_the_one_before_is_settled(
    uow_factory: UnitOfWorkFactory, settings: Settings
) -> None:
    current = runtime.configure(settings, uow_factory=uow_factory)
    with uow_factory() as uow:
        stage_id = started(uow, AUTO_EVENT)
    settled: list[tuple[str, tuple[int, ...]]] = []
    for number in range(1, 6):
        assert statuses(uow_factory, stage_id)[number - 1] == RoundStatus.SCHEDULED.value, number
        with uow_factory() as uow:
            round_id = next(r.id or 0 for r in uow.rounds.rounds_of_stage(stage_id) if r.number == number)
        played_from_server(uow_factory, round_id)
        mark = len(current.sent)  # the helper's own entries queue jobs too: count the settling's only
        with uow_factory() as uow:
            settle_round(uow, round_id=round_id, actor=WORKER)
        settled.extend(current.sent[mark:])
    assert set(statuses(uow_factory, stage_id)) == {RoundStatus.FINISHED.value}
    assert current.sent[0] == (ADVANCE_STAGE, (stage_id,))  # the start
    assert settled.count((ADVANCE_STAGE, (stage_id,))) == 5  # each settled round
    assert (CREATE_GAMES, (round_id,)) not in current.sent  # 2030: not due yet, beat creates them then
    with uow_factory() as uow:
        publishers = {
            a.actor
            for r in uow.rounds.rounds_of_stage(stage_id)
            for a in uow.audit.for_entity("round", r.id or 0)
            if a.action == "swiss.publish"
        }
        assert uow.rounds.get_or_raise(Round, round_id).number == 5
    assert publishers == {WORKER}


def test_a_round_an_arbiter_finishes_asks_for_the_next_step_at_once(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]]
) -> None:
    with uow_factory() as uow:
        stage_id = started(uow, AUTO_EVENT)
    with uow_factory() as uow:
        step = publish_next_round(uow, stage_id=stage_id, actor=WORKER, now=ROUND_1_AT, pair_lead_s=300)
    sent.clear()
    play_round(uow_factory, step.round_id or 0)  # every board entered by arbiters
    assert sent.count((ADVANCE_STAGE, (stage_id,))) == 1  # once, by the entry that finished the round


def test_a_round_an_arbiter_finished_is_published_by_beats_safety_net(
    uow_factory: UnitOfWorkFactory, sent: list[tuple[str, tuple[int, ...]]], settings: Settings
) -> None:
    with uow_factory() as uow:
        stage_id = started(uow, AUTO_EVENT)
    with uow_factory() as uow:
        step = publish_next_round(uow, stage_id=stage_id, actor=WORKER, now=ROUND_1_AT, pair_lead_s=300)
    play_round(uow_factory, step.round_id or 0)  # entered by arbiters
    sent.clear()
    with uow_factory() as uow:
        assert reconcile_open_games(uow, now=ROUND_1_AT, settings=settings).stages_to_advance == (stage_id,)
    assert (ADVANCE_STAGE, (stage_id,)) in sent
