"""The TRF-2026 team layout read column by column (docs/trf.md, "What we read"): every field is read from
its own columns only, a character in the blank columns around it is no part of it (docs/swiss.md: FIDE's
reader checks a record's alignment, ours reads the fields the pairing uses), and a field that is not a
number is named with the text of its columns. Also the records whose values only a valid file shows: a
whole-match forfeit (record 330) and the exact line of each repeated record."""

from __future__ import annotations

from dataclasses import replace

import pytest

from orchestrator.domain.scoring import MatchForfeit, MatchRecord, no_show
from orchestrator.domain.swiss import SwissTeam, start_state
from orchestrator.domain.trf.swiss import export_trf
from orchestrator.domain.trf.swiss_read import TrfInvalid, TrfNotImplemented, TrfNotReadable, read_team_trf
from tests.support.trf_files import fix_points, fixture, with_reserve


def plain() -> str:
    """The 802 file without its 802 records: six teams, four boards, three rounds of five."""
    lines = fixture("informative-802.trf").splitlines()
    return "".join(line + "\n" for line in lines if line[:3] not in ("802", "###"))


def blank_totals(text: str) -> str:
    """The file with the totals of record 310 (columns 55-67) left blank, as record 299 changes them."""
    return "".join(fix_points(line) + "\n" for line in text.splitlines())


def forfeit_file() -> str:
    """Four teams, two boards: in round 1 A beat C 2-1 (3-1 in half-points), B did not come to play D
    (record 330 ``+-``, D the white team); B's and D's players name no opponent (``0000``), so only record
    330 says whom D met and which team was named first."""
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCD")]
    state = start_state(teams, boards=2, rounds=4)
    matches = (MatchRecord(1, "A", "C", 3, 1), no_show(round=1, team_a="D", team_b="B", absent="B", boards=2))
    lines = export_trf(replace(state, matches=matches)).splitlines()
    for index, line in enumerate(lines):
        if line.startswith("001 ") and int(line[4:8]) in (3, 4, 7, 8):
            lines[index] = line[:91] + "0000 - " + line[98:]
    return "".join(line + "\n" for line in lines)


def bye_file() -> str:
    """Five teams, two boards, round 1 played with team 3 on the pairing-allocated bye (record 320)."""
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCDE")]
    state = start_state(teams, boards=2, rounds=4)
    matches = (
        MatchRecord(1, "A", "D", 3, 1),
        MatchRecord(1, "B", "E", 2, 2),
        MatchRecord(1, "C", None, 2, 0),
    )
    return blank_totals(export_trf(replace(state, matches=matches)))


def old_teams_file() -> str:
    """The plain file with record 013 (TRF16: name 5-36, players from 37) in place of record 310."""
    out = []
    for line in plain().splitlines():
        if line.startswith("310 "):
            players = "".join(f"{int(pid):4d} " for pid in line[73:].split())
            line = "013 " + f"{line[8:40].strip():32}" + players.rstrip()
        out.append(line)
    return "".join(line + "\n" for line in out)


def outcome(text: str) -> tuple[object, ...]:
    """What the reader makes of a file: the state and the round to pair, or the refusal's problems."""
    try:
        state, next_round = read_team_trf(text)
    except TrfNotReadable as refused:
        return (type(refused).__name__, refused.problems)
    return ("read", state, next_round)


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def put_char(text: str, number: int, column: int, char: str) -> str:
    """The file with ``char`` at ``column`` (1-based) of line ``number``."""
    lines = text.splitlines()
    index = number - 1
    line = lines[index].ljust(column)
    lines[index] = line[: column - 1] + char + line[column:]
    return "".join(line + "\n" for line in lines)


