"""What a simulated section ends with (docs/sections.md): its final lines for the combined classification
(Appendix 2.II) and its players' games for the board prizes (docs/board-prizes.md), worked out by hand from
one small Swiss stage."""

from __future__ import annotations

from fractions import Fraction

import pytest

from orchestrator.domain.combined import SectionPlace
from orchestrator.domain.performance import PlayedGame
from orchestrator.domain.scoring import GameResult, MatchRecord
from orchestrator.domain.section_results import board_players, section_places
from orchestrator.domain.standings import StandingRow, Standings
from orchestrator.domain.swiss.model import SwissTeam, start_state
from orchestrator.domain.swiss.pairing import Pairing, RoundPairing
from orchestrator.domain.swiss.simulate import SimulatedSwiss, SwissRound
from orchestrator.domain.teams import Category, Player, RosterEntry, Sex, Team

W, D, B = GameResult.WHITE_WINS, GameResult.DRAW, GameResult.BLACK_WINS


def team(name: str, ratings: tuple[int, int, int]) -> Team:
    """Boards 1 and 2, then a reserve; the roster lists the reserve first."""
    one, two, reserve = (
        Player(f"{name}{i}", f"{name.lower()}{i}", Sex.MALE, 1990, r)
        for i, r in zip("12r", ratings, strict=True)
    )
    roster = (
        RosterEntry(reserve, None, Category.OPEN),
        RosterEntry(two, 2, Category.OPEN),
        RosterEntry(one, 1, Category.OPEN),
    )
    return Team(name, f"F{name}", 1, roster)


TEAMS = {
    t.name: t
    for t in (team("A", (2400, 2300, 2200)), team("B", (2100, 2000, 1900)), team("C", (1800, 1700, 1600)))
}


def standings_row(rank: int, name: str, mp: int, gp: Fraction, sb: Fraction) -> StandingRow:
    return StandingRow(rank, name, {"MP": Fraction(mp), "LOT": Fraction(rank), "GP": gp, "SB": sb}, None)


def test_a_section_s_final_lines_are_place_match_points_and_the_tie_breaks_after_them() -> None:
    standings = Standings(
        ("MP", "LOT", "GP", "SB"),
        (
            standings_row(1, "A", 4, Fraction(3), Fraction(5, 2)),
            standings_row(1, "C", 4, Fraction(3), Fraction(5, 2)),
            standings_row(3, "B", 0, Fraction(1, 2), Fraction(0)),
        ),
    )
    assert section_places(standings, TEAMS) == (
        SectionPlace("FA", "A", 1, 4, (3, Fraction(5, 2))),
        SectionPlace("FC", "C", 1, 4, (3, Fraction(5, 2))),
        SectionPlace("FB", "B", 3, 0, (Fraction(1, 2), 0)),
    )


def swiss(*rounds: SwissRound) -> SimulatedSwiss:
    state = start_state([SwissTeam(name, (2000,)) for name in TEAMS], boards=2, rounds=len(rounds))
    return SimulatedSwiss("s", "Swiss", state, rounds)


def standings() -> Standings:
    return Standings(("MP",), ())


def test_each_player_s_games_are_read_from_the_boards_and_the_lineups_as_fielded() -> None:
    # Round 1, the main players: A - B. Board 1: A1 White beats B1; board 2: B2 White draws with A2.
    # C has the bye: no game. Round 2, lineups given: C - A with A's reserve on board 2 (A1 rests, A2
    # moves up). Board 1: C1 (White) loses to A2; board 2: C2 (Black) beats Ar.
    a, c = TEAMS["A"], TEAMS["C"]
    a1, a2, ar = (e.player for e in sorted(a.roster, key=lambda e: e.player.name))
    c1, c2 = c.main_players
    one = SwissRound(
        RoundPairing(1, (Pairing(1, "A", "B"),), bye="C"),
        (MatchRecord(1, "A", "B", 3, 1), MatchRecord(1, "C", None, 4, 0)),
        standings(),
        boards=((W, D),),
    )
    two = SwissRound(
        RoundPairing(2, (Pairing(1, "C", "A"),), bye="B"),
        (MatchRecord(2, "C", "A", 0, 4),),
        standings(),
        boards=((B, B),),
        lineups=(((c1, c2), (a2, ar)),),
    )
    players = {(p.team, p.key): p for p in board_players([swiss(one, two)], TEAMS)}
    assert sorted(players) == [
        ("A", "a1"),
        ("A", "a2"),
        ("A", "ar"),
        ("B", "b1"),
        ("B", "b2"),
        ("C", "c1"),
        ("C", "c2"),
    ]
    # The board number of the team list: main players their board, the reserve after the last one.
    assert {key: p.board for (_, key), p in players.items()} == {
        "a1": 1,
        "a2": 2,
        "ar": 3,
        "b1": 1,
        "b2": 2,
        "c1": 1,
        "c2": 2,
    }
    assert players["A", "a1"].games == (PlayedGame(2100, 2),)
    assert players["B", "b1"].games == (PlayedGame(2400, 0),)
    assert players["A", "a2"].games == (PlayedGame(2000, 1), PlayedGame(1800, 2))
    assert players["B", "b2"].games == (PlayedGame(2300, 1),)
    assert players["A", "ar"].games == (PlayedGame(1700, 0),)  # C2 had Black on board 2 and won
    assert players["C", "c1"].games == (PlayedGame(2300, 0),)
    assert players["C", "c2"].games == (PlayedGame(2200, 2),)
    assert (players["A", "ar"].name, players["A", "ar"].team) == ("Ar", "A")
    assert a1.name == "A1"


def test_a_round_whose_boards_or_lineups_do_not_match_its_pairings_is_refused() -> None:
    # A played round holds one board list and one pair of lineups per pairing, and one result per board:
    # a record that does not is refused rather than read short.
    c1, c2 = TEAMS["C"].main_players
    a1, a2 = TEAMS["A"].main_players
    pairing = RoundPairing(1, (Pairing(1, "C", "A"),))
    no_boards = SwissRound(pairing, (), standings(), boards=())
    with pytest.raises(ValueError):
        board_players([swiss(no_boards)], TEAMS)
    short_lineup = SwissRound(pairing, (), standings(), boards=((W, W),), lineups=(((c1,), (a1, a2)),))
    with pytest.raises(ValueError):
        board_players([swiss(short_lineup)], TEAMS)
    assert c2.name == "C2"
