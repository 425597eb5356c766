"""The olympiad command line, driven as a user would (typer's runner, real files)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.cli import app

ROOT = Path(__file__).resolve().parents[2]
EVENT = ROOT / "events" / "online-olympiad-2020.yaml"
SEED_ERRORS = ROOT / "events" / "seed-errors-2020.yaml"
POOL4 = ROOT / "tests" / "fixtures" / "matches" / "pool4.csv"
runner = CliRunner()


def run(*args: str):  # type: ignore[no-untyped-def]
    return runner.invoke(app, list(args))


def test_validate_accepts_the_2020_event_and_prints_a_summary() -> None:
    result = run("validate", str(EVENT))
    assert result.exit_code == 0, result.output
    assert "163 teams" in result.output
    assert "Division 2" in result.output


def test_validate_refuses_the_seed_errors_naming_both_problems() -> None:
    result = run("validate", str(SEED_ERRORS))
    assert result.exit_code == 1
    text = result.output
    assert "13" in text and "40" in text  # 13 qualifiers cannot fill 4 pools of 10
    assert "IV" in text and "same pool" in text


def test_standings_json_lists_every_chain_value_in_ranking_order() -> None:
    result = run("standings", str(POOL4), "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [row["team"] for row in rows] == ["Beta", "Alpha", "Delta", "Gamma"]
    assert [row["rank"] for row in rows] == [1, 2, 3, 4]
    assert set(rows[0]["values"]) == {"MP", "GP", "DE:MP", "DE:GP", "EMMSB", "EGGSB"}
    assert rows[1]["values"]["GP"] == 9.5


def test_teams_left_tied_share_the_higher_rank(tmp_path: Path) -> None:
    matches = tmp_path / "m.csv"
    matches.write_text(
        "round,team_a,team_b,score_a,score_b,forfeit\n1,A,B,3,3,\n1,C,D,3,3,\n2,A,C,3,3,\n2,B,D,3,3,\n"
        "3,A,D,3,3,\n3,B,C,3,3,\n"
    )
    result = run("standings", str(matches), "--format", "json", "--tiebreaks", "MP,GP")
    assert [row["rank"] for row in json.loads(result.output)] == [1, 1, 1, 1]


def test_a_recorded_lot_breaks_the_ties_left_after_the_chain(tmp_path: Path) -> None:
    matches = tmp_path / "m.csv"
    matches.write_text("round,team_a,team_b,score_a,score_b,forfeit\n1,A,B,3,3,\n")
    seed = "00112233445566778899aabbccddeeff"
    first = run("standings", str(matches), "--format", "json", "--lot-seed", seed)
    again = run("standings", str(matches), "--format", "json", "--lot-seed", seed)
    assert first.exit_code == 0, first.output
    assert [row["rank"] for row in json.loads(first.output)] == [1, 2]
    assert first.output == again.output


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_standings_other_formats_name_the_separating_criterion(fmt: str) -> None:
    result = run("standings", str(POOL4), "--format", fmt)
    assert result.exit_code == 0, result.output
    assert "GP" in result.output and "Delta" in result.output


def test_bad_input_names_the_line_and_exits_with_code_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("round,team_a,team_b,score_a,score_b,forfeit\n1,A,B,3,3,\n2,A,A,3.5,x,\n")
    result = run("standings", str(bad))
    assert result.exit_code == 2
    assert "bad.csv:3" in result.output
    assert "cannot meet itself" in result.output


def test_unknown_tiebreak_code_exits_with_code_2() -> None:
    result = run("standings", str(POOL4), "--tiebreaks", "MP,XYZ")
    assert result.exit_code == 2
    assert "XYZ" in result.output


def test_trf_output_has_team_records_for_every_team() -> None:
    result = run("trf", str(POOL4))
    assert result.exit_code == 0, result.output
    assert sum(line.startswith("310 ") for line in result.output.splitlines()) == 4


def test_simulate_plays_the_whole_event_to_a_champion() -> None:
    result = run("simulate", str(EVENT), "--seed", "7")
    assert result.exit_code == 0, result.output
    assert "Champion:" in result.output
    assert "Qualified from Division 2" in result.output
    assert "XI Final" in result.output


def test_simulate_is_reproducible_for_a_seed() -> None:
    first = run("simulate", str(EVENT), "--seed", "11", "--quiet")
    again = run("simulate", str(EVENT), "--seed", "11", "--quiet")
    assert first.exit_code == 0, first.output
    assert first.output == again.output


def test_create_user_makes_a_staff_account_and_refuses_bad_input(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import dispose_engines

    monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        ok = run("create-user", "alice", "--role", "admin", "--password", "a long enough secret 7")
        assert ok.exit_code == 0, ok.output
        assert "a long enough secret" not in ok.output
        bad = run("create-user", "bob", "--role", "nobody", "--password", "short")
        assert bad.exit_code == 2
        assert "Unknown role" in bad.output and "at least 10 characters" in bad.output
        with UnitOfWork(settings=get_settings()) as uow:
            user = uow.accounts.get_by_username("alice")
            assert user is not None and user.role == "admin"
            assert uow.accounts.get_by_username("bob") is None
    finally:
        dispose_engines()
        get_settings.cache_clear()


def test_chesscom_import_fills_a_match_from_a_team_match_and_refuses_unclear_input(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch
) -> None:
    from orchestrator import cli
    from orchestrator.adapters.tables import Board
    from orchestrator.adapters.uow import UnitOfWork
    from orchestrator.config import get_settings
    from orchestrator.db import dispose_engines, init_db
    from tests.support.chesscom_fake import match_with_chesscom_accounts, served_match_1201

    monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    monkeypatch.setattr(cli, "_chesscom_client", lambda _settings: served_match_1201().client())
    try:
        init_db(get_settings())
        with UnitOfWork(settings=get_settings()) as uow:
            played = match_with_chesscom_accounts(uow)
        done = run("chesscom-import", str(played.match_id), "--team-match", "1201")
        assert done.exit_code == 0, done.output
        assert "1 recorded" in done.output and "flagged" in done.output
        with UnitOfWork(settings=get_settings()) as uow:
            board = uow.boards.get_or_raise(Board, played.boards[1])
            assert (board.result, board.result_source, board.updated_by) == ("1-0", "import", "cli")
        both = run("chesscom-import", str(played.match_id), "--team-match", "1201", "--since", "2020-08-16")
        assert both.exit_code == 2 and "either --team-match" in both.output
        half = run("chesscom-import", str(played.match_id), "--since", "2020-08-16")
        assert half.exit_code == 2 and "both --since and --until" in half.output
        missing = run("chesscom-import", "999999", "--team-match", "1201")
        assert missing.exit_code == 1 and "999999" in missing.output
    finally:
        dispose_engines()
        get_settings.cache_clear()
