"""Pool standings, cross tables and the pool page.

Standings come from the stored ``standing`` rows when the results service has computed them (they carry
recorded lots, fair-play rulings and the provisional flag); before that, they are computed here from the
boards with the same domain engine. Cross tables and rounds always come from the boards.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from orchestrator.adapters.tables import Board, Player, Round, Stage, Standing, Team
from orchestrator.adapters.tables import Pool as PoolRow
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.event import places_still_in
from orchestrator.domain.scoring import MatchForfeit, MatchRecord, forfeit_record
from orchestrator.domain.standings import TeamTotals, compute_standings, team_totals
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.services.read.context import (
    EventData,
    EventRef,
    StageItem,
    TeamRef,
    ref_team,
    require_id,
    team_strength,
    teams_by_id,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.formatting import average, format_score, format_value, tiebreak_label
from orchestrator.services.read.matches import MatchLine, RoundView, boards_of, match_line, round_views
from orchestrator.services.results import tie_lots
from orchestrator.services.row_views import row_view

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ValueCell:
    code: str
    text: str
    exact: str  # the Fraction as "n/d" (API consumers recompute nothing)


@dataclass(frozen=True, slots=True)
class StandingLine:
    rank: int
    team: TeamRef
    values: tuple[ValueCell, ...]
    separated_by: str | None  # tie-break code that split this row from the one above
    tied_with_previous: bool
    qualifies: bool
    mp: int
    gp_half: int
    played: int
    won: int
    drawn: int
    lost: int
    withdrawn_in: int | None = None  # the round from which it withdrew (docs/rules.md §6)

    @property
    def separated_label(self) -> str | None:
        return tiebreak_label(self.separated_by)[0] if self.separated_by else None


@dataclass(frozen=True, slots=True)
class CrossCell:
    opponent_id: int
    match_id: int | None
    round_number: int | None
    own_half: int | None  # None: not played yet (or still playing)
    other_half: int | None
    outcome: str | None  # "win", "draw", "loss"
    forfeit: bool = False

    @property
    def text(self) -> str:
        if self.own_half is None:
            return ""
        if self.forfeit:
            return "+" if self.outcome == "win" else "−"
        return format_score(self.own_half)


@dataclass(frozen=True, slots=True)
class CrossRow:
    team: TeamRef
    rank: int
    cells: tuple[CrossCell | None, ...]  # None on the diagonal
    mp: int
    gp_half: int

    @property
    def gp_text(self) -> str:
        return format_value(Fraction(self.gp_half, 2))


@dataclass(frozen=True, slots=True)
class ChainColumn:
    code: str
    short: str
    meaning: str


@dataclass(frozen=True, slots=True)
class PoolSummary:
    id: int
    letter: str
    average_rating: int | None
    team_count: int
    standings: tuple[StandingLine, ...]
    finished_matches: int
    total_matches: int


@dataclass(frozen=True, slots=True)
class TieLotNote:
    """A lot that orders teams tied after the whole chain (docs/lots.md): its hash from the moment it is
    committed, its seed and order once drawn (when the stage closes)."""

    places: str  # "2–4"
    teams: tuple[str, ...]
    commitment: str
    drawn: bool
    seed_hex: str | None
    order: tuple[str, ...] | None


@dataclass(frozen=True, slots=True)
class PoolView(JsonDocument):
    event: EventRef
    stage: StageItem
    id: int
    letter: str
    average_rating: int | None
    chain: tuple[ChainColumn, ...]
    standings: tuple[StandingLine, ...]
    standings_source: str  # "stored" (results service) or "computed" (from the boards, before that)
    provisional: bool
    crosstable: tuple[CrossRow, ...]
    rounds: tuple[RoundView, ...]
    topics: Topics
    tie_lots: tuple[TieLotNote, ...] = ()


@dataclass(frozen=True, slots=True)
class PoolStandings:
    lines: tuple[StandingLine, ...]
    source: str  # "stored" or "computed"
    provisional: bool


@dataclass
class PoolData:
    """One pool's teams, entries and matches, loaded once for its standings, cross table and rounds."""

    pool: PoolRow
    teams: dict[int, Team]
    entries: list[int]  # team ids by pairing number
    matches: list[MatchLine]
    rounds: list[Round]
    boards: dict[int, list[Board]] = field(default_factory=dict)
    withdrawn: dict[int, int] = field(default_factory=dict)  # team id -> the round it withdrew from


def chain_columns(chain: Sequence[str]) -> tuple[ChainColumn, ...]:
    return tuple(ChainColumn(code, *tiebreak_label(code)) for code in chain if code != "LOT")


