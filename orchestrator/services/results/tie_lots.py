"""The tie-break (g) lot of a pool: teams still tied after the whole chain (docs/rules.md §4, §7).

When each lot is committed and drawn (docs/lots.md, "When each lot is committed and drawn"):

- committed once the pool's last match is complete and a group of teams is still tied (the standings'
  recomputation, ``standings.recompute_pool``), or at the latest by the first attempt to close the stage,
  which then refuses to close, so the hash is public before the draw;
- drawn when the stage closes (``standings.close_stage``), never in the step that committed it.

A lot belongs to exactly one group (its candidates). If a correction changes the group, the earlier lot
no longer matches and a new one is committed for the new group; the unused sealed ones are set aside (void:
seed published, no outcome) when the pool's lots are drawn. A drawn lot is reused whenever the same group
is tied again, so no group is drawn twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from orchestrator.adapters.tables import Lot, Pool
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.standings import Standings
from orchestrator.services.setup import draws
from orchestrator.translation import gettext as _


def lot_purpose(pool: Pool) -> str:
    """The purpose of every tie-break lot of ``pool`` (one per group of tied teams)."""
    return f"tie-break LOT pool {pool.id}"


def _void(lot: Lot) -> bool:
    return lot.seed_hex is not None and lot.outcome is None


def _drawn(lot: Lot) -> bool:
    return lot.seed_hex is not None and lot.outcome is not None


@dataclass(frozen=True, slots=True)
class TieLot:
    """A group of teams tied after the chain, the places they share, and the group's lot (None: none yet)."""

    first_place: int
    teams: tuple[str, ...]
    lot: Lot | None

    @property
    def places(self) -> str:
        return f"{self.first_place}–{self.first_place + len(self.teams) - 1}"

    @property
    def committed(self) -> bool:
        return self.lot is not None

    @property
    def drawn(self) -> bool:
        return self.lot is not None and _drawn(self.lot)

    def sentence(self, pool_letter: str) -> str:
        return _("the lot for places %(places)s of pool %(pool)s (%(teams)s)") % {
            "places": self.places,
            "pool": pool_letter,
            "teams": ", ".join(sorted(self.teams)),
        }


def lot_for(group: Iterable[str], lots: Sequence[Lot]) -> Lot | None:
    """The lot of exactly this group: the latest drawn one, else the latest sealed one (void ones never)."""
    wanted = set(group)
    matching = [lot for lot in lots if not _void(lot) and set(map(str, lot.candidates)) == wanted]
    drawn = [lot for lot in matching if _drawn(lot)]
    chosen = drawn or matching
    return chosen[-1] if chosen else None


def pool_ties(uow: UnitOfWork, *, event_id: int, pool: Pool, standings: Standings) -> tuple[TieLot, ...]:
    """Each group still tied in ``standings`` (ranked without lots) with its lot."""
    groups = standings.unresolved_ties
    if not groups:
        return ()
    lots = uow.lots.lots_with_purpose(event_id, lot_purpose(pool))
    return tuple(TieLot(standings.rank_of(group[0]), tuple(group), lot_for(group, lots)) for group in groups)


def ordered_groups(rows: Iterable[tuple[int, str, str | None]], lots: Sequence[Lot]) -> tuple[TieLot, ...]:
    """For pages: the groups of a ranked table (rank, team, separated by) that share a place or were
    ordered by LOT, each with its lot; a group without a lot is left out."""
    segments: list[list[tuple[int, str]]] = []
    previous: int | None = None
    for rank, team, separated_by in rows:
        if segments and (rank == previous or separated_by == "LOT"):
            segments[-1].append((rank, team))
        else:
            segments.append([(rank, team)])
        previous = rank
    found: list[TieLot] = []
    for segment in segments:
        teams = tuple(team for _rank, team in segment)
        lot = lot_for(teams, lots) if len(segment) > 1 else None
        if lot is not None:
            found.append(TieLot(segment[0][0], teams, lot))
    return tuple(found)


def lot_numbers(ties: Sequence[TieLot]) -> dict[str, int] | None:
    """Each tied team's place in its group's drawn order; None unless every group's lot is drawn."""
    if not ties or not all(tie.drawn for tie in ties):
        return None
    numbers: dict[str, int] = {}
    for tie in ties:
        assert tie.lot is not None and tie.lot.outcome is not None
        numbers.update({str(team): i for i, team in enumerate(tie.lot.outcome, start=1)})
    return numbers


def commit_missing(
    uow: UnitOfWork, *, event_id: int, pool: Pool, ties: Sequence[TieLot], actor: str, reason: str
) -> tuple[TieLot, ...]:
    """Commit a lot for every group that has none (the hash only); returns the groups that got one."""
    committed: list[TieLot] = []
    for tie in ties:
        if tie.lot is not None:
            continue
        lot_id = draws.commit_lot(
            uow,
            event_id=event_id,
            purpose=lot_purpose(pool),
            candidates=tie.teams,
            actor=actor,
            kind="order",
            reason=f"{reason}: places {tie.places} of pool {pool.letter} are still tied after the chain",
        )
        committed.append(TieLot(tie.first_place, tie.teams, uow.lots.get_or_raise(Lot, lot_id)))
    return tuple(committed)


def draw_sealed(uow: UnitOfWork, *, ties: Sequence[TieLot], actor: str) -> None:
    """Draw every group's committed, not yet drawn lot (committed in an earlier step)."""
    for tie in ties:
        if tie.lot is not None and tie.lot.seed_hex is None:
            draws.reveal_lot(uow, lot_id=tie.lot.id or 0, actor=actor)


def void_unused(uow: UnitOfWork, *, event_id: int, pool: Pool, ties: Sequence[TieLot], actor: str) -> None:
    """Set aside the pool's sealed tie-break lots that no group uses (their group changed before the draw)."""
    used = {tie.lot.id for tie in ties if tie.lot is not None}
    for lot in uow.lots.lots_with_purpose(event_id, lot_purpose(pool)):
        if lot.seed_hex is None and lot.id not in used:
            draws.void_lot(
                uow,
                lot_id=lot.id or 0,
                actor=actor,
                reason=(
                    f"not used: {', '.join(sorted(map(str, lot.candidates)))} were no longer tied when the "
                    f"lots of pool {pool.letter} were drawn"
                ),
            )
