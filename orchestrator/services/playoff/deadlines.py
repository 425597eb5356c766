"""What the beat applies when a play-off deadline passes (docs/rules.md §5, docs/workers.md)."""

from __future__ import annotations

from datetime import datetime

from orchestrator.adapters.tables import Armageddon, ArmageddonStatus, Duel, Round, Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.services.playoff._context import load_duel
from orchestrator.services.playoff.armageddon import unseal
from orchestrator.services.playoff.storage import ARMAGEDDON_ROUND_BASE
from orchestrator.services.playoff.sync import advance_unless_settled
from orchestrator.services.teams.lineups import apply_lineups


def apply_due_deadlines(
    uow: UnitOfWork, now: datetime | None = None, *, actor: str = "system"
) -> dict[str, int]:
    """For the beat: unseal Armageddons past their deadline (defaults apply), apply lineups of rounds past
    their lineup deadline, and move running brackets on (each Armageddon's phase brought in line with its
    game first; nothing to do for a bracket in a state an earlier advance left as it was). Idempotent;
    returns what it did."""
    now = now or utcnow()
    done = {"armageddons_revealed": 0, "rounds_lined_up": 0, "duels_changed": 0}
    stages = list(uow.events.running_knockout_stages())
    for stage in stages:  # the stage, then duels, then rounds: the order every bracket writer takes
        uow.locks.lock(Stage, stage.id or 0)
    for arm in uow.playoff.due_armageddons(now):
        done["armageddons_revealed"] += _unseal(uow, arm, now=now, actor=actor)
    for rnd in uow.rounds.due_lineup_rounds(now):
        if rnd.number >= ARMAGEDDON_ROUND_BASE:
            continue
        # Locked as the pairing does (never beside it on the same boards), but not waited for: a round
        # another job holds is being paired (which applies the line-ups itself) or edited by staff, and
        # the next tick comes back to it.
        if uow.locks.try_lock(Round, rnd.id or 0) is None:
            continue
        apply_lineups(uow, round_id=rnd.id or 0, actor=actor)
        done["rounds_lined_up"] += 1
    for stage in stages:
        changed, _final = advance_unless_settled(
            uow, stage_id=stage.id or 0, actor=actor, now=now, follow_up=False
        )
        done["duels_changed"] += len(changed)
    return done


def unseal_duel_if_due(uow: UnitOfWork, *, duel_id: int, now: datetime, actor: str) -> bool:
    """``apply_due_deadlines``' unsealing for one duel (the ``playoff.duel`` job): its Armageddon's
    nominations are revealed, defaults applied, once their deadline has passed; True if it did."""
    arm = uow.playoff.armageddon_of_duel(duel_id)
    if not _due(arm, now):
        return False
    assert arm is not None
    uow.locks.lock(Stage, uow.playoff.get_or_raise(Duel, duel_id).stage_id)  # the stage, then the duel
    return _unseal(uow, arm, now=now, actor=actor)


def _due(arm: Armageddon | None, now: datetime) -> bool:
    return (
        arm is not None
        and arm.status == ArmageddonStatus.NOMINATING.value
        and arm.deadline_at is not None
        and arm.deadline_at <= now
    )


def _unseal(uow: UnitOfWork, arm: Armageddon, *, now: datetime, actor: str) -> bool:
    """Reveal ``arm``'s nominations if it is still sealed, read again under its duel's lock."""
    ctx, duel = load_duel(uow, arm.duel_id, lock=True)
    if ctx.armageddons[arm.duel_id].phase is not ArmageddonPhase.NOMINATING:
        return False  # another worker revealed it since it was read
    unseal(uow, ctx, duel, now=now, actor=actor)
    return True