def strengths(uow: UnitOfWork, team_ids: Iterable[int]) -> dict[int, int | None]:
    """Each team's strength (average rating of its main players)."""
    players: dict[int, list[Player]] = defaultdict(list)
    for player in uow.read.players_of_teams(team_ids):
        players[player.team_id].append(player)
    return {team_id: team_strength(players.get(team_id, [])) for team_id in team_ids}


def pool_average(pool: PoolData, strength: Mapping[int, int | None]) -> int | None:
    return average([strength.get(t) for t in pool.entries])


def load_pools(data: EventData, pools: Sequence[PoolRow]) -> list[PoolData]:
    uow = data.uow
    teams = teams_by_id(uow, data.id)
    matches = list(uow.read.matches_of_pools([require_id(p.id) for p in pools]))
    boards = boards_of(uow, matches)
    round_by_id = {r.id: r for r in data.rounds}
    out: list[PoolData] = []
    for pool in pools:
        pool_matches = [m for m in matches if m.pool_id == pool.id]
        lines = [
            match_line(
                m, round_by_id[m.round_id].number, teams, boards[require_id(m.id)], data.boards, data.annulled
            )
            for m in pool_matches
            if m.round_id in round_by_id
        ]
        pool_entries = [e for e in data.entries if e.pool_id == pool.id]
        entries = [e.team_id for e in pool_entries]
        withdrawn = {e.team_id: e.withdrawn_round for e in pool_entries if e.withdrawn_round is not None}
        rounds = [r for r in data.rounds if r.stage_id == pool.stage_id]
        by_match = {require_id(m.id): boards[require_id(m.id)] for m in pool_matches}
        out.append(PoolData(pool, teams, entries, lines, rounds, by_match, withdrawn))
    return out


def pool_table(
    data: EventData, stage: Stage, item: StageItem, pool: PoolData, stored: Sequence[Standing]
) -> PoolStandings:
    """The table a page shows: the stored standings (``standing`` rows, written by the results service
    from its ``pool_standings``) when every team has a row, else standings computed from the boards."""
    chain = data.chain(stage)
    records = [r for r in (match_record(m) for m in pool.matches) if r is not None]
    totals = team_totals([str(t) for t in pool.entries], records, scoring=data.scoring)
    # Qualifying places are marked once the pool has a finished match, not on an empty table.
    advance = (item.advance or 0) if records else 0
    if {s.team_id for s in stored} == set(pool.entries) and bool(pool.entries):
        lines = _stored_lines(pool, chain, stored, totals)
        provisional = any(row.provisional for row in stored)
        return PoolStandings(_mark_qualifiers(lines, pool.withdrawn, advance), "stored", provisional)
    try:
        lines = _computed_lines(data, pool, chain, records, totals)
    except TieBreakError:
        log.exception("pool %s: standings could not be computed", pool.pool.id)
        return PoolStandings((), "computed", True)
    finished = len(records) == len(pool.matches) and bool(pool.matches)
    lines = _mark_qualifiers(lines, pool.withdrawn, advance)
    return PoolStandings(lines, "computed", not finished or stage.status != "closed")


def _mark_qualifiers(
    lines: Sequence[StandingLine], withdrawn: Collection[int], advance: int
) -> tuple[StandingLine, ...]:
    """The "Q" mark: a place within ``advance`` among the teams that did not withdraw from the stage (the
    one rule of who qualifies, ``places_still_in``, docs/rules.md §6); a withdrawn team keeps its rank."""
    places = places_still_in(((line.team.id, line.rank) for line in lines), withdrawn)
    return tuple(replace(line, qualifies=0 < places.get(line.team.id, 0) <= advance) for line in lines)


def _stored_lines(
    pool: PoolData,
    chain: Sequence[str],
    stored: Sequence[Standing],
    totals: Mapping[str, TeamTotals],
) -> tuple[StandingLine, ...]:
    ranked = ((row.rank, row.team_id, _decoded(row.values), row.separated_by) for row in stored)
    return _lines(pool, chain, ranked, totals)


def _decoded(values: Mapping[str, Any] | None) -> dict[str, Fraction]:
    """A stored standing row's tie-break values, decoded."""
    return {code: _decode_value(v) for code, v in (values or {}).items()}


