"""TRF-2026 record 240 ``F`` and ``H``: a requested full- or half-point bye takes the team out of the round
and scores it a won match and every board, or a drawn match and half the boards (docs/trf.md, "Requested
byes"); the totals of FIDE's sample (records 310 and 802) are the oracle of that reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.model import SwissState, SwissTeam, mark_absent, record_round
from orchestrator.domain.swiss.systems import pairer_for
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, read_team_trf

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "trf"


def sample() -> str:
    return (FIXTURES / "GrandMommysCup03.trf").read_bytes().decode()


def six() -> SwissState:
    return SwissState(tuple(SwissTeam(f"T{i}", (2500 - 10 * i,) * 4) for i in range(1, 7)), 4, 5)


def problems(text: str) -> list[str]:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text)
    return [str(problem) for problem in caught.value.problems]


def test_the_sample_with_its_crlf_and_tabs_reads_every_requested_bye() -> None:
    text = sample()
    assert "\r\n" in text and "\t" in text
    state, _ = read_team_trf(text)
    byes = {(b.team, b.round, b.full) for b in state.requested_byes}
    assert ("Georgia", 1, True) in byes and ("Philippines", 1, False) in byes
    assert ("United States of America", 2, False) in byes and ("Peru", 12, False) in byes
    assert all(b.round in state.team(b.team).absent for b in state.requested_byes)


def test_a_full_point_bye_scores_a_won_match_and_every_board_a_half_point_bye_a_draw_and_half() -> None:
    state, _ = read_team_trf(sample())
    assert state.points("Georgia", through=1) == (2, 8)  # 4 boards: 4.0 game points (802: FPB 4.0)
    assert state.points("Philippines", through=1) == (1, 4)  # 802: HPB 2.0
    peru = [state.points("Peru", through=r) for r in (11, 12)]
    assert (peru[1][0] - peru[0][0], peru[1][1] - peru[0][1]) == (1, 4)  # round 12: 240 H, 802: HPB 2.0


def test_the_samples_totals_fail_when_a_bye_is_read_as_worth_less() -> None:
    """The file's records 310 and 802 check the reading: Georgia's full-point bye of round 1 read as a
    half-point one leaves it a match point and two game points short, on both records."""
    text = sample().replace("240 F   1    3", "240 H   1    3")
    found = problems(text)
    assert "line 297: team 3: 19.0 match points given, 18 from the rounds read" in found
    assert "line 297: team 3: 32.5 game points given, 30.5 from the rounds read" in found
    assert any(p.startswith("line 603: team 3: 19.0 match points given") for p in found)


def without_totals(text: str) -> str:
    """The file without the match and game points of record 310 (columns 55-67)."""
    lines = [
        line[:54] + " " * 13 + line[67:] if line.startswith("310") else line for line in text.splitlines()
    ]
    return "\n".join(lines) + "\n"


def test_a_requested_bye_of_a_played_round_scores_and_is_no_pairing_allocated_bye() -> None:
    state = mark_absent(mark_absent(six(), "T6", round_no=1), "T3", round_no=1)
    state = record_round(state, [MatchRecord(1, "T1", "T4", 8, 0), MatchRecord(1, "T2", "T5", 4, 4)])
    text = without_totals(export_trf(state)) + "240 F   1    6\t \r\n240 H   1    3\n"
    read, next_round = read_team_trf(text)
    assert next_round == 2
    assert read.points("T6") == (2, 8) and read.points("T3") == (1, 4)
    assert not read.had_bye("T6") and not read.had_bye("T3")


def test_a_requested_bye_of_the_round_to_pair_takes_the_team_out_of_the_pairing() -> None:
    text = export_trf(six())
    state, _ = read_team_trf(text + "240 F   1    1\n")
    assert state.points("T1") == (0, 0)  # scores once the round is played
    pairing = pairer_for(state.pairing).pair_round(state, 1)
    paired = {team for p in pairing.pairings for team in (p.first, p.second)}
    assert "T1" not in paired and "T1" in pairing.not_paired and pairing.bye is not None
    plain = pairer_for(state.pairing).pair_round(read_team_trf(text)[0], 1)
    assert "T1" in {team for p in plain.pairings for team in (p.first, p.second)}


def test_every_problem_of_a_requested_bye_is_named_by_line() -> None:
    text = export_trf(six())
    count = len(text.splitlines())
    bad = "240 F   7    1\n240 H   1    9\n240 F   1    2\n240 H   1    2\n240 F   1   x2\n240 F   1\n"
    found = problems(text + bad)
    assert found == [
        f"line {count + 1}: record 240: round 7 is not a round of the file (1 to 5, record 142)",
        f"line {count + 2}: record 240 names team 9, which the file does not have",
        f"line {count + 4}: record 240: team 2 already has a bye in round 1",
        f"line {count + 5}: record 240 names no team (from column 11)",
        f"line {count + 6}: record 240 names no team (from column 11)",
    ]


def test_a_team_with_a_requested_bye_that_meets_a_team_is_refused() -> None:
    state = record_round(
        six(),
        [
            MatchRecord(1, "T1", "T4", 8, 0),
            MatchRecord(1, "T2", "T5", 4, 4),
            MatchRecord(1, "T3", "T6", 4, 4),
        ],
    )
    text = without_totals(export_trf(state)) + "240 F   1    1\n"
    assert f"line {len(text.splitlines())}: round 1: team 1 asked for a bye and meets team 4" in problems(
        text
    )


def test_the_samples_requested_byes_accelerations_and_prohibitions_are_written_back_as_read() -> None:
    state, next_round = read_team_trf(sample())
    again, again_next = read_team_trf(export_trf(state))
    assert again_next == next_round
    assert set(again.requested_byes) == set(state.requested_byes)
    assert again.accelerations == state.accelerations and again.prohibitions == state.prohibitions
    assert all(again.points(team.name) == state.points(team.name) for team in state.teams)
