"""Standings beside the tie-break engine's own tests: a team's rank, the groups a lot must still break, the
six-board default and the cross table's totals under the event's scoring (C.07 11.1.1; C.04.6 1.4 for the
bye; docs/tiebreaks.md)."""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import MatchRecord, MatchScoring
from orchestrator.domain.standings import TeamTotals, compute_standings, team_totals
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
