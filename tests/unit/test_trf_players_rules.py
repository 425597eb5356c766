"""The rating file's rules (docs/ratings.md, "The rating file"; FIDE TRF-2026 record 001, 013, 042, 052,
132, 240, 310, 320, 330), checked on the domain alone: every line below was written out by hand from the
layout in ``orchestrator/domain/trf/players.py``'s docstring (record 001: 5-8 number, 10 sex, 11-13 title,
15-47 name, 49-52 rating, 54-56 federation, 58-68 FIDE id, 70-79 birth date, 81-84 points, 86-89 rank,
then ten columns a round from 92: opponent 92-95, colour 97, result 99).
"""

from __future__ import annotations

from datetime import date

import pytest

from orchestrator.domain.scoring import ByeRequest, GameResult, MatchRecord, MatchScoring, no_show
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.tiebreaks import TieBreakError
from orchestrator.domain.trf.players import TrfPlayer, write_players_trf

ROSTERS = {
    "Alpha": [
        TrfPlayer("a1", "Anna", sex="Female", title="wgm", rating=2401, federation="abcd", fide_id=12,
                  birth_year=999),
        TrfPlayer("a2", "Bob", sex="x", title="XX", rating=0),
        TrfPlayer("a3", "C" * 40, sex="W"),
    ],
    "Beta": [TrfPlayer("b1", "Dan", sex="M"), TrfPlayer("b2", "Eve")],
    "Gamma": [TrfPlayer("c1", "Fay"), TrfPlayer("c2", "Gus")],
}  # fmt: skip
TEAMS = ["Alpha", "Beta", "Gamma"]

# Round 1: Alpha – Beta 1.5-0.5 (synthesised: board 1 won by Alpha with White, board 2 drawn), Gamma's
# pairing-allocated bye. Round 2: Gamma – Alpha, Alpha absent (a whole-match forfeit, one seat known),
# Beta's requested half-point bye. Round 3: Beta – Gamma 1-1 (board 1 to Beta, board 2 to Gamma, one
# player of each side unknown), Alpha's pairing-allocated bye. Gus (Gamma) never plays.
MATCHES = [
    MatchRecord(1, "Alpha", "Beta", 3, 1),
    MatchRecord(1, "Gamma", None, 2, 0),
    no_show(round=2, team_a="Gamma", team_b="Alpha", absent="Alpha", boards=2),
    MatchRecord.requested_bye(2, "Beta", ByeRequest.HALF, 2),
    MatchRecord(3, "Beta", "Gamma", 2, 2),
    MatchRecord(3, "Alpha", None, 2, 0),
]
SEATS = {
    (1, "Alpha"): [("a1", "b1"), ("a3", "b2")],
    (2, "Gamma"): [("c1", "a2")],
    (3, "Beta"): [("b1", None), ("zz", "c1")],
}
DAYS = [date(2026, 5, 1), None, date(2026, 5, 3), date(2026, 5, 9)]


def _file(**overrides: object) -> list[str]:
    arguments: dict[str, object] = {
        "rosters": ROSTERS,
        "seats": SEATS,
        "chain": ["MP"],
        "boards": 2,
        "round_robin": False,
        "round_dates": DAYS,
    }
    arguments.update(overrides)
    text = write_players_trf(TEAMS, MATCHES, **arguments)  # type: ignore[arg-type]
    assert text.endswith("\n")
    return text.splitlines()


def _player(lines: list[str], number: int) -> str:
    return next(line for line in lines if line.startswith(f"001 {number:4d}"))


def _round(line: str, rnd: int) -> str:
    return line[91 + 10 * (rnd - 1) : 99 + 10 * (rnd - 1)]


def test_the_tournament_records_come_in_trf_order_with_the_dates_after_the_name() -> None:
    lines = _file()
    # 042 and 052: the first and last known day of the rounds the file holds (the fourth day is of a
    # round not played yet); 132: each round's day at 92 + 10(r - 1), blank when unknown.
    day_132 = "132" + " " * 88 + "26/05/01" + " " * 12 + "26/05/03"
    assert lines[:13] == [
        "012 Pool",
        "042 2026/05/01",
        "052 2026/05/03",
        day_132,
        "062 7",  # every player of the team lists
        "072 1",  # the rated ones
        "082 3",
        "092 Team Swiss",
        "142 3",
        "192 CUSTOM_TEAM_SWISS_MP",
        "352 WB",
        "162  W 1.0    D 0.5    L 0.0",
        "362 TW 2.0   TD 1.0   TL 0.0",
    ]


def test_no_known_day_writes_no_date_record() -> None:
    lines = _file(round_dates=[None, None, None])
    assert lines[:3] == ["012 Pool", "062 7", "072 1"]
    assert not [line for line in _file(round_dates=()) if line[:3] in ("042", "052", "132")]


