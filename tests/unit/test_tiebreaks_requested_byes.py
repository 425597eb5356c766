"""Requested byes (TRF-2026 record 240 ``F``, ``H``) in the standings and tie-breaks
(orchestrator/domain/tiebreaks.py; docs/tiebreaks.md, "Byes"; docs/trf.md, "Requested byes").

Four teams, four boards, 2/1/0 match points, a Swiss (the C.07 Art. 16 rules), worked by hand:

| round | matches | byes |
| --- | --- | --- |
| 1 | A-B 3-1, C-D 2-2 | |
| 2 | B-C 2.5-1.5 | A a full-point bye (2 MP, 4 GP), D a half-point bye (1 MP, 2 GP) |
| 3 | A-C 2-2, B-D 1-3 | |

A 5 MP 9 GP, B 2 MP 4.5 GP, C 2 MP 5.5 GP, D 4 MP 7 GP.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from orchestrator.domain.scoring import DEFAULT_SCORING, ByeRequest, MatchRecord, ScoreError
from orchestrator.domain.standings import compute_standings, team_totals
from orchestrator.domain.tiebreaks import PoolHistory, RoundKind, build_event, value_of
from orchestrator.domain.trf.teams import write_trf
from tests.unit.builders import m

TEAMS = ("A", "B", "C", "D")
MATCHES = (
    m(1, "A", "B", "3-1"),
    m(1, "C", "D", "2-2"),
    m(2, "B", "C", "2.5-1.5"),
    MatchRecord.requested_bye(2, "A", ByeRequest.FULL, 4),
    MatchRecord.requested_bye(2, "D", ByeRequest.HALF, 4),
    m(3, "A", "C", "2-2"),
    m(3, "B", "D", "1-3"),
)


def history() -> PoolHistory:
    return build_event(TEAMS, MATCHES, boards=4, round_robin=False, bye_mp=1)


def test_a_requested_bye_scores_a_won_or_a_drawn_match_and_all_or_half_the_boards() -> None:
    event = history()
    a2, d2 = event.rounds["A"][1], event.rounds["D"][1]
    assert (a2.kind, a2.opponent, a2.mp, a2.gp) == (RoundKind.FULL_BYE, None, 2, 8)
    assert (d2.kind, d2.opponent, d2.mp, d2.gp) == (RoundKind.HALF_BYE, None, 1, 4)
    totals = team_totals(TEAMS, MATCHES, bye_mp=1)
    assert {t: (x.mp, x.gp_half, x.played, x.won) for t, x in totals.items()} == {
        "A": (5, 18, 2, 1),  # a bye is no match: played 2, won 1
        "B": (2, 9, 3, 1),
        "C": (2, 11, 3, 0),
        "D": (4, 14, 2, 1),
    }


def test_a_half_point_bye_is_a_voluntary_unplayed_round_cut_first_and_a_full_point_bye_is_not() -> None:
    """C.07 16.1.1-16.1.2: a half-point bye is a requested bye, so a VUR; 16.2.1 puts the full-point bye
    with the pairing-allocated bye. Both meet the dummy, capped at a draw a round (16.4.2): 1 × 3 = 3.

    D: C 2, dummy min(4, 3) = 3, B 2: BH 7; /C1 cuts the VUR's 3 (16.5, not below the lowest 2): 4.
    A: B 2, dummy min(5, 3) = 3, C 2: BH 7; /C1 cuts the lowest, 2 (no VUR): 5."""
    event = history()
    assert RoundKind.HALF_BYE.is_vur and not RoundKind.FULL_BYE.is_vur
    assert [value_of(event, "D", code) for code in ("BH:MP", "BH:MP/C1")] == [F(7), F(4)]
    assert [value_of(event, "A", code) for code in ("BH:MP", "BH:MP/C1")] == [F(7), F(5)]


def test_a_full_point_bye_counts_as_a_match_won_without_playing() -> None:
    """C.07 7.1: rounds with a win's match points, played or not: A won against B and had the bye."""
    event = history()
    assert [value_of(event, team, "WIN") for team in TEAMS] == [F(2), F(1), F(0), F(1)]


def test_a_requested_bye_is_the_round_left_out_of_the_olympiad_tie_breaks() -> None:
    """Olympiad 2026 App. 2.I and 2.IV as docs/tiebreaks.md reads them: a round the team was not paired
    in is the round left out, and no opponent is dropped as well. D: C 2 MP × 2 GP + B 2 MP × 3 GP = 10
    (not 6, B or C dropped); TB3 = 2 + 2 = 4. A's opponents count A's bye's points in their FMP: B's
    TB1 = A 5 × 1 + C 2 × 2.5 + D 4 × 1 - the lowest (C: 2 MP) = 9."""
    event = history()
    assert (value_of(event, "D", "OLY-TB1"), value_of(event, "D", "OLY-TB3")) == (F(10), F(4))
    assert value_of(event, "B", "OLY-TB1") == F(9)


def test_the_standings_rank_by_the_requested_byes_points() -> None:
    standings = compute_standings(
        TEAMS, MATCHES, chain=["MP", "GP"], boards=4, round_robin=False, bye_mp=1, scoring=DEFAULT_SCORING
    )
    assert [(row.team, row.values["MP"], row.values["GP"]) for row in standings.rows] == [
        ("A", F(5), F(9)),
        ("D", F(4), F(7)),
        ("C", F(2), F(11, 2)),
        ("B", F(2), F(9, 2)),
    ]


def test_a_pairing_allocated_bye_has_no_requested_points() -> None:
    with pytest.raises(ScoreError):
        ByeRequest.NONE.game_points(4)
    with pytest.raises(ScoreError):
        ByeRequest.NONE.match_points(DEFAULT_SCORING)


def test_the_standings_file_writes_a_requested_bye_as_record_240_and_its_players_cells() -> None:
    """domain/trf/teams.py: record 240 ``F``/``H`` (type 5, round 7-9, team 11-14), no record 320, and
    each of the team's players ``0000 - F`` (``H``) that round, scoring 1 (½): the boards of A add up to
    its 9 game points, those of D to its 7, as record 310 says."""
    text = write_trf(TEAMS, MATCHES, chain=["MP", "GP"], name="Cup", boards=4, round_robin=False, bye_mp=1)
    lines = text.splitlines()
    assert [line for line in lines if line.startswith(("240", "320"))] == ["240 F   2    1", "240 H   2    4"]
    a1 = next(line for line in lines if line.startswith("001") and "A, Board 1" in line)
    d1 = next(line for line in lines if line.startswith("001") and "D, Board 1" in line)
    assert a1[101:110] == "0000 - F " and d1[101:110] == "0000 - H "
    points = {line[14:47].strip(): F(line[80:84]) for line in lines if line.startswith("001")}
    assert sum(points[f"A, Board {k}"] for k in range(1, 5)) == F(9)  # A's 9 game points, the bye's 4 in
    assert sum(points[f"D, Board {k}"] for k in range(1, 5)) == F(7)
    team_d = next(line for line in lines if line.startswith("310") and line[8:40].strip() == "D")
    assert (team_d[54:60].strip(), team_d[61:67].strip()) == ("4.0", "7.0")
