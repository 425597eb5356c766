"""The stages of an event file as written: keys, kinds, pools, entrants, tie-breaks, schedules and clocks.

Whether the stages fit together (counts, qualifiers, seeds) is checked in validate_entrants.py; whether the
schedules do, here (``check_schedules``), once the bracket is known.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime, timedelta

import yaml

from orchestrator.domain.bracket import DuelSpec
from orchestrator.domain.event import (
    Entrant,
    Qualifiers,
    Section,
    SeedRange,
    StageKind,
    TimeControl,
    bracket_rounds,
)
from orchestrator.domain.names import MAX_STAGE_NAME
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, PAIRING_SYSTEMS
from orchestrator.domain.tiebreaks import TieBreakError, parse_chain
from orchestrator.domain.trf.records import MAX_TRF_TEAMS
from orchestrator.eventfile.drafts import ScheduleSpec, StageDraft
from orchestrator.eventfile.nodes import NodeReader, describe
from orchestrator.eventfile.validate_sections import key_problem, read_section_ref
from orchestrator.eventfile.validate_settings import read_time_control

_SEEDS_RE = re.compile(r"^\s*(\d+)\s*(?:[-–—]|\.\.)\s*(\d+)\s*$")

_STAGE_REQUIRED = ("key", "name", "kind", "entrants")
_STAGE_OPTIONAL = (
    "pool_count",
    "pool_size",
    "advance",
    "tiebreaks",
    "schedule",
    "winners_apart",
    "time_control",
    "rounds",
    "pairing",
    "auto_publish",
    "section",
)
_POOL_KEYS = ("pool_count", "pool_size", "advance", "winners_apart")
_SWISS_KEYS = ("rounds", "pairing", "auto_publish")
_DEFAULT_TIEBREAKS: dict[StageKind, tuple[str, ...]] = {
    StageKind.POOLS: ("online-2020",),
    StageKind.SWISS: ("olympiad-2026",),
    StageKind.KNOCKOUT: (),
}


# The most teams a stage can hold is a TRF-2026 file's (``MAX_TRF_TEAMS``, three digits): a pool of more, or
# a Swiss of more rounds than such a field allows, would have check_schedules compute every round's time.
MAX_FIELD = MAX_TRF_TEAMS


def read_stages(
    reader: NodeReader, node: yaml.Node, timezone: str, sections: Mapping[str, Section] | None = None
) -> list[StageDraft]:
    """Every stage of the file as far as it reads; problems with a stage's own keys are reported here.
    ``sections``: the file's sections (None: the file has none)."""
    items = reader.sequence(node, "stages")
    if items is None:
        return []
    if not items:
        reader.report("stages", "an event needs at least one stage", node=node)
    drafts: list[StageDraft] = []
    seen: dict[str, int] = {}
    for index, item in enumerate(items):
        draft = _read_stage(reader, item, index, seen, timezone, sections)
        if draft is not None:
            drafts.append(draft)
    return drafts


def _read_stage(
    reader: NodeReader,
    item: yaml.Node,
    index: int,
    seen: dict[str, int],
    timezone: str,
    sections: Mapping[str, Section] | None,
) -> StageDraft | None:
    path = f"stages[{index}]"
    fields = reader.mapping(item, path, required=_STAGE_REQUIRED, optional=_STAGE_OPTIONAL)
    if fields is None:
        return None
    key = _read_stage_key(reader, fields, path, index, seen) if "key" in fields else None
    section = read_section_ref(reader, fields, path, sections, what="stage")
    name = (
        reader.name(fields["name"], f"{path}.name", what="stage name", limit=MAX_STAGE_NAME)
        if "name" in fields
        else None
    )
    kind = _read_stage_kind(reader, fields, path) if "kind" in fields else None
    pool_count, pool_size, advance = _read_pool_settings(reader, item, fields, path, kind)
    round_count, pairing, auto_publish = _read_swiss_settings(reader, item, fields, path, kind)
    entrants = _read_entrants(reader, fields["entrants"], f"{path}.entrants") if "entrants" in fields else []
    tiebreaks: tuple[str, ...] = _DEFAULT_TIEBREAKS[kind] if kind is not None else ()
    if "tiebreaks" in fields:
        tiebreaks = _read_tiebreaks(reader, fields["tiebreaks"], f"{path}.tiebreaks") or tiebreaks
    schedule = (
        _read_schedule(reader, fields["schedule"], f"{path}.schedule", timezone)
        if "schedule" in fields
        else None
    )
    winners_apart = True
    if "winners_apart" in fields:
        value = reader.boolean(fields["winners_apart"], f"{path}.winners_apart")
        winners_apart = True if value is None else value
    time_control = (
        read_time_control(reader, fields["time_control"], f"{path}.time_control")
        if "time_control" in fields
        else None
    )
    if key is None or name is None or kind is None:
        return None
    return StageDraft(
        index,
        key,
        name,
        kind,
        pool_count,
        pool_size,
        entrants,
        advance,
        tiebreaks,
        schedule,
        winners_apart,
        time_control=time_control,
        round_count=round_count,
        pairing=pairing,
        auto_publish=auto_publish,
        section=section or "",
    )


