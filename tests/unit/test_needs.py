"""Exact scenarios of a pool's last rounds (orchestrator/domain/needs.py, docs/needs.md): every line checked
against every outcome's match points; test_needs_standings.py plays the scenarios through the standings."""

from __future__ import annotations

from itertools import product

import pytest

from orchestrator.domain.needs import (
    Condition,
    Fixture,
    NeedsError,
    PoolNeeds,
    Status,
    Verdict,
    check_pool,
    current_points,
    outcomes,
    pool_needs,
    scenario_verdict,
)
from orchestrator.domain.scoring import DEFAULT_SCORING, MatchRecord, MatchScoring
from tests.support.needs_pools import pool_of as _pool


def _outcomes_of(mp, fixtures):
    """Every outcome of ``fixtures`` as final match points (no standings: the fast exactness check)."""
    for combo in product(range(3), repeat=len(fixtures)):
        final = dict(mp)
        for fixture, outcome in zip(fixtures, combo, strict=True):
            points_a, points_b = outcomes(DEFAULT_SCORING)[outcome]
            final[fixture.team_a] += points_a
            final[fixture.team_b] += points_b
        yield final


def check_exact(needs: PoolNeeds, finals, places) -> None:
    """Each line says what the scenarios with its final score give, and only that; every condition that is
    met puts the team in."""
    seen: dict[tuple[str, int, int], set[Verdict]] = {}
    lines = {(o.team, o.places, line.final_mp): line for o in needs.outlooks for line in o.lines}
    for final_mp in finals:
        for team in final_mp:
            for k in places:
                verdict = scenario_verdict(final_mp, team, k)
                seen.setdefault((team, k, final_mp[team]), set()).add(verdict)
                line = lines[(team, k, final_mp[team])]
                if any(all(final_mp[c.team] <= c.at_most for c in alt) for alt in line.when_in):
                    assert verdict is Verdict.IN, (team, k, final_mp, line)
    for outlook in needs.outlooks:
        finals_seen = {final for (team, k, final) in seen if team == outlook.team and k == outlook.places}
        assert {line.final_mp for line in outlook.lines} == finals_seen
        assert [line.gain for line in outlook.lines] == sorted(
            (line.gain for line in outlook.lines), reverse=True
        )
        for line in outlook.lines:
            assert line.final_mp == needs.mp[outlook.team] + line.gain
            kinds = seen[(outlook.team, outlook.places, line.final_mp)]
            assert line.tie_possible == (Verdict.TIE in kinds)
            if line.verdict is Verdict.OPEN:
                assert len(kinds) > 1
            else:
                assert kinds == {line.verdict}
                assert line.when_in == ()
        verdicts = {line.verdict for line in outlook.lines}
        assert (outlook.status is Status.CLINCHED) == (verdicts == {Verdict.IN})
        assert (outlook.status is Status.ELIMINATED) == (verdicts == {Verdict.OUT})


@pytest.mark.parametrize(("size", "played", "seed"), [(6, 3, 1), (6, 3, 2), (6, 2, 3), (10, 8, 5)])
def test_every_line_is_exact_over_every_outcome(size, played, seed):
    teams, records, fixtures = _pool(size, played, seed)
    mp = current_points(teams, records)
    places = (1, 2, 3)
    check_exact(pool_needs(mp, fixtures, places=places), _outcomes_of(mp, fixtures), places)


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


def test_the_words_stored_and_shown_are_fixed():
    assert [v.value for v in Verdict] == ["in", "out", "tie-break", "open"]
    assert [s.value for s in Status] == ["clinched", "eliminated", "open"]


def test_an_outlook_not_computed_is_a_key_error():
    needs = pool_needs({"A": 0, "B": 0}, [Fixture("A", "B")], places=[1])
    assert needs.outlook("A", 1).team == "A"
    with pytest.raises(KeyError, match="'A', 2"):
        needs.outlook("A", 2)
    with pytest.raises(KeyError):
        needs.outlook("C", 1)
    assert needs.mp == {"A": 0, "B": 0}
    assert needs.fixtures == (Fixture("A", "B"),)


