"""What a team needs before the last rounds of a round-robin pool: exact scenarios on match points
(docs/needs.md).

Every combination of the remaining matches' outcomes (won, drawn or lost, C.07 Art. 11.1.1's match
points) is considered, for each team and each qualifying place k ("top k of the pool"). A scenario puts
a team IN (fewer than k other teams end with as many match points or more), OUT (k teams or more end
with more match points) or leaves it to the tie-breaks (TIE: teams level on match points straddle place
k, so game points, the direct encounter and the rest of the chain decide, docs/tiebreaks.md); this module
never guesses a tie-break.

Enumeration: for team T, T's own matches come first (they fix T's final score m), then the other
matches one by one; each other team is kept as its score relative to m and, as soon as it can no longer
cross m (already above, or below even winning every match it has left), collapsed to "above" or
"below". Scenarios that agree on every team still open are merged, so the 3^15 outcomes of three rounds
in a pool of ten shrink to a few thousand states per team. The result per gain g of T (match points T
takes from its remaining matches) is the set of reachable class vectors (each other team below, level or
above T), from which the verdict and the simplest conditions are read.

A condition is "X ends with at most N match points"; the conditions of a line are alternatives, each a
conjunction of one or two such bounds. When no bound on one or two teams decides, the line says the
result depends on several matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations, product

from orchestrator.domain.scoring import DEFAULT_SCORING, MatchRecord, MatchScoring
from orchestrator.domain.tiebreaks import build_event

MAX_MATCHES_LEFT = 3  # per team: "up to three rounds left" (docs/needs.md, limits)
_ABOVE = 99  # a collapsed team that ends above T whatever happens
_BELOW = -99  # a collapsed team that ends below T whatever happens
_SETTLED = frozenset((_ABOVE, _BELOW))


class NeedsError(ValueError):
    """A pool whose scenarios cannot be enumerated (every problem is listed)."""


class Verdict(StrEnum):
    IN = "in"
    OUT = "out"
    TIE = "tie-break"  # level on match points across the cut: the tie-break chain decides
    OPEN = "open"  # depends on other results


class Status(StrEnum):
    CLINCHED = "clinched"
    ELIMINATED = "eliminated"
    OPEN = "open"


@dataclass(frozen=True, slots=True)
class Fixture:
    team_a: str
    team_b: str


@dataclass(frozen=True, slots=True)
class Condition:
    """``team`` ends with at most ``at_most`` match points."""

    team: str
    at_most: int


@dataclass(frozen=True, slots=True)
class Line:
    """What T's gain of ``gain`` match points (final score ``final_mp``) gives: the verdict when it is the
    same in every scenario; otherwise OPEN with ``when_in``, alternatives each sufficient for IN (each a
    conjunction of bounds; empty when no bound on one or two teams suffices). ``tie_possible``: some
    scenario leaves the place to the tie-breaks."""

    gain: int
    final_mp: int
    verdict: Verdict
    when_in: tuple[tuple[Condition, ...], ...]
    tie_possible: bool


@dataclass(frozen=True, slots=True)
class PlaceOutlook:
    """Team ``team`` and the top ``places`` of the pool."""

    team: str
    places: int
    status: Status
    lines: tuple[Line, ...]  # best gain first


@dataclass(frozen=True, slots=True)
class PoolNeeds:
    mp: Mapping[str, int]  # match points now
    fixtures: tuple[Fixture, ...]
    outlooks: tuple[PlaceOutlook, ...]

    def outlook(self, team: str, places: int) -> PlaceOutlook:
        for outlook in self.outlooks:
            if outlook.team == team and outlook.places == places:
                return outlook
        raise KeyError((team, places))


def current_points(
    teams: Sequence[str], played: Sequence[MatchRecord], scoring: MatchScoring = DEFAULT_SCORING
) -> dict[str, int]:
    """Match points now, as the standings engine counts them (domain/tiebreaks.py)."""
    history = build_event(teams, played, scoring=scoring)
    return {team: history.mp(team) for team in teams}


def scenario_verdict(final_mp: Mapping[str, int], team: str, places: int) -> Verdict:
    """IN, OUT or TIE for ``team`` and the top ``places`` once every match is played."""
    own = final_mp[team]
    above = sum(1 for other, mp in final_mp.items() if other != team and mp > own)
    level = sum(1 for other, mp in final_mp.items() if other != team and mp == own)
    return _verdict(above, level, places)


def _verdict(above: int, level: int, places: int) -> Verdict:
    if above >= places:
        return Verdict.OUT
    if above + level < places:
        return Verdict.IN
    return Verdict.TIE


def outcomes(scoring: MatchScoring) -> tuple[tuple[int, int], ...]:
    """The match points of a match won by team_a, drawn, won by team_b."""
    return ((scoring.win, scoring.loss), (scoring.draw, scoring.draw), (scoring.loss, scoring.win))


def check_pool(teams: Sequence[str], fixtures: Sequence[Fixture], places: int) -> None:
    problems: list[str] = []
    known = set(teams)
    if len(known) != len(teams):
        problems.append("a team is listed twice")
    if not 1 <= places < len(teams):
        problems.append(f"places must be between 1 and {len(teams) - 1}, not {places}")
    left: dict[str, int] = dict.fromkeys(teams, 0)
    seen: set[frozenset[str]] = set()
    for fixture in fixtures:
        pair = frozenset((fixture.team_a, fixture.team_b))
        unknown = sorted(pair - known)
        if unknown:
            problems.append(f"{' and '.join(unknown)} not in the pool")
            continue
        if len(pair) != 2:
            problems.append(f"{fixture.team_a} cannot play itself")
            continue
        if pair in seen:
            problems.append(f"{fixture.team_a} – {fixture.team_b} is listed twice")
        seen.add(pair)
        for team in pair:
            left[team] += 1
    many = sorted(team for team, count in left.items() if count > MAX_MATCHES_LEFT)
    if many:
        problems.append(
            f"more than {MAX_MATCHES_LEFT} matches left for {', '.join(many)}: exact scenarios are "
            f"computed for the last {MAX_MATCHES_LEFT} rounds only"
        )
    if problems:
        raise NeedsError("; ".join(problems))


def pool_needs(
    mp: Mapping[str, int],
    fixtures: Sequence[Fixture],
    *,
    places: Iterable[int],
    scoring: MatchScoring = DEFAULT_SCORING,
) -> PoolNeeds:
    """Every team's outlook for each of ``places`` (e.g. 1 and the number that qualify)."""
    teams = list(mp)
    wanted = sorted(set(places))
    for k in wanted:
        check_pool(teams, fixtures, k)
    if not wanted:
        check_pool(teams, fixtures, 1)
    outlooks: list[PlaceOutlook] = []
    for team in teams:
        reach = reachable(mp, fixtures, team, scoring)
        others = tuple(other for other in teams if other != team)
        for k in wanted:
            outlooks.append(_outlook(team, k, mp[team], others, reach))
    return PoolNeeds(dict(mp), tuple(fixtures), tuple(outlooks))


