"""The combined classification of federations over an event's sections (Olympiad 2026 regulations
4.5.2 and Appendix 2.II; docs/sections.md).

Federations are ranked by the sum of their teams' places in the sections (Open and Women in 2026), the
smaller sum first; then TB1 the sum of both teams' match points, TB2 the sum of both teams' TB1, TB3 of
both TB2s, TB4 of both TB3s (greater first). A federation without a team in every section is listed
after those with one, ranked the same way among themselves. Federations equal on every key share the
place (the top place of the set, as Appendix 2.I does for teams).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

Number = int | Fraction


@dataclass(frozen=True, slots=True)
class SectionPlace:
    """A team's final line in its section: its federation, place, match points and tie-breaks TB1-TB3."""

    federation: str
    team: str
    place: int
    mp: Number
    tiebreaks: tuple[Number, ...]  # TB1, TB2, TB3 of the section's standings


@dataclass(frozen=True, slots=True)
class CombinedRow:
    place: int
    federation: str
    teams: tuple[SectionPlace | None, ...]  # one per section, in the sections' order; None: no team
    place_sum: int
    keys: tuple[Number, ...]  # TB1..TB4 of the combined classification

    @property
    def complete(self) -> bool:
        return all(team is not None for team in self.teams)


def combined_classification(sections: Mapping[str, Sequence[SectionPlace]]) -> tuple[CombinedRow, ...]:
    """Every federation with a team in any section, ranked (Appendix 2.II)."""
    names = list(sections)
    by_federation: dict[str, list[SectionPlace | None]] = {}
    for index, name in enumerate(names):
        for line in sections[name]:
            slots = by_federation.setdefault(line.federation, [None] * len(names))
            if slots[index] is not None:
                raise ValueError(f"{line.federation} has two teams in section {name!r}")
            slots[index] = line
    # Each federation listed has at least one line (``present`` is never empty).
    rows: list[
        tuple[tuple[bool | Number, ...], str, tuple[SectionPlace | None, ...], int, tuple[Number, ...]]
    ] = []
    for federation, slots in by_federation.items():
        present = [team for team in slots if team is not None]
        depth = max(len(team.tiebreaks) for team in present)
        tb_sums = [
            sum(team.tiebreaks[i] for team in present if i < len(team.tiebreaks)) for i in range(depth)
        ]
        keys: tuple[Number, ...] = (sum(team.mp for team in present), *tb_sums[:3])
        place_sum = sum(team.place for team in present)
        incomplete = len(present) < len(names)
        rank_key = (incomplete, place_sum, *(-key for key in keys))
        rows.append((rank_key, federation, tuple(slots), place_sum, keys))
    rows.sort(key=lambda item: (item[0], item[1]))
    ranked: list[CombinedRow] = []
    for index, (rank_key, federation, teams, place_sum, keys) in enumerate(rows):
        shared = index > 0 and rows[index - 1][0] == rank_key
        place = ranked[-1].place if shared else index + 1
        ranked.append(CombinedRow(place, federation, teams, place_sum, keys))
    return tuple(ranked)
