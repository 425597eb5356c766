"""Exact scenarios against the standings engine: every enumerated scenario of small pools is played through
domain/standings.py with random game points, and the needs must agree (docs/needs.md). Slow (thousands of
standings), so apart from the fast exactness tests of test_needs.py."""

from __future__ import annotations

from itertools import product
from random import Random

import pytest

from orchestrator.domain.needs import PoolNeeds, Status, Verdict, current_points, pool_needs, scenario_verdict
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import PRESETS
from tests.support.needs_pools import BOARDS
from tests.support.needs_pools import game_points as _game_points
from tests.support.needs_pools import pool_of as _pool

CHAIN = PRESETS["online-2020"]


def _scenarios(teams, played, fixtures, rng):
    """Every outcome of ``fixtures``: the final match points and the full match list (random margins)."""
    first = max(m.round for m in played) + 1
    for combo in product(range(3), repeat=len(fixtures)):
        matches = list(played)
        for index, (fixture, outcome) in enumerate(zip(fixtures, combo, strict=True)):
            matches.append(
                MatchRecord(first + index, fixture.team_a, fixture.team_b, *_game_points(rng, outcome))
            )
        yield current_points(teams, matches), matches


def _line_of(needs: PoolNeeds, team: str, places: int, final: int):
    return next(line for line in needs.outlook(team, places).lines if line.final_mp == final)


def _check_against_standings(teams, played, fixtures, places, seed):
    needs = pool_needs(current_points(teams, played), fixtures, places=places)
    rng = Random(seed)
    seen: dict[tuple[str, int, int], set[Verdict]] = {}
    for final_mp, matches in _scenarios(teams, played, fixtures, rng):
        standings = compute_standings(teams, matches, chain=CHAIN, boards=BOARDS)
        for team in teams:
            rank = standings.rank_of(team)
            for k in places:
                verdict = scenario_verdict(final_mp, team, k)
                seen.setdefault((team, k, final_mp[team]), set()).add(verdict)
                if verdict is Verdict.IN:
                    assert rank <= k, (team, k, final_mp)
                elif verdict is Verdict.OUT:
                    assert rank > k, (team, k, final_mp)
                line = _line_of(needs, team, k, final_mp[team])
                if line.verdict in (Verdict.IN, Verdict.OUT, Verdict.TIE):
                    assert verdict is line.verdict, (team, k, final_mp, line)
                met = [all(final_mp[c.team] <= c.at_most for c in alt) for alt in line.when_in]
                if any(met):
                    assert verdict is Verdict.IN and rank <= k, (team, k, final_mp, line)
    # exact, not merely safe: every line names what some scenario gives, and only that
    for outlook in needs.outlooks:
        finals = {line.final_mp for line in outlook.lines}
        assert finals == {final for (team, k, final) in seen if team == outlook.team and k == outlook.places}
        for line in outlook.lines:
            kinds = seen[(outlook.team, outlook.places, line.final_mp)]
            assert line.tie_possible == (Verdict.TIE in kinds)
            if line.verdict is Verdict.OPEN:
                assert len(kinds) > 1
            else:
                assert kinds == {line.verdict}
        if outlook.status is Status.CLINCHED:
            assert all(line.verdict is Verdict.IN for line in outlook.lines)
    return needs


@pytest.mark.parametrize("seed", [1, 2])
def test_every_scenario_of_a_pool_of_six_with_two_rounds_left_agrees_with_the_standings(seed):
    teams, played, fixtures = _pool(6, 3, seed)
    _check_against_standings(teams, played, fixtures, (1, 2, 3), seed)


@pytest.mark.parametrize("seed", [5, 6])
def test_every_scenario_of_a_pool_of_ten_with_one_round_left_agrees_with_the_standings(seed):
    teams, played, fixtures = _pool(10, 8, seed)
    _check_against_standings(teams, played, fixtures, (1, 4), seed)


def test_a_pool_of_eight_with_three_rounds_left_agrees_on_a_sample_of_scenarios():
    teams, played, fixtures = _pool(8, 4, 11)
    assert len(fixtures) == 12
    needs = pool_needs(current_points(teams, played), fixtures, places=(1, 3))
    rng = Random(11)
    first = max(m.round for m in played) + 1
    for _ in range(300):
        matches = list(played)
        for index, fixture in enumerate(fixtures):
            matches.append(
                MatchRecord(
                    first + index, fixture.team_a, fixture.team_b, *_game_points(rng, rng.randrange(3))
                )
            )
        final_mp = current_points(teams, matches)
        standings = compute_standings(teams, matches, chain=CHAIN, boards=BOARDS)
        for team in teams:
            for k in (1, 3):
                line = _line_of(needs, team, k, final_mp[team])
                if line.verdict is Verdict.IN:
                    assert standings.rank_of(team) <= k
                if line.verdict is Verdict.OUT:
                    assert standings.rank_of(team) > k
