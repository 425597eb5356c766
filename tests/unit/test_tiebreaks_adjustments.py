"""Bonus and penalty points (TRF-2026 record 299) in the standings engine (domain/tiebreaks.py,
domain/standings.py; docs/tiebreaks.md "Readings"): they count in the team's own MP and GP, and so in the
rank, and not in the opponents' scores the other criteria sum."""

from __future__ import annotations

from fractions import Fraction as F

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.standings import compute_standings, team_totals
from orchestrator.domain.tiebreaks import build_event, value_of

# Four teams, four boards, two rounds: A beat B 3-1 and C 2.5-1.5; B beat D 2.5-1.5; C drew D 2-2.
MATCHES = (
    MatchRecord(1, "A", "B", 6, 2),
    MatchRecord(1, "C", "D", 4, 4),
    MatchRecord(2, "A", "C", 5, 3),
    MatchRecord(2, "B", "D", 5, 3),
)
TEAMS = ("A", "B", "C", "D")


def test_a_penalty_lowers_the_team_s_own_mp_and_gp_and_its_rank() -> None:
    chain = ("MP", "GP", "BH:MP")
    plain = compute_standings(TEAMS, MATCHES, chain=chain, boards=4, round_robin=False)
    assert plain.order[:2] == ("A", "B")
    fined = compute_standings(
        TEAMS, MATCHES, chain=chain, boards=4, round_robin=False, adjustments={"A": (-3, -1)}
    )
    a = next(row for row in fined.rows if row.team == "A")
    assert (a.values["MP"], a.values["GP"]) == (F(1), F(5))
    assert fined.order[:2] == ("B", "A")  # B on 2 MP; A on 1 MP ahead of C and D (1 MP, 3½ GP) by GP
    totals = team_totals(TEAMS, MATCHES, adjustments={"A": (-3, -1)})
    assert (totals["A"].mp, totals["A"].gp_half, totals["A"].won) == (1, 10, 2)


def test_the_opponents_buchholz_reads_the_rounds_as_played() -> None:
    plain = build_event(TEAMS, MATCHES, boards=4, round_robin=False)
    fined = build_event(TEAMS, MATCHES, boards=4, round_robin=False, adjustments={"A": (-3, -1)})
    for team in ("B", "C"):  # both met A
        assert value_of(fined, team, "BH:MP") == value_of(plain, team, "BH:MP")
    assert value_of(fined, "A", "MP") == value_of(plain, "A", "MP") - 3
    assert value_of(fined, "A", "MPvGP") == value_of(plain, "A", "MPvGP") - F(1, 2)
