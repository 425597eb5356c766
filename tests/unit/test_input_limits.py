"""Names, CSV files and TRF files: one-line names of bounded length, CSV reading that names the bad line,
CSV writing that a spreadsheet cannot run, TRF files that stay within the format (docs/input-limits.md)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from typer.testing import CliRunner

from orchestrator.adapters.csv_files import CsvReadError, read_rows, safe_cell, write_csv
from orchestrator.adapters.match_csv import MatchCsvError, read_matches
from orchestrator.adapters.uow import UnitOfWorkFactory
from orchestrator.cli import app
from orchestrator.domain.names import MAX_TEAM_NAME, name_problem, text_problem
from orchestrator.domain.round_robin import is_complete_round_robin
from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.domain.trf.records import MAX_TRF_TEAMS
from orchestrator.domain.trf.teams import write_trf
from orchestrator.errors import ValidationFailed
from orchestrator.eventfile import EventDefinitionError, parse_event
from orchestrator.services.accounts.users import create_user
from orchestrator.services.results import exports
from orchestrator.services.setup.draws import commit_lot
from orchestrator.services.teams.rosters import import_rosters
from orchestrator.web.http.validation import json_problems, whole_number
from tests.support.factories import make_event
from tests.support.pool_builder import build_pool
from tests.support.rosters import HEADER, ICELAND

MATCHES_HEADER = "round,team_a,team_b,score_a,score_b,forfeit\n"
runner = CliRunner()


# --- names ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Norway", None),
        ("Côte d'Ivoire", None),
        ("Team\nX", "team name contains a line break (U+000A); a name is one line of text"),
        ("Team\rX", "team name contains a line break (U+000D); a name is one line of text"),
        ("Team\u2028X", "team name contains a line break (U+2028); a name is one line of text"),
        ("Team\tX", "team name contains a control character (U+0009); a name is one line of text"),
        ("Team\u202eX", "team name contains a control character (U+202E); a name is one line of text"),
        ("   ", "team name is empty"),
        ("x" * 61, "team name is 61 characters long; at most 60 are allowed"),
    ],
)
def test_a_name_is_one_line_of_printable_text_of_bounded_length(name: str, problem: str | None) -> None:
    assert name_problem(name, what="team name", limit=MAX_TEAM_NAME) == problem


def test_text_the_databases_refuse_is_named() -> None:
    assert text_problem("a\x00b") == "contains a NUL character (U+0000)"
    assert text_problem("a\ud800") == "contains a lone surrogate (U+D800), which is not valid Unicode text"
    assert text_problem("line one\nline two\ttab") is None


# --- CSV reading ---------------------------------------------------------------------------------------


def test_a_field_over_the_csv_field_limit_is_refused_with_its_line() -> None:
    text = "a,b\n1,2\n3," + "x" * (csv.field_size_limit() + 1) + "\n"
    with pytest.raises(CsvReadError) as caught:
        list(read_rows(text))
    assert caught.value.line == 3
    limit = csv.field_size_limit()
    assert str(caught.value) == f"line 3: a field is longer than {limit} characters (the CSV field limit)"


def test_a_nul_in_a_csv_field_is_refused_with_its_line_and_field() -> None:
    with pytest.raises(CsvReadError, match=r"^line 2: field 2 contains a NUL character"):
        list(read_rows("a,b\n1,x\x00y\n"))


def test_the_matches_file_reports_an_over_long_field_and_a_line_break_in_a_team_name() -> None:
    long_text = MATCHES_HEADER + "1,A," + "B" * 200_000 + ",3,3,\n"
    with pytest.raises(MatchCsvError) as caught:
        read_matches(long_text, boards=6)
    assert str(caught.value.problems[0]).startswith("line 2: a field is longer than")
    with pytest.raises(MatchCsvError) as caught:
        read_matches(MATCHES_HEADER + '1,"Alpha\n012 Forged",Beta,3,3,\n', boards=6)
    assert "team_a contains a line break" in str(caught.value)


def test_a_roster_file_with_a_line_break_in_a_team_name_is_refused_with_its_line(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
    forged = ICELAND.replace("Iceland,ISL,5,Jon", '"Iceland\n012 Forged",ISL,5,Jon', 1)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        import_rosters(uow, event_id=event_id, csv_text=HEADER + forged, actor="anna")
    assert "line 3: team contains a line break (U+000A); a name is one line of text" in caught.value.problems


def test_a_roster_file_with_an_over_long_player_name_is_refused_with_its_line(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
    long_name = ICELAND.replace("Jon Jonsson", "J" * 101, 1)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        import_rosters(uow, event_id=event_id, csv_text=HEADER + long_name, actor="anna")
    assert "line 2: name is 101 characters long; at most 100 are allowed" in caught.value.problems


# --- CSV writing ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cell", "written"),
    [
        ('=HYPERLINK("http://x")', '\'=HYPERLINK("http://x")'),
        ("+cmd", "'+cmd"),
        ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("Norway", "Norway"),
        ("-1", "-1"),  # a number stays a number
        ("-3/2", "-3/2"),
        ("+0.5", "+0.5"),
        ("−½", "−½"),
        (-1, -1),
        (None, None),
    ],
)
def test_text_cells_a_spreadsheet_would_run_get_a_leading_quote_numbers_do_not(
    cell: object, written: object
) -> None:
    assert safe_cell(cell) == written


def test_write_csv_writes_every_row_through_safe_cell() -> None:
    text = write_csv([["rank", "team"], [1, "=1+1"], [2, "-1"]])
    assert list(csv.reader(io.StringIO(text))) == [["rank", "team"], ["1", "'=1+1"], ["2", "-1"]]


def test_the_standings_csv_export_neutralises_a_formula_in_a_team_name(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow:
        built = build_pool(uow)
        team = next(t for t in uow.teams.teams_of_event(built.event_id) if t.name == "Norway")
        team.name = '=HYPERLINK("http://evil")'
        uow.session.add(team)
    with uow_factory() as uow:
        rows = list(csv.reader(io.StringIO(exports.standings_csv(uow, pool_id=built.pool_id))))
    teams = [row[1] for row in rows[1:]]
    assert '\'=HYPERLINK("http://evil")' in teams


def test_the_cli_standings_csv_neutralises_a_formula_in_a_team_name(tmp_path: Path) -> None:
    matches = tmp_path / "m.csv"
    matches.write_text(MATCHES_HEADER + "1,=1+1,Beta,4,2,\n")
    result = runner.invoke(app, ["standings", str(matches), "--format", "csv"])
    assert result.exit_code == 0, result.output
    assert "'=1+1" in result.output


# --- TRF -----------------------------------------------------------------------------------------------


def test_the_trf_writer_refuses_a_name_with_a_line_break() -> None:
    matches = [MatchRecord(1, "Alpha\n012 Forged", "Beta", 4, 2)]
    with pytest.raises(TieBreakError, match="line break"):
        write_trf(["Alpha\n012 Forged", "Beta"], matches, chain=("MP", "GP"), boards=6)
    with pytest.raises(TieBreakError, match="line break"):
        write_trf(["Alpha", "Beta"], matches[:0], chain=("MP",), name="Cup\n001 x")


def test_the_trf_writer_refuses_more_teams_than_the_format_numbers() -> None:
    teams = [f"T{n}" for n in range(MAX_TRF_TEAMS + 1)]
    matches = [MatchRecord(1, teams[2 * i], teams[2 * i + 1], 4, 2) for i in range(len(teams) // 2)]
    with pytest.raises(TieBreakError, match="999 teams"):
        write_trf(teams, matches, chain=("MP",), boards=1)


def test_olympiad_trf_refuses_more_than_999_teams_with_a_clear_message(tmp_path: Path) -> None:
    matches = tmp_path / "big.csv"
    lines = [f"1,T{2 * i},T{2 * i + 1},1,0," for i in range(500)]
    matches.write_text(MATCHES_HEADER + "\n".join(lines) + "\n")
    result = runner.invoke(app, ["trf", str(matches), "--boards", "1"])
    assert result.exit_code == 2, result.output
    assert "999 teams" in result.output and "1000" in result.output


# --- round robin or Swiss ------------------------------------------------------------------------------

# Five teams, two rounds: not a round robin. Delta misses round 2 (an absence), which the Swiss rules count
# as a draw in its opponents' Buchholz (FIDE C.07 Art. 16.3) and the round-robin rules do not.
SWISS_MATCHES = MATCHES_HEADER + (
    "1,Alpha,Beta,4,2,\n1,Gamma,Delta,3,3,\n1,Epsilon,,3,,\n2,Alpha,Gamma,4,2,\n2,Beta,Epsilon,2,4,\n"
)


def standings_json(path: Path, *flags: str) -> str:
    args = ["standings", str(path), "--format", "json", "--tiebreaks", "MP,BH:MP", *flags]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


def test_standings_of_a_schedule_that_is_not_a_round_robin_follow_the_swiss_rules_by_themselves(
    tmp_path: Path,
) -> None:
    matches = tmp_path / "swiss.csv"
    matches.write_text(SWISS_MATCHES)
    detected = standings_json(matches)
    assert detected == standings_json(matches, "--swiss")
    assert detected != standings_json(matches, "--round-robin")  # the rules differ on this schedule
    table = runner.invoke(app, ["standings", str(matches), "--tiebreaks", "MP,BH:MP"])
    assert "not a complete round robin" in table.output and "C.07 Art. 16" in table.output


def test_a_complete_round_robin_keeps_the_round_robin_rules(tmp_path: Path) -> None:
    matches = tmp_path / "rr.csv"
    matches.write_text(
        MATCHES_HEADER + "1,A,B,4,2,+-\n1,C,D,3,3,\n2,A,C,3,3,\n2,B,D,3,3,\n3,A,D,3,3,\n3,B,C,3,3,\n"
    )
    detected = standings_json(matches)
    assert detected == standings_json(matches, "--round-robin")
    assert detected != standings_json(matches, "--swiss")  # the forfeit counts differently in a Swiss


@pytest.mark.parametrize(
    ("pairings", "complete"),
    [
        ([("A", "B"), ("C", "D"), ("A", "C"), ("B", "D"), ("A", "D"), ("B", "C")], True),
        ([("A", "B"), ("C", None), ("A", "C"), ("B", None), ("B", "C"), ("A", None)], True),  # odd: byes
        ([("A", "B"), ("B", "A"), ("C", "D"), ("D", "C"), ("A", "C")], False),
        ([("A", "B"), ("C", "D"), ("A", "C"), ("B", "D")], False),
        ([("A", "B"), ("A", "B")], False),  # C never plays
    ],
)
def test_a_complete_round_robin_is_every_two_teams_meeting_equally_often(
    pairings: list[tuple[str, str | None]], complete: bool
) -> None:
    teams = sorted({t for pair in pairings for t in pair if t} | {"C"})
    assert is_complete_round_robin(teams, pairings) is complete


# --- names at the other entry points -------------------------------------------------------------------


def test_a_display_name_with_a_line_break_is_refused_when_creating_an_account(
    uow_factory: UnitOfWorkFactory,
) -> None:
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        create_user(uow, username="cap", password=None, role="arbiter", display_name="Anna\r\nAdmin")
    assert caught.value.problems == (
        "The display name contains a line break (U+000D); a name is one line of text.",
    )


def test_a_lot_candidate_with_a_line_break_is_refused(uow_factory: UnitOfWorkFactory) -> None:
    with uow_factory() as uow:
        event_id = make_event(uow)
    with uow_factory() as uow, pytest.raises(ValidationFailed) as caught:
        commit_lot(uow, event_id=event_id, purpose="order", candidates=["A\nB", "C"], actor="anna")
    assert caught.value.problems == (
        "candidates: candidate 'A\\nB' contains a line break (U+000A); a name is one line of text",
    )


# --- the web layer's checks ----------------------------------------------------------------------------


def test_whole_numbers_are_read_as_pydantic_would_and_huge_ones_stay_cheap() -> None:
    assert [whole_number(raw) for raw in ("12", " 12.0 ", "1.5", "abc", "NaN")] == [12, 12, None, None, None]
    assert whole_number("9223372036854775808") == 2**63
    assert whole_number("1e999999999") == 2**31  # out of range, without a billion-digit integer


def test_json_problems_name_each_field_by_its_path() -> None:
    document = {
        "team_a_id": 2**31,
        "winner_team_ids": [1, 0],
        "boards": [5, None, 2**63],
        "expected_version": -(2**31),
        "reason": "ok\x00",
        "nested": {"note": "\ud800"},
        "flag": True,
    }
    assert list(json_problems(document)) == [
        "team_a_id: must be a whole number from 1 to 2147483647",
        "winner_team_ids.1: must be a whole number from 1 to 2147483647",
        "boards.2: must be a whole number from -2147483648 to 2147483647",
        "reason: contains a NUL character (U+0000)",
        "nested.note: contains a lone surrogate (U+D800), which is not valid Unicode text",
    ]


def test_an_event_file_with_a_line_break_in_a_team_name_lists_it_as_a_problem() -> None:
    text = (Path(__file__).resolve().parents[2] / "events" / "online-olympiad-2020.yaml").read_text(
        encoding="utf-8"
    )
    text = text.replace("  - name: Russia\n", '  - name: "Russia\\n310 forged record"\n', 1)
    text = text.replace("name: FIDE Online Chess Olympiad 2020", "name: " + "X" * 121, 1)
    with pytest.raises(EventDefinitionError) as caught:
        parse_event(text)
    messages = [p.message for p in caught.value.problems]
    assert any("team name contains a line break" in m for m in messages), messages
    assert any("event name is 121 characters long" in m for m in messages), messages
