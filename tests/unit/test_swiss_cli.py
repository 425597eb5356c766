"""`olympiad pair FILE.trf`: the next round of a team Swiss TRF, as an arbiter runs it (typer's runner)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.domain.swiss import SwissTeam, start_state
from orchestrator.domain.trf.swiss import export_trf

pytest.importorskip("gacrux")
runner = CliRunner()
NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"]


@pytest.fixture
def five(tmp_path: Path) -> Path:
    teams = [SwissTeam(name, (2500 - 10 * i,) * 5) for i, name in enumerate(NAMES)]
    path = tmp_path / "five.trf"
    path.write_text(export_trf(start_state(teams, boards=4, rounds=5)), encoding="latin-1")
    return path


def test_pair_prints_round_one_of_five_teams_as_computed_by_hand(five: Path) -> None:
    # C.04.6: teams 1-4 form the bracket (5 has the bye), top half 1, 2 against 3, 4; art. 4.3.1 gives
    # the odd-numbered first-team 1 the initial colour (White) and the even-numbered 2 the other one.
    result = runner.invoke(app, ["pair", str(five), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    pairs = [(row["first"]["team"], row["second"]["team"]) for row in data["pairings"]]
    assert data["round"] == 1
    assert pairs == [("Alpha", "Charlie"), ("Delta", "Bravo")]
    assert data["bye"] == {"tpn": 5, "team": "Echo"}


def test_pair_table_names_the_teams_and_the_bye(five: Path) -> None:
    result = runner.invoke(app, ["pair", str(five)])
    assert result.exit_code == 0, result.output
    assert "Alpha" in result.output and "Charlie" in result.output
    assert "Pairing-allocated bye: Echo (TPN 5)" in result.output


def test_pair_trf_output_holds_the_pairing_and_the_bye(five: Path) -> None:
    result = runner.invoke(app, ["pair", str(five), "--format", "trf"])
    assert result.exit_code == 0, result.output
    assert "320  1.0  2.0 005" in result.output.splitlines()
    # Results are still blank, so the file now holds round 1 paired but unplayed.
    assert "   9 w" in result.output


def test_pair_refuses_a_file_without_teams_with_a_message_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "empty.trf"
    path.write_text("012 Nothing\n", encoding="latin-1")
    result = runner.invoke(app, ["pair", str(path)])
    assert result.exit_code == 1
    assert "error" in result.output and "Traceback" not in result.output


def test_pair_refuses_an_unknown_format_and_a_missing_file(five: Path, tmp_path: Path) -> None:
    assert runner.invoke(app, ["pair", str(five), "--format", "pdf"]).exit_code == 2
    assert runner.invoke(app, ["pair", str(tmp_path / "missing.trf")]).exit_code == 2


def test_pair_refuses_a_round_whose_predecessor_has_boards_without_results(
    five: Path, tmp_path: Path
) -> None:
    paired = runner.invoke(app, ["pair", str(five), "--format", "trf"])
    path = tmp_path / "paired.trf"
    path.write_text(paired.output, encoding="latin-1")
    result = runner.invoke(app, ["pair", str(path), "--round", "2"])
    assert result.exit_code == 1
    assert "round 2 cannot be paired" in result.output
    assert "round 1: Alpha, Board 1 – Charlie, Board 1" in result.output


def test_pair_refuses_a_file_whose_record_192_names_another_system(five: Path, tmp_path: Path) -> None:
    path = tmp_path / "dutch.trf"
    path.write_text(five.read_text(encoding="latin-1").replace("FIDE_TEAM_TYPEA_MP_GP", "FIDE_DUTCH_2026"))
    result = runner.invoke(app, ["pair", str(path)])
    assert result.exit_code == 1
    assert "FIDE_DUTCH_2026, not a FIDE team Swiss system" in result.output
