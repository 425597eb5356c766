"""The TRF-2026 file of a Swiss stage for pairing its next round (``trf.swiss``; docs/swiss.md, records in
docs/trf.md), every line written out by hand from the layout: record 001 with the k-th highest rating on
board k, record 310, 320, 330, 299 (8-11 match points, 14-17 game points, 20-22 round or 999, 24-27
team), 250 (5-8, 10-13, 15-17, 19-21, 23-26, 28-31), 260 (5-7, 9-11, teams from 13 every five columns),
and the pairing written into a file (``add_round``) and read back (``unfinished_boards``)."""

from __future__ import annotations

from orchestrator.domain.scoring import MatchRecord, MatchScoring, no_show
from orchestrator.domain.standings import compute_standings
from orchestrator.domain.swiss.model import (
    Acceleration,
    Prohibition,
    RequestedBye,
    ScoreAdjustment,
    SwissState,
    SwissTeam,
)
from orchestrator.domain.swiss.pairing import FIDE_TEAM_SWISS, OLYMPIAD_2022, SCORE_GROUP_HALVES
from orchestrator.domain.tiebreaks import build_event
from orchestrator.domain.trf.swiss import (
    add_round,
    export_trf,
    ranked_history,
    system_code,
    unfinished_boards,
)
from tests.unit.builders import m, y

# Round 1: Alpha - Beta 1.5-0.5 (board 1 to Alpha with White, board 2 drawn), Gamma's bye, Delta not yet
# entered. Round 2: Beta - Alpha won by Beta by forfeit, Gamma - Delta 1-1. Gamma is absent in round 3.
STATE = SwissState(
    (
        SwissTeam("Alpha", ratings=(2500, 0, 2600)),
        SwissTeam("Beta", ratings=(2400,)),
        SwissTeam("Gamma", absent=frozenset({3})),
        SwissTeam("Delta", joined=2),
    ),
    boards=2,
    rounds=4,
    matches=(
        MatchRecord(1, "Alpha", "Beta", 3, 1),
        MatchRecord(1, "Gamma", None, 2, 0),
        no_show(round=2, team_a="Beta", team_b="Alpha", absent="Alpha", boards=2),
        MatchRecord(2, "Gamma", "Delta", 2, 2),
    ),
    initial_colour="B",
    name="Cup",
    adjustments=(ScoreAdjustment("Beta", 1, 1, 1), ScoreAdjustment("Delta", 2, 0, -1, pairing=False)),
    accelerations=(Acceleration(1, 2, 1, 2, 1, 2),),
    prohibitions=(Prohibition(3, 4, frozenset({"Delta", "Alpha"})),),
)


def _player(number: int, name: str, rating: str, points: str, rank: int, *cells: str) -> str:
    return (
        f"001 {number:4d}      "
        + name.ljust(34)
        + rating.ljust(32)
        + f"{points:>4} {rank:4d}  "
        + "  ".join(cells)
    )


def test_the_next_round_s_file_holds_every_record_of_the_stage() -> None:
    assert export_trf(STATE).splitlines() == [
        "012 Cup",
        "062 8",
        "082 4",
        "092 Team Swiss",
        "142 4",
        "152 B",
        "192 FIDE_TEAM_TYPEA_MP_GP",
        "352 WB",
        "162  W 1.0    D 0.5    L 0.0",
        "362 TW 2.0   TD 1.0   TL 0.0",
        # The highest rating on board 1; ranks by match points, then game points, then number.
        _player(1, "Alpha, Board 1", "2600", "1.0", 3, "   3 w 1", "   3 b -"),
        _player(2, "Alpha, Board 2", "2500", "0.5", 3, "   4 b =", "   4 w -"),
        _player(3, "Beta, Board 1", "2400", "1.0", 1, "   1 b 0", "   1 w +"),
        _player(4, "Beta, Board 2", "", "1.5", 1, "   2 w =", "   2 b +"),
        # Round 3 is the round to pair: Gamma, absent, is marked not paired; the others are left blank.
        _player(5, "Gamma, Board 1", "", "1.0", 2, "0000 -  ", "   7 w 1", "0000 - Z"),
        _player(6, "Gamma, Board 2", "", "0.0", 2, "0000 -  ", "   8 b 0", "0000 - Z"),
        _player(7, "Delta, Board 1", "", "0.0", 4, "0000 - Z", "   5 b 0"),
        _player(8, "Delta, Board 2", "", "1.0", 4, "0000 - Z", "   6 w 1"),
        "310   1 Alpha" + " " * 41 + "   2.0    1.5   3     1    2",
        "310   2 Beta" + " " * 42 + "   3.0    3.0   1     3    4",
        "310   3 Gamma" + " " * 41 + "   2.0    2.0   2     5    6",
        "310   4 Delta" + " " * 41 + "   1.0    0.5   4     7    8",
        "320  1.0  1.0 003",
        "330 +-   2   2   1",
        "299     1.0   0.5    1    2",
        "299     0.0  -0.5  999    4",
        "250    1  1.0   1   2    1    2",
        "260   3   4    1    4",
    ]


