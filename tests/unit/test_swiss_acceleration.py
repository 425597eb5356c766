"""TRF-2026 record 250, the Baku acceleration applied to teams (C.04.5.1): virtual match and game points
added to the pairing score of a range of teams in a range of rounds, for the pairing only; the standings
never count them (docs/trf.md, docs/swiss.md)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orchestrator.domain.scoring import MatchRecord
from orchestrator.domain.swiss.model import Acceleration, SwissState, record_round
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, read_team_trf
from tests.support.swiss_systems import TRF_SYSTEMS, rated_field, tpn_pairs


def eight(system: str = "fide-team-swiss", *accelerations: Acceleration) -> SwissState:
    return rated_field(8, system, accelerations=accelerations)


def record_250(mp: str, gp: str, first: str, last: str, low: str, high: str) -> str:
    """Record 250 at its columns: match points 5-8, game points 10-13, rounds 15-17 and 19-21, teams 23-26
    and 28-31."""
    return f"250 {mp:>4} {gp:>4} {first:>3} {last:>3} {low:>4} {high:>4}"


@pytest.mark.parametrize("system", TRF_SYSTEMS)
def test_two_virtual_match_points_for_the_top_half_split_round_one_into_two_brackets(system: str) -> None:
    """Eight teams, no points: one bracket, 1-5, 2-6, 3-7, 4-8 (top half against bottom half). With 2 MP
    for teams 1-4 in round 1, teams 1-4 and 5-8 are two brackets: 1-3, 2-4 and 5-7, 6-8."""
    assert tpn_pairs(eight(system)) == {(1, 5), (2, 6), (3, 7), (4, 8)}
    accelerated = eight(system, Acceleration(2, 0, 1, 1, 1, 4))
    assert tpn_pairs(accelerated) == {(1, 3), (2, 4), (5, 7), (6, 8)}


def test_an_acceleration_of_other_rounds_leaves_round_one_alone() -> None:
    assert tpn_pairs(eight("fide-team-swiss", Acceleration(2, 0, 2, 3, 1, 4))) == {
        (1, 5),
        (2, 6),
        (3, 7),
        (4, 8),
    }


def test_virtual_points_count_for_the_pairing_never_in_the_standings() -> None:
    state = eight("fide-team-swiss", Acceleration(2, 4, 1, 2, 1, 4))
    assert state.virtual("T1", 1) == (2, 4) and state.virtual("T5", 1) == (0, 0)
    assert state.virtual("T1", 3) == (0, 0)
    played = record_round(state, [MatchRecord(1, f"T{i}", f"T{i + 4}", 4, 4) for i in range(1, 5)])
    assert played.points("T1") == (1, 4)  # the drawn match only


def test_record_250_is_read_from_its_columns_and_pairs_the_file() -> None:
    text = export_trf(eight())
    state, _ = read_team_trf(text + "250  2          1   1    1    4\r\n")
    assert state.accelerations == (Acceleration(2, 0, 1, 1, 1, 4),)
    assert tpn_pairs(state) == {(1, 3), (2, 4), (5, 7), (6, 8)}
    assert read_team_trf(text + record_250("2", "1.5", "2", "4", "3", "5") + "\n")[0].accelerations == (
        Acceleration(2, 3, 2, 4, 3, 5),
    )


def test_every_problem_of_a_record_250_is_named_by_line() -> None:
    text = export_trf(eight())
    n = len(text.splitlines())
    bad = [
        record_250("2", "", "3", "1", "1", "4"),
        record_250("2", "", "1", "1", "5", "4"),
        record_250("2", "", "1", "9", "1", "4"),
        record_250("2", "", "1", "1", "1", "12"),
        record_250("", "", "1", "1", "1", "4"),
        record_250("x", "", "1", "1", "1", "4"),
        record_250("2", "", "1", "", "1", "4"),
    ]
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text + "\n".join(bad) + "\n")
    assert [str(p) for p in caught.value.problems] == [
        f"line {n + 1}: record 250: rounds 3 to 1 are not a range of rounds",
        f"line {n + 2}: record 250: teams 5 to 4 are not a range of teams",
        f"line {n + 3}: record 250: round 9 is after the last round (5)",
        f"line {n + 4}: record 250: team 12 is not a team of the file",
        f"line {n + 5}: record 250 adds neither match points (columns 5-8) nor game points (10-13)",
        f"line {n + 6}: the match points (columns 5-8) 'x' is not a number of whole points",
        f"line {n + 7}: the last round (columns 19-21) is missing",
    ]


def test_the_float_of_the_previous_round_is_told_from_its_pairing_scores() -> None:
    """C.04.6 art. 1.5: in round 2, a team of round 1's accelerated half that met a team of the other half
    floated down in round 1 by its pairing score, virtual points included."""
    from orchestrator.domain.swiss.c046 import teams_before

    state = replace(eight(), accelerations=(Acceleration(2, 0, 1, 1, 1, 4),))
    state = record_round(state, [MatchRecord(1, f"T{i}", f"T{i + 4}", 4, 4) for i in range(1, 5)])
    assert all(teams_before(state, 2)[n].floated for n in range(1, 9))
    plain = record_round(eight(), [MatchRecord(1, f"T{i}", f"T{i + 4}", 4, 4) for i in range(1, 5)])
    assert not any(teams_before(plain, 2)[n].floated for n in range(1, 9))
