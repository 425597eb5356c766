"""Keeping the stored play-off in line with played games, for results and the workers: each Armageddon's
phase follows its game, then the bracket advances; a bracket an earlier advance left as it was is skipped
(docs/workers.md)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from datetime import datetime

from orchestrator.adapters.repo_playoff import BracketState
from orchestrator.adapters.tables import (
    Armageddon,
    Board,
    Duel,
    DuelStatus,
    Match,
    MatchStatus,
    Round,
    RoundStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain import knockout as ko
from orchestrator.domain.knockout import ArmageddonPhase
from orchestrator.domain.scoring import GameResult
from orchestrator.services.playoff._context import StageContext
from orchestrator.services.playoff.commands import Advanced, advance, advance_bracket
from orchestrator.services.playoff.read import bracket_view
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.services.queue import PLAYOFF_DUEL, enqueue


def advance_after_match(uow: UnitOfWork, *, match_id: int, actor: str) -> list[str]:
    """For results and workers: after a duel match's result changed, move its bracket on (no-op otherwise)."""
    match = uow.rounds.get(Match, match_id)
    if match is None or match.duel_id is None:
        return []
    duel = uow.playoff.get_or_raise(Duel, match.duel_id)
    if match.leg == ARMAGEDDON_LEG:
        sync_armageddon_phase(uow, duel)
    return advance_bracket(uow, stage_id=duel.stage_id, actor=actor)


def advance_stage_bracket(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None
) -> list[str]:
    """For the workers: bring every Armageddon's phase in line with its game, then advance the bracket.

    A duel the advance makes level queues its ``playoff.duel`` (after the commit): its Armageddon's lots
    and defaults follow at once instead of on the next beats.
    """
    return _advance_for_workers(uow, stage_id=stage_id, actor=actor, now=now).changed


def _advance_for_workers(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None, follow_up: bool = True
) -> Advanced:
    _sync_armageddons(uow, stage_id)
    uow.flush()
    done = advance(uow, stage_id=stage_id, actor=actor, now=now)
    if follow_up:
        for key in done.levelled:
            enqueue(uow, PLAYOFF_DUEL, done.ctx.duels[key].id or 0)
    return done


# The workers' fast path: a bracket state (``uow.playoff.bracket_state``) an earlier advance left as it was,
# with no champion yet, per database and stage. The advance is a function of that state alone (the event
# file never changes once the event exists), so the same state needs no advance, view or champion check:
# a tick that has nothing to do reads two queries' worth of plain rows. Per process; a stale entry only
# names a state that has since changed, which never matches again.
_settled: dict[tuple[str, int], BracketState] = {}
_settled_lock = threading.Lock()


def _settled_key(uow: UnitOfWork, stage_id: int) -> tuple[str, int]:
    return (uow.database_url, stage_id)


def _is_settled(uow: UnitOfWork, stage_id: int, state: BracketState) -> bool:
    with _settled_lock:
        return _settled.get(_settled_key(uow, stage_id)) == state


def _remember_settled(key: tuple[str, int], state: BracketState) -> None:
    with _settled_lock:
        _settled[key] = state


def settle_stage_bracket(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None = None
) -> tuple[str, ...]:
    """For the workers' close: ``advance_stage_bracket``, then the champions (empty until the final is
    decided, or before the bracket is built).

    Skips both when the stored bracket is in a state an earlier call found nothing to change in and no
    champion: the advance is a function of that state, so it would find nothing again.
    """
    return advance_unless_settled(uow, stage_id=stage_id, actor=actor, now=now)[1]


