"""TRF-2026 export: exact columns (FIDE TRF-2026, player and team records) and synthetic boards."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orchestrator.domain.scoring import MatchRecord, match_game_points
from orchestrator.domain.trf.records import synthesise_boards, trf_tiebreaks
from orchestrator.domain.trf.teams import write_trf
from tests.unit.builders import m, rr, y

POOL = {"AB": "2.5-1.5", "CD": "2-2", "AC": "1-3", "BD": "3-1", "AD": "2-2", "BC": "2.5-1.5"}


def lines(text: str, tag: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(tag)]


def test_team_records_put_every_field_in_its_columns() -> None:
    text = write_trf(list("ABCD"), rr("ABCD", POOL), chain="online-2020", boards=4, name="Top A")
    record = lines(text, "310")[1]  # team B: 4 MP, 7 GP, rank 1, players 5-8
    assert record[4:7] == "  2" and record[8:9] == "B"
    assert record[54:60] == "   4.0" and record[61:67] == "   7.0" and record[68:71] == "  1"
    assert record[73:77] == "   5" and record[78:82] == "   6" and record[88:92] == "   8"
    assert lines(text, "012") == ["012 Top A"]
    assert lines(text, "082") == ["082 4"] and lines(text, "062") == ["062 16"]
    assert lines(text, "352") == ["352 WBWB"]
    assert lines(text, "202") == ["202 MPVGP,DE:MP,DE:GP,EMMSB,EGGSB"]
    assert any(line.startswith("###") and "LOT" in line for line in text.splitlines())


def test_player_lines_carry_per_round_games_in_fixed_columns() -> None:
    text = write_trf(list("ABCD"), rr("ABCD", POOL), chain=["MP"], boards=4)
    first = lines(text, "001")[0]  # A, board 1
    assert first[4:8] == "   1" and first[14:26] == "A, Board 1  "
    rounds = [first[91 + 10 * r : 99 + 10 * r] for r in range(3)]
    assert all(cell[4] == " " and cell[5] in "wb" and cell[7] in "10=+-" for cell in rounds)
    assert first[80:84] == f"{sum({'1': 1.0, '=': 0.5}.get(c[7], 0) for c in rounds):4.1f}"


def test_a_whole_match_forfeit_gets_a_330_record_and_a_bye_a_320_record() -> None:
    matches = [
        m(1, "A", "B", "+-"),
        y(1, "C"),
        m(2, "B", "C", "--"),
        y(2, "A"),
        m(3, "C", "A", "3-1"),
        y(3, "B"),
    ]
    text = write_trf(list("ABC"), matches, chain=["MP"], boards=4, round_robin=False)
    assert lines(text, "330") == ["330 +-   1   1   2", "330 --   2   2   3"]
    assert lines(text, "320") == ["320  1.0  2.0 003 001 002"]


def test_codes_outside_trf_are_left_out_with_a_comment() -> None:
    assert trf_tiebreaks("olympiad-2026") == (["MPVGP"], ["OLY-TB1", "OLY-TB3"])
    assert trf_tiebreaks("fide-team-swiss") == (["EDE", "EMGSB/C1", "BH:MP/C1", "MPVGP"], [])


@given(st.sampled_from([4, 6]), st.data())
def test_synthetic_boards_add_up_to_the_match_score(boards: int, data: st.DataObject) -> None:
    gp_a = data.draw(st.integers(min_value=0, max_value=2 * boards))
    gp_b = data.draw(
        st.integers(min_value=0, max_value=2 * boards - gp_a).filter(lambda b: (gp_a + b) % 2 == 0)
    )
    results = synthesise_boards(MatchRecord(1, "A", "B", gp_a, gp_b), boards)
    assert match_game_points(results) == (gp_a, gp_b)