def _read_stage_key(
    reader: NodeReader, fields: dict[str, yaml.Node], path: str, index: int, seen: dict[str, int]
) -> str | None:
    key = reader.text(fields["key"], f"{path}.key")
    if key is None:
        return None
    reader.subjects[path] = key
    if problem := key_problem(key):
        reader.report(f"{path}.key", problem, node=fields["key"])
    if key in seen:
        reader.report(
            f"{path}.key",
            f"stage key {key!r} is already used by stages[{seen[key]}]",
            node=fields["key"],
        )
        return None
    seen[key] = index
    return key


def _read_stage_kind(reader: NodeReader, fields: dict[str, yaml.Node], path: str) -> StageKind | None:
    kind_text = reader.text(fields["kind"], f"{path}.kind")
    if kind_text in tuple(StageKind):
        return StageKind(kind_text)
    if kind_text is not None:
        reader.report(
            f"{path}.kind",
            f"kind must be 'pools', 'swiss' or 'knockout', found {kind_text!r}",
            node=fields["kind"],
        )
    return None


def _read_pool_settings(
    reader: NodeReader, item: yaml.Node, fields: dict[str, yaml.Node], path: str, kind: StageKind | None
) -> tuple[int, int, int]:
    """``pool_count``, ``pool_size`` and ``advance`` of a pools stage (0: a knockout, or unreadable)."""
    pool_count = pool_size = advance = 0
    if kind == "pools":
        for needed in ("pool_count", "pool_size", "advance"):
            if needed not in fields:
                reader.report(path, f"a pools stage needs '{needed}'", node=item)
        if "pool_count" in fields:
            pool_count = reader.integer(fields["pool_count"], f"{path}.pool_count", minimum=1) or 0
        if "pool_size" in fields:
            pool_size = (
                reader.integer(fields["pool_size"], f"{path}.pool_size", minimum=2, maximum=MAX_FIELD) or 0
            )
        if "advance" in fields:
            advance = reader.integer(fields["advance"], f"{path}.advance", minimum=0) or 0
            if pool_size and advance > pool_size:
                reader.report(
                    f"{path}.advance",
                    f"{advance} cannot advance from pools of {pool_size}",
                    node=fields["advance"],
                )
    elif kind is not None:
        for unwanted in _POOL_KEYS:
            if unwanted in fields:
                reader.report(
                    f"{path}.{unwanted}", f"a {kind} stage has no '{unwanted}'", node=fields[unwanted]
                )
    return pool_count, pool_size, advance


def _read_swiss_settings(
    reader: NodeReader, item: yaml.Node, fields: dict[str, yaml.Node], path: str, kind: StageKind | None
) -> tuple[int, str, bool]:
    """``rounds``, ``pairing`` and ``auto_publish`` of a Swiss stage (0, "" and False for another kind, or
    unreadable)."""
    if kind != "swiss":
        for unwanted in _SWISS_KEYS:
            if unwanted in fields and kind is not None:
                reader.report(
                    f"{path}.{unwanted}",
                    f"a {kind} stage has no '{unwanted}' (a swiss stage has)",
                    node=fields[unwanted],
                )
        return 0, "", False
    rounds = 0
    if "rounds" not in fields:
        reader.report(path, "a swiss stage needs 'rounds'", node=item)
    else:
        rounds = reader.integer(fields["rounds"], f"{path}.rounds", minimum=1, maximum=MAX_FIELD - 1) or 0
    pairing = FIDE_TEAM_SWISS
    if "pairing" in fields:
        text = reader.text(fields["pairing"], f"{path}.pairing")
        if text is not None and text not in PAIRING_SYSTEMS:
            message = f"unknown pairing {text!r}: use one of {', '.join(PAIRING_SYSTEMS)}"
            reader.report(f"{path}.pairing", message, node=fields["pairing"])
        pairing = text or pairing
    auto_publish = False  # staff review each pairing at the round desk unless the file says otherwise
    if "auto_publish" in fields:
        auto_publish = reader.boolean(fields["auto_publish"], f"{path}.auto_publish") or False
    return rounds, pairing, auto_publish


