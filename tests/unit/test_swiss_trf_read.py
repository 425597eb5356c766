"""`olympiad pair` with our engine: a TRF-2026 team file read back into a Swiss state is paired as gacrux
pairs the file itself, round by round of simulated events; files our engine does not implement (another
colour model, an unknown record) go to gacrux (docs/swiss.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import pair_trf, pair_trf_file
from orchestrator.cli import app
from orchestrator.domain.swiss import SwissState
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfNotReadable, read_team_trf
from tests.support.swiss_compare import compare_event

runner = CliRunner()


def rounds_of(size: int, rounds: int, seed: int) -> list[SwissState]:
    """The state before each round of a simulated stage (absence in 2, late entry in 3, withdrawal in 4)."""
    states: list[SwissState] = []
    compare_event(size, rounds, seed, before_each=states)
    return states


@pytest.mark.parametrize(("size", "rounds", "seed"), [(9, 6, 1), (14, 7, 2), (23, 8, 3)])
def test_a_file_we_wrote_is_paired_by_our_engine_as_gacrux_pairs_it(size, rounds, seed) -> None:
    for round_no, state in enumerate(rounds_of(size, rounds, seed), 1):
        trf = export_trf(state)
        read, next_round = read_team_trf(trf)
        assert next_round == round_no
        assert set(read.matches) == set(state.matches)
        assert pair_trf_file(trf, engine="own") == pair_trf(trf), round_no


def test_a_type_b_file_or_an_unknown_record_goes_to_gacrux() -> None:
    trf = export_trf(rounds_of(9, 4, 5)[-1])
    type_b = trf.replace("FIDE_TEAM_TYPEA_MP_GP", "FIDE_TEAM_TYPEB_MP_GP")
    for text in (type_b, trf + "299 W   2.0   2.5    2    1\n"):  # 299 W: a result assigned
        with pytest.raises(TrfNotReadable):
            read_team_trf(text)
        assert pair_trf_file(text, engine="own") == pair_trf(text)


def test_pair_prints_the_same_round_with_either_engine(tmp_path: Path) -> None:
    path = tmp_path / "stage.trf"
    path.write_text(export_trf(rounds_of(13, 5, 6)[-1]), encoding="latin-1")
    ours = runner.invoke(app, ["pair", str(path), "--format", "json"])
    theirs = runner.invoke(app, ["pair", str(path), "--format", "json", "--engine", "gacrux"])
    assert ours.exit_code == theirs.exit_code == 0
    assert json.loads(ours.output) == json.loads(theirs.output)
    assert json.loads(ours.output)["round"] == 5


def test_an_unknown_engine_is_refused_with_a_message() -> None:
    result = runner.invoke(app, ["simulate", "--engine", "fast"])
    assert result.exit_code == 2 and "unknown engine 'fast'" in result.output


def test_a_file_whose_players_do_not_name_each_other_or_whose_points_do_not_add_up_is_not_read() -> None:
    trf = export_trf(rounds_of(9, 4, 5)[-1])
    lines = trf.splitlines()
    played = [i for i, line in enumerate(lines) if line.startswith("001 ") and line[91:95] != "0000"]
    player = played[0]
    wrong_colour = lines[player][:96] + ("b" if lines[player][96] == "w" else "w") + lines[player][97:]
    wrong_points = lines[player][:80] + " 9.5" + lines[player][84:]
    for changed in (wrong_colour, wrong_points):
        text = "\n".join([*lines[:player], changed, *lines[player + 1 :]]) + "\n"
        with pytest.raises(TrfNotReadable):
            read_team_trf(text)
