"""Standings: chain application, shared ranks, lots and order independence (C.07 4.2)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.standings import compute_standings, team_totals
from orchestrator.domain.tiebreaks import PRESETS, TieBreakError
from tests.unit.builders import m, rr

ALL_DRAWN = {"AB": "2-2", "AC": "2-2", "BC": "2-2", "AD": "2-2", "BD": "2-2", "CD": "2-2"}


def test_teams_tied_after_the_chain_share_the_higher_rank_and_are_listed_as_unresolved() -> None:
    results = dict(ALL_DRAWN, AD="3-1", BD="3-1")
    s = compute_standings("ABCD", rr("ABCD", results), chain=["MP", "GP", "DE:MP", "DE:GP", "LOT"], boards=4)
    assert [(r.rank, r.team) for r in s.rows] == [(1, "A"), (1, "B"), (3, "C"), (4, "D")]
    assert s.rows[1].separated_by is None
    assert s.rows[2].separated_by == "MP"
    assert s.unresolved_ties == (("A", "B"),)


def test_lots_break_the_remaining_tie_lower_number_first() -> None:
    results = dict(ALL_DRAWN, AD="3-1", BD="3-1")
    s = compute_standings(
        "ABCD", rr("ABCD", results), chain=PRESETS["online-2020"], boards=4, lots={"A": 2, "B": 1}
    )
    assert [(r.rank, r.team, r.separated_by) for r in s.rows][:2] == [(1, "B", None), (2, "A", "LOT")]
    assert s.unresolved_ties == ()


def test_a_missing_lot_number_is_named() -> None:
    with pytest.raises(TieBreakError, match="A"):
        compute_standings("ABCD", rr("ABCD", ALL_DRAWN), chain=["MP", "LOT"], boards=4, lots={"B": 1})


def test_swiss_direct_encounter_ranks_a_team_first_only_if_nobody_can_catch_it() -> None:
    # C.07 6.3: A, B, C tie on 4 MP; A beat B and C, who never met: whatever B-C would have been,
    # neither reaches A's 4, so A goes first; B and C (0 each, 2 at best) stay tied.
    matches = [
        m(1, "A", "B", "3-1"), m(1, "C", "D", "3-1"), m(1, "E", "F", "2-2"),
        m(2, "A", "C", "3-1"), m(2, "B", "E", "3-1"), m(2, "D", "F", "2-2"),
        m(3, "D", "A", "3-1"), m(3, "F", "B", "3-1"), m(3, "C", "E", "3-1"),
        m(4, "E", "A", "3-1"), m(4, "B", "D", "3-1"), m(4, "F", "C", "3-1"),
    ]  # fmt: skip
    s = compute_standings("ABCDEF", matches, chain=["MP", "DE:MP"], boards=4, round_robin=False)
    assert [(r.rank, r.team, r.separated_by) for r in s.rows] == [
        (1, "F", None),
        (2, "A", "MP"),
        (3, "B", "DE:MP"),
        (3, "C", None),
        (5, "D", "MP"),
        (5, "E", None),
    ]
    assert s.unresolved_ties == (("B", "C"), ("D", "E"))


def test_swiss_direct_encounter_separates_when_the_missing_games_cannot_matter() -> None:
    matches = [m(1, "A", "B", "3-1"), m(1, "C", "D", "3-1"), m(2, "A", "C", "3-1"), m(2, "B", "D", "3-1")]
    matches += [m(3, "B", "C", "3-1"), m(3, "D", "A", "3-1")]
    # MP: A 4, B 4, C 2, D 2. A beat B directly: 2 vs 0 with all met.
    s = compute_standings("ABCD", matches, chain=["MP", "EDE"], boards=4, round_robin=False)
    assert s.order == ("A", "B", "C", "D")
    assert [r.separated_by for r in s.rows] == [None, "EDE", "MP", "EDE"]


def test_team_totals_count_matches_for_the_cross_table() -> None:
    totals = team_totals("ABCD", rr("ABCD", dict(ALL_DRAWN, AD="3-1", BC="--")))
    assert (totals["A"].mp, totals["A"].gp_half, totals["A"].won, totals["A"].drawn) == (4, 14, 1, 2)
    assert (totals["B"].played, totals["B"].lost) == (2, 1)


# --- properties -----------------------------------------------------------------------------------

SCORES = ["4-0", "3.5-0.5", "3-1", "2.5-1.5", "2-2", "1.5-2.5", "1-3", "0.5-3.5", "0-4"]


@st.composite
def pools(draw: st.DrawFn, *, forfeits: bool = True) -> tuple[str, list[MatchRecord]]:
    size = draw(st.integers(min_value=2, max_value=7))
    teams = "ABCDEFG"[:size]
    choices = SCORES + (["+-", "-+", "--"] if forfeits else [])
    results = {a + b: draw(st.sampled_from(choices)) for i, a in enumerate(teams) for b in teams[i + 1 :]}
    return teams, rr(teams, results)


CHAINS = [PRESETS["online-2020"], PRESETS["olympiad-2026"], PRESETS["fide-team-swiss"]]


@settings(max_examples=150, deadline=None)
@given(pools(), st.sampled_from(CHAINS), st.randoms(use_true_random=False))
def test_the_ranking_is_a_permutation_independent_of_input_order(pool, chain, rnd) -> None:
    teams, matches = pool
    s = compute_standings(teams, matches, chain=chain, boards=4)
    assert sorted(s.order) == sorted(teams)
    shuffled_matches, shuffled_teams = list(matches), list(teams)
    rnd.shuffle(shuffled_matches)
    rnd.shuffle(shuffled_teams)
    again = compute_standings(shuffled_teams, shuffled_matches, chain=chain, boards=4)
    assert again == s
    ranks = [r.rank for r in s.rows]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert all(isinstance(v, Fraction) for r in s.rows for v in r.values.values())


@settings(max_examples=100, deadline=None)
@given(pools(forfeits=False))
def test_match_points_total_twice_the_matches(pool) -> None:
    teams, matches = pool
    s = compute_standings(teams, matches, chain=["MP"], boards=4)
    played = [x for x in matches if not x.is_bye]
    byes = len(matches) - len(played)
    assert sum(r.values["MP"] for r in s.rows) == 2 * len(played) + byes


@settings(max_examples=100, deadline=None)
@given(pools(), st.sampled_from(CHAINS))
def test_a_team_that_wins_every_match_is_first(pool, chain) -> None:
    teams, matches = pool
    champion = teams[0]
    fixed = []
    for x in matches:
        if x.team_b is not None and champion in (x.team_a, x.team_b):
            other = x.team_b if x.team_a == champion else x.team_a
            fixed.append(m(x.round, champion, other, "2.5-1.5"))
        else:
            fixed.append(x)
    s = compute_standings(teams, fixed, chain=chain, boards=4)
    assert s.rows[0].team == champion and s.rows[0].rank == 1
    assert len(teams) == 1 or s.rows[1].rank == 2
