"""A pool stage's pools: entrants, the draft, staff swaps and publishing (docs/rules.md §3).

- ``draft_pools``: entrants of a stage (the previous stages' qualifiers from their FINAL standings, then
  the seeded teams), split into pools of approximately equal strength with the previous pool winners apart.
- ``swap_teams``: staff adjust the draft (e.g. by time zone); averages and spread are recomputed.
- ``publish_pools``: the draft becomes public and can no longer be changed.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from fractions import Fraction

from orchestrator.adapters.tables import (
    Event,
    EventStatus,
    Pool,
    PoolEntry,
    PoolStatus,
    Stage,
    StageStatus,
)
from orchestrator.adapters.uow import UnitOfWork
from orchestrator.db import utcnow
from orchestrator.domain.event import EventDefinition, Qualifiers, StageDef, places_still_in
from orchestrator.domain.event import stage_entrants as domain_stage_entrants
from orchestrator.domain.pools import (
    PoolEntrant,
    PoolSplit,
    PoolSplitError,
    entrant_of,
    evaluate_split,
    split_pools,
)
from orchestrator.errors import Conflict, NotFound, ValidationFailed
from orchestrator.services import live
from orchestrator.services.audit_trail import flush_and_audit
from orchestrator.services.definitions import definition_of
from orchestrator.services.setup import draws, pairing_lots
from orchestrator.services.setup.event_setup import (
    EventField,
    event_field,
    pool_stage,
    stage_definition,
)
from orchestrator.translation import gettext as _

# --- entrants and pools ---------------------------------------------------------------------------------


def final_places(uow: UnitOfWork, *, stage_id: int) -> dict[int | None, list[int]]:
    """Who qualifies from a stage: each pool's teams (pool id -> team ids) by their place in its FINAL
    standings among the teams that did not withdraw from it, 1st first (``places_still_in``, docs/rules.md
    §6, "Withdrawals"); empty while the stage has no final standings.

    The one reader of qualifying places: the next stage's draft (``draft_pools``), the bracket's pool places
    (``playoff.commands.build_bracket``) and the late-change review (``results.late_changes``) all use it.
    """
    withdrawn = uow.rounds.withdrawn_from_stage(stage_id)
    ranked: dict[int | None, list[tuple[int, int]]] = defaultdict(list)
    for row in uow.rounds.final_standings(stage_id):
        ranked[row.pool_id].append((row.team_id, row.rank))
    places = {pool_id: places_still_in(rows, withdrawn) for pool_id, rows in ranked.items()}
    return {pool_id: sorted(teams, key=teams.__getitem__) for pool_id, teams in places.items()}


def _final_pool_orders(uow: UnitOfWork, stage: Stage, field: EventField) -> list[list[str]]:
    """Final standings of a stage's pools (pool order A, B, ...), each as the names of the teams still in,
    by place (``final_places``)."""
    pools = uow.rounds.pools_of_stage(stage.id or 0)
    by_pool = {
        pool_id: [field.name(team_id) for team_id in teams]
        for pool_id, teams in final_places(uow, stage_id=stage.id or 0).items()
    }
    missing = [pool.letter for pool in pools if pool.id not in by_pool]
    if not pools or missing:
        if pools and missing:
            message = _(
                "%(stage)s has no final standings yet (pools %(pools)s): the next stage is seeded only from "
                "final standings, after the stage is closed and no appeal is open"
            ) % {"stage": stage.name, "pools": ", ".join(missing)}
        else:
            message = _(
                "%(stage)s has no final standings yet: the next stage is seeded only from final standings, "
                "after the stage is closed and no appeal is open"
            ) % {"stage": stage.name}
        raise Conflict(message)
    return [by_pool[pool.id] for pool in pools]


@dataclass(frozen=True, slots=True)
class _Entrants:
    names: list[str]
    apart: list[str]  # previous stages' pool winners that must not share a pool (docs/rules.md §3)


def _entrants(
    uow: UnitOfWork, event: Event, stage: Stage, definition: EventDefinition, field: EventField
) -> _Entrants:
    stage_def = stage_definition(definition, stage)
    finals: dict[str, list[list[str]]] = {}
    winners: list[str] = []
    for entrant in stage_def.entrants:
        if isinstance(entrant, Qualifiers):
            source = uow.events.stage_by_key(event.id or 0, entrant.stage)
            if source is None:  # pragma: no cover - the validator checked the graph
                raise Conflict(
                    _("%(stage)s takes qualifiers from an unknown stage %(source)s")
                    % {"stage": stage.name, "source": entrant.stage}
                )
            orders = _final_pool_orders(uow, source, field)
            finals[entrant.stage] = orders
            winners.extend(order[0] for order in orders if order)
    # The definition's field is replaced by the stored one (rosters may have been imported since).
    stored = replace(definition, teams=tuple(field.domain.values()))
    try:
        names = domain_stage_entrants(stored, stage.key, finals)
    except KeyError as error:
        raise ValidationFailed(
            [
                _("%(stage)s: %(team)s: import the team first")
                % {"stage": stage.name, "team": error.args[0] if error.args else error}
            ]
        ) from None
    except ValueError as error:
        raise ValidationFailed([str(error)]) from None
    _check_sections(definition, stage_def, names, field)
    apart = [name for name in winners if name in names] if stage_def.winners_apart else []
    return _Entrants(names=names, apart=apart)


def _check_sections(
    definition: EventDefinition, stage: StageDef, names: list[str], field: EventField
) -> None:
    """A stage draws the teams of its own section only (docs/sections.md): a team imported since with a seed
    of the stage's range but another section is refused, every such team listed."""
    sections = {section.key: section.name for section in definition.sections}
    strays = [
        field.domain[field.by_name[name]]
        for name in names
        if field.domain[field.by_name[name]].section != stage.section
    ]
    if strays:
        raise ValidationFailed(
            [
                _(
                    "%(stage)s (%(section)s section) would draw %(team)s (seed %(seed)s), a team of the "
                    "%(other)s section: give it a seed of its own section"
                )
                % {
                    "stage": stage.name,
                    "section": sections.get(stage.section, _("no")),
                    "team": team.name,
                    "seed": team.seed,
                    "other": sections.get(team.section, _("no")),
                }
                for team in strays
            ]
        )


