"""Our tie-breaks against FIDE's own checker, gacrux (TieBreakServer, MIT).

Random pools are written with write_trf, read back by ``python -m gacrux.tiebreakchecker`` and every
value and the final rank of every team are compared, for every code gacrux knows. Differences
that our rules (docs/rules.md §4) decide against gacrux are listed in docs/tiebreaks.md and asserted there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.domain.round_robin import berger_table
from orchestrator.domain.scoring import MatchRecord, no_show
from orchestrator.domain.standings import Standings, compute_standings
from orchestrator.domain.trf.teams import write_trf

pytest.importorskip("gacrux")

GACRUX_NAMES = {"MP": "MPTS", "GP": "GPTS", "MPvGP": "MPVGP"}
VALUE_CODES = ("EMMSB", "EMGSB", "EGMSB", "EGGSB", "BH:MP", "BH:GP", "WIN", "MPvGP")
CHAINS = [
    ("MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB"),
    ("MP", "EDE", "EMGSB/C1", "BH:MP/C1", "MPvGP"),
    ("MP", "EGMSB", "DE:GP", "WIN", "EGGSB/C1", "BH:GP/C1"),
    ("GP", "DE:MP", "EMMSB/C1", "EGMSB/C1", "BH:GP", "MP"),
    ("MP", "DE:GP", "EDE", "BH:MP"),
]


def gacrux(trf: str, chain: tuple[str, ...], *, round_robin: bool, tmp_path: Path) -> dict:
    path = tmp_path / "pool.trf"
    path.write_text(trf, encoding="latin1")
    names = [GACRUX_NAMES.get(code, code) for code in chain]
    mode = "-p" if round_robin else "-s"
    run = subprocess.run(
        [sys.executable, "-m", "gacrux.tiebreakchecker", "-i", str(path), mode, "-t", *names],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    result = json.loads(run.stdout)
    assert result["status"]["code"] == 0, result["status"]
    return result["tiebreakResult"]


def compare(
    teams: list[str],
    matches: list[MatchRecord],
    chain: tuple[str, ...],
    boards: int,
    round_robin: bool,
    tmp_path: Path,
) -> Standings:
    ours = compute_standings(teams, matches, chain=chain, boards=boards, round_robin=round_robin)
    trf = write_trf(teams, matches, chain=chain, boards=boards, round_robin=round_robin, standings=ours)
    theirs = gacrux(trf, chain, round_robin=round_robin, tmp_path=tmp_path)
    by_tpn = {c["cid"]: c for c in theirs["competitors"]}
    rows = {row.team: row for row in ours.rows}
    for tpn, team in enumerate(teams, 1):
        their = by_tpn[tpn]
        for index, code in enumerate(chain):
            if code in ("DE:MP", "DE:GP", "EDE"):
                continue  # gacrux reports a DE rank, we a DE score: compared through the ranks
            assert rows[team].values[code] == Fraction(Decimal(str(their["tiebreakScore"][index]))), (
                team,
                code,
                trf,
            )
        assert rows[team].rank == their["rank"], (team, chain, trf)
    return ours


def _pair(rnd: int, a: str, b: str, kind: int, half: int, boards: int) -> MatchRecord:
    if kind == 1:
        return no_show(round=rnd, team_a=a, team_b=b, absent=b, boards=boards)
    if kind == 2:
        return no_show(round=rnd, team_a=a, team_b=b, absent=a, boards=boards)
    if kind == 3:
        return no_show(round=rnd, team_a=a, team_b=b, absent=None, boards=boards)
    return MatchRecord(rnd, a, b, half, 2 * boards - half)


@st.composite
def events(draw: st.DrawFn, *, swiss: bool) -> tuple[list[str], list[MatchRecord], int]:
    size = draw(st.integers(min_value=3 if not swiss else 4, max_value=8))
    boards = draw(st.sampled_from([4, 6]))
    teams = [f"Team {chr(65 + i)}" for i in range(size)]
    table = list(berger_table(size))
    if swiss:
        count = draw(st.integers(min_value=2, max_value=min(len(table), 5)))
        table = draw(st.permutations(table))[:count]
    matches: list[MatchRecord] = []
    forfeits = draw(st.booleans())
    absences = swiss and draw(st.booleans())
    for number, rnd in enumerate(table, 1):
        for p in rnd.pairings:
            if absences and draw(st.integers(min_value=0, max_value=5)) == 0:
                continue  # both teams not paired this round (C.07 16.1.1 zero-point bye)
            kind = draw(st.sampled_from([0, 0, 0, 0, 0, 0, 1, 2, 3])) if forfeits else 0
            half = draw(st.integers(min_value=0, max_value=2 * boards))
            matches.append(_pair(number, teams[p.first - 1], teams[p.second - 1], kind, half, boards))
        if rnd.bye is not None:
            matches.append(MatchRecord(number, teams[rnd.bye - 1], None, boards, 0))
    return teams, matches, boards


SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@SETTINGS
@given(events(swiss=False), st.sampled_from(CHAINS))
def test_round_robin_pools_agree_with_gacrux(tmp_path: Path, event, chain) -> None:
    teams, matches, boards = event
    compare(teams, matches, chain, boards, True, tmp_path)


@SETTINGS
@given(events(swiss=True), st.sampled_from(CHAINS))
def test_swiss_like_events_agree_with_gacrux(tmp_path: Path, event, chain) -> None:
    teams, matches, boards = event
    compare(teams, matches, chain, boards, False, tmp_path)