def test_record_001_writes_sex_title_rating_federation_id_and_birth_year_in_their_columns() -> None:
    lines = _file()
    # Sex "Female" is written w, the title is read in any case (wgm: wg), the federation is cut to three
    # upper-case letters, a birth year alone is written YYYY/00/00.
    anna = "001    1 w wg " + "Anna".ljust(33) + " 2401 ABC " + "12".rjust(11) + " 0999/00/00  1.0    2"
    assert _player(lines, 1)[:89] == anna
    # An unknown sex or title, an unrated player without federation, id or birth year: all blank.
    assert _player(lines, 2)[:89] == "001    2      " + "Bob".ljust(33) + " " * 34 + "0.0    2"
    # "W" is a woman too; a name is cut to the 33 columns 15-47.
    assert _player(lines, 3)[:48] == "001    3 w    " + "C" * 33 + " "
    assert _player(lines, 4)[:18] == "001    4 m    Dan "
    assert _player(lines, 5)[:18] == "001    5      Eve "


def test_players_are_numbered_team_by_team_and_listed_in_records_013_and_310() -> None:
    lines = _file()
    assert [line for line in lines if line.startswith("013")] == [
        "013 Alpha" + " " * 27 + "   1    2    3",
        "013 Beta" + " " * 28 + "   4    5",
        "013 Gamma" + " " * 27 + "   6    7",
    ]
    assert [line for line in lines if line.startswith("310")] == [
        "310   1 Alpha" + " " * 41 + "   3.0    2.5   2     1    2    3",
        "310   2 Beta" + " " * 42 + "   2.0    2.5   3     4    5",
        "310   3 Gamma" + " " * 41 + "   4.0    4.0   1     6    7",
    ]


def test_record_013_cuts_a_long_team_name_to_32_columns() -> None:
    long = "L" * 40
    text = write_players_trf(
        [long, "Beta"],
        [MatchRecord(1, long, "Beta", 1, 1)],
        rosters={long: [TrfPlayer("l1", "Lee")], "Beta": [TrfPlayer("b1", "Dan")]},
        seats={(1, long): [("l1", "b1")]},
        chain=["MP"],
        boards=1,
    )
    assert "013 " + "L" * 32 + "   1" in text.splitlines()


def test_each_seated_player_gets_the_board_s_opponent_colour_and_letter() -> None:
    lines = _file()
    # Round 1, synthesised from 1.5-0.5: board 1 Alpha (White) wins, board 2 (Alpha Black) drawn.
    assert _round(_player(lines, 1), 1) == "   4 w 1"
    assert _round(_player(lines, 4), 1) == "   1 b 0"
    assert _round(_player(lines, 3), 1) == "   5 b ="
    assert _round(_player(lines, 5), 1) == "   3 w ="
    # Round 2, Alpha absent: the board forfeits, Fay (White on board 1) wins, Bob loses.
    assert _round(_player(lines, 6), 2) == "   2 w +"
    assert _round(_player(lines, 2), 2) == "   6 b -"


def test_a_board_whose_other_player_is_unknown_gives_the_seated_one_no_opponent_and_the_letter() -> None:
    lines = _file()
    # Round 3, Beta – Gamma 1-1 synthesised: board 1 Beta (White) wins, board 2 Gamma (White) wins; the
    # other side of each board is not in the file (None, or a key of no roster).
    assert _round(_player(lines, 4), 3) == "0000 - 1"
    assert _round(_player(lines, 6), 3) == "0000 - 1"
    assert _player(lines, 6)[80:84] == " 2.0"  # its forfeit win of round 2 and this game


def test_a_player_who_never_plays_scores_nothing_and_gets_one_cell_a_round() -> None:
    gus = "001    7      " + "Gus".ljust(66) + " 0.0    1  " + "  ".join(["0000 -  "] * 3)
    assert _player(_file(), 7) == gus


def test_players_not_seated_byes_and_requested_byes_are_written_as_not_paired() -> None:
    lines = _file()
    assert _round(_player(lines, 2), 1) == "0000 -  "  # on the bench
    assert _round(_player(lines, 6), 1) == "0000 -  "  # Gamma's pairing-allocated bye
    assert _round(_player(lines, 4), 2) == "0000 -  "  # Beta's requested bye: no game, nothing rated
    assert _round(_player(lines, 1), 3) == "0000 -  "  # Alpha's bye
    assert _round(_player(lines, 6), 1) == "0000 -  "  # board 2 of the forfeit: no seat known
    assert _player(lines, 5)[80:89] == " 0.5    3"