def test_a_later_round_to_pair_leaves_the_rounds_between_not_paired() -> None:
    lines = [line for line in export_trf(STATE, round_no=4).splitlines() if line.startswith("001")]
    assert [line[111:119] for line in lines] == ["0000 - Z"] * 8  # round 3: no match
    assert all(len(line) == 119 for line in lines)  # round 4, to pair: blank for every team available
    beyond = [line for line in export_trf(STATE, round_no=9).splitlines() if line.startswith("001")]
    assert all(len(line) == 129 for line in beyond)  # the stage has four rounds: round 4 is not paired


def test_a_late_entry_is_not_paired_in_the_round_to_pair_before_it_joins() -> None:
    state = SwissState((SwissTeam("A"), SwissTeam("B"), SwissTeam("C", joined=2)), boards=1, rounds=3)
    lines = [line for line in export_trf(state).splitlines() if line.startswith("001")]
    assert [line[91:] for line in lines] == ["", "", "0000 - Z"]


def test_record_320_lists_the_bye_team_of_every_round_up_to_the_last_bye() -> None:
    state = SwissState(
        tuple(SwissTeam(name) for name in "ABC"),
        boards=1,
        rounds=4,
        matches=(
            MatchRecord(1, "A", "B", 2, 0),
            MatchRecord(1, "C", None, 1, 0),
            MatchRecord(2, "A", "C", 2, 0),
            MatchRecord(3, "B", "C", 2, 0),
            MatchRecord(3, "A", None, 1, 0),
        ),
    )
    assert "320  1.0  0.5 003 000 001" in export_trf(state).splitlines()


def test_record_192_names_the_system_the_primary_score_and_the_colour_model() -> None:
    def code(pairing: str = FIDE_TEAM_SWISS, primary: str = "mp", colour_model: str = "A") -> str:
        teams = (SwissTeam("A"), SwissTeam("B"))
        state = SwissState(
            teams, boards=1, rounds=1, pairing=pairing, primary=primary, colour_model=colour_model
        )
        return system_code(state)

    assert code() == "FIDE_TEAM_TYPEA_MP_GP"
    assert code(pairing=FIDE_TEAM_SWISS, primary="gp") == "FIDE_TEAM_TYPEA_GP_MP"
    assert code(pairing=FIDE_TEAM_SWISS, colour_model="none") == "FIDE_TEAM_MP_GP"
    assert code(pairing=FIDE_TEAM_SWISS, primary="gp", colour_model="none") == "FIDE_TEAM_GP_MP"
    assert code(pairing=OLYMPIAD_2022) == "CUSTOM_TEAM_OLYMPIAD_2022"
    assert code(pairing=SCORE_GROUP_HALVES) == "CUSTOM_TEAM_SCORE_GROUP_HALVES"
    assert code(pairing=OLYMPIAD_2022, primary="gp") == "CUSTOM_TEAM_OLYMPIAD_2022"


THREE = SwissState((SwissTeam("A"), SwissTeam("B"), SwissTeam("C")), boards=3, rounds=2, name="X")


def _cells(text: str, rnd: int) -> list[str]:
    column = 91 + 10 * (rnd - 1)
    return [line[column:] for line in text.splitlines() if line.startswith("001")]


def test_a_pairing_is_written_into_the_file_with_the_colours_of_record_352() -> None:
    text = add_round(export_trf(THREE), round_no=1, pairs=[(1, 3), (2, 0)])
    assert _cells(text, 1) == [
        "   7 w",
        "   8 b",
        "   9 w",
        "0000 -",
        "0000 -",
        "0000 -",
        "   1 b",
        "   2 w",
        "   3 b",
    ]
    # No record 320 yet: one is written, worth a drawn match and half the boards.
    assert text.splitlines()[-1] == "320  1.0  1.5 002"
    # Read back: the boards of round 1 have no result yet, White first.
    assert unfinished_boards(text, before=2) == [
        (1, "A, Board 1", "C, Board 1"),
        (1, "A, Board 3", "C, Board 3"),
        (1, "C, Board 2", "A, Board 2"),
    ]
    assert unfinished_boards(text, before=1) == []


def test_without_record_352_the_first_named_team_has_white_on_the_odd_boards() -> None:
    lines = [line for line in export_trf(THREE).splitlines() if not line.startswith("352")]
    text = add_round("\n".join(lines) + "\n", round_no=1, pairs=[(3, 1), (2, 0)])
    assert _cells(text, 1) == [
        "   7 b",
        "   8 w",
        "   9 b",
        "0000 -",
        "0000 -",
        "0000 -",
        "   1 w",
        "   2 b",
        "   3 w",
    ]


