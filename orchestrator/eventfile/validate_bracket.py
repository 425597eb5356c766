"""The play-off bracket of an event file: duels, slots and how they fit the stages (docs/event-file.md)."""

from __future__ import annotations

import re

import yaml

from orchestrator.domain.bracket import DuelSpec, LoserOf, PoolPlace, SlotRef, WinnerOf
from orchestrator.domain.event import Qualifiers, bracket_depths, default_round_name, ordinal, pool_letters
from orchestrator.eventfile.drafts import DuelDraft, SlotDraft, StageDraft
from orchestrator.eventfile.nodes import NodeReader

_PLACE_RE = re.compile(
    r"^(?P<stage>.+?)\s+(?:pool\s+)?(?P<pool>[A-Z]{1,2})\s+(?P<place>\d+)(?:st|nd|rd|th)?$"
)
_STAGE_PLACE_RE = re.compile(r"^(?P<stage>.+?)\s+(?P<place>\d+)(?:st|nd|rd|th)$")
_DUEL_REF_RE = re.compile(r"^(?P<kind>winner|loser)\s+(?:of\s+)?(?:duel\s+)?(?P<duel>\S+)$", re.IGNORECASE)


def read_bracket(reader: NodeReader, node: yaml.Node) -> list[DuelDraft]:
    items = reader.sequence(node, "bracket")
    if items is None:
        return []
    drafts: list[DuelDraft] = []
    for index, item in enumerate(items):
        path = f"bracket[{index}]"
        fields = reader.mapping(item, path, required=("duel", "first", "second"), optional=("round",))
        if fields is None:
            continue
        key = reader.text(fields["duel"], f"{path}.duel") if "duel" in fields else None
        if key is None:
            continue
        reader.subjects[path] = f"duel {key}"
        round_name = reader.text(fields["round"], f"{path}.round") if "round" in fields else None
        sides: list[SlotDraft | None] = []
        for side in ("first", "second"):
            if side not in fields:
                sides.append(None)
                continue
            text = reader.text(fields[side], f"{path}.{side}")
            sides.append(SlotDraft(text, fields[side]) if text is not None else None)
        drafts.append(DuelDraft(index, key, round_name, sides[0], sides[1]))
    return drafts


def _stage_named(text: str, stages: list[StageDraft]) -> StageDraft | None:
    wanted = text.strip().lower()
    return next((s for s in stages if s.key.lower() == wanted or s.name.lower() == wanted), None)


def _resolve_swiss_place(
    reader: NodeReader, slot: SlotDraft, path: str, stage: StageDraft, place: int, swiss_tops: dict[str, int]
) -> SlotRef | None:
    """``Swiss 1st``: a place of a Swiss stage's final standings, within the top the knockout takes."""
    text = slot.text.strip()
    top = swiss_tops.get(stage.key)
    if place < 1:
        reader.report(path, f"{text}: place {place} does not exist", node=slot.node)
        return None
    if top is None:
        reader.report(
            path, f"{text}: the knockout stage takes no qualifiers from {stage.name}", node=slot.node
        )
        return None
    if place > top:
        reader.report(
            path,
            f"{text} does not qualify: only the top {top} of {stage.name} go to the knockout",
            node=slot.node,
        )
        return None
    return PoolPlace(stage.key, "", place)