def reachable(
    mp: Mapping[str, int], fixtures: Sequence[Fixture], team: str, scoring: MatchScoring
) -> dict[int, _Reached]:
    """For each gain of ``team``, the class vectors (-1 below, 0 level, 1 above ``team``) of the other
    teams, in ``mp``'s order, over every outcome of ``fixtures``."""
    others = [other for other in mp if other != team]
    index = {other: i for i, other in enumerate(others)}
    options = outcomes(scoring)
    best = max(scoring.win, scoring.draw, scoring.loss)
    own = [f for f in fixtures if team in (f.team_a, f.team_b)]
    rest = _order(
        [f for f in fixtures if team not in (f.team_a, f.team_b)],
        [f.team_b if f.team_a == team else f.team_a for f in own],
    )
    # left[j][i]: the most team i can still gain from rest[j:]
    left = [[0] * len(others) for _ in range(len(rest) + 1)]
    for j in range(len(rest) - 1, -1, -1):
        left[j] = list(left[j + 1])
        left[j][index[rest[j].team_a]] += best
        left[j][index[rest[j].team_b]] += best
    states: set[tuple[int, tuple[int, ...]]] = set()
    for combo in product(options, repeat=len(own)):
        gain = 0
        values = [mp[other] for other in others]
        # The outcomes are symmetric (each one's mirror is an outcome too), so each pair can be read as
        # (T's points, the opponent's) whichever side T is named on: the combinations are the same.
        for fixture, (mine, theirs) in zip(own, combo, strict=True):
            gain += mine
            opponent = fixture.team_b if fixture.team_a == team else fixture.team_a
            values[index[opponent]] += theirs
        final = mp[team] + gain
        states.add((gain, tuple(_clip(v - final, left[0][i]) for i, v in enumerate(values))))
    for j, fixture in enumerate(rest):
        a, b = sorted((index[fixture.team_a], index[fixture.team_b]))  # symmetric outcomes: any order
        after_a, after_b = left[j + 1][a], left[j + 1][b]
        following: set[tuple[int, tuple[int, ...]]] = set()
        add = following.add
        for state in states:
            gain, rel = state
            va, vb = rel[a], rel[b]
            if va in _SETTLED and vb in _SETTLED:
                add(state)  # neither team can cross T's score any more: the result changes nothing
                continue
            head, middle, tail = rel[:a], rel[a + 1 : b], rel[b + 1 :]
            for points_a, points_b in options:
                add(
                    (
                        gain,
                        (*head, _clip(va + points_a, after_a), *middle, _clip(vb + points_b, after_b), *tail),
                    )
                )
        states = following
    out: dict[int, set[tuple[int, ...]]] = {}
    for gain, rel in states:
        out.setdefault(gain, set()).add(tuple((v > 0) - (v < 0) for v in rel))
    return {gain: _reached(vectors, len(others)) for gain, vectors in out.items()}


