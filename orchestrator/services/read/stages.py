"""The stage page: its pools with strength and standings summary, or its play-off duels."""

from __future__ import annotations

from dataclasses import dataclass, replace

from orchestrator.adapters.tables import Duel, Match, Stage, StageKind
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.domain.scoring import MatchForfeit
from orchestrator.services.playoff.storage import ARMAGEDDON_LEG
from orchestrator.services.read.context import (
    EventData,
    EventRef,
    StageItem,
    TeamRef,
    is_public,
    ref_team,
    require_id,
    teams_by_id,
)
from orchestrator.services.read.documents import JsonDocument, Topics
from orchestrator.services.read.matches import MatchLine, RoundView, boards_of, match_line, round_views
from orchestrator.services.read.standings import (
    ChainColumn,
    PoolData,
    PoolSummary,
    chain_columns,
    load_pools,
    pool_average,
    pool_table,
    strengths,
)
from orchestrator.services.results.late_changes import late_changes


@dataclass(frozen=True, slots=True)
class DuelMatch:
    """One match of a duel (or its Armageddon game) scored from the duel's first team's side."""

    label: str  # "Match 1", "Match 2", "Armageddon"
    line: MatchLine  # first/second are the duel's first/second team, whichever team match 2 names first
    white: TeamRef | None = None  # the Armageddon's White (a draw sends Black's team through)


@dataclass(frozen=True, slots=True)
class DuelLine:
    key: str
    round_name: str
    first: TeamRef | None
    second: TeamRef | None
    first_source: str
    second_source: str
    status: str
    winner: TeamRef | None
    matches: tuple[DuelMatch, ...]


@dataclass(frozen=True, slots=True)
class StageView(JsonDocument):
    event: EventRef
    stage: StageItem
    chain: tuple[ChainColumn, ...]
    pools: tuple[PoolSummary, ...]
    pools_published: bool
    duels: tuple[DuelLine, ...]
    rounds: tuple[RoundView, ...]  # round schedule, without matches
    topics: Topics
    late_notes: tuple[str, ...] = ()  # final standings changed after closing, and the ruling (rules.md §6)


def stage_view(uow: UnitOfWork, *, slug: str, stage_key: str) -> StageView:
    """One stage: its pools with strength and standings summary, or its duels."""
    data = EventData(uow, slug)
    stage = data.stage_by_key(stage_key)
    pools = [p for p in data.pools if p.stage_id == stage.id and is_public(p)]
    loaded = load_pools(data, pools)
    summaries = _pool_summaries(data, stage, loaded)
    duels = _duels(data, stage) if stage.kind == StageKind.KNOCKOUT else ()
    all_matches = [m for pool in loaded for m in pool.matches]
    rounds = tuple(
        replace(r, matches=())
        for r in round_views([r for r in data.rounds if r.stage_id == stage.id], all_matches)
    )
    topics = (f"event:{slug}", f"stage:{stage.id}", *(f"pool:{p.id}" for p in summaries))
    return StageView(
        event=data.ref,
        stage=data.items[require_id(stage.id)],
        chain=chain_columns(data.chain(stage)),
        pools=summaries,
        pools_published=bool(summaries),
        duels=duels,
        rounds=rounds,
        topics=topics + tuple(f"duel:{d.id}" for d in data.duels if d.stage_id == stage.id),
        late_notes=tuple(
            change.public_note() for change in late_changes(uow, stage_id=require_id(stage.id), shown=True)
        ),
    )


def _pool_summaries(data: EventData, stage: Stage, loaded: list[PoolData]) -> tuple[PoolSummary, ...]:
    item = data.items[require_id(stage.id)]
    stored_all = list(data.uow.read.standings_of_pools(require_id(p.pool.id) for p in loaded))
    pool_ids = {p.pool.id for p in loaded}
    strength = strengths(data.uow, [e.team_id for e in data.entries if e.pool_id in pool_ids])
    summaries = []
    for pool in loaded:
        stored = [s for s in stored_all if s.pool_id == pool.pool.id]
        table = pool_table(data, stage, item, pool, stored)
        summaries.append(
            PoolSummary(
                id=require_id(pool.pool.id),
                letter=pool.pool.letter,
                average_rating=pool_average(pool, strength),
                team_count=len(pool.entries),
                standings=table.lines,
                finished_matches=sum(1 for m in pool.matches if m.final),
                total_matches=len(pool.matches),
            )
        )
    return tuple(summaries)


def _duels(data: EventData, stage: Stage) -> tuple[DuelLine, ...]:
    duels = [d for d in data.duels if d.stage_id == stage.id]
    teams = teams_by_id(data.uow, data.id)
    legs = list(data.uow.read.matches_of_duels(require_id(d.id) for d in duels))
    boards = boards_of(data.uow, legs)
    round_by_id = {r.id: r.number for r in data.rounds}

    def team(team_id: int | None) -> TeamRef | None:
        return ref_team(teams[team_id]) if team_id else None

    out = []
    for duel in duels:
        lines = tuple(
            _duel_match(
                duel,
                m,
                match_line(
                    m,
                    round_by_id.get(m.round_id, 0),
                    teams,
                    boards[require_id(m.id)],
                    1 if m.leg == ARMAGEDDON_LEG else data.boards,
                    data.annulled,
                ),
            )
            for m in sorted(legs, key=lambda m: m.leg or 0)
            if m.duel_id == duel.id
        )
        out.append(
            DuelLine(
                key=duel.key,
                round_name=duel.round_name,
                first=team(duel.first_team_id),
                second=team(duel.second_team_id),
                first_source=duel.first_source,
                second_source=duel.second_source,
                status=duel.status,
                winner=team(duel.winner_team_id),
                matches=lines,
            )
        )
    return tuple(out)


_SWAPPED_FORFEIT = {
    MatchForfeit.A_WINS.value: MatchForfeit.B_WINS.value,
    MatchForfeit.B_WINS.value: MatchForfeit.A_WINS.value,
}


def _duel_match(duel: Duel, match: Match, line: MatchLine) -> DuelMatch:
    """Match 2 names the duel's second team first (colours reversed, docs/knockout.md): turn it round so
    every score of a duel reads from the same side."""
    armageddon = match.leg == ARMAGEDDON_LEG
    label = "Armageddon" if armageddon else f"Match {match.leg}"
    white = line.first if armageddon else None  # the one board: the match's first team has White
    if match.first_team_id == duel.first_team_id:
        return DuelMatch(label, line, white)
    turned = replace(
        line,
        first=line.second,
        second=line.first,
        first_half=line.second_half,
        second_half=line.first_half,
        forfeit=_SWAPPED_FORFEIT.get(line.forfeit, line.forfeit),
    )
    return DuelMatch(label, turned, white)
