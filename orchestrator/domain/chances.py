"""Each team's chances of the places that matter, by a Monte Carlo of the remaining rounds (docs/needs.md).

A board is drawn from its two players' ratings: the expected score is FIDE B.02's table 8.1.2
(``ratings.expected_score``: the rating difference in bands, hundredths, the 400-point rule of 8.3.1);
draws are as frequent as ``game_model``'s model says for the gap (``DRAW_RATE_EQUAL`` between equals,
falling off with the gap) and the expected score is kept, so a win has probability PD − draw/2. Colours
do not change the table's PD, so a match's game points have one distribution, computed once per pair of
lineups by convolving its boards, and each simulated match is one draw from it.

Round-robin pools: the fixtures left are known. Swiss stages: every remaining round is paired by the
stage's engine (``SwissPairer``, domain/swiss/) on the simulated state; the first of them, the same in
every simulation, is paired once. Ranking: the match points and game points are kept incrementally; the
leading criteria of the chain that are plain totals (MP, GP) sort the teams, and only when teams level on
them straddle a place that matters is the rest of the chain applied: value criteria to the level teams
only (``_refine``), a chain with a direct encounter by the standings engine
(``standings.compute_standings``), so the places always agree with the standings engine. Teams still
level after the whole chain share the places they cover (a drawing of lots: each is equally likely).

Everything is drawn from ``random.Random(seed)``: the same seed gives the same chances.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from random import Random

from orchestrator.domain.game_model import DRAW_RATE_EQUAL
from orchestrator.domain.ratings import expected_score
from orchestrator.domain.scoring import DEFAULT_SCORING, HalfPoints, MatchRecord, MatchScoring
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.swiss.model import SwissError, SwissState, record_round
from orchestrator.domain.swiss.pairing import RoundPairing, SwissPairer
from orchestrator.domain.tiebreaks import (
    Criterion,
    PoolHistory,
    Score,
    build_event,
    parse_chain,
    primary_score,
    tiebreak,
    value_of,
)

MAX_SIMULATIONS = 100_000
_TOTALS = ("MP", "GP")  # criteria read straight from the running totals


class ChancesError(ValueError):
    """A stage whose chances cannot be simulated (every problem is listed)."""


@dataclass(frozen=True, slots=True)
class TeamChances:
    team: str
    chances: tuple[float, ...]  # one per place of ``Chances.places``: P(rank <= place)


@dataclass(frozen=True, slots=True)
class Chances:
    simulations: int
    seed: int
    places: tuple[int, ...]
    rows: tuple[TeamChances, ...]  # best chance of the first place first
    full_rankings: int = 0  # simulations in which the chain beyond the totals had to be applied

    def of(self, team: str) -> TeamChances:
        for row in self.rows:
            if row.team == team:
                return row
        raise KeyError(team)


def board_probabilities(rating: int, opponent: int) -> tuple[float, float, float]:
    """(win, draw, loss) of the player rated ``rating``: PD from B.02 table 8.1.2, the draw rate of
    ``game_model`` for the gap, the expectation kept. PD is read from the higher-rated player's side (with
    8.3.1's 400-point rule when that player is below 2650) and the other player scores 1 − PD, so a board
    has the same chances whichever team is named first."""
    if rating >= opponent:
        expected = float(expected_score(rating, opponent))
    else:
        expected = 1.0 - float(expected_score(opponent, rating))
    gap = abs(rating - opponent) / 400.0
    draw = min(DRAW_RATE_EQUAL * math.exp(-gap * gap), 2 * expected, 2 * (1 - expected))
    win = expected - draw / 2
    return win, draw, 1.0 - win - draw


def match_distribution(first: Sequence[int], second: Sequence[int]) -> tuple[float, ...]:
    """P(the first team scores h half-points), h = 0 .. 2 × boards, board n against board n."""
    if len(first) != len(second):
        raise ChancesError(f"lineups of {len(first)} and {len(second)} boards cannot meet")
    dist = [1.0]
    for mine, theirs in zip(first, second, strict=True):
        win, draw, loss = board_probabilities(mine, theirs)
        following = [0.0] * (len(dist) + 2)
        for half, p in enumerate(dist):
            following[half] += p * loss
            following[half + 1] += p * draw
            following[half + 2] += p * win
        dist = following
    return tuple(dist)


class MatchDrawer:
    """Draws a match's game points from the two lineups (the distribution cached per pair of teams)."""

    def __init__(self, lineups: Mapping[str, Sequence[int]], boards: int) -> None:
        self._lineups = lineups
        self._boards = boards
        self._cumulative: dict[tuple[str, str], list[float]] = {}

    def draw(self, rng: Random, first: str, second: str) -> tuple[HalfPoints, HalfPoints]:
        key = (first, second)
        cumulative = self._cumulative.get(key)
        if cumulative is None:
            dist = match_distribution(self._lineups[first], self._lineups[second])
            cumulative = list(accumulate(dist))
            self._cumulative[key] = cumulative
        half = min(bisect_right(cumulative, rng.random() * cumulative[-1]), len(cumulative) - 1)
        return half, 2 * self._boards - half