def stage_entrants(uow: UnitOfWork, *, stage_id: int) -> tuple[list[str], list[str]]:
    """The teams a pool stage would be drafted from now (earlier stages' final standings, then the seeds),
    and the pool winners to keep apart."""
    event, stage = uow.events.event_and_stage(stage_id)
    entrants = _entrants(uow, event, stage, definition_of(event), event_field(uow, event.id or 0))
    return entrants.names, entrants.apart


def draft_pools(uow: UnitOfWork, *, stage_id: int, actor: str) -> list[int]:
    """Split a stage's entrants into draft pools of approximately equal strength (docs/rules.md §3);
    returns pool ids.

    Drafting again replaces the previous draft; published pools are not touched.
    """
    event, stage = pool_stage(
        uow, stage_id, StageStatus.DRAFT, _("%(stage)s is %(status)s: its pools can no longer be drafted")
    )
    definition = definition_of(event)
    stage_def = stage_definition(definition, stage)
    field = event_field(uow, event.id or 0)
    entrants = _entrants(uow, event, stage, definition, field)
    pool_entrants = [entrant_of(field.domain[field.by_name[name]]) for name in entrants.names]
    try:
        split = split_pools(
            pool_entrants,
            pool_count=stage_def.pool_count,
            pool_size=stage_def.pool_size,
            apart=entrants.apart,
        )
    except PoolSplitError as error:
        raise ValidationFailed([f"{stage.name}: {error}"]) from None
    if uow.rounds.pools_of_stage(stage_id):  # a draft again: the previous draft goes
        uow.rounds.delete_pools(stage_id)
        uow.flush()
    pool_ids: list[int] = []
    for pool in split.pools:
        row = uow.rounds.insert(Pool(stage_id=stage_id, letter=pool.letter, status=PoolStatus.DRAFT.value))
        assert row.id is not None
        pool_ids.append(row.id)
        # Provisional numbers (strongest first); the real ones are drawn by lot when the stage starts.
        for number, entrant in enumerate(pool.entrants, start=1):
            uow.rounds.add(
                PoolEntry(pool_id=row.id, team_id=field.by_name[entrant.team], pairing_number=number)
            )
    flush_and_audit(
        uow,
        stage,
        "pools.draft",
        actor=actor,
        event_id=event.id or 0,
        new={
            "pools": {pool.letter: list(pool.teams) for pool in split.pools},
            "apart": entrants.apart,
            "spread": str(split.spread),
        },
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    return pool_ids


@dataclass(frozen=True, slots=True)
class PoolTeam:
    team_id: int
    name: str
    federation: str
    seed: int
    strength: int
    pairing_number: int
    previous_winner: bool


@dataclass(frozen=True, slots=True)
class PoolView:
    id: int
    letter: str
    status: str
    teams: tuple[PoolTeam, ...]
    average: Fraction
    pairing_lot: draws.LotView | None = None  # committed when published, drawn when the stage starts

    @property
    def average_text(self) -> str:
        return _fraction_text(self.average)


@dataclass(frozen=True, slots=True)
class StagePools:
    """What the draft-pools page shows: each pool's teams and average strength, and the spread."""

    event_id: int
    event_slug: str
    stage_id: int
    stage_key: str
    stage_name: str
    stage_status: str
    kind: str
    pools: tuple[PoolView, ...]
    spread: Fraction | None

    @property
    def spread_text(self) -> str:
        return _fraction_text(self.spread) if self.spread is not None else ""


def _fraction_text(value: Fraction) -> str:
    """An exact average shown to two decimals (display only; no rank depends on it)."""
    return f"{float(value):.2f}"


def _winners_for(
    uow: UnitOfWork, event: Event, stage: Stage, definition: EventDefinition, field: EventField
) -> list[str]:
    try:
        return _entrants(uow, event, stage, definition, field).apart
    except (Conflict, ValidationFailed):
        return []


def describe_pools(uow: UnitOfWork, *, stage_id: int) -> StagePools:
    """A stage's pools with teams, strengths, averages and the spread (draft or published)."""
    event, stage = uow.events.event_and_stage(stage_id)
    field = event_field(uow, event.id or 0)
    definition = definition_of(event)
    pools = uow.rounds.pools_of_stage(stage_id)
    apart = (
        set(_winners_for(uow, event, stage, definition, field)) if pools and stage.kind == "pools" else set()
    )
    views: list[PoolView] = []
    for pool in pools:
        entries = uow.rounds.entries_of_pool(pool.id or 0)
        teams = tuple(
            PoolTeam(
                team_id=entry.team_id,
                name=field.rows[entry.team_id].name,
                federation=field.rows[entry.team_id].federation,
                seed=field.rows[entry.team_id].seed,
                strength=field.domain[entry.team_id].strength,
                pairing_number=entry.pairing_number,
                previous_winner=field.rows[entry.team_id].name in apart,
            )
            for entry in entries
        )
        average = Fraction(sum(t.strength for t in teams), len(teams)) if teams else Fraction(0)
        lot = (
            pairing_lots.pairing_lot_of(
                uow, event_id=event.id or 0, stage=stage, pool=pool, teams=[t.name for t in teams]
            )
            if pool.status == PoolStatus.PUBLISHED.value
            else None
        )
        views.append(
            PoolView(
                id=pool.id or 0,
                letter=pool.letter,
                status=pool.status,
                teams=teams,
                average=average,
                pairing_lot=draws.view_of(lot) if lot is not None else None,
            )
        )
    spread = max(v.average for v in views) - min(v.average for v in views) if views else None
    return StagePools(
        event_id=event.id or 0,
        event_slug=event.slug,
        stage_id=stage_id,
        stage_key=stage.key,
        stage_name=stage.name,
        stage_status=stage.status,
        kind=stage.kind,
        pools=tuple(views),
        spread=spread,
    )


def swap_teams(uow: UnitOfWork, *, stage_id: int, team_a_id: int, team_b_id: int, actor: str) -> PoolSplit:
    """Swap two teams between two draft pools; returns the new averages and spread (evaluate_split).

    Refused (nothing changes) when a pool would hold two previous pool winners (docs/rules.md §3).
    """
    event, stage = pool_stage(
        uow, stage_id, StageStatus.DRAFT, _("%(stage)s is %(status)s: its pools can no longer be changed")
    )
    entry_a = uow.rounds.entry_of_team(stage_id, team_a_id)
    entry_b = uow.rounds.entry_of_team(stage_id, team_b_id)
    missing = [str(t) for t, e in ((team_a_id, entry_a), (team_b_id, entry_b)) if e is None]
    if missing or entry_a is None or entry_b is None:
        raise NotFound(
            _("team %(teams)s is in no pool of %(stage)s")
            % {"teams": ", ".join(missing), "stage": stage.name}
        )
    if entry_a.pool_id == entry_b.pool_id:
        raise ValidationFailed([_("the two teams are in the same pool: choose teams of two different pools")])
    definition = definition_of(event)
    field = event_field(uow, event.id or 0)
    apart = _winners_for(uow, event, stage, definition, field)
    pools = uow.rounds.pools_of_stage(stage_id)
    swapped = {team_a_id: team_b_id, team_b_id: team_a_id}
    proposal: list[list[PoolEntrant]] = []
    for pool in pools:
        entries = uow.rounds.entries_of_pool(pool.id or 0)
        proposal.append([entrant_of(field.domain[swapped.get(e.team_id, e.team_id)]) for e in entries])
    try:
        split = evaluate_split(proposal, apart=apart)
    except PoolSplitError as error:
        raise ValidationFailed([str(error)]) from None
    letters = {pool.id: pool.letter for pool in pools}
    old = {field.name(team_a_id): letters[entry_a.pool_id], field.name(team_b_id): letters[entry_b.pool_id]}
    # Swapping the team ids keeps each pool's (pool, pairing number) pairs, so no unique key clashes.
    entry_a.team_id, entry_b.team_id = team_b_id, team_a_id
    uow.rounds.add(entry_a)
    uow.rounds.add(entry_b)
    flush_and_audit(
        uow,
        stage,
        "pools.swap",
        actor=actor,
        event_id=event.id or 0,
        new={"before": old, "spread": str(split.spread)},
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    return split


def publish_pools(uow: UnitOfWork, *, stage_id: int, actor: str, pairing_seed: bytes | None = None) -> None:
    """Make a stage's draft pools public; after this they can no longer be changed.

    Each pool's pairing-number lot is committed now (its hash public while the stage waits to start) and
    drawn when the stage starts (docs/rules.md §7, docs/lots.md). ``pairing_seed`` is for tests and replays
    only: without it every lot takes a fresh secret seed.
    """
    event, stage = pool_stage(uow, stage_id, StageStatus.DRAFT, _("%(stage)s is already %(status)s"))
    pools = uow.rounds.pools_of_stage(stage_id)
    if not pools:
        raise Conflict(_("%(stage)s has no draft pools: draft them first") % {"stage": stage.name})
    now = utcnow()
    for pool in pools:
        pool.status = PoolStatus.PUBLISHED.value
        pool.published_at = now
        uow.rounds.add(pool)
    stage.status = StageStatus.PUBLISHED.value
    uow.events.add(stage)
    if event.status == EventStatus.DRAFT.value:
        event.status = EventStatus.PUBLISHED.value
    event.updated_at = now
    uow.events.add(event)
    flush_and_audit(
        uow,
        stage,
        "pools.publish",
        actor=actor,
        event_id=event.id or 0,
        new={"pools": [pool.letter for pool in pools]},
    )
    pairing_lots.commit_pairing_lots(
        uow, event=event, stage=stage, pools=pools, actor=actor, pairing_seed=pairing_seed
    )
    live.announce(uow, f"stage:{stage_id}", kind="pools")
    live.announce(uow, f"event:{event.slug}", kind="stage", stage_id=stage_id)