# (file, the line's first characters, fields (first and last column), the blank columns between them)
LAYOUT = {
    "001": (
        plain,
        "001    7",
        [(5, 8), (49, 52), (81, 84), (86, 89), (92, 95), (102, 105), (112, 115)],
        [4, 9, 48, 53, 57, 69, 80, 85, 90, 91, 96, 98, 100, 101, 106, 108, 110, 111, 116, 118, 120],
    ),
    "310": (
        plain,
        "310   2",
        [(5, 7), (55, 60), (62, 67), (69, 71), (74, 77), (79, 82), (84, 87), (89, 92)],
        [4, 8, 41, 54, 61, 68, 72, 73, 78, 83, 88, 93],
    ),
    "320": (bye_file, "320", [(5, 8), (10, 13), (15, 17)], [4, 9, 14, 18, 22]),
    "330": (forfeit_file, "330", [(8, 10), (12, 14), (16, 18)], [4, 7, 11, 15, 19]),
    "300": (
        lambda: with_reserve(True),
        "300",
        [(5, 7), (9, 11), (13, 15), (17, 20), (22, 25), (27, 30), (32, 35)],
        [4, 8, 12, 16, 21, 26, 31, 36],
    ),
    "299": (
        lambda: blank_totals(plain()) + "299    -1.0  -1.5    2    4    5\n",
        "299",
        [(8, 11), (14, 17), (20, 22), (24, 27), (29, 32)],
        [4, 6, 7, 12, 13, 18, 19, 23, 28, 33],
    ),
    "802": (
        lambda: fixture("informative-802.trf"),
        "802   3",
        [(5, 7), (15, 20), (22, 27)],
        [4, 8, 14, 21, 28],
    ),
    "013": (old_teams_file, "013 Brazil", [(37, 40), (42, 45), (47, 50), (52, 55)], [41, 46, 51, 56]),
    "240": (lambda: plain() + "240 Z   4    3    5\n", "240", [(7, 9)], [4, 6, 10, 16]),
}
SEPARATORS = [(tag, column) for tag, (_, _, _, blanks) in LAYOUT.items() for column in blanks]
FIELDS = [(tag, field) for tag, (_, _, fields, _) in LAYOUT.items() for field in fields]


def test_each_layout_file_is_read() -> None:
    for tag, (make, start, _, _) in LAYOUT.items():
        assert outcome(make())[0] == "read", tag
        assert line_of(make(), start)


@pytest.mark.parametrize(("tag", "column"), SEPARATORS)
def test_a_character_in_a_blank_column_between_fields_is_not_read(tag: str, column: int) -> None:
    make, start, _, _ = LAYOUT[tag]
    text = make()
    number = line_of(text, start)
    assert text.splitlines()[number - 1].ljust(column)[column - 1] == " ", "a blank column of the layout"
    assert outcome(put_char(text, number, column, "x")) == outcome(text)


@pytest.mark.parametrize(("tag", "field"), FIELDS)
def test_a_number_may_sit_anywhere_in_its_columns(tag: str, field: tuple[int, int]) -> None:
    make, start, _, _ = LAYOUT[tag]
    first, last = field
    text = make()
    number = line_of(text, start)
    lines = text.splitlines()
    value = lines[number - 1].ljust(last)[first - 1 : last].strip()
    assert value, "a field the file fills"
    line = lines[number - 1]
    lines[number - 1] = line[: first - 1] + value.ljust(last - first + 1) + line[last:]
    assert outcome("".join(line.rstrip() + "\n" for line in lines)) == outcome(text)


@pytest.mark.parametrize(("tag", "field"), FIELDS)
def test_a_field_that_is_not_a_number_is_named_with_every_column_of_it(
    tag: str, field: tuple[int, int]
) -> None:
    make, start, _, _ = LAYOUT[tag]
    first, last = field
    number = line_of(make(), start)
    for column in (first, last):
        text = put_char(make(), number, column, "x")
        shown = repr(text.splitlines()[number - 1][first - 1 : last].strip())
        with pytest.raises(TrfInvalid) as caught:
            read_team_trf(text)
        mine = [p.reason for p in caught.value.problems if p.line == number]
        assert any(f"{shown} is not a number" in reason for reason in mine), (column, mine)


