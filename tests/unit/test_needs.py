"""Exact scenarios of a pool's last rounds (orchestrator/domain/needs.py, docs/needs.md), checked by playing
every enumerated scenario through the standings engine (domain/standings.py)."""

from __future__ import annotations

from itertools import product
from random import Random

import pytest

from orchestrator.domain.needs import (
    Condition,
    Fixture,
    NeedsError,
    PoolNeeds,
    Status,
    Verdict,
    current_points,
    outcomes,
    pool_needs,
    scenario_verdict,
)
from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import DEFAULT_SCORING, MatchRecord, MatchScoring
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import PRESETS

BOARDS = 4
CHAIN = PRESETS["online-2020"]


def _game_points(rng: Random, outcome: int) -> tuple[int, int]:
    """Half-points of a 4-board match won by team_a (0), drawn (1) or won by team_b (2)."""
    total = BOARDS * 2
    if outcome == 1:
        return total // 2, total // 2
    margin = rng.randint(total // 2 + 1, total)
    return (margin, total - margin) if outcome == 0 else (total - margin, margin)


def _pool(size: int, played_rounds: int, seed: int) -> tuple[list[str], list[MatchRecord], list[Fixture]]:
    rng = Random(seed)
    teams = [f"T{i}" for i in range(size)]
    played: list[MatchRecord] = []
    fixtures: list[Fixture] = []
    for rnd in berger_table(size):
        for pairing in rnd.pairings:
            a, b = teams[pairing.first - 1], teams[pairing.second - 1]
            if rnd.number <= played_rounds:
                played.append(MatchRecord(rnd.number, a, b, *_game_points(rng, rng.randrange(3))))
            else:
                fixtures.append(Fixture(a, b))
    return teams, played, fixtures


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


def test_in_with_a_win_and_with_a_draw_if_the_rival_does_not_win():
    # A 4, B 3, C 2, D 2; last round A–C, B–D. First place: A is in with a win; with a draw if B does not
    # win (a win puts B level on 5, which the tie-breaks decide); with a loss C draws level on 4 whatever
    # happens, so no bound puts A in.
    mp = {"A": 4, "B": 3, "C": 2, "D": 2}
    fixtures = [Fixture("A", "C"), Fixture("B", "D")]
    first = pool_needs(mp, fixtures, places=[1]).outlook("A", 1)
    assert first.status is Status.OPEN
    win, draw, loss = first.lines
    assert (win.gain, win.final_mp, win.verdict, win.tie_possible) == (2, 6, Verdict.IN, False)
    assert (draw.gain, draw.verdict, draw.when_in) == (1, Verdict.OPEN, ((Condition("B", 4),),))
    assert draw.tie_possible
    assert (loss.gain, loss.verdict, loss.when_in) == (0, Verdict.OPEN, ())
    # Top two: in with a win or a draw; with a loss level with C at least, so the tie-breaks decide.
    top_two = pool_needs(mp, fixtures, places=[2]).outlook("A", 2)
    assert [line.verdict for line in top_two.lines] == [Verdict.IN, Verdict.IN, Verdict.TIE]
    assert pool_needs(mp, fixtures, places=[1]).outlook("C", 1).status is Status.OPEN


def test_a_team_out_whatever_happens_is_eliminated_and_one_in_whatever_happens_has_clinched():
    mp = {"A": 12, "B": 6, "C": 2, "D": 0}
    needs = pool_needs(mp, [Fixture("A", "D"), Fixture("B", "C")], places=[1, 3])
    assert needs.outlook("A", 1).status is Status.CLINCHED
    assert needs.outlook("D", 1).status is Status.ELIMINATED
    assert needs.outlook("D", 3).status is Status.OPEN
    assert needs.outlook("B", 3).status is Status.CLINCHED


def test_a_pair_of_bounds_is_offered_when_no_single_one_suffices():
    # A needs both B and C to stay below it for first place.
    mp = {"A": 4, "B": 3, "C": 3, "D": 0, "E": 0, "F": 0}
    fixtures = [Fixture("A", "D"), Fixture("B", "E"), Fixture("C", "F")]
    line = pool_needs(mp, fixtures, places=[1]).outlook("A", 1).lines[1]  # A draws: 5
    assert line.verdict is Verdict.OPEN
    assert line.when_in == ((Condition("B", 4), Condition("C", 4)),)


def test_other_scorings_give_their_own_match_points():
    scoring = MatchScoring(win=3, draw=1, loss=0)
    assert outcomes(scoring) == ((3, 0), (1, 1), (0, 3))
    needs = pool_needs({"A": 3, "B": 0}, [Fixture("A", "B")], places=[1], scoring=scoring)
    assert [line.gain for line in needs.outlook("B", 1).lines] == [3, 1, 0]
    assert [line.verdict for line in needs.outlook("B", 1).lines] == [Verdict.TIE, Verdict.OUT, Verdict.OUT]
    assert outcomes(DEFAULT_SCORING) == ((2, 0), (1, 1), (0, 2))


def test_scenario_verdict_counts_teams_above_and_level():
    final = {"A": 5, "B": 5, "C": 7, "D": 1}
    assert scenario_verdict(final, "A", 1) is Verdict.OUT
    assert scenario_verdict(final, "A", 2) is Verdict.TIE
    assert scenario_verdict(final, "A", 3) is Verdict.IN
    assert scenario_verdict(final, "C", 1) is Verdict.IN
    assert scenario_verdict(final, "D", 3) is Verdict.OUT


def test_bad_pools_are_refused_with_every_problem():
    fixtures = [Fixture("A", "Z"), Fixture("A", "A"), Fixture("B", "C"), Fixture("C", "B")]
    with pytest.raises(NeedsError) as error:
        pool_needs({"A": 0, "B": 0, "C": 0}, fixtures, places=[3])
    text = str(error.value)
    assert "Z not in the pool" in text
    assert "A cannot play itself" in text
    assert "C – B is listed twice" in text
    assert "places must be between 1 and 2, not 3" in text


def test_more_than_three_matches_left_is_refused():
    teams, _played, fixtures = _pool(10, 5, 1)
    with pytest.raises(NeedsError, match="more than 3 matches left for T0"):
        pool_needs(dict.fromkeys(teams, 0), fixtures, places=[1])


def test_no_place_asked_still_checks_the_pool():
    with pytest.raises(NeedsError, match="not in the pool"):
        pool_needs({"A": 0, "B": 0}, [Fixture("A", "X")], places=[])
    assert pool_needs({"A": 0, "B": 0}, [Fixture("A", "B")], places=[]).outlooks == ()


def test_current_points_count_as_the_standings_do():
    played = [MatchRecord(1, "A", "B", 5, 3), MatchRecord(2, "A", "C", 4, 4)]
    assert current_points(["A", "B", "C"], played) == {"A": 3, "B": 0, "C": 1}
