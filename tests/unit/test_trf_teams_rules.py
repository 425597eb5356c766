"""The TRF-2026 file of a pool or stage from its match scores (``trf.teams.write_trf``; FIDE TRF-2026,
records in docs/trf.md): every line below was written out by hand from the layout (record 001: 5-8
player number, 15-47 "Team, Board k", 81-84 points, 86-89 rank, ten columns a round from 92: opponent
92-95, colour 97, result 99; record 310: 5-7 number, 9-40 name, 55-60 MP, 62-67 GP, 69-71 rank, players
from 74 every 5 columns).
"""

from __future__ import annotations

import pytest

from orchestrator.domain.scoring import ByeRequest, GameResult, MatchRecord, MatchScoring, no_show
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.domain.trf.teams import write_trf
from tests.unit.builders import m, y

# Round 1: A - B 1.5-0.5 (synthesised: board 1 won by A with White, board 2 drawn); C - D 1-1 from its
# real boards (Black wins both). Round 2: D's requested full-point bye and C's half-point bye (listed
# D first), A - B won by A by forfeit. Round 3: A's pairing-allocated bye, B - C 1-1 (synthesised: each
# side wins its White board), D not paired.
MATCHES = [
    MatchRecord(1, "A", "B", 3, 1),
    MatchRecord(1, "C", "D", 2, 2),
    MatchRecord.requested_bye(2, "D", ByeRequest.FULL, 2),
    MatchRecord.requested_bye(2, "C", ByeRequest.HALF, 2),
    no_show(round=2, team_a="A", team_b="B", absent="B", boards=2),
    MatchRecord(3, "A", None, 2, 0),
    MatchRecord(3, "B", "C", 2, 2),
]
GAMES = {(1, "C"): (GameResult.BLACK_WINS, GameResult.BLACK_WINS)}


def _stage() -> list[str]:
    text = write_trf(
        list("ABCD"), MATCHES, chain=["MP"], name="Cup", boards=2, round_robin=False, games=GAMES
    )
    assert text.endswith("\n")
    return text.splitlines()


def _player(number: int, team: str, board: int, points: str, rank: int, *cells: str) -> str:
    return (
        f"001 {number:4d}      "
        + f"{team}, Board {board}".ljust(66)
        + f"{points:>4} {rank:4d}  "
        + "  ".join(cells)
    )


def test_the_tournament_records_name_counts_type_rounds_colours_and_scoring() -> None:
    assert _stage()[:9] == [
        "012 Cup",
        "062 8",
        "082 4",
        "092 Team Swiss",
        "142 3",
        "192 CUSTOM_TEAM_SWISS_MP",
        "352 WB",
        "162  W 1.0    D 0.5    L 0.0",
        "362 TW 2.0   TD 1.0   TL 0.0",
    ]


def test_a_pool_is_by_default_a_six_board_round_robin_named_pool() -> None:
    lines = write_trf(["A", "B"], [m(1, "A", "B", "3-3", boards=6)], chain=["MP"]).splitlines()
    assert lines[:6] == [
        "012 Pool",
        "062 12",
        "082 2",
        "092 Team round robin",
        "142 1",
        "192 FIDE_TEAM_ROUNDROBIN",
    ]
    assert lines[6] == "352 WBWBWB"


def test_every_board_s_player_gets_one_cell_a_round() -> None:
    assert _stage()[9:17] == [
        _player(1, "A", 1, "2.0", 1, "   3 w 1", "   3 w +", "0000 -  "),
        _player(2, "A", 2, "1.5", 1, "   4 b =", "   4 b +", "0000 -  "),
        _player(3, "B", 1, "1.0", 4, "   1 b 0", "   1 b -", "   5 w 1"),
        _player(4, "B", 2, "0.5", 4, "   2 w =", "   2 w -", "   6 b 0"),
        _player(5, "C", 1, "0.5", 2, "   7 w 0", "0000 - H", "   3 b 0"),
        _player(6, "C", 2, "2.5", 2, "   8 b 1", "0000 - H", "   4 w 1"),
        _player(7, "D", 1, "2.0", 2, "   5 b 1", "0000 - F", "0000 - Z"),
        _player(8, "D", 2, "1.0", 2, "   6 w 0", "0000 - F", "0000 - Z"),
    ]