def _read_entrants(reader: NodeReader, node: yaml.Node, path: str) -> list[tuple[int, Entrant]]:
    items = reader.sequence(node, path)
    if items is None:
        return []
    if not items:
        reader.report(path, "a stage needs entrants", node=node)
    out: list[tuple[int, Entrant]] = []
    for index, item in enumerate(items):
        item_path = f"{path}[{index}]"
        if isinstance(item, yaml.MappingNode) and any(
            isinstance(k, yaml.ScalarNode) and k.value == "seeds" for k, _ in item.value
        ):
            fields = reader.mapping(item, item_path, required=("seeds",), optional=("count",))
            if fields is None or "seeds" not in fields:
                continue
            seeds = _read_seed_range(reader, fields["seeds"], f"{item_path}.seeds")
            if seeds is None:
                continue
            if "count" in fields:
                count = reader.integer(fields["count"], f"{item_path}.count", minimum=0)
                if count is not None and count != seeds.size:
                    reader.report(
                        f"{item_path}.count",
                        f"says {count} seeded teams, but {seeds} are {seeds.size}",
                        node=fields["count"],
                    )
            out.append((index, seeds))
            continue
        fields = reader.mapping(item, item_path, required=("from", "top"), optional=("count",))
        if fields is None:
            continue
        stage = reader.text(fields["from"], f"{item_path}.from") if "from" in fields else None
        top = reader.integer(fields["top"], f"{item_path}.top", minimum=1) if "top" in fields else None
        count = (
            reader.integer(fields["count"], f"{item_path}.count", minimum=0) if "count" in fields else None
        )
        if stage is not None and top is not None:
            out.append((index, Qualifiers(stage, top, count)))
    return out


def _read_seed_range(reader: NodeReader, node: yaml.Node, path: str) -> SeedRange | None:
    value = reader.scalar(node, path)
    if isinstance(value, int) and not isinstance(value, bool):
        first = last = value
    elif isinstance(value, str) and (match := _SEEDS_RE.match(value)):
        first, last = int(match[1]), int(match[2])
    else:
        if isinstance(node, yaml.ScalarNode):
            reader.report(path, f"expected a seed range such as 26-60, found {describe(node)}", node=node)
        return None
    if first < 1 or last < first:
        reader.report(path, f"seed range {first}-{last} is empty or starts below 1", node=node)
        return None
    return SeedRange(first, last)


def _tiebreak_problem(codes: tuple[str, ...]) -> str | None:
    """Why a tie-break list is not usable (per orchestrator.domain.tiebreaks), or None."""
    try:
        parse_chain(codes)
    except TieBreakError as error:
        return str(error)
    return None


def _read_tiebreaks(reader: NodeReader, node: yaml.Node, path: str) -> tuple[str, ...] | None:
    if isinstance(node, yaml.SequenceNode):
        items = reader.sequence(node, path) or []
        codes = tuple(code for i, item in enumerate(items) if (code := reader.text(item, f"{path}[{i}]")))
        if len(codes) != len(items):
            return None
    else:
        text = reader.text(node, path)
        if text is None:
            return None
        codes = (text,)
    if not codes:
        reader.report(path, "give a preset name or a list of tie-break codes", node=node)
        return None
    message = _tiebreak_problem(codes)
    if message:
        reader.report(path, message, node=node)
        return None
    return codes