def test_the_bye_of_a_later_round_goes_into_the_existing_record_320() -> None:
    first = add_round(export_trf(THREE), round_no=1, pairs=[(1, 3), (2, 0)])
    second = add_round(first, round_no=2, pairs=[(1, 2), (3, 0)])
    assert [line for line in second.splitlines() if line.startswith("320")] == ["320  1.0  1.5 002 003"]
    assert _cells(second, 2)[:3] == ["   4 w", "   5 b", "   6 w"]


def _hand_file(colours: str = "WB") -> str:
    """A file written by another program: team numbers of three digits, player numbers of four."""

    def player(pid: int, name: str) -> str:
        return f"001 {pid:4d}      {name}"

    def team(number: int, name: str, players: list[int]) -> str:
        return f"310 {number:3d} {name}".ljust(73) + " ".join(f"{pid:4d}" for pid in players)

    lines = [
        f"352 {colours}",
        player(1001, "Ann"),
        player(1002, "Bob"),
        player(1003, "Cid"),
        player(1004, "Dan"),
    ]
    lines += [team(123, "X", [1001, 1002]), team(124, "Y", [1003, 1004])]
    return "\n".join(lines) + "\n"


def test_a_pairing_is_written_for_team_and_player_numbers_of_every_width() -> None:
    text = add_round(_hand_file(), round_no=1, pairs=[(123, 124)])
    lines = text.splitlines()
    assert lines[1:5] == [
        "001 1001      Ann".ljust(91) + "1003 w",
        "001 1002      Bob".ljust(91) + "1004 b",
        "001 1003      Cid".ljust(91) + "1001 b",
        "001 1004      Dan".ljust(91) + "1002 w",
    ]
    assert lines[5:] == _hand_file().splitlines()[5:]  # the 310 records are left as they are
    assert unfinished_boards(text, before=2) == [(1, "Ann", "Cid"), (1, "Dan", "Bob")]


def test_the_colours_of_record_352_are_read_from_the_file() -> None:
    text = add_round(_hand_file("BW"), round_no=1, pairs=[(123, 124)])
    assert [line[91:] for line in text.splitlines()[1:5]] == ["1003 b", "1004 w", "1001 w", "1002 b"]


def test_a_round_paired_again_replaces_its_cells_and_its_bye() -> None:
    first = add_round(export_trf(THREE), round_no=1, pairs=[(1, 3), (2, 0)])
    again = add_round(first, round_no=1, pairs=[(2, 0), (3, 1)])  # the bye listed first
    assert _cells(again, 1) == [
        "   7 b",
        "   8 w",
        "   9 b",
        "0000 -",
        "0000 -",
        "0000 -",
        "   1 w",
        "   2 b",
        "   3 w",
    ]
    assert [line for line in again.splitlines() if line.startswith("320")] == ["320  1.0  1.5 002"]
    second = add_round(first, round_no=2, pairs=[(1, 2), (3, 0)])
    third = add_round(second, round_no=2, pairs=[(3, 2), (1, 0)])
    assert [line for line in third.splitlines() if line.startswith("320")] == ["320  1.0  1.5 002 001"]
    assert unfinished_boards(third, before=3)[-1] == (2, "C, Board 3", "B, Board 3")
    assert (1, "C, Board 1", "A, Board 1") in unfinished_boards(again, before=2)


def test_a_first_bye_in_a_later_round_gets_a_new_record_320_at_that_round_s_column() -> None:
    four = SwissState(tuple(SwissTeam(name) for name in "ABC"), boards=1, rounds=3)
    state = SwissState(four.teams, boards=1, rounds=3, matches=(MatchRecord(1, "A", "B", 1, 1),))
    text = add_round(export_trf(state), round_no=2, pairs=[(3, 1), (2, 0)])
    assert text.splitlines()[-1] == "320  1.0  0.5     002"


def test_a_round_without_a_bye_writes_no_record_320() -> None:
    state = SwissState(tuple(SwissTeam(name) for name in "ABCD"), boards=1, rounds=3)
    text = add_round(export_trf(state), round_no=1, pairs=[(1, 3), (2, 4)])
    assert not [line for line in text.splitlines() if line.startswith("320")]


def test_a_team_with_fewer_players_listed_leaves_the_other_side_s_last_board_unpaired() -> None:
    lines = _hand_file().splitlines()
    lines[-1] = "310 124 Y".ljust(73) + "1003"
    text = add_round("\n".join(lines) + "\n", round_no=1, pairs=[(123, 124), (125, 0)])
    assert [line[91:] for line in text.splitlines()[1:5]] == ["1003 w", "", "1001 b", ""]
    assert text.splitlines()[-1] == "320  1.0  1.0 125"  # a team the file does not list: its bye only