def test_a_team_that_cannot_be_caught_by_one_rival_but_by_another_needs_both_bounds_in_that_order():
    # A 6; B 5 and C 5 each play a weak team; D, E, F far behind. A is idle. First place: A needs
    # B and C each to end with at most 6 (level is a tie-break, so "below": at most 5 for a clean in).
    mp = {"A": 6, "B": 5, "C": 5, "D": 0, "E": 0, "F": 0}
    fixtures = [Fixture("B", "D"), Fixture("C", "E"), Fixture("A", "F")]
    lines = pool_needs(mp, fixtures, places=[1]).outlook("A", 1).lines
    assert [line.gain for line in lines] == [2, 1, 0]
    assert lines[0].verdict is Verdict.IN
    draw = lines[1]  # A ends on 7: B and C reach 7 at most, level
    assert draw.verdict is Verdict.OPEN
    assert draw.when_in == ((Condition("B", 6), Condition("C", 6)),)
    assert draw.tie_possible


def test_a_condition_on_one_team_is_its_weakest_bound():
    # A 4, B 4: last round A–C, B–D. A draws (5): in if B does not end above 5 ... B on 5 is level.
    mp = {"A": 4, "B": 4, "C": 0, "D": 0}
    line = pool_needs(mp, [Fixture("A", "C"), Fixture("B", "D")], places=[1]).outlook("A", 1).lines[1]
    assert line.when_in == ((Condition("B", 4),),)
    top_two = pool_needs(mp, [Fixture("A", "C"), Fixture("B", "D")], places=[2]).outlook("A", 2)
    assert top_two.status is Status.CLINCHED
    assert [line.verdict for line in top_two.lines] == [Verdict.IN] * 3


def test_current_points_use_the_events_scoring():
    played = [MatchRecord(1, "A", "B", 5, 3), MatchRecord(2, "A", "C", 4, 4)]
    assert current_points(["A", "B", "C"], played, MatchScoring(win=3, draw=1, loss=0)) == {
        "A": 4,
        "B": 0,
        "C": 1,
    }


def test_every_problem_of_a_pool_is_one_sentence_part():
    fixtures = [Fixture("Y", "Z"), Fixture("A", "B")]
    with pytest.raises(NeedsError) as error:
        pool_needs({"A": 0, "B": 0}, fixtures, places=[2])
    assert str(error.value) == "places must be between 1 and 1, not 2; Y and Z not in the pool"
    teams, _played, fixtures = _pool(6, 1, 1)
    with pytest.raises(NeedsError) as error:
        pool_needs(dict.fromkeys(teams, 0), fixtures, places=[1])
    assert str(error.value) == (
        "more than 3 matches left for T0, T1, T2, T3, T4, T5: exact scenarios are computed for the last 3 "
        "rounds only"
    )


def _expected_conditions(finals, team, places, final, others):
    """The conditions docs/needs.md promises, read from the scenarios themselves: for each other team in
    order, its weaker sufficient bound ("not above", then "below"); failing any, the first sufficient pair
    of bounds of each pair of teams."""
    scenarios = [(f, scenario_verdict(f, team, places)) for f in finals if f[team] == final]

    def sufficient(bounds):
        met = [verdict for f, verdict in scenarios if all(f[x] <= final + b for x, b in bounds)]
        return bool(met) and all(verdict is Verdict.IN for verdict in met)

    singles = []
    for other in others:
        for bound in (0, -1):
            if sufficient([(other, bound)]):
                singles.append((Condition(other, final + bound),))
                break
    if singles:
        return tuple(singles)
    pairs = []
    for i, x in enumerate(others):
        for y in others[i + 1 :]:
            for first, second in ((0, 0), (0, -1), (-1, 0), (-1, -1)):
                if sufficient([(x, first), (y, second)]):
                    pairs.append((Condition(x, final + first), Condition(y, final + second)))
                    break
    return tuple(pairs)


@pytest.mark.parametrize(("size", "played", "seed"), [(6, 3, 1), (6, 3, 2), (5, 2, 4), (6, 4, 7)])
def test_an_open_line_offers_exactly_the_weakest_sufficient_bounds(size, played, seed):
    teams, records, fixtures = _pool(size, played, seed)
    mp = current_points(teams, records)
    finals = list(_outcomes_of(mp, fixtures))
    needs = pool_needs(mp, fixtures, places=(1, 2, 3))
    offered = 0
    for outlook in needs.outlooks:
        others = [other for other in teams if other != outlook.team]
        for line in outlook.lines:
            if line.verdict is Verdict.OPEN:
                expected = _expected_conditions(finals, outlook.team, outlook.places, line.final_mp, others)
                assert line.when_in == expected, (outlook.team, outlook.places, line)
                offered += len(expected)
    assert offered


def test_check_pool_refuses_a_team_listed_twice():
    with pytest.raises(NeedsError) as error:
        check_pool(["A", "B", "A"], [Fixture("A", "B")], 1)
    assert str(error.value) == "a team is listed twice"
