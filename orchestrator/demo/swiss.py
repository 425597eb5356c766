"""The demo's Swiss stages (docs/swiss.md): what staff do at the round desk, one driver step at a time.

Each step, for every running Swiss stage whose entrants are known, ``SwissDesk.step``:

- starts the stage (``stage_start.start_stage``; the first start commits the initial-colour lot and refuses,
  the next one draws it and starts, as for staff);
- once every round before it is finished (every board has a final result), pairs the next round
  (``pair_next_round``, a draft as the desk shows it), then publishes it (``publish_round_pairing``: the
  matches with the default lineups and the bye) and times it in demo time in the same transaction, so beat
  never sees the file's date: round n starts ``round_gap_s`` after round n-1's planned start, or at once
  (after the lead) when the rounds before took longer.

Beat's jobs do the rest as for a pool round: the games created on the stand-in when due, the results
pulled, the standings, the round finished and, after the last round, the stage closed. Every staff step
goes through the same services as the staff desk and writes its audit row; the demo's timing writes one
too (``round.demo_schedule``).

A stage whose file says ``auto_publish: true`` (the 2026 files) is the workers' after its start: the start
times every round in demo time at once (``compress_rounds``, in the start's transaction, one
``stage.demo_schedule`` audit row) and queues round 1; from then on the job that finishes a round pairs,
publishes and creates the next (services/swiss/auto.py, docs/workers.md "Event-driven rounds"), and the
desk does nothing more.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime, timedelta

from orchestrator.adapters.tables import Round, RoundStatus, Stage, StageStatus
from orchestrator.adapters.uow import UnitOfWork, UnitOfWorkFactory
from orchestrator.demo.plan import DemoPlan
from orchestrator.demo.schedule import compress_rounds, queue_due
from orchestrator.domain.swiss import SwissPairer
from orchestrator.services.setup import draws, pairing_lots, stage_start
from orchestrator.services.swiss.auto import auto_publishes
from orchestrator.services.swiss.rounds import RoundView, pair_next_round, publish_round_pairing

DONE_ROUNDS = frozenset({RoundStatus.FINISHED.value, RoundStatus.CANCELLED.value})


def schedule_round(uow: UnitOfWork, rnd: Round, *, at: datetime, actor: str) -> None:
    """Demo time: a published round starts ``at`` (the file's dates are real dates), lineups close then."""
    old = rnd.scheduled_at
    rnd.scheduled_at = at
    rnd.lineup_deadline_at = None  # demo time: captains keep the default lineups until the round starts
    uow.rounds.insert(rnd)
    event, _stage = uow.events.event_and_stage(rnd.stage_id)
    uow.audit.change(
        rnd,
        "round.demo_schedule",
        actor=actor,
        event_id=event.id,
        old={"scheduled_at": old.isoformat() if old else None},
        new={"scheduled_at": at.isoformat()},
        reason="demo: the round timed in demo time",
    )


def commit_colour_lot(uow: UnitOfWork, *, stage_id: int, pairing_seed: bytes, actor: str) -> bool:
    """Replays only: commit the stage's initial-colour lot (C.04.6 art. 4.3.1) with a seed derived from the
    demo's ``pairing_seed`` when none is committed yet (the start then draws it); True when committed now."""
    event, stage = uow.events.event_and_stage(stage_id)
    purpose = pairing_lots.colour_lot_purpose(stage.name)
    if uow.lots.lots_with_purpose(event.id or 0, purpose):
        return False
    seed = hashlib.sha256(pairing_seed + f"|{event.slug}|{stage.key}|colour".encode()).digest()
    draws.commit_lot(
        uow,
        event_id=event.id or 0,
        purpose=purpose,
        candidates=list(stage_start.COLOURS),
        kind="one",
        actor=actor,
        reason=f"committed when {stage.name} was started (demo replay seed)",
        seed=seed,
    )
    return True


def next_round_start(rounds: list[Round], number: int, *, now: datetime, plan: DemoPlan) -> datetime:
    """Round ``number``: ``round_gap_s`` after the round before's planned start, never before the lead."""
    earliest = now + timedelta(seconds=plan.lead_s)
    before = next((r for r in rounds if r.number == number - 1), None)
    if before is None or before.scheduled_at is None:
        return earliest
    return max(earliest, before.scheduled_at + timedelta(seconds=plan.round_gap_s))


class SwissDesk:
    """Staff at the Swiss round desk of every Swiss stage of the demo event."""

    def __init__(
        self,
        *,
        uow_factory: UnitOfWorkFactory,
        plan: DemoPlan,
        actor: str,
        say: Callable[..., None],
        pairer: SwissPairer | None = None,
        pairing_seed: bytes | None = None,
        pair_lead_s: float | None = None,
    ) -> None:
        self.uow_factory = uow_factory
        self.pair_lead_s = pair_lead_s  # a published round due within it gets its games queued at once
        # --seed: the initial-colour lot's seed is derived from it, as the pools' pairing lots are, so a
        # replay draws the same colour and plays the same games; without, a fresh secret seed as for staff.
        self.pairing_seed = pairing_seed
        self.plan = plan
        self.actor = actor
        self.say = say
        self.pairer = pairer  # None: the server's engine, as the staff desk pairs
        self._automatic: dict[int, bool] = {}  # stage id: the workers publish its rounds (auto_publish)

    def step(self, stage_id: int, name: str, status: str, now: datetime) -> None:
        """Start the stage, or pair, publish and time its next round once the rounds before are finished
        (nothing after the start for a stage the workers publish)."""
        if status in (StageStatus.DRAFT.value, StageStatus.PUBLISHED.value):
            self._start(stage_id, name, now)
            return
        if status != StageStatus.RUNNING.value or self._automatic_stage(stage_id):
            return
        with self.uow_factory() as uow:
            rounds = list(uow.rounds.rounds_of_stage(stage_id))
        drafted = next((r for r in rounds if r.status == RoundStatus.DRAFT.value), None)
        if drafted is None:
            waiting = next((r for r in rounds if r.status == RoundStatus.UNPAIRED.value), None)
            if waiting is None or any(
                r.status not in DONE_ROUNDS for r in rounds if r.number < waiting.number
            ):
                return  # every round paired, or the round before still playing
            with self.uow_factory() as uow:
                view = pair_next_round(uow, stage_id=stage_id, actor=self.actor, pairer=self.pairer)
            self.say(f"{name}: round {view.number} paired ({_pairing_text(view)})")
            round_id, number = view.round_id, view.number
        else:
            round_id, number = drafted.id or 0, drafted.number  # a draft staff left: published as it is
        with self.uow_factory() as uow:
            publish_round_pairing(uow, round_id=round_id, actor=self.actor)
            rnd = uow.rounds.get_or_raise(Round, round_id)
            start = next_round_start(rounds, number, now=now, plan=self.plan)
            schedule_round(uow, rnd, at=start, actor=self.actor)
            if self.pair_lead_s is not None:
                queue_due(uow, [rnd], pair_lead_s=self.pair_lead_s, now=now)
        self.say(f"{name}: round {number} published, default lineups")

    def _automatic_stage(self, stage_id: int) -> bool:
        if stage_id not in self._automatic:
            with self.uow_factory() as uow:
                self._automatic[stage_id] = auto_publishes(uow, uow.events.get_or_raise(Stage, stage_id))
        return self._automatic[stage_id]

    def _start(self, stage_id: int, name: str, now: datetime) -> None:
        automatic = self._automatic_stage(stage_id)
        if self.pairing_seed is not None:
            with self.uow_factory() as uow:
                if commit_colour_lot(
                    uow, stage_id=stage_id, pairing_seed=self.pairing_seed, actor=self.actor
                ):
                    self.say(f"{name}: initial colour lot committed", once=f"colour-lot:{stage_id}")
                    return  # drawn by the next step's start, once its hash is public
        with self.uow_factory() as uow:
            started = stage_start.start_stage(uow, stage_id=stage_id, actor=self.actor)
            if started.refusal is None and automatic:  # timed before the workers see round 1
                compress_rounds(
                    uow,
                    stage_id=stage_id,
                    rounds=list(uow.rounds.rounds_of_stage(stage_id)),
                    start=now + timedelta(seconds=self.plan.lead_s),
                    gap_s=self.plan.round_gap_s,
                    actor=self.actor,
                )
        if started.refusal is not None:  # the initial-colour lot committed now: the next step draws it
            self.say(f"{name}: initial colour lot committed", once=f"colour-lot:{stage_id}")
            return
        if automatic:
            self.say(f"{name}: started, {len(started.round_ids)} rounds paired and published by the workers")
            return
        self.say(f"{name}: started, {len(started.round_ids)} rounds to pair one by one")


def _pairing_text(view: RoundView) -> str:
    text = f"{len(view.pairings)} matches"
    if view.pairings:
        top = view.pairings[0]
        text += f", board 1 {top.first} – {top.second}"
    if view.bye:
        text += f", bye {view.bye}"
    return text