def test_byes_and_forfeits_get_records_320_240_and_330() -> None:
    lines = _file()
    assert lines[-3:] == ["320  1.0  1.0 003 000 001", "240 H   2    2", "330 +-   2   3   1"]


def test_byes_and_forfeits_of_one_round_are_listed_in_team_number_order() -> None:
    teams = list("ABCD")
    matches = [
        MatchRecord.requested_bye(1, "D", ByeRequest.FULL, 1),
        MatchRecord.requested_bye(1, "C", ByeRequest.HALF, 1),
        no_show(round=2, team_a="C", team_b="D", absent=None, boards=1),
        no_show(round=2, team_a="A", team_b="B", absent="A", boards=1),
    ]
    rosters = {team: [TrfPlayer(team.lower(), team)] for team in teams}
    lines = write_players_trf(
        teams, matches, rosters=rosters, seats={}, chain=["MP"], boards=1, round_robin=False
    ).splitlines()
    assert lines[-4:] == ["240 H   1    3", "240 F   1    4", "330 -+   2   1   2", "330 --   2   3   4"]


def test_real_board_results_are_written_instead_of_synthesised_ones() -> None:
    games = {(1, "Alpha"): (GameResult.BLACK_WINS, GameResult.BLACK_WINS)}
    lines = _file(games=games)  # 1.5-0.5 by score, but Beta won board 1 and Alpha board 2
    assert _round(_player(lines, 1), 1) == "   4 w 0"
    assert _round(_player(lines, 3), 1) == "   5 b 1"
    assert _player(lines, 1)[80:84] == " 0.0" and _player(lines, 3)[80:84] == " 1.0"


def test_board_results_that_do_not_match_the_board_count_are_refused() -> None:
    with pytest.raises(TieBreakError, match=r"^round 1: Alpha needs 2 board results$"):
        _file(games={(1, "Alpha"): (GameResult.DRAW,)})


def test_given_standings_give_the_ranks() -> None:
    other = [MatchRecord(1, "Alpha", "Beta", 4, 0), MatchRecord(2, "Alpha", "Gamma", 4, 0)]
    other.append(MatchRecord(3, "Beta", "Gamma", 4, 0))
    standings = compute_standings(TEAMS, other, chain=["MP"], boards=2, round_robin=False)
    lines = _file(standings=standings)  # its ranks, not those of the file's own matches (2, 3, 1)
    assert [_player(lines, n)[85:89] for n in (1, 4, 6)] == ["   1", "   2", "   3"]


def test_a_player_name_with_a_line_break_is_refused() -> None:
    rosters = {**ROSTERS, "Beta": [TrfPlayer("b1", "Dan\n001 forged")]}
    with pytest.raises(TieBreakError, match=r"^the player name 'Dan\\n001 forged' contains a line break$"):
        _file(rosters=rosters)


def test_a_file_holds_at_most_9999_players() -> None:
    many = {"Alpha": [TrfPlayer(f"a{k}", f"P{k}") for k in range(9998)], "Beta": [TrfPlayer("b", "B")]}
    text = write_players_trf(["Alpha", "Beta"], [], rosters=many, seats={}, chain=["MP"], boards=1)
    assert "062 9999" in text.splitlines()
    many["Beta"] = [TrfPlayer("b", "B"), TrfPlayer("c", "C")]
    message = r"^a TRF-2026 file holds at most 9999 players; this one has 10000$"
    with pytest.raises(TieBreakError, match=message):
        write_players_trf(["Alpha", "Beta"], [], rosters=many, seats={}, chain=["MP"], boards=1)


def test_a_team_name_with_a_line_break_is_refused_as_in_every_trf_file() -> None:
    with pytest.raises(TieBreakError, match="line break"):
        write_players_trf(["A\nB"], [], rosters={}, seats={}, chain=["MP"], boards=1)


def test_a_rating_of_one_is_a_rating() -> None:
    rosters = {"Alpha": [TrfPlayer("a", "Ann", rating=1)], "Beta": [TrfPlayer("b", "Ben")]}
    lines = write_players_trf(
        ["Alpha", "Beta"], [], rosters=rosters, seats={}, chain=["MP"], boards=1
    ).splitlines()
    assert "072 1" in lines and _player(lines, 1)[48:52] == "   1"


def test_a_team_without_a_team_list_has_no_player_and_a_013_record_of_its_name_only() -> None:
    long = "L" * 40
    lines = write_players_trf(
        ["Alpha", long], [], rosters={"Alpha": [TrfPlayer("a", "Ann")]}, seats={}, chain=["MP"], boards=1
    ).splitlines()
    assert [line for line in lines if line.startswith(("001", "013"))] == [
        "001    1      Ann" + " " * 63 + " 0.0    1",
        "013 Alpha" + " " * 27 + "   1",
        "013 " + "L" * 32,
    ]


