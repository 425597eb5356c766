"""What the reader took from an event file, before the whole-file checks turn it into the model."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

import yaml

from orchestrator.domain.event import Entrant, StageDef, StageKind, TimeControl


@dataclass(slots=True)
class ScheduleSpec:
    rounds: list[datetime] | None = None
    start: datetime | None = None
    rounds_per_day: int | None = None
    minutes_between_rounds: int | None = None
    time_controls: list[TimeControl | None] = field(default_factory=list)  # per listed round, if any


@dataclass(slots=True)
class StageDraft:
    index: int
    key: str
    name: str
    kind: StageKind
    pool_count: int
    pool_size: int
    entrants: list[tuple[int, Entrant]]  # (index in the file's entrants list, entrant)
    advance: int
    tiebreaks: tuple[str, ...]
    schedule: ScheduleSpec | None
    winners_apart: bool
    time_control: TimeControl | None = None
    resolved_schedule: tuple[datetime, ...] = ()
    round_count: int = 0  # a Swiss stage's rounds
    pairing: str = ""  # a Swiss stage's pairing system
    auto_publish: bool = False  # a Swiss stage's rounds are paired and published by the workers
    entrant_count: int | None = None  # teams entering, once the entrant checks know it
    section: str = ""  # the key of the stage's section ("" without sections, or when it is wrong)

    @property
    def size(self) -> int:
        return self.pool_count * self.pool_size

    @property
    def rounds(self) -> int:
        if self.kind == "swiss":
            return self.round_count
        if self.kind != "pools" or not self.pool_size:
            return 0
        return self.pool_size - 1 if self.pool_size % 2 == 0 else self.pool_size

    def model(self) -> StageDef:
        """The checked stage as the domain holds it."""
        round_clocks = tuple(self.schedule.time_controls) if self.schedule is not None else ()
        return StageDef(
            key=self.key,
            name=self.name,
            kind=self.kind,
            pool_count=self.pool_count,
            pool_size=self.pool_size,
            entrants=tuple(entrant for _, entrant in self.entrants),
            advance=self.advance,
            tiebreaks=self.tiebreaks,
            schedule=self.resolved_schedule,
            winners_apart=self.winners_apart,
            time_control=self.time_control,
            round_time_controls=round_clocks if any(round_clocks) else (),
            round_count=self.round_count,
            pairing=self.pairing,
            auto_publish=self.auto_publish,
            section=self.section,
        )


@dataclass(slots=True)
class SlotDraft:
    text: str
    node: yaml.Node


@dataclass(slots=True)
class DuelDraft:
    index: int
    key: str
    round_name: str | None
    first: SlotDraft | None
    second: SlotDraft | None


def ranges(numbers: Sequence[int]) -> str:
    """1, 2, 3, 7 -> '1–3, 7'."""
    parts: list[str] = []
    start = prev = None
    for n in sorted(numbers):
        if start is None:
            start = prev = n
        elif prev is not None and n == prev + 1:
            prev = n
        else:
            parts.append(f"{start}–{prev}" if start != prev else f"{start}")
            start = prev = n
    if start is not None:
        parts.append(f"{start}–{prev}" if start != prev else f"{start}")
    return ", ".join(parts)
