"""`olympiad pair` reads every record of the TRF-2026 team layout (docs/trf.md, "What we read"): FIDE TEC's
sample file, record 299 bonus and penalty points, a board forfeit in a played match, the informative
records 802, record 192 with game points primary, and a broken file whose every problem is listed with
its line; each paired as FIDE's gacrux pairs it, except where C.04.6 says otherwise (docs/swiss.md)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("gacrux")

from orchestrator.adapters.gacrux_pairing import TrfPairingError, pair_trf, pair_trf_file
from orchestrator.cli import app
from orchestrator.domain.scoring import MatchForfeit, MatchRecord
from orchestrator.domain.swiss import ScoreAdjustment, SwissTeam, start_state
from orchestrator.domain.swiss.c046 import teams_before
from orchestrator.domain.trf.records import put, put_round
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import (
    Problem,
    TrfInvalid,
    TrfNotImplemented,
    read_team_trf,
)
from tests.support.swiss_compare import compare_event

FIXTURES = Path(__file__).parents[1] / "fixtures" / "trf"
runner = CliRunner()


def fixture(name: str) -> str:
    return (FIXTURES / name).read_bytes().decode("latin-1")


def cli_pair(path: Path, *args: str) -> dict:
    result = runner.invoke(app, ["pair", str(path), "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


# FIDE TEC's sample file


def test_fide_sample_file_is_read_record_by_record_and_what_we_do_not_implement_is_named_by_line() -> None:
    with pytest.raises(TrfNotImplemented) as caught:
        read_team_trf(fixture("GrandMommysCup03.trf"))
    problems = caught.value.problems
    assert {p.line for p in problems} == set(range(347, 365)) | set(range(367, 371)) | {373, 374, 375}
    assert "line 367: record 250 accelerates rounds" in str(caught.value)
    assert "line 373: record 260 prohibits pairings" in str(caught.value)
    assert "line 348: record 240 gives a half-point bye" in str(caught.value)
    assert not isinstance(caught.value, TrfInvalid)


@pytest.mark.parametrize("round_no", [12, 14])
def test_olympiad_pair_accepts_fide_sample_file_and_pairs_as_gacrux(round_no: int) -> None:
    path = FIXTURES / "GrandMommysCup03.trf"
    ours = cli_pair(path, "--round", str(round_no))
    theirs = cli_pair(path, "--round", str(round_no), "--engine", "gacrux")
    assert ours == theirs
    found = pair_trf(fixture("GrandMommysCup03.trf"), round_no=round_no)
    assert [(row["first"]["tpn"], row["second"]["tpn"]) for row in ours["pairings"]] == [
        pair for pair in found.pairs if pair[1]
    ]
    assert ours["round"] == round_no and ours["pairings"]


# Record 299: points added to or taken from a team's score


def test_record_299_penalty_is_in_the_score_the_next_round_is_paired_from() -> None:
    text = fixture("penalty-299.trf")
    state, next_round = read_team_trf(text)
    assert next_round == 4
    assert state.adjustments == (ScoreAdjustment("Chile", 3, -2, -2),)
    assert state.points("Chile") == (3, 15)  # 5 MP and 8½ GP from the matches, less 2 and 1
    assert state.adjusted("Chile", 4) == (-2, -2)
    assert state.adjusted("Chile", 3) == (0, 0)  # round 3's penalty counts from round 4 on
    ours = pair_trf_file(text)
    assert ours == pair_trf(text)
    lines = [fix_points(line) for line in text.splitlines() if not line.startswith("299")]
    without = "\n".join(lines) + "\n"
    assert pair_trf_file(without).pairs != ours.pairs  # the penalty moves Chile to another scoregroup


def test_record_299_is_written_back_as_read() -> None:
    state, _ = read_team_trf(fixture("penalty-299.trf"))
    assert [line for line in export_trf(state).splitlines() if line.startswith("299")] == [
        "299    -2.0  -1.0    3    3"
    ]
    standings_only = replace(state, adjustments=(ScoreAdjustment("Chile", 0, 1, 0, pairing=False),))
    again, _ = read_team_trf(export_trf(standings_only))
    assert again.adjustments == standings_only.adjustments
    assert again.points("Chile") == (6, 17)  # counted in the standings
    assert again.points("Chile", through=3) == (5, 17)  # not in the score pairing uses
    assert again.adjusted("Chile", 4) == (0, 0)


def test_record_299_that_assigns_a_result_is_refused_with_its_line() -> None:
    text = fixture("penalty-299.trf").replace("299    -2.0", "299 W   2.0")
    with pytest.raises(TrfNotImplemented, match=r"line 41: record 299 of type 'W' assigns a result"):
        read_team_trf(text)
    assert pair_trf_file(text) == pair_trf(text)  # FIDE's engine pairs it instead


@pytest.mark.parametrize("primary", ["mp", "gp"])
def test_bonus_and_penalty_points_pair_as_gacrux_when_no_float_is_concerned(primary: str) -> None:
    # Record 299 points from round 5 on: arts. 2.3.4 [C7] and 2.3.7 [C10] are off in rounds 6 and 7,
    # so the scores, scoregroups, bye and colours are compared (see the next test for floats).
    for seed in (1, 2, 3):
        compare_event(10 + seed, 7, seed, primary=primary, adjust=5)


def test_a_float_is_read_from_the_scores_with_bonus_and_penalty_points() -> None:
    """C.04.6 art. 1.5: a floater plays an opponent with a different score, and the score that round
    was paired from includes the points of record 299; gacrux reads floats from the match scores alone
    (docs/swiss.md, "Where we follow the article rather than gacrux")."""
    teams = [SwissTeam(name, (2500 - 10 * n,)) for n, name in enumerate("ABCDEF")]
    state = start_state(teams, boards=4, rounds=7)
    matches = [MatchRecord(1, "A", "D", 4, 4), MatchRecord(1, "B", "E", 4, 4), MatchRecord(1, "C", "F", 4, 4)]
    matches += [
        MatchRecord(2, "A", "B", 5, 3),
        MatchRecord(2, "C", "D", 4, 4),
        MatchRecord(2, "E", "F", 4, 4),
    ]
    state = replace(state, matches=tuple(matches), adjustments=(ScoreAdjustment("A", 1, 1, 0),))
    teams3 = teams_before(state, 3)
    assert teams3[1].floated and teams3[2].floated  # A (1 + 1 bonus) met B (1) in round 2
    assert not teams3[3].floated
    plain = teams_before(replace(state, adjustments=()), 3)
    assert not plain[1].floated and not plain[2].floated


# A board forfeit in a match played


def test_a_board_won_by_forfeit_counts_its_point_and_the_match_stays_played() -> None:
    text = fixture("board-forfeit.trf")
    state, _ = read_team_trf(text)
    match = next(m for m in state.matches if m.round == 2 and m.team_a == "Brazil")
    assert match == MatchRecord(2, "Brazil", "Finland", 6, 2, MatchForfeit.NONE)
    assert state.have_played("Brazil", "Finland")
    assert pair_trf_file(text) == pair_trf(text)


def test_a_match_whose_every_board_is_forfeited_is_a_forfeited_match() -> None:
    text = fixture("board-forfeit.trf")
    lines = text.splitlines()
    for index, line in enumerate(lines):  # round 2: every Brazil board wins by forfeit against Finland
        if line.startswith("001 ") and int(line[4:8]) in range(5, 9):
            lines[index] = line[:108] + "+" + line[109:]
        if line.startswith("001 ") and int(line[4:8]) in range(21, 25):
            lines[index] = line[:108] + "-" + line[109:]
    lines = [fix_points(line) for line in lines]
    state, _ = read_team_trf("\n".join(lines) + "\n")
    match = next(m for m in state.matches if m.round == 2 and m.team_a == "Brazil")
    assert match.forfeit is MatchForfeit.A_WINS and match.gp_a == 8
    assert not state.have_played("Brazil", "Finland")


def fix_points(line: str) -> str:
    """A record 001 with its points (81-84) the sum of its results, and a record 310 left out of the check."""
    if line.startswith("310 "):
        return line[:54] + " " * 13 + line[67:]
    if not line.startswith("001 "):
        return line
    halves = {"1": 2, "+": 2, "=": 1}
    total = sum(
        halves.get(line[98 + 10 * r], 0) for r in range((len(line) - 91) // 10 + 1) if 98 + 10 * r < len(line)
    )
    return line[:80] + f"{total / 2:4.1f}" + line[84:]


# Informative scores


def test_records_802_are_read_and_checked_against_the_rounds() -> None:
    text = fixture("informative-802.trf")
    _, next_round = read_team_trf(text)
    assert next_round == 4
    assert pair_trf_file(text) == pair_trf(text)
    wrong = text.replace("802   3 Chile    5.0    8.5", "802   3 Chile    6.0    8.0")
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(wrong)
    line = wrong.splitlines().index(next(x for x in wrong.splitlines() if x.startswith("802   3"))) + 1
    assert caught.value.problems == (
        Problem(line, "team 3: 6.0 match points given, 5 from the rounds read"),
        Problem(line, "team 3: 8.0 game points given, 8.5 from the rounds read"),
    )


# Record 192: game points as the primary score


def test_game_points_primary_groups_and_orders_by_game_points_as_gacrux() -> None:
    text = fixture("game-points-192.trf")
    state, _ = read_team_trf(text)
    assert (state.primary, state.colour_model) == ("gp", "none")
    ours = pair_trf_file(text)
    assert ours == pair_trf(text)
    assert ours.pairs == ((2, 4), (6, 5), (3, 1))
    by_match_points = text.replace("FIDE_TEAM_GP_MP", "FIDE_TEAM_MP_GP")
    assert pair_trf_file(by_match_points).pairs == ((5, 1), (3, 4), (6, 2))
    assert pair_trf_file(by_match_points) == pair_trf(by_match_points)


@pytest.mark.parametrize(
    ("code", "primary", "model"), [("FIDE_TEAM_TYPEA_GP_MP", "gp", "A"), ("FIDE_TEAM_GP_MP", "gp", "none")]
)
def test_record_192_names_the_primary_score_and_colour_model(code: str, primary: str, model: str) -> None:
    text = fixture("game-points-192.trf").replace("FIDE_TEAM_GP_MP", code)
    state, _ = read_team_trf(text)
    assert (state.primary, state.colour_model) == (primary, model)
    assert f"192 {code}" in export_trf(state)
    assert pair_trf_file(text) == pair_trf(text)


@pytest.mark.parametrize(("primary", "model"), [("gp", "A"), ("gp", "none"), ("mp", "none")])
def test_game_points_primary_and_no_colour_preferences_pair_as_gacrux(primary: str, model: str) -> None:
    for seed in (4, 5):
        compare_event(9 + seed, 6, seed, primary=primary, colour_model=model)


# A broken file


def test_a_broken_file_has_every_problem_listed_with_its_line() -> None:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(fixture("broken.trf"))
    assert [str(problem) for problem in caught.value.problems] == [
        "line 6: record 142 is already on line 5",
        "line 13: the rating (columns 49-52) '26x0' is not a number",
        "line 16: round 1: players 5 and 17 do not name each other with opposite colours",
        "line 20: player 9: the points 9.5 are not the results' sum (2.0)",
        "line 28: round 1: players 17 and 5 do not name each other with opposite colours",
        "line 41: team 6: 5.0 match points given, 0 from the rounds read",
        "line 42: the forfeit type 'x+' (columns 5-6) is not +-, -+ or --",
        "line 43: '999' is not a record of the TRF-2026 team layout",
    ]


def test_olympiad_pair_refuses_a_broken_file_listing_every_problem_without_a_traceback() -> None:
    result = runner.invoke(app, ["pair", str(FIXTURES / "broken.trf")])
    assert (result.exit_code != 0 and result.exception is None) or isinstance(result.exception, SystemExit)
    output = " ".join(result.output.split())
    for line in (6, 13, 16, 20, 28, 41, 42, 43):
        assert f"line {line}:" in output
    assert "Traceback" not in result.output
    with pytest.raises(TrfPairingError, match="line 43"):
        pair_trf_file(fixture("broken.trf"))


def test_a_file_without_teams_or_rounds_is_refused_with_reasons() -> None:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf("012 Nothing\n001    1 x\n")
    reasons = [str(problem) for problem in caught.value.problems]
    assert "record 142 (the number of rounds) is missing" in reasons
    assert "the file has no team records (310)" in reasons


# A reserve and a line-up (record 300)


def with_reserve(lineup: bool) -> str:
    """The 802 file without its 802 records, Armenia with a fifth player who plays board 2 in round 1."""
    lines = [line for line in fixture("informative-802.trf").splitlines() if line[:3] not in ("802", "###")]

    def cell(line: str, rnd: int, text: str) -> str:
        column = 91 + 10 * (rnd - 1)
        return line[:column] + text + line[column + 8 :]

    out = []
    for line in lines:
        number = int(line[4:8]) if line.startswith("001 ") else 0
        if number == 2:
            line = cell(line[:80] + " 0.5" + line[84:], 1, "0000 - -")
        elif number == 14:
            line = cell(line, 1, "  25 w 0")
        elif line.startswith("062 "):
            line = "062 25"
        elif line.startswith("310   1 "):
            line = line + "   25"
        out.append(line)
    reserve: list[str] = []
    for column, text in ((1, "001"), (5, "  25"), (15, "Armenia, Reserve"), (49, "2660"), (81, " 1.0")):
        put(reserve, column, text)
    put_round(reserve, 1, (14, "b", "1"))
    out.insert(next(i for i, line in enumerate(out) if line.startswith("310 ")), "".join(reserve))
    if lineup:
        out.append("300   1   1   4    1   25    3    4")
    return "\n".join(out) + "\n"


@pytest.mark.parametrize("lineup", [False, True])
def test_a_reserve_on_a_board_and_a_line_up_read_as_the_same_match(lineup: bool) -> None:
    text = with_reserve(lineup)
    state, _ = read_team_trf(text)
    plain, _ = read_team_trf(fixture("informative-802.trf"))
    assert state.matches == plain.matches
    assert state.team("Armenia").ratings == (2700, 2690, 2680, 2670, 2660)
    assert pair_trf_file(text) == pair_trf(text)


def test_a_line_up_naming_another_opponent_than_the_boards_is_listed() -> None:
    text = with_reserve(True).replace("300   1   1   4", "300   1   1   5")
    with pytest.raises(TrfInvalid, match="round 1: team 1 meets teams 4, 5"):
        read_team_trf(text)