def test_a_pool_is_by_default_a_six_board_round_robin_named_pool() -> None:
    lines = write_players_trf(
        ["A", "B"], [MatchRecord(1, "A", "B", 6, 6)], rosters={}, seats={}, chain=["MP"]
    )
    assert lines.splitlines()[:6] == ["012 Pool", "062 0", "072 0", "082 2", "092 Team round robin", "142 1"]
    assert "352 WBWBWB" in lines.splitlines()


def test_a_tournament_name_with_a_line_break_is_refused() -> None:
    with pytest.raises(TieBreakError, match="tournament name"):
        write_players_trf(["A", "B"], [], rosters={}, seats={}, chain=["MP"], name="Cup\n001 forged")


def _ranks(teams: list[str], matches: list[MatchRecord], **options: object) -> list[int]:
    text = write_players_trf(teams, matches, rosters={}, seats={}, **options)  # type: ignore[arg-type]
    return [int(line[68:71]) for line in text.splitlines() if line.startswith("310")]


def _records(
    teams: list[str], matches: list[MatchRecord], tags: tuple[str, ...], **options: object
) -> list[str]:
    text = write_players_trf(teams, matches, rosters={}, seats={}, **options)  # type: ignore[arg-type]
    return [line for line in text.splitlines() if line.startswith(tags)]


def test_the_ranks_follow_the_drawing_of_lots() -> None:
    matches = [MatchRecord(1, "A", "B", 2, 2)]
    assert _ranks(["A", "B"], matches, chain=["MP", "LOT"], boards=2, lots={"A": 2, "B": 1}) == [2, 1]


def test_the_ranks_and_310_points_follow_the_match_scoring() -> None:
    # A: a win and a loss; B: two draws. 2-1-0 ties them on 2 MP; 3-1-0 puts A ahead (3 MP to 2).
    matches = [
        MatchRecord(1, "A", "C", 2, 0),
        MatchRecord(1, "B", "D", 1, 1),
        MatchRecord(2, "A", "D", 0, 2),
        MatchRecord(2, "B", "C", 1, 1),
    ]
    options: dict[str, object] = {"chain": ["MP"], "boards": 1, "round_robin": False}
    three = MatchScoring(win=3, draw=1, loss=0)
    assert _ranks(list("ABCD"), matches, scoring=three, **options) == [2, 3, 4, 1]
    assert [line[54:60] for line in _records(list("ABCD"), matches, ("310",), scoring=three, **options)] == [
        "   3.0",
        "   2.0",
        "   1.0",
        "   4.0",
    ]
    assert _ranks(list("ABCD"), matches, **options) == [2, 2, 4, 1]


def test_a_pairing_allocated_bye_is_worth_the_match_points_given() -> None:
    matches = [MatchRecord(1, "B", "C", 2, 2), MatchRecord(1, "A", None, 2, 0)]
    options: dict[str, object] = {"chain": ["MP"], "boards": 2, "round_robin": False}
    assert _ranks(list("ABC"), matches, bye_mp=0, **options) == [3, 1, 1]
    assert _records(list("ABC"), matches, ("310   1", "320"), bye_mp=0, **options) == [
        "310   1 A" + " " * 45 + "   0.0    1.0   3",
        "320  0.0  1.0 001",
    ]
    assert _ranks(list("ABC"), matches, **options) == [1, 1, 1]


# Three teams, each with one bye (a draw: 1 MP, 1 game point of 2 boards): A - B 1.5-0.5, A - C
# 0.5-1.5, B - C 2-0. All on 3 MP; game points A 3, B 3.5, C 2.5.
THREE = [
    MatchRecord(1, "A", "B", 3, 1),
    MatchRecord(1, "C", None, 2, 0),
    MatchRecord(2, "A", "C", 1, 3),
    MatchRecord(2, "B", None, 2, 0),
    MatchRecord(3, "B", "C", 4, 0),
    MatchRecord(3, "A", None, 2, 0),
]


def test_buchholz_of_a_round_robin_leaves_out_the_byes_and_of_a_swiss_counts_the_dummy() -> None:
    # C.07 15.2: BH:GP of a round robin, A 6, B 5.5, C 6.5; C.07 16.4.2: a Swiss adds the dummy of the
    # bye, the team's own score capped at a draw a round (1 game point, 3 rounds): 9, 8.5, 9.
    assert _ranks(list("ABC"), THREE, chain=["MP", "BH:GP"], boards=2) == [2, 3, 1]
    assert _ranks(list("ABC"), THREE, chain=["MP", "BH:GP"], boards=2, round_robin=False) == [1, 3, 1]