def test_a_whole_match_forfeit_of_record_330_is_read_for_its_round_and_teams() -> None:
    state, next_round = read_team_trf(forfeit_file())
    assert next_round == 2
    assert MatchRecord(1, "D", "B", 4, 0, MatchForfeit.A_WINS) in state.matches
    assert not state.have_played("B", "D")
    assert state.points("D") == (2, 4) and state.points("B") == (0, 0)


def test_record_240_reads_its_teams_from_column_11_whatever_the_spacing() -> None:
    state, _ = read_team_trf(plain() + "240 Z   4 3\t5\n")
    assert state.team("Chile").absent == frozenset({4}) and state.team("Estonia").absent == frozenset({4})
    assert not state.team("Armenia").absent and not state.team("Denmark").absent


def test_a_line_up_without_its_opponent_is_read_from_the_boards() -> None:
    """Record 300: the opponent (columns 13-15) may be left blank; the boards' opponents say whom the
    team met."""
    with_opponent = with_reserve(True)
    without = with_opponent.replace("300   1   1   4    1", "300   1   1        1")
    assert outcome(without) == outcome(with_opponent) == outcome(with_reserve(False))
    assert outcome(with_opponent)[0] == "read"


def test_each_repeated_or_misplaced_record_is_named_with_its_line() -> None:
    text = bye_file()
    count = len(text.splitlines()) + 1
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text + "320  1.0  1.0 002\n")
    assert [str(p) for p in caught.value.problems] == [
        f"line {count}: record 320 is already on line {line_of(text, '320')}"
    ]


def test_a_repeated_header_record_names_the_line_of_the_first() -> None:
    text = plain()
    count = len(text.splitlines()) + 1
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text + "152 B\n")
    assert [str(p) for p in caught.value.problems] == [f"line {count}: record 152 is already on line 6"]


def test_records_062_and_082_are_optional() -> None:
    text = "".join(line + "\n" for line in plain().splitlines() if line[:3] not in ("062", "082"))
    assert outcome(text)[1:] == outcome(plain())[1:]


def test_a_record_number_that_is_not_three_capital_letters_or_a_known_number_is_refused() -> None:
    # Three capital letters are a national rating record (information); anything else is no record.
    text = plain()
    count = len(text.splitlines()) + 1
    assert outcome(text + "ENG national rating\n") == outcome(text)
    for tag in ("A1 ", "XY", "Ab1", "EnG"):
        with pytest.raises(TrfInvalid) as caught:
            read_team_trf(text + tag + " something\n")
        assert [str(p) for p in caught.value.problems] == [
            f"line {count}: {(tag + ' ')[:3]!r} is not a record of the TRF-2026 team layout"
        ]


def test_record_082_is_checked_without_record_062() -> None:
    text = "".join(line + "\n" for line in plain().splitlines() if not line.startswith("062"))
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text.replace("082 6", "082 7"))
    assert [str(p) for p in caught.value.problems] == ["line 2: record 082 says 7 teams; the file has 6"]


def test_record_162_may_give_some_of_the_results_only() -> None:
    """Record 162 pairs each result letter with its points; a letter left out keeps FIDE's points."""
    text = plain()
    two = text.replace("162  W 1.0    D 0.5    L 0.0", "162  W 1.0    D 0.5")
    assert outcome(two)[1:] == outcome(text)[1:]
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text.replace("162  W 1.0    D 0.5    L 0.0", "162  W 1.0    D"))
    assert [str(p) for p in caught.value.problems] == ["line 9: record 162: 'D' has no points"]


def test_record_362_defaults_to_two_one_nothing_for_each_match_result_it_does_not_give() -> None:
    """Record 362 (match points of a team win, draw, loss): without it, or without one of its results,
    FIDE's 2, 1 and 0 (C.07 11.1.1)."""
    text = blank_totals(plain())
    without = "".join(line + "\n" for line in text.splitlines() if not line.startswith("362"))
    for changed in (without, text.replace("TW 2.0   TD 1.0   TL 0.0", "TD 1.0   TL 0.0")):
        state, _ = read_team_trf(changed)
        assert (state.scoring.win, state.scoring.draw, state.scoring.loss) == (2, 1, 0)
    state, _ = read_team_trf(text.replace("TW 2.0   TD 1.0   TL 0.0", "TW 3.0"))
    assert (state.scoring.win, state.scoring.draw, state.scoring.loss) == (3, 1, 0)


