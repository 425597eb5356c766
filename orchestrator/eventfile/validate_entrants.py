"""Whether the stages fit together: seeds, qualifiers, pool sizes (docs/rules.md §3, docs/event-file.md)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from orchestrator.domain.event import Qualifiers, SeedRange
from orchestrator.domain.teams import Team
from orchestrator.eventfile.drafts import StageDraft, ranges
from orchestrator.eventfile.nodes import NodeReader

MAX_SEEDS_WITHOUT_TEAMS = 10_000  # seeds walked per range when the file has no readable team list


@dataclass(slots=True)
class _Field:
    """What the checks learn while going through the stages in order."""

    by_key: dict[str, StageDraft]
    order: dict[str, int]
    team_count: int | None
    taken: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # source -> takers
    seed_owner: dict[int, tuple[str, str]] = field(default_factory=dict)  # seed -> (stage path, name)


def check_entrants(
    reader: NodeReader, stages: list[StageDraft], teams: list[Team], *, has_bracket: bool
) -> StageDraft | None:
    """Report every entrant that does not fit; return the knockout stage (the first, if several)."""
    state = _Field(
        by_key={stage.key: stage for stage in stages},
        order={stage.key: position for position, stage in enumerate(stages)},
        team_count=len(teams) if teams else None,
    )
    for stage in stages:
        _check_stage(reader, stage, state)
    _check_takers(reader, stages, state)
    if state.team_count is not None and stages:
        missing = sorted(set(range(1, state.team_count + 1)) - set(state.seed_owner))
        if missing:
            reader.report("stages", f"seeds {ranges(missing)} enter no stage: every team must enter one")
    return _knockout(reader, stages, has_bracket=has_bracket)


def _check_stage(reader: NodeReader, stage: StageDraft, state: _Field) -> None:
    path = f"stages[{stage.index}]"
    qualifier_count = 0
    seed_count = 0
    counts_known = True
    for position, entrant in stage.entrants:
        entrant_path = f"{path}.entrants[{position}]"
        if isinstance(entrant, SeedRange):
            seed_count += entrant.size
            _check_seeds(reader, stage, entrant, entrant_path, state)
            continue
        count = _check_qualifiers(reader, stage, entrant, entrant_path, state)
        if count is None:
            counts_known = False
        else:
            qualifier_count += count
    if stage.kind == "pools" and counts_known and stage.pool_count and stage.pool_size:
        total = qualifier_count + seed_count
        if total != stage.size:
            parts = []
            if qualifier_count:
                parts.append(f"{qualifier_count} qualifiers")
            if seed_count:
                parts.append(f"{seed_count} seeds")
            reader.report(
                f"{path}.entrants",
                f"{stage.name}: {' + '.join(parts) or 'no teams'} = {total} "
                f"entrants, but {stage.pool_count} pools of {stage.pool_size} need {stage.size}",
            )
    if stage.kind == "swiss" and counts_known:
        _check_swiss_field(reader, stage, qualifier_count + seed_count)
    if stage.kind == "pools" and stage.winners_apart and stage.pool_count:
        # docs/rules.md §3: winners of the previous stage's pools must not share a pool.
        for _, entrant in stage.entrants:
            source = state.by_key.get(entrant.stage) if isinstance(entrant, Qualifiers) else None
            if source is not None and source.kind == "pools" and source.pool_count > stage.pool_count:
                reader.report(
                    f"{path}.winners_apart",
                    f"the {source.pool_count} {source.name} pool winners cannot be kept apart in "
                    f"{stage.pool_count} pools; set winners_apart: false",
                )


def _check_swiss_field(reader: NodeReader, stage: StageDraft, total: int) -> None:
    """A Swiss stage needs two teams, and no more rounds than the teams less one (no rematch, C.04.1 b)."""
    path = f"stages[{stage.index}]"
    stage.entrant_count = total
    if total < 2:
        reader.report(
            f"{path}.entrants", f"{stage.name}: a swiss stage needs at least 2 teams, found {total}"
        )
    elif stage.round_count > total - 1:
        reader.report(
            f"{path}.rounds",
            f"{stage.name}: {stage.round_count} rounds for {total} teams; a team can meet at most "
            f"{total - 1} opponents, so at most {total - 1} rounds",
        )


def _check_seeds(reader: NodeReader, stage: StageDraft, entrant: SeedRange, path: str, state: _Field) -> None:
    # Only seeds of listed teams are walked one by one: a range such as 1-99999999999999999999 must not
    # keep the request busy (it is reported as going beyond the list below).
    known = state.team_count if state.team_count is not None else entrant.first + MAX_SEEDS_WITHOUT_TEAMS - 1
    seeds = range(entrant.first, min(entrant.last, known) + 1)
    overlap = [s for s in seeds if s in state.seed_owner]
    if overlap:
        owners = sorted({state.seed_owner[s][1] for s in overlap})
        reader.report(
            path,
            f"{entrant} overlaps seeds already placed in {', '.join(owners)} "
            f"({ranges(overlap)}): a team enters one stage only",
        )
    for s in seeds:
        state.seed_owner.setdefault(s, (f"stages[{stage.index}]", stage.name))
    if state.team_count is not None and entrant.last > state.team_count:
        reader.report(path, f"{entrant} goes beyond the {state.team_count} teams in the list")
    if stage.kind == "knockout":
        reader.report(
            path,
            "a knockout stage takes qualifiers only; seeded teams cannot be placed in the bracket",
        )


def _check_qualifiers(
    reader: NodeReader, stage: StageDraft, entrant: Qualifiers, path: str, state: _Field
) -> int | None:
    """The number of qualifiers the entrant brings, or None when its source stage is unusable."""
    source = state.by_key.get(entrant.stage)
    if source is None:
        known = ", ".join(state.by_key) or "none"
        reader.report(f"{path}.from", f"no stage {entrant.stage!r} (stages: {known})")
        return None
    if state.order[entrant.stage] >= state.order[stage.key]:
        reader.report(
            f"{path}.from",
            f"qualifiers must come from an earlier stage; "
            f"{source.name} is {'this stage' if source is stage else 'later'}",
        )
        return None
    if source.kind == "knockout":
        reader.report(f"{path}.from", f"{source.name} is a knockout: it has no pool places")
        return None
    state.taken[entrant.stage].append(stage.name)
    if source.kind == "swiss":
        return _swiss_qualifiers(reader, entrant, source, path)
    actual = entrant.places_per_pool * source.pool_count
    if entrant.places_per_pool > source.advance:
        reader.report(
            f"{path}.top",
            f"takes the top {entrant.places_per_pool} of each "
            f"{source.name} pool, but only the top {source.advance} advance",
        )
    elif entrant.places_per_pool < source.advance:
        reader.report(
            f"{path}.top",
            f"takes the top {entrant.places_per_pool} of each "
            f"{source.name} pool, but the top {source.advance} advance",
        )
    if entrant.count is not None and entrant.count != actual:
        reader.report(
            f"{path}.count",
            f"says {entrant.count} qualifiers from {source.name}, "
            f"but the top {entrant.places_per_pool} of {source.pool_count} pools are {actual}",
        )
    return entrant.count if entrant.count is not None else actual


def _swiss_qualifiers(reader: NodeReader, entrant: Qualifiers, source: StageDraft, path: str) -> int:
    """The top N of a Swiss stage: no more than the teams that play it."""
    top = entrant.places_per_pool
    if source.entrant_count is not None and top > source.entrant_count:
        reader.report(
            f"{path}.top",
            f"takes the top {top} of {source.name}, but only {source.entrant_count} teams play it",
        )
    if entrant.count is not None and entrant.count != top:
        reader.report(
            f"{path}.count",
            f"says {entrant.count} qualifiers from {source.name}, but the top {top} are {top}",
        )
    return top


def _check_takers(reader: NodeReader, stages: list[StageDraft], state: _Field) -> None:
    """Every pools stage that advances teams has exactly one stage taking them; a Swiss stage at most one."""
    for stage in stages:
        takers = state.taken.get(stage.key, [])
        if stage.kind == "swiss" and len(takers) > 1:
            reader.report(
                f"stages[{stage.index}]",
                f"{stage.name}'s qualifiers are taken by {len(takers)} stages: {', '.join(takers)}",
            )
        if stage.kind != "pools" or not stage.advance:
            continue
        takers = state.taken.get(stage.key, [])
        path = f"stages[{stage.index}].advance"
        if not takers:
            reader.report(
                path, f"the top {stage.advance} of each {stage.name} pool advance, but no stage takes them"
            )
        elif len(takers) > 1:
            reader.report(
                path, f"{stage.name}'s qualifiers are taken by {len(takers)} stages: {', '.join(takers)}"
            )


def _knockout(reader: NodeReader, stages: list[StageDraft], *, has_bracket: bool) -> StageDraft | None:
    knockouts = [s for s in stages if s.kind == "knockout"]
    if len(knockouts) > 1:
        reader.report(f"stages[{knockouts[1].index}]", "only one knockout stage is supported")
    if knockouts and not has_bracket:
        reader.report(
            f"stages[{knockouts[0].index}]",
            f"{knockouts[0].name} is a knockout, but the file has no 'bracket'",
        )
    if has_bracket and not knockouts:
        reader.report("bracket", "a bracket needs a stage of kind 'knockout'")
    return knockouts[0] if knockouts else None
