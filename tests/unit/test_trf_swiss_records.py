"""The records of a team Swiss TRF-2026 file read line by line (``read_records``, docs/trf.md "What we
read"), each field from its own columns: the cases a whole file does not show, where a line ends inside
a field or a field holds a stray character."""

from __future__ import annotations

from orchestrator.domain.trf.swiss_records import Problem, TrfInvalid, read_records


def columns(*fields: tuple[int, str]) -> str:
    """A line with each text written from its (1-based) column, blanks elsewhere, nothing after the last."""
    line: list[str] = []
    for start, text in fields:
        line += [" "] * (start - 1 + len(text) - len(line))
        line[start - 1 : start - 1 + len(text)] = text
    return "".join(line)


def player(pid: int, *cells: tuple[int, str, str]) -> str:
    """Record 001: number 5-8, rating 49-52, then per round the opponent 92-95, colour 97, result 99."""
    fields = [(1, "001"), (5, f"{pid:4d}"), (49, "2000")]
    for rnd, (opponent, colour, letter) in enumerate(cells):
        fields += [(92 + 10 * rnd, f"{opponent:4d}"), (97 + 10 * rnd, colour), (99 + 10 * rnd, letter)]
    return columns(*fields)


def test_a_refused_file_names_every_problem_by_line_in_line_order() -> None:
    error = TrfInvalid([Problem(7, "b is wrong"), Problem(0, "no teams"), Problem(3, "a is wrong")])
    assert str(error) == "no teams; line 3: a is wrong; line 7: b is wrong"


def test_every_round_of_a_record_001_is_read_up_to_its_last_result() -> None:
    """Nine rounds (TRF-2026: ten columns a round from column 92); the line ends at round 9's result."""
    cells = [(n + 2, "wb"[n % 2], "1=0"[n % 3]) for n in range(9)]
    line = player(1, *cells)
    assert len(line) == 99 + 10 * 8
    read = read_records(line + "\n").players[1]
    assert read.cells == [(opponent, colour, letter) for opponent, colour, letter in cells]
    assert read.cell(9) == (10, "w", "0")


def test_a_line_ending_in_the_opponent_s_first_column_still_names_the_opponent() -> None:
    """The opponent may sit anywhere in columns 92-95, even alone in column 92 at the line's end."""
    line = columns((1, "001"), (5, "   1"), (92, "3"))
    assert read_records(line).players[1].cell(1) == (3, "-", " ")


def test_a_result_letter_outside_trf_2026_is_refused() -> None:
    for letter in "XxAY":
        out = read_records(player(1, (2, "w", letter)))
        assert out.invalid == [Problem(1, f"round 1: result {letter!r} is not a TRF result letter")]
    for letter in "1=0+-WDLHFUZ":
        assert read_records(player(1, (2, "w", letter))).invalid == []


def test_a_team_number_that_is_not_a_number_is_one_problem() -> None:
    out = read_records(columns((1, "310"), (5, "x"), (9, "Team A")))
    assert out.invalid == [Problem(1, "the team number (columns 5-7) 'x' is not a number")]
    assert out.teams == {}


def test_a_team_number_missing_from_columns_5_to_7_is_refused_whatever_follows() -> None:
    out = read_records(columns((1, "310"), (8, "1"), (9, "Team A")))
    assert out.invalid == [Problem(1, "record 310 has no team number (columns 5-7)")]


def test_a_bye_team_written_in_the_first_column_of_its_round_at_the_line_s_end_is_read() -> None:
    out = read_records(columns((1, "320"), (8, "2"), (10, " 4.0"), (15, "  3"), (19, "5")))
    assert out.byes == {1: 3, 2: 5}


def test_a_line_up_is_kept_by_round_and_team_with_its_opponent_and_empty_boards() -> None:
    """Record 300: round 5-7, team 9-11, opponent 13-15, players from column 17, five columns each, 0 an
    empty board; the last player may be written in the first column of its field."""
    out = read_records(
        columns((1, "300"), (5, "  2"), (9, "  4"), (13, "  1"), (17, "   7"), (22, "   0"), (27, "9"))
    )
    assert out.lineups == {(2, 4): (1, 1, [7, 0, 9])}
    assert out.invalid == []


def acceleration(mp: str, gp: str, rounds: tuple[str, str], teams: tuple[str, str]) -> str:
    """Record 250: match points 5-8, game points 10-13, rounds 15-17 and 19-21, teams 23-26 and 28-31."""
    return columns(
        (1, "250"), (5, mp), (10, gp), (15, rounds[0]), (19, rounds[1]), (23, teams[0]), (28, teams[1])
    )


