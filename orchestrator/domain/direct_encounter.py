"""Direct encounter between tied teams: DE:MP, DE:GP (FIDE C.07 Art. 6) and EDE (C.07 13.3).

A group criterion: computed inside each subgroup still tied (C.07 4.2, 6.2); our decisions in
docs/tiebreaks.md.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from orchestrator.domain.tiebreaks import (
    Criterion,
    PoolHistory,
    RoundKind,
    Score,
    TieBreakError,
    points_of,
    tiebreak,
)


def _win(history: PoolHistory, score: Score) -> Fraction:
    return Fraction(history.scoring.win) if score == "MP" else Fraction(history.boards)


@dataclass
class DirectEncounterTrace:
    """Per team, the score inside the last group where direct encounter was computed for it."""

    score: dict[str, Fraction] = field(default_factory=dict)


def _de_scores(
    history: PoolHistory, group: Sequence[str], score: Score
) -> tuple[dict[str, Fraction], dict[str, Fraction], bool]:
    """Score of each member against the others (C.07 6.1, repeated meetings averaged per 6.1.2),
    the best it could reach if missing meetings were won, and whether all of them met."""
    members = set(group)
    current: dict[str, Fraction] = {}
    best: dict[str, Fraction] = {}
    all_met = True
    for team in group:
        per_opp: dict[str, list[Fraction]] = defaultdict(list)
        for r in history.rounds[team]:
            if r.opponent not in members:
                continue
            # 6.1.1: forfeits count only where 15.2 (pre-determined pairings) treats them as played.
            if r.kind is RoundKind.PLAYED or history.round_robin:
                per_opp[r.opponent].append(points_of(r, score))
        total = Fraction(sum(Fraction(sum(v), len(v)) for v in per_opp.values()))
        missing = len(group) - 1 - len(per_opp)
        current[team] = total
        best[team] = total + missing * _win(history, score)
        all_met = all_met and not missing
    # 15.2: a round robin's pairings are pre-determined, so 6.3 (missing meetings) never applies.
    return current, best, all_met or history.round_robin


def _de_split(
    history: PoolHistory, group: Sequence[str], score: Score, trace: DirectEncounterTrace
) -> list[list[str]]:
    """One application of C.07 Art. 6 to a tied group: ordered subgroups (6.2 or, Swiss, 6.3)."""
    current, best, all_met = _de_scores(history, group, score)
    for team in group:
        trace.score[team] = current[team]
    ordered = sorted(group, key=lambda t: (-current[t], -best[t], t))
    if all_met:
        parts: list[list[str]] = []
        for team in ordered:
            if parts and current[parts[-1][0]] == current[team]:
                parts[-1].append(team)
            else:
                parts.append([team])
        return parts
    # 6.3: a team goes ahead only when no outcome of the missing meetings can catch it.
    parts = []
    rest = list(ordered)
    while len(rest) > 1:
        head, others = rest[0], rest[1:]
        if current[head] > max(best[t] for t in others):
            parts.append([head])
            rest = others
        else:
            break
    if rest:
        parts.append(rest)
    return parts


def _refine(
    parts: list[list[str]], split: Callable[[list[str]], list[list[str]]]
) -> tuple[list[list[str]], bool]:
    """Apply ``split`` to every group still tied until nothing changes (C.07 6.2 reapplied); the flag
    says whether any group was split."""
    start = len(parts)
    while True:
        new_parts = [piece for part in parts for piece in (split(part) if len(part) > 1 else [part])]
        if len(new_parts) == len(parts):  # nothing split: new_parts only orders each group's members
            return new_parts, len(parts) > start
        parts = new_parts


def _splitter(
    history: PoolHistory, score: Score, trace: DirectEncounterTrace
) -> Callable[[list[str]], list[list[str]]]:
    def split(group: list[str]) -> list[list[str]]:
        return _de_split(history, group, score, trace)

    return split


def direct_encounter(
    history: PoolHistory,
    group: Sequence[str],
    code: str,
    trace: DirectEncounterTrace,
    *,
    primary: Score = "MP",
) -> list[list[str]]:
    """Order a tied group by DE:MP, DE:GP (C.07 6) or EDE (C.07 13.3); returns ordered subgroups.

    EDE alternates between the primary and the secondary score, each to a fixed point, and keeps
    using the secondary score inside a subgroup it created, as FIDE's checker does (docs/tiebreaks.md).
    """
    entry = tiebreak(code)
    if entry.criterion is not Criterion.GROUP:
        raise TieBreakError(f"{code} is not a direct-encounter tie-break")
    parts = [sorted(group)]
    if entry.score is not None:
        return _refine(parts, _splitter(history, entry.score, trace))[0]
    scores = (primary, "GP" if primary == "MP" else "MP")
    index, quiet = 0, 0
    while quiet < 2:
        parts, changed = _refine(parts, _splitter(history, scores[index], trace))
        quiet = 0 if changed else quiet + 1
        index = 1 - index
    return parts
