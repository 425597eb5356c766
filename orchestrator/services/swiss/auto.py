"""A Swiss stage whose rounds the workers publish (``auto_publish: true``, docs/event-file.md, docs/swiss.md).

``publish_next_round`` runs in the ``stages.advance`` job (orchestrator/jobs/bodies.py), which the pull that
stores a round's last result queues after its commit (services/gameserver/gameserver.py, ``settle_round``),
as does the start of such a stage (services/setup/stage_start.py) and, as the safety net for a lost
message, beat's ``results.reconcile``. Once every earlier round is finished it pairs the next round by the
stage's pairing system and publishes it in the same transaction, as staff do at the round desk
(``pair_next_draft``, ``publish_draft``: the round desk's ``pair_next_round`` and
``publish_round_pairing`` without reading the round back; the same audit rows, ``swiss.pair`` and
``swiss.publish``), and queues the round's games (``rounds.create_games``) when the round is due within
``gameserver_pair_lead_s``; a later round's games are created by beat's ``rounds.open_due`` when it falls
due. A stage without ``auto_publish`` is left to staff: the staff dashboard lists its next round as "Swiss
round to pair".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from orchestrator.adapters.tables import Round, RoundStatus, Stage, StageKind, StageStatus
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.swiss import SwissPairer
from orchestrator.errors import Conflict
from orchestrator.services.definitions import DefinitionUnavailable, event_definition
from orchestrator.services.due_games import queue_due_games
from orchestrator.services.swiss.rounds import pair_next_draft, publish_draft

DONE_ROUNDS = frozenset({RoundStatus.FINISHED.value, RoundStatus.CANCELLED.value})


@dataclass(frozen=True, slots=True)
class AutoStep:
    """What ``publish_next_round`` did. ``status``: published; not-swiss (another kind, or not running);
    off (staff publish: no ``auto_publish``); done (every round paired); draft (staff paired a round by
    hand: theirs to publish); waiting (an earlier round is not finished); refused (the engine could not
    pair: ``reason`` says why, and the staff desk shows the same refusal)."""

    stage_id: int
    status: str
    round_id: int | None = None
    number: int | None = None
    games_queued: bool = False
    reason: str | None = None


def auto_publishes(uow: UnitOfWork, stage: Stage) -> bool:
    """Whether the event file lets the workers publish this Swiss stage's rounds (``auto_publish``)."""
    if stage.kind != StageKind.SWISS.value:
        return False
    try:
        definition = event_definition(uow, stage.event_id)
    except DefinitionUnavailable:
        return False
    return any(s.key == stage.key and s.auto_publish for s in definition.stages)


def next_round_ready(rounds: list[Round]) -> Round | None:
    """The stage's next round to pair when every round before it is finished (or cancelled) and no round
    waits in review; None otherwise."""
    if any(r.status == RoundStatus.DRAFT.value for r in rounds):
        return None
    waiting = next(
        (r for r in sorted(rounds, key=lambda r: r.number) if r.status == RoundStatus.UNPAIRED.value), None
    )
    if waiting is None or any(r.status not in DONE_ROUNDS for r in rounds if r.number < waiting.number):
        return None
    return waiting


def publish_next_round(
    uow: UnitOfWork,
    *,
    stage_id: int,
    actor: str,
    now: datetime,
    pair_lead_s: float,
    pairer: SwissPairer | None = None,
) -> AutoStep:
    """Pair and publish the stage's next round when the file lets the workers do it (module docstring)."""
    stage = uow.events.get_or_raise(Stage, stage_id)
    if stage.kind != StageKind.SWISS.value or stage.status != StageStatus.RUNNING.value:
        return AutoStep(stage_id, "not-swiss")
    if not auto_publishes(uow, stage):
        return AutoStep(stage_id, "off")
    # One publisher at a time (two copies of the job, or the job and staff at the desk), in the order
    # the round desk locks: the stage (as ``pair_next_round`` does), then the round.
    stage = uow.locks.lock(Stage, stage_id)
    if stage.status != StageStatus.RUNNING.value:
        return AutoStep(stage_id, "not-swiss")
    rounds = list(uow.rounds.rounds_of_stage(stage_id))
    if any(r.status == RoundStatus.DRAFT.value for r in rounds):
        return AutoStep(stage_id, "draft")
    if all(r.status != RoundStatus.UNPAIRED.value for r in rounds):
        return AutoStep(stage_id, "done")
    nxt = next_round_ready(rounds)
    if nxt is None:
        return AutoStep(stage_id, "waiting")
    rnd = uow.locks.lock(Round, nxt.id or 0)
    if rnd.status != RoundStatus.UNPAIRED.value:  # paired meanwhile by another copy or by staff
        return AutoStep(stage_id, "done", rnd.id, rnd.number)
    try:
        paired = pair_next_draft(uow, stage_id=stage_id, actor=actor, pairer=pairer)
    except Conflict as refusal:
        return AutoStep(stage_id, "refused", rnd.id, rnd.number, reason=refusal.message)
    publish_draft(uow, round_id=paired.id or 0, actor=actor)
    # A later round: beat's rounds.open_due, when due.
    due = bool(queue_due_games(uow, [paired], now=now, pair_lead_s=pair_lead_s))
    return AutoStep(stage_id, "published", paired.id, paired.number, games_queued=due)