def test_team_byes_and_forfeits_get_records_310_320_240_and_330() -> None:
    assert _stage()[17:] == [
        "310   1 A" + " " * 45 + "   5.0    4.5   1     1    2",
        "310   2 B" + " " * 45 + "   1.0    1.5   4     3    4",
        "310   3 C" + " " * 45 + "   3.0    3.0   2     5    6",
        "310   4 D" + " " * 45 + "   3.0    3.0   2     7    8",
        "320  1.0  1.0 000 000 001",
        "240 H   2    3",  # listed by team number within a round, whatever the order of the records
        "240 F   2    4",
        "330 +-   2   1   2",
    ]


def test_a_team_that_plays_no_round_scores_nothing() -> None:
    lines = write_trf(list("ABC"), [m(1, "A", "B", "1-0", boards=1)], chain=["MP"], boards=1).splitlines()
    assert lines[-4] == _player(3, "C", 1, "0.0", 2, "0000 - Z")


def test_a_player_s_name_is_the_team_s_first_24_characters_and_the_board_cut_to_33_columns() -> None:
    team = "T" * 30
    lines = write_trf([team, "B"], [m(1, team, "B", "5-5", boards=10)], chain=["MP"], boards=10).splitlines()
    players = [line for line in lines if line.startswith("001")]
    assert len(players) == 20
    assert players[0][14:48] == "T" * 24 + ", Board 1 "
    assert players[9][14:48] == "T" * 24 + ", Board 1 "  # ", Board 10" cut at column 47
    assert lines[-2].startswith("310   1 " + "T" * 30 + " ") and lines[-2].endswith("   9   10")


def test_the_number_of_board_results_must_be_the_number_of_boards() -> None:
    with pytest.raises(TieBreakError, match=r"^round 1: C needs 2 board results$"):
        write_trf(
            list("ABCD"),
            MATCHES,
            chain=["MP"],
            boards=2,
            round_robin=False,
            games={(1, "C"): (GameResult.DRAW,)},
        )


def test_a_tournament_name_with_a_line_break_is_refused() -> None:
    with pytest.raises(TieBreakError, match="tournament name"):
        write_trf(["A", "B"], [], chain=["MP"], name="Cup\n001 forged")


def _ranks(text: str) -> list[int]:
    return [int(line[68:71]) for line in text.splitlines() if line.startswith("310")]


def test_the_ranks_follow_the_drawing_of_lots() -> None:
    text = write_trf(
        ["A", "B"], [m(1, "A", "B", "1-1", boards=2)], chain=["MP", "LOT"], boards=2, lots={"A": 2, "B": 1}
    )
    assert _ranks(text) == [2, 1]


def test_the_ranks_and_310_points_follow_the_match_scoring() -> None:
    # A: a win and a loss; B: two draws. 2-1-0 ties them on 2 MP; 3-1-0 puts A ahead (3 MP to 2).
    matches = [
        m(1, "A", "C", "1-0", boards=1),
        m(1, "B", "D", "0.5-0.5", boards=1),
        m(2, "A", "D", "0-1", boards=1),
        m(2, "B", "C", "0.5-0.5", boards=1),
    ]
    three = MatchScoring(win=3, draw=1, loss=0)
    text = write_trf(list("ABCD"), matches, chain=["MP"], boards=1, scoring=three, round_robin=False)
    assert _ranks(text) == [2, 3, 4, 1]
    assert [line[54:60] for line in text.splitlines() if line.startswith("310")] == [
        "   3.0",
        "   2.0",
        "   1.0",
        "   4.0",
    ]
    assert _ranks(write_trf(list("ABCD"), matches, chain=["MP"], boards=1, round_robin=False)) == [2, 2, 4, 1]