def _resolve_slot(
    reader: NodeReader, slot: SlotDraft, path: str, stages: list[StageDraft], swiss_tops: dict[str, int]
) -> SlotRef | None:
    text = slot.text.strip()
    ref_match = _DUEL_REF_RE.match(text)
    if ref_match:
        duel = ref_match["duel"]
        if ref_match["kind"].lower() == "winner":
            return WinnerOf(duel)
        return LoserOf(duel)
    swiss_match = _STAGE_PLACE_RE.match(text)
    if swiss_match is not None:
        named = _stage_named(swiss_match["stage"], stages)
        if named is not None and named.kind == "swiss":
            return _resolve_swiss_place(reader, slot, path, named, int(swiss_match["place"]), swiss_tops)
        if named is not None:
            reader.report(
                path,
                f"{text}: {named.name} has pools; write a pool place such as '{named.name} A 1st'",
                node=slot.node,
            )
            return None
    place_match = _PLACE_RE.match(text)
    if place_match is None:
        reader.report(
            path,
            f"cannot read {text!r}: write a pool place such as 'Top A 2nd', a Swiss place such as "
            "'Swiss 1st', or 'winner IV'",
            node=slot.node,
        )
        return None
    stage = _stage_named(place_match["stage"], stages)
    if stage is None:
        reader.report(path, f"no stage {place_match['stage']!r} in {text!r}", node=slot.node)
        return None
    pool = place_match["pool"]
    place = int(place_match["place"])
    label = text
    if stage.kind != "pools":
        reader.report(path, f"{label}: {stage.name} has no pools", node=slot.node)
        return None
    if not stage.pool_count or not stage.pool_size:
        return None  # the stage's own problem is reported already
    letters = pool_letters(stage.pool_count)
    problem = False
    if pool not in letters:
        reader.report(
            path,
            f"{label}: there is no pool {pool}; {stage.name} has {stage.pool_count} pools "
            f"({letters[0]}–{letters[-1]})",
            node=slot.node,
        )
        problem = True
    if place > stage.pool_size or place < 1:
        reader.report(
            path, f"{label}: place {place} does not exist in a pool of {stage.pool_size}", node=slot.node
        )
        problem = True
    elif place > stage.advance:
        reader.report(
            path,
            f"{label} does not qualify: only the top {stage.advance} of each {stage.name} pool advance",
            node=slot.node,
        )
        problem = True
    return None if problem else PoolPlace(stage.key, pool, place)


def check_bracket(
    reader: NodeReader, duels: list[DuelDraft], stages: list[StageDraft], knockout: StageDraft | None
) -> list[DuelSpec]:
    """Check the bracket against the stages; the duels when the whole file is without problems."""
    if not duels:
        if knockout is not None:
            reader.report("bracket", "the bracket has no duels")
        return []
    by_key = {stage.key: stage for stage in stages}
    position: dict[str, int] = {}
    for duel in duels:
        if duel.key in position:
            reader.report(f"bracket[{duel.index}].duel", f"duel {duel.key} is defined twice")
        else:
            position[duel.key] = duel.index
    feeding = (
        {e.stage for _, e in knockout.entrants if isinstance(e, Qualifiers) and e.stage in by_key}
        if knockout
        else set()
    )
    swiss_tops = {
        e.stage: e.places_per_pool
        for _, e in (knockout.entrants if knockout else [])
        if isinstance(e, Qualifiers) and e.stage in by_key and by_key[e.stage].kind == "swiss"
    }
    used: dict[SlotRef, str] = {}
    resolved = [_resolve_duel(reader, duel, stages, position, feeding, used, swiss_tops) for duel in duels]
    if knockout is not None:
        _check_seats(reader, knockout, stages, feeding, used)
    _check_ends(reader, duels, resolved, used)
    specs: list[DuelSpec] = []
    if any(first is None or second is None for _, first, second in resolved) or reader.problems:
        return specs
    depths = bracket_depths([DuelSpec(d.key, "", f, s) for d, f, s in resolved if f and s])
    rounds = max(depths.values(), default=0)
    for duel, first, second in resolved:
        assert first is not None and second is not None
        name = duel.round_name or default_round_name(depths[duel.key], rounds)
        specs.append(DuelSpec(duel.key, name, first, second))
    return specs


_Resolved = tuple[DuelDraft, SlotRef | None, SlotRef | None]


