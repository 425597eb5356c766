"""An event brought in from TRF-2026 team files (services/swiss/trf_import.py, docs/trf.md "Importing"), on
SQLite: what is stored, the standings after each round, the next round paired on the server, files
refused line by line with nothing written, and the two commands."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from orchestrator.adapters.gacrux_pairing import GacruxPairer
from orchestrator.adapters.tables import Board, StageStatus
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.cli import app as cli_app
from orchestrator.config import get_settings
from orchestrator.db import dispose_engines
from orchestrator.domain.scoring import GameResult
from orchestrator.domain.swiss.systems import SystemPairer
from orchestrator.domain.trf.swiss_read import read_team_trf
from orchestrator.errors import ValidationFailed
from orchestrator.services.swiss import rounds as swiss_rounds
from orchestrator.services.swiss.state import swiss_state_of
from tests.support.trf_files import FIXTURES, fixture
from tests.support.trf_import import do_import, expected_after, standings_after, women

CHENNAI = Path(__file__).parents[1] / "fixtures/olympiads/chennai-2022-open/chennai-2022-open.trf"


def count_events(uow_factory: UnitOfWorkFactory) -> int:
    with uow_factory() as uow:
        return len(uow.events.list_all())


def test_a_file_becomes_a_running_swiss_stage_with_its_rounds_board_by_board(
    uow_factory: UnitOfWorkFactory,
) -> None:
    report = do_import(uow_factory, ("board-forfeit.trf", fixture("board-forfeit.trf")))
    stage = report.stages[0]
    assert (report.slug, stage.teams, stage.players, stage.rounds_played, stage.matches) == (
        "synthetic-cup",
        6,
        24,
        3,
        9,
    )
    with uow_factory() as uow:
        stored = swiss_state_of(uow, stage.stage_id)
        assert stored.rows.stage.status == StageStatus.RUNNING.value
        assert [t.name for t in stored.state.teams] == [
            "Armenia",
            "Brazil",
            "Chile",
            "Denmark",
            "Estonia",
            "Finland",
        ]
        assert stored.state.teams[0].ratings == (2700, 2690, 2680, 2670)
        boards = list(uow.session.exec(select(Board)).all())
        players = {p.id: p for p in uow.teams.players_of_event(report.event_id)}
    assert len(boards) == 36
    forfeits = [b for b in boards if GameResult(b.result).is_forfeit]
    # Round 2, Finland - Brazil board 2: Brazil's player (Black) won by forfeit.
    assert len(forfeits) == 1 and forfeits[0].board_no == 2
    assert GameResult(forfeits[0].result) is GameResult.BLACK_WINS_FORFEIT
    assert players[forfeits[0].black_player_id].name == "Brazil, Board 2"
    file_state, _ = read_team_trf(fixture("board-forfeit.trf"))
    assert stored.state.matches == file_state.matches


def test_the_standings_after_each_round_are_the_files(uow_factory: UnitOfWorkFactory) -> None:
    report = do_import(uow_factory, ("board-forfeit.trf", fixture("board-forfeit.trf")))
    state, _ = read_team_trf(fixture("board-forfeit.trf"))
    assert standings_after(uow_factory, report.slug, "open") == expected_after(state, 3)


def test_staff_pair_and_publish_the_next_round_of_an_imported_event(uow_factory: UnitOfWorkFactory) -> None:
    report = do_import(uow_factory, ("informative-802.trf", fixture("informative-802.trf")))
    stage_id = report.stages[0].stage_id
    with uow_factory() as uow:
        draft = swiss_rounds.pair_next_round(uow, stage_id=stage_id, actor="test")
    state, next_round = read_team_trf(fixture("informative-802.trf"))
    expected = SystemPairer(fide=GacruxPairer()).pair_round(state, next_round)
    assert draft.number == next_round == 4
    assert [(p.first, p.second) for p in draft.pairings] == [(p.first, p.second) for p in expected.pairings]
    with uow_factory() as uow:
        published = swiss_rounds.publish_round_pairing(uow, round_id=draft.round_id, actor="test")
    assert published.status == "scheduled" and len(published.pairings) == 3


def test_two_files_are_the_open_and_the_women_section_of_one_event(uow_factory: UnitOfWorkFactory) -> None:
    report = do_import(
        uow_factory,
        ("open.trf", fixture("board-forfeit.trf")),
        ("women.trf", women(fixture("board-forfeit.trf"))),
    )
    assert [(s.key, s.name, s.teams) for s in report.stages] == [("open", "Open", 6), ("women", "Women", 6)]
    with uow_factory() as uow:
        players = uow.teams.players_of_event(report.event_id)
        teams = {t.id: t for t in uow.teams.teams_of_event(report.event_id)}
    assert len(players) == 48
    assert {p.sex for p in players if teams[p.team_id].section == "women"} == {"f"}
    state, _ = read_team_trf(women(fixture("board-forfeit.trf")))
    assert standings_after(uow_factory, report.slug, "women") == expected_after(state, 3)


def test_chennai_imports_with_the_standings_the_replay_computes(uow_factory: UnitOfWorkFactory) -> None:
    text = CHENNAI.read_text(encoding="utf-8")
    report = do_import(uow_factory, (CHENNAI.name, text))
    assert report.stages[0].matches == 1018
    state, _ = read_team_trf(text)
    after = standings_after(uow_factory, report.slug, "open")
    assert after == expected_after(state, 11)
    assert after[1]["Chad"] == (1, 4)  # credited a drawn match for round 1 (record 299)


def refused(uow_factory: UnitOfWorkFactory, *files: tuple[str, str]) -> Sequence[str]:
    before = count_events(uow_factory)
    with pytest.raises(ValidationFailed) as error:
        do_import(uow_factory, *files)
    assert count_events(uow_factory) == before
    return error.value.problems


def test_a_broken_file_writes_nothing_and_lists_every_problem_with_its_line(
    uow_factory: UnitOfWorkFactory,
) -> None:
    problems = refused(
        uow_factory, ("good.trf", fixture("board-forfeit.trf")), ("broken.trf", fixture("broken.trf"))
    )
    assert [p.split(":")[1] for p in problems] == [
        " line 6",
        " line 13",
        " line 16",
        " line 20",
        " line 28",
        " line 41",
        " line 42",
        " line 43",
    ]
    assert all(p.startswith("broken.trf: line ") for p in problems)


def test_fides_sample_is_refused_naming_what_the_server_cannot_hold(uow_factory: UnitOfWorkFactory) -> None:
    problems = refused(uow_factory, ("GrandMommysCup03.trf", fixture("GrandMommysCup03.trf")))
    assert any(
        p.startswith("GrandMommysCup03.trf: line 347: record 240: a requested full-point bye")
        for p in problems
    )
    assert not any("line 367" in p or "line 373" in p for p in problems)  # 250, 260 of rounds played


def test_accelerations_and_prohibitions_import_when_their_rounds_are_played_and_not_otherwise(
    uow_factory: UnitOfWorkFactory,
) -> None:
    """board-forfeit.trf has played 3 of its 5 rounds: records 250 and 260 of rounds 1-3 need nothing
    stored; reaching round 4, the Swiss desk would pair without them, so the file is refused."""
    text = fixture("board-forfeit.trf")
    played = text + "250    2        1   3    1    3\n260   1   3    1    2\n"
    report = do_import(uow_factory, ("played.trf", played))
    assert report.stages[0].rounds_played == 3
    problems = refused(
        uow_factory, ("later.trf", text + "250    2        2   4    1    3\n260   4   5    1    2\n")
    )
    count = len(text.splitlines())
    assert [p.split(";")[0] for p in problems] == [
        f"later.trf: line {count + 1}: record 250 accelerates rounds 2 to 4, and round 4 is still to pair",
        f"later.trf: line {count + 2}: record 260 prohibits pairings in rounds 4 to 5, and round 4 is still "
        "to pair",
    ]


def test_two_sections_with_the_same_team_names_are_refused(uow_factory: UnitOfWorkFactory) -> None:
    problems = refused(
        uow_factory, ("a.trf", fixture("board-forfeit.trf")), ("b.trf", fixture("board-forfeit.trf"))
    )
    assert problems[0].startswith("the event of the files: teams[6].name (Armenia)")


def test_three_files_are_refused(uow_factory: UnitOfWorkFactory) -> None:
    text = fixture("board-forfeit.trf")
    assert len(refused(uow_factory, ("a", text), ("b", text), ("c", text))) == 1


def test_an_imported_slug_taken_gets_a_number(uow_factory: UnitOfWorkFactory) -> None:
    text = fixture("board-forfeit.trf")
    assert do_import(uow_factory, ("a.trf", text)).slug == "synthetic-cup"
    assert do_import(uow_factory, ("a.trf", text)).slug == "synthetic-cup-2"


# --- the commands ---------------------------------------------------------------------------------------


@pytest.fixture
def cli_db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OLYMPIAD_DATA_DIR", str(tmp_path / "cli"))
    get_settings.cache_clear()
    yield tmp_path
    dispose_engines()
    get_settings.cache_clear()


def test_import_trf_prints_what_it_stored_and_refuses_a_broken_file_with_exit_1(cli_db: Path) -> None:
    good, broken = cli_db / "good.trf", cli_db / "broken.trf"
    good.write_text(fixture("board-forfeit.trf"), encoding="latin-1")
    broken.write_text(fixture("broken.trf"), encoding="latin-1")
    runner = CliRunner()
    ok = runner.invoke(cli_app, ["import-trf", str(good)])
    bad = runner.invoke(cli_app, ["import-trf", str(broken)])
    missing = runner.invoke(cli_app, ["import-trf", str(cli_db / "missing.trf")])
    assert ok.exit_code == 0, ok.output
    assert "synthetic-cup" in ok.output and "3 of 5 rounds played, 9 matches" in ok.output
    assert bad.exit_code == 1 and "nothing was written (8 problem(s))" in bad.output
    assert "broken.trf: line 43: '999' is not a record" in bad.output and "Traceback" not in bad.output
    assert missing.exit_code == 2 and "cannot read" in missing.output


def test_replay_trf_reproduces_the_benchs_chennai_figures_as_json() -> None:
    result = CliRunner().invoke(cli_app, ["replay-trf", str(CHENNAI), "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert (payload["engine"], payload["reproduced"], payload["total"]) == ("olympiad-2022", 1011, 1018)
    assert [r["total"] for r in payload["rounds"]] == [92, 92, 92, 93, 93, 93, 93, 93, 93, 92, 92]
    difference = payload["rounds"][-1]["differences"][0]
    assert set(difference) == {"first", "second", "ours", "article"} and difference["first"]["rank"] > 0


def test_replay_trf_prints_a_table_and_refuses_an_unknown_engine() -> None:
    runner = CliRunner()
    table = runner.invoke(
        cli_app, ["replay-trf", str(FIXTURES / "board-forfeit.trf")], env={"COLUMNS": "200"}
    )
    unknown = runner.invoke(cli_app, ["replay-trf", str(CHENNAI), "--engine", "dutch"])
    assert table.exit_code == 0, table.output
    assert "Reproduced" in table.output and "fide-team-swiss" in table.output
    assert unknown.exit_code == 2 and "unknown engine" in unknown.output