def test_a_pairing_allocated_bye_is_worth_the_match_points_given() -> None:
    # B - C drawn, A's bye: with 0 MP for it A is last; worth a draw (the default) all three tie.
    matches = [m(1, "B", "C", "1-1", boards=2), y(1, "A", boards=2)]
    text = write_trf(list("ABC"), matches, chain=["MP"], boards=2, round_robin=False, bye_mp=0)
    assert _ranks(text) == [3, 1, 1]
    assert [line for line in text.splitlines() if line.startswith(("310   1", "320"))] == [
        "310   1 A" + " " * 45 + "   0.0    1.0   3     1    2",
        "320  0.0  1.0 001",
    ]
    assert _ranks(write_trf(list("ABC"), matches, chain=["MP"], boards=2, round_robin=False)) == [1, 1, 1]


# Three teams, each with one bye (worth a draw: 1 MP, 1 game point): A - B 1.5-0.5, A - C 0.5-1.5,
# B - C 2-0 (two boards). Each team wins once: all on 3 MP; game points A 3, B 3.5, C 2.5.
THREE = [
    m(1, "A", "B", "1.5-0.5", boards=2),
    y(1, "C", boards=2),
    m(2, "A", "C", "0.5-1.5", boards=2),
    y(2, "B", boards=2),
    m(3, "B", "C", "2-0", boards=2),
    y(3, "A", boards=2),
]


def test_buchholz_of_a_round_robin_leaves_out_the_byes_and_of_a_swiss_counts_the_dummy() -> None:
    # Round robin (C.07 15.2): BH:GP = the two opponents' game points: A 6, B 5.5, C 6.5.
    assert _ranks(write_trf(list("ABC"), THREE, chain=["MP", "BH:GP"], boards=2)) == [2, 3, 1]
    # Swiss (C.07 16.4.2): the bye meets a dummy scoring the team's own score, capped at a draw a round
    # (1 game point of 2 boards, 3 rounds): A 6 + 3, B 5.5 + 3, C 6.5 + 2.5.
    swiss = write_trf(list("ABC"), THREE, chain=["MP", "BH:GP"], boards=2, round_robin=False)
    assert _ranks(swiss) == [1, 3, 1]


def test_the_given_standings_give_the_ranks() -> None:
    standings = compute_standings(list("ABC"), THREE, chain=["MP", "BH:GP"], boards=2)
    text = write_trf(list("ABC"), THREE, chain=["MP"], boards=2, round_robin=False, standings=standings)
    assert _ranks(text) == [2, 3, 1]


def test_a_requested_bye_in_the_first_round_scores_every_board_s_player() -> None:
    matches = [MatchRecord.requested_bye(1, "A", ByeRequest.FULL, 2), m(1, "B", "C", "1-1", boards=2)]
    lines = write_trf(list("ABC"), matches, chain=["MP"], boards=2, round_robin=False).splitlines()
    assert lines[9:11] == [_player(1, "A", 1, "1.0", 1, "0000 - F"), _player(2, "A", 2, "1.0", 1, "0000 - F")]


def test_a_pairing_allocated_bye_leaves_the_cells_of_the_neighbouring_teams_alone() -> None:
    # C's bye is written in C's two cells only: B's board 2 keeps its game, D (not paired) its Z.
    matches = [m(1, "A", "B", "2-0", boards=2), y(1, "C", boards=2)]
    lines = write_trf(list("ABCD"), matches, chain=["MP"], boards=2, round_robin=False).splitlines()
    assert lines[9:17] == [
        _player(1, "A", 1, "1.0", 1, "   3 w 1"),
        _player(2, "A", 2, "1.0", 1, "   4 b 1"),
        _player(3, "B", 1, "0.0", 3, "   1 b 0"),
        _player(4, "B", 2, "0.0", 3, "   2 w 0"),
        _player(5, "C", 1, "0.0", 2, "0000 -  "),
        _player(6, "C", 2, "0.0", 2, "0000 -  "),
        _player(7, "D", 1, "0.0", 3, "0000 - Z"),
        _player(8, "D", 2, "0.0", 3, "0000 - Z"),
    ]