def _read_schedule(reader: NodeReader, node: yaml.Node, path: str, timezone: str) -> ScheduleSpec | None:
    fields = reader.mapping(
        node, path, optional=("rounds", "start", "rounds_per_day", "minutes_between_rounds")
    )
    if fields is None:
        return None
    spec = ScheduleSpec()
    if "rounds" in fields:
        if any(k in fields for k in ("start", "rounds_per_day", "minutes_between_rounds")):
            reader.report(
                path,
                "give either 'rounds' (a list of start times) or 'start', 'rounds_per_day' "
                "and 'minutes_between_rounds', not both",
                node=node,
            )
            return None
        items = reader.sequence(fields["rounds"], f"{path}.rounds")
        if items is None:
            return None
        rounds = [_read_round(reader, item, f"{path}.rounds[{i}]", timezone) for i, item in enumerate(items)]
        moments = [moment for moment, _ in rounds]
        if any(m is None for m in moments):
            return None
        spec.rounds = [m for m in moments if m is not None]
        spec.time_controls = [clock for _, clock in rounds]
        return spec
    missing = [k for k in ("start", "rounds_per_day", "minutes_between_rounds") if k not in fields]
    if missing:
        reader.report(
            path,
            f"give 'rounds' (a list of start times) or 'start', 'rounds_per_day' and "
            f"'minutes_between_rounds' (missing {', '.join(missing)})",
            node=node,
        )
        return None
    spec.start = reader.moment(fields["start"], f"{path}.start", timezone)
    spec.rounds_per_day = reader.integer(fields["rounds_per_day"], f"{path}.rounds_per_day", minimum=1)
    spec.minutes_between_rounds = reader.integer(
        fields["minutes_between_rounds"], f"{path}.minutes_between_rounds", minimum=1
    )
    if spec.start is None or spec.rounds_per_day is None or spec.minutes_between_rounds is None:
        return None
    if (spec.rounds_per_day - 1) * spec.minutes_between_rounds >= 24 * 60:
        reader.report(
            path,
            f"{spec.rounds_per_day} rounds {spec.minutes_between_rounds} minutes apart do not fit in a day",
            node=node,
        )
        return None
    return spec


def _read_round(
    reader: NodeReader, node: yaml.Node, path: str, timezone: str
) -> tuple[datetime | None, TimeControl | None]:
    """A listed round: its start, or ``{start: ..., time_control: 10+5}`` for a round with its own clock."""
    if not isinstance(node, yaml.MappingNode):
        return reader.moment(node, path, timezone), None
    fields = reader.mapping(node, path, required=("start",), optional=("time_control",))
    if fields is None or "start" not in fields:
        return None, None
    moment = reader.moment(fields["start"], f"{path}.start", timezone)
    clock = (
        read_time_control(reader, fields["time_control"], f"{path}.time_control")
        if "time_control" in fields
        else None
    )
    return moment, clock


def check_schedules(reader: NodeReader, stages: list[StageDraft], bracket: list[DuelSpec]) -> None:
    """Every stage's start times in order, and after the end of the previous stage of its section (the
    sections run side by side, docs/sections.md)."""
    previous_of: dict[str, StageDraft] = {}  # section key -> its last stage so far
    for stage in stages:
        previous = previous_of.get(stage.section)
        path = f"stages[{stage.index}].schedule"
        if stage.schedule is None:
            continue
        if stage.kind != "knockout":
            needed = stage.rounds
            unit = "rounds"
        else:
            needed = 2 * bracket_rounds(bracket)
            unit = "matches (two per bracket round)"
        spec = stage.schedule
        if spec.rounds is not None:
            moments = spec.rounds
            if needed and len(moments) != needed:
                reader.report(
                    f"{path}.rounds", f"{len(moments)} start times, but {stage.name} has {needed} {unit}"
                )
        else:
            assert spec.start is not None and spec.rounds_per_day and spec.minutes_between_rounds
            moments = [
                spec.start
                + timedelta(
                    days=n // spec.rounds_per_day,
                    minutes=(n % spec.rounds_per_day) * spec.minutes_between_rounds,
                )
                for n in range(needed)
            ]
        for n in range(1, len(moments)):
            if moments[n] <= moments[n - 1]:
                reader.report(
                    f"{path}.rounds[{n}]",
                    f"round {n + 1} starts at {moments[n]:%Y-%m-%d %H:%M}, not "
                    f"after round {n} ({moments[n - 1]:%Y-%m-%d %H:%M})",
                )
        if (
            previous is not None
            and previous.resolved_schedule
            and moments
            and moments[0] <= previous.resolved_schedule[-1]
        ):
            reader.report(
                path,
                f"{stage.name} starts at {moments[0]:%Y-%m-%d %H:%M}, before "
                f"{previous.name} ends ({previous.resolved_schedule[-1]:%Y-%m-%d %H:%M})",
            )
        stage.resolved_schedule = tuple(moments)
        previous_of[stage.section] = stage