def test_an_acceleration_adds_its_points_in_its_rounds_to_its_teams() -> None:
    out = read_records(acceleration("   1", " 2.5", ("  1", "  3"), ("   1", "  12")))
    assert out.invalid == []
    [(line, points)] = out.accelerations
    assert line == 1
    assert (points.mp, points.gp) == (1, 5)
    assert (points.first_round, points.last_round, points.first_team, points.last_team) == (1, 3, 1, 12)
    only_mp = read_records(acceleration("   2", "    ", ("  2", "  2"), ("   5", "   5"))).accelerations
    assert [(p.mp, p.gp) for _, p in only_mp] == [(2, 0)]
    only_gp = read_records(acceleration("    ", " 1.0", ("  1", "  1"), ("   1", "   1"))).accelerations
    assert [(p.mp, p.gp) for _, p in only_gp] == [(0, 2)]


def problems(line: str) -> list[str]:
    """The reasons a record 250 or 260 is refused for; the record kept neither way."""
    out = read_records(line)
    assert out.accelerations == [] and out.prohibitions == []
    return [problem.reason for problem in out.invalid]


def test_an_acceleration_names_each_problem_with_its_columns() -> None:
    assert problems(acceleration("    ", "    ", ("  1", "  3"), ("   1", "  12"))) == [
        "record 250 adds neither match points (columns 5-8) nor game points (10-13)"
    ]
    assert problems(acceleration(" 1.5", "    ", ("  1", "  3"), ("   1", "  12"))) == [
        "the match points (columns 5-8) '1.5' is not a number of whole points"
    ]
    assert problems(acceleration("   1", " 0.3", ("  1", "  3"), ("   1", "  12"))) == [
        "the game points (columns 10-13) '0.3' is not a number of half-points"
    ]
    assert problems(acceleration("   1", "    ", ("   ", "  3"), ("   1", "  12"))) == [
        "the first round (columns 15-17) is missing"
    ]
    assert problems(acceleration("   1", "    ", ("  1", "  x"), ("   1", "  12"))) == [
        "the last round (columns 19-21) 'x' is not a number"
    ]
    assert problems(acceleration("   1", "    ", ("  4", "  3"), ("   1", "  12"))) == [
        "record 250: rounds 4 to 3 are not a range of rounds"
    ]
    assert problems(acceleration("   1", "    ", ("  0", "  3"), ("   1", "  12"))) == [
        "record 250: rounds 0 to 3 are not a range of rounds"
    ]
    assert problems(acceleration("   1", "    ", ("  1", "  3"), ("  13", "  12"))) == [
        "record 250: teams 13 to 12 are not a range of teams"
    ]
    assert problems(acceleration("   1", "    ", ("  1", "  3"), ("   0", "  12"))) == [
        "record 250: teams 0 to 12 are not a range of teams"
    ]


def test_a_prohibition_keeps_its_rounds_and_its_teams_from_column_13() -> None:
    out = read_records(columns((1, "260"), (5, "  1"), (9, "  5"), (13, "   3"), (18, "  14"), (23, "   7")))
    assert out.invalid == []
    assert out.prohibitions == [(1, 1, 5, [3, 14, 7])]
    tabbed = read_records(columns((1, "260"), (5, "  2"), (9, "  2")) + "  \t4\t9")
    assert tabbed.prohibitions == [(1, 2, 2, [4, 9])]


def test_a_prohibition_names_each_problem() -> None:
    one_team = columns((1, "260"), (5, "  1"), (9, "  5"), (13, "   3"), (18, "   3"))
    assert problems(one_team) == ["record 260 names fewer than two teams (from column 13)"]
    backwards = columns((1, "260"), (5, "  6"), (9, "  5"), (13, "   3"), (18, "   4"))
    assert problems(backwards) == ["record 260: rounds 6 to 5 are not a range of rounds"]
    from_zero = columns((1, "260"), (5, "  0"), (9, "  5"), (13, "   3"), (18, "   4"))
    assert problems(from_zero) == ["record 260: rounds 0 to 5 are not a range of rounds"]
    no_round = columns((1, "260"), (9, "  5"), (13, "   3"), (18, "   4"))
    assert problems(no_round) == ["the first round (columns 5-7) is missing"]