def _computed_lines(
    data: EventData,
    pool: PoolData,
    chain: Sequence[str],
    records: Sequence[MatchRecord],
    totals: Mapping[str, TeamTotals],
    *,
    team_ids: Sequence[int] | None = None,
    bye_mp: int | None = None,
    adjustments: Mapping[str, tuple[int, int]] | None = None,
) -> tuple[StandingLine, ...]:
    keys = [str(t) for t in (pool.entries if team_ids is None else team_ids)]
    standings = compute_standings(keys, records, chain=chain, boards=data.boards, scoring=data.scoring,
                                  round_robin=bye_mp is None, bye_mp=bye_mp,
                                  adjustments=adjustments)  # fmt: skip
    ranked = ((srow.rank, int(srow.team), dict(srow.values), srow.separated_by) for srow in standings.rows)
    return _lines(pool, chain, ranked, totals)


def _lines(
    pool: PoolData,
    chain: Sequence[str],
    ranked: Iterable[tuple[int, int, Mapping[str, Fraction], str | None]],
    totals: Mapping[str, TeamTotals],
) -> tuple[StandingLine, ...]:
    """The table's lines from (rank, team id, tie-break values, separated by) in rank order."""
    lines: list[StandingLine] = []
    previous_rank = None
    for rank, team_id, values, separated_by in ranked:
        lines.append(_line(rank, pool.teams[team_id], chain, values, separated_by, previous_rank,
                           totals[str(team_id)], pool.withdrawn.get(team_id)))  # fmt: skip
        previous_rank = rank
    return tuple(lines)


def ranked_lines(
    data: EventData,
    pool: PoolData,
    chain: Sequence[str],
    records: Sequence[MatchRecord],
    *,
    team_ids: Sequence[int],
    bye_mp: int,
    adjustments: Mapping[str, tuple[int, int]] | None = None,
) -> tuple[StandingLine, ...]:
    """A Swiss table (no round-robin criteria, the bye worth ``bye_mp``) of ``team_ids`` from ``records``
    (``match_record`` of the matches, and the byes), by the same engine and lines as the pool's table;
    teams level after the whole chain share their place (no lot). ``adjustments``: the bonus and penalty
    points counted, by team id as text (services/results/adjustments.py)."""
    keys = [str(t) for t in team_ids]
    totals = team_totals(keys, records, scoring=data.scoring, bye_mp=bye_mp, adjustments=adjustments)
    return _computed_lines(
        data, pool, chain, records, totals, team_ids=team_ids, bye_mp=bye_mp, adjustments=adjustments
    )


def match_record(line: MatchLine) -> MatchRecord | None:
    """The tie-break engine's view of a finished match; None while it is being played."""
    if not line.final:
        return None
    a, b = str(line.first.id), str(line.second.id)
    forfeit = MatchForfeit(line.forfeit)
    if forfeit is not MatchForfeit.NONE:
        return forfeit_record(line.round_number, a, b, forfeit, line.boards)
    return MatchRecord(line.round_number, a, b, line.first_half, line.second_half)


def _decode_value(raw: Any) -> Fraction:
    """A stored tie-break value: an integer, a number, ``"n/d"``, ``[n, d]`` or ``{"num", "den"}``."""
    if isinstance(raw, bool):
        return Fraction(int(raw))
    if isinstance(raw, int):
        return Fraction(raw)
    if isinstance(raw, float):
        return Fraction(raw).limit_denominator(1000)
    if isinstance(raw, str):
        return Fraction(raw.strip())
    if isinstance(raw, list | tuple) and len(raw) == 2:
        return Fraction(int(raw[0]), int(raw[1]))
    if isinstance(raw, dict):
        num = raw.get("num", raw.get("numerator", 0))
        den = raw.get("den", raw.get("denominator", 1))
        return Fraction(int(num or 0), int(den or 1))
    raise ValueError(f"unreadable standing value {raw!r}")


def _cell(code: str, value: Fraction) -> ValueCell:
    return ValueCell(code, format_value(value), f"{value.numerator}/{value.denominator}")


def _line(
    rank: int,
    team: Team,
    chain: Sequence[str],
    values: Mapping[str, Fraction],
    separated_by: str | None,
    previous_rank: int | None,
    totals: TeamTotals,
    withdrawn_in: int | None = None,
) -> StandingLine:
    cells = tuple(_cell(code, values.get(code, Fraction(0))) for code in chain if code != "LOT")
    return row_view(  # the totals' mp, gp_half, played, won, drawn and lost
        StandingLine,
        totals,
        rank=rank,
        team=ref_team(team),
        values=cells,
        separated_by=separated_by,
        tied_with_previous=previous_rank == rank,
        qualifies=False,  # marked once every line is known (``_mark_qualifiers``)
        withdrawn_in=withdrawn_in,
    )