def check_ratings(
    teams: Sequence[str], lineups: Mapping[str, Sequence[int | None]], boards: int
) -> dict[str, tuple[int, ...]]:
    """Every team's lineup of ``boards`` rated players, or a ChancesError naming each team without."""
    problems: list[str] = []
    out: dict[str, tuple[int, ...]] = {}
    for team in teams:
        ratings = [r for r in lineups.get(team, ()) if r is not None]
        if len(ratings) < boards:
            problems.append(f"{team} has {len(ratings)} rated players for {boards} boards")
            continue
        out[team] = tuple(ratings[:boards])
    if problems:
        raise ChancesError("no ratings to simulate with: " + "; ".join(problems))
    return out


def _check_request(simulations: int, places: Sequence[int], teams: int) -> tuple[int, ...]:
    problems: list[str] = []
    if not 1 <= simulations <= MAX_SIMULATIONS:
        problems.append(f"simulations must be between 1 and {MAX_SIMULATIONS}, not {simulations}")
    wanted = tuple(sorted(set(places)))
    if not wanted or any(not 1 <= k <= teams for k in wanted):
        problems.append(f"places must be between 1 and {teams}, not {list(places)}")
    if problems:
        raise ChancesError("; ".join(problems))
    return wanted


class _Tally:
    """Places counted over the simulations; a tied group shares the places it covers."""

    def __init__(self, teams: Sequence[str], places: tuple[int, ...]) -> None:
        self.teams = list(teams)
        self.places = places
        self.counts = {team: [0.0] * len(places) for team in teams}
        self.full = 0

    def add_groups(self, groups: Sequence[Sequence[str]]) -> None:
        position = 1
        for group in groups:
            size = len(group)
            for i, k in enumerate(self.places):
                share = min(max(k - position + 1, 0), size) / size
                if share:
                    for team in group:
                        self.counts[team][i] += share
            position += size

    def result(self, simulations: int, seed: int) -> Chances:
        rows = [
            TeamChances(team, tuple(count / simulations for count in self.counts[team]))
            for team in self.teams
        ]
        rows.sort(key=lambda row: ([-c for c in row.chances], row.team))
        return Chances(simulations, seed, self.places, tuple(rows), self.full)


def _total_prefix(chain: Sequence[str]) -> tuple[str, ...]:
    prefix: list[str] = []
    for code in chain:
        if code not in _TOTALS:
            break
        prefix.append(code)
    return tuple(prefix)


def _total_groups(totals: Mapping[str, tuple[int, int]], prefix: tuple[str, ...]) -> list[list[str]]:
    """Groups in rank order from the running totals: the teams level on ``prefix`` share a group."""

    keys = {
        team: tuple(-(mp if code == "MP" else gp) for code in prefix) for team, (mp, gp) in totals.items()
    }
    ordered = sorted(totals, key=lambda team: (keys[team], team))
    groups: list[list[str]] = []
    for team in ordered:
        if groups and keys[groups[-1][0]] == keys[team]:
            groups[-1].append(team)
        else:
            groups.append([team])
    return groups


def _rank_groups(
    totals: Mapping[str, tuple[int, int]], prefix: tuple[str, ...], places: tuple[int, ...]
) -> list[list[str]] | None:
    """Groups in rank order from the running totals; None (run the whole chain) when a group of teams
    level on ``prefix`` straddles a place of ``places``."""
    if not prefix:
        return None
    groups = _total_groups(totals, prefix)
    return None if _straddles(groups, places) else groups


def _values_only(codes: Sequence[str]) -> bool:
    """Whether no criterion of ``codes`` is a direct encounter (each is one value per team, or lots)."""
    return all(tiebreak(code).criterion is not Criterion.GROUP for code in codes)