def _clip(relative: int, still: int) -> int:
    """A score relative to T's final score, collapsed once it can no longer cross it."""
    if relative > 0:
        return _ABOVE
    if relative + still < 0:
        return _BELOW
    return relative


def _order(fixtures: list[Fixture], varying: Iterable[str]) -> list[Fixture]:
    """Matches ordered so that few teams are open at once (started but not finished): fewer states.
    ``varying``: the teams whose score already differs between states (T's opponents)."""
    ordered: list[Fixture] = []
    pending = list(fixtures)
    started = set(varying)
    while pending:

        def cost(fixture: Fixture) -> tuple[int, int, int]:
            pair = (fixture.team_a, fixture.team_b)
            fresh = sum(1 for t in pair if t not in started)
            done = sum(1 for t in pair if sum(1 for f in pending if t in (f.team_a, f.team_b)) == 1)
            return (fresh - done, fresh, pending.index(fixture))

        chosen = min(pending, key=cost)
        pending.remove(chosen)
        ordered.append(chosen)
        started.update((chosen.team_a, chosen.team_b))
    return ordered


def _outlook(
    team: str, places: int, now: int, others: tuple[str, ...], reach: Mapping[int, _Reached]
) -> PlaceOutlook:
    lines = tuple(
        _line(gain, now + gain, places, others, reach[gain]) for gain in sorted(reach, reverse=True)
    )
    verdicts = {line.verdict for line in lines}
    status = Status.OPEN
    if verdicts == {Verdict.IN}:
        status = Status.CLINCHED
    elif verdicts == {Verdict.OUT}:
        status = Status.ELIMINATED
    return PlaceOutlook(team, places, status, lines)


@dataclass(frozen=True, slots=True)
class _Reached:
    """The class vectors of one gain, and for each bound (team i, b) the bit set of the vectors in which
    team i ends at most b match points above T (b = 0: not above; b = -1: below)."""

    vectors: tuple[tuple[int, ...], ...]
    masks: Mapping[tuple[int, int], int]


def _reached(vectors: set[tuple[int, ...]], teams: int) -> _Reached:
    ordered = tuple(sorted(vectors))
    masks: dict[tuple[int, int], int] = {}
    for i in range(teams):
        for bound in (0, -1):
            mask = 0
            for bit, vector in enumerate(ordered):
                if vector[i] <= bound:
                    mask |= 1 << bit
            masks[(i, bound)] = mask
    return _Reached(ordered, masks)


def _line(gain: int, final: int, places: int, others: tuple[str, ...], reached: _Reached) -> Line:
    verdicts = [_verdict(v.count(1), v.count(0), places) for v in reached.vectors]
    kinds = set(verdicts)
    tie = Verdict.TIE in kinds
    if len(kinds) == 1:
        return Line(gain, final, kinds.pop(), (), tie)
    not_in = 0
    for bit, verdict in enumerate(verdicts):
        if verdict is not Verdict.IN:
            not_in |= 1 << bit
    return Line(gain, final, Verdict.OPEN, _conditions(final, others, reached.masks, not_in), tie)


def _conditions(
    final: int, others: tuple[str, ...], masks: Mapping[tuple[int, int], int], not_in: int
) -> tuple[tuple[Condition, ...], ...]:
    """The weakest single bounds that each put T in; failing those, pairs of bounds."""

    def sufficient(mask: int) -> bool:
        return mask != 0 and mask & not_in == 0

    singles: list[tuple[Condition, ...]] = []
    for i, team in enumerate(others):
        for bound in (0, -1):  # the weaker bound first: "does not end above" before "ends below"
            if sufficient(masks[(i, bound)]):
                singles.append((Condition(team, final + bound),))
                break
    if singles:
        return tuple(singles)
    pairs: list[tuple[Condition, ...]] = []
    for i, j in combinations(range(len(others)), 2):
        for first, second in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
            if sufficient(masks[(i, first)] & masks[(j, second)]):
                pairs.append((Condition(others[i], final + first), Condition(others[j], final + second)))
                break
    return tuple(pairs)