def test_header_records_left_out_take_their_defaults_and_edge_values_are_read() -> None:
    """Without record 152 the first board's colour is White, without 352 the boards alternate from
    White; 152 ``B`` gives Black; a one-round event and match points where a win is worth a draw, or a
    draw a loss, are read (record 362 only refuses a loss above a draw or a draw above a win)."""
    text = blank_totals(plain())

    def without(tag: str) -> str:
        return "".join(line + "\n" for line in text.splitlines() if not line.startswith(tag))

    base = outcome(text)
    assert outcome(without("152")) == base and outcome(without("352")) == base
    assert read_team_trf(text.replace("152 W", "152 B"))[0].initial_colour == "B"
    assert read_team_trf(text.replace("152 W", "152 b"))[0].initial_colour == "B"
    for points in ("TW 2.0   TD 2.0   TL 0.0", "TW 2.0   TD 0.0   TL 0.0"):
        state, _ = read_team_trf(text.replace("TW 2.0   TD 1.0   TL 0.0", points))
        assert [state.scoring.win, state.scoring.draw, state.scoring.loss] == [int(p) for p in points[3::9]]
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("AB")]
    state, next_round = read_team_trf(export_trf(start_state(teams, boards=2, rounds=1)))
    assert (state.rounds, next_round) == (1, 1)


def test_each_match_is_read_with_the_team_that_had_white_on_board_one_first() -> None:
    """Record 001 cells: the team whose first board had White is named first (C.04.6 art. 4, the
    first-named team), with both teams' game points in half-points (Estonia's board 1 had White against
    Brazil in round 1 and against Armenia in round 3)."""
    matches = read_team_trf(plain())[0].matches
    assert [(m.round, m.team_a, m.team_b, m.gp_a, m.gp_b, m.forfeit) for m in matches] == [
        (1, "Armenia", "Denmark", 5, 3, MatchForfeit.NONE),
        (1, "Estonia", "Brazil", 4, 4, MatchForfeit.NONE),
        (1, "Chile", "Finland", 8, 0, MatchForfeit.NONE),
        (2, "Armenia", "Chile", 3, 5, MatchForfeit.NONE),
        (2, "Brazil", "Finland", 6, 2, MatchForfeit.NONE),
        (2, "Denmark", "Estonia", 7, 1, MatchForfeit.NONE),
        (3, "Estonia", "Armenia", 5, 3, MatchForfeit.NONE),
        (3, "Chile", "Brazil", 4, 4, MatchForfeit.NONE),
        (3, "Finland", "Denmark", 2, 6, MatchForfeit.NONE),
    ]


@pytest.mark.parametrize(("first", "second"), [("B", "D"), ("D", "B")])
@pytest.mark.parametrize("absent", ["first", "second", "both"])
def test_a_match_whose_every_board_is_forfeited_without_record_330_is_won_by_the_side_with_points(
    first: str, second: str, absent: str
) -> None:
    """docs/trf.md, record 001: a match whose every board is forfeited (``+``/``-``), without record 330,
    is a forfeited match won by the side with the points, or a double forfeit (C.04.6 art. 1.6.1)."""
    teams = [SwissTeam(name, (2500 - n,)) for n, name in enumerate("ABCD")]
    state = start_state(teams, boards=2, rounds=4)
    who = {"first": first, "second": second, "both": None}[absent]
    forfeit = no_show(round=1, team_a=first, team_b=second, absent=who, boards=2)
    text = export_trf(replace(state, matches=(MatchRecord(1, "A", "C", 3, 1), forfeit)))
    text = "".join(line + "\n" for line in text.splitlines() if not line.startswith("330"))
    assert forfeit in read_team_trf(text)[0].matches