def _refine(
    history: PoolHistory,
    groups: list[list[str]],
    places: tuple[int, ...],
    codes: Sequence[str],
    primary: Score,
) -> list[list[str]]:
    """``groups`` split by the value criteria ``codes`` in turn, only the groups that straddle a place,
    each criterion computed for their teams only: the teams above each place are those of the whole
    chain (a group that straddles no place is wholly above or below each place, however it would split).
    The drawing of lots splits nothing (no lots are drawn in a simulation: level teams share)."""
    for code in codes:
        if tiebreak(code).criterion is Criterion.LOT:
            continue
        split: list[list[str]] = []
        position = 1
        for group in groups:
            end = position + len(group) - 1
            if any(position <= k < end for k in places):
                values = {team: value_of(history, team, code, primary=primary) for team in group}
                parts: list[list[str]] = []
                for team in sorted(group, key=lambda team: (-values[team], team)):
                    if parts and values[parts[-1][0]] == values[team]:
                        parts[-1].append(team)
                    else:
                        parts.append([team])
                split.extend(parts)
            else:
                split.append(group)
            position = end + 1
        groups = split
    return groups


def _straddles(groups: Sequence[Sequence[str]], places: tuple[int, ...]) -> bool:
    """Whether a group of level teams covers both place k and place k + 1 for some k of ``places``."""
    position = 1
    for group in groups:
        end = position + len(group) - 1
        if any(position <= k < end for k in places):
            return True
        position = end + 1
    return False


def _groups_of(
    teams: Sequence[str],
    matches: Sequence[MatchRecord],
    places: tuple[int, ...],
    *,
    chain: tuple[str, ...],
    start: int,
    boards: int,
    scoring: MatchScoring,
    round_robin: bool = True,
    bye_mp: int | None = None,
) -> list[list[str]]:
    """The standings engine's ranks as groups (teams it leaves level share a group). The chain is run a
    criterion longer each time, from ``start`` + 1 criteria, until no group straddles a place: each
    criterion only splits the groups the ones before it left, so the teams above each place are those of
    the whole chain, at a fraction of its cost."""
    groups: list[list[str]] = []
    for length in range(min(start + 1, len(chain)), len(chain) + 1):
        standings = compute_standings(
            teams,
            matches,
            chain=chain[:length],
            boards=boards,
            scoring=scoring,
            round_robin=round_robin,
            bye_mp=bye_mp,
        )
        ranks: dict[int, list[str]] = {}
        for row in standings.rows:
            ranks.setdefault(row.rank, []).append(row.team)
        groups = list(ranks.values())
        if not _straddles(groups, places):
            break
    return groups


def pool_chances(
    teams: Sequence[str],
    played: Sequence[MatchRecord],
    fixtures: Sequence[tuple[int, str, str]],
    lineups: Mapping[str, Sequence[int | None]],
    *,
    places: Sequence[int],
    chain: Sequence[str],
    boards: int,
    scoring: MatchScoring = DEFAULT_SCORING,
    simulations: int,
    seed: int,
) -> Chances:
    """Chances of each of ``places`` (top k of the pool) over ``simulations`` plays of ``fixtures``
    (round, first-named team, second team)."""
    wanted = _check_request(simulations, places, len(teams))
    if not fixtures:
        raise ChancesError("the pool has no match left to play")
    ratings = check_ratings(teams, lineups, boards)
    codes = parse_chain(chain)
    prefix = _total_prefix(codes)
    quick, primary = _values_only(codes), primary_score(codes)
    history = build_event(teams, played, boards=boards, scoring=scoring)
    base = {team: (history.mp(team), history.gp(team)) for team in teams}
    drawer = MatchDrawer(ratings, boards)
    rng = Random(seed)
    tally = _Tally(teams, wanted)
    for _ in range(simulations):
        totals = dict(base)
        simulated: list[MatchRecord] = []
        for round_no, first, second in fixtures:
            gp_a, gp_b = drawer.draw(rng, first, second)
            record = MatchRecord(round_no, first, second, gp_a, gp_b)
            simulated.append(record)
            mp_a, mp_b = record.mp(scoring)
            totals[first] = (totals[first][0] + mp_a, totals[first][1] + gp_a)
            totals[second] = (totals[second][0] + mp_b, totals[second][1] + gp_b)
        groups = _total_groups(totals, prefix)
        if _straddles(groups, wanted):
            tally.full += 1
            if quick:
                history = build_event(teams, [*played, *simulated], boards=boards, scoring=scoring)
                groups = _refine(history, groups, wanted, codes[len(prefix) :], primary)
            else:
                groups = _groups_of(
                    teams,
                    [*played, *simulated],
                    wanted,
                    chain=codes,
                    start=len(prefix),
                    boards=boards,
                    scoring=scoring,
                )
        tally.add_groups(groups)
    return tally.result(simulations, seed)