def _resolve_duel(
    reader: NodeReader,
    duel: DuelDraft,
    stages: list[StageDraft],
    position: dict[str, int],
    feeding: set[str],
    used: dict[SlotRef, str],
    swiss_tops: dict[str, int],
) -> _Resolved:
    """The duel's two slots resolved (None where a slot is unusable); ``used`` records the slots filled."""
    names = {stage.key: stage.name for stage in stages}
    path = f"bracket[{duel.index}]"
    sides: list[SlotRef | None] = []
    for side_name, slot in (("first", duel.first), ("second", duel.second)):
        if slot is None:
            sides.append(None)
            continue
        side_path = f"{path}.{side_name}"
        ref = _resolve_slot(reader, slot, side_path, stages, swiss_tops)
        if isinstance(ref, WinnerOf | LoserOf):
            if ref.duel not in position:
                reader.report(side_path, f"{ref}: there is no duel {ref.duel}", node=slot.node)
                ref = None
            elif position[ref.duel] >= duel.index:
                reader.report(
                    side_path,
                    f"{ref}: duel {ref.duel} is not played before duel {duel.key}",
                    node=slot.node,
                )
                ref = None
        elif isinstance(ref, PoolPlace) and feeding and ref.stage not in feeding:
            reader.report(
                side_path,
                f"{slot.text}: the play-off takes its teams from "
                f"{', '.join(names[s] for s in sorted(feeding))}",
                node=slot.node,
            )
            ref = None
        if ref is not None:
            if ref in used:
                label = slot.text if isinstance(ref, PoolPlace) else str(ref)
                reader.report(
                    side_path,
                    f"{label} is already placed in duel {used[ref]}: a slot is filled once",
                    node=slot.node,
                )
            else:
                used[ref] = duel.key
        sides.append(ref)
    first, second = sides
    if (
        isinstance(first, PoolPlace)
        and isinstance(second, PoolPlace)
        and first.pool  # a Swiss stage has no pools
        and ((first.stage, first.pool) == (second.stage, second.pool))
    ):
        assert duel.first is not None and duel.second is not None
        reader.report(
            path,
            f"duel {duel.key}: {duel.first.text} vs {duel.second.text} are from the same pool",
            node=duel.first.node,
        )
    return duel, first, second


def _check_seats(
    reader: NodeReader,
    knockout: StageDraft,
    stages: list[StageDraft],
    feeding: set[str],
    used: dict[SlotRef, str],
) -> None:
    """Every qualifying pool place is seated, and the seats match the knockout stage's entrants."""
    by_key = {stage.key: stage for stage in stages}
    entrants = sum(
        e.places_per_pool
        if by_key[e.stage].kind == "swiss"
        else (e.count if e.count is not None else e.places_per_pool * by_key[e.stage].pool_count)
        for _, e in knockout.entrants
        if isinstance(e, Qualifiers) and e.stage in by_key and by_key[e.stage].kind != "knockout"
    )
    seats = {ref for ref in used if isinstance(ref, PoolPlace)}
    if entrants and len(seats) != entrants:
        reader.report(
            "bracket",
            f"the bracket seats {len(seats)} teams from pool places, but "
            f"{knockout.name} has {entrants} entrants",
        )
    for stage in stages:
        if stage.key in feeding and stage.kind == "swiss":
            top = next(
                e.places_per_pool
                for _, e in knockout.entrants
                if isinstance(e, Qualifiers) and e.stage == stage.key
            )
            for place in range(1, top + 1):
                if PoolPlace(stage.key, "", place) not in used:
                    reader.report(
                        "bracket",
                        f"{stage.name} {ordinal(place)} qualifies but is never placed in the bracket",
                    )
        if stage.key not in feeding or stage.kind != "pools":
            continue
        for letter in pool_letters(stage.pool_count):
            for place in range(1, stage.advance + 1):
                if PoolPlace(stage.key, letter, place) not in used:
                    reader.report(
                        "bracket",
                        f"{stage.name} {letter} {ordinal(place)} qualifies but is "
                        "never placed in the bracket",
                    )


def _check_ends(
    reader: NodeReader, duels: list[DuelDraft], resolved: list[_Resolved], used: dict[SlotRef, str]
) -> None:
    """Every duel's winner goes on, except the final's; placement duels (losers only) end there too."""
    placement = {
        duel.key
        for duel, first, second in resolved
        if isinstance(first, LoserOf) and isinstance(second, LoserOf)
    }
    ends = [duel for duel in duels if WinnerOf(duel.key) not in used and duel.key not in placement]
    if len(ends) > 1:
        for duel in ends[:-1]:
            reader.report(
                f"bracket[{duel.index}]",
                f"the winner of duel {duel.key} is never placed in a later "
                f"duel (only the final's winner ends the bracket; the last duel is {ends[-1].key})",
            )
