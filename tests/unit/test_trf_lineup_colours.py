"""Record 300: a line-up's boards keep their places, an empty board included, so that the first-named
team of a match (White on the odd boards, record 352) is told right when its first board is empty."""

from __future__ import annotations

from pathlib import Path

from orchestrator.domain.trf.swiss_read import read_team_trf

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "trf" / "GrandMommysCup03.trf"


def first_named(round_no: int, team: str) -> str:
    state, _ = read_team_trf(SAMPLE.read_bytes().decode())
    return next(m.team_a for m in state.matches if m.round == round_no and team in (m.team_a, m.team_b))


def test_an_empty_first_board_leaves_the_first_named_team_to_the_boards_played() -> None:
    """Round 7, Kazakhstan (line-up `0 17 248 72`) against Georgia (`3 10 19 34`, player 3 winning the
    empty board): Kazakhstan's player 17 has Black on board 2, Georgia's player 10 White, so Kazakhstan
    has White on the odd boards and is named first."""
    assert first_named(7, "Georgia") == "Kazakhstan"


def test_an_empty_board_of_the_other_team_counts_too() -> None:
    """Round 5, France (line-up `0 37 29 0`) against Serbia: France's player 37 has Black on board 2, so
    France has White on the odd boards and is named first."""
    assert first_named(5, "Serbia") == "France"