def _pair(pairer: SwissPairer, state: SwissState, round_no: int) -> RoundPairing:
    try:
        return pairer.pair_round(state, round_no)
    except SwissError as error:
        raise ChancesError(f"round {round_no} of a simulation cannot be paired: {error}") from error


def _extended(played: PoolHistory, simulated: Sequence[MatchRecord], bye_mp: int) -> PoolHistory:
    """``played`` (a Swiss stage's history) with the ``simulated`` rounds after it, the same as
    ``build_event`` of all the matches: a team's entry for a round is read from that round's records
    only, so the rounds simulated are built alone and put after the rounds played."""
    new = build_event(played.teams, simulated, scoring=played.scoring, bye_mp=bye_mp)  # its rounds only
    done = played.number_of_rounds
    rounds = {team: played.rounds[team] + new.rounds[team][done:] for team in played.teams}
    return PoolHistory(
        played.teams, rounds, new.number_of_rounds, played.boards, played.scoring, played.round_robin
    )


def swiss_chances(
    state: SwissState,
    lineups: Mapping[str, Sequence[int | None]],
    *,
    pairer: SwissPairer,
    places: Sequence[int],
    chain: Sequence[str],
    simulations: int,
    seed: int,
) -> Chances:
    """Chances of each of ``places`` (top k of the stage) over ``simulations`` plays of the rounds left,
    each round paired by ``pairer`` on the simulated state."""
    teams = [team.name for team in state.teams]
    wanted = _check_request(simulations, places, len(teams))
    first_round = state.rounds_played + 1
    if first_round > state.rounds:
        raise ChancesError("the stage is finished: every round has been played")
    ratings = check_ratings(teams, lineups, state.boards)
    codes = parse_chain(chain)
    prefix = _total_prefix(codes)
    quick, primary = _values_only(codes), primary_score(codes)
    base = {team: state.points(team) for team in teams}
    bye_mp = state.bye_points()[0]
    drawer = MatchDrawer(ratings, state.boards)
    rng = Random(seed)
    tally = _Tally(teams, wanted)
    played = build_event(
        teams, state.matches, boards=state.boards, scoring=state.scoring, round_robin=False, bye_mp=bye_mp
    )
    first = _pair(pairer, state, first_round)  # the same in every simulation: paired once
    for _ in range(simulations):
        current = state
        totals = dict(base)
        for round_no in range(first_round, state.rounds + 1):
            pairing = first if round_no == first_round else _pair(pairer, current, round_no)
            matches: list[MatchRecord] = []
            for pair in pairing.pairings:
                gp_a, gp_b = drawer.draw(rng, pair.first, pair.second)
                record = MatchRecord(round_no, pair.first, pair.second, gp_a, gp_b)
                matches.append(record)
                mp_a, mp_b = record.mp(state.scoring)
                totals[pair.first] = (totals[pair.first][0] + mp_a, totals[pair.first][1] + gp_a)
                totals[pair.second] = (totals[pair.second][0] + mp_b, totals[pair.second][1] + gp_b)
            bye = pairing.bye_record(current)
            if bye is not None:
                matches.append(bye)
                totals[bye.team_a] = (totals[bye.team_a][0] + bye_mp, totals[bye.team_a][1] + bye.gp_a)
            current = record_round(current, matches)
        groups = _total_groups(totals, prefix)
        if _straddles(groups, wanted):
            tally.full += 1
            if quick:
                history = _extended(played, current.matches[len(state.matches) :], bye_mp)
                groups = _refine(history, groups, wanted, codes[len(prefix) :], primary)
            else:
                groups = _groups_of(
                    teams,
                    current.matches,
                    wanted,
                    chain=codes,
                    start=len(prefix),
                    boards=state.boards,
                    scoring=state.scoring,
                    round_robin=False,
                    bye_mp=bye_mp,
                )
        tally.add_groups(groups)
    return tally.result(simulations, seed)
