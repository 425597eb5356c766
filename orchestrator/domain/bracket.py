"""References to bracket slots: who fills each side of a play-off duel (docs/rules.md §3 play-off table)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PoolPlace:
    """The team ranked ``place`` in pool ``pool`` (a letter) of stage ``stage``; ``pool`` is empty for a
    Swiss stage, which has one standings table."""

    stage: str
    pool: str
    place: int

    def __str__(self) -> str:
        return f"{self.stage} {self.pool} {self.place}" if self.pool else f"{self.stage} {self.place}"


@dataclass(frozen=True, slots=True)
class WinnerOf:
    duel: str

    def __str__(self) -> str:
        return f"winner {self.duel}"


@dataclass(frozen=True, slots=True)
class LoserOf:
    duel: str

    def __str__(self) -> str:
        return f"loser {self.duel}"


SlotRef = PoolPlace | WinnerOf | LoserOf


@dataclass(frozen=True, slots=True)
class DuelSpec:
    """One duel of the bracket: ``first`` is named first in match 1 (White on odd boards)."""

    key: str  # "I", "II", ... as in the 2020 rules
    round_name: str  # "Preliminary", "Quarter-final", "Semi-final", "Final"
    first: SlotRef
    second: SlotRef