def advance_unless_settled(
    uow: UnitOfWork, *, stage_id: int, actor: str, now: datetime | None, follow_up: bool = True
) -> tuple[list[str], tuple[str, ...]]:
    """``_advance_for_workers`` unless the stage's bracket is settled; (changed duel keys, champions).

    A state is remembered as settled when the advance left it exactly as it was (the state read after it
    equals the one read before), wrote no ``duel.conflict`` (those are written again on every advance
    until staff act) and the final is not decided. Comparing two reads also keeps it safe beside other
    workers: a result another transaction commits while the advance runs (each statement sees the latest
    commits) makes the two reads differ, so a remembered state is always one the advance itself read.
    Remembering the state an advance *produced* instead is not safe for that reason.
    """
    state = uow.playoff.bracket_state(stage_id)
    if not state.duels or _is_settled(uow, stage_id, state):
        return [], ()
    done = _advance_for_workers(uow, stage_id=stage_id, actor=actor, now=now, follow_up=follow_up)
    champions = _champions(uow, done.ctx, now)
    if not champions and not done.conflicts and uow.playoff.bracket_state(stage_id) == state:
        uow.after_commit(_remember_settled, _settled_key(uow, stage_id), state)
    return done.changed, champions


def _champions(uow: UnitOfWork, ctx: StageContext, now: datetime | None) -> tuple[str, ...]:
    """``bracket_view(...).champions``, without building the view while the final is not decided."""
    final = ko.final_duel(ko.resolve_bracket(ctx.specs, {}, {}))
    duel = ctx.duels.get(final.spec.key) if final is not None else None
    if duel is None or duel.status != DuelStatus.DECIDED.value:
        return ()
    return bracket_view(uow, stage_id=ctx.stage.id or 0, now=now).champions


def _sync_armageddons(uow: UnitOfWork, stage_id: int) -> None:
    """``sync_armageddon_phase`` for every duel of the stage, in three queries."""
    arms = uow.playoff.armageddons_of_duels(d.id for d in uow.playoff.duels_of_stage(stage_id))
    if not arms:
        return
    games = {
        m.duel_id or 0: m
        for ms in uow.playoff.matches_of_duels(arms).values()
        for m in ms
        if m.leg == ARMAGEDDON_LEG
    }
    boards = uow.boards.boards_of_matches(m.id for m in games.values())
    for duel_id, arm in arms.items():
        match = games.get(duel_id)
        if match is not None:
            _sync_armageddon(uow, arm, match, boards.get(match.id or 0, []))


def finish_game(uow: UnitOfWork, match: Match) -> None:
    """The Armageddon game has its result: its match and its round are finished, as a pool round's are
    once every board is final (``results.settle_round``). The round is locked before the match is written
    (duel, then round, then match: the order of ``results._lock``)."""
    rnd = uow.rounds.get_or_raise(Round, match.round_id)
    if match.status == MatchStatus.FINISHED.value and rnd.status == RoundStatus.FINISHED.value:
        return
    rnd = uow.locks.lock(Round, match.round_id)
    if match.status != MatchStatus.FINISHED.value:
        match.status = MatchStatus.FINISHED.value
        match.finished_at = match.finished_at or utcnow()
        uow.rounds.add(match)
    if rnd.status != RoundStatus.FINISHED.value:
        rnd.status = RoundStatus.FINISHED.value
        uow.rounds.add(rnd)


def _sync_armageddon(uow: UnitOfWork, arm: Armageddon, match: Match, boards: Sequence[Board]) -> None:
    if boards and GameResult(boards[0].result).is_final:
        arm.enter(ArmageddonPhase.FINISHED)
        finish_game(uow, match)
    elif boards and boards[0].game_id:
        arm.enter(ArmageddonPhase.PLAYING)
    uow.playoff.add(arm)


def sync_armageddon_phase(uow: UnitOfWork, duel: Duel) -> None:
    arm = uow.playoff.armageddon_of_duel(duel.id or 0)
    if arm is None:
        return
    match = next(
        (m for m in uow.playoff.matches_of_duels([duel.id])[duel.id or 0] if m.leg == ARMAGEDDON_LEG), None
    )
    if match is None:
        return
    _sync_armageddon(uow, arm, match, uow.boards.boards_of_matches([match.id])[match.id or 0])
