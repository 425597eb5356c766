"""Standings beside the tie-break engine's own tests: a team's rank, the groups a lot must still break, the
six-board default and the cross table's totals under the event's scoring (C.07 11.1.1; C.04.6 1.4 for the
bye; docs/tiebreaks.md)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.scoring import MatchRecord, MatchScoring
from orchestrator.domain.standings import TeamTotals, compute_standings, team_totals
from orchestrator.domain.tiebreaks import TieBreakError
from tests.unit.builders import m, y


def test_a_team_s_rank_is_read_from_its_row_and_an_unknown_team_is_named() -> None:
    s = compute_standings(
        "ABC", [m(1, "A", "B", "3-1"), m(2, "B", "C", "2-2"), m(3, "C", "A", "1-3")], chain=["MP"], boards=4
    )
    # A 4 MP, B and C 1 each: B and C share the second place.
    assert [s.rank_of(team) for team in "ABC"] == [1, 2, 2]
    assert s.unresolved_ties == (("B", "C"),)
    with pytest.raises(KeyError, match="'D'"):
        s.rank_of("D")


def test_the_default_match_has_six_boards() -> None:
    # A Swiss's unplayed rounds count for Buchholz as draws of the match's boards (docs/tiebreaks.md), so
    # the number of boards shows in BH:GP: the default reads like boards=6, not like boards=4 or 7.
    matches = [MatchRecord(1, "A", "B", 6, 2), MatchRecord(2, "A", "C", 4, 4)]

    def bh(**kw: int) -> object:
        s = compute_standings("ABC", matches, chain=["MP", "BH:GP"], round_robin=False, **kw)
        return [(row.team, row.values["BH:GP"]) for row in s.rows]

    assert bh() == bh(boards=6)
    assert bh() != bh(boards=4)
    assert bh() != bh(boards=7)


def test_cross_table_totals_use_the_event_s_scoring_and_bye_points() -> None:
    # 3-1-0 scoring: A beats B, draws C and has the bye in round 3 worth 3 MP (configured, C.04.6 1.4).
    matches = [m(1, "A", "B", "3-1"), m(2, "A", "C", "2-2"), y(3, "A"), m(3, "B", "C", "0-4")]
    totals = team_totals("ABC", matches, scoring=MatchScoring(3, 1, 0), bye_mp=3)
    assert totals["A"] == TeamTotals(
        team="A", mp=3 + 1 + 3, gp_half=6 + 4 + 4, played=2, won=1, drawn=1, lost=0
    )
    assert totals["C"] == TeamTotals(team="C", mp=1 + 3, gp_half=4 + 8, played=2, won=1, drawn=1, lost=0)
    assert totals["B"] == TeamTotals(team="B", mp=0, gp_half=2, played=2, won=0, drawn=0, lost=2)
    # Without ``bye_mp`` a bye is worth a draw's match points.
    assert team_totals("ABC", matches, scoring=MatchScoring(3, 1, 0))["A"].mp == 3 + 1 + 1


def test_a_pool_is_read_as_a_round_robin_unless_told_otherwise() -> None:
    # Buchholz in a round robin counts the opponents' final scores (C.07 15.2): A met B (1 game point)
    # and C (2), BH:GP 3. A Swiss reads the unplayed rounds another way (docs/tiebreaks.md).
    matches = [MatchRecord(1, "A", "B", 6, 2), MatchRecord(2, "A", "C", 4, 4)]

    def values(**kw: bool) -> object:
        s = compute_standings("ABC", matches, chain=["MP", "BH:GP"], boards=4, **kw)
        return [(row.team, dict(row.values)) for row in s.rows]

    assert values() == values(round_robin=True)
    assert dict(values())["A"]["BH:GP"] == 3  # type: ignore[call-overload, index]
    assert values() != values(round_robin=False)


def test_the_bye_is_worth_the_points_the_stage_gives_it() -> None:
    # C.04.6 1.4: a pairing-allocated bye scores a draw's match points unless the stage says otherwise.
    matches = [m(1, "A", "B", "3-1"), y(1, "C"), m(2, "B", "C", "3-1"), y(2, "A")]
    default = compute_standings("ABC", matches, chain=["MP"], boards=4, round_robin=False)
    assert {row.team: row.values["MP"] for row in default.rows} == {"A": 3, "B": 2, "C": 1}
    two = compute_standings("ABC", matches, chain=["MP"], boards=4, round_robin=False, bye_mp=2)
    assert {row.team: row.values["MP"] for row in two.rows} == {"A": 4, "B": 2, "C": 2}


def test_match_points_follow_the_event_s_scoring() -> None:
    matches = [m(1, "A", "B", "3-1"), m(2, "A", "C", "2-2"), m(3, "B", "C", "2.5-1.5")]
    s = compute_standings("ABC", matches, chain=["MP"], boards=4, scoring=MatchScoring(3, 1, 0))
    assert [(row.team, row.values["MP"]) for row in s.rows] == [("A", 4), ("B", 3), ("C", 1)]


def test_with_game_points_primary_mpvgp_reads_match_points() -> None:
    # C.07 13.1: MPvGP is the other primary score. A and B both have 4.5 game points; A has 3 match
    # points (a win, a draw), B 2 (a loss, a win): with GP primary, MPvGP puts A first.
    matches = [m(1, "A", "B", "2.5-1.5"), m(2, "A", "C", "2-2"), m(3, "B", "C", "3-1")]
    s = compute_standings("ABC", matches, chain=["GP", "MPvGP"], boards=4)
    assert [(r.team, r.values["MPvGP"], r.separated_by) for r in s.rows] == [
        ("A", 3, None),
        ("B", 2, "MPvGP"),
        ("C", 1, "GP"),
    ]


def test_a_team_no_direct_encounter_was_needed_for_shows_zero() -> None:
    # A is alone on 4 MP; B and C share 1 MP and drew their match: 1 each in their direct encounter.
    matches = [m(1, "A", "B", "3-1"), m(2, "A", "C", "3-1"), m(3, "B", "C", "2-2")]
    s = compute_standings("ABC", matches, chain=["MP", "DE"], boards=4)
    assert [(r.team, r.values["DE:MP"]) for r in s.rows] == [("A", 0), ("B", 1), ("C", 1)]


def test_a_lot_must_number_every_tied_team() -> None:
    matches = [m(1, "A", "B", "2-2"), m(2, "A", "C", "2-2"), m(3, "B", "C", "2-2")]
    with pytest.raises(TieBreakError, match=r"^no lot number for B, C$"):
        compute_standings("ABC", matches, chain=["MP", "LOT"], boards=4, lots={"A": 1})
    s = compute_standings("ABC", matches, chain=["MP", "LOT"], boards=4, lots={"A": 3, "B": 1, "C": 2})
    assert s.order == ("B", "C", "A")


def test_with_match_points_primary_mpvgp_reads_game_points() -> None:
    # A and B both have 3 match points; A 5 game points, B 4.5: MPvGP (C.07 13.1) puts A first.
    matches = [m(1, "A", "B", "2-2"), m(2, "A", "C", "3-1"), m(3, "B", "C", "2.5-1.5")]
    s = compute_standings("ABC", matches, chain=["MP", "MPvGP"], boards=4)
    assert [(r.team, r.values["MPvGP"]) for r in s.rows] == [
        ("A", 5),
        ("B", Fraction(9, 2)),
        ("C", Fraction(5, 2)),
    ]


def test_extended_direct_encounter_starts_with_the_primary_score() -> None:
    # A, B and C share 4 match points (E is first with 5, D last with 3). Among them A beat B and C
    # 2.5-1.5 and B beat C 4-0: by match points A 4, B 2, C 0; by game points B would lead (5.5 to A's 5).
    # With match points primary EDE compares match points first (docs/tiebreaks.md): E, A, B, C, D.
    results = {
        "AB": "2.5-1.5",
        "AC": "2.5-1.5",
        "BC": "4-0",
        "AD": "1-3",
        "AE": "1-3",
        "BD": "3-1",
        "BE": "1-3",
        "CD": "3-1",
        "CE": "3-1",
        "DE": "2-2",
    }
    matches = [m(rnd, pair[0], pair[1], score) for rnd, (pair, score) in enumerate(results.items(), 1)]
    s = compute_standings("ABCDE", matches, chain=["MP", "EDE"], boards=4)
    assert s.order == ("E", "A", "B", "C", "D")


# A, B and C tie on game points (8.5 each); among them A won both its matches narrowly, B crushed C.
_EDE_CYCLE = [
    m(1, "A", "B", "2.5-1.5"),
    m(1, "C", "D", "7-1"),
    m(2, "A", "C", "2.5-1.5"),
    m(2, "B", "D", "3-5"),
    m(3, "B", "C", "4-0"),
    m(3, "A", "D", "3.5-4.5"),
]


def test_ede_starts_from_the_chains_primary_score() -> None:
    # C.07 13.3: EDE alternates between the primary and the secondary score, starting with the primary one,
    # which is GP when the chain names GP first (C.04.6 1.2.2). By game points among the three B (5.5) is
    # ahead of A (5) and C (1.5); by match points A (4) would be ahead of B (2).
    s = compute_standings("ABCD", _EDE_CYCLE, chain=["GP", "EDE"], boards=8)
    assert [(row.rank, row.team) for row in s.rows] == [(1, "D"), (2, "B"), (3, "A"), (4, "C")]
    assert [s.rows[i].values["EDE"] for i in (1, 2, 3)] == [Fraction(11, 2), 5, Fraction(3, 2)]
    by_mp = compute_standings("ABCD", _EDE_CYCLE, chain=["MP", "EDE"], boards=8)
    assert [row.team for row in by_mp.rows if row.team != "D"] == ["A", "B", "C"]


def test_the_arbiters_adjustments_count_in_the_ranking_and_the_totals() -> None:
    # TRF-2026 record 299: half a game point more for C lifts it above A and B (C.07 11.1.1 totals).
    s = compute_standings("ABCD", _EDE_CYCLE, chain=["GP", "EDE"], boards=8, adjustments={"C": (0, 1)})
    assert [(row.rank, row.team) for row in s.rows] == [(1, "D"), (2, "C"), (3, "A"), (4, "B")]
    assert s.rows[1].values["GP"] == 9
    totals = team_totals("ABCD", _EDE_CYCLE, adjustments={"A": (-2, -1), "C": (1, 3)})
    assert (totals["A"].mp, totals["A"].gp_half) == (4 - 2, 17 - 1)
    assert (totals["C"].mp, totals["C"].gp_half) == (2 + 1, 17 + 3)
    assert (totals["B"].mp, totals["B"].gp_half) == (2, 17)  # no adjustment: its own totals
    assert totals["A"].won == 2 and totals["A"].lost == 1  # matches are not adjusted


def test_a_missing_starting_rank_names_every_team_without_one() -> None:
    with pytest.raises(TieBreakError, match=r"no starting rank for B, C$"):
        compute_standings("ABC", [m(1, "A", "B", "2-2")], chain=["MP"], starting_ranks={"A": 1})
