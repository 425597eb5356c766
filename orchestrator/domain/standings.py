"""Pool standings: apply a tie-break chain (FIDE C.07 Art. 4.2; our rules in docs/tiebreaks.md).

Ranking works on groups: all teams start tied; each criterion splits only the groups still tied.
Values are exact Fractions. For the direct-encounter codes (DE:MP, DE:GP, EDE) the value shown is
the team's score inside the last group in which that criterion was computed for it (0 when the
team was never tied at that point); the order, not that number, is what the criterion decides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

from orchestrator.domain.direct_encounter import DirectEncounterTrace, direct_encounter
from orchestrator.domain.scoring import DEFAULT_SCORING, MatchRecord, MatchScoring
from orchestrator.domain.tiebreaks import (
    GROUP_CODES,
    PoolHistory,
    TieBreakError,
    all_values,
    build_event,
    parse_chain,
    primary_score,
)


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    team: str
    values: Mapping[str, Fraction]
    separated_by: str | None


@dataclass(frozen=True, slots=True)
class TeamTotals:
    """What a cross table shows beside a team: match points, game points (half-points), matches."""

    team: str
    mp: int
    gp_half: int
    played: int
    won: int
    drawn: int
    lost: int


@dataclass(frozen=True, slots=True)
class Standings:
    chain: tuple[str, ...]
    rows: tuple[StandingRow, ...]

    @property
    def unresolved_ties(self) -> tuple[tuple[str, ...], ...]:
        """Groups of teams still sharing a rank after the whole chain (for a recorded draw of lots)."""
        groups: dict[int, list[str]] = {}
        for row in self.rows:
            groups.setdefault(row.rank, []).append(row.team)
        return tuple(tuple(g) for g in groups.values() if len(g) > 1)

    def rank_of(self, team: str) -> int:
        for row in self.rows:
            if row.team == team:
                return row.rank
        raise KeyError(team)

    @property
    def order(self) -> tuple[str, ...]:
        return tuple(row.team for row in self.rows)


def compute_standings(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    chain: Sequence[str],
    boards: int = 6,
    scoring: MatchScoring = DEFAULT_SCORING,
    lots: Mapping[str, int] | None = None,
    round_robin: bool = True,
    bye_mp: int | None = None,
    adjustments: Mapping[str, tuple[int, int]] | None = None,
    starting_ranks: Mapping[str, int] | None = None,
) -> Standings:
    """Rank ``teams`` by ``chain``; teams tied after it share the higher rank (1, 2, 2, 4). ``adjustments``:
    (MP, GP half-points) the arbiter added to a team's score (TRF-2026 record 299; ``PoolHistory``).
    ``starting_ranks`` (a Swiss stage's pairing numbers, Olympiad Pairing Rules 2022 art. 3.1) only list
    the teams that share a rank, lowest number first; without them they are listed by name
    (docs/tiebreaks.md, "Readings")."""
    codes = parse_chain(chain)
    event = build_event(
        teams,
        matches,
        boards=boards,
        scoring=scoring,
        round_robin=round_robin,
        bye_mp=bye_mp,
        adjustments=adjustments,
    )
    primary = primary_score(codes)
    values = all_values(event, codes, primary=primary)
    de_values: dict[str, dict[str, Fraction]] = {}

    groups: list[list[str]] = [sorted(event.teams)]
    # separated_by[i] names the criterion that split group i from group i-1.
    separators: list[str | None] = [None]
    for code in codes:
        new_groups: list[list[str]] = []
        new_separators: list[str | None] = []
        trace = DirectEncounterTrace()
        for group, separator in zip(groups, separators, strict=True):
            parts = _split(event, group, code, values, lots, trace, primary)
            new_groups.extend(parts)
            new_separators.append(separator)
            new_separators.extend([code] * (len(parts) - 1))
        groups, separators = new_groups, new_separators
        if code in GROUP_CODES:
            de_values[code] = {team: trace.score.get(team, Fraction(0)) for team in event.teams}

    if starting_ranks is not None:
        missing = [team for team in event.teams if team not in starting_ranks]
        if missing:
            raise TieBreakError(f"no starting rank for {', '.join(missing)}")
        groups = [sorted(group, key=lambda team: (starting_ranks[team], team)) for group in groups]
    rows: list[StandingRow] = []
    position = 1
    for group, separator in zip(groups, separators, strict=True):
        for index, team in enumerate(group):
            team_values = {
                code: (de_values[code][team] if code in GROUP_CODES else values[code][team])
                for code in codes
                if code != "LOT"
            }
            rows.append(
                StandingRow(
                    rank=position,
                    team=team,
                    values=MappingProxyType(team_values),
                    separated_by=separator if index == 0 else None,
                )
            )
        position += len(group)
    return Standings(codes, tuple(rows))


def _split(
    event: PoolHistory,
    group: list[str],
    code: str,
    values: Mapping[str, Mapping[str, Fraction]],
    lots: Mapping[str, int] | None,
    trace: DirectEncounterTrace,
    primary: str,
) -> list[list[str]]:
    """One criterion applied to one group (C.07 4.2); returns its ordered subgroups."""
    if len(group) < 2:
        return [group]
    if code in GROUP_CODES:
        return direct_encounter(event, group, code, trace, primary=primary)
    if code == "LOT":
        if lots is None:
            return [group]
        missing = [team for team in group if team not in lots]
        if missing:
            raise TieBreakError(f"no lot number for {', '.join(missing)}")
        return _by_key(group, lambda team: Fraction(-lots[team]))
    return _by_key(group, lambda team: values[code][team])


def _by_key(group: list[str], key: Callable[[str], Fraction]) -> list[list[str]]:
    """Higher key ranks higher; equal keys stay tied; names only fix the display order."""
    ordered = sorted(group, key=lambda t: (-key(t), t))
    parts: list[list[str]] = []
    for team in ordered:
        if parts and key(parts[-1][0]) == key(team):
            parts[-1].append(team)
        else:
            parts.append([team])
    return parts


def team_totals(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    *,
    scoring: MatchScoring = DEFAULT_SCORING,
    bye_mp: int | None = None,
    adjustments: Mapping[str, tuple[int, int]] | None = None,
) -> dict[str, TeamTotals]:
    """Per-team MP, GP (the arbiter's ``adjustments`` included) and match counts, e.g. for a cross table."""
    event = build_event(teams, matches, scoring=scoring, bye_mp=bye_mp, adjustments=adjustments)
    out: dict[str, TeamTotals] = {}
    for team in teams:
        rounds = [r for r in event.rounds[team] if r.opponent is not None]
        extra_mp, extra_gp = event.adjustments.get(team, (0, 0))
        out[team] = TeamTotals(
            team=team,
            mp=event.mp(team) + extra_mp,
            gp_half=event.gp(team) + extra_gp,
            played=event.played(team),
            won=sum(1 for r in rounds if r.mp == scoring.win),
            drawn=sum(1 for r in rounds if r.mp not in (scoring.win, scoring.loss)),
            lost=sum(1 for r in rounds if r.mp == scoring.loss),
        )
    return out