def test_an_unfinished_board_names_a_player_missing_from_the_file_by_number() -> None:
    text = (
        _hand_file()
        + "001    1      Eve".ljust(91)
        + "  42 w  \n"
        + "001   43      Fay".ljust(91)
        + "   1 w  \n"
    )
    assert unfinished_boards(text, before=2) == [(1, "Eve", "42"), (1, "Fay", "Eve")]


def test_pairs_naming_a_team_the_file_does_not_list_write_nothing() -> None:
    assert add_round(_hand_file(), round_no=1, pairs=[(126, 123), (124, 127)]) == _hand_file()


def test_long_team_names_are_cut_to_their_columns() -> None:
    long = "L" * 40
    lines = export_trf(SwissState((SwissTeam(long), SwissTeam("B")), boards=10, rounds=1)).splitlines()
    assert lines[19][14:48] == "L" * 24 + ", Board 10"[:9] + " "
    assert lines[30].startswith("310   1 " + "L" * 32 + " ")


def test_a_rating_of_0_is_no_rating_and_a_rating_of_1_is_one() -> None:
    state = SwissState((SwissTeam("A", ratings=(0, 1)), SwissTeam("B")), boards=2, rounds=1)
    players = [line for line in export_trf(state).splitlines() if line.startswith("001")]
    assert [line[48:52] for line in players[:2]] == ["   1", "    "]


def test_an_earlier_round_to_pair_is_left_blank_and_the_later_rounds_kept() -> None:
    lines = [line for line in export_trf(STATE, round_no=1).splitlines() if line.startswith("001")]
    assert [line[91:] for line in lines[:2]] == [" " * 10 + "   3 b -", " " * 10 + "   4 w -"]
    assert lines[6][91:] == "0000 - Z     5 b 0"  # Delta joined in round 2: not paired in round 1


def test_the_ranks_are_by_match_points_before_game_points_and_requested_byes_get_record_240() -> None:
    state = SwissState(
        (
            SwissTeam("A"),
            SwissTeam("B"),
            SwissTeam("C", absent=frozenset({2})),
            SwissTeam("D", absent=frozenset({2})),
        ),
        boards=1,
        rounds=3,
        matches=(
            MatchRecord(1, "A", "B", 2, 0),
            MatchRecord(1, "C", "D", 1, 1),
            MatchRecord(2, "A", "B", 1, 1),
        ),
        adjustments=(ScoreAdjustment("B", 1, 0, 6),),  # B: 1 MP but the most game points, 3.5
        requested_byes=(RequestedBye("D", 2, True), RequestedBye("C", 2, False)),
    )
    lines = export_trf(state).splitlines()
    # A and D (a full-point bye) on 3 MP and 1.5 game points, C (a half-point bye) 2 MP, B 1 MP.
    assert [line[68:71] for line in lines if line.startswith("310")] == ["  1", "  4", "  3", "  2"]
    assert [line for line in lines if line.startswith("240")] == ["240 F   2    4", "240 H   2    3"]


def test_record_192_of_a_system_we_do_not_name_is_fide_s_team_swiss() -> None:
    state = SwissState((SwissTeam("A"), SwissTeam("B")), boards=1, rounds=1, pairing="another-system")
    assert system_code(state) == "FIDE_TEAM_TYPEA_MP_GP"


def test_ranked_history_is_the_standings_and_the_history_of_every_argument_with_the_adjustments() -> None:
    """``ranked_history`` (what the TRF team and player writers read): the standings and the rounds'
    history built with each argument it is given, the bonus and penalty points summed per team."""
    teams = "ABCDE"
    matches = [
        m(1, "A", "B", "3-1"),
        m(1, "C", "D", "2-2"),
        y(1, "E"),
        m(2, "A", "C", "2-2"),
        m(2, "B", "E", "1-3"),
    ]
    matches.append(y(2, "D"))
    given = {
        "chain": ["MP", "BH:MP", "LOT"],
        "boards": 4,
        "scoring": MatchScoring(3, 1, 0),
        "lots": {"A": 5, "B": 4, "C": 3, "D": 2, "E": 1},
        "round_robin": False,
        "bye_mp": 3,
    }
    adjustments = [ScoreAdjustment("C", 1, -1, -2), ScoreAdjustment("C", 2, 3, 1, pairing=False)]
    standings, history = ranked_history(teams, matches, adjustments=adjustments, **given)
    totals = {"C": (2, -1)}
    assert standings == compute_standings(teams, matches, adjustments=totals, **given)
    chain, lots = given.pop("chain"), given.pop("lots")
    assert history == build_event(teams, matches, adjustments=totals, **given)
    assert standings != compute_standings(teams, matches, chain=chain, lots=lots, **given)  # they count
    kept, _ = ranked_history(teams, matches, chain=chain, boards=4, standings=standings)
    assert kept is standings
