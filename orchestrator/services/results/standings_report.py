"""Rank a table of matches read from a file: the use case behind `olympiad standings` and `olympiad trf`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orchestrator.adapters.match_csv import MatchTable
from orchestrator.domain import lots
from orchestrator.domain.round_robin import is_complete_round_robin
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.trf.teams import write_trf

SWISS_NOTE = (
    "The matches are not a complete round robin: unplayed rounds follow the Swiss rules "
    "(FIDE C.07 Art. 16). Use --round-robin to apply the round-robin rules instead."
)


@dataclass(frozen=True, slots=True)
class StandingsReport:
    standings: Standings
    notes: tuple[str, ...]


def plays_round_robin(table: MatchTable, round_robin: bool | None = None) -> bool:
    """``round_robin`` when given; otherwise whether the table is a complete round robin (a Swiss if not)."""
    if round_robin is not None:
        return round_robin
    return is_complete_round_robin(table.teams, ((m.team_a, m.team_b) for m in table.matches))


def rank_table(
    table: MatchTable,
    *,
    chain: Sequence[str],
    boards: int,
    lot_seed: str | None = None,
    round_robin: bool | None = None,
) -> StandingsReport:
    """Standings of the table; ties left after the chain are drawn by lot given a seed (docs/rules.md §7).

    ``round_robin=None`` picks the rules from the schedule (``plays_round_robin``).
    """
    detected = round_robin is None
    round_robin = plays_round_robin(table, round_robin)
    first_note = (SWISS_NOTE,) if detected and not round_robin else ()
    standings = compute_standings(
        table.teams, table.matches, chain=chain, boards=boards, round_robin=round_robin
    )
    groups = standings.unresolved_ties
    if not groups or "LOT" not in chain:
        return StandingsReport(standings, first_note)
    if lot_seed is None:
        tied = "; ".join(", ".join(group) for group in groups)
        return StandingsReport(
            standings,
            (
                *first_note,
                f"Still tied after the chain: {tied}. Tie-break LOT needs a recorded lot (--lot-seed HEX).",
            ),
        )
    try:
        seed = bytes.fromhex(lot_seed)
    except ValueError:
        raise ValueError("--lot-seed must be hexadecimal") from None
    numbers: dict[str, int] = {}
    notes = [*first_note, f"Lot seed {lot_seed} (SHA-256 commitment {lots.commitment(seed)})"]
    for group in groups:
        order = lots.draw_order(seed, group, purpose="tie-break LOT")
        numbers.update({team: position for position, team in enumerate(order, start=1)})
        notes.append(f"Lot among {', '.join(sorted(group))}: {' > '.join(order)}")
    standings = compute_standings(
        table.teams, table.matches, chain=chain, boards=boards, lots=numbers, round_robin=round_robin
    )
    return StandingsReport(standings, tuple(notes))


def trf_text(
    table: MatchTable, *, chain: Sequence[str], boards: int, name: str, round_robin: bool | None = None
) -> str:
    """The table as a TRF-2026 file (``round_robin=None``: the rules ``plays_round_robin`` picks).

    Raises ``TieBreakError`` for what the format cannot hold (more than 999 teams, a line break in a name).
    """
    return write_trf(
        name=name,
        teams=table.teams,
        matches=table.matches,
        chain=chain,
        boards=boards,
        round_robin=plays_round_robin(table, round_robin),
    )
