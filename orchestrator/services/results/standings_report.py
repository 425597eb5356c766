"""Rank a table of matches read from a file: the use case behind `olympiad standings` and `olympiad trf`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.adapters.match_csv import MatchTable
from orchestrator.domain import lots
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.trf import write_trf


@dataclass(frozen=True, slots=True)
class StandingsReport:
    standings: Standings
    notes: tuple[str, ...]


def rank_table(
    table: MatchTable,
    *,
    chain: Sequence[str],
    boards: int,
    lot_seed: str | None = None,
    round_robin: bool = True,
) -> StandingsReport:
    """Standings of the table; ties left after the chain are drawn by lot when a seed is given
    (docs/rules.md §7)."""
    standings = compute_standings(
        table.teams, table.matches, chain=chain, boards=boards, round_robin=round_robin
    )
    groups = standings.unresolved_ties
    if not groups or "LOT" not in chain:
        return StandingsReport(standings, ())
    if lot_seed is None:
        tied = "; ".join(", ".join(group) for group in groups)
        return StandingsReport(
            standings,
            (f"Still tied after the chain: {tied}. Tie-break LOT needs a recorded lot (--lot-seed HEX).",),
        )
    try:
        seed = bytes.fromhex(lot_seed)
    except ValueError:
        raise ValueError("--lot-seed must be hexadecimal") from None
    numbers: dict[str, int] = {}
    notes = [f"Lot seed {lot_seed} (SHA-256 commitment {lots.commitment(seed)})"]
    for group in groups:
        order = lots.draw_order(seed, group, purpose="tie-break LOT")
        numbers.update({team: position for position, team in enumerate(order, start=1)})
        notes.append(f"Lot among {', '.join(sorted(group))}: {' > '.join(order)}")
    standings = compute_standings(
        table.teams, table.matches, chain=chain, boards=boards, lots=numbers, round_robin=round_robin
    )
    return StandingsReport(standings, tuple(notes))


def trf_text(
    table: MatchTable, *, chain: Sequence[str], boards: int, name: str, round_robin: bool = True
) -> str:
    """The table as a TRF-2026 file."""
    return write_trf(
        name=name,
        teams=table.teams,
        matches=table.matches,
        chain=chain,
        boards=boards,
        round_robin=round_robin,
    )
