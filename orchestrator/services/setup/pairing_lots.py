"""The lot that draws a pool's pairing numbers (docs/rules.md §7, docs/lots.md).

Committed when the pools are published (``publish_pools``), so its hash is public while the stage waits to
start; drawn when the stage starts (``start_stage``). Pools published again (a re-seed) get new lots: the
old sealed ones are set aside (void, their seed published) so the log shows why they were never drawn.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from orchestrator.adapters.tables import Event, Lot, Pool, PoolEntry, Stage
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.services.setup import draws


def pairing_lot_purpose(stage_name: str, letter: str) -> str:
    """The purpose text of the lot that draws a pool's pairing numbers (also used by the simulation)."""
    return f"{stage_name} pool {letter} pairing numbers"


def colour_lot_purpose(stage_name: str) -> str:
    """The purpose of the lot that draws a Swiss stage's initial colour (C.04.6 art. 4.3.1), committed by
    its first start and drawn by the next (``stage_start``)."""
    return f"{stage_name} initial colour"


def _pool_seed(pairing_seed: bytes, event_slug: str, stage_key: str, letter: str, earlier: int) -> bytes:
    # One seed per event and pool, so that every lot has its own commitment (commitments are unique); a pool
    # published again (``earlier`` lots of its purpose already exist) gets another one.
    suffix = f"|{earlier}" if earlier else ""
    return hashlib.sha256(pairing_seed + f"|{event_slug}|{stage_key}|{letter}{suffix}".encode()).digest()


def pool_team_names(uow: UnitOfWork, pools: Sequence[Pool]) -> dict[int, list[str]]:
    """Each pool's team names, in its entries' order (the candidates of its pairing-number lot)."""
    entries: dict[int, Sequence[PoolEntry]] = {
        pool.id or 0: uow.rounds.entries_of_pool(pool.id or 0) for pool in pools
    }
    names = uow.teams.names_by_id([e.team_id for rows in entries.values() for e in rows])
    return {pool_id: [names[e.team_id] for e in rows] for pool_id, rows in entries.items()}


def commit_pairing_lots(
    uow: UnitOfWork,
    *,
    event: Event,
    stage: Stage,
    pools: Sequence[Pool],
    actor: str,
    pairing_seed: bytes | None = None,
    reason: str | None = None,
) -> dict[int, int]:
    """Commit one pairing-number lot per pool (its teams the candidates); returns the lot id of each pool.

    A still sealed lot of the same purpose (pools published before) is set aside first. ``pairing_seed`` is
    for tests and replays only: without it every lot takes a fresh secret seed.
    """
    names = pool_team_names(uow, pools)
    lot_ids: dict[int, int] = {}
    for pool in pools:
        purpose = pairing_lot_purpose(stage.name, pool.letter)
        earlier = uow.lots.lots_with_purpose(event.id or 0, purpose)
        for old in earlier:
            if old.seed_hex is None:
                draws.void_lot(
                    uow,
                    lot_id=old.id or 0,
                    actor=actor,
                    reason=f"superseded: the pools of {stage.name} were published again",
                )
        seed = (
            _pool_seed(pairing_seed, event.slug, stage.key, pool.letter, len(earlier))
            if pairing_seed is not None
            else None
        )
        lot_ids[pool.id or 0] = draws.commit_lot(
            uow,
            event_id=event.id or 0,
            purpose=purpose,
            candidates=names[pool.id or 0],
            actor=actor,
            kind="order",
            seed=seed,
            reason=reason,
        )
    return lot_ids


def pairing_lot_of(
    uow: UnitOfWork, *, event_id: int, stage: Stage, pool: Pool, teams: Sequence[str]
) -> Lot | None:
    """The lot committed when ``pool`` was published: the latest one of its purpose, not void, committed then
    or later, whose candidates are exactly the pool's teams; None when there is none (pools published before
    lots were committed at publishing, or a team changed since)."""
    purpose = pairing_lot_purpose(stage.name, pool.letter)
    for lot in reversed(uow.lots.lots_with_purpose(event_id, purpose)):
        void = lot.seed_hex is not None and lot.outcome is None
        published = pool.published_at is None or lot.committed_at >= pool.published_at
        if not void and published and sorted(map(str, lot.candidates)) == sorted(teams):
            return lot
    return None


def numbers_of(lot: Lot) -> Mapping[str, int]:
    """The pairing number of each team, from a drawn lot's order (first drawn = number 1)."""
    assert lot.outcome is not None
    return {str(name): number for number, name in enumerate(lot.outcome, start=1)}