def _cross_cells(pool: PoolData) -> dict[tuple[int, int], CrossCell]:
    cells: dict[tuple[int, int], CrossCell] = {}
    for m in pool.matches:
        a, b = m.first.id, m.second.id
        if m.final:
            for own, other, own_half, other_half in ((a, b, m.first_half, m.second_half),
                                                     (b, a, m.second_half, m.first_half)):  # fmt: skip
                outcome = "win" if own_half > other_half else "loss" if own_half < other_half else "draw"
                cells[(own, other)] = CrossCell(other, m.id, m.round_number, own_half, other_half, outcome,
                                                m.forfeit != "")  # fmt: skip
        else:
            cells[(a, b)] = CrossCell(b, m.id, m.round_number, None, None, None)
            cells[(b, a)] = CrossCell(a, m.id, m.round_number, None, None, None)
    return cells


def _crosstable(pool: PoolData, standings: Sequence[StandingLine]) -> tuple[CrossRow, ...]:
    order = [line.team.id for line in standings] or list(pool.entries)
    cells = _cross_cells(pool)
    by_line = {line.team.id: line for line in standings}
    rows = []
    for team_id in order:
        row_cells = tuple(
            None
            if other == team_id
            else cells.get((team_id, other), CrossCell(other, None, None, None, None, None))
            for other in order
        )
        line = by_line.get(team_id)
        rows.append(
            CrossRow(
                ref_team(pool.teams[team_id]),
                line.rank if line else 0,
                row_cells,
                line.mp if line else 0,
                line.gp_half if line else 0,
            )
        )
    return tuple(rows)


def pool_view(uow: UnitOfWork, *, slug: str, stage_key: str, letter: str) -> PoolView:
    """One pool: standings with every tie-break column, cross table and rounds."""
    data = EventData(uow, slug)
    stage = data.stage_by_key(stage_key)
    pool_row = data.public_pool(stage, letter)
    return pool_view_of(data, stage, load_pools(data, [pool_row])[0])


def pool_view_of(data: EventData, stage: Stage, pool: PoolData, *, crosstable: bool = True) -> PoolView:
    """``pool_view`` of a pool already loaded (the Swiss page reads the same pool for more); without
    ``crosstable`` (a Swiss stage's page has none: 190 teams make 36,000 cells) its ``crosstable`` is
    empty."""
    uow, slug, pool_row = data.uow, data.ref.slug, pool.pool
    item = data.items[require_id(stage.id)]
    stored = list(uow.read.standings_of_pools([require_id(pool_row.id)]))
    table = pool_table(data, stage, item, pool, stored)
    topics = (
        f"event:{slug}",
        f"stage:{stage.id}",
        f"pool:{pool_row.id}",
        *(f"match:{m.id}" for m in pool.matches),
    )
    return PoolView(
        event=data.ref,
        stage=item,
        id=require_id(pool_row.id),
        letter=pool_row.letter,
        average_rating=pool_average(pool, strengths(uow, pool.entries)),
        chain=chain_columns(data.chain(stage)),
        standings=table.lines,
        standings_source=table.source,
        provisional=table.provisional,
        crosstable=_crosstable(pool, table.lines) if crosstable else (),
        rounds=round_views(pool.rounds, pool.matches),
        topics=topics,
        tie_lots=_tie_lot_notes(uow, data, stage, pool_row, table.lines),
    )


def _tie_lot_notes(
    uow: UnitOfWork, data: EventData, stage: Stage, pool: PoolRow, lines: Sequence[StandingLine]
) -> tuple[TieLotNote, ...]:
    """The pool's tie-break (g) lots that order its tied teams: committed (hash) or drawn (seed, order)."""
    if "LOT" not in data.chain(stage):
        return ()
    lots = uow.lots.lots_with_purpose(data.id, tie_lots.lot_purpose(pool))
    if not lots:
        return ()
    rows = [(line.rank, line.team.name, line.separated_by) for line in lines]
    return tuple(
        TieLotNote(
            places=tie.places,
            teams=tie.teams,
            commitment=tie.lot.commitment,
            drawn=tie.drawn,
            seed_hex=tie.lot.seed_hex,  # None until the draw; the sealed seed is never read here
            order=tuple(map(str, tie.lot.outcome)) if tie.lot.outcome is not None else None,
        )
        for tie in tie_lots.ordered_groups(rows, lots)
        if tie.lot is not None
    )