def test_a_forfeit_of_record_330_on_a_match_whose_boards_were_played_is_listed() -> None:
    text = forfeit_file()
    played = export_trf(
        replace(
            start_state([SwissTeam(n, (2500 - i,)) for i, n in enumerate("ABCD")], boards=2, rounds=4),
            matches=(MatchRecord(1, "A", "C", 3, 1), MatchRecord(1, "D", "B", 3, 1)),
        )
    )
    wrong = played + text.splitlines()[line_of(text, "330") - 1] + "\n"
    count = len(played.splitlines()) + 1
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(blank_totals(wrong))
    assert [str(p) for p in caught.value.problems] == [
        f"line {count}: round 1: record 330 forfeits the match of teams 2 and 4, whose boards were played"
    ]


def test_a_match_scoring_more_than_its_boards_is_listed_on_the_first_team_s_line() -> None:
    text = with_cells(plain(), 1, {13: (1, "b", "1"), 14: (2, "w", "1")})  # Denmark wins boards 1, 2 too
    text = blank_totals(text)
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text)
    assert f"line {line_of(text, '310   1')}: round 1: teams 1 and 4 score more than 4 boards" in [
        str(p) for p in caught.value.problems
    ]


def test_player_records_refused_by_line_and_an_unrated_player_rated_0() -> None:
    text = plain()
    row = text.splitlines()[line_of(text, "001    7") - 1]
    count = len(text.splitlines()) + 1
    assert [str(p) for p in caught_problems(text + row + "\n")] == [
        f"line {count}: player 7 is already on line {line_of(text, '001    7')}"
    ]
    assert [str(p) for p in caught_problems(text + "001     x\n")] == [
        f"line {count}: record 001 has no player number (columns 5-8)"
    ]
    assert [str(p) for p in caught_problems(text + "001 x\n")] == [
        f"line {count}: the player number (columns 5-8) 'x' is not a number"
    ]
    state, _ = read_team_trf(forfeit_file())
    assert state.team("A").ratings == (2500, 0)


def caught_problems(text: str) -> tuple[object, ...]:
    with pytest.raises(TrfInvalid) as caught:
        read_team_trf(text)
    return caught.value.problems


def with_cells(text: str, rnd: int, cells: dict[int, tuple[int, str, str]]) -> str:
    """The file with round ``rnd``'s cell of some players (record 001) written."""
    out = []
    for line in text.splitlines():
        pid = int(line[4:8]) if line.startswith("001 ") else 0
        if pid in cells:
            opponent, colour, letter = cells[pid]
            start = 91 + 10 * (rnd - 1)
            line = line[:start] + f"{opponent:4d} {colour} {letter}" + line[start + 8 :]
        out.append(line)
    return "".join(line + "\n" for line in out)


def test_record_162_accepts_fide_s_points_for_every_result_letter_and_refuses_others() -> None:
    """TRF-2026 record 162: W 1, D ½, L 0, A (absent) 0, P (present, not paired) 1 and X (forfeit draw) ½
    are FIDE's points, which our engines use; other points for a letter are refused by line."""
    text = plain()
    line = "162  W 1.0    D 0.5    L 0.0"
    every = line + "    A 0.0    P 1.0    X 0.5"
    assert outcome(text.replace(line, every.lower()))[1:] == outcome(text)[1:]
    for letter, points in (("A", "1.0"), ("P", "2.0"), ("P", "0.5"), ("X", "1.0"), ("X", "0.0")):
        assert refusals(text.replace(line, f"{line}    {letter} {points}")) == [
            f"line 9: record 162 scores {letter} {points}; our engines score games 1, ½, 0"
        ]


def refusals(text: str) -> list[str]:
    with pytest.raises(TrfNotImplemented) as caught:
        read_team_trf(text)
    assert not isinstance(caught.value, TrfInvalid)
    return [str(p) for p in caught.value.problems]
